import Glibc
import Synchronization

/// An advisory lock on the library folder (`flock` on `catalogue.lock`), which the kernel
/// releases when the process ends, however it ends.
///
/// Imports hold it shared from their first file write until their records are committed;
/// removing unreferenced files holds it exclusive. So a file that an import has written but
/// not yet linked is never taken for an orphan.
final class LibraryLock {
  static let fileName = "catalogue.lock"

  /// Shared locks held, by folder and thread. An `flock` taken on a second descriptor
  /// conflicts with the process's own first one, so a thread that asks for the exclusive lock
  /// while it holds the shared one would wait for itself forever: that is refused as an error
  /// instead. (Another thread of the process just waits, as another process would.)
  private static let sharedHeld = Mutex<[String: Int]>([:])

  private static func key(_ folder: String) -> String { "\(folder)\u{0}\(pthread_self())" }

  private let descriptor: Int32
  private let key: String
  private let mode: Mode

  enum Mode {
    case shared
    case exclusive
  }

  init(folder: String, mode: Mode) throws(CatalogueError) {
    if mode == .exclusive && Self.sharedHeld.withLock({ $0[Self.key(folder), default: 0] > 0 }) {
      throw .invalidArgument(
        "internal error: the library lock of \(folder) was asked for exclusive while this process holds it shared")
    }
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
    self.key = Self.key(folder)
    self.mode = mode
    if mode == .shared { Self.sharedHeld.withLock { [key] in $0[key, default: 0] += 1 } }
  }

  deinit {
    if mode == .shared { Self.sharedHeld.withLock { [key] in $0[key, default: 1] -= 1 } }
    flock(descriptor, LOCK_UN)
    close(descriptor)
  }
}
