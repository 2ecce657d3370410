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
