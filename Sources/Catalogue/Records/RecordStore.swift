import Foundation
import ImagePipeline

/// Where a library keeps its records: the operations the library needs of them, named for what
/// they do. ``SQLiteRecords`` keeps them in the library's SQLite file; a second store (a
/// PostgreSQL database for a team) would implement the same operations. Values come back as
/// stored (``ReviewRow``, ``SummaryRow``, ``ImageRow``), and the library reads them through
/// ``RecordValue``, which reports a damaged record instead of guessing.
protocol RecordStore: AnyObject {
  // Transactions: all of the body or none; a write waits its turn.
  func writeTransaction<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T
  func readTransaction<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T
  /// The version of the records' schema.
  func schemaVersion() throws(CatalogueError) -> Int

  // Settings
  func settings() throws(CatalogueError) -> [String: String]
  func saveSetting(_ key: String, _ value: String) throws(CatalogueError)

  // Reviews
  /// Inserts a review; `false` when `id` is taken already.
  func insertReview(id: String, _ fields: ReviewFields, created: Date, updated: Date) throws(CatalogueError) -> Bool
  func updateReview(id: String, _ fields: ReviewFields, updated: Date) throws(CatalogueError)
  /// Deletes a review with its links to images.
  func deleteReview(id: String) throws(CatalogueError)
  func hasReview(id: String) throws(CatalogueError) -> Bool
  func reviewIDs(withPrefix prefix: String, limit: Int) throws(CatalogueError) -> [String]
  /// Every id, in id order (`byID`) or in the order the reviews were added.
  func reviewIDs(byID: Bool) throws(CatalogueError) -> [String]
  /// The ids just before and just after `id` in id order.
  func neighbourIDs(of id: String) throws(CatalogueError) -> [String]
  func review(id: String) throws(CatalogueError) -> ReviewRow?
  func allReviews() throws(CatalogueError) -> [ReviewRow]
  func reviewTitle(id: String) throws(CatalogueError) -> String?
  func reviewCount() throws(CatalogueError) -> Int
  func categoryLabels() throws(CatalogueError) -> [String]
  /// A page for `query`, its search given as an FTS5 expression: how many match, and the rows.
  func page(_ query: ReviewQuery, match: String?) throws(CatalogueError) -> (total: Int, rows: [SummaryRow])

  // Images and links
  func imageRows(ofReview id: String) throws(CatalogueError) -> [(position: Int, cover: Bool, image: ImageRow)]
  /// Adds an image record, unless the picture has one already.
  func insertImage(_ image: StoredImage) throws(CatalogueError)
  func hasImage(sha256: String) throws(CatalogueError) -> Bool
  func setLinks(ofReview id: String, _ hashes: [String], cover: String?, updated: Date?) throws(CatalogueError)
  /// Deletes the image records among `hashes` that no review links; their hashes.
  func deleteUnlinkedImages(_ hashes: [String]) throws(CatalogueError) -> [String]
  func setThumbnail(of sha256: String, format: ImageFormat, width: Int, height: Int) throws(CatalogueError)
  func setFacts(of sha256: String, _ header: ImageHeader) throws(CatalogueError)
  func imageRecords() throws(CatalogueError) -> [ImageRecord]
  func links() throws(CatalogueError) -> [(review: String, position: Int, cover: Bool)]
  func removeBrokenLinks(dryRun: Bool) throws(CatalogueError) -> [(review: String, position: Int)]

  // The store itself
  func integrityProblems(quick: Bool) throws(CatalogueError) -> [String]
  func foreignKeyViolations() throws(CatalogueError) -> [(table: String, parent: String)]
  func searchIndexInStep() throws(CatalogueError) -> Bool
  func rebuildSearchIndex() throws(CatalogueError)
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
}

/// An image record's fields, as stored.
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
  /// `nil` for images recorded before schema 2.
  var colorSpace: String?
}
