import ImagePipeline

/// Files a user names for the catalogue to read (pictures to import, a review's body): opened
/// without blocking, refused unless they are regular files, and looked at before they are read
/// whole — so that `/dev/zero`, a FIFO or a gigabyte of zeros is refused at once, in bounded
/// memory, and never hangs a command.
public enum InputFile {
  /// How many bytes are read first, to recognise the format and parse the header.
  static let headLength = 64 * 1024

  /// The picture at `path`, opened for import and looked at: refused early when it is not a
  /// regular file, not a picture of a supported format, declares more pixels than
  /// `pixelBudget`, or is larger than `sizeCap` bytes, before more than its first bytes are
  /// read. Errors name the file `name` (by default its path): an upload is read from a
  /// temporary file but named as the user sent it.
  static func openPicture(_ path: String, named name: String? = nil, sizeCap: Int, pixelBudget: Int)
    throws(CatalogueError) -> PictureFile
  {
    let shown = name ?? path
    let file = try OpenFile(path, shownAs: shown)
    var opened = false
    defer { if !opened { file.close() } }
    let head = try file.read(upTo: headLength)
    let whole = head.count < headLength
    do throws(ImageError) {
      let header = try ImagePipeline.readHeader(head)
      if header.pixelCount > pixelBudget {
        throw .tooManyPixels(width: header.width, height: header.height, budget: pixelBudget)
      }
    } catch {
      switch error {
      case .empty, .notAnImage, .unsupported, .tooManyPixels, .decoderMissing:
        throw .imageRejected(file: shown, reason: error)
      default:
        // A header beyond the first bytes; the whole file's decode says what is wrong.
        if whole { throw .imageRejected(file: shown, reason: error) }
      }
    }
    if file.size > sizeCap { throw .fileTooLarge(path: shown, bytes: file.size, cap: sizeCap) }
    opened = true
    return PictureFile(file, head: head, sizeCap: sizeCap)
  }

  /// The text of the file at `path` (`-`: standard input), at most `limit` bytes of UTF-8.
  public static func readText(_ path: String, limit: Int) throws(CatalogueError) -> String {
    let shown = path == "-" ? "standard input" : path
    let bytes: [UInt8]
    if path == "-" {
      bytes = try OpenFile(standardInput: shown).read(upTo: limit + 1)
    } else {
      let file = try OpenFile(path)
      defer { file.close() }
      if file.size > limit { throw .textTooLarge(path: path, cap: limit) }
      bytes = try file.read(upTo: limit + 1)
    }
    if bytes.count > limit { throw .textTooLarge(path: shown, cap: limit) }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw .notText(path: shown)
    }
    return text
  }
}

/// A picture opened for import (see ``InputFile/openPicture(_:named:sizeCap:pixelBudget:)``),
/// read once, front to back: every byte read goes to SHA-256 and, when ``copy`` is set, to a
/// file in the library, on its way to whoever reads it (the pipeline's decoder). So the file is
/// never held whole in memory, and the hash is of exactly the bytes copied.
///
/// Not `Sendable`: one import, one thread.
final class PictureFile: PictureSource {
  /// The file as messages name it.
  let name: String
  private let file: OpenFile
  /// The first bytes, read to look at the header, handed out first (and let go then).
  private var head: [UInt8]
  private var headOffset = 0
  private let sizeCap: Int
  private let hasher = SHA256.Hasher()
  /// How many bytes were read.
  private(set) var count = 0
  /// Where every byte read is copied, as it is read.
  var copy: IncomingFile?
  /// Why reading stopped before the end of the file: a read failed, the file grew past the
  /// cap since it was measured, the copy could not be written.
  private(set) var failure: CatalogueError?

  fileprivate init(_ file: OpenFile, head: [UInt8], sizeCap: Int) {
    self.name = file.path
    self.file = file
    self.head = head
    self.sizeCap = sizeCap
  }

  /// The size when the file was opened.
  var size: Int? { file.size }

  func close() { file.close() }

  func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard failure == nil, !buffer.isEmpty else { return 0 }
    let got: Int
    if headOffset < head.count {
      got = min(buffer.count, head.count - headOffset)
      head.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + headOffset, byteCount: got) }
      headOffset += got
      if headOffset == head.count {
        head = []
        headOffset = 0
      }
    } else {
      // Never more than one byte past the cap: enough to know the file grew past it.
      let allowed = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(buffer.count, sizeCap + 1 - count)])
      do {
        got = try file.descriptor.read(into: allowed)
      } catch {
        failure = .io(operation: .read, path: name, code: error.rawValue)
        return 0
      }
    }
    count += got
    // The file grew since it was measured.
    if count > sizeCap {
      failure = .fileTooLarge(path: name, bytes: count, cap: sizeCap)
      return 0
    }
    let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<got])
    hasher.update(bytes)
    if let copy {
      do {
        try copy.append(bytes)
      } catch {
        failure = error
        return 0
      }
    }
    return got
  }

  /// Reads what is left of the file (what a decoder left after the picture's end), then gives
  /// the SHA-256 of every byte and their count, or why the file could not be read whole.
  func finish() throws(CatalogueError) -> (sha256: String, size: Int) {
    try withUnsafeTemporaryAllocation(byteCount: 64 * 1024, alignment: 16) { (buffer) throws(CatalogueError) in
      while read(into: buffer) > 0 {}
      if let failure { throw failure }
    }
    return (hasher.finish(), count)
  }
}

/// A regular file opened for reading, or standard input.
private struct OpenFile {
  let descriptor: FileDescriptor
  /// The file as messages name it.
  let path: String
  /// The size when opened.
  let size: Int

  /// Opens `path` without blocking (a FIFO with no writer would wait forever otherwise);
  /// refuses anything but a regular file. Errors name it `shown` (by default its path).
  init(_ path: String, shownAs shown: String? = nil) throws(CatalogueError) {
    let shown = shown ?? path
    let descriptor: FileDescriptor
    let status: FileStatus
    do {
      descriptor = try FileDescriptor.open(path, .readOnly, options: [.nonBlocking, .noControllingTerminal])
    } catch {
      throw .io(operation: .read, path: shown, code: error.rawValue)
    }
    do {
      status = try descriptor.status()
    } catch {
      descriptor.close()
      throw .io(operation: .read, path: shown, code: error.rawValue)
    }
    guard status.kind == .regular else {
      descriptor.close()
      throw .notARegularFile(path: shown, kind: status.kind.described)
    }
    // Regular files never block; reads behave plainly without the flag.
    descriptor.setBlocking()
    self.descriptor = descriptor
    self.path = shown
    self.size = status.size
  }

  /// Standard input, whatever it is (a pipe, a terminal, a file).
  init(standardInput path: String) {
    descriptor = .standardInput
    self.path = path
    size = 0
  }

  func close() { descriptor.close() }

  /// Up to `limit` more bytes, fewer only at the end of the file.
  func read(upTo limit: Int, expected: Int? = nil) throws(CatalogueError) -> [UInt8] {
    do {
      return try descriptor.read(upTo: limit, expected: expected)
    } catch {
      throw .io(operation: .read, path: path, code: error.rawValue)
    }
  }
}
