import Catalogue
import Foundation

/// Which sign-in throttles a try must pass, so that a guesser cannot keep a reviewer out:
///
/// - the account and address together (``SignInThrottle/perPair``): a stranger's failures
///   hold up the stranger's address, not the reviewer's;
/// - the address (``SignInThrottle/perAddress``): one address trying many names;
/// - the account from every address (``SignInThrottle/accountWide``): a guesser with many
///   addresses. This cap alone is shared with strangers, so it does not hold back an address
///   the account signed in from lately (the library remembers them for
///   ``Library/signInAddressMemory``): the reviewer's usual places still get in at once,
///   under their own pair's throttle. A new address for the account may have to wait for it
///   while a guess is under way.
///
/// A success forgets the failures of its pair only: the account-wide count is the guessers',
/// and a reviewer signing in does not give them their free tries again.
final class SignInGuard: Sendable {
  private let pairs = SignInThrottle(policy: SignInThrottle.perPair)
  private let addresses = SignInThrottle(policy: SignInThrottle.perAddress)
  private let accounts = SignInThrottle(policy: SignInThrottle.accountWide)

  /// How many seconds a try for `name` from `address` must still wait, or nil when it may try
  /// now. `signedInLately` says whether the account signed in from the address lately; it is
  /// asked only when the account-wide cap is what holds the try back (it reads the library).
  func wait<E: Error>(
    name: String, address: String, now: Date = Date(), signedInLately: () throws(E) -> Bool
  ) throws(E) -> TimeInterval? {
    let account = Self.account(name)
    let own = [pairs.wait(Self.pair(account, address), now: now), addresses.wait(address, now: now)]
      .compactMap { $0 }.max()
    guard let shared = accounts.wait(account, now: now), shared > (own ?? 0) else { return own }
    return try signedInLately() ? own : shared
  }

  /// Records a failed try for `name` from `address`.
  func failed(name: String, address: String, now: Date = Date()) {
    let account = Self.account(name)
    pairs.failed(Self.pair(account, address), now: now)
    addresses.failed(address, now: now)
    accounts.failed(account, now: now)
  }

  /// Records a successful sign-in: the pair's failures are forgotten.
  func succeeded(name: String, address: String) {
    pairs.succeeded(Self.pair(Self.account(name), address))
  }

  /// The key of the account `name` names: names match in any case. A name no reviewer can
  /// have (longer than any) is kept as its digest, so that a form posted with megabytes of
  /// name costs the throttle no more memory than another.
  static func account(_ name: String) -> String {
    let lowered = name.lowercased()
    return lowered.utf8.count <= Library.maximumNameLength ? lowered : SHA256.hex(Array(lowered.utf8))
  }

  private static func pair(_ account: String, _ address: String) -> String { account + "\u{0}" + address }
}
