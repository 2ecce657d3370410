import Synchronization

/// The server's state of one request, from its request line to the end of its response.
///
/// libmicrohttpd calls the callbacks of a connection from one thread at a time, and a request
/// handed to a worker is suspended until the worker resumes it (libmicrohttpd's resume takes a
/// lock, which orders the worker's writes before the connection thread's next reads): so the
/// plain properties are touched by one thread at a time. What a worker and ``HTTPServer/stop(grace:)``
/// share is in ``work``, behind its lock. Hence `@unchecked Sendable`.
final class RequestContext: @unchecked Sendable {
  enum Phase {
    /// The access handler has not been called yet.
    case awaitingHead
    /// A response is ready and the request has no body: queued at the next call, once the
    /// request is complete, so that the connection stays open (libmicrohttpd 0.9.75 closes a
    /// connection whose response was queued at the first call).
    case answerNext
    /// The body arrives.
    case readingBody
    /// The request is with a worker, the connection suspended.
    case working
    /// The response is queued.
    case answered
  }

  /// Where a request handed to a worker stands.
  enum Work {
    case queued
    case running
    case finished(HTTPResponse)
    /// The finished response has been queued.
    case delivered
    /// The server stopped before the worker was done: the connection was resumed without it.
    case abandoned
  }

  let target: String
  let record: ConnectionRecord?
  /// Monotonic nanoseconds at the request line.
  let started: Int64

  var phase = Phase.awaitingHead
  var head: HTTPRequestHead?
  var method = ""
  var countedInFlight = false
  var pendingResponse: HTTPResponse?
  var intake: BodyIntake?
  var onWorker = false
  /// On the background workers, when `onWorker`.
  var inBackground = false
  /// What the plan found out, for the request.
  var planned: (any Sendable)?
  /// What the log says of the response queued.
  var status = 0
  var bytes = 0
  var logNote: String?
  /// Every upload file of the request, removed when the request is over.
  var uploads: [UploadedFile] = []

  let work = Mutex<Work>(.queued)

  init(target: String, record: ConnectionRecord?, started: Int64) {
    self.target = target
    self.record = record
    self.started = started
  }

  /// The pending response, which the context no longer holds.
  func takePendingResponse() -> HTTPResponse? {
    defer { pendingResponse = nil }
    return pendingResponse
  }
}

/// How a request's body is framed, from its header fields.
struct BodyFraming {
  /// Content-Length, when given.
  var contentLength: Int?
  var chunked: Bool

  /// Why the framing cannot be trusted, when it cannot (RFC 9112 section 6): a request is
  /// then refused and its connection closed, so that no bytes of it are taken for another
  /// request (a proxy in front may have framed it otherwise: request smuggling).
  var problem: String?

  init(_ headers: HTTPHeaders) {
    let lengths = headers.values("Content-Length")
    contentLength = lengths.first.flatMap { Int(ASCII.trimmed(Substring($0))) }
    let codings = headers.values("Transfer-Encoding").flatMap { $0.split(separator: ",") }.map {
      ASCII.trimmed($0).lowercased()
    }
    chunked = codings.contains("chunked")
    if !codings.isEmpty && !lengths.isEmpty {
      problem = "a request may not have both Transfer-Encoding and Content-Length"
    } else if !codings.isEmpty && codings != ["chunked"] {
      problem = "Transfer-Encoding \(codings.joined(separator: ", ")) is not taken: send the body as it is, or chunked"
    } else if lengths.count > 1 && Set(lengths.map { ASCII.trimmed(Substring($0)) }).count > 1 {
      problem = "a request may not have two different Content-Length fields"
    } else if let first = lengths.first, contentLength == nil || contentLength! < 0 {
      problem = "Content-Length \(first) is not a length"
    }
  }

  /// Whether a body follows the head.
  var hasBody: Bool { chunked || (contentLength ?? 0) > 0 }
}

/// A request body as it arrives: counted against the limit, buffered or taken apart as a form.
///
/// Once the body is refused (over the limit, a malformed form), later bytes are read and
/// dropped, so that the refusal can be sent as a response once the request is complete
/// (libmicrohttpd 0.9.75 cannot queue a response in the middle of a body): the whole of a body
/// whose Content-Length was within the limit (so the client hears why), and of a chunked one
/// at most ``drainAllowance`` bytes past the limit, after which the connection is closed.
final class BodyIntake {
  /// How many bytes past the limit a chunked body may send before the connection is closed:
  /// enough for an upload a little or a few times too large to hear why, bounded so that an
  /// endless one is cut off. (Browsers send forms with a Content-Length, drained whole.)
  static let drainAllowance = 64 << 20

  typealias Failure = MultipartError

  private let maximumBytes: Int
  /// Whether the client announced the body's length (checked against the limit already).
  private let announced: Bool
  private var buffer: [UInt8] = []
  private let reader: MultipartReader?
  private var received = 0
  private var dropped = 0
  private(set) var failure: Failure?

  init(limit: BodyLimit, reader: MultipartReader?, expected: Int?) {
    maximumBytes = max(0, limit.maximumBytes)
    announced = expected != nil
    self.reader = reader
    // Room for the announced length, up to 1 MiB: a client that announces much and sends
    // nothing must not make the server set aside that much.
    if reader == nil, let expected { buffer.reserveCapacity(min(expected, maximumBytes, 1 << 20)) }
  }

  /// Takes the next bytes; false when the connection should be closed.
  func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
    if failure != nil {
      dropped += bytes.count
      return keepsDraining
    }
    received += bytes.count
    if received > maximumBytes {
      fail(Failure(status: 413, message: "request body over the limit of \(maximumBytes) bytes"))
      dropped = received - maximumBytes
      return keepsDraining
    }
    if let reader {
      do {
        try reader.consume(bytes)
      } catch {
        fail(error)
      }
    } else {
      buffer.append(contentsOf: bytes)
    }
    return true
  }

  /// Whether the rest of a refused body is still worth reading: all of an announced one, up to
  /// the allowance of a chunked one.
  private var keepsDraining: Bool {
    announced || received + dropped <= maximumBytes + Self.drainAllowance
  }

  /// The body whole: its bytes, or the parts of its form.
  func finish() -> Result<(body: [UInt8], parts: [FormPart]), MultipartError> {
    if let failure { return .failure(failure) }
    guard let reader else { return .success((buffer, [])) }
    do {
      return .success(([], try reader.finish()))
    } catch {
      return .failure(error)
    }
  }

  /// Removes what the body left on disk (a request that failed or was cut off).
  func discard() { reader?.discard() }

  private func fail(_ failure: Failure) {
    self.failure = failure
    buffer = []
    reader?.discard()
  }
}
