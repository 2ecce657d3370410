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
