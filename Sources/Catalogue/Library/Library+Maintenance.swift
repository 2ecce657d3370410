public import Foundation
import ImagePipeline

extension Library {
  /// Files in the library folder's stores that no record accounts for: originals of pictures
  /// no review uses, thumbnails of such pictures or of another thumbnail spec, and temporary
  /// files a crash left behind. Paths relative to the library folder, in name order.
  public func unreferencedFiles() throws(CatalogueError) -> [String] {
    let (originals, thumbnails) = try read { () throws(CatalogueError) in
      try referencedFiles()
    }
    return try storedFiles().filter { !originals.contains($0) && !thumbnails.contains($0) }
  }

  /// Removes the unreferenced files. Originals and temporary files (which may hold a picture a
  /// user wants back) are moved into `lost+found/` inside the library; thumbnails, which can
  /// always be made again, are deleted. Each file is checked again under the write lock
  /// before it goes, and no import can be half-way meanwhile (they hold the library lock).
  /// Returns what was removed.
  @discardableResult
  public func removeUnreferencedFiles(now: Date = Date()) throws(CatalogueError) -> [String] {
    let lock = try LibraryLock(folder: path, mode: .exclusive)
    defer { withExtendedLifetime(lock) {} }
    return try write(interruptible: false) { () throws(CatalogueError) -> [String] in
      let (originals, thumbnails) = try referencedFiles()
      let stamp = DateText.format(now).replacingOccurrences(of: ":", with: "-")
      var removed: [String] = []
      for file in try storedFiles() where !originals.contains(file) && !thumbnails.contains(file) {
        if file.hasPrefix(LibraryLayout.thumbnails + "/") && !Self.isTemporary(file) {
          try files.remove(file)
        } else {
          try files.move(file, to: "\(LibraryLayout.lostAndFound)/\(stamp)/\(file)")
        }
        removed.append(file)
      }
      return removed
    }
  }

  static func isTemporary(_ path: String) -> Bool {
    path.split(separator: "/").last?.hasPrefix(LibraryLayout.temporaryPrefix) ?? false
  }

  /// Every file under `originals/` and `thumbnails/`.
  func storedFiles() throws(CatalogueError) -> [String] {
    try files.files(under: LibraryLayout.originals) + files.files(under: LibraryLayout.thumbnails)
  }

  /// The files the image records account for, with the current thumbnail spec.
  func referencedFiles() throws(CatalogueError) -> (originals: Set<String>, thumbnails: Set<String>) {
    referencedFiles(try imageRecords())
  }

  /// The files `records` account for, with the current thumbnail spec.
  func referencedFiles(_ records: [ImageRecord]) -> (originals: Set<String>, thumbnails: Set<String>) {
    let spec = thumbnailSpec
    return (Set(records.map(\.originalPath)), Set(records.map { $0.thumbnailPath(spec: spec) }))
  }
}
