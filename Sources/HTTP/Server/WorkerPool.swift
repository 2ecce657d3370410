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

  /// How much nicer than the connection threads the workers are (`nice`, 0–19).
  private let niceness: Int32

  init(threads: Int, niceness: Int) {
    self.threads = max(1, threads)
    self.niceness = Int32(min(max(0, niceness), 19))
  }

  /// Starts the threads; false when none could be made.
  func start() -> Bool {
    var started = 0
    for _ in 0..<threads where Threads.detach({ [self] in run() }) { started += 1 }
    return started > 0
  }

  private func run() {
    // Slow work (decoding an upload, hashing a password) yields to the threads that serve
    // requests: a reader's page is not held up by an upload. Linux gives each thread its own
    // nice value; a failure leaves the thread as it was.
    if niceness > 0 { System.lowerThreadPriority(by: niceness) }
    work()
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
