import ImagePipeline
import Synchronization

/// A request to stop, from SIGINT or SIGTERM. The executable's signal handler records it;
/// library work checks it at safe points (between pictures, before a commit) and stops with
/// ``CatalogueError/interrupted``, so that a command cleans up after itself instead of dying
/// half-way.
public enum Interruption {
  private static let received = Atomic<Int32>(0)

  /// Records that `signal` asked the command to stop.
  public static func request(signal: Int32) { received.store(signal, ordering: .sequentiallyConsistent) }

  /// The signal that asked to stop, if one did.
  public static var signal: Int32? {
    let value = received.load(ordering: .sequentiallyConsistent)
    return value == 0 ? nil : value
  }

  /// Throws ``CatalogueError/interrupted`` once a stop was asked for.
  static func check() throws(CatalogueError) {
    if signal != nil { throw .interrupted }
  }
}

extension Library {
  /// Runs an import: `body` holds the library lock shared, as every import does from its first
  /// file write until its records are committed, and ``store(_:)`` notes each picture whose
  /// files it writes. Afterwards, with the lock released, the files of those pictures that no
  /// record needs go again: all of them when `body` failed or was interrupted, those refused at
  /// the link (already attached, say) when it succeeded.
  func importing<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T {
    writtenByImport = []
    defer { writtenByImport = nil }
    // An import copies each picture into the originals' folder as it reads it, making the folder
    // in a library that has none yet: when nothing stays in it, it goes again.
    let hadOriginals = (try? files.names(in: LibraryLayout.originals)) != nil
    func locked() throws(CatalogueError) -> T {
      let lock = try LibraryLock(folder: path, mode: .shared)
      defer { withExtendedLifetime(lock) {} }
      return try body()
    }
    let result: T
    do {
      result = try locked()
    } catch {
      discardFilesAfterFailure(of: writtenByImport ?? [])
      if !hadOriginals { removeOriginalsFolderIfEmpty() }
      throw error
    }
    try discardFiles(of: writtenByImport ?? [])
    if !hadOriginals { removeOriginalsFolderIfEmpty() }
    return result
  }

  /// Removes the originals' folder if it is empty, holding the library lock exclusive so that
  /// no import is between making it and copying a picture into it.
  private func removeOriginalsFolderIfEmpty() {
    guard (try? files.names(in: LibraryLayout.originals))?.isEmpty == true else { return }
    do {
      let lock = try LibraryLock(folder: path, mode: .exclusive)
      defer { withExtendedLifetime(lock) {} }
      try files.removeFolderIfEmpty(LibraryLayout.originals)
    } catch {
      // An empty folder left behind is harmless: `check` finds nothing in it.
    }
  }

  /// Deletes the files of the pictures among `hashes` that have no record: their originals and
  /// their thumbnails of every spec. Called after a commit that deleted records (remove,
  /// detach, replace), and after a command that wrote files failed or was interrupted before
  /// it linked them. Holds the library lock exclusive, so that no import is between writing
  /// its files and linking them, and re-checks each picture's record inside a write
  /// transaction. Not interruptible: it is what an interruption runs.
  func discardFiles(of hashes: Set<String>) throws(CatalogueError) {
    // Pictures with a record keep their files; when all have one, no lock is needed.
    var unrecorded: [String] = []
    for hash in hashes where !(try records.hasImage(sha256: hash)) { unrecorded.append(hash) }
    guard !unrecorded.isEmpty else { return }
    let lock = try LibraryLock(folder: path, mode: .exclusive)
    defer { withExtendedLifetime(lock) {} }
    try write(interruptible: false) { () throws(CatalogueError) in
      for hash in unrecorded.sorted() {
        let recorded = try records.hasImage(sha256: hash)
        if recorded { continue }
        for format in ImageFormat.allCases where format.isSupported {
          try files.remove(LibraryLayout.original(sha256: hash, fileExtension: format.fileExtension))
        }
        let folder = "\(LibraryLayout.thumbnails)/\(hash.prefix(2))"
        for file in try files.files(under: folder) where file.hasPrefix("\(folder)/\(hash)-") && Self.isStoreName(file)
        {
          try files.remove(file)
        }
        // A shard folder the command made for these files goes with them when it is empty.
        try files.removeFolderIfEmpty("\(LibraryLayout.originals)/\(hash.prefix(2))")
        try files.removeFolderIfEmpty(folder)
      }
    }
  }

  /// ``discardFiles(of:)`` on a failure path: the failure is what the caller reports, so a
  /// cleanup that fails too leaves its files for `check` to name as leftovers.
  func discardFilesAfterFailure(of hashes: Set<String>) {
    do {
      try discardFiles(of: hashes)
    } catch {
      // The original error is the one to report; `check --repair` reclaims what is left.
    }
  }
}
