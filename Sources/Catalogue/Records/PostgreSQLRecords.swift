import Foundation
import ImagePipeline

/// The catalogue's records in a PostgreSQL database, for a team: the operations of
/// ``RecordStore`` in PostgreSQL's SQL, over one ``PostgreSQLConnection``. Every SQL statement of
/// this store is in this file and in ``PostgreSQLSchema``.
///
/// - **Writers take turns**, as SQLite's `BEGIN IMMEDIATE` makes them: a write transaction
///   first takes a transaction-level advisory lock (``writeLock``), waiting up to the busy
///   timeout for the writer before it, then reads and writes in READ COMMITTED, which with
///   every writer in line sees every commit before it. So positions, covers and ids are decided
///   by one writer at a time, on every server, and a body never runs twice.
/// - **Readers** read one snapshot (REPEATABLE READ, READ ONLY), and are never in a writer's way.
/// - **The search index** is `reviews.search`, written here from ``SearchText``'s words (see
///   ``PostgreSQLSearch``), asked with a `tsquery` written the same way, and bounded in time:
///   a search that would take PostgreSQL more than ``searchTimeout`` is refused as too broad.
/// - **Changes** advance the sequence `catalogue_changes` (the schema's triggers, whoever
///   writes): that is the change token, and the channel of the same name wakes listeners.
///
/// Not `Sendable`: one owner uses it, as it uses its one connection.
final class PostgreSQLRecords: RecordStore {
  let connection: PostgreSQLConnection
  /// The library's folder, named in errors.
  let library: String

  /// The advisory lock every write transaction holds, on every server.
  static let writeLock: Int64 = 0x6361_7461_6C6F_77
  /// How long a writer waits for the one before it.
  static let busyTimeout = "30s"
  /// How long a search may take PostgreSQL before it is refused as too broad.
  static let searchTimeout = "2s"

  private enum Transaction { case read, write }
  private var transaction: Transaction?

  init(_ connection: PostgreSQLConnection, library: String) {
    self.connection = connection
    self.library = library
  }

  /// Opens the records in the PostgreSQL database at `url` for the library at `library`, and
  /// the schema version they were at: an empty database is given the schema when `create`; a
  /// database that holds other tables and no catalogue, or a catalogue of a newer schema, is
  /// refused untouched; an older one is brought up to date when `upgrading`, and refused
  /// otherwise.
  static func open(url: String, library: String, create: Bool, upgrading: Bool) throws(CatalogueError)
    -> (records: PostgreSQLRecords, version: Int)
  {
    let connection = try postgreSQL { () throws(PostgreSQLError) in try PostgreSQLConnection(url) }
    let found = try postgreSQL { () throws(PostgreSQLError) in try PostgreSQLSchema.version(of: connection) }
    if found == 0 {
      let tables = try postgreSQL { () throws(PostgreSQLError) in
        try connection.execute(
          "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
        ).int(row: 0, column: 0) ?? 0
      }
      guard create else {
        throw .invalidArgument(
          "the database \(connection.name) holds no catalogue: `catalogue --database URL init FOLDER` makes one "
            + "in an empty database, `catalogue migrate --to URL` moves a library there")
      }
      guard tables == 0 else {
        throw .damagedDatabase(
          path: connection.name,
          reason:
            "it holds \(tables) \(tables == 1 ? "table" : "tables") and no catalogue: give an empty database for a new library"
        )
      }
    } else if create {
      throw .alreadyALibrary(path: connection.name)
    }
    if found > 0 && found < PostgreSQLSchema.current && !upgrading {
      throw .olderSchema(path: library, found: found, known: PostgreSQLSchema.current)
    }
    try PostgreSQLSchema.migrate(connection, library: library)
    return (PostgreSQLRecords(connection, library: library), found)
  }

  var readOnlyReason: ReadOnlyReason? { nil }
  var openingNote: String? { nil }

  // MARK: Running statements

  private func rows(_ sql: String, _ parameters: [PostgreSQLValue?] = []) throws(CatalogueError) -> PostgreSQLResult {
    try postgreSQL { () throws(PostgreSQLError) in try connection.execute(sql, parameters) }
  }

  /// Runs `sql`; how many rows it changed.
  @discardableResult
  private func run(_ sql: String, _ parameters: [PostgreSQLValue?] = []) throws(CatalogueError) -> Int {
    try rows(sql, parameters).affectedRows
  }

  /// The texts of the first column.
  private func texts(_ sql: String, _ parameters: [PostgreSQLValue?] = []) throws(CatalogueError) -> [String] {
    let result = try rows(sql, parameters)
    return (0..<result.rowCount).map { result.string(row: $0, column: 0) ?? "" }
  }

  private func integer(_ sql: String, _ parameters: [PostgreSQLValue?] = []) throws(CatalogueError) -> Int {
    let result = try rows(sql, parameters)
    guard result.rowCount > 0 else { return 0 }
    return try postgreSQL { () throws(PostgreSQLError) in try result.int(row: 0, column: 0) ?? 0 }
  }

  private func exists(_ sql: String, _ parameters: [PostgreSQLValue?] = []) throws(CatalogueError) -> Bool {
    try rows(sql, parameters).rowCount > 0
  }

  private static func value(_ text: String?) -> PostgreSQLValue? { text.map(PostgreSQLValue.text) }
  private static func time(_ date: Date) -> PostgreSQLValue { .text(DateText.format(date)) }

  /// A column read as text ("" for NULL), as a boolean, as a number.
  private struct Row: StoredRow {
    let result: PostgreSQLResult
    let row: Int

    func text(_ column: Int) -> String { result.string(row: row, column: column) ?? "" }
    func optionalText(_ column: Int) -> String? { result.string(row: row, column: column) }
    func bool(_ column: Int) -> Bool { result.string(row: row, column: column) == "t" }
    func int(_ column: Int) -> Int { Int(result.string(row: row, column: column) ?? "") ?? 0 }
  }

  private func each<T>(_ result: PostgreSQLResult, _ read: (Row) -> T) -> [T] {
    (0..<result.rowCount).map { read(Row(result: result, row: $0)) }
  }

  // MARK: Transactions

  func writeTransaction<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T {
    switch transaction {
    case .write: return try body()
    case .read: throw .internalFailure("a write transaction was begun inside a read transaction")
    case nil: break
    }
    try postgreSQL { () throws(PostgreSQLError) in
      try connection.begin()
      do throws(PostgreSQLError) {
        _ = try connection.execute("SET LOCAL lock_timeout = '\(Self.busyTimeout)'")
        _ = try connection.execute("SELECT pg_advisory_xact_lock($1)", [.integer(Self.writeLock)])
      } catch {
        try? connection.rollback()
        throw error
      }
    }
    transaction = .write
    defer { transaction = nil }
    do throws(CatalogueError) {
      let result = try body()
      try postgreSQL { () throws(PostgreSQLError) in try connection.commit() }
      return result
    } catch {
      try? connection.rollback()
      throw error
    }
  }

  func readTransaction<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T {
    if transaction != nil { return try body() }
    try postgreSQL { () throws(PostgreSQLError) in try connection.begin(isolation: .repeatableRead, readOnly: true) }
    transaction = .read
    defer {
      transaction = nil
      try? connection.rollback()
    }
    return try body()
  }

  func lockedLook<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T {
    guard transaction == nil else { return try body() }
    try postgreSQL { () throws(PostgreSQLError) in
      try connection.begin()
      _ = try connection.execute("SET LOCAL lock_timeout = '\(Self.busyTimeout)'")
      _ = try connection.execute("SELECT pg_advisory_xact_lock($1)", [.integer(Self.writeLock)])
    }
    transaction = .write
    defer {
      transaction = nil
      try? connection.rollback()
    }
    return try body()
  }

  func schemaVersion() throws(CatalogueError) -> Int {
    try postgreSQL { () throws(PostgreSQLError) in try PostgreSQLSchema.version(of: connection) }
  }

  // MARK: Settings

  func settings() throws(CatalogueError) -> [String: String] {
    let pairs = each(try rows("SELECT key, value FROM settings")) { ($0.text(0), $0.text(1)) }
    return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
  }

  func saveSetting(_ key: String, _ value: String) throws(CatalogueError) {
    try run(
      "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      [.text(key), .text(value)])
  }

  func deleteSetting(_ key: String) throws(CatalogueError) {
    try run("DELETE FROM settings WHERE key = $1", [.text(key)])
  }

  // MARK: Reviews

  func insertReview(
    id: String, _ fields: ReviewFields, created: Date, updated: Date, published: Date?, author: String?
  ) throws(CatalogueError) -> Bool {
    let search = PostgreSQLSearch.document(title: fields.title, body: fields.body)
    let inserted = try run(
      """
      WITH added AS (
        INSERT INTO reviews (id, title, body, rating, category, favorite, created, updated, created_by, updated_by,
          contains_spoilers, draft, published)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12)
        ON CONFLICT (id) DO NOTHING
        RETURNING seq
      )
      INSERT INTO review_search (seq, search, length) SELECT seq, $13::tsvector, $14 FROM added
      """,
      [
        .text(id), .text(fields.title), .text(fields.body), PostgreSQLValue(fields.rating),
        .text(fields.category.rawValue), PostgreSQLValue(fields.favorite), Self.time(created), Self.time(updated),
        Self.value(author), PostgreSQLValue(fields.containsSpoilers), PostgreSQLValue(published == nil),
        published.map(Self.time), .text(search.vector), PostgreSQLValue(search.length),
      ])
    return inserted > 0
  }

  func updateReview(id: String, _ fields: ReviewFields, updated: Date, author: String?) throws(CatalogueError) {
    let search = PostgreSQLSearch.document(title: fields.title, body: fields.body)
    try run(
      """
      WITH changed AS (
        UPDATE reviews SET title = $1, body = $2, rating = $3, category = $4, favorite = $5, contains_spoilers = $6,
          updated = greatest($7, created), updated_by = $8
        WHERE id = $11
        RETURNING seq
      )
      INSERT INTO review_search (seq, search, length) SELECT seq, $9::tsvector, $10 FROM changed
      ON CONFLICT (seq) DO UPDATE SET search = excluded.search, length = excluded.length
      """,
      [
        .text(fields.title), .text(fields.body), PostgreSQLValue(fields.rating), .text(fields.category.rawValue),
        PostgreSQLValue(fields.favorite), PostgreSQLValue(fields.containsSpoilers), Self.time(updated),
        Self.value(author), .text(search.vector), PostgreSQLValue(search.length), .text(id),
      ])
  }

  func setPublished(id: String, _ published: Date?) throws(CatalogueError) {
    try run(
      "UPDATE reviews SET draft = $1, published = $2 WHERE id = $3",
      [PostgreSQLValue(published == nil), published.map(Self.time), .text(id)])
  }

  func deleteReview(id: String) throws(CatalogueError) {
    try run("DELETE FROM reviews WHERE id = $1", [.text(id)])
  }

  func hasReview(id: String) throws(CatalogueError) -> Bool {
    try exists("SELECT 1 FROM reviews WHERE id = $1", [.text(id)])
  }

  func reviewIDs(withPrefix prefix: String, limit: Int, publishedOnly: Bool) throws(CatalogueError) -> [String] {
    try texts(
      "SELECT id FROM reviews WHERE id >= $1 AND id < $2\(publishedOnly ? " AND NOT draft" : "") ORDER BY id LIMIT $3",
      [.text(prefix), .text(prefix + "g"), PostgreSQLValue(limit)])
  }

  func reviewIDs(byID: Bool, publishedOnly: Bool) throws(CatalogueError) -> [String] {
    try texts("SELECT id FROM reviews\(publishedOnly ? " WHERE NOT draft" : "") ORDER BY \(byID ? "id" : "seq")")
  }

  func neighbourIDs(of id: String) throws(CatalogueError) -> [String] {
    try texts("SELECT id FROM reviews WHERE id < $1 ORDER BY id DESC LIMIT 1", [.text(id)])
      + texts("SELECT id FROM reviews WHERE id > $1 ORDER BY id LIMIT 1", [.text(id)])
  }

  func review(id: String) throws(CatalogueError) -> ReviewRow? {
    each(try rows("SELECT \(RecordColumns.review) FROM reviews WHERE id = $1", [.text(id)]), { ReviewRow(reading: $0) })
      .first
  }

  func allReviews() throws(CatalogueError) -> [ReviewRow] {
    each(try rows("SELECT \(RecordColumns.review) FROM reviews ORDER BY id"), { ReviewRow(reading: $0) })
  }

  func reviewTitle(id: String) throws(CatalogueError) -> String? {
    try texts("SELECT title FROM reviews WHERE id = $1", [.text(id)]).first
  }

  func reviewCount() throws(CatalogueError) -> Int { try integer("SELECT count(*) FROM reviews") }

  func categoryLabels(publishedOnly: Bool) throws(CatalogueError) -> [String] {
    // One index seek a label (a loose index scan through `reviews_draft`), not a walk over
    // every review.
    let published = publishedOnly ? "NOT draft" : "true"
    return try texts(
      """
      WITH RECURSIVE used (category) AS (
        SELECT min(category) FROM reviews WHERE \(published)
        UNION ALL
        SELECT (SELECT min(category) FROM reviews WHERE \(published) AND category > used.category) FROM used
        WHERE used.category IS NOT NULL
      )
      SELECT category FROM used WHERE category IS NOT NULL
      """)
  }

  // MARK: Pages and search

  /// Counts asked again and again (a grid's total, page after page), kept while the change
  /// token stays the same, as SQLite's store keeps them.
  private var counts: (token: RecordsChangeToken?, values: [String: Int]) = (nil, [:])

  /// The one number `sql` counts, remembered until the records change.
  private func count(_ sql: String, _ parameters: [PostgreSQLValue?]) throws(CatalogueError) -> Int {
    let token = try changeToken()
    if counts.token != token { counts = (token, [:]) }
    let key = sql + "\u{1F}" + parameters.map { $0?.text ?? "\u{0}" }.joined(separator: "\u{1F}")
    if let known = counts.values[key] { return known }
    let total = try integer(sql, parameters)
    if counts.values.count >= 64 { counts.values.removeAll(keepingCapacity: true) }
    counts.values[key] = total
    return total
  }

  func page(_ query: ReviewQuery, search: SearchQuery.Parsed?, rankingWindow: Int) throws(CatalogueError)
    -> (total: Int, totalIsEstimate: Bool, rows: [SummaryRow])
  {
    var conditions: [String] = []
    var parameters: [PostgreSQLValue?] = []
    func parameter(_ value: PostgreSQLValue) -> String {
      parameters.append(value)
      return "$\(parameters.count)"
    }
    if let search {
      conditions.append(
        "r.seq IN (SELECT seq FROM review_search WHERE search @@ \(parameter(.text(PostgreSQLSearch.query(search))))::tsquery)"
      )
    }
    if let category = query.category { conditions.append("r.category = \(parameter(.text(category.rawValue)))") }
    if let author = query.author { conditions.append("r.author_key = lower(\(parameter(.text(author))))") }
    if let rating = query.minimumRating { conditions.append("r.rating >= \(parameter(PostgreSQLValue(rating)))") }
    if query.favoritesOnly { conditions.append("r.favorite") }
    switch query.showing {
    case .published: conditions.append("NOT r.draft")
    case .drafts: conditions.append("r.draft")
    case .all: break
    }
    let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    let sort = query.sort ?? (search == nil ? .updated : .relevance)
    let order = sort.sql(reversed: query.reversed, title: "r.title_key")
    func work() throws(CatalogueError) -> (total: Int, totalIsEstimate: Bool, rows: [SummaryRow]) {
      if search != nil {
        // A search's cost is bounded whatever its words (inside the page's transaction).
        try run("SET LOCAL statement_timeout = '\(Self.searchTimeout)'")
      }
      defer { if search != nil { _ = try? run("SET LOCAL statement_timeout = 0") } }
      if search != nil && sort == .relevance {
        let found = try rankedPage(
          filter: filter, others: Array(conditions.dropFirst()), parameters: parameters, reversed: query.reversed,
          limit: query.limit, offset: query.offset, window: rankingWindow)
        return (found.total, found.totalIsEstimate, try summaryRows(seqs: found.seqs))
      }
      let total = try count("SELECT count(*) FROM reviews r\(filter)", parameters)
      let seqs = try texts(
        "SELECT r.seq FROM reviews r\(filter) ORDER BY \(order) LIMIT \(parameter(PostgreSQLValue(query.limit)))"
          + " OFFSET \(parameter(PostgreSQLValue(query.offset)))", parameters
      ).compactMap { Int($0) }
      return (total, false, try summaryRows(seqs: seqs))
    }
    do {
      return try readTransaction(work)
    } catch {
      // 57014: the statement ran past its timeout.
      if case .database(let failure) = error, failure.code == "57014" { throw .invalidQuery(SearchQuery.tooBroad) }
      throw error
    }
  }

  /// The page of a search by relevance, as SQLite's store gives it (see
  /// ``SQLiteRecords/page(_:match:maximumSteps:rankingWindow:)``): the newest `window` matches
  /// ranked best first (`ts_rank` of the title's words weighted above the body's, against the
  /// review's length), ties in the order the reviews were added; when there are more, the
  /// older ones follow, newest first, and the total is estimated from how far back the window
  /// reached.
  ///
  /// The window is the newest `window` matches of the search alone, as in SQLite's store; the
  /// other conditions then choose among them, and only those chosen are scored. The window is
  /// looked for among the newest reviews, twice its size of them, then four times as many each
  /// time until it is full or every review was looked at: a common word's is found in the first
  /// few thousand reviews without a visit to its other matches, a rare word's in a few cheap
  /// steps. `filter` is every condition, the search first (its tsquery is parameter 1);
  /// `others` the conditions besides it.
  private func rankedPage(
    filter: String, others: [String], parameters: [PostgreSQLValue?], reversed: Bool, limit: Int, offset: Int,
    window: Int
  ) throws(CatalogueError) -> (total: Int, totalIsEstimate: Bool, seqs: [Int]) {
    let span = try rows("SELECT (SELECT min(seq) FROM reviews), (SELECT max(seq) FROM reviews)")
    let first = Int(span.string(row: 0, column: 0) ?? "") ?? 0
    let last = Int(span.string(row: 0, column: 1) ?? "") ?? 0
    var reach = 2 * (window + 1)
    var newest: [Int] = []
    while true {
      let cut = last - reach
      newest = try texts(
        "SELECT seq FROM review_search WHERE search @@ $1::tsquery AND seq > \(cut) ORDER BY seq DESC "
          + "LIMIT \(window + 1)", [parameters[0]]
      ).compactMap { Int($0) }
      if newest.count > window || cut < first { break }
      reach *= 4
    }
    let windowSeqs = "{" + newest.prefix(window).map(String.init).joined(separator: ",") + "}"
    // The other conditions' parameters keep their numbers, the window's is the next, and the
    // search's (1) is named only so that it has a type.
    let chosen = try texts(
      "SELECT r.seq FROM reviews r WHERE $1::tsquery IS NOT NULL AND r.seq = ANY ($\(parameters.count + 1)::bigint[])"
        + others.map { " AND " + $0 }.joined(), parameters + [.text(windowSeqs)]
    ).compactMap { Int($0) }
    let scores = try rows(
      "SELECT seq, ts_rank(search, $1::tsquery, 1) FROM review_search WHERE seq = ANY ($2::bigint[])",
      [parameters[0], .text("{" + chosen.map(String.init).joined(separator: ",") + "}")])
    let score = Dictionary(
      each(scores) { (Int($0.text(0)) ?? 0, Double($0.text(1)) ?? 0) }, uniquingKeysWith: { first, _ in first })
    let scored = chosen.map { (seq: $0, score: score[$0] ?? 0) }
    let rest = "SELECT r.seq FROM reviews r\(filter) AND r.seq <= \(newest.last ?? 0)"
    return try RankedWindow(
      scored: scored, ranksAbove: { $0 > $1 }, boundary: newest.count > window ? newest.last : nil, first: first,
      last: last
    ).page(
      reversed: reversed, limit: limit, offset: offset,
      rest: { (ascending, limit, offset) throws(CatalogueError) in
        try texts(
          "\(rest) ORDER BY r.seq \(ascending ? "ASC" : "DESC") LIMIT \(limit) OFFSET \(offset)", parameters
        ).compactMap { Int($0) }
      },
      restCount: { () throws(CatalogueError) in try integer("SELECT count(*) FROM (\(rest)) AS rest", parameters) })
  }

  /// The summaries of the reviews `seqs`, in that order, with their covers' records.
  private func summaryRows(seqs: [Int]) throws(CatalogueError) -> [SummaryRow] {
    guard !seqs.isEmpty else { return [] }
    let result = try rows(
      """
      SELECT r.seq, r.id, r.title, r.rating, r.category, r.favorite, r.created, r.updated, r.created_by,
        r.updated_by, r.image_count, r.cover_alt, r.contains_spoilers, r.draft, r.published, \(RecordColumns.image)
      FROM reviews r LEFT JOIN images i ON i.sha256 = r.cover_image
      WHERE r.seq = ANY ($1::bigint[])
      """, [.text("{" + seqs.map(String.init).joined(separator: ",") + "}")])
    let rows = each(result) { row in
      (
        row.int(0),
        SummaryRow(
          id: row.text(1), title: row.text(2), rating: row.int(3), category: row.text(4), favorite: row.bool(5),
          created: row.text(6), updated: row.text(7), imageCount: row.int(10),
          cover: row.optionalText(15) == nil ? nil : ImageRow(reading: row, from: 15), coverAlt: row.optionalText(11),
          createdBy: row.optionalText(8), updatedBy: row.optionalText(9), containsSpoilers: row.bool(12),
          draft: row.bool(13), published: row.optionalText(14))
      )
    }
    let bySeq = Dictionary(rows, uniquingKeysWith: { first, _ in first })
    return seqs.compactMap { bySeq[$0] }
  }

  // MARK: Images and links

  func imageRows(ofReview id: String) throws(CatalogueError)
    -> [(position: Int, cover: Bool, image: ImageRow, link: ImageLink)]
  {
    each(
      try rows(
        "SELECT ri.position, ri.cover, \(RecordColumns.image), ri.alt, ri.caption, ri.name FROM review_images ri "
          + "JOIN images i ON i.sha256 = ri.image WHERE ri.review = $1 ORDER BY ri.position", [.text(id)])
    ) { row in
      let image = ImageRow(reading: row, from: 2)
      return (
        row.int(0), row.bool(1), image,
        ImageLink(
          sha256: image.sha256, alt: row.optionalText(13), caption: row.optionalText(14), name: row.optionalText(15))
      )
    }
  }

  func insertImage(_ image: StoredImage) throws(CatalogueError) {
    try run(
      """
      INSERT INTO images (sha256, format, width, height, orientation, bytes, thumbnail_format,
        thumbnail_width, thumbnail_height, imported, color_space)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
      ON CONFLICT (sha256) DO NOTHING
      """,
      [
        .text(image.sha256), .text(image.format.rawValue), PostgreSQLValue(image.width),
        PostgreSQLValue(image.height), PostgreSQLValue(image.orientation.rawValue), PostgreSQLValue(image.bytes),
        .text(image.thumbnailFormat.rawValue), PostgreSQLValue(image.thumbnailWidth),
        PostgreSQLValue(image.thumbnailHeight), Self.time(image.imported), Self.value(image.colorSpace),
      ])
  }

  func hasImage(sha256: String) throws(CatalogueError) -> Bool {
    try exists("SELECT 1 FROM images WHERE sha256 = $1", [.text(sha256)])
  }

  func imageRow(sha256: String) throws(CatalogueError) -> ImageRow? {
    each(try rows("SELECT \(RecordColumns.image) FROM images i WHERE i.sha256 = $1", [.text(sha256)])) {
      ImageRow(reading: $0, from: 0)
    }.first
  }

  func setLinks(ofReview id: String, _ links: [ImageLink], cover: String?, updated: Date?, author: String?)
    throws(CatalogueError)
  {
    try run("DELETE FROM review_images WHERE review = $1", [.text(id)])
    if !links.isEmpty {
      // One statement for every link: the card's trigger runs once.
      var values: [String] = []
      var parameters: [PostgreSQLValue?] = [.text(id)]
      for (index, link) in links.enumerated() {
        let first = parameters.count + 1
        values.append("($1, \(index + 1), $\(first), $\(first + 1), $\(first + 2), $\(first + 3), $\(first + 4))")
        parameters += [
          .text(link.sha256), PostgreSQLValue(link.sha256 == cover), Self.value(link.alt), Self.value(link.caption),
          Self.value(link.name),
        ]
      }
      try run(
        "INSERT INTO review_images (review, position, image, cover, alt, caption, name) VALUES "
          + values.joined(separator: ", "), parameters)
    }
    if let updated {
      try run(
        "UPDATE reviews SET updated = greatest($1, created), updated_by = $2 WHERE id = $3",
        [Self.time(updated), Self.value(author), .text(id)])
    }
  }

  func deleteUnlinkedImages(_ hashes: [String]) throws(CatalogueError) -> [String] {
    guard !hashes.isEmpty else { return [] }
    return try texts(
      """
      DELETE FROM images WHERE sha256 = ANY ($1::text[])
        AND NOT EXISTS (SELECT 1 FROM review_images WHERE image = images.sha256)
      RETURNING sha256
      """, [.text(PostgreSQLSearch.array(Set(hashes).sorted()))]
    ).sorted()
  }

  func setThumbnail(of sha256: String, format: ImageFormat, width: Int, height: Int) throws(CatalogueError) {
    try run(
      "UPDATE images SET thumbnail_format = $1, thumbnail_width = $2, thumbnail_height = $3 WHERE sha256 = $4",
      [.text(format.rawValue), PostgreSQLValue(width), PostgreSQLValue(height), .text(sha256)])
  }

  func setFacts(of sha256: String, _ header: ImageHeader) throws(CatalogueError) {
    try run(
      "UPDATE images SET format = $1, width = $2, height = $3, orientation = $4, color_space = $5 WHERE sha256 = $6",
      [
        .text(header.format.rawValue), PostgreSQLValue(header.uprightWidth), PostgreSQLValue(header.uprightHeight),
        PostgreSQLValue(header.orientation.rawValue), .text(header.colorSpace), .text(sha256),
      ])
  }

  func imageRecords() throws(CatalogueError) -> [ImageRecord] {
    let links = each(try rows("SELECT image, review FROM review_images ORDER BY review")) { ($0.text(0), $0.text(1)) }
    let reviews = Dictionary(grouping: links, by: \.0).mapValues { $0.map(\.1) }
    return each(try rows("SELECT \(RecordColumns.image) FROM images i ORDER BY i.sha256")) {
      let row = ImageRow(reading: $0, from: 0)
      return ImageRecord(row: row, reviews: reviews[row.sha256] ?? [])
    }
  }

  func links() throws(CatalogueError) -> [(review: String, position: Int, cover: Bool, link: ImageLink)] {
    each(
      try rows("SELECT review, position, cover, image, alt, caption, name FROM review_images ORDER BY review, position")
    ) {
      (
        $0.text(0), $0.int(1), $0.bool(2),
        ImageLink(sha256: $0.text(3), alt: $0.optionalText(4), caption: $0.optionalText(5), name: $0.optionalText(6))
      )
    }
  }

  /// PostgreSQL's foreign keys never let a link point at a review or an image that is not
  /// there: there are none to remove.
  func removeBrokenLinks(dryRun: Bool) throws(CatalogueError) -> [(review: String, position: Int)] { [] }

  func linkedImagesWithoutRecords() throws(CatalogueError) -> [String] { [] }

  // MARK: Reviewers, sessions and tokens

  /// A reviewer's name compares in any ASCII case, as SQLite's `COLLATE NOCASE` compares it.
  private static let sameName = "lower(name) = lower($1)"

  func insertUser(name: String, passwordHash: String, created: Date) throws(CatalogueError) -> Bool {
    try run(
      """
      INSERT INTO users (name, password_hash, created, password_changed) VALUES ($1, $2, $3, $3)
      ON CONFLICT DO NOTHING
      """, [.text(name), .text(passwordHash), Self.time(created)]) > 0
  }

  func user(named name: String) throws(CatalogueError) -> UserRow? {
    each(
      try rows("SELECT \(RecordColumns.user) FROM users WHERE \(Self.sameName)", [.text(name)]),
      { UserRow(reading: $0) }
    ).first
  }

  func userRows() throws(CatalogueError) -> [UserRow] {
    each(try rows("SELECT \(RecordColumns.user) FROM users ORDER BY lower(name)"), { UserRow(reading: $0) })
  }

  func reviewerRows(now: Date) throws(CatalogueError) -> [ReviewerRow] {
    each(
      try rows(
        """
        SELECT u.name, u.created, u.password_changed, u.display_name, u.bio,
          (SELECT count(*) FROM sessions s WHERE s.reviewer = u.name AND s.expires > $1),
          (SELECT count(*) FROM tokens t WHERE t.reviewer = u.name),
          greatest(
            coalesce((SELECT max(s.last_seen) FROM sessions s WHERE s.reviewer = u.name), ''),
            coalesce((SELECT max(t.last_used) FROM tokens t WHERE t.reviewer = u.name), ''))
        FROM users u ORDER BY lower(u.name)
        """, [Self.time(now)])
    ) { row in
      let seen = row.text(7)
      return ReviewerRow(
        name: row.text(0), created: row.text(1), passwordChanged: row.text(2), displayName: row.optionalText(3),
        bio: row.optionalText(4), sessions: row.int(5), tokens: row.int(6), lastSeen: seen.isEmpty ? nil : seen)
    }
  }

  func setProfile(of name: String, displayName: String?, bio: String?) throws(CatalogueError) -> Bool {
    try run(
      "UPDATE users SET display_name = $2, bio = $3 WHERE \(Self.sameName)",
      [.text(name), Self.value(displayName), Self.value(bio)]) > 0
  }

  func author(matching name: String, publishedOnly: Bool) throws(CatalogueError) -> (name: String?, reviews: Int) {
    let result = try rows(
      "SELECT min(created_by), count(*) FROM reviews WHERE author_key = lower($1)"
        + (publishedOnly ? " AND NOT draft" : ""), [.text(name)])
    guard result.rowCount > 0 else { return (nil, 0) }
    let row = Row(result: result, row: 0)
    return (row.optionalText(0), row.int(1))
  }

  func setPasswordHash(of name: String, _ hash: String, changed: Date) throws(CatalogueError) -> Bool {
    try run(
      "UPDATE users SET password_hash = $2, password_changed = $3 WHERE \(Self.sameName)",
      [.text(name), .text(hash), Self.time(changed)]) > 0
  }

  func replacePasswordHash(of name: String, _ old: String, with new: String) throws(CatalogueError) -> Bool {
    try run(
      "UPDATE users SET password_hash = $3 WHERE \(Self.sameName) AND password_hash = $2",
      [.text(name), .text(old), .text(new)]) > 0
  }

  func deleteUser(name: String) throws(CatalogueError) -> Bool {
    try run("DELETE FROM users WHERE \(Self.sameName)", [.text(name)]) > 0
  }

  /// The reviewer's name as stored, for the rows that point at it: `user` may be in another case.
  private static let storedName = "(SELECT name FROM users WHERE lower(name) = lower($2))"

  func insertSession(idHash: String, user: String, created: Date, expires: Date) throws(CatalogueError) {
    try run(
      "INSERT INTO sessions (id_hash, reviewer, created, last_seen, expires) VALUES ($1, \(Self.storedName), $3, $3, $4)",
      [.text(idHash), .text(user), Self.time(created), Self.time(expires)])
  }

  func session(idHash: String) throws(CatalogueError) -> SessionRow? {
    each(try rows("SELECT reviewer, created, last_seen, expires FROM sessions WHERE id_hash = $1", [.text(idHash)])) {
      SessionRow(user: $0.text(0), created: $0.text(1), lastSeen: $0.text(2), expires: $0.text(3))
    }.first
  }

  func renewSession(idHash: String, lastSeen: Date, expires: Date) throws(CatalogueError) {
    try run(
      "UPDATE sessions SET last_seen = $1, expires = $2 WHERE id_hash = $3",
      [Self.time(lastSeen), Self.time(expires), .text(idHash)])
  }

  func deleteSession(idHash: String) throws(CatalogueError) {
    try run("DELETE FROM sessions WHERE id_hash = $1", [.text(idHash)])
  }

  func deleteSessions(ofUser name: String) throws(CatalogueError) -> Int {
    try run("DELETE FROM sessions WHERE lower(reviewer) = lower($1)", [.text(name)])
  }

  func deleteExpiredSessions(now: Date, startedBefore: Date) throws(CatalogueError) {
    try run("DELETE FROM sessions WHERE expires <= $1 OR created <= $2", [Self.time(now), Self.time(startedBefore)])
  }

  func insertToken(idHash: String, user: String, created: Date) throws(CatalogueError) {
    try run(
      "INSERT INTO tokens (id_hash, reviewer, created, last_used) VALUES ($1, \(Self.storedName), $3, NULL)",
      [.text(idHash), .text(user), Self.time(created)])
  }

  func token(idHash: String) throws(CatalogueError) -> TokenRow? {
    each(try rows("SELECT reviewer, last_used FROM tokens WHERE id_hash = $1", [.text(idHash)])) {
      TokenRow(user: $0.text(0), lastUsed: $0.optionalText(1))
    }.first
  }

  func markTokenUsed(idHash: String, at time: Date) throws(CatalogueError) {
    try run("UPDATE tokens SET last_used = $1 WHERE id_hash = $2", [Self.time(time), .text(idHash)])
  }

  func deleteTokens(ofUser name: String) throws(CatalogueError) -> Int {
    try run("DELETE FROM tokens WHERE lower(reviewer) = lower($1)", [.text(name)])
  }

  func recordSignIn(user: String, address: String, at time: Date) throws(CatalogueError) {
    try run(
      """
      INSERT INTO sign_in_addresses (address, reviewer, last_success) VALUES ($1, \(Self.storedName), $3)
      ON CONFLICT (reviewer, address) DO UPDATE SET last_success = excluded.last_success
      """, [.text(address), .text(user), Self.time(time)])
  }

  func signedIn(user: String, address: String, since: Date) throws(CatalogueError) -> Bool {
    try exists(
      "SELECT 1 FROM sign_in_addresses WHERE lower(reviewer) = lower($1) AND address = $2 AND last_success >= $3",
      [.text(user), .text(address), Self.time(since)])
  }

  func deleteSignInAddresses(before: Date) throws(CatalogueError) {
    try run("DELETE FROM sign_in_addresses WHERE last_success < $1", [Self.time(before)])
  }

  /// PostgreSQL's foreign keys remove a reviewer's sessions, tokens and addresses with them:
  /// there are never any left over.
  func removeOrphanAccess(dryRun: Bool) throws(CatalogueError) -> Int { 0 }

  // MARK: Imports

  func reviewSources(ofReview id: String) throws(CatalogueError) -> [(
    source: String, id: String, rating: String?, imported: String
  )] {
    each(
      try rows(
        "SELECT source, source_id, rating, imported FROM review_sources WHERE review = $1 ORDER BY source, source_id",
        [.text(id)])
    ) { ($0.text(0), $0.text(1), $0.optionalText(2), $0.text(3)) }
  }

  func importedEntries(source: String) throws(CatalogueError) -> [String: (
    review: String, fingerprint: String, version: String
  )] {
    let entries = each(
      try rows(
        "SELECT source_id, review, fingerprint, version FROM review_sources WHERE source = $1", [.text(source)])
    ) { ($0.text(0), ($0.text(1), $0.text(2), $0.text(3))) }
    return Dictionary(entries, uniquingKeysWith: { first, _ in first })
  }

  func saveReviewSource(
    source: String, sourceID: String, review: String, rating: String?, fingerprint: String, version: String,
    imported: Date
  ) throws(CatalogueError) {
    try run(
      """
      INSERT INTO review_sources (source, source_id, review, rating, fingerprint, version, imported)
      VALUES ($1, $2, $3, $4, $5, $6, $7)
      ON CONFLICT (source, source_id) DO UPDATE SET review = excluded.review, rating = excluded.rating,
        fingerprint = excluded.fingerprint, version = excluded.version, imported = excluded.imported
      """,
      [
        .text(source), .text(sourceID), .text(review), Self.value(rating), .text(fingerprint), .text(version),
        Self.time(imported),
      ])
  }

  func newestPublishedIDs(category: String?, author: String?, limit: Int) throws(CatalogueError) -> [String] {
    var conditions = ["NOT draft"]
    var parameters: [PostgreSQLValue?] = []
    if let category {
      parameters.append(.text(category))
      conditions.append("category = $\(parameters.count)")
    }
    if let author {
      parameters.append(.text(author))
      conditions.append("author_key = lower($\(parameters.count))")
    }
    parameters.append(PostgreSQLValue(limit))
    return try texts(
      "SELECT id FROM reviews WHERE " + conditions.joined(separator: " AND ")
        + " ORDER BY published_key DESC, seq DESC LIMIT $\(parameters.count)", parameters)
  }

  func authorNames() throws(CatalogueError) -> [String] {
    try texts(
      """
      WITH RECURSIVE named (name) AS (
        SELECT min(author_key) FROM reviews
        UNION ALL
        SELECT (SELECT min(author_key) FROM reviews WHERE author_key > named.name)
        FROM named WHERE named.name IS NOT NULL
      )
      SELECT (SELECT min(created_by) FROM reviews WHERE author_key = named.name)
      FROM named WHERE name IS NOT NULL
      """)
  }

  // MARK: The store itself

  /// PostgreSQL keeps its own memory: a server's connections share its buffers.
  func limitMemory(cacheBytes: Int) throws(CatalogueError) {}

  func changeToken() throws(CatalogueError) -> RecordsChangeToken {
    RecordsChangeToken(value: try integer(Self.changeTokenQuery))
  }

  /// The change token: how many statements changed the records (0 before the first, whose
  /// `last_value` is 1 too).
  static let changeTokenQuery = "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM catalogue_changes"

  /// PostgreSQL checks its own pages as it reads them (a damaged one fails the statement that
  /// reads it, as ``RecordStoreFailure/Kind/damaged``): the store is taken as whole.
  func damage(quick: Bool) -> DatabaseDamage { DatabaseDamage() }

  func repairDamage(copyingTo folder: String, shownAs shown: String) throws(CatalogueError) -> [String] { [] }

  func storeFindings(quick: Bool) -> (findings: [Finding], damaged: Bool) {
    var findings: [Finding] = []
    do {
      let version = try schemaVersion()
      if version != PostgreSQLSchema.current {
        findings.append(
          Finding(
            kind: .schemaVersion, target: connection.name,
            problem: "schema version \(version), expected \(PostgreSQLSchema.current)",
            remedy: "open the library with a catalogue that knows schema \(version)", repairable: false))
      }
      if !(try searchIndexInStep()) {
        findings.append(
          Finding(
            kind: .searchIndexOutOfStep, target: "review_search",
            problem: "the full-text index does not match the reviews",
            remedy: "repair rebuilds the index from the reviews", repairable: true))
      }
    } catch {
      findings.append(
        Finding(
          kind: .databaseCorrupt, target: connection.name, problem: "the database cannot be read whole (\(error)).",
          remedy: "see PostgreSQL's log; restore the database from a backup", repairable: false))
      return (findings, true)
    }
    return (findings, false)
  }

  /// Whether every review's search index is what its title and body give now: a review edited
  /// by hand in `psql` is not.
  func searchIndexInStep() throws(CatalogueError) -> Bool {
    try outOfStep(limit: 1).isEmpty
  }

  /// The ids of reviews whose search index is not what their text gives, at most `limit`:
  /// each batch of reviews indexed again here and compared there, one statement a batch.
  private func outOfStep(limit: Int) throws(CatalogueError) -> [String] {
    var found: [String] = []
    var after = ""
    while found.count < limit {
      let batch = each(
        try rows("SELECT id, title, body FROM reviews WHERE id > $1 ORDER BY id LIMIT 500", [.text(after)])
      ) { ($0.text(0), PostgreSQLSearch.document(title: $0.text(1), body: $0.text(2))) }
      guard let last = batch.last else { break }
      found += try texts(
        """
        SELECT r.id FROM unnest($1::text[], $2::text[], $3::integer[]) AS t (id, vector, length)
        JOIN reviews r ON r.id = t.id LEFT JOIN review_search s ON s.seq = r.seq
        WHERE s.seq IS NULL OR s.search <> t.vector::tsvector OR s.length <> t.length
        ORDER BY r.id
        """,
        [
          .text(PostgreSQLSearch.array(batch.map(\.0))), .text(PostgreSQLSearch.array(batch.map(\.1.vector))),
          .text(PostgreSQLSearch.array(batch.map { String($0.1.length) })),
        ])
      after = last.0
    }
    return Array(found.prefix(limit))
  }

  func rebuildSearchIndex() throws(CatalogueError) {
    var after = ""
    while true {
      let batch = each(
        try rows("SELECT id, title, body FROM reviews WHERE id > $1 ORDER BY id LIMIT 500", [.text(after)])
      ) { ($0.text(0), PostgreSQLSearch.document(title: $0.text(1), body: $0.text(2))) }
      guard let last = batch.last else { return }
      try run(
        """
        INSERT INTO review_search (seq, search, length)
        SELECT r.seq, t.vector::tsvector, t.length
        FROM unnest($1::text[], $2::text[], $3::integer[]) AS t (id, vector, length) JOIN reviews r ON r.id = t.id
        ON CONFLICT (seq) DO UPDATE SET search = excluded.search, length = excluded.length
        """,
        [
          .text(PostgreSQLSearch.array(batch.map(\.0))), .text(PostgreSQLSearch.array(batch.map(\.1.vector))),
          .text(PostgreSQLSearch.array(batch.map { String($0.1.length) })),
        ])
      after = last.0
    }
  }

  func cardsOutOfStep() throws(CatalogueError) -> [String] {
    try texts(
      """
      SELECT r.id FROM reviews r
      WHERE r.image_count <> (SELECT count(*) FROM review_images l WHERE l.review = r.id)
        OR r.cover_image IS DISTINCT FROM (SELECT l.image FROM review_images l WHERE l.review = r.id AND l.cover)
        OR r.cover_alt IS DISTINCT FROM (SELECT l.alt FROM review_images l WHERE l.review = r.id AND l.cover)
      ORDER BY r.id
      """)
  }

  func refreshCards(of ids: [String]) throws(CatalogueError) {
    guard !ids.isEmpty else { return }
    _ = try rows("SELECT catalogue_refresh_cards($1::text[])", [.text(PostgreSQLSearch.array(ids))])
  }

}
