/// What a service answers: a status, header fields, and a body of bytes or of a file.
///
/// libmicrohttpd adds `Date`, `Content-Length` (from the body) and `Connection`; a
/// `Content-Length` given here is not sent as such, except that a 304's tells the length of the
/// representation (RFC 9110 section 8.6).
public struct HTTPResponse: Sendable {
  public enum Body: Sendable {
    case bytes([UInt8])
    /// Sent with sendfile by libmicrohttpd.
    case file(OpenFile, offset: Int, length: Int)
  }

  public var status: Int
  public var headers: HTTPHeaders
  public var body: Body
  /// Said in the request log's line for this request, never sent: why the server failed, in
  /// words that are not for whoever asked (an SQL statement, a path).
  public var logNote: String?

  public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = .bytes(body)
  }

  public init(status: Int, headers: HTTPHeaders, file: OpenFile, offset: Int, length: Int) {
    self.status = status
    self.headers = headers
    self.body = .file(file, offset: offset, length: length)
  }

  /// How many bytes the body holds.
  public var bodyLength: Int {
    switch body {
    case .bytes(let bytes): return bytes.count
    case .file(_, _, let length): return length
    }
  }
}
