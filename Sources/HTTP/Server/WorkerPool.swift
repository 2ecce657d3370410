import Dispatch
import Synchronization

/// Threads that run `respond(to:)` for the requests whose plan says `onWorker`, so that slow
/// work never holds up a connection thread.
final class WorkerPool: Sendable {
  private struct Queue {
    var jobs: [@Sendable () -> Void] = []
    var head = 0
    var stopping = false
  }

  private let queue = Mutex(Queue())
  private let available = DispatchSemaphore(value: 0)
  private let threads: Int
  /// Jobs queued or running.
  let pending = Atomic<Int>(0)

  init(threads: Int) {
    self.threads = max(1, threads)
  }

  /// Starts the threads; false when none could be made.
  func start() -> Bool {
    var started = 0
    for _ in 0..<threads where Threads.detach({ [self] in work() }) { started += 1 }
    return started > 0
  }

  /// Queues `job` for the next free worker.
  func submit(_ job: @escaping @Sendable () -> Void) {
    pending.add(1, ordering: .relaxed)
    queue.withLock { $0.jobs.append(job) }
    available.signal()
  }

  /// Lets every thread end once the queue is empty. A thread still running a job ends after it.
  func stop() {
    queue.withLock { $0.stopping = true }
    for _ in 0..<threads { available.signal() }
  }

  private func work() {
    while true {
      available.wait()
      let job: (@Sendable () -> Void)? = queue.withLock { queue in
        guard queue.head < queue.jobs.count else { return nil }
        let job = queue.jobs[queue.head]
        queue.head += 1
        if queue.head == queue.jobs.count {
          queue.jobs.removeAll(keepingCapacity: true)
          queue.head = 0
        }
        return job
      }
      guard let job else {
        if queue.withLock({ $0.stopping }) { return }
        continue
      }
      job()
      pending.subtract(1, ordering: .relaxed)
    }
  }
}
