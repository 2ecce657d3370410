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

  public init(
    category: Category? = nil, minimumRating: Int? = nil, favoritesOnly: Bool = false,
    search: String? = nil, sort: Sort? = nil, reversed: Bool = false, limit: Int = 50,
    offset: Int = 0
  ) {
    self.category = category
    self.minimumRating = minimumRating
    self.favoritesOnly = favoritesOnly
    self.search = search
    self.sort = sort
    self.reversed = reversed
    self.limit = limit
    self.offset = offset
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
}

/// A page of a list, with how many reviews match in all.
public struct ReviewPage: Sendable, Equatable {
  public var reviews: [ReviewSummary]
  public var total: Int
  public var offset: Int
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
    var rows: [[SQLValue]] = []
    rows.reserveCapacity(drafts.count)
    let stamp = SQLValue.text(DateText.format(now))
    for (index, draft) in drafts.enumerated() {
      do {
        let fields = try draft.validated()
        rows.append([
          .text(fields.title), .text(fields.body), SQLValue(fields.rating),
          .text(fields.category.rawValue), SQLValue(fields.favorite), stamp, stamp,
        ])
      } catch {
        guard drafts.count > 1, case .invalidReview(let problems) = error else { throw error }
        throw .invalidReview(problems.map { "review \(index + 1): \($0)" })
      }
    }
    return try write { () throws(CatalogueError) -> [String] in
      var ids: [String] = []
      for row in rows { ids.append(try insertReview(row)) }
      return ids
    }
  }

  /// Inserts one validated row under a fresh random id.
  private func insertReview(_ fields: [SQLValue]) throws(CatalogueError) -> String {
    for _ in 0..<8 {
      let id = randomHex(8)
      do {
        try database.run(
          """
          INSERT INTO reviews (id, title, body, rating, category, favorite, created, updated)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          """, [.text(id)] + fields)
        return id
      } catch  where error.isConstraintViolation {
        continue  // the id is taken: draw again
      } catch {
        throw .database(error)
      }
    }
    throw .internalFailure("could not find a free review id in 8 draws; is the random generator broken?")
  }

  /// Inserts a review under `id` (a fresh random one when `nil`) with the given times, inside
  /// the caller's write transaction: for imports, which keep a review's story. `fields` come
  /// from ``ReviewDraft/validated()``. Returns the id.
  func insertReview(
    _ fields: ReviewFields,
    id: String?, created: Date, updated: Date
  ) throws(CatalogueError) -> String {
    let row: [SQLValue] = [
      .text(fields.title), .text(fields.body), SQLValue(fields.rating), .text(fields.category.rawValue),
      SQLValue(fields.favorite), .text(DateText.format(created)), .text(DateText.format(updated)),
    ]
    guard let id else { return try insertReview(row) }
    try sql { () throws(DatabaseError) in
      try database.run(
        """
        INSERT INTO reviews (id, title, body, rating, category, favorite, created, updated)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """, [.text(id)] + row)
    }
    return id
  }

  /// Replaces a review's fields with `draft`'s (validated as for `create`).
  @discardableResult
  public func update(_ reference: String, with draft: ReviewDraft, now: Date = Date())
    throws(CatalogueError) -> Review
  {
    let fields = try draft.validated()
    let id = try write { () throws(CatalogueError) -> String in
      let id = try resolve(reference)
      try sql { () throws(DatabaseError) in
        try database.run(
          """
          UPDATE reviews SET title = ?, body = ?, rating = ?, category = ?, favorite = ?, updated = ?
          WHERE id = ?
          """,
          [
            .text(fields.title), .text(fields.body), SQLValue(fields.rating),
            .text(fields.category.rawValue), SQLValue(fields.favorite), .text(DateText.format(now)),
            .text(id),
          ])
      }
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
      try sql { () throws(DatabaseError) in
        try database.run("DELETE FROM reviews WHERE id = ?", [.text(review.id)])
      }
      return (review, try deleteUnusedImageRecords(review.images.map(\.image.sha256)))
    }
    try discardFiles(of: Set(released))
    return removed
  }

  /// Refuses a category label that the library has never used and that looks like a typo of
  /// a known kind or a label in use ("moive" for movie), with the suggestion. A label that is
  /// known, in use, or far from every other passes.
  public func checkNewCategory(_ label: String) throws(CatalogueError) {
    guard let category = Category(rawValue: label), !category.isKnown else { return }
    let used = try sql { () throws(DatabaseError) in
      try database.query("SELECT DISTINCT category FROM reviews") { $0.text(0) }
    }.compactMap(Category.init(rawValue:))
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
    try sql { () throws(DatabaseError) in
      if ids.count > 1000 {
        let all = try database.query("SELECT id FROM reviews ORDER BY id") { $0.text(0) }
        for (previous, next) in zip(all, all.dropFirst()) { longest = max(longest, shared(previous, next)) }
        return
      }
      for id in ids {
        for neighbour in [
          "SELECT id FROM reviews WHERE id < ? ORDER BY id DESC LIMIT 1",
          "SELECT id FROM reviews WHERE id > ? ORDER BY id LIMIT 1",
        ] {
          if case .text(let other) = try database.scalar(neighbour, [.text(id)]) {
            longest = max(longest, shared(id, other))
          }
        }
      }
    }
    return min(max(minimum, longest + 1), 16)
  }

  /// The full id of the review `reference` names: an id, or a unique prefix of at least four
  /// digits (as git takes commit ids).
  public func resolve(_ reference: String) throws(CatalogueError) -> String {
    let prefix = reference.lowercased()
    guard (4...16).contains(prefix.utf8.count),
      prefix.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
    else { throw .badReviewReference(reference) }
    let matches = try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT id FROM reviews WHERE id >= ? AND id < ? ORDER BY id LIMIT 5",
        [.text(prefix), .text(prefix + "g")]
      ) { $0.text(0) }
    }
    switch matches.count {
    case 0: throw .reviewNotFound(reference)
    case 1: return matches[0]
    default: throw .ambiguousReview(prefix: reference, candidates: matches)
    }
  }

  /// The review `reference` names, with its images.
  public func review(_ reference: String) throws(CatalogueError) -> Review {
    let id = try resolve(reference)
    return try read { () throws(CatalogueError) -> Review in
      let rows = try sql { () throws(DatabaseError) in
        try database.query(
          """
          SELECT id, title, body, rating, category, favorite, created, updated
          FROM reviews WHERE id = ?
          """, [.text(id)]
        ) { row in
          (row.text(0), row.text(1), row.text(2), row.int(3), row.text(4), row.bool(5), row.text(6), row.text(7))
        }
      }
      guard let row = rows.first else { throw .reviewNotFound(reference) }
      return Review(
        id: row.0, title: row.1, body: row.2, rating: row.3,
        category: try RecordValue.category(row.4, of: row.0), favorite: row.5,
        created: try RecordValue.time(row.6, "created", of: row.0),
        updated: try RecordValue.time(row.7, "updated", of: row.0),
        images: try images(of: id))
    }
  }

  /// A review's images in order.
  func images(of id: String) throws(CatalogueError) -> [ReviewImage] {
    let rows = try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT ri.position, ri.cover, \(Self.imageColumns) FROM review_images ri "
          + "JOIN images i ON i.sha256 = ri.image WHERE ri.review = ? ORDER BY ri.position",
        [.text(id)]
      ) { row in (row.int(0), row.bool(1), ImageRow(row, from: 2)) }
    }
    var images: [ReviewImage] = []
    for (position, cover, image) in rows {
      images.append(ReviewImage(position: position, image: try storedImage(image), isCover: cover))
    }
    return images
  }

  static let imageColumns =
    "i.sha256, i.format, i.width, i.height, i.orientation, i.bytes, i.thumbnail_format, "
    + "i.thumbnail_width, i.thumbnail_height, i.imported"

  /// A stored image from its record's columns; a value no build writes is a damaged record.
  func storedImage(_ row: ImageRow) throws(CatalogueError) -> StoredImage {
    let what = "image \(row.sha256.prefix(12))"
    let format = try RecordValue.format(row.format, of: what)
    let thumbnailFormat = try RecordValue.format(row.thumbnailFormat, of: what)
    guard let orientation = Orientation(rawValue: row.orientation) else {
      throw .damagedRecord(what, problem: "orientation \(row.orientation) is not 1 to 8")
    }
    return StoredImage(
      sha256: row.sha256, format: format, width: row.width, height: row.height, orientation: orientation,
      bytes: row.bytes, thumbnailFormat: thumbnailFormat, thumbnailWidth: row.thumbnailWidth,
      thumbnailHeight: row.thumbnailHeight, imported: try RecordValue.time(row.imported, "imported", of: what),
      original: LibraryLayout.original(sha256: row.sha256, fileExtension: format.fileExtension),
      thumbnail: LibraryLayout.thumbnail(
        sha256: row.sha256, spec: thumbnailSpec.name, fileExtension: thumbnailFormat.fileExtension))
  }

  /// A page of reviews matching `query`.
  public func list(_ query: ReviewQuery = ReviewQuery()) throws(CatalogueError) -> ReviewPage {
    guard query.limit >= 0, query.offset >= 0 else {
      throw .invalidQuery("limit and offset must not be negative")
    }
    if let rating = query.minimumRating, !(0...5).contains(rating) {
      throw .invalidQuery("minimum rating \(rating) is outside 0–5")
    }
    var conditions: [String] = []
    var arguments: [SQLValue] = []
    var from = "reviews r"
    if let search = query.search {
      guard let match = SearchQuery.fts5(search) else {
        throw .invalidQuery("search \"\(search)\" has no words to look for: give letters or digits")
      }
      from = "reviews_fts JOIN reviews r ON r.seq = reviews_fts.rowid"
      conditions.append("reviews_fts MATCH ?")
      arguments.append(.text(match))
    }
    if let category = query.category {
      conditions.append("r.category = ?")
      arguments.append(.text(category.rawValue))
    }
    if let rating = query.minimumRating {
      conditions.append("r.rating >= ?")
      arguments.append(SQLValue(rating))
    }
    if query.favoritesOnly { conditions.append("r.favorite = 1") }
    let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")

    let sort = query.sort ?? (query.search == nil ? .updated : .relevance)
    // Ties break on `seq` (the rowid), which every index ends with, so that an index alone
    // gives the order and a deep page needs no sort.
    let order: String
    switch (sort, query.reversed) {
    case (.title, false): order = "r.title COLLATE NOCASE ASC, r.seq ASC"
    case (.title, true): order = "r.title COLLATE NOCASE DESC, r.seq DESC"
    case (.rating, false): order = "r.rating DESC, r.title COLLATE NOCASE, r.seq"
    case (.rating, true): order = "r.rating ASC, r.title COLLATE NOCASE, r.seq"
    case (.created, false): order = "r.created DESC, r.seq DESC"
    case (.created, true): order = "r.created ASC, r.seq ASC"
    case (.updated, false): order = "r.updated DESC, r.seq DESC"
    case (.updated, true): order = "r.updated ASC, r.seq ASC"
    case (.relevance, let reversed):
      guard query.search != nil else {
        throw .invalidQuery("sorting by relevance needs a search")
      }
      // FTS5's `rank` is bm25 with the ranking the table was made with.
      order = "reviews_fts.rank \(reversed ? "DESC" : "ASC"), r.seq"
    }
    typealias Row = (
      seq: Int, id: String, title: String, rating: Int, category: String, favorite: Bool, created: String,
      updated: String, imageCount: Int, cover: ImageRow?
    )
    return try read { () throws(CatalogueError) -> ReviewPage in
      let (total, page, rows) = try sql { () throws(DatabaseError) -> (Int, [Int], [Row]) in
        // A search with no other filter is answered by the full-text index alone: every row
        // of it is a review, and joining each match to its review (to count them, or to rank
        // them) costs a lookup a match, which on a common word is most of the time.
        let indexOnly = query.search != nil && conditions.count == 1
        let counting =
          indexOnly
          ? "SELECT count(*) FROM reviews_fts WHERE reviews_fts MATCH ?"
          : "SELECT count(*) FROM \(from)\(filter)"
        let total = try database.query(counting, arguments) { $0.int(0) }.first ?? 0
        // The page's rows are found first from the indexes alone; only those are then read
        // whole. An OFFSET would otherwise read (and count the images of) every skipped row.
        let paging =
          indexOnly && sort == .relevance
          ? "SELECT rowid FROM reviews_fts WHERE reviews_fts MATCH ? "
            + "ORDER BY rank \(query.reversed ? "DESC" : "ASC"), rowid LIMIT ? OFFSET ?"
          : "SELECT r.seq FROM \(from)\(filter) ORDER BY \(order) LIMIT ? OFFSET ?"
        let page = try database.query(paging, arguments + [SQLValue(query.limit), SQLValue(query.offset)]) {
          $0.int(0)
        }
        guard !page.isEmpty else { return (total, [], []) }
        let placeholders = Array(repeating: "?", count: page.count).joined(separator: ", ")
        let rows = try database.query(
          """
          SELECT r.seq, r.id, r.title, r.rating, r.category, r.favorite, r.created, r.updated,
            (SELECT count(*) FROM review_images n WHERE n.review = r.id),
            \(Self.imageColumns)
          FROM reviews r
          LEFT JOIN review_images c ON c.review = r.id AND c.cover = 1
          LEFT JOIN images i ON i.sha256 = c.image
          WHERE r.seq IN (\(placeholders))
          """, page.map { SQLValue($0) }
        ) { row -> Row in
          (
            seq: row.int(0), id: row.text(1), title: row.text(2), rating: row.int(3), category: row.text(4),
            favorite: row.bool(5), created: row.text(6), updated: row.text(7), imageCount: row.int(8),
            cover: row.optionalText(9) == nil ? nil : ImageRow(row, from: 9)
          )
        }
        return (total, page, rows)
      }
      var bySeq: [Int: ReviewSummary] = [:]
      for row in rows {
        var cover: StoredImage?
        if let image = row.cover { cover = try storedImage(image) }
        bySeq[row.seq] = ReviewSummary(
          id: row.id, title: row.title, rating: row.rating,
          category: try RecordValue.category(row.category, of: row.id),
          favorite: row.favorite, created: try RecordValue.time(row.created, "created", of: row.id),
          updated: try RecordValue.time(row.updated, "updated", of: row.id), imageCount: row.imageCount,
          cover: cover)
      }
      return ReviewPage(reviews: page.compactMap { bySeq[$0] }, total: total, offset: query.offset)
    }
  }

  /// Deletes the image records among `hashes` that no review uses any more, and returns their
  /// hashes: their files are for ``discardFiles(of:)`` once the transaction has committed.
  @discardableResult
  func deleteUnusedImageRecords(_ hashes: [String]) throws(CatalogueError) -> [String] {
    var deleted: [String] = []
    for hash in Set(hashes).sorted() {
      try sql { () throws(DatabaseError) in
        try database.run(
          "DELETE FROM images WHERE sha256 = ? AND NOT EXISTS "
            + "(SELECT 1 FROM review_images WHERE image = ?)", [.text(hash), .text(hash)])
        if database.changes > 0 { deleted.append(hash) }
      }
    }
    return deleted
  }
}

/// The ten `imageColumns` of an image record, as stored.
struct ImageRow {
  var sha256: String
  var format: String
  var width: Int
  var height: Int
  var orientation: Int
  var bytes: Int
  var thumbnailFormat: String
  var thumbnailWidth: Int
  var thumbnailHeight: Int
  var imported: String

  /// Reads the columns starting at `column`.
  init(_ row: Statement, from column: Int32) {
    sha256 = row.text(column)
    format = row.text(column + 1)
    width = row.int(column + 2)
    height = row.int(column + 3)
    orientation = row.int(column + 4)
    bytes = row.int(column + 5)
    thumbnailFormat = row.text(column + 6)
    thumbnailWidth = row.int(column + 7)
    thumbnailHeight = row.int(column + 8)
    imported = row.text(column + 9)
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

  static func format(_ text: String, of what: String) throws(CatalogueError) -> ImageFormat {
    guard let format = ImageFormat(rawValue: text), format.isSupported else {
      throw .damagedRecord(what, problem: "format \"\(text)\" is not one the library stores")
    }
    return format
  }
}
