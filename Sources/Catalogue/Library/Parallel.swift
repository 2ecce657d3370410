import Dispatch
import Foundation
import Synchronization

/// Work spread over threads, for the parts of the library that are CPU-bound and independent
/// per item (decoding imports, verifying, making thumbnails). One mechanism: an ordered stream
/// with a bounded window.
enum Parallel {
  /// Runs `produce(index)` for every index in `0..<count` on `jobs` threads (one a core when
  /// `nil`), and `consume(index, result)` on the calling thread in index order, each as soon
  /// as it and those before it are ready. At most two results a thread wait in memory; a
  /// thread that finishes a small item goes on to the next at once, so large and small items
  /// mixed keep every thread busy. When `consume` throws, the threads stop after their current
  /// item and the error is rethrown once they have.
  static func stream<T: Sendable>(
    count: Int, jobs: Int?, produce: @escaping @Sendable (Int) -> T,
    consume: (Int, T) throws(CatalogueError) -> Void
  ) throws(CatalogueError) {
    guard count > 0 else { return }
    let workers = min(max(1, jobs ?? ProcessInfo.processInfo.activeProcessorCount), count)
    // One job: on the calling thread, which keeps its priority (a server's worker runs its
    // imports below the threads that serve readers).
    if workers == 1 && jobs != nil {
      for index in 0..<count { try consume(index, produce(index)) }
      return
    }
    // A worker takes a place in the window before it claims the next item, so the item the
    // consumer waits for is always claimed: the window cannot fill with later items.
    // Made at zero and signalled up: libdispatch traps when a semaphore is freed below the
    // value it was made with, which a stop part-way (an error, an interruption) leaves.
    let window = DispatchSemaphore(value: 0)
    for _ in 0..<workers * 2 { window.signal() }
    let ready = (0..<count).map { _ in DispatchSemaphore(value: 0) }
    let results = Mutex([T?](repeating: nil, count: count))
    let next = Atomic<Int>(0)
    let cancelled = Atomic<Bool>(false)
    let group = DispatchGroup()
    for _ in 0..<workers {
      DispatchQueue.global().async(group: group) {
        while true {
          window.wait()
          let index = next.add(1, ordering: .relaxed).oldValue
          guard index < count, !cancelled.load(ordering: .relaxed) else {
            window.signal()
            return
          }
          let result = produce(index)
          results.withLock { $0[index] = result }
          ready[index].signal()
        }
      }
    }
    defer {
      // Stop the workers and wait for them before returning, on an error too.
      cancelled.store(true, ordering: .relaxed)
      for _ in 0..<workers { window.signal() }
      group.wait()
    }
    for index in 0..<count {
      ready[index].wait()
      let result = results.withLock { results in
        defer { results[index] = nil }
        return results[index]!
      }
      window.signal()
      try consume(index, result)
    }
  }

  /// `body(index)` for every index in `0..<count`, as ``stream(count:jobs:produce:consume:)``
  /// computes them; the results in index order.
  static func map<T: Sendable>(count: Int, jobs: Int?, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    var results: [T] = []
    results.reserveCapacity(count)
    do {
      try stream(count: count, jobs: jobs, produce: body) { (_, result) throws(CatalogueError) in results.append(result)
      }
    } catch {
      // Collecting results throws nothing.
    }
    return results
  }
}
