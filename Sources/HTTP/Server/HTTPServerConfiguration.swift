/// How an ``HTTPServer`` listens, how many threads it runs, and the limits it always sets.
public struct HTTPServerConfiguration: Sendable {
  public enum LogFormat: Sendable { case text, json, off }

  /// IPv4 or IPv6 literal ("::1", "0.0.0.0", "::").
  public var address: String = "127.0.0.1"
  /// 0: any free port (see HTTPServer.port).
  public var port: Int = 8080
  /// libmicrohttpd's polling threads. Default: CPUs this process may run on
  /// (sched_getaffinity), >= 1.
  public var threads: Int
  /// Worker pool for onWorker requests; default max(2, threads).
  public var workers: Int
  /// How much lower the workers' priority is than the polling threads' (`nice`, 0–19), so that
  /// slow work yields to answering requests. Default 10.
  public var workerNiceness: Int = 10
  /// How much lower the priority of the workers for background work is (`nice`, 0–19; see
  /// ``RequestPlan/read(_:onWorker:planned:background:)``); as many as ``workers``. Default 19.
  public var backgroundNiceness: Int = 19
  /// The most malloc arenas the process keeps (glibc's `M_ARENA_MAX`), shared by its threads;
  /// 0 leaves glibc's default. Default 2: a server's memory stays what its requests use.
  public var mallocArenas: Int = 2
  /// Seconds without activity before a connection is closed.
  public var connectionTimeout: Int = 30
  /// Seconds a client has to send its whole request head (from its connection, or for a later
  /// request on a kept-alive connection from its request line; see ``HTTPServer``).
  public var requestHeadTimeout: Int = 15
  public var maximumConnections: Int = 4096
  public var maximumConnectionsPerAddress: Int = 128
  /// Bytes per connection for libmicrohttpd's buffers: a request head must fit in about half
  /// (a longer one gets 431 from libmicrohttpd).
  ///
  /// Default 32 KiB, libmicrohttpd's own: 16 KiB for a head is twice the longest header line
  /// nginx takes by default. libmicrohttpd zeroes the whole of it after every request, so its
  /// size is paid in time per request and in resident memory per kept-alive connection.
  public var connectionMemoryLimit: Int = 32 * 1024
  public var log: LogFormat = .text
  /// File descriptor the request log goes to.
  public var logSink: Int32 = 2
  /// Query values that start with one of these are written to the request log as `REDACTED`,
  /// whatever their parameter is called: the service's own secrets (API tokens). Parameters
  /// named as credentials (`token`, `access_token`, `password`…) are redacted anyway.
  public var logSecretPrefixes: [String] = []

  public init() {
    threads = System.availableCPUs()
    workers = max(2, threads)
  }
}

/// Why a server could not start. ``description`` reads "what: why; what to do".
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
  /// e.g. "cannot listen on 127.0.0.1:8080: address already in use; give another --port"
  public var description: String

  init(_ description: String) { self.description = description }
}
