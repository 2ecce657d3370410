/// What to do with a request once its head has arrived, before any body is read.
public enum RequestPlan: Sendable {
  /// Answer at once; a body the client sends is not read (and the connection is then closed).
  case respond(HTTPResponse)
  /// Read the body within `limit`, then call `respond(to:)`: on the connection's own thread, or
  /// when `onWorker` on the worker pool (slow work: decoding pictures, writes that may wait for a
  /// lock), with the connection suspended meanwhile so that its thread serves the others.
  case read(BodyLimit, onWorker: Bool)
}

/// How much body a request may bring, and how a form is taken.
public struct BodyLimit: Sendable {
  /// The most bytes of body accepted; over it → 413 via errorResponse, decided from
  /// Content-Length before reading when there is one, else as soon as the count passes it
  /// (chunked bodies). For a multipart body this bounds the whole body.
  public var maximumBytes: Int
  /// How to take a multipart/form-data body: parts with a filename streamed to temporary
  /// files, other parts buffered. nil: any body is buffered whole into `body`.
  ///
  /// A body of another type is buffered into `body` all the same.
  public var multipart: MultipartLimit?

  public init(maximumBytes: Int, multipart: MultipartLimit? = nil) {
    self.maximumBytes = maximumBytes
    self.multipart = multipart
  }

  /// No body at all: a request with one gets 413.
  public static let none = BodyLimit(maximumBytes: 0)
}

/// The bounds of a multipart/form-data body, past which it is refused.
public struct MultipartLimit: Sendable {
  /// e.g. 100; one more → 413.
  public var maximumParts: Int
  /// Per file part → 413.
  public var maximumFileBytes: Int
  /// Per non-file part → 413.
  public var maximumFieldBytes: Int
  /// Where upload files go (created mode 0700 if missing).
  public var temporaryFolder: String

  public init(maximumParts: Int, maximumFileBytes: Int, maximumFieldBytes: Int, temporaryFolder: String) {
    self.maximumParts = maximumParts
    self.maximumFileBytes = maximumFileBytes
    self.maximumFieldBytes = maximumFieldBytes
    self.temporaryFolder = temporaryFolder
  }
}

/// The application behind the server: it plans each request from its head, answers it whole,
/// and words the errors the HTTP layer finds itself.
///
/// `plan(for:)` and `respond(to:)` of a request run on the connection's thread, or `respond(to:)`
/// on a worker when the plan says so; they are called from several threads at once for
/// different requests.
public protocol HTTPService: Sendable {
  func plan(for head: HTTPRequestHead) -> RequestPlan
  func respond(to request: HTTPRequest) -> HTTPResponse
  /// The answer for a problem the HTTP layer finds itself (400 malformed body or multipart,
  /// 413 too large, 408/400 as fits), so that errors look like the service's own (JSON for
  /// an API, a page for a browser). `head` is nil when the request line itself was unusable.
  func errorResponse(status: Int, message: String, head: HTTPRequestHead?) -> HTTPResponse
  /// The answer (413) for a body refused because one uploaded file passed
  /// ``MultipartLimit/maximumFileBytes``, so that the service can name the file and its size in
  /// its own words. By default, ``errorResponse(status:message:head:)`` with `message`.
  func oversizedPartResponse(_ part: OversizedPart, message: String, head: HTTPRequestHead) -> HTTPResponse
  /// Adds to `response` what every answer must carry (security headers, say), just before it
  /// is sent: called once for each answer, wherever it was made (`respond(to:)`, a plan's
  /// answer, ``errorResponse(status:message:head:)``, the 500 for an answer libmicrohttpd
  /// cannot send), so that no answer the layer makes itself goes out without them. `head` is
  /// nil when the request line itself was unusable. By default nothing.
  func prepareForSending(_ response: inout HTTPResponse, head: HTTPRequestHead?)
}

extension HTTPService {
  public func oversizedPartResponse(_ part: OversizedPart, message: String, head: HTTPRequestHead) -> HTTPResponse {
    errorResponse(status: 413, message: message, head: head)
  }

  public func prepareForSending(_ response: inout HTTPResponse, head: HTTPRequestHead?) {}
}
