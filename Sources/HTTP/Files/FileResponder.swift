/// Serving a file: ETag / If-None-Match (304), If-Modified-Since, Range (one range → 206 with
/// Content-Range; unsatisfiable → 416; several ranges → the whole file 200, as many servers do),
/// If-Range, Accept-Ranges: bytes, Content-Length, Last-Modified. HEAD works like GET without
/// the body (libmicrohttpd sends no body for HEAD).
///
/// The preconditions are evaluated in RFC 9110's order (section 13.2.2): If-None-Match, else
/// If-Modified-Since, then Range under If-Range. Range applies to GET alone, as the RFC says; a
/// HEAD gets the headers of the whole file's GET. Other methods get the file with no condition
/// looked at: the service decides which methods reach here.
public enum FileResponder {
  /// The response for `file`.
  ///
  /// `etag` is an entity tag with or without its double quotes (`"abc"`, `W/"abc"`, or `abc`,
  /// which is quoted). `headers` (Cache-Control, say) are sent with every status.
  public static func respond(
    to head: HTTPRequestHead, file: OpenFile, contentType: String, etag: String,
    headers: HTTPHeaders = HTTPHeaders()
  ) -> HTTPResponse {
    let tag = EntityTag(etag)
    let lastModified = file.modifiedSeconds
    var common = headers
    common.set("ETag", tag.text)
    common.set("Last-Modified", HTTPDate.format(lastModified))
    common.set("Accept-Ranges", "bytes")
    let size = file.size

    let isGet = head.method == "GET"
    if isGet || head.method == "HEAD" {
      let conditions = head.headers.values("If-None-Match")
      let notModified: Bool
      if !conditions.isEmpty {
        notModified = EntityTag.list(conditions.joined(separator: ","), containsWeakly: tag)
      } else if let since = head.headers["If-Modified-Since"].flatMap(HTTPDate.parse) {
        notModified = lastModified <= since
      } else {
        notModified = false
      }
      if notModified {
        // The length of the representation, which a 304 may carry (RFC 9110 section 8.6).
        common.set("Content-Length", String(size))
        return HTTPResponse(status: 304, headers: common)
      }
    }

    var whole = common
    whole.set("Content-Type", contentType)
    if isGet, let rangeHeader = head.headers["Range"],
      ifRangeAllowsRange(head.headers["If-Range"], tag: tag, lastModified: lastModified)
    {
      switch ByteRanges.parse(rangeHeader, size: size) {
      case .single(let range):
        var partial = whole
        partial.set("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)")
        partial.set("Content-Length", String(range.count))
        return HTTPResponse(
          status: 206, headers: partial, file: file, offset: range.lowerBound, length: range.count)
      case .unsatisfiable:
        var refused = common
        refused.set("Content-Range", "bytes */\(size)")
        refused.set("Content-Length", "0")
        return HTTPResponse(status: 416, headers: refused)
      case .several, .invalid:
        break
      }
    }
    whole.set("Content-Length", String(size))
    return HTTPResponse(status: 200, headers: whole, file: file, offset: 0, length: size)
  }

  /// Whether a Range may be served under `ifRange`: there is none, it is a strong entity tag
  /// equal to the file's, or it is exactly the file's Last-Modified date.
  private static func ifRangeAllowsRange(_ ifRange: String?, tag: EntityTag, lastModified: Int64) -> Bool {
    guard let ifRange else { return true }
    let value = ASCII.trimmed(Substring(ifRange))
    if value.hasPrefix("\"") || value.hasPrefix("W/") {
      guard let given = EntityTag.parseOne(value) else { return false }
      return !given.weak && !tag.weak && given.opaque == tag.opaque
    }
    return HTTPDate.parse(String(value)) == lastModified
  }
}

/// An entity tag (RFC 9110 section 8.8.3): an opaque string, weak or strong.
struct EntityTag: Equatable {
  var opaque: String
  var weak: Bool

  /// The tag as written in a header: `"opaque"` or `W/"opaque"`.
  var text: String { weak ? "W/\"\(opaque)\"" : "\"\(opaque)\"" }

  /// `given` as a tag: quoted as it is, or quoted here.
  init(_ given: String) {
    if let parsed = EntityTag.parseOne(Substring(given)) {
      self = parsed
    } else {
      opaque = given.contains("\"") ? String(given.filter { $0 != "\"" }) : given
      weak = false
    }
  }

  private init(opaque: String, weak: Bool) {
    self.opaque = opaque
    self.weak = weak
  }

  /// The tag that `text` is exactly, or nil.
  static func parseOne(_ text: Substring) -> EntityTag? {
    var rest = text
    var weak = false
    if rest.hasPrefix("W/") {
      weak = true
      rest = rest.dropFirst(2)
    }
    guard rest.count >= 2, rest.first == "\"", rest.last == "\"" else { return nil }
    let opaque = rest.dropFirst().dropLast()
    guard !opaque.contains("\"") else { return nil }
    return EntityTag(opaque: String(opaque), weak: weak)
  }

  /// Whether the If-None-Match list `header` holds `*` or a tag equal to `tag` by the weak
  /// comparison (W/ ignored). An unquoted tag (a client's mistake) is compared as written.
  static func list(_ header: String, containsWeakly tag: EntityTag) -> Bool {
    var rest = Substring(header)
    while true {
      rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
      guard !rest.isEmpty else { return false }
      if rest.hasPrefix("*") { return true }
      if rest.hasPrefix("W/") { rest = rest.dropFirst(2) }
      if rest.first == "\"" {
        let body = rest.dropFirst()
        guard let close = body.firstIndex(of: "\"") else { return false }
        if body[..<close] == tag.opaque { return true }
        rest = body[body.index(after: close)...]
      } else {
        let end = rest.firstIndex(of: ",") ?? rest.endIndex
        if ASCII.trimmed(rest[..<end]) == tag.opaque { return true }
        rest = rest[end...]
      }
    }
  }
}

/// A Range header's byte ranges (RFC 9110 section 14.1.2) against a file of `size` bytes.
enum ByteRanges: Equatable {
  /// One satisfiable range, clamped to the file.
  case single(Range<Int>)
  /// Several ranges, at least one satisfiable.
  case several
  /// No range overlaps the file: 416.
  case unsatisfiable
  /// Not a byte range set: the header is ignored.
  case invalid

  static func parse(_ header: String, size: Int) -> ByteRanges {
    let text = ASCII.trimmed(Substring(header))
    guard let equals = text.firstIndex(of: "="), ASCII.trimmed(text[..<equals]).lowercased() == "bytes" else {
      return .invalid
    }
    var satisfiable: [Range<Int>] = []
    var specs = 0
    for piece in text[text.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false) {
      let spec = ASCII.trimmed(piece)
      if spec.isEmpty { continue }
      guard let dash = spec.firstIndex(of: "-") else { return .invalid }
      let first = spec[..<dash]
      let last = spec[spec.index(after: dash)...]
      specs += 1
      if first.isEmpty {
        // A suffix: the last N bytes.
        guard let length = digits(last) else { return .invalid }
        if length > 0 && size > 0 { satisfiable.append(max(0, size - min(length, size))..<size) }
      } else {
        guard let start = digits(first) else { return .invalid }
        var end = Int.max
        if !last.isEmpty {
          guard let given = digits(last), given >= start else { return .invalid }
          end = given
        }
        if start < size { satisfiable.append(start..<(min(end, size - 1) + 1)) }
      }
    }
    guard specs > 0 else { return .invalid }
    if satisfiable.isEmpty { return .unsatisfiable }
    return specs == 1 ? .single(satisfiable[0]) : .several
  }

  /// A non-negative decimal, saturating at Int.max; nil unless all digits.
  private static func digits(_ text: Substring) -> Int? {
    guard !text.isEmpty else { return nil }
    var value = 0
    for byte in text.utf8 {
      guard byte >= 0x30, byte <= 0x39 else { return nil }
      let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflow2) = times.addingReportingOverflow(Int(byte - 0x30))
      value = overflow1 || overflow2 ? Int.max : sum
    }
    return value
  }
}
