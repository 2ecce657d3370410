import Synchronization

/// A step of the durable write protocol, named so that tests can make any one of them fail.
public enum FileStep: String, Sendable, CaseIterable {
  case createFolder
  case createTemporary
  case write
  case syncFile
  case rename
  case syncFolder
}

/// Where a library keeps its files (originals and thumbnails), by path relative to the library.
///
/// The only implementation today is the local folder; the protocol is the seam for a shared
/// store later. Every write is atomic and durable: after `write` returns, the file is complete
/// on disk under its name; if it throws (or the process dies), the name holds the old file or
/// nothing, never a partial one.
public protocol FileStore: AnyObject, Sendable {
  /// Writes `bytes` at `path`: a temporary file in the same folder, synced, renamed over
  /// `path`, the folder synced.
  func write(_ bytes: [UInt8], to path: String) throws(CatalogueError)
  /// Writes `bytes` for `path` to a temporary file beside it, neither synced nor in place: one
  /// of a group that ``publish(_:)`` makes durable at once (a rebuild writes hundreds).
  func stage(_ bytes: [UInt8], for path: String) throws(CatalogueError) -> StagedFile
  /// Puts staged files in place, as durable on return as `write` makes one, with two flushes
  /// for the whole group instead of two a file. Staged files left out by a failure are removed.
  func publish(_ files: [StagedFile]) throws(CatalogueError)
  /// Removes staged files that will not be published.
  func discard(_ files: [StagedFile])
  /// Starts a file whose name is known only once it is whole (an original, named by the hash
  /// of its bytes, written as they are read): a new temporary file in the store, written by
  /// ``IncomingFile/append(_:)``, then put in place by ``place(_:at:)`` or removed.
  func incoming() throws(CatalogueError) -> IncomingFile
  /// Puts an incoming file in place at `path`, as durable on return as `write` makes a file:
  /// its data synced, renamed over `path`, the folder synced. Removed when a step fails.
  func place(_ file: IncomingFile, at path: String) throws(CatalogueError)
  /// The size of the file at `path`, or `nil` when there is none.
  func size(of path: String) -> Int?
  func read(_ path: String) throws(CatalogueError) -> [UInt8]
  /// The SHA-256 of the file at `path`, read a chunk at a time (never whole in memory).
  func digest(of path: String) throws(CatalogueError) -> String
  /// Moves a file, creating the destination's folder; durable like `write`.
  func move(_ path: String, to destination: String) throws(CatalogueError)
  func remove(_ path: String) throws(CatalogueError)
  /// Removes the folder at `path` if it is there and empty; leaves it otherwise.
  func removeFolderIfEmpty(_ path: String) throws(CatalogueError)
  /// The names in `folder` itself (`""`: the store's root), files and folders, in byte order.
  func names(in folder: String) throws(CatalogueError) -> [String]
  /// Makes the store's root for a new library: refused when something that is not a folder is
  /// there, or a folder that holds anything.
  func makeEmptyRoot() throws(CatalogueError)
  /// Every file below `folder`, as paths relative to the store, in name order.
  func files(under folder: String) throws(CatalogueError) -> [String]
  /// The path a user can open, for messages and output.
  func location(of path: String) -> String
  /// What the entry at `path` points to when it is a symbolic link, else `nil`. `files(under:)`
  /// lists a link as an entry and never goes through it.
  func linkTarget(of path: String) -> String?
}

extension FileStore {
  /// A store without links has none to tell.
  public func linkTarget(of path: String) -> String? { nil }
}

/// A file written by ``FileStore/stage(_:for:)``, not yet in place.
public struct StagedFile: Sendable {
  /// Where it goes, relative to the store.
  public let path: String
  let staged: DurableWrite.Staged
}

/// A file being written into a store under a temporary name until it is whole (see
/// ``FileStore/incoming()``). One thread writes it at a time; it may be handed to another to
/// be put in place. A file neither placed nor discarded is removed when the last reference to
/// it goes, as a file descriptor is closed by its owner's `deinit`: an import stopped half-way
/// leaves none behind.
public final class IncomingFile: Sendable {
  /// Its temporary name, relative to the store.
  let temporary: String
  /// Its temporary name, as the system knows it.
  let location: String
  private let descriptor: Mutex<FileDescriptor?>

  init(temporary: String, location: String, descriptor: FileDescriptor) {
    self.temporary = temporary
    self.location = location
    self.descriptor = Mutex(descriptor)
  }

  deinit { discard() }

  /// Writes `bytes` after those written so far.
  func append(_ bytes: UnsafeRawBufferPointer) throws(CatalogueError) {
    try descriptor.withLock { (descriptor) throws(CatalogueError) in
      guard let open = descriptor else {
        throw .internalFailure("\(location) was written after it was placed or discarded")
      }
      do throws(Errno) {
        try open.write(all: bytes)
      } catch {
        throw .io(operation: .write, path: location, code: error.rawValue)
      }
    }
  }

  /// Syncs the data written and closes the file, for it to be renamed into place. The
  /// corresponding C function is `fsync`.
  func syncAndClose() throws(CatalogueError) {
    try descriptor.withLock { (descriptor) throws(CatalogueError) in
      guard let open = descriptor else {
        throw .internalFailure("\(location) was placed twice, or after it was discarded")
      }
      descriptor = nil
      defer { open.close() }
      do throws(Errno) {
        try open.sync()
      } catch {
        throw .io(operation: .sync, path: location, code: error.rawValue)
      }
    }
  }

  /// Closes and removes the file, unless it was placed.
  func discard() {
    guard let open = descriptor.withLock({ $0.take() }) else { return }
    open.close()
    try? FileSystem.remove(location)
  }
}

/// Where each kind of file lives in a library folder.
public enum LibraryLayout {
  public static let database = "catalogue.sqlite"
  /// In the folder of a library whose records are in a PostgreSQL database instead: where that
  /// database is, a URL on one line (`catalogue init --database URL` writes it).
  public static let databaseLocation = "catalogue.database"
  public static let originals = "originals"
  public static let thumbnails = "thumbnails"
  public static let cards = "cards"
  public static let lostAndFound = "lost+found"
  /// Temporary files of the write protocol start with this; a crash can leave them behind.
  public static let temporaryPrefix = ".tmp-"

  /// `originals/ab/<sha256>.<jpg|png>`: named by content, so a picture is stored once.
  public static func original(sha256: String, fileExtension: String) -> String {
    "\(originals)/\(sha256.prefix(2))/\(sha256).\(fileExtension)"
  }

  /// `thumbnails/ab/<sha256>-<spec>.<jpg|png>`: derived from the original and the spec.
  public static func thumbnail(sha256: String, spec: String, fileExtension: String) -> String {
    "\(thumbnails)/\(sha256.prefix(2))/\(sha256)-\(spec).\(fileExtension)"
  }

  /// `cards/ab/<key>.jpg`: a review's share card, named by the SHA-256 of what it shows
  /// (``ShareCard/key(for:)``).
  public static func shareCard(key: String) -> String {
    "\(cards)/\(key.prefix(2))/\(key).jpg"
  }

  /// What the name of a picture made for screens of twice the density carries after its spec.
  public static let highDensityMark = "@2x"

  /// `thumbnails/ab/<sha256>-<spec>@2x.<jpg|png>`: the picture `spec` describes at twice the
  /// density (``ThumbnailSpec/highDensity``), named after the spec it doubles.
  public static func highDensityThumbnail(sha256: String, spec: String, fileExtension: String) -> String {
    thumbnail(sha256: sha256, spec: spec + highDensityMark, fileExtension: fileExtension)
  }
}
