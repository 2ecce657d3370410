import Dispatch
import Foundation
import Synchronization

/// Work spread over threads, for the parts of the library that are CPU-bound and independent
/// per picture (verifying, making thumbnails).
enum Parallel {
  /// `body(index)` for every index in `0..<count`, on `jobs` threads (one a core when `nil`),
  /// each thread taking the next index as soon as it is free, so that large and small items
  /// mixed keep every thread busy. The results come back in index order.
  static func map<T: Sendable>(
    count: Int, jobs: Int?, _ body: @escaping @Sendable (Int) -> T
  ) -> [T] {
    let workers = min(max(1, jobs ?? ProcessInfo.processInfo.activeProcessorCount), max(count, 1))
    let results = Mutex([T?](repeating: nil, count: count))
    let next = Atomic<Int>(0)
    let group = DispatchGroup()
    for _ in 0..<workers {
      DispatchQueue.global().async(group: group) {
        while true {
          let index = next.add(1, ordering: .relaxed).oldValue
          guard index < count else { return }
          let result = body(index)
          results.withLock { $0[index] = result }
        }
      }
    }
    group.wait()
    return results.withLock { $0.map { $0! } }
  }
}
