import Dispatch
import Glibc
import Synchronization

/// One open connection, as the server keeps it: its socket, its client, and by when the head of
/// its next request must have arrived.
final class ConnectionRecord: Sendable {
  let socket: Int32
  let remoteAddress: String
  /// Monotonic nanoseconds; `Int64.max` while a request is being handled (its body and its
  /// response have libmicrohttpd's own timeout).
  let headDeadline: Atomic<Int64>

  init(socket: Int32, remoteAddress: String, headDeadline: Int64) {
    self.socket = socket
    self.remoteAddress = remoteAddress
    self.headDeadline = Atomic(headDeadline)
  }
}

/// Cuts off clients that take too long to send a request head.
///
/// libmicrohttpd's timeout counts silence only, so a client that trickles a byte every few
/// seconds ("slowloris") would hold its connection for ever. Each connection gets a deadline:
/// `requestHeadTimeout` from its start for the first head; for a later request on a kept-alive
/// connection, the previous response's end plus `connectionTimeout + requestHeadTimeout`,
/// brought forward to `requestHeadTimeout` after its request line once that arrives. A thread
/// wakes four times a timeout and shuts down (`shutdown(SHUT_RDWR)`) the socket of every
/// connection past its deadline; libmicrohttpd then sees the end of the stream and closes it.
///
/// The socket is never shut by mistake after libmicrohttpd closed it and the number was reused:
/// libmicrohttpd calls the close notification before it closes the socket (`MHD_cleanup_connections`
/// in 0.9.75), the notification takes the record out of the table under the table's lock, and
/// the sweep shuts sockets down under that same lock.
final class HeadReaper: Sendable {
  private let records = Mutex<[ObjectIdentifier: ConnectionRecord]>([:])
  private let headTimeout: Int64
  private let keepAliveAllowance: Int64
  private let wake = DispatchSemaphore(value: 0)
  private let done = DispatchSemaphore(value: 0)
  private let stopping = Atomic<Bool>(false)
  private let running = Atomic<Bool>(false)

  init(requestHeadTimeout: Int, connectionTimeout: Int) {
    headTimeout = Int64(max(1, requestHeadTimeout)) * 1_000_000_000
    keepAliveAllowance = Int64(max(1, connectionTimeout) + max(1, requestHeadTimeout)) * 1_000_000_000
  }

  /// A record for a new connection, its deadline `requestHeadTimeout` away, in the table.
  func connectionStarted(socket: Int32, remoteAddress: String) -> ConnectionRecord {
    let record = ConnectionRecord(
      socket: socket, remoteAddress: remoteAddress, headDeadline: System.monotonicNanoseconds() + headTimeout)
    records.withLock { $0[ObjectIdentifier(record)] = record }
    return record
  }

  /// Called before libmicrohttpd closes the socket.
  func connectionClosed(_ record: ConnectionRecord) {
    _ = records.withLock { $0.removeValue(forKey: ObjectIdentifier(record)) }
  }

  /// The request line has arrived: the rest of the head has `requestHeadTimeout`.
  func requestLineArrived(_ record: ConnectionRecord) {
    let deadline = System.monotonicNanoseconds() + headTimeout
    if deadline < record.headDeadline.load(ordering: .relaxed) {
      record.headDeadline.store(deadline, ordering: .relaxed)
    }
  }

  /// The head is complete: no deadline while the request is handled.
  func headArrived(_ record: ConnectionRecord) {
    record.headDeadline.store(.max, ordering: .relaxed)
  }

  /// A response has been sent and the connection is kept alive for the next request.
  func requestFinished(_ record: ConnectionRecord) {
    record.headDeadline.store(System.monotonicNanoseconds() + keepAliveAllowance, ordering: .relaxed)
  }

  /// Shuts down the sockets of connections past their deadline; returns how many.
  @discardableResult
  func sweep() -> Int {
    let now = System.monotonicNanoseconds()
    return records.withLock { records in
      var count = 0
      for record in records.values where record.headDeadline.load(ordering: .relaxed) <= now {
        shutdown(record.socket, Int32(SHUT_RDWR))
        // Once is enough: libmicrohttpd closes the connection on its next look at it.
        record.headDeadline.store(.max, ordering: .relaxed)
        count += 1
      }
      return count
    }
  }

  /// Starts the sweeping thread.
  func start() -> Bool {
    let interval = max(headTimeout / 4, 50_000_000)
    let started = Threads.detach { [self] in
      while !stopping.load(ordering: .relaxed) {
        _ = wake.wait(timeout: .now() + .nanoseconds(Int(interval)))
        if stopping.load(ordering: .relaxed) { break }
        sweep()
      }
      done.signal()
    }
    running.store(started, ordering: .relaxed)
    return started
  }

  /// Stops the sweeping thread and waits for it.
  func stop() {
    guard running.exchange(false, ordering: .relaxed) else { return }
    stopping.store(true, ordering: .relaxed)
    wake.signal()
    done.wait()
  }
}
