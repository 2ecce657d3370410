import Foundation
import Testing

@testable import Server

@Suite("Sign-in throttle")
struct ThrottleTests {
  let start = Date(timeIntervalSince1970: 1_800_000_000)
  let policy = SignInThrottle.Policy(freeFailures: 3, window: 600, firstDelay: 1, maximumDelay: 60)

  @Test func theFreeFailuresCostNothingThenTheWaitDoubles() {
    let throttle = SignInThrottle(policy: policy)
    for attempt in 1...3 {
      #expect(throttle.wait("ada", now: start) == nil, "attempt \(attempt)")
      throttle.failed("ada", now: start)
    }
    // The fourth try waits a second, the fifth two.
    #expect(throttle.wait("ada", now: start) == 1)
    #expect(throttle.wait("ada", now: start.addingTimeInterval(0.5)) == 0.5)
    #expect(throttle.wait("ada", now: start.addingTimeInterval(1)) == nil)
    throttle.failed("ada", now: start.addingTimeInterval(1))
    #expect(throttle.wait("ada", now: start.addingTimeInterval(1)) == 2)
    #expect((0...12).map(throttle.delay(after:)) == [0, 0, 0, 1, 2, 4, 8, 16, 32, 60, 60, 60, 60])
    #expect(throttle.delay(after: 10_000) == 60)
  }

  @Test func keysAreCountedApart() {
    let throttle = SignInThrottle(policy: policy)
    for _ in 0..<5 { throttle.failed("ada", now: start) }
    #expect(throttle.wait("ada", now: start) != nil)
    #expect(throttle.wait("grace", now: start) == nil)
  }

  @Test func aSuccessForgetsTheFailures() {
    let throttle = SignInThrottle(policy: policy)
    for _ in 0..<5 { throttle.failed("ada", now: start) }
    throttle.succeeded("ada")
    #expect(throttle.wait("ada", now: start) == nil)
  }

  @Test func failuresAreForgottenAfterTheWindow() {
    let throttle = SignInThrottle(policy: policy)
    for _ in 0..<8 { throttle.failed("ada", now: start) }
    #expect(throttle.wait("ada", now: start.addingTimeInterval(20)) != nil)
    #expect(throttle.wait("ada", now: start.addingTimeInterval(601)) == nil)
    // The count starts again: three free failures.
    throttle.failed("ada", now: start.addingTimeInterval(602))
    #expect(throttle.wait("ada", now: start.addingTimeInterval(602)) == nil)
  }

  @Test func manyKeysStayWithinTheCapacity() {
    let throttle = SignInThrottle(policy: policy, capacity: 100)
    for index in 0..<1_000 { throttle.failed("address:\(index)", now: start.addingTimeInterval(Double(index) / 10)) }
    // The newest keys are kept, the stalest dropped.
    #expect(throttle.count <= 100)
    for _ in 0..<4 { throttle.failed("address:999", now: start.addingTimeInterval(100)) }
    #expect(throttle.wait("address:999", now: start.addingTimeInterval(100)) != nil)
  }
}

/// The policy a sign-in must pass, on the server's own numbers: a stranger's failures hold up
/// the stranger; the account-wide cap holds up every address but those the account signed in
/// from lately.
@Suite("Sign-in guard")
struct SignInGuardTests {
  let start = Date(timeIntervalSince1970: 1_800_000_000)
  let stranger = "203.0.113.9"
  let home = "198.51.100.7"
  let newPlace = "192.0.2.1"

  /// The wait for `address`, which the library would say the account signed in from lately when
  /// it is `known`; counts how often it was asked.
  func wait(
    _ guardian: SignInGuard, _ address: String, known: Set<String> = [], at seconds: Double = 0,
    asked: inout Int
  ) -> TimeInterval? {
    guardian.wait(name: "Ada", address: address, now: start.addingTimeInterval(seconds)) {
      asked += 1
      return known.contains(address)
    }
  }

  func wait(_ guardian: SignInGuard, _ address: String, known: Set<String> = [], at seconds: Double = 0)
    -> TimeInterval?
  {
    var asked = 0
    return wait(guardian, address, known: known, at: seconds, asked: &asked)
  }

  @Test func aStrangerFailingForeverHoldsUpTheStrangerNotTheReviewersOwnAddress() {
    let guardian = SignInGuard()
    // One failure every 15 minutes for a day, and a burst now.
    for quarter in (0..<96).reversed() {
      guardian.failed(name: "ada", address: stranger, now: start.addingTimeInterval(-Double(quarter) * 900))
    }
    for _ in 0..<10 { guardian.failed(name: "ada", address: stranger, now: start) }
    #expect(wait(guardian, stranger) == 900)
    // The reviewer's own address, which signed in lately: at once.
    #expect(wait(guardian, home, known: [home]) == nil)
    // A new address meets the account-wide cap, and only it.
    #expect(wait(guardian, newPlace) == 900)
    // Another account is not held up at all.
    #expect(guardian.wait(name: "grace", address: newPlace, now: start) { false } == nil)
  }

  @Test func theAccountWideCapStopsAGuesserWithManyAddresses() {
    let guardian = SignInGuard()
    // Twenty addresses, one failure each: no address or pair is over its free tries.
    for index in 0..<20 { guardian.failed(name: "ada", address: "10.0.0.\(index)", now: start) }
    #expect(wait(guardian, "10.0.0.99") == 1, "the account-wide cap: 20 free, then a second")
    #expect(wait(guardian, "10.0.0.99", at: 1) == nil)
    for index in 20..<40 { guardian.failed(name: "ada", address: "10.0.0.\(index)", now: start) }
    #expect(wait(guardian, "10.0.0.99") == 900, "up to 15 minutes")
    #expect(wait(guardian, home, known: [home]) == nil)
  }

  @Test func aKnownAddressStillMeetsItsOwnPairThrottle() {
    let guardian = SignInGuard()
    for index in 0..<40 { guardian.failed(name: "ada", address: "10.0.0.\(index)", now: start) }
    for attempt in 1...5 {
      #expect(wait(guardian, home, known: [home]) == nil, "attempt \(attempt)")
      guardian.failed(name: "ada", address: home, now: start)
    }
    #expect(wait(guardian, home, known: [home]) == 1)
    #expect(wait(guardian, home, known: [home], at: 1) == nil)
  }

  @Test func aSuccessForgetsItsPairOnly() {
    let guardian = SignInGuard()
    for index in 0..<20 { guardian.failed(name: "ada", address: "10.0.0.\(index)", now: start) }
    for _ in 0..<5 { guardian.failed(name: "ada", address: home, now: start) }
    #expect(wait(guardian, home, known: [home]) == 1)
    guardian.succeeded(name: "ada", address: home)
    #expect(wait(guardian, home, known: [home]) == nil)
    // The guessers' count stays: a new address still waits.
    #expect(wait(guardian, newPlace) != nil)
  }

  @Test func theLibraryIsAskedOnlyWhenTheAccountWideCapIsWhatHoldsATryBack() {
    let guardian = SignInGuard()
    var asked = 0
    #expect(wait(guardian, home, known: [home], asked: &asked) == nil)
    for _ in 0..<25 { guardian.failed(name: "ada", address: stranger, now: start) }
    // The stranger's own throttles hold it back longer than the account's: nothing to ask.
    #expect(wait(guardian, stranger, asked: &asked) == 900)
    #expect(asked == 0)
    #expect(wait(guardian, home, known: [home], asked: &asked) == nil)
    #expect(asked == 1)
  }

  @Test func namesMatchInAnyCaseAndAnyLengthCostsTheSame() {
    let guardian = SignInGuard()
    for _ in 0..<6 { guardian.failed(name: "ADA", address: stranger, now: start) }
    #expect(wait(guardian, stranger) != nil)
    #expect(SignInGuard.account("Ada") == "ada")
    #expect(SignInGuard.account(String(repeating: "x", count: 1 << 20)).utf8.count == 64)
  }

  @Test(arguments: [
    ("per account and address", SignInThrottle.perPair), ("per address", SignInThrottle.perAddress),
    ("account-wide", SignInThrottle.accountWide),
  ])
  func failuresOutliveTheLongestWait(name: String, policy: SignInThrottle.Policy) {
    let throttle = SignInThrottle(policy: policy)
    for _ in 0..<30 { throttle.failed("key", now: start) }
    #expect(throttle.wait("key", now: start) == 900, "\(name)")
    // The wait served, the next failure waits as long again: no free tries after 15 minutes.
    #expect(throttle.wait("key", now: start.addingTimeInterval(901)) == nil, "\(name)")
    throttle.failed("key", now: start.addingTimeInterval(901))
    #expect(throttle.wait("key", now: start.addingTimeInterval(901)) == 900, "\(name)")
    // An hour of quiet forgets them.
    throttle.failed("key", now: start.addingTimeInterval(901 + 3_601))
    #expect(throttle.wait("key", now: start.addingTimeInterval(901 + 3_601)) == nil, "\(name)")
  }

}
