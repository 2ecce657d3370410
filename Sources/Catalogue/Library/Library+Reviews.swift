public import Foundation
import ImagePipeline

/// How a list of reviews is filtered, ordered and cut into pages.
public struct ReviewQuery: Sendable, Equatable {
  public enum Sort: String, Sendable, CaseIterable {
    case title
    case rating
    case created
    case updated
    /// Best match first; only with a search.
    case relevance
  }

  /// Which reviews a list shows: readers see only published ones.
  public enum Showing: String, Sendable, CaseIterable {
    case published
    case drafts
    case all
  }

  public var category: Category?
  public var minimumRating: Int?
  public var favoritesOnly: Bool
  /// Words, `prefix*` and `"phrases"` that must occur in the title or body.
  public var search: String?
  /// `nil`: by relevance when searching, else newest first.
  public var sort: Sort?
  /// Reverses the sort's natural order (A–Z, highest rating, newest, best match).
  public var reversed: Bool
  public var limit: Int
  public var offset: Int
  /// Published reviews only unless asked: whatever lists for a reader must never show a
  /// draft, so that is what a query forgets to say.
  public var showing: Showing
  /// Only the reviews this reviewer wrote (their name, matched in any ASCII case against who
  /// created each), with every other filter, order and search.
  public var author: String?

  public init(
    category: Category? = nil, minimumRating: Int? = nil, favoritesOnly: Bool = false,
    search: String? = nil, sort: Sort? = nil, reversed: Bool = false, limit: Int = 50,
    offset: Int = 0, showing: Showing = .published, author: String? = nil
  ) {
    self.author = author
    self.category = category
    self.minimumRating = minimumRating
    self.favoritesOnly = favoritesOnly
    self.search = search
    self.sort = sort
    self.reversed = reversed
    self.limit = limit
    self.offset = offset
    self.showing = showing
  }
}

/// One review as a list shows it.
public struct ReviewSummary: Sendable, Equatable {
  public var id: String
  public var title: String
  public var rating: Int
  public var category: Category
  public var favorite: Bool
  public var created: Date
  public var updated: Date
  public var imageCount: Int
  public var cover: StoredImage?
  /// The cover's description (see ``PictureText``), or `nil`.
  public var coverAlt: String?
  /// Who created and last changed it (see ``Review/createdBy``).
  public var createdBy: String?
  public var updatedBy: String?
  /// See ``Review/containsSpoilers``.
  public var containsSpoilers: Bool
  /// See ``Review/published``.
  public var published: Date?

  /// Whether it is a draft.
  public var isDraft: Bool { published == nil }
}

/// A page of a list, with how many reviews match in all.
public struct ReviewPage: Sendable, Equatable {
  public var reviews: [ReviewSummary]
  public var total: Int
  public var offset: Int
  /// Whether `total` is an estimate (in two significant digits): a search by relevance that
  /// matches more reviews than it ranks is not counted to the last (``SearchQuery``).
  public var totalIsEstimate = false
}

extension Library {
  // MARK: Create, edit, delete

  /// Adds a review. The draft is validated first; every problem is reported at once.
  @discardableResult
  public func create(_ draft: ReviewDraft, now: Date = Date()) throws(CatalogueError) -> Review {
    try review(create([draft], now: now)[0])
  }

  /// Adds many reviews in one transaction (all or none) and returns their ids in order. A draft
  /// with problems fails the whole call; the error names its position when there are several.
  @discardableResult
  public func create(_ drafts: [ReviewDraft], now: Date = Date()) throws(CatalogueError) -> [String] {
    var rows: [ReviewFields] = []
    rows.reserveCapacity(drafts.count)
    for (index, draft) in drafts.enumerated() {
      do {
        rows.append(try draft.validated())
      } catch {
        guard drafts.count > 1, case .invalidReview(let problems) = error else { throw error }
        throw .invalidReview(problems.map { "review \(index + 1): \($0)" })
      }
    }
    return try write { () throws(CatalogueError) -> [String] in
      var ids: [String] = []
      for (draft, fields) in zip(drafts, rows) {
        if !draft.newCategory { try checkNewCategory(fields.category.rawValue) }
        ids.append(try insertReview(fields, id: nil, created: now, updated: now, published: draft.publish ? now : nil))
      }
      return ids
    }
  }

  /// Inserts a review under `id` (a fresh random one when `nil`) with the given times, inside
  /// the caller's write transaction (imports keep a review's story); `published` `nil` makes it
  /// a draft. Returns the id.
  func insertReview(_ fields: ReviewFields, id: String?, created: Date, updated: Date, published: Date?)
    throws(CatalogueError) -> String
  {
    if let id {
      guard
        try records.insertReview(
          id: id, fields, created: created, updated: updated, published: published, author: author)
      else {
        throw .reviewExists(id: id, title: try records.reviewTitle(id: id) ?? "")
      }
      return id
    }
    for _ in 0..<8 {
      let id = randomHex(8)
      if try records.insertReview(
        id: id, fields, created: created, updated: updated, published: published, author: author)
      {
        return id
      }
    }
    throw .internalFailure("could not find a free review id in 8 draws; is the random generator broken?")
  }

  /// Replaces a review's fields with `draft`'s (validated as for `create`).
  @discardableResult
  public func update(_ reference: String, with draft: ReviewDraft, now: Date = Date())
    throws(CatalogueError) -> Review
  {
    let fields = try draft.validated()
    let id = try write { () throws(CatalogueError) -> String in
      let id = try resolve(reference)
      try records.updateReview(id: id, fields, updated: now, author: author)
      return id
    }
    return try review(id)
  }

  /// Changes the fields `changes` gives and keeps the others, reading and writing in one
  /// transaction, so that a change another command made between a reader's look and this
  /// write is never lost. The result is validated as ``create(_:now:)`` validates a draft.
  /// Changes that change nothing leave the review (and its updated time) as it was.
  /// Publishing or taking back to a draft (``ReviewChanges/publish``) leaves the updated time.
  ///
  /// With `version` (``Review/version`` as the editor saw it), a review changed since is not
  /// written over: ``CatalogueError/reviewChanged(id:title:by:)``, unless the changes leave it
  /// as it is now.
  @discardableResult
  public func update(_ reference: String, changes: ReviewChanges, from version: String? = nil, now: Date = Date())
    throws(CatalogueError) -> Review
  {
    let id = try write { () throws(CatalogueError) -> String in
      let id = try resolve(reference)
      guard let row = try records.review(id: id) else { throw .reviewNotFound(reference) }
      // Publishing a published review keeps its time; a draft keeps none.
      if changes.publish == true && row.draft {
        try records.setPublished(id: id, now)
      } else if changes.publish == false && (!row.draft || row.published != nil) {
        try records.setPublished(id: id, nil)
      }
      let current = ReviewDraft(
        title: row.title, body: row.body, rating: row.rating, category: row.category, favorite: row.favorite,
        containsSpoilers: row.containsSpoilers)
      let changed = changes.applied(to: current)
      guard changed != current else { return id }
      let fields = try changed.validated()
      let result = ReviewDraft(fields)
      guard result != current else { return id }
      if !changes.newCategory && result.category != current.category { try checkNewCategory(result.category) }
      if let version, version != current.version {
        // The fields as the editor saw them, sent back as they were: nothing of the editor's
        // to save, and the change made meanwhile stays.
        if result.version == version { return id }
        throw .reviewChanged(id: id, title: row.title, by: row.updatedBy)
      }
      try records.updateReview(id: id, fields, updated: now, author: author)
      return id
    }
    return try review(id)
  }

  /// Deletes a review for good, with its links to images; pictures no other review uses lose
  /// their records, and their files become unreferenced (see ``unreferencedFiles()``).
  /// Returns the deleted review as it was.
  @discardableResult
  public func delete(_ reference: String) throws(CatalogueError) -> Review {
    let (removed, released) = try write { () throws(CatalogueError) -> (Review, [String]) in
      let review = try review(resolve(reference))
      try records.deleteReview(id: review.id)
      return (review, try deleteUnusedImageRecords(review.images.map(\.image.sha256)))
    }
    try discardFiles(of: Set(released))
    return removed
  }

  /// The categories the library's reviews use (its published ones, with `publishedOnly`: what
  /// a reader may know of), the known kinds first in their order, then the other labels in
  /// byte order: what a filter offers.
  public func categoriesInUse(publishedOnly: Bool = false) throws(CatalogueError) -> [Category] {
    let used = Set(try records.categoryLabels(publishedOnly: publishedOnly).compactMap(Category.init(rawValue:)))
    let known = Category.known.filter(used.contains)
    let others = used.subtracting(known).sorted { $0.rawValue.utf8.lexicographicallyPrecedes($1.rawValue.utf8) }
    return known + others
  }

  /// Refuses a category label that the library has never used and that looks like a typo of
  /// a known kind or a label in use ("moive" for movie), with the suggestion. A label that is
  /// known, in use, or far from every other passes. The one place the rule is kept: `create`
  /// and `update` ask it unless the draft or the changes say `newCategory`.
  func checkNewCategory(_ label: String) throws(CatalogueError) {
    guard let category = Category(rawValue: label), !category.isKnown else { return }
    let used = try records.categoryLabels(publishedOnly: false).compactMap(Category.init(rawValue:))
    guard !used.contains(category) else { return }
    if let suggestion = category.nearMiss(among: Category.known + used) {
      throw .unknownCategory(category.rawValue, suggestion: suggestion.rawValue)
    }
  }

  // MARK: Reading

  /// How many leading digits name each of `ids` uniquely in the library, at least `minimum`
  /// (git widens its abbreviations the same way): one more than the longest prefix one of
  /// them shares with its neighbours in id order. Two index look-ups an id; a long page reads
  /// every id once instead.
  public func uniqueIDLength(of ids: [String], minimum: Int = 8) throws(CatalogueError) -> Int {
    func shared(_ a: String, _ b: String) -> Int {
      zip(a.utf8, b.utf8).prefix { $0 == $1 }.count
    }
    var longest = 0
    if ids.count > 1000 {
      let all = try records.reviewIDs(byID: true, publishedOnly: false)
      for (previous, next) in zip(all, all.dropFirst()) { longest = max(longest, shared(previous, next)) }
    } else {
      for id in ids {
        for other in try records.neighbourIDs(of: id) { longest = max(longest, shared(id, other)) }
      }
    }
    return min(max(minimum, longest + 1), 16)
  }

  /// The full id of the review `reference` names: an id, or a unique prefix of at least four
  /// digits (as git takes commit ids). With `publishedOnly` (a reader's look), drafts are not
  /// there at all: a draft's id is not found, and a prefix is not ambiguous for one.
  public func resolve(_ reference: String, publishedOnly: Bool = false) throws(CatalogueError) -> String {
    let prefix = reference.lowercased()
    guard (4...16).contains(prefix.utf8.count),
      prefix.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
    else { throw .badReviewReference(reference) }
    let matches = try records.reviewIDs(withPrefix: prefix, limit: 5, publishedOnly: publishedOnly)
    switch matches.count {
    case 0: throw .reviewNotFound(reference)
    case 1: return matches[0]
    default: throw .ambiguousReview(prefix: reference, candidates: matches)
    }
  }

  /// The review `reference` names, with its images. With `publishedOnly` (what a reader may
  /// see), a draft is not found, exactly as an id no review has.
  public func review(_ reference: String, publishedOnly: Bool = false) throws(CatalogueError) -> Review {
    let id = try resolve(reference, publishedOnly: publishedOnly)
    return try read { () throws(CatalogueError) -> Review in
      guard let row = try records.review(id: id), !(publishedOnly && row.draft) else {
        throw .reviewNotFound(reference)
      }
      let created = try RecordValue.time(row.created, "created", of: row.id)
      return Review(
        id: row.id, title: row.title, body: row.body, rating: row.rating,
        category: try RecordValue.category(row.category, of: row.id), favorite: row.favorite,
        created: created, updated: try RecordValue.time(row.updated, "updated", of: row.id),
        images: try images(of: id), createdBy: row.createdBy, updatedBy: row.updatedBy,
        containsSpoilers: row.containsSpoilers,
        published: try RecordValue.published(row.published, draft: row.draft, created: created, of: row.id),
        sources: try sources(of: id))
    }
  }

  /// Where review `id` was imported from.
  func sources(of id: String) throws(CatalogueError) -> [ReviewSource] {
    var sources: [ReviewSource] = []
    for row in try records.reviewSources(ofReview: id) {
      sources.append(
        ReviewSource(
          source: row.source, sourceID: row.id, rating: row.rating,
          imported: try RecordValue.time(row.imported, "imported", of: id)))
    }
    return sources
  }

  /// A review's images in order.
  func images(of id: String) throws(CatalogueError) -> [ReviewImage] {
    var images: [ReviewImage] = []
    for (position, cover, image, link) in try records.imageRows(ofReview: id) {
      images.append(
        ReviewImage(
          position: position, image: try storedImage(image), isCover: cover,
          text: PictureText(alt: link.alt, caption: link.caption), name: link.name))
    }
    return images
  }

  /// A stored image from its record's columns; a value no build writes is a damaged record.
  func storedImage(_ row: ImageRow) throws(CatalogueError) -> StoredImage {
    if let made = storedImages[row.sha256], made.row == row { return made.image }
    let image = try makeStoredImage(row)
    if storedImages.count >= Self.storedImageLimit { storedImages.removeAll(keepingCapacity: true) }
    storedImages[row.sha256] = (row, image)
    return image
  }

  /// Makes what ``storedImage(_:)`` gives.
  private func makeStoredImage(_ row: ImageRow) throws(CatalogueError) -> StoredImage {
    let what = "image \(row.sha256.prefix(12))"
    let format = try RecordValue.format(row.format, of: what)
    let thumbnailFormat = try RecordValue.format(row.thumbnailFormat, of: what)
    guard let orientation = Orientation(rawValue: row.orientation) else {
      throw .damagedRecord(what, problem: "orientation \(row.orientation) is not 1 to 8")
    }
    let highDensity = thumbnailSpec.highDensity.size(forUprightWidth: row.width, height: row.height)
    return StoredImage(
      sha256: row.sha256, format: format, width: row.width, height: row.height, orientation: orientation,
      bytes: row.bytes, thumbnailFormat: thumbnailFormat, thumbnailWidth: row.thumbnailWidth,
      thumbnailHeight: row.thumbnailHeight, imported: try RecordValue.time(row.imported, "imported", of: what),
      colorSpace: row.colorSpace,
      original: LibraryLayout.original(sha256: row.sha256, fileExtension: format.fileExtension),
      thumbnail: LibraryLayout.thumbnail(
        sha256: row.sha256, spec: thumbnailSpec.name, fileExtension: thumbnailFormat.fileExtension),
      highDensityThumbnail: LibraryLayout.highDensityThumbnail(
        sha256: row.sha256, spec: thumbnailSpec.name, fileExtension: thumbnailFormat.fileExtension),
      highDensityThumbnailWidth: highDensity.width, highDensityThumbnailHeight: highDensity.height)
  }

  /// The `limit` newest published reviews by the time they were published (a draft published
  /// today is newer than a review written yesterday), of `category` and by `author` (a
  /// reviewer's name, in any case) when given, whole (body, pictures and all), read from one
  /// snapshot: what a feed holds.
  public func newestPublished(category: Category? = nil, author: String? = nil, limit: Int = 50)
    throws(CatalogueError) -> [Review]
  {
    try read { () throws(CatalogueError) -> [Review] in
      try records.newestPublishedIDs(category: category?.rawValue, author: author, limit: limit).map {
        (id) throws(CatalogueError) -> Review in try review(id, publishedOnly: true)
      }
    }
  }

  /// A page of reviews matching `query`.
  public func list(_ query: ReviewQuery = ReviewQuery()) throws(CatalogueError) -> ReviewPage {
    try query.validate()
    let search = try query.search.map { (text) throws(CatalogueError) in try SearchQuery.parse(text) }
    return try read { () throws(CatalogueError) -> ReviewPage in
      let (total, totalIsEstimate, rows) = try records.page(query, search: search, rankingWindow: rankingWindow)
      var reviews: [ReviewSummary] = []
      for row in rows {
        var cover: StoredImage?
        if let image = row.cover { cover = try storedImage(image) }
        let created = try RecordValue.time(row.created, "created", of: row.id)
        reviews.append(
          ReviewSummary(
            id: row.id, title: row.title, rating: row.rating,
            category: try RecordValue.category(row.category, of: row.id), favorite: row.favorite,
            created: created, updated: try RecordValue.time(row.updated, "updated", of: row.id),
            imageCount: row.imageCount, cover: cover, coverAlt: row.coverAlt, createdBy: row.createdBy,
            updatedBy: row.updatedBy, containsSpoilers: row.containsSpoilers,
            published: try RecordValue.published(row.published, draft: row.draft, created: created, of: row.id)))
      }
      return ReviewPage(reviews: reviews, total: total, offset: query.offset, totalIsEstimate: totalIsEstimate)
    }
  }

  /// Deletes the image records among `hashes` that no review uses any more, and returns their
  /// hashes: their files are for ``discardFiles(of:)`` once the transaction has committed.
  @discardableResult
  func deleteUnusedImageRecords(_ hashes: [String]) throws(CatalogueError) -> [String] {
    try records.deleteUnlinkedImages(hashes)
  }
}

/// Stored values read back: one that no build writes means the record is damaged (edited by
/// hand, or a broken disk), which is reported, never read as a default.
enum RecordValue {
  static func category(_ text: String, of id: String) throws(CatalogueError) -> Category {
    guard let category = Category(rawValue: text) else {
      throw .damagedRecord("review \(id)", problem: "category \"\(text)\" is not a category label")
    }
    return category
  }

  static func time(_ text: String, _ name: String, of what: String) throws(CatalogueError) -> Date {
    guard let date = DateText.parse(text) else {
      throw .damagedRecord(
        what.count == 16 ? "review \(what)" : what, problem: "\(name) time \"\(text)\" is not a time")
    }
    return date
  }

  /// When a review was published: `nil` for a draft; its created time when the record keeps
  /// none (schema 9).
  static func published(_ text: String?, draft: Bool, created: Date, of id: String) throws(CatalogueError) -> Date? {
    guard !draft else { return nil }
    guard let text else { return created }
    return try time(text, "published", of: id)
  }

  static func format(_ text: String, of what: String) throws(CatalogueError) -> ImageFormat {
    guard let format = ImageFormat(rawValue: text), format.isSupported else {
      throw .damagedRecord(what, problem: "format \"\(text)\" is not one the library stores")
    }
    return format
  }
}
