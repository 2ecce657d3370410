import Dispatch
import Glibc
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd that hands each request to an ``HTTPService``.
///
/// Threads: libmicrohttpd polls with epoll in `threads` threads of its own, each serving its
/// connections from start to end: the service's `plan(for:)`, and `respond(to:)` for requests
/// planned inline, run there. A request planned `onWorker` is suspended once its body is in
/// (`MHD_suspend_connection`), so that its thread goes on with the others, and `respond(to:)`
/// runs on one of `workers` threads of the server's own, which then resumes the connection to
/// queue the response. A further thread cuts off clients that take longer than
/// `requestHeadTimeout` to send a request head, bodies slower than their pace, and when the
/// server is nearly full the connection doing the least (see ``ConnectionReaper``); libmicrohttpd's own
/// timeout cuts off those silent for `connectionTimeout`.
///
/// Limits are always set: connections in all and per address, memory per connection, both
/// timeouts, and the body limit each request's plan gives. At start the soft limit of open
/// files is raised to the hard limit, so that `maximumConnections` can be reached.
public final class HTTPServer: Sendable {
  private enum LifeCycle {
    case running(Daemon, listeningSocket: Int32)
    case stopping
    case stopped(unfinished: Int)
  }

  private let core: ServerCore
  private let lifeCycle: Mutex<LifeCycle>
  /// Entered at start, left when the stop is over: what ``wait()`` waits on.
  private let finished = DispatchGroup()
  private let boundPort: Int

  /// Binds and starts serving; throws when the address cannot be used.
  public init(configuration: HTTPServerConfiguration, service: any HTTPService) throws(HTTPServerError) {
    System.raiseOpenFileLimit()
    System.limitMallocArenas(configuration.mallocArenas)
    let (socket, port) = try ListeningSocket.open(address: configuration.address, port: configuration.port)
    let core = ServerCore(service: service, configuration: configuration)
    guard core.workers.start(), core.background.start(), core.reaper.start() else {
      core.reaper.stop()
      core.workers.stop()
      core.background.stop()
      System.closeFile(socket)
      throw HTTPServerError(
        "cannot start the HTTP server: no thread could be made (\(System.describe(errno))); raise the process's limits")
    }
    guard let daemon = Daemon(listeningSocket: socket, configuration: configuration, core: core) else {
      core.reaper.stop()
      core.workers.stop()
      core.background.stop()
      System.closeFile(socket)
      throw HTTPServerError(
        "cannot start the HTTP server on port \(port): libmicrohttpd refused to start (its message is above); "
          + "check the thread count and the limits")
    }
    self.core = core
    boundPort = port
    lifeCycle = Mutex(.running(daemon, listeningSocket: socket))
    finished.enter()
  }

  deinit {
    stop(grace: .zero)
  }

  /// The port bound (useful with port 0).
  public var port: Int { boundPort }

  /// Requests being handled now (head received, response not yet completed).
  public var requestsInFlight: Int { core.inFlight.load(ordering: .relaxed) }

  /// Stops accepting new connections, lets requests in flight (and queued worker jobs) finish
  /// within `grace`, closes idle keep-alive connections, then stops. Safe to call from any
  /// thread, more than once. Returns how many requests were still unfinished when grace ran out.
  ///
  /// New connections are refused at once (the listening socket stops listening); a response
  /// sent during the grace closes its connection after it. Requests still with a worker when
  /// grace runs out are answered 503 if their connection still can be; every connection is then
  /// closed.
  ///
  /// Not from a service's own `plan(for:)` or `respond(to:)`: the stop waits for the threads
  /// that run them.
  @discardableResult
  public func stop(grace: Duration) -> Int {
    enum Role {
      case perform(Daemon, Int32)
      case waitForOther
      case done(Int)
    }
    let role = lifeCycle.withLock { state -> Role in
      switch state {
      case .running(let daemon, let socket):
        state = .stopping
        return .perform(daemon, socket)
      case .stopping:
        return .waitForOther
      case .stopped(let unfinished):
        return .done(unfinished)
      }
    }
    switch role {
    case .done(let unfinished):
      return unfinished
    case .waitForOther:
      finished.wait()
      return lifeCycle.withLock { state in
        if case .stopped(let unfinished) = state { return unfinished }
        return 0
      }
    case .perform(let daemon, let socket):
      core.stopping.store(true, ordering: .relaxed)
      daemon.quiesce()
      // libmicrohttpd may still touch the socket until it stops, so it is not closed yet; shut
      // down, a listening socket stops listening, and a new client is refused at once.
      shutdown(socket, Int32(SHUT_RD))
      let (seconds, attoseconds) = grace.components
      let graceNanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
      let deadline = System.monotonicNanoseconds() + graceNanoseconds
      while core.inFlight.load(ordering: .relaxed) > 0 || core.pendingWork > 0,
        System.monotonicNanoseconds() < deadline
      {
        System.sleep(microseconds: 2_000)
      }
      let unfinished = core.inFlight.load(ordering: .relaxed)
      _ = core.abandonWork()
      core.reaper.stop()
      daemon.stop()
      System.closeFile(socket)
      core.workers.stop()
      core.background.stop()
      lifeCycle.withLock { $0 = .stopped(unfinished: unfinished) }
      finished.leave()
      return unfinished
    }
  }

  /// Blocks until `stop` has finished.
  public func wait() {
    finished.wait()
  }

  /// Writes a problem of the HTTP layer itself to standard error, as one line.
  static func reportProblem(_ message: String) {
    var line = Array("http: \(message)\n".utf8)
    for index in line.indices.dropLast() where line[index] < 0x20 { line[index] = 0x20 }
    line.withUnsafeBytes { System.writeAll(STDERR_FILENO, $0) }
  }
}
