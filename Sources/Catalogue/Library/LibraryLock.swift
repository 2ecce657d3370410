import Glibc

/// An advisory lock on the library folder (`flock` on `catalogue.lock`), which the kernel
/// releases when the process ends, however it ends.
///
/// Imports hold it shared from their first file write until their records are committed;
/// removing unreferenced files holds it exclusive. So a file that an import has written but
/// not yet linked is never taken for an orphan.
final class LibraryLock {
  static let fileName = "catalogue.lock"

  private let descriptor: Int32

  enum Mode {
    case shared
    case exclusive
  }

  init(folder: String, mode: Mode) throws(CatalogueError) {
    let path = "\(folder)/\(Self.fileName)"
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw .io(operation: "open the lock", path: path, code: errno) }
    while flock(descriptor, mode == .shared ? LOCK_SH : LOCK_EX) != 0 {
      if errno == EINTR { continue }
      let code = errno
      close(descriptor)
      throw .io(operation: "lock", path: path, code: code)
    }
    self.descriptor = descriptor
  }

  deinit {
    flock(descriptor, LOCK_UN)
    close(descriptor)
  }
}
