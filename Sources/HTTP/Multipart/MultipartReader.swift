import Glibc

/// Why a multipart/form-data body was refused: `status` 400 when it is malformed, 413 when it
/// passes a limit, 500 when an upload could not be stored.
public struct MultipartError: Error, Equatable, Sendable, CustomStringConvertible {
  public var status: Int
  public var message: String
  /// The file part that passed its limit, when that is why: a service names it in its words.
  public var oversized: OversizedPart?

  public init(status: Int, message: String, oversized: OversizedPart? = nil) {
    self.status = status
    self.message = message
    self.oversized = oversized
  }

  public var description: String { message }
}

/// A file part over ``MultipartLimit/maximumFileBytes``: its name, the file name the client
/// gave, and its whole size (the reader counts the rest of it without keeping it).
public struct OversizedPart: Equatable, Sendable {
  public var name: String
  public var filename: String?
  public var bytes: Int
  public var limit: Int

  public init(name: String, filename: String?, bytes: Int, limit: Int) {
    self.name = name
    self.filename = filename
    self.bytes = bytes
    self.limit = limit
  }
}

/// Takes a multipart/form-data body apart as it arrives (RFC 7578, RFC 2046 section 5.1), in
/// chunks of any size: parts with a filename are streamed to new files in the limit's temporary
/// folder, the others kept in memory.
///
/// The body's preamble and epilogue are ignored; a body that ends before its close delimiter is
/// malformed. When reading fails, or the reader is dropped before ``finish()``, every file it
/// made is removed; after ``finish()`` each file belongs to its ``UploadedFile``.
///
/// One thread at a time.
public final class MultipartReader {
  /// The longest header block of one part.
  public static let maximumHeaderBytes = 8 * 1024

  private enum State {
    /// Before the first delimiter: bytes are dropped.
    case preamble
    /// Just after a delimiter: "--" closes the body, optional spaces and CRLF open a part.
    case afterDelimiter
    /// A part's header block, up to its empty line.
    case headers
    /// A part's content, up to the next delimiter.
    case content
    /// After the close delimiter: bytes are dropped.
    case epilogue
    case failed
  }

  private let limit: MultipartLimit
  /// CRLF "--" boundary: what ends each part's content.
  private let delimiter: [UInt8]
  private var state = State.preamble
  /// Bytes at the end of what came so far that may be the start of a delimiter; the preamble
  /// starts with a CRLF of its own, so that a delimiter at the very start of the body is found.
  private var held: [UInt8] = [0x0D, 0x0A]
  /// What follows a delimiter, up to its line end.
  private var line: [UInt8] = []
  private var headerBlock: [UInt8] = []
  private var parts: [FormPart] = []
  /// The part being read.
  private var current: FormPart?
  private var currentFile: FileBeingWritten?
  /// The current part passed its limit: its bytes are counted, not kept, to its end.
  private var oversized: OversizedPart?
  /// Every file made so far, to remove on failure.
  private var madeFiles: [String] = []
  private var finished = false

  private struct FileBeingWritten {
    var path: String
    var descriptor: Int32
    var size: Int
  }

  /// A reader for a body whose Content-Type gave `boundary`.
  public init(boundary: String, limit: MultipartLimit) {
    self.limit = limit
    delimiter = Array("\r\n--\(boundary)".utf8)
  }

  deinit {
    if !finished { discard() }
  }

  /// The boundary parameter of a multipart/form-data Content-Type (quoted or not), or nil when
  /// the type is another or the boundary is missing or not 1 to 70 characters.
  public static func boundary(contentType: String) -> String? {
    let pieces = contentType.split(separator: ";", omittingEmptySubsequences: false)
    guard let type = pieces.first, ASCII.trimmed(type).lowercased() == "multipart/form-data" else { return nil }
    for piece in pieces.dropFirst() {
      guard let equals = piece.firstIndex(of: "=") else { continue }
      guard ASCII.trimmed(piece[..<equals]).lowercased() == "boundary" else { continue }
      var value = ASCII.trimmed(piece[piece.index(after: equals)...])
      if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
      guard (1...70).contains(value.utf8.count), !value.contains("\r"), !value.contains("\n") else { return nil }
      return String(value)
    }
    return nil
  }

  /// Reads the next bytes of the body.
  public func consume(_ bytes: [UInt8]) throws(MultipartError) {
    try bytes.withUnsafeBufferPointer { (buffer) throws(MultipartError) in
      try consume(UnsafeRawBufferPointer(buffer))
    }
  }

  /// Reads the next bytes of the body.
  public func consume(_ bytes: UnsafeRawBufferPointer) throws(MultipartError) {
    do {
      try step(bytes)
    } catch {
      state = .failed
      discard()
      throw error
    }
  }

  /// The parts, once the whole body has been read; throws when it ended early.
  public func finish() throws(MultipartError) -> [FormPart] {
    guard case .epilogue = state else {
      let failedBefore: Bool
      if case .failed = state { failedBefore = true } else { failedBefore = false }
      state = .failed
      discard()
      throw MultipartError(
        status: 400,
        message: failedBefore
          ? "multipart body: read after a failure" : "multipart body: it ends before its final boundary")
    }
    finished = true
    return parts
  }

  /// Closes and removes every file made so far (a failed or abandoned request).
  public func discard() {
    if let file = currentFile {
      System.closeFile(file.descriptor)
      currentFile = nil
    }
    for path in madeFiles { System.removeFile(path) }
    madeFiles = []
    for part in parts { part.file?.remove() }
    parts = []
  }

  // MARK: - Parsing

  private func step(_ input: UnsafeRawBufferPointer) throws(MultipartError) {
    var index = 0
    while index < input.count {
      switch state {
      case .preamble, .content:
        index = try scanForDelimiter(input, from: index)
      case .afterDelimiter:
        let byte = input[index]
        index += 1
        line.append(byte)
        try readDelimiterLine()
      case .headers:
        let byte = input[index]
        index += 1
        headerBlock.append(byte)
        if headerBlock.count > Self.maximumHeaderBytes {
          throw MultipartError(
            status: 400, message: "multipart body: a part's header block is over \(Self.maximumHeaderBytes) bytes")
        }
        if headerBlock.count == 2, headerBlock == [0x0D, 0x0A] {
          // No header at all: no Content-Disposition, so no name.
          try startPart(headers: [])
        } else if headerBlock.count >= 4, headerBlock.suffix(4).elementsEqual([0x0D, 0x0A, 0x0D, 0x0A]) {
          try startPart(headers: headerBlock.dropLast(4))
        }
      case .epilogue:
        index = input.count
      case .failed:
        throw MultipartError(status: 400, message: "multipart body: read after a failure")
      }
    }
  }

  /// Looks for the delimiter in the held bytes and `input` from `start`; content before it goes
  /// to the part (or, in the preamble, nowhere). Returns where reading goes on in `input`.
  private func scanForDelimiter(_ input: UnsafeRawBufferPointer, from start: Int) throws(MultipartError) -> Int {
    var work = held
    work.append(contentsOf: input[start...])
    let found = work.withUnsafeBufferPointer { find(delimiter, in: UnsafeRawBufferPointer($0)) }
    if let found {
      try deliver(work[..<found])
      let consumed = found + delimiter.count - held.count
      held = []
      if case .content = state { try endPart() }
      state = .afterDelimiter
      line = []
      return start + consumed
    }
    let keep = min(work.count, delimiter.count - 1)
    try deliver(work[..<(work.count - keep)])
    held = Array(work[(work.count - keep)...])
    return input.count
  }

  /// The first place of `needle` in `haystack`, or nil.
  private func find(_ needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Int? {
    guard haystack.count >= needle.count, let base = haystack.baseAddress else { return nil }
    let first = Int32(needle[0])
    var offset = 0
    let last = haystack.count - needle.count
    return needle.withUnsafeBytes { wanted in
      while offset <= last {
        guard let hit = memchr(base + offset, first, last - offset + 1) else { return nil }
        let position = base.distance(to: UnsafeRawPointer(hit))
        if memcmp(base + position, wanted.baseAddress!, needle.count) == 0 { return position }
        offset = position + 1
      }
      return nil
    }
  }

  private func readDelimiterLine() throws(MultipartError) {
    if line == [0x2D, 0x2D] {
      state = .epilogue
      return
    }
    if line.count >= 2, line.suffix(2).elementsEqual([0x0D, 0x0A]) {
      guard line.dropLast(2).allSatisfy(ASCII.isWhitespace) else { throw malformedDelimiter() }
      guard parts.count < limit.maximumParts else {
        throw MultipartError(status: 413, message: "multipart body: more than \(limit.maximumParts) parts")
      }
      state = .headers
      headerBlock = []
      return
    }
    // Only "-" (on its way to "--") or padding, perhaps with the CR of CRLF, may come here.
    let padding = line.last == 0x0D ? line.dropLast() : line[...]
    if padding == [0x2D] { return }
    guard padding.allSatisfy(ASCII.isWhitespace), line.count <= 256 else { throw malformedDelimiter() }
  }

  private func malformedDelimiter() -> MultipartError {
    MultipartError(status: 400, message: "multipart body: a boundary is followed by something else than a line end")
  }

  private func startPart(headers block: ArraySlice<UInt8>) throws(MultipartError) {
    let text = String(decoding: block, as: UTF8.self)
    var disposition: String?
    var contentType: String?
    for rawLine in text.split(separator: "\r\n") {
      guard let colon = rawLine.firstIndex(of: ":") else {
        throw MultipartError(status: 400, message: "multipart body: a part's header line has no colon")
      }
      let name = ASCII.trimmed(rawLine[..<colon]).lowercased()
      let value = String(ASCII.trimmed(rawLine[rawLine.index(after: colon)...]))
      if name == "content-disposition", disposition == nil { disposition = value }
      if name == "content-type", contentType == nil { contentType = value }
    }
    guard let disposition, let parsed = ContentDisposition(disposition), parsed.isFormData else {
      throw MultipartError(status: 400, message: "multipart body: a part has no Content-Disposition: form-data")
    }
    guard let name = parsed.name else {
      throw MultipartError(status: 400, message: "multipart body: a part has no name")
    }
    current = FormPart(name: name, filename: parsed.filename, contentType: contentType)
    if parsed.filename != nil { currentFile = try makeFile() }
    state = .content
    held = []
  }

  /// Content of the current part (nothing in the preamble).
  private func deliver(_ bytes: ArraySlice<UInt8>) throws(MultipartError) {
    guard !bytes.isEmpty, case .content = state else { return }
    if oversized != nil {
      oversized?.bytes += bytes.count
      return
    }
    if var file = currentFile {
      guard file.size + bytes.count <= limit.maximumFileBytes else {
        // The file goes at once; the rest of the part is counted, so that the refusal can say
        // how large it was.
        currentFile = nil
        System.closeFile(file.descriptor)
        System.removeFile(file.path)
        madeFiles.removeAll { $0 == file.path }
        oversized = OversizedPart(
          name: current?.name ?? "", filename: current?.filename, bytes: file.size + bytes.count,
          limit: limit.maximumFileBytes)
        return
      }
      // withUnsafeBufferPointer, not withUnsafeBytes: typed throws pass through the former only.
      try bytes.withUnsafeBufferPointer { (buffer) throws(MultipartError) in
        var offset = 0
        while offset < buffer.count {
          let written = System.writeSome(file.descriptor, buffer.baseAddress! + offset, buffer.count - offset)
          guard written > 0 else {
            throw MultipartError(
              status: 500, message: "multipart body: cannot store an upload: \(System.describe(errno))")
          }
          offset += written
        }
      }
      file.size += bytes.count
      currentFile = file
    } else if var part = current {
      guard part.value.count + bytes.count <= limit.maximumFieldBytes else {
        throw MultipartError(
          status: 413, message: "multipart body: a field is over \(limit.maximumFieldBytes) bytes")
      }
      // Taken out while it grows, so that the append does not copy the value.
      current = nil
      part.value.append(contentsOf: bytes)
      current = part
    }
  }

  private func endPart() throws(MultipartError) {
    if let oversized {
      self.oversized = nil
      current = nil
      throw MultipartError(
        status: 413,
        message: "multipart body: the file \(oversized.filename ?? oversized.name) is \(oversized.bytes) bytes, "
          + "over the \(oversized.limit) a file may have",
        oversized: oversized)
    }
    guard var part = current else { return }
    if let file = currentFile {
      currentFile = nil
      if System.closeFile(file.descriptor) != 0 {
        throw MultipartError(
          status: 500, message: "multipart body: cannot store an upload: \(System.describe(errno))")
      }
      madeFiles.removeAll { $0 == file.path }
      part.file = UploadedFile(path: file.path, size: file.size)
    }
    parts.append(part)
    current = nil
  }

  /// A new file of a random name in the temporary folder (made 0700 if missing), 0600.
  private func makeFile() throws(MultipartError) -> FileBeingWritten {
    let folder = limit.temporaryFolder
    if System.makeFolder(folder, mode: 0o700) != 0 && errno != EEXIST {
      throw MultipartError(
        status: 500, message: "multipart body: cannot make the upload folder \(folder): \(System.describe(errno))")
    }
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<8 {
      let name = (0..<2).map { _ in hex(generator.next()) }.joined()
      let path = "\(folder)/upload-\(name).part"
      let fd = System.openFile(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
      if fd >= 0 {
        madeFiles.append(path)
        return FileBeingWritten(path: path, descriptor: fd, size: 0)
      }
      if errno != EEXIST { break }
    }
    throw MultipartError(
      status: 500, message: "multipart body: cannot make an upload file in \(folder): \(System.describe(errno))")
  }

  private func hex(_ value: UInt64) -> String {
    let text = String(value, radix: 16)
    return String(repeating: "0", count: 16 - text.count) + text
  }
}

/// A part's Content-Disposition (RFC 7578 section 4.2, as browsers write it: parameter values
/// quoted or not, no backslash escapes, `filename*` in RFC 8187's form preferred when UTF-8).
struct ContentDisposition {
  var isFormData: Bool
  var name: String?
  var filename: String?

  init?(_ header: String) {
    var rest = Substring(header)
    let typeEnd = rest.firstIndex(of: ";") ?? rest.endIndex
    isFormData = ASCII.trimmed(rest[..<typeEnd]).lowercased() == "form-data"
    rest = rest[typeEnd...]
    var extendedFilename: String?
    while let semicolon = rest.firstIndex(of: ";") {
      rest = rest[rest.index(after: semicolon)...].drop { $0 == " " || $0 == "\t" }
      guard let equals = rest.firstIndex(of: "=") else { return nil }
      let key = ASCII.trimmed(rest[..<equals]).lowercased()
      var value = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
      let text: Substring
      if value.first == "\"" {
        value = value.dropFirst()
        guard let close = value.firstIndex(of: "\"") else { return nil }
        text = value[..<close]
        rest = value[value.index(after: close)...]
      } else {
        let end = value.firstIndex(of: ";") ?? value.endIndex
        text = ASCII.trimmed(value[..<end])
        rest = value[end...]
      }
      switch key {
      case "name" where name == nil: name = String(text)
      case "filename" where filename == nil: filename = String(text)
      case "filename*" where extendedFilename == nil: extendedFilename = Self.decodeExtended(text)
      default: break
      }
    }
    if let extendedFilename { filename = extendedFilename }
  }

  /// `UTF-8''percent-encoded` (RFC 8187): the text, or nil for another charset or bad bytes.
  private static func decodeExtended(_ value: Substring) -> String? {
    let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
    guard pieces.count == 3, pieces[0].lowercased() == "utf-8",
      let bytes = PercentEncoding.decodeStrictly(pieces[2])
    else { return nil }
    return String(validating: bytes, as: UTF8.self)
  }
}
