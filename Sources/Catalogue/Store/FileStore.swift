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
  /// The size of the file at `path`, or `nil` when there is none.
  func size(of path: String) -> Int?
  func read(_ path: String) throws(CatalogueError) -> [UInt8]
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

/// Where each kind of file lives in a library folder.
public enum LibraryLayout {
  public static let database = "catalogue.sqlite"
  public static let originals = "originals"
  public static let thumbnails = "thumbnails"
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
}
