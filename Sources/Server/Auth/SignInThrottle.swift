import Foundation
import Synchronization

/// Failed sign-ins counted by a key (an account and address, an address, an account), with a
/// wait that doubles after the first few: guessing passwords costs hours, while a reviewer who
/// mistypes is never held up for long. ``SignInGuard`` decides which keys a try must pass.
///
/// Kept in memory: a restart forgets the counts, which costs a guesser one restart of the
/// server per few tries. Bounded: at most ``capacity`` keys, the stalest dropped first.
final class SignInThrottle: Sendable {
  struct Policy: Sendable {
    /// Failures within ``window`` that cost nothing.
    var freeFailures: Int
    /// How long failures are remembered after the last one.
    var window: TimeInterval
    /// The wait after the first failure past the free ones; each further one doubles it.
    var firstDelay: TimeInterval
    var maximumDelay: TimeInterval
  }

  // Failures are remembered for an hour after the last one, longer than the longest wait: a
  // guesser who waits out 15 minutes finds the count still there, not five free tries again.

  /// Per account and address: five tries, then 1 s, 2 s, 4 s … up to 15 minutes before each
  /// next one. What a reviewer who mistypes meets.
  static let perPair = Policy(freeFailures: 5, window: 60 * 60, firstDelay: 1, maximumDelay: 15 * 60)
  /// Per address, whatever the account: more room (a household or an office behind one
  /// address), the same growth.
  static let perAddress = Policy(freeFailures: 20, window: 60 * 60, firstDelay: 1, maximumDelay: 15 * 60)
  /// Per account, from every address together: a guesser with many addresses gets 20 tries,
  /// then ten more over the next 17 minutes, then four an hour.
  static let accountWide = Policy(freeFailures: 20, window: 60 * 60, firstDelay: 1, maximumDelay: 15 * 60)

  private struct Entry {
    var failures: Int
    var last: Date
  }

  private let policy: Policy
  private let capacity: Int
  private let entries = Mutex<[String: Entry]>([:])

  init(policy: Policy, capacity: Int = 10_000) {
    self.policy = policy
    self.capacity = capacity
  }

  /// How many seconds `key` must still wait before its next try, or nil when it may try now.
  func wait(_ key: String, now: Date = Date()) -> TimeInterval? {
    entries.withLock { entries in
      guard let entry = entries[key] else { return nil }
      if now.timeIntervalSince(entry.last) > policy.window {
        entries[key] = nil
        return nil
      }
      let delay = self.delay(after: entry.failures)
      let left = entry.last.addingTimeInterval(delay).timeIntervalSince(now)
      return left > 0 ? left : nil
    }
  }

  /// Records a failed try.
  func failed(_ key: String, now: Date = Date()) {
    entries.withLock { entries in
      var entry = entries[key] ?? Entry(failures: 0, last: now)
      if now.timeIntervalSince(entry.last) > policy.window { entry.failures = 0 }
      entry.failures += 1
      entry.last = now
      entries[key] = entry
      if entries.count > capacity { prune(&entries, now: now) }
    }
  }

  /// How many keys are remembered.
  var count: Int { entries.withLock { $0.count } }

  /// Forgets `key`'s failures (a successful sign-in).
  func succeeded(_ key: String) {
    _ = entries.withLock { $0.removeValue(forKey: key) }
  }

  /// The wait that `failures` failures earn before the next try: none while fewer than the
  /// free ones, then ``Policy/firstDelay``, doubling with each failure after.
  func delay(after failures: Int) -> TimeInterval {
    let over = failures - policy.freeFailures
    guard over >= 0 else { return 0 }
    // 2^over overflows nothing below 64; the maximum caps it long before.
    let doubled = policy.firstDelay * pow(2, Double(min(over, 62)))
    return min(doubled, policy.maximumDelay)
  }

  private func prune(_ entries: inout [String: Entry], now: Date) {
    entries = entries.filter { now.timeIntervalSince($0.value.last) <= policy.window }
    guard entries.count > capacity else { return }
    let stalest = entries.sorted { $0.value.last < $1.value.last }.prefix(entries.count - capacity)
    for (key, _) in stalest { entries[key] = nil }
  }
}
