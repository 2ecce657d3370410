/// One record of a CSV file: its fields, the line (from 1) it starts on, and each field's column
/// (from 1, in characters of its line).
///
/// A column counts Unicode scalars from the start of the line the field starts on: `line`,
/// unless an earlier field of the record is quoted and holds line breaks. A quoted field's
/// column is its opening quote's.
struct CSVRecord: Sendable, Equatable {
  let line: Int
  let fields: [String]
  let columns: [Int]
}

/// What is wrong with a record (or the file), where: one line for a user. `description` like
/// "reviews.csv, line 12, column 40: a quoted field is not closed before the end of the file".
public struct CSVProblem: Error, Sendable, Equatable, CustomStringConvertible {
  /// The name of the file, as the reader was given it.
  public let file: String
  /// The line (from 1) of the problem.
  public let line: Int
  /// The column (from 1, in Unicode scalars of its line) of the problem.
  public let column: Int
  /// What is wrong, for a user.
  public let message: String

  public var description: String { "\(file), line \(line), column \(column): \(message)" }
}

/// A CSV file as RFC 4180 describes it, read from its bytes: a header line, then records of as
/// many fields, each field either unquoted (no comma, quote or line break) or quoted (any text,
/// its quotes doubled).
///
/// Line ends may be CRLF, LF or CR, mixed; inside a quoted field each becomes "\n". Blank lines
/// (nothing, or only spaces and tabs, on them) are skipped. A malformed record is left out and
/// reported in `problems`; reading goes on at the next record. Spaces around fields are kept
/// (but the header's names are trimmed), and a quote after spaces is a quote inside an unquoted
/// field: services write none.
struct CSVTable: Sendable {
  /// The name used in problems.
  let file: String
  /// The header's names, trimmed, the byte order mark removed.
  let header: [String]
  /// The good records after the header (blank lines skipped).
  let records: [CSVRecord]
  /// Each malformed record, which is left out; reading goes on at the next record.
  let problems: [CSVProblem]

  /// The index of each lowercased name of the header (the first, for a name given twice).
  private let indexByName: [String: Int]

  /// Reads `bytes` (UTF-8, with or without a BOM; CRLF, LF or CR line ends).
  ///
  /// Throws only when the file has no header line (it is empty or blank, or its header line is
  /// itself malformed: that problem is thrown) or is not UTF-8 text (at the line and column of
  /// the first byte of the first bad sequence).
  init(bytes: [UInt8], file: String) throws(CSVProblem) {
    self.file = file
    let outcome = bytes.withUnsafeBufferPointer { buffer -> Result<CSVParser.Table, CSVProblem> in
      let start = buffer.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
      if let bad = CSVParser.firstInvalidUTF8(buffer, from: start) {
        let (line, column) = CSVParser.position(of: bad, in: buffer, from: start)
        let message = "the file is not UTF-8 text (byte 0x\(CSVParser.hex(buffer[bad]))); save it as UTF-8"
        return .failure(CSVProblem(file: file, line: line, column: column, message: message))
      }
      var parser = CSVParser(buffer, from: start, file: file)
      return parser.table()
    }
    let table: CSVParser.Table
    switch outcome {
    case .success(let read): table = read
    case .failure(let problem): throw problem
    }
    header = table.header
    records = table.records
    problems = table.problems
    var indexByName: [String: Int] = [:]
    for (index, name) in header.enumerated() where indexByName[name.lowercased()] == nil {
      indexByName[name.lowercased()] = index
    }
    self.indexByName = indexByName
  }

  /// The index of the column named `name` (case-insensitive, surrounding spaces ignored), or nil.
  func column(_ name: String) -> Int? {
    indexByName[name.trimmingSpaces().lowercased()]
  }

  /// The value of column `name` in `record`, or nil when there is no such column or the record
  /// is short.
  func value(_ name: String, in record: CSVRecord) -> String? {
    guard let index = column(name), index < record.fields.count else { return nil }
    return record.fields[index]
  }
}

/// CSV lines as RFC 4180 writes them.
enum CSVWriter {
  /// One CSV line ending in "\r\n": a field quoted when it holds a comma, a quote, CR, LF or
  /// leading/trailing space; quotes doubled.
  ///
  /// A line of one empty field is written `""`, which a reader would otherwise skip as blank.
  /// A reader gives back a CR inside a field as "\n".
  static func line(_ fields: [String]) -> String {
    var line = ""
    for (index, field) in fields.enumerated() {
      if index > 0 { line += "," }
      if needsQuotes(field) || (fields.count == 1 && field.isEmpty) {
        line += "\"" + field.replacing("\"", with: "\"\"") + "\""
      } else {
        line += field
      }
    }
    return line + "\r\n"
  }

  private static func needsQuotes(_ field: String) -> Bool {
    let bytes = field.utf8
    guard let first = bytes.first, let last = bytes.last else { return false }
    if CSVParser.isSpace(first) || CSVParser.isSpace(last) { return true }
    return bytes.contains { $0 == .comma || $0 == .quote || $0 == .carriageReturn || $0 == .lineFeed }
  }
}

/// The reader's state over the bytes: where it is, which line, and the count of characters
/// before it on its line.
private struct CSVParser {
  struct Table {
    var header: [String]
    var records: [CSVRecord]
    var problems: [CSVProblem]
  }

  /// What one record came to.
  enum Read {
    case record(CSVRecord)
    case blank
    case problem(CSVProblem)
  }

  let bytes: UnsafeBufferPointer<UInt8>
  let file: String
  var index: Int
  var line = 1
  /// Where the current line starts, and how many characters lie between it and `counted`.
  var lineStart: Int
  var counted: Int
  var characters = 0
  /// Room for a quoted field whose bytes change when read (doubled quotes, line ends).
  var scratch: [UInt8] = []

  init(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, file: String) {
    self.bytes = bytes
    self.file = file
    index = start
    lineStart = start
    counted = start
  }

  mutating func table() -> Result<Table, CSVProblem> {
    var header: [String]?
    var table = Table(header: [], records: [], problems: [])
    while index < bytes.count {
      switch read() {
      case .blank: continue
      case .problem(let problem):
        guard header != nil else { return .failure(problem) }
        table.problems.append(problem)
      case .record(let record):
        guard let names = header else {
          header = record.fields.map { $0.trimmingSpaces() }
          continue
        }
        if record.fields.count == names.count {
          table.records.append(record)
        } else {
          let count = record.fields.count == 1 ? "1 field" : "\(record.fields.count) fields"
          table.problems.append(
            CSVProblem(
              file: file, line: record.line, column: 1, message: "has \(count) where the header has \(names.count)"))
        }
      }
    }
    guard let header else {
      return .failure(CSVProblem(file: file, line: 1, column: 1, message: "the file has no header line"))
    }
    table.header = header
    return .success(table)
  }

  /// The column of the byte at `position` on the current line, counting the characters not yet
  /// counted.
  mutating func column(at position: Int) -> Int {
    while counted < position {
      if bytes[counted] & 0xC0 != 0x80 { characters += 1 }
      counted += 1
    }
    return characters + 1
  }

  /// Moves past the line end at `index` (CRLF, LF or CR) to the start of the next line.
  mutating func skipLineEnd() {
    if bytes[index] == .carriageReturn, index + 1 < bytes.count, bytes[index + 1] == .lineFeed { index += 1 }
    index += 1
    startLine()
  }

  mutating func startLine() {
    line += 1
    lineStart = index
    counted = index
    characters = 0
  }

  /// Reads one record from `index`, which is at the start of a line, and moves past its line end.
  mutating func read() -> Read {
    if bytes[index] == .lineFeed || bytes[index] == .carriageReturn {
      skipLineEnd()
      return .blank
    }
    let recordLine = line
    var fields: [String] = []
    var columns: [Int] = []
    var problem: CSVProblem?
    var onlyUnquotedBlank = true
    while true {
      let fieldColumn = column(at: index)
      if index < bytes.count, bytes[index] == .quote {
        onlyUnquotedBlank = false
        let openingLine = line
        guard let field = readQuoted() else {
          return .problem(
            CSVProblem(
              file: file, line: openingLine, column: fieldColumn,
              message: "a quoted field is not closed before the end of the file"))
        }
        if index < bytes.count, !Self.endsField(bytes[index]) {
          if problem == nil {
            problem = CSVProblem(
              file: file, line: line, column: column(at: index),
              message: "text after a closing quote, before the next comma")
          }
          while index < bytes.count, !Self.endsField(bytes[index]) { index += 1 }
        }
        if problem == nil { fields.append(field) }
      } else {
        let start = index
        while index < bytes.count, !Self.endsField(bytes[index]) {
          if bytes[index] == .quote, problem == nil {
            problem = CSVProblem(
              file: file, line: line, column: column(at: index),
              message: "a quote inside a field that is not quoted")
          }
          index += 1
        }
        if problem == nil {
          if onlyUnquotedBlank, !bytes[start..<index].allSatisfy(Self.isSpace) { onlyUnquotedBlank = false }
          fields.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
        }
      }
      columns.append(fieldColumn)
      if index < bytes.count, bytes[index] == .comma {
        index += 1
        onlyUnquotedBlank = false
        continue
      }
      if index < bytes.count { skipLineEnd() }
      break
    }
    if let problem { return .problem(problem) }
    if onlyUnquotedBlank { return .blank }
    return .record(CSVRecord(line: recordLine, fields: fields, columns: columns))
  }

  /// Reads the quoted field whose opening quote is at `index` and moves past its closing quote;
  /// nil when the file ends first, with `index` at the start of the line after the opening
  /// quote's (or at the end), for reading to go on from there.
  mutating func readQuoted() -> String? {
    let (opening, openingLine) = (index, line)
    index += 1
    var start = index
    var changed = false
    scratch.removeAll(keepingCapacity: true)
    while index < bytes.count {
      switch bytes[index] {
      case .quote:
        if index + 1 < bytes.count, bytes[index + 1] == .quote {
          scratch.append(contentsOf: bytes[start...index])
          changed = true
          index += 2
          start = index
          continue
        }
        let field: String
        if changed {
          scratch.append(contentsOf: bytes[start..<index])
          field = String(decoding: scratch, as: UTF8.self)
        } else {
          field = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        }
        index += 1
        return field
      case .carriageReturn, .lineFeed:
        scratch.append(contentsOf: bytes[start..<index])
        scratch.append(.lineFeed)
        changed = true
        skipLineEnd()
        start = index
      default:
        index += 1
      }
    }
    // Not closed: perhaps a stray quote, so the lines it swallowed are read again.
    index = opening
    while index < bytes.count, bytes[index] != .lineFeed, bytes[index] != .carriageReturn { index += 1 }
    line = openingLine
    if index < bytes.count {
      skipLineEnd()
    } else {
      startLine()
    }
    return nil
  }

  static func endsField(_ byte: UInt8) -> Bool {
    byte == .comma || byte == .lineFeed || byte == .carriageReturn
  }

  static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

  static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
  }

  /// The line and column (from 1, in Unicode scalars) of the byte at `position`.
  static func position(of position: Int, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (Int, Int) {
    var line = 1
    var column = 1
    var index = start
    while index < position {
      let byte = bytes[index]
      if byte == .lineFeed || byte == .carriageReturn {
        if byte == .carriageReturn, index + 1 < position, bytes[index + 1] == .lineFeed { index += 1 }
        line += 1
        column = 1
      } else if byte & 0xC0 != 0x80 {
        column += 1
      }
      index += 1
    }
    return (line, column)
  }

  /// The offset of the first byte of the first sequence that is not UTF-8 (overlong forms,
  /// surrogates and code points past U+10FFFF included), or nil.
  static func firstInvalidUTF8(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    var index = start
    let count = bytes.count
    while index < count {
      let lead = bytes[index]
      if lead < 0x80 {
        index += 1
        continue
      }
      var length = 0
      var (low, high): (UInt8, UInt8) = (0x80, 0xBF)
      switch lead {
      case 0xC2...0xDF: length = 2
      case 0xE0: (length, low) = (3, 0xA0)
      case 0xE1...0xEC, 0xEE...0xEF: length = 3
      case 0xED: (length, high) = (3, 0x9F)
      case 0xF0: (length, low) = (4, 0x90)
      case 0xF1...0xF3: length = 4
      case 0xF4: (length, high) = (4, 0x8F)
      default: return index
      }
      guard index + length <= count, (low...high).contains(bytes[index + 1]) else { return index }
      for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return index }
      index += length
    }
    return nil
  }
}

extension UInt8 {
  fileprivate static let comma = UInt8(ascii: ",")
  fileprivate static let quote = UInt8(ascii: "\"")
  fileprivate static let carriageReturn = UInt8(ascii: "\r")
  fileprivate static let lineFeed = UInt8(ascii: "\n")
}

extension String {
  /// The string without spaces and tabs at either end.
  fileprivate func trimmingSpaces() -> String {
    let bytes = Array(utf8)
    guard let first = bytes.firstIndex(where: { !CSVParser.isSpace($0) }),
      let last = bytes.lastIndex(where: { !CSVParser.isSpace($0) })
    else { return "" }
    return String(decoding: bytes[first...last], as: UTF8.self)
  }
}
