import Glibc
import Synchronization

/// A library's files in a local folder, written by the durable write protocol.
public final class LocalFileStore: FileStore {
  /// The library folder.
  public let root: String
  /// Called before each step of a write; a test makes a step fail by throwing from it.
  public var faultHook: (@Sendable (FileStep, String) throws(CatalogueError) -> Void)? {
    get { hook.withLock { $0 } }
    set { hook.withLock { $0 = newValue } }
  }

  private let hook = Mutex<(@Sendable (FileStep, String) throws(CatalogueError) -> Void)?>(nil)

  public init(root: String) {
    self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
  }

  public func location(of path: String) -> String { "\(root)/\(path)" }

  private func step(_ step: FileStep, _ path: String) throws(CatalogueError) {
    try faultHook?(step, path)
  }

  public func write(_ bytes: [UInt8], to path: String) throws(CatalogueError) {
    let (folder, name) = split(path)
    try makeFolder(folder)
    let temporary = "\(folder)/\(LibraryLayout.temporaryPrefix)\(randomHex(8))-\(name)"
    try step(.createTemporary, path)
    let descriptor = open(location(of: temporary), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw .io(operation: "create", path: location(of: temporary), code: errno) }
    var renamed = false
    defer {
      if !renamed { unlink(location(of: temporary)) }
    }
    do {
      defer { close(descriptor) }
      try step(.write, path)
      try FileIO.writeAll(descriptor, bytes, path: location(of: path))
      try step(.syncFile, path)
      guard fsync(descriptor) == 0 else {
        throw .io(operation: "sync", path: location(of: path), code: errno)
      }
    }
    try step(.rename, path)
    guard rename(location(of: temporary), location(of: path)) == 0 else {
      throw .io(operation: "rename into place", path: location(of: path), code: errno)
    }
    renamed = true
    try step(.syncFolder, path)
    try syncFolder(folder)
  }

  public func size(of path: String) -> Int? {
    var status = stat()
    guard stat(location(of: path), &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
      return nil
    }
    return Int(status.st_size)
  }

  public func read(_ path: String) throws(CatalogueError) -> [UInt8] {
    try FileIO.read(location(of: path))
  }

  public func move(_ path: String, to destination: String) throws(CatalogueError) {
    let (folder, _) = split(destination)
    try makeFolder(folder)
    guard rename(location(of: path), location(of: destination)) == 0 else {
      throw .io(operation: "move \(path) to", path: location(of: destination), code: errno)
    }
    try syncFolder(folder)
    try syncFolder(split(path).folder)
  }

  public func remove(_ path: String) throws(CatalogueError) {
    guard unlink(location(of: path)) == 0 || errno == ENOENT else {
      throw .io(operation: "remove", path: location(of: path), code: errno)
    }
  }

  public func removeFolderIfEmpty(_ path: String) throws(CatalogueError) {
    guard rmdir(location(of: path)) == 0 || [ENOENT, ENOTEMPTY, EEXIST].contains(errno) else {
      throw .io(operation: "remove folder", path: location(of: path), code: errno)
    }
    try syncFolder(split(path).folder)
  }

  public func files(under folder: String) throws(CatalogueError) -> [String] {
    var found: [String] = []
    try collect(folder, into: &found)
    return found.sorted()
  }

  /// The names in `folder` itself (files and folders), in name order.
  func entries(in folder: String) throws(CatalogueError) -> [String] {
    let path = folder.isEmpty ? root : location(of: folder)
    guard let directory = opendir(path) else { throw .io(operation: "list", path: path, code: errno) }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
  }

  private func collect(_ folder: String, into found: inout [String]) throws(CatalogueError) {
    guard let directory = opendir(location(of: folder)) else {
      if errno == ENOENT { return }
      throw .io(operation: "list", path: location(of: folder), code: errno)
    }
    defer { closedir(directory) }
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name == "." || name == ".." { continue }
      let path = folder.isEmpty ? name : "\(folder)/\(name)"
      var status = stat()
      guard lstat(location(of: path), &status) == 0 else { continue }
      if (status.st_mode & S_IFMT) == S_IFDIR {
        try collect(path, into: &found)
      } else {
        found.append(path)
      }
    }
  }

  /// Creates the library folder itself (and its parents) when missing.
  func makeRoot() throws(CatalogueError) {
    var built = root.hasPrefix("/") ? "" : "."
    for component in root.split(separator: "/") {
      built += "/\(component)"
      if mkdir(built, 0o755) != 0 && errno != EEXIST {
        throw .io(operation: "create folder", path: built, code: errno)
      }
    }
  }

  /// Creates `folder` and its parents as needed, syncing each parent that gained an entry.
  func makeFolder(_ folder: String) throws(CatalogueError) {
    guard !folder.isEmpty else { return }
    var status = stat()
    if stat(location(of: folder), &status) == 0 { return }
    let (parent, _) = split(folder)
    try makeFolder(parent)
    try step(.createFolder, folder)
    if mkdir(location(of: folder), 0o755) != 0 && errno != EEXIST {
      throw .io(operation: "create folder", path: location(of: folder), code: errno)
    }
    try syncFolder(parent)
  }

  private func syncFolder(_ folder: String) throws(CatalogueError) {
    let path = folder.isEmpty ? root : location(of: folder)
    let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { throw .io(operation: "open folder", path: path, code: errno) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw .io(operation: "sync folder", path: path, code: errno) }
  }

  private func split(_ path: String) -> (folder: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return ("", path) }
    return (String(path[..<slash]), String(path[path.index(after: slash)...]))
  }
}

/// Whole-file reads and writes on descriptors, retrying short transfers and interruptions.
public enum FileIO {
  /// The bytes of the file at `path`.
  public static func read(_ path: String) throws(CatalogueError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw .io(operation: "read", path: path, code: errno) }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw .io(operation: "read", path: path, code: errno) }
    if (status.st_mode & S_IFMT) == S_IFDIR { throw .io(operation: "read", path: path, code: EISDIR) }
    var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
    var done = 0
    while done < bytes.count {
      let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + done, $0.count - done) }
      if got < 0 && errno == EINTR { continue }
      if got < 0 { throw .io(operation: "read", path: path, code: errno) }
      if got == 0 { break }  // the file shrank since fstat
      done += got
    }
    bytes.removeLast(bytes.count - done)
    // The file may have grown since fstat: read on to its end.
    var chunk = [UInt8](repeating: 0, count: 65536)
    while done == Int(status.st_size) {
      let got = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
      if got < 0 && errno == EINTR { continue }
      if got < 0 { throw .io(operation: "read", path: path, code: errno) }
      if got == 0 { break }
      bytes.append(contentsOf: chunk[0..<got])
    }
    return bytes
  }

  static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws(CatalogueError) {
    var done = 0
    while done < bytes.count {
      let wrote = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + done, $0.count - done) }
      if wrote < 0 {
        if errno == EINTR { continue }
        throw .io(operation: "write", path: path, code: errno)
      }
      done += wrote
    }
  }
}

/// `count` random bytes as hexadecimal, from the system's generator.
func randomHex(_ count: Int) -> String {
  var generator = SystemRandomNumberGenerator()
  let digits = Array("0123456789abcdef".utf8)
  var text = [UInt8]()
  for _ in 0..<count {
    let byte = UInt8.random(in: 0...255, using: &generator)
    text.append(digits[Int(byte >> 4)])
    text.append(digits[Int(byte & 0x0F)])
  }
  return String(decoding: text, as: UTF8.self)
}
