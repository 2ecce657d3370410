import ImagePipeline

/// Files a user names for the catalogue to read (pictures to import, a review's body): opened
/// without blocking, refused unless they are regular files, and looked at before they are read
/// whole — so that `/dev/zero`, a FIFO or a gigabyte of zeros is refused at once, in bounded
/// memory, and never hangs a command.
public enum InputFile {
  /// How many bytes are read first, to recognise the format and parse the header.
  static let headLength = 64 * 1024

  /// The bytes of the picture at `path`, refused early when it is not a regular file, not a
  /// picture of a supported format, declares more pixels than `pixelBudget`, or is larger
  /// than `sizeCap` bytes. Errors name the file `name` (by default its path): an upload is
  /// read from a temporary file but named as the user sent it.
  static func readPicture(_ path: String, named name: String? = nil, sizeCap: Int, pixelBudget: Int)
    throws(CatalogueError) -> [UInt8]
  {
    let shown = name ?? path
    let file = try OpenFile(path, shownAs: shown)
    defer { file.close() }
    var bytes = try file.read(upTo: headLength)
    let whole = bytes.count < headLength
    do throws(ImageError) {
      let header = try ImagePipeline.readHeader(bytes)
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
    if !whole {
      let rest = try file.read(upTo: sizeCap + 1 - bytes.count, expected: file.size - bytes.count + 1)
      bytes += rest
      // The file grew since it was measured.
      if bytes.count > sizeCap { throw .fileTooLarge(path: shown, bytes: bytes.count, cap: sizeCap) }
    }
    return bytes
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
