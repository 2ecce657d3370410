import Foundation
import Glibc
import HTTP
import Synchronization

/// A service made of closures, so that each test plans and answers as it needs. Its error
/// responses are marked, so that a test sees they came from the service.
struct TestService: HTTPService {
  var planner: @Sendable (HTTPRequestHead) -> RequestPlan
  var responder: @Sendable (HTTPRequest) -> HTTPResponse
  var preparer: (@Sendable (inout HTTPResponse, HTTPRequestHead?) -> Void)?

  init(
    plan: @escaping @Sendable (HTTPRequestHead) -> RequestPlan = { _ in
      .read(BodyLimit(maximumBytes: 1 << 20), onWorker: false)
    },
    prepare: (@Sendable (inout HTTPResponse, HTTPRequestHead?) -> Void)? = nil,
    respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse
  ) {
    planner = plan
    preparer = prepare
    responder = respond
  }

  func plan(for head: HTTPRequestHead) -> RequestPlan { planner(head) }
  func respond(to request: HTTPRequest) -> HTTPResponse { responder(request) }

  func prepareForSending(_ response: inout HTTPResponse, head: HTTPRequestHead?) {
    preparer?(&response, head)
  }

  func errorResponse(status: Int, message: String, head: HTTPRequestHead?) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: ["Content-Type": "text/plain", "X-Error": "service"],
      body: Array("error \(status): \(message)".utf8))
  }
}

/// A server on 127.0.0.1 at a free port with the log off, two threads and two workers, as the
/// tests start it unless they say otherwise.
func startServer(
  _ service: TestService, configure: (inout HTTPServerConfiguration) -> Void = { _ in }
) throws -> HTTPServer {
  var configuration = HTTPServerConfiguration()
  configuration.address = "127.0.0.1"
  configuration.port = 0
  configuration.threads = 2
  configuration.workers = 2
  configuration.log = .off
  configure(&configuration)
  return try HTTPServer(configuration: configuration, service: service)
}

/// A text response.
func textResponse(_ text: String, status: Int = 200) -> HTTPResponse {
  HTTPResponse(status: status, headers: ["Content-Type": "text/plain"], body: Array(text.utf8))
}

/// Seconds since `start`.
func seconds(since start: Date) -> Double { Date().timeIntervalSince(start) }

/// The names in a folder, [] when it is missing.
func entries(of folder: String) -> [String] {
  ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
}

/// A value several threads can set and read.
final class Shared<Value: Sendable>: Sendable {
  private let value: Mutex<Value>
  init(_ value: Value) { self.value = Mutex(value) }
  func get() -> Value { value.withLock { $0 } }
  func set(_ new: Value) { value.withLock { $0 = new } }
  func update(_ change: (inout Value) -> Void) { value.withLock { change(&$0) } }
}

/// A deterministic pseudo-random generator (SplitMix64), so that a failing chunking can be
/// run again.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
