import Synchronization

/// A library's files in a local folder, written by the durable write protocol.
public final class LocalFileStore: FileStore {
  /// The library folder.
  public let root: String
  /// Called before each step of a write; a test makes a step fail by throwing from it.
  var faultHook: (@Sendable (FileStep, String) throws(CatalogueError) -> Void)? {
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
    try DurableWrite.write(bytes, to: location(of: path), temporary: location(of: temporary)) {
      (current) throws(CatalogueError) in try step(current, path)
    }
  }

  public func stage(_ bytes: [UInt8], for path: String) throws(CatalogueError) -> StagedFile {
    let (folder, name) = split(path)
    try makeFolder(folder)
    let temporary = "\(folder)/\(LibraryLayout.temporaryPrefix)\(randomHex(8))-\(name)"
    let staged = try DurableWrite.stage(bytes, to: location(of: path), temporary: location(of: temporary)) {
      (current) throws(CatalogueError) in try step(current, path)
    }
    return StagedFile(path: path, staged: staged)
  }

  public func publish(_ files: [StagedFile]) throws(CatalogueError) {
    let paths = Dictionary(files.map { ($0.staged.path, $0.path) }, uniquingKeysWith: { first, _ in first })
    try DurableWrite.publish(files.map(\.staged), anchor: root) { (current, path) throws(CatalogueError) in
      try step(current, paths[path] ?? path)
    }
  }

  public func discard(_ files: [StagedFile]) {
    DurableWrite.discard(files.map(\.staged))
  }

  /// In the originals' folder (where every incoming file so far goes), on the filesystem of
  /// the folder it will be renamed into.
  public func incoming() throws(CatalogueError) -> IncomingFile {
    let folder = LibraryLayout.originals
    try makeFolder(folder)
    let temporary = "\(folder)/\(LibraryLayout.temporaryPrefix)\(randomHex(8))-incoming"
    try step(.createTemporary, temporary)
    let descriptor: FileDescriptor
    do {
      descriptor = try FileDescriptor.open(location(of: temporary), .writeOnly, options: [.create, .exclusive])
    } catch {
      throw .io(operation: .create, path: location(of: temporary), code: error.rawValue)
    }
    let file = IncomingFile(temporary: temporary, location: location(of: temporary), descriptor: descriptor)
    try step(.write, temporary)
    return file
  }

  public func place(_ file: IncomingFile, at path: String) throws(CatalogueError) {
    var placed = false
    defer { if !placed { file.discard() } }
    try step(.syncFile, path)
    try file.syncAndClose()
    defer { if !placed { try? FileSystem.remove(file.location) } }
    let (folder, _) = split(path)
    try makeFolder(folder)
    try step(.rename, path)
    do {
      try FileSystem.rename(file.location, to: location(of: path))
    } catch {
      throw .io(operation: .renameIntoPlace, path: location(of: path), code: error.rawValue)
    }
    placed = true
    // The new name is what must survive a crash; the temporary name went in the same rename.
    try step(.syncFolder, path)
    try syncFolder(folder)
  }

  public func size(of path: String) -> Int? {
    guard let status = FileStatus.at(location(of: path)), status.kind == .regular else { return nil }
    return status.size
  }

  public func read(_ path: String) throws(CatalogueError) -> [UInt8] {
    do {
      return try FileSystem.readWholeFile(location(of: path))
    } catch {
      throw .io(operation: .read, path: location(of: path), code: error.rawValue)
    }
  }

  public func digest(of path: String) throws(CatalogueError) -> String {
    do throws(Errno) {
      let descriptor = try FileDescriptor.open(location(of: path), .readOnly)
      defer { descriptor.close() }
      let hasher = SHA256.Hasher()
      try withUnsafeTemporaryAllocation(byteCount: 256 * 1024, alignment: 16) { (buffer) throws(Errno) in
        while true {
          let got = try descriptor.read(into: buffer)
          if got == 0 { break }
          hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
        }
      }
      return hasher.finish()
    } catch {
      throw .io(operation: .read, path: location(of: path), code: error.rawValue)
    }
  }

  public func move(_ path: String, to destination: String) throws(CatalogueError) {
    let (folder, _) = split(destination)
    try makeFolder(folder)
    do {
      try FileSystem.rename(location(of: path), to: location(of: destination))
    } catch {
      throw .io(operation: .move(from: path), path: location(of: destination), code: error.rawValue)
    }
    try syncFolder(folder)
    try syncFolder(split(path).folder)
  }

  public func remove(_ path: String) throws(CatalogueError) {
    do {
      try FileSystem.remove(location(of: path))
    } catch {
      throw .io(operation: .remove, path: location(of: path), code: error.rawValue)
    }
  }

  public func removeFolderIfEmpty(_ path: String) throws(CatalogueError) {
    do {
      try FileSystem.removeFolderIfEmpty(location(of: path))
    } catch {
      throw .io(operation: .removeFolder, path: location(of: path), code: error.rawValue)
    }
    try syncFolder(split(path).folder)
  }

  public func linkTarget(of path: String) -> String? {
    FileSystem.linkTarget(location(of: path))
  }

  public func files(under folder: String) throws(CatalogueError) -> [String] {
    var found: [String] = []
    try collect(folder, into: &found)
    return found.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }

  public func makeEmptyRoot() throws(CatalogueError) {
    if let status = FileStatus.at(root) {
      guard status.kind == .folder else { throw .notAFolder(path: root) }
      // A library owns its folder: check reports anything else in it, for ever.
      let entries = try names(in: "")
      if !entries.isEmpty { throw .folderNotEmpty(path: root, entries: entries) }
    }
    try makeRoot()
  }

  /// The names in `folder` itself (files and folders), in the order of their bytes.
  public func names(in folder: String) throws(CatalogueError) -> [String] {
    let path = folder.isEmpty ? root : location(of: folder)
    do {
      return try FileSystem.names(in: path)
    } catch {
      throw .io(operation: .list, path: path, code: error.rawValue)
    }
  }

  private func collect(_ folder: String, into found: inout [String]) throws(CatalogueError) {
    let names: [String]
    do {
      names = try FileSystem.names(in: location(of: folder))
    } catch {
      if error == .noEntry { return }
      throw .io(operation: .list, path: location(of: folder), code: error.rawValue)
    }
    for name in names {
      let path = folder.isEmpty ? name : "\(folder)/\(name)"
      guard let status = FileStatus.at(location(of: path), followingLinks: false) else { continue }
      if status.kind == .folder {
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
      do {
        try FileSystem.makeFolder(built)
      } catch {
        throw .io(operation: .createFolder, path: built, code: error.rawValue)
      }
    }
  }

  /// Creates `folder` and its parents as needed, syncing each parent that gained an entry.
  func makeFolder(_ folder: String) throws(CatalogueError) {
    guard !folder.isEmpty else { return }
    if FileStatus.at(location(of: folder)) != nil { return }
    let (parent, _) = split(folder)
    try makeFolder(parent)
    try step(.createFolder, folder)
    do {
      try FileSystem.makeFolder(location(of: folder))
    } catch {
      throw .io(operation: .createFolder, path: location(of: folder), code: error.rawValue)
    }
    try syncFolder(parent)
  }

  private func syncFolder(_ folder: String) throws(CatalogueError) {
    let path = folder.isEmpty ? root : location(of: folder)
    do {
      try FileSystem.syncFolder(path)
    } catch {
      throw .io(operation: .syncFolder, path: path, code: error.rawValue)
    }
  }

  private func split(_ path: String) -> (folder: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return ("", path) }
    return (String(path[..<slash]), String(path[path.index(after: slash)...]))
  }
}

/// `count` random bytes as hexadecimal, from the system's generator.
func randomHex(_ count: Int) -> String {
  var generator = SystemRandomNumberGenerator()
  let digits = Array("0123456789abcdef".utf8)
  var text = [UInt8]()
  var word: UInt64 = 0
  for index in 0..<count {
    // Eight bytes a draw: one call into the kernel for a temporary file's name, not eight.
    if index % 8 == 0 { word = generator.next() }
    let byte = UInt8(truncatingIfNeeded: word >> (8 * UInt64(index % 8)))
    text.append(digits[Int(byte >> 4)])
    text.append(digits[Int(byte & 0x0F)])
  }
  return String(decoding: text, as: UTF8.self)
}
