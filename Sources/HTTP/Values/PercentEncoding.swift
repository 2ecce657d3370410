/// Percent-decoding for paths and form data (RFC 3986 section 2.1, WHATWG's
/// application/x-www-form-urlencoded).
enum PercentEncoding {
  /// The bytes of `text` with each %XX decoded, or nil when a '%' is not followed by two
  /// hexadecimal digits. Paths use this: a bad escape makes the path unusable.
  static func decodeStrictly(_ text: Substring) -> [UInt8]? {
    let bytes = text.utf8
    guard bytes.contains(UInt8(ascii: "%")) else { return Array(bytes) }
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var index = bytes.startIndex
    while index < bytes.endIndex {
      let byte = bytes[index]
      guard byte == UInt8(ascii: "%") else {
        result.append(byte)
        index = bytes.index(after: index)
        continue
      }
      let first = bytes.index(after: index)
      guard first < bytes.endIndex, let high = ASCII.hexValue(bytes[first]) else { return nil }
      let second = bytes.index(after: first)
      guard second < bytes.endIndex, let low = ASCII.hexValue(bytes[second]) else { return nil }
      result.append(high << 4 | low)
      index = bytes.index(after: second)
    }
    return result
  }

  /// `text` as form data decodes it: '+' is a space and %XX a byte; a '%' without two
  /// hexadecimal digits stays as it is. When the bytes are not UTF-8, the text as written.
  static func decodeForm(_ text: Substring) -> String {
    let bytes = text.utf8
    guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
      return String(text)
    }
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var index = bytes.startIndex
    while index < bytes.endIndex {
      let byte = bytes[index]
      index = bytes.index(after: index)
      if byte == UInt8(ascii: "+") {
        result.append(UInt8(ascii: " "))
      } else if byte == UInt8(ascii: "%"), index < bytes.endIndex, let high = ASCII.hexValue(bytes[index]),
        bytes.index(after: index) < bytes.endIndex, let low = ASCII.hexValue(bytes[bytes.index(after: index)])
      {
        result.append(high << 4 | low)
        index = bytes.index(index, offsetBy: 2)
      } else {
        result.append(byte)
      }
    }
    return String(validating: result, as: UTF8.self) ?? String(text)
  }
}
