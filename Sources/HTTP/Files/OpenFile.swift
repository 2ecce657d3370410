public import Foundation
import Glibc
import Synchronization

/// An open regular file, closed when the last reference goes (or handed to libmicrohttpd).
///
/// A response built from it (``HTTPResponse/Body/file(_:offset:length:)``) is sent with
/// `sendfile` from this descriptor: the bytes sent are those of the file that was opened, even
/// when the path is replaced meanwhile.
public final class OpenFile: Sendable {
  public let size: Int
  public let modified: Date
  /// `modified` in whole seconds since 1970, as HTTP dates have it.
  let modifiedSeconds: Int64
  /// The descriptor; -1 once handed over.
  private let descriptor: Atomic<Int32>

  private init(descriptor: Int32, size: Int, modifiedSeconds: Int64, nanoseconds: Int) {
    self.descriptor = Atomic(descriptor)
    self.size = size
    self.modifiedSeconds = modifiedSeconds
    modified = Date(timeIntervalSince1970: TimeInterval(modifiedSeconds) + TimeInterval(nanoseconds) / 1e9)
  }

  deinit {
    let fd = descriptor.load(ordering: .relaxed)
    if fd >= 0 { System.closeFile(fd) }
  }

  /// Opens `path` read-only without following a final symlink and without blocking; nil when
  /// it is missing, not a regular file, or cannot be opened.
  ///
  /// `O_NONBLOCK` keeps a FIFO in the file's place from stalling the server; it changes nothing
  /// for a regular file's reads.
  public static func open(_ path: String) -> OpenFile? {
    let fd = System.openFile(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    return try? regularFile(fd)
  }

  /// Opens `relativePath` (folders and a file name joined by `/`) read-only beneath `folder`,
  /// following no symlink in any of its components, the folders on the way included: a store
  /// folder replaced by a link to a folder elsewhere leads nowhere.
  ///
  /// One `openat2` with `RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH` where the kernel has it (Linux
  /// 5.6), else a walk that opens each folder relative to the last with `O_NOFOLLOW |
  /// O_DIRECTORY`. Throws `.missing` when nothing is there, so that a caller may make the file;
  /// anything else (a link, a FIFO, a folder, a system error) is a refusal.
  public static func open(_ relativePath: String, beneath folder: Folder) throws(OpenFailure) -> OpenFile {
    let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
    if openat2Works.load(ordering: .relaxed) {
      let fd = System.openFileBeneath(relativePath, in: folder.descriptor, flags)
      if fd >= 0 { return try regularFile(fd) }
      let code = errno
      // ENOSYS: a kernel before 5.6; EPERM: a seccomp filter that does not know the call.
      guard code == ENOSYS || code == EPERM else { throw OpenFailure(code) }
      openat2Works.store(false, ordering: .relaxed)
    }
    return try walk(relativePath, beneath: folder, flags: flags)
  }

  /// Whether `openat2` has worked so far; cleared the first time the kernel lacks it.
  private static let openat2Works = Atomic<Bool>(true)

  /// ``open(_:beneath:)`` without `openat2`: each folder opened relative to the last with
  /// `O_DIRECTORY | O_NOFOLLOW` (a link fails with ELOOP or ENOTDIR), then the file with
  /// `O_NOFOLLOW`. Internal so that tests can take this path on any kernel.
  static func walk(_ relativePath: String, beneath folder: Folder, flags: Int32) throws(OpenFailure) -> OpenFile {
    let components = relativePath.split(separator: "/", omittingEmptySubsequences: false)
    // Only plain names: the walk cannot leave the folder, as RESOLVE_BENEATH promises.
    guard let name = components.last,
      components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." })
    else { throw .refused(code: EINVAL) }
    var current = folder.descriptor
    defer { if current != folder.descriptor { System.closeFile(current) } }
    for component in components.dropLast() {
      let next = System.openFile(String(component), in: current, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      guard next >= 0 else { throw OpenFailure(errno) }
      if current != folder.descriptor { System.closeFile(current) }
      current = next
    }
    let fd = System.openFile(String(name), in: current, flags)
    guard fd >= 0 else { throw OpenFailure(errno) }
    return try regularFile(fd)
  }

  /// Takes `fd` when it is a regular file; closes it otherwise.
  private static func regularFile(_ fd: Int32) throws(OpenFailure) -> OpenFile {
    guard let status = System.regularFileStatus(fd) else {
      System.closeFile(fd)
      throw .notARegularFile
    }
    return OpenFile(
      descriptor: fd, size: status.size, modifiedSeconds: status.seconds, nanoseconds: status.nanoseconds)
  }

  /// A descriptor of the file for libmicrohttpd, which closes it: this one when `lastReference`
  /// (nobody else can use it afterwards), else a duplicate. -1 when none can be had.
  func descriptorForResponse(lastReference: Bool) -> Int32 {
    if lastReference {
      return descriptor.exchange(-1, ordering: .relaxed)
    }
    let fd = descriptor.load(ordering: .relaxed)
    guard fd >= 0 else { return -1 }
    return System.duplicateFile(fd)
  }
}

/// Why ``OpenFile/open(_:beneath:)`` opened nothing.
public enum OpenFailure: Error, Sendable, Equatable {
  /// Nothing is at the path (ENOENT): a file not made yet, say.
  case missing
  /// The path leads through a symlink, or the system refused it; `code` is the `errno`
  /// (ELOOP or ENOTDIR for a link).
  case refused(code: Int32)
  /// What is there is a folder, a FIFO, a device: never served.
  case notARegularFile

  init(_ code: Int32) {
    self = code == ENOENT ? .missing : .refused(code: code)
  }

  /// The `errno` that says it (ENOENT for `.missing`, EINVAL for `.notARegularFile`).
  public var code: Int32 {
    switch self {
    case .missing: return ENOENT
    case .refused(let code): return code
    case .notARegularFile: return EINVAL
    }
  }
}

/// A folder held open, that files are opened beneath (``OpenFile/open(_:beneath:)``): named
/// once, when it is opened, so that what lies below it is reached from this folder and no other.
public final class Folder: Sendable {
  let descriptor: Int32

  /// Opens the folder at `path` (a link to a folder is followed here: the path is the
  /// caller's own choice).
  public init(path: String) throws(OpenFailure) {
    let fd = System.openFile(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw OpenFailure(errno) }
    descriptor = fd
  }

  deinit { System.closeFile(descriptor) }
}

/// A temporary file holding one uploaded part; removed when the last reference goes
/// (and in any case when the request is over).
///
/// A service that keeps the upload moves or copies it during `respond(to:)`; the path is gone
/// once the response has been sent.
public final class UploadedFile: Sendable {
  public let path: String
  public let size: Int
  private let removed = Atomic<Bool>(false)

  /// Takes charge of the file at `path`, which holds `size` bytes: it is removed with this
  /// object.
  public init(path: String, size: Int) {
    self.path = path
    self.size = size
  }

  deinit { remove() }

  /// Removes the file now (once; later calls do nothing).
  public func remove() {
    if !removed.exchange(true, ordering: .relaxed) { System.removeFile(path) }
  }
}
