public import ImagePipeline

/// Pictures as the server shows them: the list thumbnail, and a display rendition for the
/// review page, both made from the original when first asked for and kept in `thumbnails/`.
extension Library {
  /// The spec of display renditions: longest edge 1600, the whole picture, JPEG quality 85,
  /// progressive (a little smaller at this size, and a browser shows it whole at once, coarse
  /// first). So HEIC, AVIF and 20-megapixel originals show in every browser.
  public static let displaySpec = ThumbnailSpec(longestEdge: 1600, mode: .fit, quality: 85, progressive: true)

  /// The image record of a picture, or `nil` when the library has none (or `sha256` is not a
  /// digest).
  public func storedImage(sha256: String) throws(CatalogueError) -> StoredImage? {
    guard SHA256.isDigest(sha256) else { return nil }
    guard let row = try records.imageRow(sha256: sha256) else { return nil }
    return try storedImage(row)
  }

  /// The paths a display rendition of the picture `sha256` may have: JPEG, or PNG when the
  /// picture has transparency.
  static func displayRenditionPaths(of sha256: String) -> [String] {
    ["jpg", "png"].map { LibraryLayout.thumbnail(sha256: sha256, spec: displaySpec.name, fileExtension: $0) }
  }

  /// The display rendition's path, relative to the library, if it exists already (no work,
  /// no record read); else `nil`.
  public func existingDisplayRendition(of sha256: String) -> String? {
    guard SHA256.isDigest(sha256) else { return nil }
    return Self.displayRenditionPaths(of: sha256).first { files.size(of: $0) != nil }
  }

  /// The path, relative to the library, of the display rendition of the picture `sha256`
  /// (``displaySpec``), made now if it is not there: from the original, by the library's
  /// pipeline (upright, sRGB, never enlarged; JPEG, or PNG when transparent), stored by the
  /// durable write protocol as `thumbnails/ab/<sha>-<spec>.<jpg|png>`.
  ///
  /// Holds the library lock shared while it writes, as an import does, and checks afterwards
  /// that the picture's record still exists: a remove or detach that deleted it meanwhile
  /// either finds the file when its cleanup runs, or this deletes it again at once. Two
  /// threads or processes asking at once both succeed (each renames a whole file into place).
  /// An unknown picture is ``CatalogueError/imageNotInLibrary(sha256:)``.
  public func displayRendition(of sha256: String) throws(CatalogueError) -> String {
    guard let image = try storedImage(sha256: sha256) else { throw .imageNotInLibrary(sha256: sha256) }
    if let existing = existingDisplayRendition(of: sha256) { return existing }
    if thumbnailSpec == Self.displaySpec { return try thumbnailFile(of: sha256) }
    let spec = Self.displaySpec
    let (thumbnail, path) = try Self.makeThumbnail(
      of: ImageRecord(image), spec: spec, options: decodeOptions, store: files)
    try keepDerived(thumbnail.bytes, at: path, of: sha256) { () throws(CatalogueError) in }
    return path
  }

  /// A picture derived from the original of `sha256` at `spec` (the display spec, or the
  /// library's thumbnail spec), made now and kept nowhere: what a library that can only be
  /// read shows in place of a file it cannot store. Nil for a picture the library does not
  /// have.
  public func derivedPicture(of sha256: String, spec: ThumbnailSpec) throws(CatalogueError) -> Thumbnail? {
    guard let image = try storedImage(sha256: sha256) else { return nil }
    return try Self.makeThumbnail(of: ImageRecord(image), spec: spec, options: decodeOptions, store: files).thumbnail
  }

  /// The path, relative to the library, of the list thumbnail of the picture `sha256` at the
  /// library's spec: the existing file, or one made again from the original and stored (and
  /// recorded) when it is missing. Writes as ``displayRendition(of:)`` does.
  public func thumbnailFile(of sha256: String) throws(CatalogueError) -> String {
    guard let image = try storedImage(sha256: sha256) else { throw .imageNotInLibrary(sha256: sha256) }
    if files.size(of: image.thumbnail) != nil { return image.thumbnail }
    let (thumbnail, path) = try Self.makeThumbnail(
      of: ImageRecord(image), spec: thumbnailSpec, options: decodeOptions, store: files)
    try keepDerived(thumbnail.bytes, at: path, of: sha256) { () throws(CatalogueError) in
      try recordThumbnail(thumbnail, of: sha256)
    }
    return path
  }

  /// Writes a file derived from the picture `sha256` under the shared library lock, then, in
  /// one transaction, checks that the picture is still recorded and runs `record`. When the
  /// record went meanwhile, the picture's files are discarded by the one cleanup (which waits
  /// for the exclusive lock and checks the record again) and the error says so.
  private func keepDerived(
    _ bytes: [UInt8], at path: String, of sha256: String, record: () throws(CatalogueError) -> Void
  ) throws(CatalogueError) {
    var recorded = false
    do {
      let lock = try LibraryLock(folder: self.path, mode: .shared)
      defer { withExtendedLifetime(lock) {} }
      try files.write(bytes, to: path)
      try write(interruptible: false) { () throws(CatalogueError) in
        recorded = try records.hasImage(sha256: sha256)
        if recorded { try record() }
      }
    }
    if !recorded {
      try discardFiles(of: [sha256])
      throw .imageNotInLibrary(sha256: sha256)
    }
  }
}

extension ImageRecord {
  /// The record of a stored picture, for the paths and checks that work on records.
  init(_ image: StoredImage) {
    self.init(
      row: ImageRow(
        sha256: image.sha256, format: image.format.rawValue, width: image.width, height: image.height,
        orientation: image.orientation.rawValue, bytes: image.bytes, thumbnailFormat: image.thumbnailFormat.rawValue,
        thumbnailWidth: image.thumbnailWidth, thumbnailHeight: image.thumbnailHeight, imported: "",
        colorSpace: image.colorSpace),
      reviews: [])
  }
}
