import Foundation
import Synchronization

/// What concurrent work came to, collected from several threads.
final class Outcomes: Sendable {
  struct Outcome: Sendable {
    var what: String
    var ok: Bool
    var text: String
  }

  private let outcomes = Mutex<[Outcome]>([])

  func add(_ what: String, ok: Bool, text: String) {
    outcomes.withLock { $0.append(Outcome(what: what, ok: ok, text: text)) }
  }

  var all: [Outcome] { outcomes.withLock { $0 } }
  var failures: [Outcome] { all.filter { !$0.ok } }
  var count: Int { all.count }
  var allText: String { all.map(\.text).joined(separator: "\n") }
}

/// Runs `body(0)` … `body(count - 1)` each on a thread of its own, all at once (the global
/// dispatch queue runs about one a core, so requests it sends rarely overlap); the group is
/// done when every one has returned.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> DispatchGroup {
  let group = DispatchGroup()
  for index in 0..<count {
    group.enter()
    Thread.detachNewThread {
      body(index)
      group.leave()
    }
  }
  return group
}
