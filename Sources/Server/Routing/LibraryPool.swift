import Catalogue
import Synchronization

/// Open libraries, one per request at a time: a `Library` (and its SQLite connection) has one
/// owner, so each request borrows one, and returns it when done. SQLite in WAL mode lets the
/// readers run side by side; writers take their turn as separate processes do (`BEGIN
/// IMMEDIATE` with the busy timeout), so the server and the command line share a library
/// safely.
final class LibraryPool: Sendable {
  /// A library lent to one request at a time. Unchecked: the pool hands each one to a single
  /// borrower and takes it back before lending it again.
  private final class Lent: @unchecked Sendable {
    let library: Library
    init(_ library: Library) { self.library = library }
  }

  let path: String
  private let idle = Mutex<[Lent]>([])

  /// Opens the library once to check it (and bring an older schema up to date: the server
  /// writes), keeping that connection as the first of the pool.
  init(path: String) throws(CatalogueError) {
    self.path = path
    let first = try Library(opening: path, upgrading: true)
    idle.withLock { $0.append(Lent(first)) }
  }

  /// Runs `body` with a library of its own, whose writes are recorded as `author`'s. The
  /// library's settings are read again first when another process changed them.
  func with<T>(author: String?, _ body: (Library) throws(CatalogueError) -> T) throws(CatalogueError) -> T {
    let lent = try borrow()
    defer { giveBack(lent) }
    let library = lent.library
    try library.refreshIfChanged()
    library.author = author
    defer { library.author = nil }
    return try body(library)
  }

  private func borrow() throws(CatalogueError) -> Lent {
    if let lent = idle.withLock({ $0.popLast() }) { return lent }
    return Lent(try Library(opening: path, upgrading: false))
  }

  private func giveBack(_ lent: Lent) {
    idle.withLock { $0.append(lent) }
  }
}
