import Dispatch
import Glibc
import Synchronization

/// One open connection, as the server keeps it: its socket, its client, and what it is doing.
final class ConnectionRecord: Sendable {
  /// What a connection is doing, for its deadlines and for the choice of one to cut off when
  /// the server is full.
  enum Phase: Sendable, Equatable {
    /// Connected or kept alive, no request line yet.
    case waiting
    /// The request line is in, the rest of the head is not.
    case head
    /// The body arrives.
    case body
    /// The request is being answered: never cut off.
    case busy
  }

  struct State: Sendable {
    var phase = Phase.waiting
    /// Monotonic nanoseconds when the phase began.
    var since: Int64
    /// By when the head must have arrived (waiting and head phases).
    var headDeadline: Int64
    /// The body so far: bytes in all, and at the start of the current measure.
    var bodyBytes = 0
    var windowStart: Int64 = 0
    var windowBytes = 0
    var pace = BodyPace.standard
    /// By when the whole body must be in (`Int64.max`: no deadline).
    var bodyDeadline = Int64.max
    /// The status the log gives a request the reaper cut off (408 too slow, 503 evicted); 0
    /// while it has not.
    var cutStatus = 0
  }

  let socket: Int32
  let remoteAddress: String
  let state: Mutex<State>

  init(socket: Int32, remoteAddress: String, now: Int64, headDeadline: Int64) {
    self.socket = socket
    self.remoteAddress = remoteAddress
    state = Mutex(State(since: now, headDeadline: headDeadline))
  }

  /// The status to log for a request the reaper cut off, or 0.
  var cutStatus: Int { state.withLock { $0.cutStatus } }
}

/// Cuts off clients that hold a connection without sending: request heads slower than
/// `requestHeadTimeout`, bodies slower than their ``BodyPace``; and, when the server nears its
/// connection limit, makes room for a new client by cutting off a connection that does little.
///
/// libmicrohttpd's timeout counts silence only, so a client that trickles a byte every few
/// seconds ("slowloris", in the head or in the body) would hold its connection for ever, and a
/// few dozen addresses doing it would take every slot. Each connection gets a head deadline:
/// `requestHeadTimeout` from its start for the first head; for a later request on a kept-alive
/// connection, the previous response's end plus `connectionTimeout + requestHeadTimeout`,
/// brought forward to `requestHeadTimeout` after its request line once that arrives. A body
/// must bring its pace's bytes in every window of its pace, and be whole by its deadline. A
/// thread looks every second (or four times a head timeout, if shorter) and shuts down
/// (`shutdown(SHUT_RDWR)`) the socket of every connection past a deadline; libmicrohttpd then
/// sees the end of the stream and closes it.
///
/// A new connection past ``evictionThreshold`` (the connection limit less a reserve) cuts off
/// another: of the address holding the most connections, the one furthest behind (waiting for
/// a request, or sending its head, for more than a second; or a body behind the pace it must
/// keep), never one being answered. So slow clients, however many addresses they come from,
/// cannot keep a reader out: the reserve absorbs a burst, every new connection makes its own
/// room, and the room is taken from whoever holds the most. A burst that fills the server
/// before any of its connections is behind is cut back under the threshold at the next look.
///
/// The socket is never shut by mistake after libmicrohttpd closed it and the number was reused:
/// libmicrohttpd calls the close notification before it closes the socket (`MHD_cleanup_connections`
/// in 0.9.75), the notification takes the record out of the table under the table's lock, and
/// sockets are shut down under that same lock.
final class ConnectionReaper: Sendable {
  /// The open connections, by client address.
  private struct Table {
    var byAddress: [String: [ObjectIdentifier: ConnectionRecord]] = [:]
    var count = 0
  }

  private let table = Mutex(Table())
  private let headTimeout: Int64
  private let keepAliveAllowance: Int64
  /// Past this many connections, a new one cuts off another.
  let evictionThreshold: Int
  private let memory = Mutex(MemoryTrim())
  private let wake = DispatchSemaphore(value: 0)
  private let done = DispatchSemaphore(value: 0)
  private let stopping = Atomic<Bool>(false)
  private let running = Atomic<Bool>(false)

  init(requestHeadTimeout: Int, connectionTimeout: Int, maximumConnections: Int) {
    headTimeout = Int64(max(1, requestHeadTimeout)) * 1_000_000_000
    keepAliveAllowance = Int64(max(1, connectionTimeout) + max(1, requestHeadTimeout)) * 1_000_000_000
    evictionThreshold = Self.evictionThreshold(maximumConnections: maximumConnections)
  }

  /// The connection limit less a reserve of a sixteenth (at least 8, at most a quarter): 3,840
  /// of 4,096.
  static func evictionThreshold(maximumConnections: Int) -> Int {
    let limit = max(1, maximumConnections)
    let reserve = min(limit / 4, max(8, limit / 16))
    return max(1, limit - reserve)
  }

  /// How many connections are open.
  var connections: Int { table.withLock { $0.count } }

  /// A record for a new connection, its head deadline `requestHeadTimeout` away, in the table;
  /// past ``evictionThreshold`` another connection is cut off to make room.
  func connectionStarted(socket: Int32, remoteAddress: String) -> ConnectionRecord {
    let now = System.monotonicNanoseconds()
    let record = ConnectionRecord(
      socket: socket, remoteAddress: remoteAddress, now: now, headDeadline: now + headTimeout)
    table.withLock { table in
      table.byAddress[remoteAddress, default: [:]][ObjectIdentifier(record)] = record
      table.count += 1
      if table.count > evictionThreshold { Self.evict(from: table, now: now) }
    }
    return record
  }

  /// Called before libmicrohttpd closes the socket.
  func connectionClosed(_ record: ConnectionRecord) {
    table.withLock { table in
      guard table.byAddress[record.remoteAddress]?.removeValue(forKey: ObjectIdentifier(record)) != nil else {
        return
      }
      table.count -= 1
      if table.byAddress[record.remoteAddress]?.isEmpty == true { table.byAddress[record.remoteAddress] = nil }
    }
  }

  /// The request line has arrived: the rest of the head has `requestHeadTimeout`.
  func requestLineArrived(_ record: ConnectionRecord) {
    let now = System.monotonicNanoseconds()
    record.state.withLock { state in
      state.phase = .head
      state.since = now
      state.headDeadline = min(state.headDeadline, now + headTimeout)
    }
  }

  /// The head is complete: the request is being answered, or its body comes next.
  func headArrived(_ record: ConnectionRecord) {
    let now = System.monotonicNanoseconds()
    record.state.withLock { state in
      state.phase = .busy
      state.since = now
    }
  }

  /// The body begins: it must keep `pace`.
  func bodyStarted(_ record: ConnectionRecord, pace: BodyPace) {
    let now = System.monotonicNanoseconds()
    record.state.withLock { state in
      state.phase = .body
      state.since = now
      state.pace = pace
      state.bodyBytes = 0
      state.windowStart = now
      state.windowBytes = 0
      state.bodyDeadline = pace.deadline.map { now + Int64($0) * 1_000_000_000 } ?? .max
    }
  }

  /// `count` more bytes of the body have arrived.
  func bodyReceived(_ record: ConnectionRecord, count: Int) {
    record.state.withLock { $0.bodyBytes += count }
  }

  /// The body is in: the request is being answered.
  func bodyFinished(_ record: ConnectionRecord) {
    headArrived(record)
  }

  /// A response has been sent and the connection is kept alive for the next request.
  func requestFinished(_ record: ConnectionRecord) {
    let now = System.monotonicNanoseconds()
    record.state.withLock { state in
      state.phase = .waiting
      state.since = now
      state.headDeadline = now + keepAliveAllowance
    }
  }

  /// Shuts down the sockets of connections past a deadline; returns how many.
  @discardableResult
  func sweep() -> Int {
    let now = System.monotonicNanoseconds()
    let (cut, open) = table.withLock { table in
      var count = 0
      var leaving = 0
      for records in table.byAddress.values {
        for record in records.values {
          if Self.isOverdue(record, now: now) {
            shutdown(record.socket, Int32(SHUT_RDWR))
            count += 1
          }
          if record.cutStatus != 0 { leaving += 1 }
        }
      }
      // A burst can fill the server before any of its connections is behind (each new one
      // finds none to cut off), and a full libmicrohttpd takes no new client: back under the
      // threshold, so that it does again.
      var excess = table.count - leaving - evictionThreshold
      while excess > 0 && Self.evict(from: table, now: now) {
        excess -= 1
        count += 1
      }
      return (count, table.count)
    }
    if memory.withLock({ $0.shouldTrim(connections: open) }) { System.releaseFreeMemory() }
    return cut
  }

  /// Whether `record` is past a deadline; marks it cut off when it is, so that it is shut once.
  private static func isOverdue(_ record: ConnectionRecord, now: Int64) -> Bool {
    record.state.withLock { state in
      guard state.cutStatus == 0 else { return false }
      switch state.phase {
      case .waiting, .head:
        guard state.headDeadline <= now else { return false }
      case .body:
        let window = Int64(max(1, state.pace.window)) * 1_000_000_000
        if now >= state.bodyDeadline {
          break
        } else if now - state.windowStart >= window {
          let needed = state.pace.minimumBytesPerSecond * max(1, state.pace.window)
          guard state.bodyBytes - state.windowBytes < needed else {
            state.windowStart = now
            state.windowBytes = state.bodyBytes
            return false
          }
        } else {
          return false
        }
      case .busy:
        return false
      }
      state.cutStatus = 408
      return true
    }
  }

  /// Cuts off a connection to make room for a new one: of the address with the most
  /// connections (then the next, while none of its connections may go), the one furthest
  /// behind (see ``lag(_:now:)``), if any is behind at all. Returns whether one was.
  @discardableResult
  private static func evict(from table: Table, now: Int64) -> Bool {
    // The address with the most first (one pass); the others, most first, only when none of
    // its connections may go.
    guard let most = table.byAddress.values.max(by: { $0.count < $1.count }) else { return false }
    if cutFurthestBehind(most, now: now) { return true }
    for records in table.byAddress.values.sorted(by: { $0.count > $1.count }) {
      if cutFurthestBehind(records, now: now) { return true }
    }
    return false
  }

  /// Cuts off the connection of `records` furthest behind; false when none is behind.
  private static func cutFurthestBehind(_ records: [ObjectIdentifier: ConnectionRecord], now: Int64) -> Bool {
    var furthest: (record: ConnectionRecord, lag: Double)?
    for record in records.values {
      guard let lag = lag(record, now: now), lag > 0, lag > furthest?.lag ?? 0 else { continue }
      furthest = (record, lag)
    }
    guard let victim = furthest?.record else { return false }
    victim.state.withLock { $0.cutStatus = 503 }
    shutdown(victim.socket, Int32(SHUT_RDWR))
    return true
  }

  /// How far behind a connection is, in seconds: for one waiting for a request or sending its
  /// head, the time since that began less a second's grace; for a body, the time its bytes
  /// are behind its pace's rate. Nil for one being answered, or cut off already.
  private static func lag(_ record: ConnectionRecord, now: Int64) -> Double? {
    record.state.withLock { state in
      guard state.cutStatus == 0 else { return nil }
      let elapsed = Double(now - state.since) / 1e9
      switch state.phase {
      case .waiting, .head:
        return elapsed - 1
      case .body:
        return elapsed - Double(state.bodyBytes) / Double(max(1, state.pace.minimumBytesPerSecond))
      case .busy:
        return nil
      }
    }
  }

  /// Starts the sweeping thread.
  func start() -> Bool {
    let interval = min(max(headTimeout / 4, 50_000_000), 1_000_000_000)
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

/// When to give the memory freed by closed connections back to the system.
///
/// Each connection holds libmicrohttpd's buffer (32 KiB by default) from malloc; when a flood of
/// connections ends, malloc keeps what they freed, and the server's resident memory stays at
/// the flood's height. Once the connections have fallen to half of the most seen since the last
/// time, by at least ``step``, what malloc holds free is released (`malloc_trim`, a few
/// milliseconds).
struct MemoryTrim: Sendable {
  /// The fall in connections worth a trim.
  static let step = 256
  private var peak = 0

  /// Whether to trim now, with `connections` open.
  mutating func shouldTrim(connections: Int) -> Bool {
    peak = max(peak, connections)
    guard peak - connections >= Self.step, connections <= peak / 2 else { return false }
    peak = connections
    return true
  }
}
