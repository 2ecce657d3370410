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
    if fd >= 0 { close(fd) }
  }

  /// Opens `path` read-only without following a final symlink and without blocking; nil when
  /// it is missing, not a regular file, or cannot be opened.
  ///
  /// `O_NONBLOCK` keeps a FIFO in the file's place from stalling the server; it changes nothing
  /// for a regular file's reads.
  public static func open(_ path: String) -> OpenFile? {
    let fd = System.retrying { Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
    guard fd >= 0 else { return nil }
    var status = stat()
    guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      return nil
    }
    return OpenFile(
      descriptor: fd, size: Int(status.st_size), modifiedSeconds: Int64(status.st_mtim.tv_sec),
      nanoseconds: Int(status.st_mtim.tv_nsec))
  }

  /// A descriptor of the file for libmicrohttpd, which closes it: this one when `lastReference`
  /// (nobody else can use it afterwards), else a duplicate. -1 when none can be had.
  func descriptorForResponse(lastReference: Bool) -> Int32 {
    if lastReference {
      return descriptor.exchange(-1, ordering: .relaxed)
    }
    let fd = descriptor.load(ordering: .relaxed)
    guard fd >= 0 else { return -1 }
    return fcntl(fd, F_DUPFD_CLOEXEC, 0)
  }
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
    if !removed.exchange(true, ordering: .relaxed) { unlink(path) }
  }
}
