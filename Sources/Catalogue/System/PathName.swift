import Glibc

/// File names as the kernel has them — bytes — carried in Swift strings.
///
/// Linux names are any bytes but `/` and NUL; many are not UTF-8 (Latin-1 names from old disks
/// and archives). Decoding such a name as UTF-8 would replace its bytes with U+FFFD and lose
/// the file: the name read from a folder would no longer open it. Here each byte that is not
/// part of valid UTF-8 is carried as one scalar of a private-use block (U+F780 + byte − 0x80),
/// and turned back into that byte when the name goes to the kernel, so every name round-trips
/// exactly. A valid name that itself holds one of those scalars is carried byte by byte the
/// same way, so no two names share a string. ``Shown`` writes the carried bytes as `\xHH`.
public enum PathName {
  static let escapedBytes: ClosedRange<UInt32> = 0xF780...0xF7FF

  /// The string carrying the name made of `bytes`.
  public static func decoding(_ bytes: some Collection<UInt8>) -> String {
    let all = Array(bytes)
    if let plain = String(validating: all, as: UTF8.self), !carriesBytes(plain) { return plain }
    var scalars = String.UnicodeScalarView()
    var iterator = all.makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    var offset = 0
    func escape(_ count: Int) {
      for byte in all[offset..<offset + count] { scalars.append(Unicode.Scalar(0xF700 + UInt32(byte))!) }
      offset += count
    }
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded):
        let scalar = Unicode.UTF8.decode(encoded)
        if escapedBytes.contains(scalar.value) {
          escape(encoded.count)
        } else {
          scalars.append(scalar)
          offset += encoded.count
        }
      case .error(let length):
        escape(length)
      case .emptyInput:
        return String(scalars)
      }
    }
  }

  /// Whether `name` carries any byte that is not UTF-8 of its own (and so needs
  /// ``withBytes(of:_:)`` to reach the kernel as it is).
  static func carriesBytes(_ name: String) -> Bool {
    // U+F780...U+F7FF are EF 9E 80 ... EF 9F BF in UTF-8.
    var utf8 = name.utf8.makeIterator()
    while let byte = utf8.next() {
      guard byte == 0xEF else { continue }
      if let second = utf8.next(), second == 0x9E || second == 0x9F { return true }
    }
    return false
  }

  /// The bytes of `name` the kernel knows it by, NUL-terminated, for the length of `body`.
  static func withBytes<Result>(of name: String, _ body: (UnsafePointer<CChar>) -> Result) -> Result {
    guard carriesBytes(name) else { return name.withCString(body) }
    var bytes: [CChar] = []
    bytes.reserveCapacity(name.utf8.count + 1)
    for scalar in name.unicodeScalars {
      if escapedBytes.contains(scalar.value) {
        bytes.append(CChar(bitPattern: UInt8(scalar.value - 0xF700)))
      } else {
        bytes.append(contentsOf: String(scalar).utf8.map { CChar(bitPattern: $0) })
      }
    }
    bytes.append(0)
    return bytes.withUnsafeBufferPointer { body($0.baseAddress!) }
  }
}

/// Text from a file name or a user's input, fit to be put in a one-line message: control
/// characters (a newline, an escape), the marks that turn text right to left, and bytes that
/// are not UTF-8 are written out (`\n`, `\x1B`, `\u{202E}`, `\xE9`), the way `git` and `ls`
/// neutralise names, so that nothing in a name acts on the terminal or reorders the line.
public enum Shown {
  public static func path(_ text: String) -> String { writtenOut(text, where: isHidden) }

  /// `text` with only the bytes that are not UTF-8 written out (`\xE9`): for JSON, which
  /// escapes control characters its own way but can carry no such byte.
  public static func bytes(_ text: String) -> String {
    writtenOut(text) { PathName.escapedBytes.contains($0.value) }
  }

  /// `text` as ``path(_:)`` shows it, keeping its line breaks: for text of several lines.
  public static func lines(_ text: String) -> String { writtenOut(text) { $0 != "\n" && isHidden($0) } }

  /// `text` for a terminal's standard output: a review's own text, whose line breaks, tabs and
  /// direction marks are its writer's, with only what would act on the terminal written out
  /// (control characters, as an escape sequence from before they were refused) and the bytes
  /// that are not UTF-8.
  public static func terminal(_ text: String) -> String {
    writtenOut(text) {
      $0 != "\n" && $0 != "\t"
        && ($0.properties.generalCategory == .control || PathName.escapedBytes.contains($0.value))
    }
  }

  /// `text` with each scalar `hidden` says so of written out: `\n`, `\t`, `\r`, a byte that
  /// is not UTF-8 or a scalar below U+0100 as `\xHH`, any other as `\u{HHHH}`.
  private static func writtenOut(_ text: String, where hidden: (Unicode.Scalar) -> Bool) -> String {
    guard text.unicodeScalars.contains(where: hidden) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
      guard hidden(scalar) else {
        result.unicodeScalars.append(scalar)
        continue
      }
      switch scalar {
      case "\n": result += "\\n"
      case "\t": result += "\\t"
      case "\r": result += "\\r"
      default:
        if PathName.escapedBytes.contains(scalar.value) {
          result += "\\x" + hex(scalar.value - 0xF700, digits: 2)
        } else if scalar.value < 0x100 {
          result += "\\x" + hex(scalar.value, digits: 2)
        } else {
          result += "\\u{" + hex(scalar.value, digits: 4) + "}"
        }
      }
    }
    return result
  }

  static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: return true  // direction marks
    case PathName.escapedBytes: return true
    default: return scalar.properties.generalCategory == .control
    }
  }

  private static func hex(_ value: UInt32, digits: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
  }
}
