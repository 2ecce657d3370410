import Glibc
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
  /// than `sizeCap` bytes.
  static func readPicture(_ path: String, sizeCap: Int, pixelBudget: Int) throws(CatalogueError)
    -> [UInt8]
  {
    let file = try OpenFile(path)
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
      case .empty, .notAnImage, .unsupported, .tooManyPixels:
        throw .imageRejected(file: path, reason: error)
      default:
        // A header beyond the first bytes; the whole file's decode says what is wrong.
        if whole { throw .imageRejected(file: path, reason: error) }
      }
    }
    if file.size > sizeCap { throw .fileTooLarge(path: path, bytes: file.size, cap: sizeCap) }
    if !whole {
      let rest = try file.read(upTo: sizeCap + 1 - bytes.count)
      bytes += rest
      // The file grew since it was measured.
      if bytes.count > sizeCap { throw .fileTooLarge(path: path, bytes: bytes.count, cap: sizeCap) }
    }
    return bytes
  }

  /// The text of the file at `path` (`-`: standard input), at most `limit` bytes of UTF-8.
  public static func readText(_ path: String, limit: Int) throws(CatalogueError) -> String {
    let shown = path == "-" ? "standard input" : path
    let bytes: [UInt8]
    if path == "-" {
      bytes = try OpenFile(descriptor: STDIN_FILENO, path: shown).read(upTo: limit + 1)
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

/// A descriptor of a regular file opened for reading.
private struct OpenFile {
  let descriptor: Int32
  let path: String
  /// The size when opened.
  let size: Int

  /// Opens `path` without blocking (a FIFO with no writer would wait forever otherwise) and
  /// without following a final link to a device; refuses anything but a regular file.
  init(_ path: String) throws(CatalogueError) {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard descriptor >= 0 else { throw .io(operation: "read", path: path, code: errno) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let code = errno
      Glibc.close(descriptor)
      throw .io(operation: "read", path: path, code: code)
    }
    let kind = status.st_mode & S_IFMT
    guard kind == S_IFREG else {
      Glibc.close(descriptor)
      throw .notARegularFile(path: path, kind: Self.describe(kind))
    }
    // Regular files never block; clear the flag so that reads behave plainly.
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
    self.descriptor = descriptor
    self.path = path
    self.size = Int(status.st_size)
  }

  /// Standard input, whatever it is (a pipe, a terminal, a file).
  init(descriptor: Int32, path: String) {
    self.descriptor = descriptor
    self.path = path
    self.size = 0
  }

  func close() { Glibc.close(descriptor) }

  /// Up to `limit` more bytes, fewer only at the end of the file.
  func read(upTo limit: Int) throws(CatalogueError) -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: min(max(limit, 1), 1 << 20))
    while bytes.count < limit {
      let want = min(chunk.count, limit - bytes.count)
      let got = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, want) }
      if got < 0 {
        if errno == EINTR { continue }
        throw .io(operation: "read", path: path, code: errno)
      }
      if got == 0 { break }
      bytes.append(contentsOf: chunk[0..<got])
    }
    return bytes
  }

  static func describe(_ kind: mode_t) -> String {
    switch kind {
    case S_IFDIR: return "a folder"
    case S_IFIFO: return "a FIFO (named pipe)"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFSOCK: return "a socket"
    default: return "not a regular file"
    }
  }
}
