/// What to do with a request once its head has arrived, before any body is read.
public enum RequestPlan: Sendable {
  /// Answer at once; a body the client sends is not read (and the connection is then closed).
  case respond(HTTPResponse)
  /// Read the body within `limit`, then call `respond(to:)`: on the connection's own thread, or
  /// when `onWorker` on the worker pool (slow work: decoding pictures, writes that may wait for a
  /// lock), with the connection suspended meanwhile so that its thread serves the others.
  /// `planned` is what the plan found out (the route the head matched, say), handed back in
  /// ``HTTPRequest/planned`` so that it is not found out twice. `background` work (decoding an
  /// upload: long, and nobody waits for it as a reader waits for a page) runs on workers of its
  /// own at the lowest priority, so that on a busy machine it yields to the other workers too.
  case read(BodyLimit, onWorker: Bool, planned: (any Sendable)? = nil, background: Bool = false)
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
  /// How slowly the body may come before the connection is cut off.
  public var pace: BodyPace

  public init(maximumBytes: Int, multipart: MultipartLimit? = nil, pace: BodyPace = .standard) {
    self.maximumBytes = maximumBytes
    self.multipart = multipart
    self.pace = pace
  }

  /// No body at all: a request with one gets 413.
  public static let none = BodyLimit(maximumBytes: 0)
}

/// How slowly a request body may arrive. A client that sends its body a byte every few seconds
/// holds a connection slot for as long as it likes (libmicrohttpd's timeout counts only
/// silence), and a few dozen addresses doing it take every slot: a body that falls below the
/// rate, or passes its deadline, has its connection cut off (logged as 408).
public struct BodyPace: Sendable, Equatable {
  /// The fewest bytes a second the body must bring, measured over each ``window`` from the
  /// start of the body: a short stall is forgiven, a trickle is not.
  public var minimumBytesPerSecond: Int
  /// Seconds of each measure (and the grace before the first).
  public var window: Int
  /// Seconds from the end of the head by which the whole body must be in, or nil.
  public var deadline: Int?
  /// Whether a body must announce its length (Content-Length): a chunked one is refused with
  /// 411 before it is read.
  public var requiresLength: Bool

  public init(minimumBytesPerSecond: Int, window: Int, deadline: Int? = nil, requiresLength: Bool = false) {
    self.minimumBytesPerSecond = minimumBytesPerSecond
    self.window = window
    self.deadline = deadline
    self.requiresLength = requiresLength
  }

  /// At least 1 KiB a second over every 10 seconds: a phone on a poor network uploads ten
  /// times faster, a trickle of a byte every few seconds is cut off within 20 seconds. (Apache's
  /// mod_reqtimeout asks 500 bytes a second.)
  public static let standard = BodyPace(minimumBytesPerSecond: 1024, window: 10)
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
