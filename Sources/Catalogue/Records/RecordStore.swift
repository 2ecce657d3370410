import Foundation
import ImagePipeline

/// Where a library keeps its records: the operations the library needs of them, named for what
/// they do. ``SQLiteRecords`` keeps them in the library's SQLite file; a second store (a
/// PostgreSQL database for a team) would implement the same operations. Values come back as
/// stored (``ReviewRow``, ``SummaryRow``, ``ImageRow``), and the library reads them through
/// ``RecordValue``, which reports a damaged record instead of guessing.
protocol RecordStore: AnyObject {
  /// Why the store could be opened only to read (the library's disk or folder cannot be
  /// written now), or nil.
  var readOnlyReason: ReadOnlyReason? { get }
  /// What the user should know of what the store shows, or nil.
  var openingNote: String? { get }

  // The store itself: how damaged, and its repairs (see SQLiteRecovery.swift).
  /// What the store's own check finds; never fails on damage.
  func damage(quick: Bool) -> DatabaseDamage
  /// Repairs the damaged store: first a copy of what is damaged goes into the folder `folder`
  /// (made already; `shown` is how the actions name it), then what can be rebuilt is rebuilt
  /// from what still reads. What was done, as repair actions.
  func repairDamage(copyingTo folder: String, shownAs shown: String) throws(CatalogueError) -> [String]

  // Transactions: all of the body or none; a write waits its turn.
  func writeTransaction<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T
  func readTransaction<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T
  /// Runs `body` holding the write lock, and undoes anything at the end: a look that needs the
  /// lock and writes nothing.
  func lockedLook<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T
  /// The version of the records' schema.
  func schemaVersion() throws(CatalogueError) -> Int

  // Settings
  func settings() throws(CatalogueError) -> [String: String]
  func saveSetting(_ key: String, _ value: String) throws(CatalogueError)
  func deleteSetting(_ key: String) throws(CatalogueError)

  // Reviews
  /// Inserts a review; `false` when `id` is taken already.
  /// `author` (a reviewer's name, or `nil` from the command line) is recorded as who created
  /// and last updated it.
  /// `published` is when it was published, `nil` for a draft.
  func insertReview(id: String, _ fields: ReviewFields, created: Date, updated: Date, published: Date?, author: String?)
    throws(CatalogueError) -> Bool
  func updateReview(id: String, _ fields: ReviewFields, updated: Date, author: String?) throws(CatalogueError)
  /// Publishes a review (at `published`), or with `nil` makes it a draft.
  func setPublished(id: String, _ published: Date?) throws(CatalogueError)
  /// Deletes a review with its links to images.
  func deleteReview(id: String) throws(CatalogueError)
  func hasReview(id: String) throws(CatalogueError) -> Bool
  /// The ids that start with `prefix`, of published reviews only with `publishedOnly`.
  func reviewIDs(withPrefix prefix: String, limit: Int, publishedOnly: Bool) throws(CatalogueError) -> [String]
  /// Every id (of published reviews only, with `publishedOnly`), in id order (`byID`) or in
  /// the order the reviews were added.
  func reviewIDs(byID: Bool, publishedOnly: Bool) throws(CatalogueError) -> [String]
  /// The ids just before and just after `id` in id order.
  func neighbourIDs(of id: String) throws(CatalogueError) -> [String]
  func review(id: String) throws(CatalogueError) -> ReviewRow?
  func allReviews() throws(CatalogueError) -> [ReviewRow]
  func reviewTitle(id: String) throws(CatalogueError) -> String?
  func reviewCount() throws(CatalogueError) -> Int
  func categoryLabels(publishedOnly: Bool) throws(CatalogueError) -> [String]
  /// A page for `query`, with its search parsed: how many match (estimated when a search by
  /// relevance matches more than `rankingWindow`: only the newest that many are ranked), and
  /// the rows. A search that would cost the store more than it allows is refused as
  /// ``SearchQuery/tooBroad``.
  func page(_ query: ReviewQuery, search: SearchQuery.Parsed?, rankingWindow: Int) throws(CatalogueError)
    -> (total: Int, totalIsEstimate: Bool, rows: [SummaryRow])

  // Images and links
  func imageRows(ofReview id: String) throws(CatalogueError)
    -> [(position: Int, cover: Bool, image: ImageRow, link: ImageLink)]
  /// Adds an image record, unless the picture has one already.
  func insertImage(_ image: StoredImage) throws(CatalogueError)
  func hasImage(sha256: String) throws(CatalogueError) -> Bool
  func imageRow(sha256: String) throws(CatalogueError) -> ImageRow?
  /// Replaces a review's links; with `updated`, also marks the review updated then by `author`.
  func setLinks(ofReview id: String, _ links: [ImageLink], cover: String?, updated: Date?, author: String?)
    throws(CatalogueError)
  /// Deletes the image records among `hashes` that no review links; their hashes.
  func deleteUnlinkedImages(_ hashes: [String]) throws(CatalogueError) -> [String]
  func setThumbnail(of sha256: String, format: ImageFormat, width: Int, height: Int) throws(CatalogueError)
  func setFacts(of sha256: String, _ header: ImageHeader) throws(CatalogueError)
  func imageRecords() throws(CatalogueError) -> [ImageRecord]
  func links() throws(CatalogueError) -> [(review: String, position: Int, cover: Bool, link: ImageLink)]
  func removeBrokenLinks(dryRun: Bool) throws(CatalogueError) -> [(review: String, position: Int)]
  /// The pictures reviews link to that have no image record.
  func linkedImagesWithoutRecords() throws(CatalogueError) -> [String]

  // Reviewers, their sessions and tokens
  /// Inserts a reviewer; `false` when the name is taken (in any case).
  func insertUser(name: String, passwordHash: String, created: Date) throws(CatalogueError) -> Bool
  /// The reviewer whose name matches `name` in any case.
  func user(named name: String) throws(CatalogueError) -> UserRow?
  /// Every reviewer with their live sessions (expiring after `now`) and tokens, by name.
  func reviewerRows(now: Date) throws(CatalogueError) -> [ReviewerRow]
  /// Sets a reviewer's display name and bio (`nil`: none); `false` without such a reviewer.
  func setProfile(of name: String, displayName: String?, bio: String?) throws(CatalogueError) -> Bool
  /// The name reviews keep for their author `name` (in any case), with how many of theirs
  /// there are (published only, with `publishedOnly`); the name is `nil` when there are none.
  func author(matching name: String, publishedOnly: Bool) throws(CatalogueError) -> (name: String?, reviews: Int)
  /// Where review `id` was imported from, by source and id.
  func reviewSources(ofReview id: String) throws(CatalogueError) -> [(
    source: String, id: String, rating: String?, imported: String
  )]
  /// Every entry imported from `source`, by the source's id: its review, the fingerprint of
  /// what the import made of it, and the review's version the import wrote.
  func importedEntries(source: String) throws(CatalogueError) -> [String: (
    review: String, fingerprint: String, version: String
  )]
  /// Records (or updates) where review `review` came from.
  func saveReviewSource(
    source: String, sourceID: String, review: String, rating: String?, fingerprint: String, version: String,
    imported: Date
  ) throws(CatalogueError)
  /// The ids of the newest published reviews by the time they were published, newest first,
  /// of one category and one author when given.
  func newestPublishedIDs(category: String?, author: String?, limit: Int) throws(CatalogueError) -> [String]
  /// Every name reviews are by, one a name whatever its case.
  func authorNames() throws(CatalogueError) -> [String]
  /// Stores the hash of a new password, changed at `changed`; `false` without such a reviewer.
  func setPasswordHash(of name: String, _ hash: String, changed: Date) throws(CatalogueError) -> Bool
  /// Replaces a reviewer's hash with `new` if it is still `old` (a rehash at sign-in must not
  /// undo a password changed meanwhile); whether it did.
  func replacePasswordHash(of name: String, _ old: String, with new: String) throws(CatalogueError) -> Bool
  /// Deletes a reviewer with their sessions and tokens; `false` without such a reviewer.
  func deleteUser(name: String) throws(CatalogueError) -> Bool
  func insertSession(idHash: String, user: String, created: Date, expires: Date) throws(CatalogueError)
  func session(idHash: String) throws(CatalogueError) -> SessionRow?
  func renewSession(idHash: String, lastSeen: Date, expires: Date) throws(CatalogueError)
  func deleteSession(idHash: String) throws(CatalogueError)
  /// Deletes a reviewer's sessions; how many.
  func deleteSessions(ofUser name: String) throws(CatalogueError) -> Int
  /// Deletes the sessions of every reviewer that expired by `now`, or began before `startedBefore`.
  func deleteExpiredSessions(now: Date, startedBefore: Date) throws(CatalogueError)
  func insertToken(idHash: String, user: String, created: Date) throws(CatalogueError)
  func token(idHash: String) throws(CatalogueError) -> TokenRow?
  func markTokenUsed(idHash: String, at time: Date) throws(CatalogueError)
  /// Deletes a reviewer's tokens; how many.
  func deleteTokens(ofUser name: String) throws(CatalogueError) -> Int
  /// Records a successful sign-in of `user` from `address` at `time`.
  func recordSignIn(user: String, address: String, at time: Date) throws(CatalogueError)
  /// Whether `user` (in any case) signed in from `address` at `since` or later.
  func signedIn(user: String, address: String, since: Date) throws(CatalogueError) -> Bool
  /// Forgets the sign-in addresses of every reviewer last used before `before`.
  func deleteSignInAddresses(before: Date) throws(CatalogueError)
  /// Removes the sessions, tokens and sign-in addresses of reviewers that do not exist (unless
  /// `dryRun`); how many.
  func removeOrphanAccess(dryRun: Bool) throws(CatalogueError) -> Int
  /// Every reviewer's stored fields, for check.
  func userRows() throws(CatalogueError) -> [UserRow]

  // Copying between stores (see RecordTables)
  /// At most `limit` rows of `table` after the key `after` (from the first with `nil`), in key
  /// order, each value as ``RecordTables/Kind`` says.
  func rows(of table: RecordTables.Table, after: [String]?, limit: Int) throws(CatalogueError) -> [[String?]]
  /// How many rows `table` holds.
  func rowCount(of table: RecordTables.Table) throws(CatalogueError) -> Int
  /// The key of the last row of `table` in key order, or `nil` when it is empty.
  func lastKey(of table: RecordTables.Table) throws(CatalogueError) -> [String]?
  /// Adds `rows` (as ``rows(of:after:limit:)`` gives them) to `table`; a row whose key is there
  /// already is left as it is. Inside the caller's write transaction.
  func insertRows(_ rows: [[String?]], into table: RecordTables.Table) throws(CatalogueError)
  /// Makes again what the store derives from the tables: the search index, the reviews' cards,
  /// the next review's number.
  func rederive() throws(CatalogueError)

  /// A token that changes when another connection or process commits a change to the records
  /// (SQLite's `PRAGMA data_version`); it may change on this instance's own commits too.
  /// Tokens of one instance compare; tokens of two do not.
  func changeToken() throws(CatalogueError) -> RecordsChangeToken
  /// Bounds the memory the store's connection takes (no memory mapping, a small page cache).
  func limitMemory(cacheBytes: Int) throws(CatalogueError)

  // The store itself
  /// What the store finds wrong with itself (a damaged file or database, references to records
  /// that do not exist, a schema of another version, a search index out of step with the
  /// reviews), as check findings, and whether it is damaged: then everything read through it
  /// may be incomplete. Never fails: a failure to look is a finding.
  func storeFindings(quick: Bool) -> (findings: [Finding], damaged: Bool)
  func searchIndexInStep() throws(CatalogueError) -> Bool
  func rebuildSearchIndex() throws(CatalogueError)
  /// The reviews whose card (how many pictures, the cover and its description, kept on the
  /// review for the grid) disagrees with their links, by id.
  func cardsOutOfStep() throws(CatalogueError) -> [String]
  /// Sets the cards of the reviews `ids` from their links again.
  func refreshCards(of ids: [String]) throws(CatalogueError)
}

/// What ``RecordStore/changeToken()`` gives: equal while nothing was committed.
struct RecordsChangeToken: Equatable {
  var value: Int
}

/// A review's fields, as stored.
struct ReviewRow {
  var id: String
  var title: String
  var body: String
  var rating: Int
  var category: String
  var favorite: Bool
  var created: String
  var updated: String
  var createdBy: String?
  var updatedBy: String?
  var containsSpoilers: Bool
  var draft: Bool
  /// When it was published; `nil` reads as its created time (see schema 9).
  var published: String?
}

/// A list row, as stored.
struct SummaryRow {
  var id: String
  var title: String
  var rating: Int
  var category: String
  var favorite: Bool
  var created: String
  var updated: String
  var imageCount: Int
  var cover: ImageRow?
  /// The cover's description, or `nil`.
  var coverAlt: String?
  var createdBy: String?
  var updatedBy: String?
  var containsSpoilers: Bool
  var draft: Bool
  var published: String?
}

/// An image record's fields, as stored.
struct ImageRow: Equatable {
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
  /// `nil` for images recorded before schema 2.
  var colorSpace: String?
}

/// A review's link to one of its pictures, as stored: the picture, and what the review says
/// of it.
struct ImageLink: Equatable {
  var sha256: String
  var alt: String?
  var caption: String?
  var name: String?

  init(sha256: String, alt: String? = nil, caption: String? = nil, name: String? = nil) {
    self.sha256 = sha256
    self.alt = alt
    self.caption = caption
    self.name = name
  }

  /// The link `image` has now.
  init(_ image: ReviewImage) {
    self.init(sha256: image.image.sha256, alt: image.alt, caption: image.caption, name: image.name)
  }
}

/// A reviewer's record, as stored.
struct UserRow {
  var name: String
  var passwordHash: String
  var created: String
  var passwordChanged: String
  /// `nil`: the pages call the reviewer by their name (schema 10).
  var displayName: String?
  var bio: String?
}

/// A reviewer as `user list` shows them, as stored.
struct ReviewerRow {
  var name: String
  var created: String
  var passwordChanged: String
  var displayName: String?
  var bio: String?
  var sessions: Int
  var tokens: Int
  /// The latest session use or token use, if any.
  var lastSeen: String?
}

/// A browser session's record, as stored.
struct SessionRow {
  var user: String
  var created: String
  var lastSeen: String
  var expires: String
}

/// An API token's record, as stored.
struct TokenRow {
  var user: String
  var lastUsed: String?
}

/// A row a store read, its columns by number: what both stores' rows are read into records
/// through, so that each record's columns and their order are written once
/// (``RecordColumns``).
protocol StoredRow {
  func text(_ column: Int) -> String
  func optionalText(_ column: Int) -> String?
  func int(_ column: Int) -> Int
  func bool(_ column: Int) -> Bool
}

/// The columns each record is read from, in the order its reader takes them.
enum RecordColumns {
  static let review =
    "id, title, body, rating, category, favorite, created, updated, created_by, updated_by, contains_spoilers, draft, "
    + "published"
  /// An image record's eleven columns, of the table as `i`.
  static let image =
    "i.sha256, i.format, i.width, i.height, i.orientation, i.bytes, i.thumbnail_format, "
    + "i.thumbnail_width, i.thumbnail_height, i.imported, i.color_space"
  static let user = "name, password_hash, created, password_changed, display_name, bio"
}

extension ReviewRow {
  /// Reads ``RecordColumns/review``.
  init(reading row: some StoredRow) {
    self.init(
      id: row.text(0), title: row.text(1), body: row.text(2), rating: row.int(3), category: row.text(4),
      favorite: row.bool(5), created: row.text(6), updated: row.text(7), createdBy: row.optionalText(8),
      updatedBy: row.optionalText(9), containsSpoilers: row.bool(10), draft: row.bool(11),
      published: row.optionalText(12))
  }
}

extension ImageRow {
  /// Reads ``RecordColumns/image``, starting at `column`.
  init(reading row: some StoredRow, from column: Int) {
    self.init(
      sha256: row.text(column), format: row.text(column + 1), width: row.int(column + 2),
      height: row.int(column + 3), orientation: row.int(column + 4), bytes: row.int(column + 5),
      thumbnailFormat: row.text(column + 6), thumbnailWidth: row.int(column + 7),
      thumbnailHeight: row.int(column + 8), imported: row.text(column + 9), colorSpace: row.optionalText(column + 10))
  }
}

extension UserRow {
  /// Reads ``RecordColumns/user``.
  init(reading row: some StoredRow) {
    self.init(
      name: row.text(0), passwordHash: row.text(1), created: row.text(2), passwordChanged: row.text(3),
      displayName: row.optionalText(4), bio: row.optionalText(5))
  }
}
