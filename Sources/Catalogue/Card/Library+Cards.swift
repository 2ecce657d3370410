import ImagePipeline

/// Share cards as the library keeps them: made when first asked for and kept in `cards/`,
/// named by what they show (see ``ShareCard``), like the display renditions.
extension Library {
  /// The path, relative to the library, of `review`'s share card (``ShareCard/name(for:)``),
  /// made now if it is not there: drawn over the cover (its display rendition when that fills
  /// the card, made and kept if missing, else its original) or in the site's colours,
  /// stored by the durable write protocol as `cards/ab/<key>.jpg`.
  ///
  /// Any review may have one, a draft too: who may see it is the caller's to decide. Holds the
  /// library lock shared while it writes, as a rendition does, and checks afterwards, in a
  /// write transaction, that the review still exists: when it went meanwhile, the card is
  /// deleted again and the review is not found. (A review changed meanwhile leaves its old
  /// card unreferenced, for check and repair to delete.) On a library that can only be read,
  /// ``CatalogueError/readOnlyLibrary(path:reason:)``: ``derivedShareCard(for:)`` makes one without
  /// keeping it.
  public func shareCard(for review: Review) throws(CatalogueError) -> String {
    let path = ShareCard.name(for: review)
    if files.size(of: path) != nil { return path }
    try requireWritable()
    let drawn = try drawCard(review)
    var present = false
    do {
      let lock = try LibraryLock(folder: self.path, mode: .shared)
      defer { withExtendedLifetime(lock) {} }
      try files.write(drawn.bytes, to: path)
      try write(interruptible: false) { () throws(CatalogueError) in
        present = try records.review(id: review.id) != nil
      }
      if !present { try? files.remove(path) }
    }
    guard present else { throw .reviewNotFound(review.id) }
    return path
  }

  /// `review`'s share card, made now and kept nowhere: what a library that can only be read
  /// serves in place of the file it cannot store. The file's bytes when it is there already.
  public func derivedShareCard(for review: Review) throws(CatalogueError) -> [UInt8] {
    let path = ShareCard.name(for: review)
    if files.size(of: path) != nil, let bytes = try? files.read(path) { return bytes }
    return try drawCard(review, keeping: false).bytes
  }

  /// Draws `review`'s card over its cover (see ``coverSource(of:keeping:)``).
  private func drawCard(_ review: Review, keeping: Bool = true) throws(CatalogueError) -> ShareCard.Drawn {
    var cover: (bytes: [UInt8], name: String)?
    if let image = review.cover?.image { cover = try coverSource(of: image, keeping: keeping) }
    return try ShareCard.draw(
      ShareCard.Content(review), cover: cover?.bytes, coverName: cover?.name ?? "", review: review.id,
      options: decodeOptions)
  }

  /// What a card is drawn from: the picture's display rendition when it fills the card (made
  /// now if missing, and kept when `keeping`), else the original.
  ///
  /// A review page shows the rendition, so it is there already when a link to the page is
  /// shared: a 1600-pixel JPEG decodes in a few milliseconds where a 24-megapixel original
  /// takes a hundred, even at 1/4 scale, and a HEIC more. Which one is used follows from the
  /// picture's size alone, so the same review always gives the same card.
  private func coverSource(of image: StoredImage, keeping: Bool) throws(CatalogueError) -> (
    bytes: [UInt8], name: String
  ) {
    let rendition = Self.displaySpec.size(forUprightWidth: image.width, height: image.height)
    guard rendition.width >= ShareCard.width && rendition.height >= ShareCard.height else {
      return (try files.read(image.original), image.original)
    }
    if keeping {
      let path = try displayRendition(of: image.sha256)
      return (try files.read(path), path)
    }
    if let path = existingDisplayRendition(of: image.sha256), let bytes = try? files.read(path) {
      return (bytes, path)
    }
    guard let made = try derivedPicture(of: image.sha256, spec: Self.displaySpec) else {
      throw .imageNotInLibrary(sha256: image.sha256)
    }
    return (made.bytes, image.original)
  }

  /// The cards the reviews' records name: one for each review, whatever it shows now.
  func referencedShareCards() throws(CatalogueError) -> Set<String> {
    var covers: [String: String] = [:]
    var firsts: [String: String] = [:]
    for (review, _, cover, link) in try records.links() {
      if cover { covers[review] = link.sha256 }
      if firsts[review] == nil { firsts[review] = link.sha256 }
    }
    var names = Set<String>()
    for row in try records.allReviews() {
      // A category no build writes (check reports the record) is drawn as stored.
      let category = Category(rawValue: row.category)?.displayName ?? row.category
      let content = ShareCard.Content(
        title: row.title, rating: row.rating, category: category, cover: covers[row.id] ?? firsts[row.id])
      names.insert(LibraryLayout.shareCard(key: ShareCard.key(for: content)))
    }
    return names
  }
}
