public import Foundation
import ImagePipeline

extension Library {
  /// Files in the library folder's stores that no record accounts for: originals of pictures
  /// no review uses, thumbnails and display renditions of such pictures, thumbnails of another
  /// spec, share cards of what no review shows now, and temporary files a crash left behind. Paths relative to the library folder, in name order.
  public func unreferencedFiles() throws(CatalogueError) -> [String] {
    let (originals, thumbnails) = try read { () throws(CatalogueError) in
      try referencedFiles()
    }
    return try storedFiles().filter { !originals.contains($0) && !thumbnails.contains($0) }
  }

  /// Removes the unreferenced files by the one rule (see ``sweepUnreferenced(_:dryRun:now:)``).
  /// Returns what was removed.
  @discardableResult
  public func removeUnreferencedFiles(now: Date = Date()) throws(CatalogueError) -> [String] {
    try sweepUnreferenced(nil, now: now).map(\.file)
  }

  /// What the sweep did, or with a dry run would do, with one file.
  struct SweptFile {
    var file: String
    /// "deleted F" or "moved F to lost+found/…".
    var action: String
  }

  /// The one cleanup of files in the stores that no record accounts for, by the repair rules:
  /// a thumbnail or share card named as the store names them is deleted (it can always be made again);
  /// anything else (an original, a temporary file that may hold a picture, a file of the
  /// user's) is moved to `lost+found/<time>/` inside the library. Looks at `candidates` (paths
  /// relative to the library), or every stored file when `nil`, and checks each again under
  /// the exclusive library lock inside a write transaction, so that no import is between
  /// writing a file and linking it. Not interruptible: it is what cleanups run.
  func sweepUnreferenced(_ candidates: [String]?, dryRun: Bool = false, now: Date = Date())
    throws(CatalogueError) -> [SweptFile]
  {
    let lock = try LibraryLock(folder: path, mode: .exclusive)
    defer { withExtendedLifetime(lock) {} }
    return try write(interruptible: false) { () throws(CatalogueError) -> [SweptFile] in
      let (originals, thumbnails) = try referencedFiles()
      let stamp = DateText.fileStamp(now)
      var swept: [SweptFile] = []
      var looked = candidates ?? []
      if candidates == nil { looked = try storedFiles() }
      for file in looked
      where files.size(of: file) != nil && !originals.contains(file) && !thumbnails.contains(file) {
        if Self.isDerived(file) && Self.isStoreName(file) {
          if !dryRun { try files.remove(file) }
          swept.append(SweptFile(file: file, action: "deleted \(file)"))
        } else {
          let destination = "\(LibraryLayout.lostAndFound)/\(stamp)/\(file)"
          if !dryRun { try files.move(file, to: destination) }
          swept.append(SweptFile(file: file, action: "moved \(file) to \(destination)"))
        }
      }
      return swept
    }
  }

  static func isTemporary(_ path: String) -> Bool {
    path.split(separator: "/").last?.hasPrefix(LibraryLayout.temporaryPrefix) ?? false
  }

  /// Whether `path` is under a folder of files made from others (thumbnails, renditions, share
  /// cards), which a sweep deletes rather than keeps.
  static func isDerived(_ path: String) -> Bool {
    path.hasPrefix(LibraryLayout.thumbnails + "/") || path.hasPrefix(LibraryLayout.cards + "/")
  }

  /// Every file under `originals/`, `thumbnails/` and `cards/`.
  func storedFiles() throws(CatalogueError) -> [String] {
    try files.files(under: LibraryLayout.originals) + files.files(under: LibraryLayout.thumbnails)
      + files.files(under: LibraryLayout.cards)
  }

  /// The files the records account for, with the current thumbnail spec: the share cards of
  /// the reviews as they are now count among the derived files.
  func referencedFiles() throws(CatalogueError) -> (originals: Set<String>, thumbnails: Set<String>) {
    let (originals, thumbnails) = referencedFiles(try imageRecords())
    return (originals, thumbnails.union(try referencedShareCards()))
  }

  /// The files `records` account for: originals, thumbnails of the current spec (1× and 2×),
  /// and the display renditions a server may have made (optional, so named whether made or not).
  func referencedFiles(_ records: [ImageRecord]) -> (originals: Set<String>, thumbnails: Set<String>) {
    let spec = thumbnailSpec
    var thumbnails = Set(records.map { $0.thumbnailPath(spec: spec) })
    for record in records {
      thumbnails.insert(record.highDensityThumbnailPath(spec: spec))
      thumbnails.formUnion(Self.displayRenditions(of: record.sha256).map(\.path))
    }
    return (Set(records.map(\.originalPath)), thumbnails)
  }
}
