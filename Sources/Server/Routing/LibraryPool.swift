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
  /// The PostgreSQL database given on the command line, if any.
  let database: String?
  /// Why the library could be opened only to read, when it could (see ``Library/readOnlyReason``).
  let readOnlyReason: ReadOnlyReason?
  private let idle = Mutex<[Lent]>([])
  private let lastFileSizeCap: Atomic<Int>
  private let lastPublicURL: Mutex<PublicURL?>
  /// Told when something may have changed in the library since a connection last looked.
  private let changed: @Sendable () -> Void

  /// The page cache of a connection: small, and no memory-mapped reads, so that a server that
  /// has served every page of a large library still holds little memory.
  static let cacheBytes = 4 << 20

  /// Opens the library once to check it (and bring an older schema up to date: the server
  /// writes), keeping that connection as the first of the pool. `changed` hears of every
  /// change a connection notices (see ``PageCache``).
  init(path: String, database: String? = nil, changed: @escaping @Sendable () -> Void = {}) throws(CatalogueError) {
    self.path = path
    self.database = database
    self.changed = changed
    let first = try Library(opening: path, upgrading: true, database: database)
    readOnlyReason = first.readOnlyReason
    lastFileSizeCap = Atomic(first.fileSizeCap)
    lastPublicURL = Mutex(first.publicURL)
    try first.limitMemory(cacheBytes: Self.cacheBytes)
    idle.withLock { $0.append(Lent(first)) }
  }

  /// Runs `body` with a library of its own, whose writes are recorded as `author`'s. The
  /// library's settings are read again first when another process changed them.
  func with<T>(author: String?, _ body: (Library) throws(CatalogueError) -> T) throws(CatalogueError) -> T {
    let lent = try borrow()
    defer { giveBack(lent) }
    let library = lent.library
    if try library.refreshIfChanged() {
      lastFileSizeCap.store(library.fileSizeCap, ordering: .relaxed)
      let url = library.publicURL
      lastPublicURL.withLock { $0 = url }
      changed()
    }
    library.author = author
    defer { library.author = nil }
    return try body(library)
  }

  /// The library's file-size cap as a connection last read it, without borrowing one.
  var fileSizeCap: Int { lastFileSizeCap.load(ordering: .relaxed) }

  /// The library's public URL setting as a connection last read it, without borrowing one.
  var publicURL: PublicURL? { lastPublicURL.withLock { $0 } }

  /// Looks whether the library changed since the connection lent last looked.
  func look() throws(CatalogueError) {
    try with(author: nil) { _ in }
  }

  private func borrow() throws(CatalogueError) -> Lent {
    if let lent = idle.withLock({ $0.popLast() }) { return lent }
    let library = try Library(opening: path, upgrading: false, database: database)
    try library.limitMemory(cacheBytes: Self.cacheBytes)
    // A new connection cannot tell what was committed before it opened.
    changed()
    return Lent(library)
  }

  private func giveBack(_ lent: Lent) {
    idle.withLock { $0.append(lent) }
  }

  /// Closes the idle connections, once no request runs: the last connection to the library
  /// that closes checkpoints the write-ahead log and removes it with its index, so that a
  /// server stopped cleanly leaves no `-wal` or `-shm` beside the database.
  func close() {
    let closing = idle.withLock { lent in
      defer { lent.removeAll() }
      return lent
    }
    withExtendedLifetime(closing) {}
  }
}
