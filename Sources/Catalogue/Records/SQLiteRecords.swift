import Foundation
import ImagePipeline

/// The catalogue's records in SQLite: every SQL statement of `Catalogue` is in this file. The
/// library holds the rules (validation, ids, files, locks, interruptions) and asks this type for
/// the records, by operations that name what they do, so that another record store (PostgreSQL,
/// for a team) could be written against the same operations. Values come back as stored (see
/// ``RecordValue`` for reading them); SQLite's failures come back as catalogue errors.
///
/// Not `Sendable`: one owner uses it, as it uses its one connection.
final class SQLiteRecords: RecordStore {
  let database: Database

  init(_ database: Database) { self.database = database }

  /// What pages ask again and again, remembered while the database stays as it was (see
  /// ``Database/changeToken()``): how many reviews each filter matches (a grid of 100,000
  /// reviews would otherwise count them all for each of its pages), the categories in use, and
  /// the image records of the covers shown.
  private var remembered = Remembered()

  private struct Remembered {
    var token: Database.ChangeToken?
    var counts: [Count: Int] = [:]
    /// The categories in use: by every review (`false`), by published ones (`true`).
    var categories: [Bool: [String]] = [:]
    /// Whether any review is a draft.
    var hasDrafts: Bool?
    /// Image records by hash: a grid's covers, and the pictures its thumbnails are asked for.
    var images: [String: ImageRow] = [:]

    struct Count: Hashable {
      let sql: String
      let arguments: [SQLValue]
    }

    /// The most counts kept: filters a reader tries in turn.
    static let countLimit = 64
    /// The most image records kept (about 400 bytes each with their key): twenty grid pages of
    /// distinct covers, a few hundred KiB a connection.
    static let imageLimit = 1024
  }

  /// What is remembered, forgotten first if the database has changed since (`token` is the
  /// one read before what is to be remembered).
  private func remembering(since token: Database.ChangeToken) {
    if remembered.token != token { remembered = Remembered(token: token) }
  }

  var readOnlyReason: ReadOnlyReason? { database.readOnlyReason }
  var openingNote: String? { database.note }

  /// Creates the records of a new library in a new SQLite file at `file`, at the current schema.
  /// `library` names the library in errors.
  static func create(file: String, library: String, busyTimeoutMilliseconds: Int32) throws(CatalogueError)
    -> SQLiteRecords
  {
    let database = try connect(path: file, create: true, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    try Schema.migrate(database, path: library)
    return SQLiteRecords(database)
  }

  /// Opens the records in the SQLite file `file` of the library at `library`, and the schema
  /// version they were at. A file that is empty, damaged or not a catalogue's, or written by a
  /// newer schema, is refused and left untouched. An older schema is brought up to date when
  /// `upgrading`, and refused otherwise, so that a command that only reads never writes.
  static func open(file: String, library: String, upgrading: Bool, busyTimeoutMilliseconds: Int32)
    throws(CatalogueError) -> (records: SQLiteRecords, version: Int)
  {
    let database: Database
    do {
      database = try connect(path: file, create: false, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    } catch {
      throw damaged(error, file: file)
    }
    var found = 0
    do throws(CatalogueError) {
      found = try Schema.version(of: database)
      if found == 0 {
        throw .damagedDatabase(
          path: file, reason: "it is an SQLite database, but not a catalogue's (schema version 0)")
      }
      if found < Schema.current && !upgrading {
        throw .olderSchema(path: library, found: found, known: Schema.current)
      }
      if found < Schema.current, let reason = database.readOnlyReason {
        throw .readOnlyLibrary(path: library, reason: reason)
      }
      try Schema.migrate(database, path: library)
      if upgrading && database.readOnlyReason == nil { try Schema.useWriteAheadLog(database) }
    } catch {
      throw damaged(error, file: file)
    }
    return (SQLiteRecords(database), found)
  }

  /// SQLite's "not a database" and "corrupt" as a damaged database; other errors as they are.
  private static func damaged(_ error: CatalogueError, file: String) -> CatalogueError {
    guard case .database(let cause) = error, cause.kind == .damaged else {
      return error
    }
    return .damagedDatabase(path: file, reason: "SQLite cannot read it (\(cause.message))")
  }

  /// Opens (or with `create`, creates, in WAL mode) the database at `path`, with the busy
  /// timeout, foreign keys, full synchronous commits and memory-mapped reads.
  ///
  /// An existing file that is empty or does not start with SQLite's header is refused before
  /// anything is run on it: SQLite would take an empty file for a new database.
  private static func connect(path: String, create: Bool, busyTimeoutMilliseconds: Int32) throws(CatalogueError)
    -> Database
  {
    switch try connectToWrite(path: path, create: create, busyTimeoutMilliseconds: busyTimeoutMilliseconds) {
    case .success(let database):
      return database
    case .failure(let error):
      // The connection that failed is closed by now: the read-only open may read the files.
      guard !create, let reason = readOnlyReason(of: path, after: error) else { throw CatalogueError(error) }
      return try connectReadOnly(path: path, because: reason, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
    }
  }

  /// The connection that may write, or why its first read failed.
  private static func connectToWrite(path: String, create: Bool, busyTimeoutMilliseconds: Int32)
    throws(CatalogueError) -> Result<Database, DatabaseError>
  {
    let database: Database
    do {
      database = try Database(path: path, create: create)
    } catch {
      throw CatalogueError(error)
    }
    if !create { try checkHeader(database) }
    do {
      try database.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
      // WAL lets readers go on while one process writes; it is a property of the file.
      if create { try database.execute("PRAGMA journal_mode = WAL") }
      // FULL: a committed transaction survives a power cut, not only a crash. Memory-mapped
      // reads spare a copy of every page a large list or search touches.
      try database.execute("PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL; PRAGMA mmap_size = 268435456")
      // The first read: the write-ahead log's index is made now, which a folder that cannot be
      // written, or a full disk, refuses.
      _ = try database.scalar("SELECT count(*) FROM sqlite_schema")
      return .success(database)
    } catch {
      return .failure(error)
    }
  }

  /// Why the library holding the database at `path` cannot be written, when `error` (of its
  /// opening) is a refusal to write — a read-only disk or folder, a full disk — and not damage.
  private static func readOnlyReason(of path: String, after error: DatabaseError) -> ReadOnlyReason? {
    // SQLITE_READONLY, SQLITE_FULL, SQLITE_CANTOPEN (the log or its index cannot be made), and
    // the log index's own I/O errors (SQLITE_IOERR_SHMOPEN, _SHMSIZE, _SHMLOCK, _SHMMAP).
    let writeRefusals: Set<Int32> = [8, 13, 14]
    let indexErrors: Set<Int32> = [4618, 4874, 5130, 5386]
    guard writeRefusals.contains(error.primaryCode) || indexErrors.contains(error.code) else { return nil }
    let folder = String(
      path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropLast()
        .map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/"))
    let space = FileSystem.space(at: folder.isEmpty ? "." : folder)
    if space?.readOnly == true { return .readOnlyDisk }
    if space?.freeInodes == 0 { return .noFreeInodes }
    if error.primaryCode == 13 || error.code == 4874 || (space?.freeBytes ?? .max) < 256 << 10 { return .diskFull }
    return .notWritable
  }

  /// Opens the database at `path` to read only, for a library that cannot be written: through
  /// SQLite's locks when the write-ahead log's index can be read; as immutable when there is no
  /// log to read (nothing in it); else from copies of the database and its log in a temporary
  /// folder (a log SQLite cannot index where it is), and failing that as immutable all the
  /// same, with a note that what it shows is as of the last checkpoint.
  private static func connectReadOnly(path: String, because reason: ReadOnlyReason, busyTimeoutMilliseconds: Int32)
    throws(CatalogueError) -> Database
  {
    func open(_ file: String, _ access: Database.Access) throws(DatabaseError) -> Database {
      let database = try Database(path: file, create: false, access: access)
      try database.setBusyTimeout(milliseconds: busyTimeoutMilliseconds)
      _ = try database.scalar("SELECT count(*) FROM sqlite_schema")
      database.readOnlyReason = reason
      return database
    }
    let log = FileStatus.at(path + "-wal")?.size ?? 0
    do {
      if log == 0 { return try open(path, .immutable) }
      if let database = try? open(path, .readOnly) { return database }
      if let copies = copyForReading(path) {
        let database = try open("\(copies)/\(LibraryLayout.database)", .readWrite)
        database.copiesFolder = copies
        return database
      }
      let database = try open(path, .immutable)
      database.note =
        "the library's write-ahead log cannot be read here (its folder cannot be written, and there was no room "
        + "for a copy): what is shown is as of its last checkpoint"
      return database
    } catch {
      throw CatalogueError(error)
    }
  }

  /// Copies the database at `path` and its write-ahead log into a new private folder in the
  /// temporary folder; the folder, or nil when there is no room.
  private static func copyForReading(_ path: String) -> String? {
    guard let folder = try? FileSystem.makePrivateFolder(named: "\(NSTemporaryDirectory())/catalogue-read-XXXXXX")
    else { return nil }
    for suffix in ["", "-wal"] {
      let target = "\(folder)/\(LibraryLayout.database)\(suffix)"
      guard (try? FileSystem.copy(path + suffix, to: target)) != nil else {
        for name in (try? FileSystem.names(in: folder)) ?? [] { try? FileSystem.remove("\(folder)/\(name)") }
        _ = try? FileSystem.removeFolderIfEmpty(folder)
        return nil
      }
    }
    return folder
  }

  /// Refuses a database file that is empty or does not start like an SQLite database.
  private static func checkHeader(_ database: Database) throws(CatalogueError) {
    let header: (size: Int, head: [UInt8])
    do {
      header = try database.fileHeader(count: 16)
    } catch {
      throw CatalogueError(error)
    }
    if header.size == 0 {
      throw .damagedDatabase(path: database.path, reason: "it is empty (0 bytes): was a copy cut short?")
    }
    if header.head != Array("SQLite format 3\0".utf8) {
      throw .damagedDatabase(
        path: database.path, reason: "it does not start like an SQLite database (damaged, or another kind of file)")
    }
  }

  /// Runs SQLite work, turning its errors into catalogue errors.
  func sql<T>(_ body: () throws(DatabaseError) -> T) throws(CatalogueError) -> T {
    do {
      return try body()
    } catch {
      throw CatalogueError(error)
    }
  }

  // MARK: Transactions

  func writeTransaction<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T {
    try database.writeTransaction(body)
  }

  func readTransaction<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T {
    try database.readTransaction(body)
  }

  func lockedLook<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T {
    try database.lockedLook(body)
  }

  func schemaVersion() throws(CatalogueError) -> Int { try Schema.version(of: database) }

  // MARK: Settings

  func settings() throws(CatalogueError) -> [String: String] {
    let rows = try sql { () throws(DatabaseError) in
      try database.query("SELECT key, value FROM settings") { ($0.text(0), $0.text(1)) }
    }
    return Dictionary(rows, uniquingKeysWith: { first, _ in first })
  }

  /// Stores a setting (inside the caller's transaction).
  func saveSetting(_ key: String, _ value: String) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      try database.run(
        "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [.text(key), .text(value)])
    }
  }

  /// Removes a setting (inside the caller's transaction): its default is in force again.
  func deleteSetting(_ key: String) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      try database.run("DELETE FROM settings WHERE key = ?", [.text(key)])
    }
  }

  // MARK: Reviews

  /// Inserts a review; `false` when `id` is taken already.
  func insertReview(
    id: String, _ fields: ReviewFields, created: Date, updated: Date, published: Date?, author: String?
  ) throws(CatalogueError) -> Bool {
    do {
      try database.run(
        """
        INSERT INTO reviews (id, title, body, rating, category, favorite, created, updated, created_by, updated_by,
          contains_spoilers, draft, published)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        [
          .text(id), .text(fields.title), .text(fields.body), SQLValue(fields.rating), .text(fields.category.rawValue),
          SQLValue(fields.favorite), .text(DateText.format(created)), .text(DateText.format(updated)),
          SQLValue(author), SQLValue(author), SQLValue(fields.containsSpoilers), SQLValue(published == nil),
          published.map { .text(DateText.format($0)) } ?? .null,
        ])
      return true
    } catch  where error.isConstraintViolation && reviewExists(id) {
      return false
    } catch {
      throw CatalogueError(error)
    }
  }

  func updateReview(id: String, _ fields: ReviewFields, updated: Date, author: String?) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      try database.run(
        """
        UPDATE reviews SET title = ?, body = ?, rating = ?, category = ?, favorite = ?, contains_spoilers = ?,
          updated = max(?, created), updated_by = ?
        WHERE id = ?
        """,
        [
          .text(fields.title), .text(fields.body), SQLValue(fields.rating), .text(fields.category.rawValue),
          SQLValue(fields.favorite), SQLValue(fields.containsSpoilers), .text(DateText.format(updated)),
          SQLValue(author), .text(id),
        ])
    }
  }

  func setPublished(id: String, _ published: Date?) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      try database.run(
        "UPDATE reviews SET draft = ?, published = ? WHERE id = ?",
        [SQLValue(published == nil), published.map { .text(DateText.format($0)) } ?? .null, .text(id)])
    }
  }

  /// Deletes a review; its links to images go with it.
  func deleteReview(id: String) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in try database.run("DELETE FROM reviews WHERE id = ?", [.text(id)]) }
  }

  private func reviewExists(_ id: String) -> Bool {
    (try? database.scalar("SELECT 1 FROM reviews WHERE id = ?", [.text(id)])) != nil
  }

  /// Whether a review has the id `id`.
  func hasReview(id: String) throws(CatalogueError) -> Bool {
    try sql { () throws(DatabaseError) in try database.scalar("SELECT 1 FROM reviews WHERE id = ?", [.text(id)]) != nil
    }
  }

  /// The ids that start with `prefix` (lowercase hexadecimal), at most `limit`, in order.
  ///
  /// Found through the id's index, whatever else is asked: `+draft` keeps SQLite from taking
  /// `reviews_draft (draft, category)` for a reader's lookup instead, which walks every
  /// published review and sorts them (a quarter of a second a review page on 100,000).
  func reviewIDs(withPrefix prefix: String, limit: Int, publishedOnly: Bool) throws(CatalogueError) -> [String] {
    try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT id FROM reviews WHERE id >= ? AND id < ?\(publishedOnly ? " AND +draft = 0" : "") ORDER BY id LIMIT ?",
        [.text(prefix), .text(prefix + "g"), SQLValue(limit)]
      ) { $0.text(0) }
    }
  }

  /// Every review id, in id order (`byID`) or in the order they were added.
  func reviewIDs(byID: Bool, publishedOnly: Bool) throws(CatalogueError) -> [String] {
    try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT id FROM reviews\(publishedOnly ? " WHERE +draft = 0" : "") ORDER BY \(byID ? "id" : "seq")"
      ) { $0.text(0) }
    }
  }

  /// The ids just before and just after `id` in id order.
  func neighbourIDs(of id: String) throws(CatalogueError) -> [String] {
    try sql { () throws(DatabaseError) in
      var found: [String] = []
      for neighbour in [
        "SELECT id FROM reviews WHERE id < ? ORDER BY id DESC LIMIT 1",
        "SELECT id FROM reviews WHERE id > ? ORDER BY id LIMIT 1",
      ] {
        if case .text(let other) = try database.scalar(neighbour, [.text(id)]) { found.append(other) }
      }
      return found
    }
  }

  func review(id: String) throws(CatalogueError) -> ReviewRow? {
    try sql { () throws(DatabaseError) in
      try database.query("SELECT \(RecordColumns.review) FROM reviews WHERE id = ?", [.text(id)]) {
        ReviewRow(reading: SQLiteRow($0))
      }
      .first
    }
  }

  /// Every review, in id order.
  func allReviews() throws(CatalogueError) -> [ReviewRow] {
    try sql { () throws(DatabaseError) in
      try database.query("SELECT \(RecordColumns.review) FROM reviews ORDER BY id") {
        ReviewRow(reading: SQLiteRow($0))
      }
    }
  }

  func reviewTitle(id: String) throws(CatalogueError) -> String? {
    try sql { () throws(DatabaseError) in
      try database.query("SELECT title FROM reviews WHERE id = ?", [.text(id)]) { $0.text(0) }.first
    }
  }

  func reviewCount() throws(CatalogueError) -> Int {
    try sql { () throws(DatabaseError) in try database.query("SELECT count(*) FROM reviews") { $0.int(0) }.first ?? 0 }
  }

  /// The category labels in use (by published reviews only, with `publishedOnly`).
  func categoryLabels(publishedOnly: Bool) throws(CatalogueError) -> [String] {
    // One index seek a label (a loose index scan), not a walk over every review: the labels
    // are few, the reviews may be a hundred thousand, and the server asks for every page.
    try sql { () throws(DatabaseError) in
      let token = try database.changeToken()
      remembering(since: token)
      if let labels = remembered.categories[publishedOnly] { return labels }
      // Published ones through `reviews_draft (draft, category)`, the same seek a label.
      let published = publishedOnly ? "draft = 0" : "1"
      let labels = try database.query(
        """
        WITH RECURSIVE used (category) AS (
          SELECT min(category) FROM reviews WHERE \(published)
          UNION ALL
          SELECT (SELECT min(category) FROM reviews WHERE \(published) AND category > used.category) FROM used
          WHERE used.category IS NOT NULL
        )
        SELECT category FROM used WHERE category IS NOT NULL
        """
      ) { $0.text(0) }
      remembered.categories[publishedOnly] = labels
      return labels
    }
  }

  func page(_ query: ReviewQuery, search: SearchQuery.Parsed?, rankingWindow: Int) throws(CatalogueError)
    -> (total: Int, totalIsEstimate: Bool, rows: [SummaryRow])
  {
    try page(
      query, match: search?.expression, maximumSteps: search?.maximumSteps ?? Self.searchSteps,
      rankingWindow: rankingWindow)
  }

  /// The most steps of SQLite's virtual machine a search of one word may take, its count and
  /// page together: about 17 a matching review, so a word in all of 100,000 reviews (1.7
  /// million) is answered. Scoring a review's relevance costs more the more words there are
  /// to score, so a search of `n` words has `4 / (n + 3)` of it (see
  /// ``SearchQuery/Parsed/maximumSteps``).
  static let searchSteps = 2_000_000

  /// A page of reviews for `query`, whose search is given as an FTS5 expression (`match`): the
  /// number that match (estimated, `totalIsEstimate`, when a search by relevance matches more
  /// than `rankingWindow`), and the page's rows in order. A search taking SQLite more than
  /// `maximumSteps` steps is refused as too broad.
  ///
  /// By relevance, the newest `rankingWindow` matches of the search are scored (BM25, by
  /// `catalogue_rank`) and come first, best first; when there are more, the older ones follow,
  /// newest first. Finding the newest matches costs FTS5 a walk down its lists that stops
  /// there, and scoring each a few hundred nanoseconds; ranking every match of a word in most
  /// reviews would cost a hundred times the window.
  func page(_ query: ReviewQuery, match: String?, maximumSteps: Int, rankingWindow: Int) throws(CatalogueError)
    -> (total: Int, totalIsEstimate: Bool, rows: [SummaryRow])
  {
    // Each condition as the count asks it, and as a page asks it: a page's favourite mark, and
    // its stars in another order than the rating's, are tested inside the index that gives the
    // order (the unary + keeps SQLite from taking the favourites' or the rating's index instead,
    // and sorting all it finds); the count takes those indexes.
    var conditions: [(count: String, page: String)] = []
    var arguments: [SQLValue] = []
    var from = "reviews r"
    if let match {
      from = "reviews_fts JOIN reviews r ON r.seq = reviews_fts.rowid >> \(SearchIndex.lengthBits)"
      conditions.append(("reviews_fts MATCH ?", "reviews_fts MATCH ?"))
      arguments.append(.text(match))
    }
    if let category = query.category {
      conditions.append(("r.category = ?", "r.category = ?"))
      arguments.append(.text(category.rawValue))
    }
    // Through `reviews_created_by` (schema 10), whose first column compares in any ASCII case:
    // a reviewer's page is read from it in order, and counted from it alone.
    if let author = query.author {
      conditions.append(("r.created_by = ? COLLATE NOCASE", "r.created_by = ? COLLATE NOCASE"))
      arguments.append(.text(author))
    }
    if let rating = query.minimumRating {
      conditions.append(("r.rating >= ?", query.sort == .rating ? "r.rating >= ?" : "+r.rating >= ?"))
      arguments.append(SQLValue(rating))
    }
    if query.favoritesOnly { conditions.append(("r.favorite = 1", "+r.favorite = 1")) }
    // Tested inside the index the page is read from, which carries `draft` (schema 9). A
    // library without drafts (most of them) needs no test: a search is then counted and ranked
    // from the full-text index alone, as it was before drafts.
    //
    // A search leaves drafts out by their place in the full-text index instead (`unlisted`):
    // the set of drafts' `seq`s, made once a query, is looked up for each match, where joining
    // each match to its review to read `draft` would read a row of the table a match.
    var unlisted: String?
    switch query.showing {
    case .published:
      if try hasDrafts() {
        if match == nil {
          conditions.append(("r.draft = 0", "+r.draft = 0"))
        } else {
          unlisted =
            "reviews_fts.rowid >> \(SearchIndex.lengthBits) NOT IN (SELECT seq FROM reviews WHERE draft = 1)"
        }
      }
    case .drafts: conditions.append(("r.draft = 1", "+r.draft = 1"))
    case .all: break
    }
    let unlistedFilter = unlisted.map { " AND " + $0 } ?? ""
    let filter =
      conditions.isEmpty ? "" : " WHERE " + conditions.map(\.count).joined(separator: " AND ") + unlistedFilter
    let pageFilter =
      conditions.isEmpty ? "" : " WHERE " + conditions.map(\.page).joined(separator: " AND ") + unlistedFilter
    let sort = query.sort ?? (match == nil ? .updated : .relevance)
    let order = sort.sql(reversed: query.reversed, title: "r.title COLLATE NOCASE")
    func work() throws(DatabaseError) -> (total: Int, totalIsEstimate: Bool, rows: [SummaryRow]) {
      let found: (total: Int, totalIsEstimate: Bool, seqs: [Int])
      if let match, sort == .relevance {
        found = try rankedPage(
          match: match, filters: Array(conditions.dropFirst().map(\.count)), unlisted: unlisted,
          arguments: Array(arguments.dropFirst()),
          reversed: query.reversed, limit: query.limit, offset: query.offset, window: rankingWindow)
      } else {
        // A search with no other filter is counted by the full-text index alone: every row of
        // it is a review, and joining each match to its review costs a lookup a match.
        let counting =
          match != nil && conditions.count == 1
          ? "SELECT count(*) FROM reviews_fts WHERE reviews_fts MATCH ?\(unlistedFilter)"
          : "SELECT count(*) FROM \(from)\(filter)"
        let total = try count(counting, arguments)
        // The page's rows are found first from the indexes alone; only those are then read
        // whole. An OFFSET would otherwise read (and count the images of) every skipped row.
        let page = try database.query(
          "SELECT r.seq FROM \(from)\(pageFilter) ORDER BY \(order) LIMIT ? OFFSET ?",
          arguments + [SQLValue(query.limit), SQLValue(query.offset)]
        ) { $0.int(0) }
        found = (total, false, page)
      }
      return (found.total, found.totalIsEstimate, try summaryRows(seqs: found.seqs))
    }
    guard match != nil else { return try sql(work) }
    // A search's cost is bounded whatever its words.
    do {
      return try database.limitingSteps(to: maximumSteps, work)
    } catch {
      if error.isInterrupted { throw .invalidQuery(SearchQuery.tooBroad) }
      throw CatalogueError(error)
    }
  }

  /// Whether any review is a draft, remembered until the database changes: one step into an
  /// index.
  private func hasDrafts() throws(CatalogueError) -> Bool {
    try sql { () throws(DatabaseError) in
      remembering(since: try database.changeToken())
      if let known = remembered.hasDrafts { return known }
      let found = try database.scalar("SELECT 1 FROM reviews WHERE draft = 1 LIMIT 1") != nil
      remembered.hasDrafts = found
      return found
    }
  }

  /// The one number `sql` counts, remembered until the database changes: read inside the
  /// page's transaction, the token is its snapshot's.
  private func count(_ sql: String, _ arguments: [SQLValue]) throws(DatabaseError) -> Int {
    let token = try database.changeToken()
    remembering(since: token)
    let key = Remembered.Count(sql: sql, arguments: arguments)
    if let total = remembered.counts[key] { return total }
    let total = try database.query(sql, arguments) { $0.int(0) }.first ?? 0
    if remembered.counts.count >= Remembered.countLimit { remembered.counts.removeAll(keepingCapacity: true) }
    remembered.counts[key] = total
    return total
  }

  /// The page of a search by relevance (see ``page(_:match:maximumSteps:rankingWindow:)``): the
  /// `seq`s of its reviews in order, and how many match. `unlisted` is a condition on the
  /// index's rowid alone, the drafts a reader does not see. `filters` are conditions on the
  /// review `r`, with their `arguments`.
  private func rankedPage(
    match: String, filters: [String], unlisted: String?, arguments: [SQLValue], reversed: Bool, limit: Int,
    offset: Int, window: Int
  ) throws(DatabaseError) -> (total: Int, totalIsEstimate: Bool, seqs: [Int]) {
    let bits = SearchIndex.lengthBits
    // The span of `seq`, for the estimates: of a common phrase's weight, and of the total. (Two
    // subqueries: each is one step down the table, where min and max together would read it.)
    let (first, last) =
      try database.query("SELECT (SELECT min(seq) FROM reviews), (SELECT max(seq) FROM reviews)") {
        ($0.int(0), $0.int(1))
      }.first ?? (0, 0)
    let scoring = "SELECT reviews_fts.rowid, catalogue_rank(reviews_fts, ?, ?) FROM reviews_fts"
    var scored: [(key: Int, score: Double)]
    // The key of the newest match left out of the window, when there is one: the window is the
    // matches above it, the rest the matches from it down.
    var boundary: Int?
    let filtered = (filters + (unlisted.map { [$0] } ?? [])).map { " AND " + $0 }.joined()
    if filters.isEmpty {
      scored = try database.query(
        "\(scoring) WHERE reviews_fts MATCH ?\(filtered) ORDER BY reviews_fts.rowid DESC LIMIT ?",
        [SQLValue(first), SQLValue(last), .text(match), SQLValue(window + 1)]
      ) { ($0.int(0), $0.double(1)) }
      if scored.count > window { boundary = scored.removeLast().key }
    } else {
      // The window is the newest matches of the search, which the filters then choose among:
      // finding as many matches that pass them could walk every match.
      boundary = try database.query(
        "SELECT rowid FROM reviews_fts WHERE reviews_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
        [.text(match), SQLValue(window)]
      ) { $0.int(0) }.first
      scored = try database.query(
        "\(scoring) JOIN reviews r ON r.seq = reviews_fts.rowid >> \(bits) WHERE reviews_fts MATCH ?\(filtered)"
          + " AND reviews_fts.rowid > ? ORDER BY reviews_fts.rowid DESC",
        [SQLValue(first), SQLValue(last), .text(match)] + arguments + [SQLValue(boundary ?? Int.min)]
      ) { ($0.int(0), $0.double(1)) }
    }
    // Best first (lowest score), ties in the order the reviews were added, as FTS5's `ORDER BY
    // rank, rowid` gives them.
    let rest =
      "SELECT reviews_fts.rowid >> \(bits) FROM reviews_fts"
      + (filters.isEmpty ? "" : " JOIN reviews r ON r.seq = reviews_fts.rowid >> \(bits)")
      + " WHERE reviews_fts MATCH ?\(filtered) AND reviews_fts.rowid <= ?"
    let restArguments = [.text(match)] + arguments + [SQLValue(boundary ?? 0)]
    return try RankedWindow(
      scored: scored.map { (seq: $0.key >> bits, score: $0.score) }, ranksAbove: { $0 < $1 },
      boundary: boundary.map { $0 >> bits }, first: first, last: last
    ).page(
      reversed: reversed, limit: limit, offset: offset,
      rest: { (ascending, limit, offset) throws(DatabaseError) in
        try database.query(
          "\(rest) ORDER BY reviews_fts.rowid \(ascending ? "ASC" : "DESC") LIMIT ? OFFSET ?",
          restArguments + [SQLValue(limit), SQLValue(offset)]
        ) { $0.int(0) }
      },
      restCount: { () throws(DatabaseError) in
        try database.query("SELECT count(*) FROM (\(rest))", restArguments) { $0.int(0) }.first ?? 0
      })
  }

  /// The first `count` of `items` in the order `areInOrder` (a strict total order) gives, as
  /// `items.sorted(by: areInOrder).prefix(count)`, without putting the others in order: the
  /// first page of 2,000 ranked matches is 50 of them, and a deep one a few hundred.
  static func first<T>(_ count: Int, of items: [T], by areInOrder: (T, T) -> Bool) -> [T] {
    guard count > 0 else { return [] }
    guard count < items.count / 2 else { return Array(items.sorted(by: areInOrder).prefix(count)) }
    // A heap of the first `count` so far, the last of them on top.
    var heap: [T] = []
    heap.reserveCapacity(count)
    func siftDown(from start: Int) {
      var parent = start
      while true {
        var largest = parent
        let left = 2 * parent + 1
        if left < heap.count && areInOrder(heap[largest], heap[left]) { largest = left }
        if left + 1 < heap.count && areInOrder(heap[largest], heap[left + 1]) { largest = left + 1 }
        if largest == parent { return }
        heap.swapAt(parent, largest)
        parent = largest
      }
    }
    for item in items {
      if heap.count < count {
        heap.append(item)
        var child = heap.count - 1
        while child > 0 && areInOrder(heap[(child - 1) / 2], heap[child]) {
          heap.swapAt(child, (child - 1) / 2)
          child = (child - 1) / 2
        }
      } else if areInOrder(item, heap[0]) {
        heap[0] = item
        siftDown(from: 0)
      }
    }
    return heap.sorted(by: areInOrder)
  }

  /// `value` rounded to two significant digits (12,345 → 12,000).
  static func twoDigits(_ value: Double) -> Int {
    guard value >= 100 else { return Int(value.rounded()) }
    let unit = pow(10, (log10(value).rounded(.down) - 1))
    return Int((value / unit).rounded() * unit)
  }

  /// The summaries of the reviews `seqs`, in that order.
  private func summaryRows(seqs: [Int]) throws(DatabaseError) -> [SummaryRow] {
    guard !seqs.isEmpty else { return [] }
    let placeholders = Array(repeating: "?", count: seqs.count).joined(separator: ", ")
    // What the card shows of the pictures is on the review's row (``Schema/cardTriggers``);
    // the cover's image record comes from those remembered: a grid shows the same pictures
    // again.
    var covers: [String?] = []
    var rows = try database.query(
      """
      SELECT r.seq, r.id, r.title, r.rating, r.category, r.favorite, r.created, r.updated, r.created_by,
        r.updated_by, r.image_count, r.cover_image, r.cover_alt, r.contains_spoilers, r.draft, r.published
      FROM reviews r
      WHERE r.seq IN (\(placeholders))
      """, seqs.map { SQLValue($0) }
    ) { row in
      covers.append(row.optionalText(11))
      return (
        row.int(0),
        SummaryRow(
          id: row.text(1), title: row.text(2), rating: row.int(3), category: row.text(4), favorite: row.bool(5),
          created: row.text(6), updated: row.text(7), imageCount: row.int(10), cover: nil,
          coverAlt: row.optionalText(12), createdBy: row.optionalText(8), updatedBy: row.optionalText(9),
          containsSpoilers: row.bool(13), draft: row.bool(14), published: row.optionalText(15))
      )
    }
    try rememberImageRows(covers.compactMap { $0 })
    for index in rows.indices {
      guard let sha256 = covers[index] else { continue }
      // A link's image always has a record (a foreign key): one missing is a damaged library,
      // for `check` to find; the card shows no cover meanwhile.
      rows[index].1.cover = remembered.images[sha256]
    }
    let bySeq = Dictionary(rows, uniquingKeysWith: { first, _ in first })
    return seqs.compactMap { bySeq[$0] }
  }

  /// Brings the image records of `hashes` (at most ``Remembered/imageLimit``) into those
  /// remembered since the database last changed, reading the others in one statement; a hash
  /// with no record stays out.
  private func rememberImageRows(_ hashes: [String]) throws(DatabaseError) {
    guard !hashes.isEmpty else { return }
    remembering(since: try database.changeToken())
    let missing = hashes.filter { remembered.images[$0] == nil }
    guard !missing.isEmpty else { return }
    let placeholders = Array(repeating: "?", count: missing.count).joined(separator: ", ")
    let read = try database.query(
      "SELECT \(RecordColumns.image) FROM images i WHERE i.sha256 IN (\(placeholders))",
      missing.map { SQLValue.text($0) }
    ) { ImageRow(reading: SQLiteRow($0), from: 0) }
    if remembered.images.count + read.count > Remembered.imageLimit {
      remembered.images.removeAll(keepingCapacity: true)
    }
    for row in read { remembered.images[row.sha256] = row }
  }

  // MARK: Images and links

  /// A review's images in order: position, cover flag and the image's columns.
  func imageRows(ofReview id: String) throws(CatalogueError)
    -> [(position: Int, cover: Bool, image: ImageRow, link: ImageLink)]
  {
    try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT ri.position, ri.cover, \(RecordColumns.image), ri.alt, ri.caption, ri.name FROM review_images ri "
          + "JOIN images i ON i.sha256 = ri.image WHERE ri.review = ? ORDER BY ri.position",
        [.text(id)]
      ) { row in
        let image = ImageRow(reading: SQLiteRow(row), from: 2)
        return (
          row.int(0), row.bool(1), image,
          ImageLink(
            sha256: image.sha256, alt: row.optionalText(13), caption: row.optionalText(14), name: row.optionalText(15))
        )
      }
    }
  }

  /// Adds an image record, unless the picture has one already.
  func insertImage(_ image: StoredImage) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      try database.run(
        """
        INSERT INTO images (sha256, format, width, height, orientation, bytes, thumbnail_format,
          thumbnail_width, thumbnail_height, imported, color_space)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (sha256) DO NOTHING
        """,
        [
          .text(image.sha256), .text(image.format.rawValue), SQLValue(image.width), SQLValue(image.height),
          SQLValue(image.orientation.rawValue), SQLValue(image.bytes), .text(image.thumbnailFormat.rawValue),
          SQLValue(image.thumbnailWidth), SQLValue(image.thumbnailHeight), .text(DateText.format(image.imported)),
          image.colorSpace.map { .text($0) } ?? .null,
        ])
    }
  }

  func hasImage(sha256: String) throws(CatalogueError) -> Bool {
    try sql { () throws(DatabaseError) in
      try database.scalar("SELECT 1 FROM images WHERE sha256 = ?", [.text(sha256)]) != nil
    }
  }

  func imageRow(sha256: String) throws(CatalogueError) -> ImageRow? {
    try sql { () throws(DatabaseError) in
      try rememberImageRows([sha256])
      return remembered.images[sha256]
    }
  }

  /// Replaces a review's links with `links` in order, `cover` the one marked, and sets its
  /// updated time when `updated` is given.
  func setLinks(ofReview id: String, _ links: [ImageLink], cover: String?, updated: Date?, author: String?)
    throws(CatalogueError)
  {
    try sql { () throws(DatabaseError) in
      try database.run("DELETE FROM review_images WHERE review = ?", [.text(id)])
      for (index, link) in links.enumerated() {
        try database.run(
          "INSERT INTO review_images (review, position, image, cover, alt, caption, name) VALUES (?, ?, ?, ?, ?, ?, ?)",
          [
            .text(id), SQLValue(index + 1), .text(link.sha256), SQLValue(link.sha256 == cover), SQLValue(link.alt),
            SQLValue(link.caption), SQLValue(link.name),
          ])
      }
      if let updated {
        try database.run(
          // A clock set back since the review was written never makes it updated before it
          // was created (the times are written alike, so their text orders as they do).
          "UPDATE reviews SET updated = max(?, created), updated_by = ? WHERE id = ?",
          [.text(DateText.format(updated)), SQLValue(author), .text(id)])
      }
    }
  }

  /// Deletes the image records among `hashes` that no review links any more; their hashes.
  func deleteUnlinkedImages(_ hashes: [String]) throws(CatalogueError) -> [String] {
    var deleted: [String] = []
    for hash in Set(hashes).sorted() {
      try sql { () throws(DatabaseError) in
        try database.run(
          "DELETE FROM images WHERE sha256 = ? AND NOT EXISTS (SELECT 1 FROM review_images WHERE image = ?)",
          [.text(hash), .text(hash)])
        if database.changes > 0 { deleted.append(hash) }
      }
    }
    return deleted
  }

  /// Records the format and size of a picture's thumbnail.
  func setThumbnail(of sha256: String, format: ImageFormat, width: Int, height: Int) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      try database.run(
        "UPDATE images SET thumbnail_format = ?, thumbnail_width = ?, thumbnail_height = ? WHERE sha256 = ?",
        [.text(format.rawValue), SQLValue(width), SQLValue(height), .text(sha256)])
    }
  }

  /// Records an original's facts as read from it.
  func setFacts(of sha256: String, _ header: ImageHeader) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      try database.run(
        "UPDATE images SET format = ?, width = ?, height = ?, orientation = ?, color_space = ? WHERE sha256 = ?",
        [
          .text(header.format.rawValue), SQLValue(header.uprightWidth), SQLValue(header.uprightHeight),
          SQLValue(header.orientation.rawValue), .text(header.colorSpace), .text(sha256),
        ])
    }
  }

  /// Every image record, with the reviews that link it, for check and repair.
  func imageRecords() throws(CatalogueError) -> [ImageRecord] {
    try sql { () throws(DatabaseError) in
      let links = try database.query("SELECT image, review FROM review_images ORDER BY review") {
        ($0.text(0), $0.text(1))
      }
      let reviews = Dictionary(grouping: links, by: \.0).mapValues { $0.map(\.1) }
      return try database.query("SELECT \(RecordColumns.image) FROM images i ORDER BY i.sha256") {
        let row = ImageRow(reading: SQLiteRow($0), from: 0)
        return ImageRecord(row: row, reviews: reviews[row.sha256] ?? [])
      }
    }
  }

  /// Every link: review, position and cover flag, in order.
  func links() throws(CatalogueError) -> [(review: String, position: Int, cover: Bool, link: ImageLink)] {
    try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT review, position, cover, image, alt, caption, name FROM review_images ORDER BY review, position"
      ) {
        (
          $0.text(0), $0.int(1), $0.bool(2),
          ImageLink(sha256: $0.text(3), alt: $0.optionalText(4), caption: $0.optionalText(5), name: $0.optionalText(6))
        )
      }
    }
  }

  /// Removes the links to images or reviews that do not exist (unless `dryRun`); the reviews
  /// and positions they were at.
  func removeBrokenLinks(dryRun: Bool) throws(CatalogueError) -> [(review: String, position: Int)] {
    try sql { () throws(DatabaseError) in
      let condition = "image NOT IN (SELECT sha256 FROM images) OR review NOT IN (SELECT id FROM reviews)"
      let broken = try database.query("SELECT review, position FROM review_images WHERE \(condition)") {
        ($0.text(0), $0.int(1))
      }
      if !dryRun { try database.run("DELETE FROM review_images WHERE \(condition)") }
      return broken
    }
  }

  func linkedImagesWithoutRecords() throws(CatalogueError) -> [String] {
    try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT DISTINCT image FROM review_images WHERE image NOT IN (SELECT sha256 FROM images) ORDER BY image"
      ) { $0.text(0) }
    }
  }

  // MARK: Reviewers, sessions and tokens

  func insertUser(name: String, passwordHash: String, created: Date) throws(CatalogueError) -> Bool {
    do {
      let time = DateText.format(created)
      try database.run(
        "INSERT INTO users (name, password_hash, created, password_changed) VALUES (?, ?, ?, ?)",
        [.text(name), .text(passwordHash), .text(time), .text(time)])
      return true
    } catch  where error.isConstraintViolation && (try? user(named: name)) != nil {
      return false
    } catch {
      throw CatalogueError(error)
    }
  }

  func user(named name: String) throws(CatalogueError) -> UserRow? {
    try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT \(RecordColumns.user) FROM users WHERE name = ?", [.text(name)],
        row: { UserRow(reading: SQLiteRow($0)) }
      ).first
    }
  }

  func userRows() throws(CatalogueError) -> [UserRow] {
    try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT \(RecordColumns.user) FROM users ORDER BY name", row: { UserRow(reading: SQLiteRow($0)) })
    }
  }

  func setProfile(of name: String, displayName: String?, bio: String?) throws(CatalogueError) -> Bool {
    try sql { () throws(DatabaseError) in
      try database.run(
        "UPDATE users SET display_name = ?, bio = ? WHERE name = ?",
        [displayName.map(SQLValue.text) ?? .null, bio.map(SQLValue.text) ?? .null, .text(name)])
      return database.changes > 0
    }
  }

  func author(matching name: String, publishedOnly: Bool) throws(CatalogueError) -> (name: String?, reviews: Int) {
    // From `reviews_created_by` alone, whose first column compares in any ASCII case.
    try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT min(created_by), count(*) FROM reviews WHERE created_by = ? COLLATE NOCASE"
          + (publishedOnly ? " AND draft = 0" : ""), [.text(name)]
      ) { ($0.optionalText(0), $0.int(1)) }.first ?? (nil, 0)
    }
  }

  // MARK: Imports

  func reviewSources(ofReview id: String) throws(CatalogueError) -> [(
    source: String, id: String, rating: String?, imported: String
  )] {
    try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT source, source_id, rating, imported FROM review_sources WHERE review = ? ORDER BY source, source_id",
        [.text(id)]
      ) { ($0.text(0), $0.text(1), $0.optionalText(2), $0.text(3)) }
    }
  }

  func importedEntries(source: String) throws(CatalogueError) -> [String: (
    review: String, fingerprint: String, version: String
  )] {
    let rows = try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT source_id, review, fingerprint, version FROM review_sources WHERE source = ?", [.text(source)]
      ) { ($0.text(0), ($0.text(1), $0.text(2), $0.text(3))) }
    }
    return Dictionary(rows, uniquingKeysWith: { first, _ in first })
  }

  func saveReviewSource(
    source: String, sourceID: String, review: String, rating: String?, fingerprint: String, version: String,
    imported: Date
  ) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      try database.run(
        """
        INSERT INTO review_sources (source, source_id, review, rating, fingerprint, version, imported)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (source, source_id) DO UPDATE SET review = excluded.review, rating = excluded.rating,
          fingerprint = excluded.fingerprint, version = excluded.version, imported = excluded.imported
        """,
        [
          .text(source), .text(sourceID), .text(review), SQLValue(rating), .text(fingerprint), .text(version),
          .text(DateText.format(imported)),
        ])
    }
  }

  func newestPublishedIDs(category: String?, author: String?, limit: Int) throws(CatalogueError) -> [String] {
    // The order through `reviews_published`, read backwards; `+draft` keeps SQLite from
    // taking `reviews_draft` instead and sorting every published review. A reviewer's few
    // reviews come from `reviews_created_by`, sorted.
    var conditions = ["+draft = 0"]
    var arguments: [SQLValue] = []
    if let category {
      conditions.append("+category = ?")
      arguments.append(.text(category))
    }
    if let author {
      conditions.append("created_by = ? COLLATE NOCASE")
      arguments.append(.text(author))
    }
    arguments.append(SQLValue(limit))
    return try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT id FROM reviews WHERE " + conditions.joined(separator: " AND ")
          + " ORDER BY coalesce(published, created) DESC, seq DESC LIMIT ?", arguments
      ) { $0.text(0) }
    }
  }

  func authorNames() throws(CatalogueError) -> [String] {
    // One seek of `reviews_created_by` a name (a loose index scan), not a walk over every
    // review: the names are few, the reviews may be a hundred thousand.
    try sql { () throws(DatabaseError) in
      try database.query(
        """
        WITH RECURSIVE named (name) AS (
          SELECT min(created_by COLLATE NOCASE) FROM reviews WHERE created_by IS NOT NULL
          UNION ALL
          SELECT (SELECT min(created_by COLLATE NOCASE) FROM reviews WHERE created_by > named.name COLLATE NOCASE)
          FROM named WHERE named.name IS NOT NULL
        )
        SELECT name FROM named WHERE name IS NOT NULL
        """
      ) { $0.text(0) }
    }
  }

  func reviewerRows(now: Date) throws(CatalogueError) -> [ReviewerRow] {
    try sql { () throws(DatabaseError) in
      try database.query(
        """
        SELECT u.name, u.created, u.password_changed, u.display_name, u.bio,
          (SELECT count(*) FROM sessions s WHERE s.user = u.name AND s.expires > ?),
          (SELECT count(*) FROM tokens t WHERE t.user = u.name),
          max(
            coalesce((SELECT max(s.last_seen) FROM sessions s WHERE s.user = u.name), ''),
            coalesce((SELECT max(t.last_used) FROM tokens t WHERE t.user = u.name), ''))
        FROM users u ORDER BY u.name
        """, [.text(DateText.format(now))]
      ) { row in
        let seen = row.text(7)
        return ReviewerRow(
          name: row.text(0), created: row.text(1), passwordChanged: row.text(2), displayName: row.optionalText(3),
          bio: row.optionalText(4), sessions: row.int(5), tokens: row.int(6), lastSeen: seen.isEmpty ? nil : seen)
      }
    }
  }

  func setPasswordHash(of name: String, _ hash: String, changed: Date) throws(CatalogueError) -> Bool {
    try sql { () throws(DatabaseError) in
      try database.run(
        "UPDATE users SET password_hash = ?, password_changed = ? WHERE name = ?",
        [.text(hash), .text(DateText.format(changed)), .text(name)])
      return database.changes > 0
    }
  }

  func replacePasswordHash(of name: String, _ old: String, with new: String) throws(CatalogueError) -> Bool {
    try sql { () throws(DatabaseError) in
      try database.run(
        "UPDATE users SET password_hash = ? WHERE name = ? AND password_hash = ?",
        [.text(new), .text(name), .text(old)])
      return database.changes > 0
    }
  }

  func deleteUser(name: String) throws(CatalogueError) -> Bool {
    try sql { () throws(DatabaseError) in
      try database.run("DELETE FROM users WHERE name = ?", [.text(name)])
      return database.changes > 0
    }
  }

  func insertSession(idHash: String, user: String, created: Date, expires: Date) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      let time = DateText.format(created)
      try database.run(
        "INSERT INTO sessions (id_hash, user, created, last_seen, expires) VALUES (?, ?, ?, ?, ?)",
        [.text(idHash), .text(user), .text(time), .text(time), .text(DateText.format(expires))])
    }
  }

  func session(idHash: String) throws(CatalogueError) -> SessionRow? {
    try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT user, created, last_seen, expires FROM sessions WHERE id_hash = ?", [.text(idHash)]
      ) { SessionRow(user: $0.text(0), created: $0.text(1), lastSeen: $0.text(2), expires: $0.text(3)) }.first
    }
  }

  func renewSession(idHash: String, lastSeen: Date, expires: Date) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      try database.run(
        "UPDATE sessions SET last_seen = ?, expires = ? WHERE id_hash = ?",
        [.text(DateText.format(lastSeen)), .text(DateText.format(expires)), .text(idHash)])
    }
  }

  func deleteSession(idHash: String) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in try database.run("DELETE FROM sessions WHERE id_hash = ?", [.text(idHash)]) }
  }

  func deleteSessions(ofUser name: String) throws(CatalogueError) -> Int {
    try sql { () throws(DatabaseError) in
      try database.run("DELETE FROM sessions WHERE user = ?", [.text(name)])
      return database.changes
    }
  }

  func deleteExpiredSessions(now: Date, startedBefore: Date) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      try database.run(
        "DELETE FROM sessions WHERE expires <= ? OR created <= ?",
        [.text(DateText.format(now)), .text(DateText.format(startedBefore))])
    }
  }

  func insertToken(idHash: String, user: String, created: Date) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      try database.run(
        "INSERT INTO tokens (id_hash, user, created, last_used) VALUES (?, ?, ?, NULL)",
        [.text(idHash), .text(user), .text(DateText.format(created))])
    }
  }

  func token(idHash: String) throws(CatalogueError) -> TokenRow? {
    try sql { () throws(DatabaseError) in
      try database.query("SELECT user, last_used FROM tokens WHERE id_hash = ?", [.text(idHash)]) {
        TokenRow(user: $0.text(0), lastUsed: $0.optionalText(1))
      }.first
    }
  }

  func markTokenUsed(idHash: String, at time: Date) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      try database.run(
        "UPDATE tokens SET last_used = ? WHERE id_hash = ?", [.text(DateText.format(time)), .text(idHash)])
    }
  }

  func deleteTokens(ofUser name: String) throws(CatalogueError) -> Int {
    try sql { () throws(DatabaseError) in
      try database.run("DELETE FROM tokens WHERE user = ?", [.text(name)])
      return database.changes
    }
  }

  func recordSignIn(user: String, address: String, at time: Date) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      try database.run(
        """
        INSERT INTO sign_in_addresses (user, address, last_success) VALUES (?, ?, ?)
        ON CONFLICT (user, address) DO UPDATE SET last_success = excluded.last_success
        """, [.text(user), .text(address), .text(DateText.format(time))])
    }
  }

  func signedIn(user: String, address: String, since: Date) throws(CatalogueError) -> Bool {
    try sql { () throws(DatabaseError) in
      try database.query(
        "SELECT 1 FROM sign_in_addresses WHERE user = ? AND address = ? AND last_success >= ?",
        [.text(user), .text(address), .text(DateText.format(since))]
      ) { $0.int(0) }.first != nil
    }
  }

  func deleteSignInAddresses(before: Date) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      try database.run(
        "DELETE FROM sign_in_addresses WHERE last_success < ?", [.text(DateText.format(before))])
    }
  }

  func removeOrphanAccess(dryRun: Bool) throws(CatalogueError) -> Int {
    try sql { () throws(DatabaseError) in
      var count = 0
      for table in ["sessions", "tokens", "sign_in_addresses"] {
        let condition = "user NOT IN (SELECT name FROM users)"
        count += try database.query("SELECT count(*) FROM \(table) WHERE \(condition)") { $0.int(0) }.first ?? 0
        if !dryRun { try database.run("DELETE FROM \(table) WHERE \(condition)") }
      }
      return count
    }
  }

  func limitMemory(cacheBytes: Int) throws(CatalogueError) {
    // A negative cache_size is in KiB.
    try sql { () throws(DatabaseError) in
      try database.execute("PRAGMA mmap_size = 0; PRAGMA cache_size = -\(max(64, cacheBytes / 1024))")
    }
  }

  func changeToken() throws(CatalogueError) -> RecordsChangeToken {
    try sql { () throws(DatabaseError) in
      RecordsChangeToken(value: try database.query("PRAGMA data_version") { $0.int(0) }.first ?? 0)
    }
  }

  // MARK: The database itself

  /// What SQLite's integrity check (or quick check) reports besides "ok".
  func integrityProblems(quick: Bool) throws(CatalogueError) -> [String] {
    try sql { () throws(DatabaseError) in
      try database.query(quick ? "PRAGMA quick_check" : "PRAGMA integrity_check") { $0.text(0) }
    }.filter { $0 != "ok" }
  }

  /// The tables whose rows point at rows that do not exist, with the table they point at.
  func foreignKeyViolations() throws(CatalogueError) -> [(table: String, parent: String)] {
    try sql { () throws(DatabaseError) in try database.query("PRAGMA foreign_key_check") { ($0.text(0), $0.text(2)) } }
  }

  /// Whether the full-text index matches the reviews it indexes (FTS5's own integrity check,
  /// which with rank 1 compares an external-content index with its content table).
  func searchIndexInStep() throws(CatalogueError) -> Bool {
    // FTS5's check is a write: a library that can only be read goes unchecked.
    guard !database.isReadOnly else { return true }
    do {
      try database.run("INSERT INTO reviews_fts (reviews_fts, rank) VALUES ('integrity-check', 1)")
      return true
    } catch {
      // SQLITE_CORRUPT_VTAB (267) and plain SQLITE_CORRUPT both mean "out of step".
      if error.primaryCode == 11 { return false }
      throw CatalogueError(error)
    }
  }

  func cardsOutOfStep() throws(CatalogueError) -> [String] {
    try sql { () throws(DatabaseError) in
      try database.query(Schema.cardsOutOfStep) { $0.text(0) }
    }
  }

  func refreshCards(of ids: [String]) throws(CatalogueError) {
    try sql { () throws(DatabaseError) in
      for id in ids { try database.run(Schema.refreshCards(where: "id = ?"), [.text(id)]) }
    }
  }

  func rebuildSearchIndex() throws(CatalogueError) {
    try sql { () throws(DatabaseError) in try database.run("INSERT INTO reviews_fts (reviews_fts) VALUES ('rebuild')") }
  }
}

extension SearchQuery.Parsed {
  /// The search as an FTS5 expression: each term quoted (so that nothing in it is FTS5's
  /// syntax), a prefix's with `*`.
  var expression: String {
    terms.map { term in
      "\"" + term.words.joined(separator: " ").replacingOccurrences(of: "\"", with: "\"\"") + "\""
        + (term.prefix ? "*" : "")
    }.joined(separator: " ")
  }

  /// The steps of SQLite's virtual machine this search may take: measured on 100,000
  /// reviews, two words in nearly all of them take 1.7 million steps and 0.2 s, eight in
  /// two thirds of them 1.2 million and 0.3 s, twelve (6 words, 6 prefixes) 1.4 million and
  /// 0.6 s; with the share of ``SQLiteRecords/searchSteps`` for their words, the last two are
  /// refused and the first is just answered.
  var maximumSteps: Int { SQLiteRecords.searchSteps * 4 / (max(1, words) + 3) }
}

/// A SQLite row as the records' readers take it (``StoredRow``).
struct SQLiteRow: StoredRow {
  let statement: Statement
  init(_ statement: Statement) { self.statement = statement }

  func text(_ column: Int) -> String { statement.text(Int32(column)) }
  func optionalText(_ column: Int) -> String? { statement.optionalText(Int32(column)) }
  func int(_ column: Int) -> Int { statement.int(Int32(column)) }
  func bool(_ column: Int) -> Bool { statement.bool(Int32(column)) }
}
