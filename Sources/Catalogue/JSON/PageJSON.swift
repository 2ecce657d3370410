extension JSONShape.Page {
  /// The page as ``JSONShape/encodeCompact(_:)`` writes it — keys sorted, no spaces, slashes
  /// as they are, control characters escaped — byte for byte, written directly: a list answer
  /// is the server's commonest JSON, and `JSONEncoder` took a fifth of a search's time there
  /// (boxing each value, sorting each object's keys). Tests compare the two on hostile text.
  public var compactJSON: String {
    var out = JSONText()
    out.raw("{\"offset\":")
    out.int(offset)
    out.raw(",\"reviews\":[")
    for (index, review) in reviews.enumerated() {
      if index > 0 { out.raw(",") }
      review.write(to: &out)
    }
    out.raw("],\"total\":")
    out.int(total)
    if let totalIsEstimate {
      out.raw(",\"totalIsEstimate\":")
      out.raw(totalIsEstimate ? "true" : "false")
    }
    out.raw("}")
    return out.text
  }
}

extension JSONShape.Summary {
  fileprivate func write(to out: inout JSONText) {
    out.raw("{\"category\":")
    out.string(category)
    out.raw(",\"containsSpoilers\":")
    out.raw(containsSpoilers ? "true" : "false")
    out.raw(",\"cover\":")
    if let cover {
      out.raw("{\"alt\":")
      out.optionalString(cover.alt)
      out.raw(",\"original\":")
      out.string(cover.original)
      out.raw(",\"sha256\":")
      out.string(cover.sha256)
      out.raw(",\"thumbnail\":")
      out.string(cover.thumbnail)
      if let urls = cover.urls {
        out.raw(",\"urls\":{\"display\":")
        out.string(urls.display)
        if let display2x = urls.display2x {
          out.raw(",\"display2x\":")
          out.string(display2x)
        }
        out.raw(",\"original\":")
        out.string(urls.original)
        out.raw(",\"thumbnail\":")
        out.string(urls.thumbnail)
        if let thumbnail2x = urls.thumbnail2x {
          out.raw(",\"thumbnail2x\":")
          out.string(thumbnail2x)
        }
        out.raw("}")
      }
      out.raw("}")
    } else {
      out.raw("null")
    }
    out.raw(",\"created\":")
    out.string(created)
    out.raw(",\"createdBy\":")
    out.optionalString(createdBy)
    out.raw(",\"draft\":")
    out.raw(draft ? "true" : "false")
    out.raw(",\"favorite\":")
    out.raw(favorite ? "true" : "false")
    out.raw(",\"id\":")
    out.string(id)
    out.raw(",\"imageCount\":")
    out.int(imageCount)
    out.raw(",\"published\":")
    out.optionalString(published)
    out.raw(",\"rating\":")
    out.int(rating)
    out.raw(",\"title\":")
    out.string(title)
    out.raw(",\"updated\":")
    out.string(updated)
    out.raw(",\"updatedBy\":")
    out.optionalString(updatedBy)
    out.raw("}")
  }
}

/// JSON text written piece by piece, strings escaped as `JSONEncoder` (with
/// `.withoutEscapingSlashes`) and ``JSONShape/escapingControls(_:)`` escape them together.
private struct JSONText {
  var bytes: [UInt8] = []

  init() { bytes.reserveCapacity(16 << 10) }

  var text: String { String(decoding: bytes, as: UTF8.self) }

  mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }

  mutating func int(_ value: Int) { bytes.append(contentsOf: String(value).utf8) }

  mutating func optionalString(_ value: String?) {
    if let value { string(value) } else { raw("null") }
  }

  mutating func string(_ value: String) {
    bytes.append(UInt8(ascii: "\""))
    var utf8 = value.utf8.makeIterator()
    while let byte = utf8.next() {
      switch byte {
      case UInt8(ascii: "\""): raw("\\\"")
      case UInt8(ascii: "\\"): raw("\\\\")
      case 0x08: raw("\\b")
      case 0x0C: raw("\\f")
      case 0x0A: raw("\\n")
      case 0x0D: raw("\\r")
      case 0x09: raw("\\t")
      case 0x00..<0x20: escaped(UInt32(byte))
      case 0x7F: escaped(0x7F)
      case 0xC2:
        // U+0080–U+009F (C1 controls) are C2 80 to C2 9F.
        guard let next = utf8.next() else {
          bytes.append(byte)
          continue
        }
        if (0x80...0x9F).contains(next) {
          escaped(UInt32(next))
        } else {
          bytes.append(byte)
          bytes.append(next)
        }
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private mutating func escaped(_ value: UInt32) {
    let hex = String(value, radix: 16)
    raw("\\u00")
    if hex.count < 2 { bytes.append(UInt8(ascii: "0")) }
    bytes.append(contentsOf: hex.utf8)
  }
}
