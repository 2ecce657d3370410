import Catalogue
import Foundation
import Synchronization

/// The sign-in form's own tokens (there is no session yet to derive one from): each made by
/// this server, good for an hour, and taken once, so that a sign-in form sent again (a replayed
/// request, a browser's "resubmit" after the reviewer signed out on a shared computer) signs
/// no one in.
///
/// A token is `ISSUED.NONCE.TAG`: when it was made (seconds since 1970), 256 random bits, and a
/// tag of both under a key the process makes at start. So the server keeps no record of the
/// tokens it gave, only of those taken, and those only until they would have expired anyway. A
/// restart makes a new key: a form shown before it is refused once, and shown again with a
/// fresh token.
final class SignInTokens: Sendable {
  /// What taking a token came to.
  enum Outcome: Equatable {
    case taken
    /// Not one this server made, or older than ``lifetime``.
    case invalid
    /// Taken before.
    case usedAlready
  }

  /// How long a token is good for: the sign-in cookie's `Max-Age`.
  static let lifetime = 3600

  private let key = SigningKey()
  private let capacity: Int
  /// The digests of the tokens taken, with when each expires.
  private let taken = Mutex<[String: Date]>([:])

  /// `capacity` bounds the tokens remembered as taken; past it the ones that expire soonest
  /// are forgotten first (a flood of sign-ins costs replay protection for the oldest forms,
  /// never memory or the sign-in itself).
  init(capacity: Int = 100_000) {
    self.capacity = capacity
  }

  /// A new token.
  func make(now: Date = Date()) -> String {
    let body = "\(Int(now.timeIntervalSince1970)).\(Secrets.make())"
    return body + "." + key.tag(body)
  }

  /// Takes `token`: ``Outcome/taken`` the first time for a token this server made within the
  /// hour, after that ``Outcome/usedAlready``.
  func take(_ token: String, now: Date = Date()) -> Outcome {
    let pieces = token.split(separator: ".", omittingEmptySubsequences: false)
    guard pieces.count == 3, let issued = Int(pieces[0]), key.verify(String(pieces[2]), of: "\(pieces[0]).\(pieces[1])")
    else { return .invalid }
    let age = Int(now.timeIntervalSince1970) - issued
    // A minute's grace for a clock stepped back; a token from further ahead is no token.
    guard (-60...Self.lifetime).contains(age) else { return .invalid }
    let digest = SHA256.hex(Array(token.utf8))
    return taken.withLock { taken in
      if taken[digest] != nil { return .usedAlready }
      taken[digest] = Date(timeIntervalSince1970: TimeInterval(issued + Self.lifetime))
      if taken.count > capacity { forgetExpired(&taken, now: now) }
      return .taken
    }
  }

  /// How many tokens are remembered as taken.
  var count: Int { taken.withLock { $0.count } }

  private func forgetExpired(_ taken: inout [String: Date], now: Date) {
    taken = taken.filter { $0.value >= now }
    guard taken.count > capacity else { return }
    let soonest = taken.sorted { $0.value < $1.value }.prefix(taken.count - capacity)
    for (digest, _) in soonest { taken[digest] = nil }
  }
}
