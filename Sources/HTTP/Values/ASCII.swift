/// Byte-level helpers for the ASCII parts of HTTP (names, tokens, percent-encoding), which are
/// compared and decoded without Unicode rules or allocation.
enum ASCII {
  /// The byte lowercased when it is an ASCII capital.
  @inline(__always)
  static func lowercased(_ byte: UInt8) -> UInt8 {
    byte &- 0x41 < 26 ? byte | 0x20 : byte
  }

  /// Whether `a` and `b` are equal ignoring ASCII case (header names, tokens).
  static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
    var a = a
    var b = b
    return a.withUTF8 { x in
      b.withUTF8 { y in
        guard x.count == y.count else { return false }
        for index in 0..<x.count where lowercased(x[index]) != lowercased(y[index]) { return false }
        return true
      }
    }
  }

  /// The value of a hexadecimal digit, or nil.
  @inline(__always)
  static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: return byte - 0x30
    case 0x41...0x46: return byte - 0x41 + 10
    case 0x61...0x66: return byte - 0x61 + 10
    default: return nil
    }
  }

  static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

  /// Whether the byte is a space or a horizontal tab (HTTP's optional whitespace).
  @inline(__always)
  static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

  /// `text` without leading and trailing spaces and tabs.
  static func trimmed(_ text: Substring) -> Substring {
    var start = text.startIndex
    var end = text.endIndex
    while start < end, text[start] == " " || text[start] == "\t" { start = text.index(after: start) }
    while end > start {
      let before = text.index(before: end)
      guard text[before] == " " || text[before] == "\t" else { break }
      end = before
    }
    return text[start..<end]
  }
}
