import CSystemShims
import Glibc

/// Runs a system call until it is not interrupted: its result when it succeeds (not -1), else
/// the `errno` it set. The corresponding pattern in swift-system is `valueOrErrno`.
@inline(__always)
func valueOrErrno<T: FixedWidthInteger>(_ call: () -> T) -> Result<T, Errno> {
  while true {
    let value = call()
    if value != -1 { return .success(value) }
    let error = Errno.current
    if error != .interrupted { return .failure(error) }
  }
}

/// ``valueOrErrno(_:)`` for calls whose only result is success.
@inline(__always)
func nothingOrErrno<T: FixedWidthInteger>(_ call: () -> T) throws(Errno) {
  _ = try valueOrErrno(call).get()
}

extension Result where Failure == Errno {
  /// The value, or the `Errno` thrown with its type.
  @inline(__always)
  func get() throws(Errno) -> Success {
    switch self {
    case .success(let value): return value
    case .failure(let error): throw error
    }
  }
}

/// A file's kind, size and identity, as `stat` reports them.
struct FileStatus: Sendable, Equatable {
  enum Kind: Sendable, Equatable {
    case regular, folder, symbolicLink, fifo, characterDevice, blockDevice, socket, unknown

    init(mode: mode_t) {
      switch mode & S_IFMT {
      case S_IFREG: self = .regular
      case S_IFDIR: self = .folder
      case S_IFLNK: self = .symbolicLink
      case S_IFIFO: self = .fifo
      case S_IFCHR: self = .characterDevice
      case S_IFBLK: self = .blockDevice
      case S_IFSOCK: self = .socket
      default: self = .unknown
      }
    }

    /// How a message names it: "a FIFO (named pipe)".
    var described: String {
      switch self {
      case .regular: return "a file"
      case .folder: return "a folder"
      case .symbolicLink: return "a symbolic link"
      case .fifo: return "a FIFO (named pipe)"
      case .characterDevice: return "a character device"
      case .blockDevice: return "a block device"
      case .socket: return "a socket"
      case .unknown: return "not a regular file"
      }
    }
  }

  var kind: Kind
  var size: Int
  /// The device and inode: the same pair is the same file or folder.
  var identity: FileIdentity

  init(_ status: stat) {
    kind = Kind(mode: status.st_mode)
    size = Int(status.st_size)
    identity = FileIdentity(device: UInt(status.st_dev), inode: UInt(status.st_ino))
  }

  /// The status of `path`, of the link itself when `followingLinks` is false. The
  /// corresponding C functions are `stat` and `lstat`.
  static func of(_ path: String, followingLinks: Bool = true) throws(Errno) -> FileStatus {
    var status = stat()
    try nothingOrErrno { PathName.withBytes(of: path) { followingLinks ? stat($0, &status) : lstat($0, &status) } }
    return FileStatus(status)
  }

  /// The status of `path`, or `nil` when it cannot be had (missing, say).
  static func at(_ path: String, followingLinks: Bool = true) -> FileStatus? {
    try? of(path, followingLinks: followingLinks)
  }
}

/// A file or folder as the kernel knows it.
struct FileIdentity: Hashable, Sendable {
  var device: UInt
  var inode: UInt
}

/// An open file descriptor. Not closed by itself: its owner calls ``close()``.
struct FileDescriptor: Sendable {
  let rawValue: Int32

  static let standardInput = FileDescriptor(rawValue: STDIN_FILENO)

  enum Access {
    case readOnly, writeOnly, readWrite

    var flags: Int32 {
      switch self {
      case .readOnly: return O_RDONLY
      case .writeOnly: return O_WRONLY
      case .readWrite: return O_RDWR
      }
    }
  }

  struct Options: OptionSet, Sendable {
    let rawValue: Int32
    /// Create the file when missing.
    static let create = Options(rawValue: O_CREAT)
    /// Fail when the file exists (with `create`).
    static let exclusive = Options(rawValue: O_EXCL)
    /// Do not wait: a FIFO without a writer opens at once.
    static let nonBlocking = Options(rawValue: O_NONBLOCK)
    /// Fail on a final symbolic link instead of following it.
    static let noFollow = Options(rawValue: O_NOFOLLOW)
    /// Fail unless it is a folder.
    static let folder = Options(rawValue: O_DIRECTORY)
    /// Never become the controlling terminal.
    static let noControllingTerminal = Options(rawValue: O_NOCTTY)
  }

  /// Opens `path` (always close-on-exec). The corresponding C function is `open`.
  static func open(
    _ path: String, _ access: Access, options: Options = [], permissions: mode_t = 0o644
  ) throws(Errno) -> FileDescriptor {
    let flags = access.flags | options.rawValue | O_CLOEXEC
    let value = try valueOrErrno { PathName.withBytes(of: path) { Glibc.open($0, flags, permissions) } }.get()
    return FileDescriptor(rawValue: value)
  }

  /// Opens `name` inside the folder open as `folder`: with ``Options/noFollow``, no link in
  /// place of `name` is followed. The corresponding C function is `openat`.
  static func open(
    _ name: String, in folder: FileDescriptor, _ access: Access, options: Options = []
  ) throws(Errno) -> FileDescriptor {
    let flags = access.flags | options.rawValue | O_CLOEXEC
    let value = try valueOrErrno { PathName.withBytes(of: name) { openat(folder.rawValue, $0, flags) } }.get()
    return FileDescriptor(rawValue: value)
  }

  /// The corresponding C function is `close`; its failure is not retried (Linux frees the
  /// descriptor regardless).
  func close() { _ = Glibc.close(rawValue) }

  /// The corresponding C function is `fstat`.
  func status() throws(Errno) -> FileStatus {
    var status = stat()
    try nothingOrErrno { fstat(rawValue, &status) }
    return FileStatus(status)
  }

  /// Makes reads wait again after an open with ``Options/nonBlocking``.
  func setBlocking() {
    let flags = fcntl(rawValue, F_GETFL)
    if flags >= 0 { _ = fcntl(rawValue, F_SETFL, flags & ~O_NONBLOCK) }
  }

  /// Reads into `buffer`: how many bytes, 0 at the end. The corresponding C function is `read`.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    try valueOrErrno { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }.get()
  }

  /// Up to `limit` more bytes, fewer only at the end of the file. `expected` (a file's size)
  /// lets the bytes be read straight into one buffer of the right size, with no copy.
  func read(upTo limit: Int, expected: Int? = nil) throws(Errno) -> [UInt8] {
    // First straight into a buffer of the expected size (or a first chunk of at most 1 MiB).
    let first = min(max(expected ?? (1 << 20), 1), limit)
    var failure: Errno?
    var bytes = [UInt8](unsafeUninitializedCapacity: first) { buffer, initialized in
      while initialized < first {
        do throws(Errno) {
          let got = try read(
            into: UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[initialized..<first]))
          if got == 0 { break }
          initialized += got
        } catch {
          failure = error
          break
        }
      }
    }
    if let failure { throw failure }
    guard bytes.count == first, first < limit else { return bytes }
    // More than expected: on in chunks.
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while bytes.count < limit {
      let want = min(chunk.count, limit - bytes.count)
      let got = try chunk.withUnsafeMutableBufferPointer { (buffer) throws(Errno) in
        try read(into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[0..<want])))
      }
      if got == 0 { break }
      bytes.append(contentsOf: chunk[0..<got])
    }
    return bytes
  }

  /// Up to `count` bytes from `offset`, fewer only at the end of the file; the position of the
  /// descriptor is left as it was. The corresponding C function is `pread`.
  func read(count: Int, at offset: Int) throws(Errno) -> [UInt8] {
    var failure: Errno?
    let bytes = [UInt8](unsafeUninitializedCapacity: max(count, 0)) { buffer, initialized in
      while initialized < count {
        let got = valueOrErrno {
          pread(rawValue, buffer.baseAddress! + initialized, count - initialized, off_t(offset + initialized))
        }
        switch got {
        case .success(let got):
          if got == 0 { return }
          initialized += got
        case .failure(let error):
          failure = error
          return
        }
      }
    }
    if let failure { throw failure }
    return bytes
  }

  /// Writes all of `bytes` at `offset`, leaving the position of the descriptor as it was. The
  /// corresponding C function is `pwrite`.
  func write(all bytes: [UInt8], at offset: Int) throws(Errno) {
    var done = 0
    while done < bytes.count {
      done += try bytes.withUnsafeBytes { buffer in
        valueOrErrno { pwrite(rawValue, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done)) }
      }.get()
    }
  }

  /// Writes all of `bytes`, retrying short writes. The corresponding C function is `write`.
  func write(all bytes: UnsafeRawBufferPointer) throws(Errno) {
    var done = 0
    while done < bytes.count {
      done += try valueOrErrno { Glibc.write(rawValue, bytes.baseAddress! + done, bytes.count - done) }.get()
    }
  }

  /// The corresponding C function is `fsync`.
  func sync() throws(Errno) { try nothingOrErrno { fsync(rawValue) } }

  /// Flushes everything written to the filesystem that holds the open file: its data, its
  /// metadata and every other file's. The corresponding C function is `syncfs`.
  func syncFileSystem() throws(Errno) { try nothingOrErrno { csystemshims_syncfs(rawValue) } }

  enum LockKind {
    case shared, exclusive
  }

  /// Takes an advisory lock on the open file, waiting for it unless `wait` is false (then
  /// ``Errno/wouldBlock`` says another holds it). The kernel drops it when the descriptor is
  /// closed or the process ends. The corresponding C function is `flock`.
  func lock(_ kind: LockKind, wait: Bool = true) throws(Errno) {
    let operation = (kind == .shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB)
    try nothingOrErrno { flock(rawValue, operation) }
  }

  func unlock() { _ = flock(rawValue, LOCK_UN) }
}

/// Operations on paths.
enum FileSystem {
  /// The names in `folder` (not `.` and `..`), in the order of their UTF-8 bytes. The
  /// corresponding C functions are `opendir` and `readdir`.
  static func names(in folder: String) throws(Errno) -> [String] {
    guard let directory = PathName.withBytes(of: folder, { opendir($0) }) else { throw Errno.current }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        PathName.decoding(raw.prefix { $0 != 0 })
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }

  /// Makes a new folder of mode 0700 named `template` with its trailing `XXXXXX` made unique;
  /// its path. The corresponding C function is `mkdtemp`.
  static func makePrivateFolder(named template: String) throws(Errno) -> String {
    var bytes = PathName.withBytes(of: template) { Array(UnsafeBufferPointer(start: $0, count: strlen($0) + 1)) }
    guard let made = bytes.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { throw Errno.current }
    return PathName.decoding(UnsafeRawBufferPointer(start: made, count: strlen(made)))
  }

  /// What the symbolic link at `path` points to; `nil` when `path` is no link. The
  /// corresponding C function is `readlink`.
  static func linkTarget(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = PathName.withBytes(of: path) { readlink($0, &buffer, buffer.count - 1) }
    guard count >= 0 else { return nil }
    return PathName.decoding(buffer.prefix(count).map { UInt8(bitPattern: $0) })
  }

  /// What the filesystem holding `path` allows: whether it is mounted read-only, and how many
  /// bytes and inodes an unprivileged user may still take. The corresponding C function is
  /// `statvfs`.
  static func space(at path: String) -> (readOnly: Bool, freeBytes: UInt64, freeInodes: UInt64)? {
    var status = statvfs()
    guard PathName.withBytes(of: path, { statvfs($0, &status) }) == 0 else { return nil }
    return (
      status.f_flag & UInt(ST_RDONLY) != 0, UInt64(status.f_bavail) * UInt64(status.f_frsize),
      UInt64(status.f_favail)
    )
  }

  /// Copies the file `source` to a new file `destination`, synced, its first bytes replaced
  /// by `header` when one is given. Never on a database file this process has open through
  /// SQLite: closing the descriptor it reads through would drop SQLite's locks on it.
  static func copy(_ source: String, to destination: String, header: [UInt8]? = nil) throws(Errno) {
    let input = try FileDescriptor.open(source, .readOnly, options: .nonBlocking)
    defer { input.close() }
    let output = try FileDescriptor.open(destination, .writeOnly, options: [.create, .exclusive])
    defer { output.close() }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let got = try buffer.withUnsafeMutableBufferPointer { (bytes) throws(Errno) in
        try input.read(into: UnsafeMutableRawBufferPointer(bytes))
      }
      if got == 0 { break }
      try buffer.withUnsafeBufferPointer { (bytes) throws(Errno) in
        try output.write(all: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[0..<got])))
      }
    }
    if let header { try output.write(all: header, at: 0) }
    try output.sync()
  }

  /// Whether this process may write in `path`. The corresponding C function is `access`.
  static func isWritable(_ path: String) -> Bool { PathName.withBytes(of: path) { access($0, W_OK) } == 0 }

  /// Whether anything (a link included, even a broken one) is at `path`.
  static func exists(_ path: String) -> Bool { FileStatus.at(path, followingLinks: false) != nil }

  /// Creates the folder `path`; `false` when it was there already. The corresponding C
  /// function is `mkdir`.
  @discardableResult
  static func makeFolder(_ path: String, permissions: mode_t = 0o755) throws(Errno) -> Bool {
    do {
      try nothingOrErrno { PathName.withBytes(of: path) { mkdir($0, permissions) } }
      return true
    } catch {
      if error == .exists { return false }
      throw error
    }
  }

  /// Removes the file `path`; a missing one is no error. The corresponding C function is
  /// `unlink`.
  static func remove(_ path: String) throws(Errno) {
    do {
      try nothingOrErrno { PathName.withBytes(of: path) { unlink($0) } }
    } catch {
      if error != .noEntry { throw error }
    }
  }

  /// Removes the folder `path` if it is empty; `false` when it is not, or is missing. The
  /// corresponding C function is `rmdir`.
  @discardableResult
  static func removeFolderIfEmpty(_ path: String) throws(Errno) -> Bool {
    do {
      try nothingOrErrno { PathName.withBytes(of: path) { rmdir($0) } }
      return true
    } catch {
      if [.noEntry, .notEmpty, .exists].contains(error) { return false }
      throw error
    }
  }

  /// The corresponding C function is `rename`.
  static func rename(_ path: String, to destination: String) throws(Errno) {
    try nothingOrErrno {
      PathName.withBytes(of: path) { from in PathName.withBytes(of: destination) { Glibc.rename(from, $0) } }
    }
  }

  /// Makes the entries of `folder` durable (after a create, rename or unlink in it).
  static func syncFolder(_ folder: String) throws(Errno) {
    let descriptor = try FileDescriptor.open(folder, .readOnly, options: .folder)
    defer { descriptor.close() }
    try descriptor.sync()
  }

  /// Throws unless this process may list and enter the folder `path`. The corresponding C
  /// function is `access`.
  static func checkCanEnter(_ path: String) throws(Errno) {
    try nothingOrErrno { PathName.withBytes(of: path) { access($0, R_OK | X_OK) } }
  }

  /// The bytes of the file at `path`, read to its end.
  static func readWholeFile(_ path: String) throws(Errno) -> [UInt8] {
    let descriptor = try FileDescriptor.open(path, .readOnly)
    defer { descriptor.close() }
    let status = try descriptor.status()
    if status.kind == .folder { throw Errno.isDirectory }
    // The size is a hint: a file that grew or shrank since is read to its real end.
    return try descriptor.read(upTo: Int.max, expected: status.size + 1)
  }
}

/// The durable write protocol: after it returns, `bytes` are on disk under `path`; if it
/// throws (or the process dies), `path` holds the old file or nothing, never a part.
enum DurableWrite {
  /// Writes `bytes` to a new temporary file `temporary` in the same folder as `path`, syncs it,
  /// renames it over `path` and syncs the folder. `step` runs before each step (a test makes
  /// one fail by throwing). The temporary file is removed when a step fails.
  static func write(
    _ bytes: [UInt8], to path: String, temporary: String,
    step: (FileStep) throws(CatalogueError) -> Void = { (_: FileStep) throws(CatalogueError) in }
  ) throws(CatalogueError) {
    try write(to: path, temporary: temporary, step: step, fill: filler(writing: bytes, to: path))
  }

  /// The protocol for content that `fill` writes into the open temporary file itself (an
  /// archive library writing to a descriptor, say); `fill` must be done with the descriptor
  /// when it returns.
  static func write(
    to path: String, temporary: String,
    step: (FileStep) throws(CatalogueError) -> Void = { (_: FileStep) throws(CatalogueError) in },
    fill: (FileDescriptor) throws(CatalogueError) -> Void
  ) throws(CatalogueError) {
    let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    try fillTemporary(temporary, for: path, synced: true, step: step, fill: fill)
    var renamed = false
    defer { if !renamed { try? FileSystem.remove(temporary) } }
    try step(.rename)
    do {
      try FileSystem.rename(temporary, to: path)
    } catch {
      throw .io(operation: .renameIntoPlace, path: path, code: error.rawValue)
    }
    renamed = true
    try step(.syncFolder)
    do {
      try FileSystem.syncFolder(folder)
    } catch {
      throw .io(operation: .syncFolder, path: folder, code: error.rawValue)
    }
  }

  /// The `fill` that writes `bytes`, for the temporary file of `path`.
  fileprivate static func filler(writing bytes: [UInt8], to path: String)
    -> (FileDescriptor) throws(CatalogueError) -> Void
  {
    { (descriptor) throws(CatalogueError) in
      do throws(Errno) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(Errno) in
          try descriptor.write(all: UnsafeRawBufferPointer(buffer))
        }
      } catch {
        throw .io(operation: .write, path: path, code: error.rawValue)
      }
    }
  }

  /// Creates the temporary file, lets `fill` write it, syncs it when `synced`, and closes it;
  /// removes it when a step fails.
  fileprivate static func fillTemporary(
    _ temporary: String, for path: String, synced: Bool, step: (FileStep) throws(CatalogueError) -> Void,
    fill: (FileDescriptor) throws(CatalogueError) -> Void
  ) throws(CatalogueError) {
    try step(.createTemporary)
    let descriptor: FileDescriptor
    do {
      descriptor = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .exclusive])
    } catch {
      throw .io(operation: .create, path: temporary, code: error.rawValue)
    }
    var filled = false
    defer { if !filled { try? FileSystem.remove(temporary) } }
    defer { descriptor.close() }
    try step(.write)
    try fill(descriptor)
    if synced {
      try step(.syncFile)
      do {
        try descriptor.sync()
      } catch {
        throw .io(operation: .sync, path: path, code: error.rawValue)
      }
    }
    filled = true
  }
}

extension DurableWrite {
  /// A file written by ``stage(_:temporary:step:)``, waiting for ``publish(_:anchor:step:)``.
  struct Staged: Sendable {
    /// Where it goes.
    let path: String
    /// Where it is until then.
    let temporary: String
  }

  /// The first half of a group write: `bytes` in a new temporary file, neither synced nor in
  /// place. The temporary file is removed when a step fails.
  static func stage(
    _ bytes: [UInt8], to path: String, temporary: String,
    step: (FileStep) throws(CatalogueError) -> Void = { (_: FileStep) throws(CatalogueError) in }
  ) throws(CatalogueError) -> Staged {
    try fillTemporary(
      temporary, for: path, synced: false, step: step, fill: filler(writing: bytes, to: path))
    return Staged(path: path, temporary: temporary)
  }

  /// The second half, for many staged files at once: one sync of the filesystem that holds
  /// `anchor` puts every file's data on disk before any is renamed; then each is renamed over
  /// its path; one more sync puts the renames on disk. On return every file is as durable as
  /// after ``write(_:to:temporary:step:)`` — at the cost of two flushes, not two a file. The
  /// filesystem is one because every path lies under `anchor` (a library folder). Temporary
  /// files not renamed are removed when a step fails.
  static func publish(
    _ files: [Staged], anchor: String,
    step: (FileStep, String) throws(CatalogueError) -> Void = { (_: FileStep, _: String) throws(CatalogueError) in }
  ) throws(CatalogueError) {
    var renamed = 0
    defer { for file in files[renamed...] { try? FileSystem.remove(file.temporary) } }
    guard !files.isEmpty else { return }
    try step(.syncFile, files[0].path)
    try syncFileSystem(of: anchor)
    for file in files {
      try step(.rename, file.path)
      do {
        try FileSystem.rename(file.temporary, to: file.path)
      } catch {
        throw .io(operation: .renameIntoPlace, path: file.path, code: error.rawValue)
      }
      renamed += 1
    }
    try step(.syncFolder, files[0].path)
    try syncFileSystem(of: anchor)
  }

  /// Removes staged files that will not be published.
  static func discard(_ files: [Staged]) {
    for file in files { try? FileSystem.remove(file.temporary) }
  }

  private static func syncFileSystem(of anchor: String) throws(CatalogueError) {
    do throws(Errno) {
      let descriptor = try FileDescriptor.open(anchor, .readOnly, options: .folder)
      defer { descriptor.close() }
      try descriptor.syncFileSystem()
    } catch {
      throw .io(operation: .sync, path: anchor, code: error.rawValue)
    }
  }
}

/// The C library's allocator, for strings C libraries hand over (cmark's HTML).
enum CMemory {
  /// The corresponding C function is `free`.
  static func free(_ pointer: UnsafeMutableRawPointer?) { Glibc.free(pointer) }
}

/// Calendar time in UTC.
enum UTCCalendar {
  struct Parts: Equatable {
    var year: Int32
    var month: Int32
    var day: Int32
    var hour: Int32
    var minute: Int32
    var second: Int32
  }

  /// The UTC calendar parts of `seconds` since 1970. The corresponding C function is `gmtime_r`.
  static func parts(of seconds: Int) -> Parts {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    return Parts(
      year: parts.tm_year + 1900, month: parts.tm_mon + 1, day: parts.tm_mday, hour: parts.tm_hour,
      minute: parts.tm_min, second: parts.tm_sec)
  }

  /// Seconds since 1970 of UTC calendar `parts`. The corresponding C function is `timegm`.
  static func seconds(of parts: Parts) -> Int {
    var value = tm()
    value.tm_year = parts.year - 1900
    value.tm_mon = parts.month - 1
    value.tm_mday = parts.day
    value.tm_hour = parts.hour
    value.tm_min = parts.minute
    value.tm_sec = parts.second
    return Int(timegm(&value))
  }
}

/// The calling thread, to tell threads apart.
enum ThreadIdentity {
  /// The corresponding C function is `pthread_self`.
  static var current: UInt { UInt(pthread_self()) }
}
