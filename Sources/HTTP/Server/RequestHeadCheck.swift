import Glibc

/// Where libmicrohttpd parsed a request's head: the `method` and `version` arguments of the
/// access handler's first call, which point into its read buffer. Valid during that call only.
struct RequestHeadBuffer {
  let method: UnsafePointer<CChar>?
  let version: UnsafePointer<CChar>?
}

/// What libmicrohttpd 0.9.75 takes silently in a request's head, found in its read buffer.
enum HeadMalformation: Equatable {
  /// A line ends with LF alone.
  case bareLF
  /// The value of the header field at this position (among the request's fields) holds a NUL:
  /// libmicrohttpd cut it there.
  case nulInValue(field: Int)
  /// A field line is continued on a line that starts with SP or HTAB (obs-fold): libmicrohttpd
  /// joins the continuation to the field's name.
  case obsFold
  /// A field line after the first starts with its colon: libmicrohttpd took it for the end of
  /// the head.
  case noName
}

/// The request heads HTTP/1.1 says to refuse (RFC 9112, RFC 9110) that libmicrohttpd 0.9.75
/// accepts: each gets 400 and its connection closed, since a proxy in front may have read the
/// head otherwise (request smuggling) and libmicrohttpd's reading of it is lossy.
enum RequestHeadCheck {
  /// Why the head of `head` is malformed, or nil.
  ///
  /// The bytes of the head are walked (with libmicrohttpd 0.9.75 only: see
  /// ``Connection/headMalformation(_:)``) before the parsed fields are checked, since a folded
  /// line shows in the parsed fields as a mangled name.
  static func problem(_ head: HTTPRequestHead, connection: Connection, buffer: RequestHeadBuffer) -> String? {
    switch connection.headMalformation(buffer) {
    case .bareLF:
      return "the request's head ends a line with a bare LF: lines end with CRLF (RFC 9112 section 2.2)"
    case .nulInValue(let field):
      let fields = Array(head.headers)
      let name = fields.indices.contains(field) ? fields[field].name : ""
      return "the value of the field \(shown(name)) holds a NUL byte (RFC 9110 section 5.5)"
    case .obsFold:
      return foldMessage
    case .noName:
      return noNameMessage
    case nil:
      return problem(in: head.headers)
    }
  }

  /// Why the parsed fields are malformed, or nil: whatever libmicrohttpd's version.
  ///
  /// Every request passes here, so a well-formed head costs one pass over its bytes and no
  /// allocation.
  private static func problem(in headers: HTTPHeaders) -> String? {
    var hosts = 0
    var host: String?
    for (name, value) in headers {
      if let problem = nameProblem(name) ?? valueProblem(value, name: name) { return problem }
      if ASCII.equalsIgnoringCase(name, "Host") {
        hosts += 1
        if host == nil { host = value }
      }
    }
    if hosts > 1 {
      return "a request has one Host field, not \(hosts) (RFC 9112 section 3.2)"
    }
    if var host {
      let valid = host.withUTF8 { isHost(trimmedWhitespace($0[...])) }
      if !valid {
        return "Host \(shown(host)) is not a host name or address with an optional port (RFC 9112 section 3.2)"
      }
    }
    return nil
  }

  /// `bytes` without leading and trailing spaces and tabs.
  private static func trimmedWhitespace(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>>
  {
    var bytes = bytes
    while let first = bytes.first, ASCII.isWhitespace(first) { bytes = bytes.dropFirst() }
    while let last = bytes.last, ASCII.isWhitespace(last) { bytes = bytes.dropLast() }
    return bytes
  }

  private static let foldMessage =
    "the request's head has a field line that starts with whitespace (obs-fold): "
    + "send each field on one line (RFC 9112 section 5.2)"

  private static let noNameMessage = "a field line has no name before its colon (RFC 9110 section 5.1)"

  private static func nameProblem(_ name: String) -> String? {
    var name = name
    if name.withUTF8({ !$0.isEmpty && $0.allSatisfy(isTokenByte) }) { return nil }
    let bytes = Array(name.utf8)
    guard let first = bytes.first else { return noNameMessage }
    // libmicrohttpd takes the first field line for one even when it starts with whitespace,
    // which makes the whitespace part of the name.
    if ASCII.isWhitespace(first) { return foldMessage }
    var trimmed = bytes[...]
    while let last = trimmed.last, ASCII.isWhitespace(last) { trimmed = trimmed.dropLast() }
    if trimmed.count < bytes.count && trimmed.allSatisfy(isTokenByte) {
      return "the field name \(shown(String(decoding: trimmed, as: UTF8.self))) is followed by whitespace "
        + "before its colon (RFC 9112 section 5.1)"
    }
    return "the field name \(shown(name)) is not a token (RFC 9110 section 5.1)"
  }

  private static func valueProblem(_ value: String, name: String) -> String? {
    var value = value
    let control = value.withUTF8 { bytes in bytes.first { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F } }
    guard let control else { return nil }
    if control == 0x0D {
      return "the value of the field \(shown(name)) holds a bare CR: lines end with CRLF (RFC 9112 section 2.2)"
    }
    return "the value of the field \(shown(name)) holds a control character (RFC 9110 section 5.5)"
  }

  /// tchar (RFC 9110 section 5.6.2).
  private static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "a")...UInt8(ascii: "z"):
      return true
    case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
      UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
      UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
      return true
    default:
      return false
    }
  }

  /// `uri-host [ ":" port ]` (RFC 9112 section 3.2, RFC 3986 section 3.2.2); empty too, which
  /// RFC 9112 allows when the target has no authority.
  private static func isHost(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
    var rest = bytes
    if rest.first == UInt8(ascii: "[") {
      guard let close = rest.firstIndex(of: UInt8(ascii: "]")) else { return false }
      guard isIPLiteral(rest[rest.index(after: rest.startIndex)..<close]) else { return false }
      rest = rest[rest.index(after: close)...]
    } else {
      let colon = rest.firstIndex(of: UInt8(ascii: ":")) ?? rest.endIndex
      guard isRegName(rest[..<colon]) else { return false }
      rest = rest[colon...]
    }
    guard let first = rest.first else { return true }
    return first == UInt8(ascii: ":") && rest.dropFirst().allSatisfy { (0x30...0x39).contains($0) }
  }

  /// IPv6address or IPvFuture, between the brackets.
  private static func isIPLiteral(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
    if let first = bytes.first, first | 0x20 == UInt8(ascii: "v") {
      // "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
      let rest = bytes.dropFirst()
      guard let dot = rest.firstIndex(of: UInt8(ascii: ".")), dot > rest.startIndex,
        rest[..<dot].allSatisfy({ ASCII.hexValue($0) != nil })
      else { return false }
      let tail = rest[rest.index(after: dot)...]
      return !tail.isEmpty && tail.allSatisfy { isUnreserved($0) || isSubDelimiter($0) || $0 == UInt8(ascii: ":") }
    }
    guard bytes.allSatisfy({ ASCII.hexValue($0) != nil || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
    else { return false }
    var address = in6_addr()
    return String(decoding: bytes, as: UTF8.self).withCString { inet_pton(AF_INET6, $0, &address) } == 1
  }

  /// `*( unreserved / pct-encoded / sub-delims )`, which IPv4 addresses and names are.
  private static func isRegName(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
    var index = bytes.startIndex
    while index < bytes.endIndex {
      let byte = bytes[index]
      if byte == UInt8(ascii: "%") {
        guard index + 2 < bytes.endIndex, ASCII.hexValue(bytes[index + 1]) != nil,
          ASCII.hexValue(bytes[index + 2]) != nil
        else { return false }
        index += 3
        continue
      }
      guard isUnreserved(byte) || isSubDelimiter(byte) else { return false }
      index += 1
    }
    return true
  }

  private static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: "~"):
      return true
    default:
      return false
    }
  }

  private static func isSubDelimiter(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
      UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
      UInt8(ascii: "="):
      return true
    default:
      return false
    }
  }

  /// `text` quoted for a message, each byte outside printable ASCII as %XX.
  private static func shown(_ text: String) -> String {
    var bytes: [UInt8] = [UInt8(ascii: "\"")]
    for byte in text.utf8 {
      if byte < 0x20 || byte >= 0x7F {
        bytes += [UInt8(ascii: "%"), ASCII.hexDigits[Int(byte >> 4)], ASCII.hexDigits[Int(byte & 0x0F)]]
      } else {
        bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
    return String(decoding: bytes, as: UTF8.self)
  }
}
