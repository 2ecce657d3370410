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

  private static func key(_ folder: String) -> String { "\(folder)\u{0}\(ThreadIdentity.current)" }

  private let descriptor: FileDescriptor
  private let key: String
  private let mode: Mode

  enum Mode {
    case shared
    case exclusive
  }

  init(folder: String, mode: Mode) throws(CatalogueError) {
    if mode == .exclusive && Self.sharedHeld.withLock({ $0[Self.key(folder), default: 0] > 0 }) {
      throw .internalFailure(
        "the library lock of \(folder) was asked for exclusive while this process holds it shared")
    }
    let path = "\(folder)/\(Self.fileName)"
    let descriptor: FileDescriptor
    do {
      descriptor = try FileDescriptor.open(path, .readWrite, options: .create)
    } catch {
      throw .io(operation: .openLock, path: path, code: error.rawValue)
    }
    do {
      try descriptor.lock(mode == .shared ? .shared : .exclusive)
    } catch {
      descriptor.close()
      throw .io(operation: .lock, path: path, code: error.rawValue)
    }
    self.descriptor = descriptor
    self.key = Self.key(folder)
    self.mode = mode
    if mode == .shared { Self.sharedHeld.withLock { [key] in $0[key, default: 0] += 1 } }
  }

  deinit {
    if mode == .shared { Self.sharedHeld.withLock { [key] in $0[key, default: 1] -= 1 } }
    descriptor.unlock()
    descriptor.close()
  }
}
