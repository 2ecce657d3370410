public import ImagePipeline

/// Pictures as the server shows them: the list thumbnails, and display renditions for the
/// review page, each at 1× and 2×, made from the original when first asked for (if missing)
/// and kept in `thumbnails/`.
extension Library {
  /// The spec of display renditions: longest edge 1600, the whole picture, JPEG quality 85,
  /// progressive (a little smaller at this size, and a browser shows it whole at once, coarse
  /// first). So HEIC, AVIF and 20-megapixel originals show in every browser. Its 2× rendition
  /// (``ThumbnailSpec/highDensity``: 3200, never larger than the original) is made for
  /// high-density screens, on its own when first asked for.
  public static let displaySpec = ThumbnailSpec(longestEdge: 1600, mode: .fit, quality: 85, progressive: true)

  /// The image record of a picture, or `nil` when the library has none (or `sha256` is not a
  /// digest).
  public func storedImage(sha256: String) throws(CatalogueError) -> StoredImage? {
    guard SHA256.isDigest(sha256) else { return nil }
    guard let row = try records.imageRow(sha256: sha256) else { return nil }
    return try storedImage(row)
  }

  /// The path a display rendition of the picture `sha256` has in `format` (JPEG, or PNG when
  /// the picture has transparency), at 1× or 2×.
  static func displayRenditionPath(of sha256: String, highDensity: Bool, format: ImageFormat) -> String {
    highDensity
      ? LibraryLayout.highDensityThumbnail(sha256: sha256, spec: displaySpec.name, fileExtension: format.fileExtension)
      : LibraryLayout.thumbnail(sha256: sha256, spec: displaySpec.name, fileExtension: format.fileExtension)
  }

  /// The paths a display rendition of the picture `sha256` may have at 1× or 2×.
  static func displayRenditionPaths(of sha256: String, highDensity: Bool) -> [String] {
    [ImageFormat.jpeg, .png].map { displayRenditionPath(of: sha256, highDensity: highDensity, format: $0) }
  }

  /// Every path a display rendition of the picture `sha256` may have, with the spec it is made to.
  static func displayRenditions(of sha256: String) -> [(path: String, spec: ThumbnailSpec)] {
    displayRenditionPaths(of: sha256, highDensity: false).map { ($0, displaySpec) }
      + displayRenditionPaths(of: sha256, highDensity: true).map { ($0, displaySpec.highDensity) }
  }

  /// The display rendition's path (at 2× with `highDensity`), relative to the library, if it
  /// exists already (no work, no record read); else `nil`.
  public func existingDisplayRendition(of sha256: String, highDensity: Bool = false) -> String? {
    guard SHA256.isDigest(sha256) else { return nil }
    return Self.displayRenditionPaths(of: sha256, highDensity: highDensity).first { files.size(of: $0) != nil }
  }

  /// The path, relative to the library, of the display rendition of the picture `sha256`
  /// (``displaySpec``, or its ``ThumbnailSpec/highDensity`` twin with `highDensity`), made now
  /// if it is not there: from the original, by the library's pipeline (upright, sRGB, never
  /// enlarged; JPEG, or PNG when transparent), stored by the durable write protocol as
  /// `thumbnails/ab/<sha>-<spec>.<jpg|png>` (`<spec>@2x` at 2×).
  ///
  /// Holds the library lock shared while it writes, as an import does, and checks afterwards
  /// that the picture's record still exists: a remove or detach that deleted it meanwhile
  /// either finds the file when its cleanup runs, or this deletes it again at once. Two
  /// threads or processes asking at once both succeed (each renames a whole file into place).
  /// An unknown picture is ``CatalogueError/imageNotInLibrary(sha256:)``.
  public func displayRendition(of sha256: String, highDensity: Bool = false) throws(CatalogueError) -> String {
    guard let image = try storedImage(sha256: sha256) else { throw .imageNotInLibrary(sha256: sha256) }
    if let existing = existingDisplayRendition(of: sha256, highDensity: highDensity) { return existing }
    if thumbnailSpec == Self.displaySpec { return try thumbnailFile(of: sha256, highDensity: highDensity) }
    let (thumbnail, path) = try Self.makeRendition(
      of: ImageRecord(image), spec: highDensity ? Self.displaySpec.highDensity : Self.displaySpec,
      options: decodeOptions, store: files
    ) { Self.displayRenditionPath(of: sha256, highDensity: highDensity, format: $0) }
    try keepDerived([(thumbnail.bytes, path)], of: sha256) { () throws(CatalogueError) in }
    return path
  }

  /// A picture derived from the original of `sha256` at `spec` (the display spec, or the
  /// library's thumbnail spec; its 2× twin with `highDensity`), made now and kept nowhere:
  /// what a library that can only be read shows in place of a file it cannot store. Nil for a
  /// picture the library does not have.
  public func derivedPicture(of sha256: String, spec: ThumbnailSpec, highDensity: Bool = false)
    throws(CatalogueError) -> Thumbnail?
  {
    guard let image = try storedImage(sha256: sha256) else { return nil }
    let record = ImageRecord(image)
    if spec == thumbnailSpec {
      // Made as the library makes its thumbnails: the pair, from one decode.
      let made = try Self.makeThumbnails(of: record, spec: spec, options: decodeOptions, store: files)
      return highDensity ? made.highDensity : made.thumbnail
    }
    return try Self.makeRendition(
      of: record, spec: highDensity ? spec.highDensity : spec, options: decodeOptions, store: files
    ) { _ in "" }.thumbnail
  }

  /// The path, relative to the library, of the list thumbnail of the picture `sha256` at the
  /// library's spec (its 2× thumbnail with `highDensity`): the existing file, or, when it is
  /// missing, both made again from the original, the missing ones stored and the 1× one
  /// recorded. Writes as ``displayRendition(of:highDensity:)`` does.
  public func thumbnailFile(of sha256: String, highDensity: Bool = false) throws(CatalogueError) -> String {
    guard let image = try storedImage(sha256: sha256) else { throw .imageNotInLibrary(sha256: sha256) }
    let wanted = highDensity ? image.highDensityThumbnail : image.thumbnail
    if files.size(of: wanted) != nil { return wanted }
    let made = try Self.makeThumbnails(
      of: ImageRecord(image), spec: thumbnailSpec, options: decodeOptions, store: files)
    // A thumbnail in place under the name the record gives stays: a browser may hold it already.
    let writes = made.files.filter { made.path != image.thumbnail || files.size(of: $0.path) == nil }
    try keepDerived(writes, of: sha256) { () throws(CatalogueError) in
      if writes.contains(where: { $0.path == made.path }) { try recordThumbnail(made.thumbnail, of: sha256) }
    }
    return highDensity ? made.highDensityPath : made.path
  }

  /// Writes files derived from the picture `sha256` under the shared library lock, then, in
  /// one transaction, checks that the picture is still recorded and runs `record`. When the
  /// record went meanwhile, the picture's files are discarded by the one cleanup (which waits
  /// for the exclusive lock and checks the record again) and the error says so.
  private func keepDerived(
    _ derived: [(bytes: [UInt8], path: String)], of sha256: String, record: () throws(CatalogueError) -> Void
  ) throws(CatalogueError) {
    var recorded = false
    do {
      let lock = try LibraryLock(folder: self.path, mode: .shared)
      defer { withExtendedLifetime(lock) {} }
      for file in derived { try files.write(file.bytes, to: file.path) }
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
