/// A request's line and header fields: what a service decides on before any body is read.
public struct HTTPRequestHead: Sendable {
  /// As sent, e.g. "GET".
  public var method: String
  /// As sent, e.g. "/a%20b?x=1".
  public var target: String
  /// The target up to '?', still percent-encoded.
  public var path: String
  /// Parsed from after '?'.
  public var query: QueryParameters
  /// "HTTP/1.1".
  public var version: String
  public var headers: HTTPHeaders
  /// "127.0.0.1", "::1".
  public var remoteAddress: String

  /// A head as a client would send it; `path` and `query` come from `target`.
  public init(
    method: String, target: String, version: String = "HTTP/1.1", headers: HTTPHeaders = HTTPHeaders(),
    remoteAddress: String = "127.0.0.1"
  ) {
    self.method = method
    self.target = target
    if let question = target.firstIndex(of: "?") {
      path = String(target[..<question])
      query = QueryParameters(parsing: String(target[target.index(after: question)...]))
    } else {
      path = target
      query = QueryParameters(parsing: "")
    }
    self.version = version
    self.headers = headers
    self.remoteAddress = remoteAddress
  }

  /// The path's segments percent-decoded one by one ("/a%2Fb/c" → ["a/b", "c"]; "/" → []),
  /// or nil when the path does not start with "/", holds a bad %XX, decodes to invalid UTF-8
  /// or to a NUL or other control character.
  ///
  /// Segments are returned as they decode: ".." and "." are there for the service to refuse, and
  /// an empty segment stands for "//" or a trailing "/".
  public var pathSegments: [String]? {
    guard path.hasPrefix("/") else { return nil }
    if path.utf8.count == 1 { return [] }
    var segments: [String] = []
    for piece in path.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
      guard let bytes = PercentEncoding.decodeStrictly(Substring(piece)),
        let text = String(validating: bytes, as: UTF8.self),
        !text.unicodeScalars.contains(where: Self.isControl)
      else { return nil }
      segments.append(text)
    }
    return segments
  }

  /// Cookies of the Cookie header(s); the first of a name wins.
  ///
  /// Values are as sent, less the double quotes around a quoted one; a piece without '=' is
  /// skipped.
  public var cookies: [String: String] {
    var cookies: [String: String] = [:]
    for header in headers.values("Cookie") {
      for piece in header.split(separator: ";") {
        guard let equals = piece.firstIndex(of: "=") else { continue }
        let name = String(ASCII.trimmed(piece[..<equals]))
        guard !name.isEmpty, cookies[name] == nil else { continue }
        var value = ASCII.trimmed(piece[piece.index(after: equals)...])
        if value.count >= 2, value.first == "\"", value.last == "\"" {
          value = value.dropFirst().dropLast()
        }
        cookies[name] = String(value)
      }
    }
    return cookies
  }

  /// C0 and C1 control characters and DEL.
  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }
}

/// A request whole: its head and its body, buffered or taken apart as a form.
public struct HTTPRequest: Sendable {
  public var head: HTTPRequestHead
  /// The buffered body (empty when multipart was parsed).
  public var body: [UInt8]
  /// multipart/form-data parts in order ([] otherwise).
  public var parts: [FormPart]
  /// What the service's plan for this request found out (``RequestPlan/read(_:onWorker:planned:)``).
  public var planned: (any Sendable)?

  public init(head: HTTPRequestHead, body: [UInt8] = [], parts: [FormPart] = [], planned: (any Sendable)? = nil) {
    self.head = head
    self.body = body
    self.parts = parts
    self.planned = planned
  }
}

/// One part of a multipart/form-data body.
public struct FormPart: Sendable {
  /// The form field's name.
  public var name: String
  /// As the client sent it: untrusted, for messages only.
  public var filename: String?
  public var contentType: String?
  /// A part without a filename: its bytes.
  public var value: [UInt8]
  /// A part with a filename: streamed to a temporary file.
  public var file: UploadedFile?

  public init(
    name: String, filename: String? = nil, contentType: String? = nil, value: [UInt8] = [],
    file: UploadedFile? = nil
  ) {
    self.name = name
    self.filename = filename
    self.contentType = contentType
    self.value = value
    self.file = file
  }

  /// The value as UTF-8 text, or nil when it is not.
  public var text: String? { String(validating: value, as: UTF8.self) }
}
