@testable import Catalogue
import Foundation
import ImagePipeline
import Testing
import TestSupport

/// `catalogue migrate`: a library's records moved to PostgreSQL and back, every one kept,
/// checked, resumable, and nothing of another library's ever written over.
@Suite("Moving a library between SQLite and PostgreSQL")
struct MigrationTests {
  /// What a user sees of a library: every review whole with its pictures, the list, a search,
  /// the reviewers, where imports came from, the settings.
  private static func everything(_ library: Library) throws -> [String] {
    var seen: [String] = []
    let all = try library.list(ReviewQuery(sort: .title, limit: ReviewQuery.maximumLimit, showing: .all))
    for summary in all.reviews {
      let review = try library.review(summary.id)
      seen.append(
        "\(review.id) \(review.title) \(review.body) \(review.rating) \(review.category.rawValue) \(review.favorite) "
          + "\(review.created) \(review.updated) \(review.containsSpoilers) \(String(describing: review.published)) "
          + "\(String(describing: review.createdBy)) "
          + review.images.map { "\($0.position):\($0.image.sha256):\($0.isCover):\($0.text.alt ?? "-")" }.joined(
            separator: ","))
      seen.append("sources \(try library.records.reviewSources(ofReview: summary.id).map { "\($0.source) \($0.id)" })")
    }
    seen.append("search \(try library.list(ReviewQuery(search: "night")).reviews.map(\.title))")
    seen.append("search \(try library.list(ReviewQuery(search: "東京")).reviews.map(\.title))")
    seen.append("reviewers \(try library.reviewers().map { "\($0.name) \(String(describing: $0.displayName))" })")
    seen.append("settings \(try library.records.settings().sorted { $0.key < $1.key })")
    return seen
  }

  private static func fill(_ library: Library) throws -> (session: String, token: String) {
    try library.setPasswordCost(.minimum)
    try library.setThumbnailSpec(ThumbnailSpec(name: "320-fit-q85")!)
    try library.addReviewer("Ada", password: "correct horse battery")
    let session = try library.startSession(for: "ada").secret
    let token = try library.newToken(for: "Ada")
    library.author = "Ada"
    let heat = try library.create(
      ReviewDraft(title: "Heat", body: "Night trains. ||The end.||", rating: 5, category: "movie", favorite: true))
    library.author = nil
    _ = try library.attach(files: ["baseline.jpg", "rgb-8.png"].map(Fixture.image), to: heat.id)
    _ = try library.describe(heat.id, image: "2", alt: "A red door", caption: "Act two")
    _ = try library.create(ReviewDraft(title: "東京物語", body: "東京都の家族。", rating: 4, category: "movie"))
    _ = try library.create(
      ReviewDraft(title: "Unfinished", body: "A draft at night.", rating: 2, category: "book", publish: false))
    let imported = try library.create(ReviewDraft(title: "Imported", rating: 3, category: "movie"))
    try library.write { () throws(CatalogueError) in
      try library.records.saveReviewSource(
        source: "letterboxd", sourceID: "https://boxd.it/1", review: imported.id, rating: "3.5", fingerprint: "f",
        version: "v", imported: Date())
    }
    return (session, token)
  }

  @Test func aLibraryGoesToPostgreSQLAndBackWithEverythingKept() throws {
    try PostgreSQLCluster.withDatabase { database in
      let folder = TemporaryFolder()
      let path = folder.file("Library")
      let library = try Library.create(at: path)
      let (session, token) = try Self.fill(library)
      let before = try Self.everything(library)

      let there = try Library.migrate(libraryAt: path, to: .postgreSQL(database.conninfo))
      #expect(!there.resumed)
      #expect(there.tables.first { $0.name == "reviews" }?.rows == 4)
      #expect(there.tables.first { $0.name == "review_images" }?.rows == 2)
      #expect(there.tables.first { $0.name == "sessions" }?.rows == 1)
      #expect(!FileManager.default.fileExists(atPath: "\(path)/catalogue.sqlite"))
      #expect(FileManager.default.fileExists(atPath: "\(path)/\(there.keptOldStore)"))
      let onPostgreSQL = try Library(opening: path)
      #expect(onPostgreSQL.records is PostgreSQLRecords)
      #expect(try Self.everything(onPostgreSQL) == before)
      #expect(try onPostgreSQL.session(secret: session)?.grant.reviewer == "Ada")
      #expect(try onPostgreSQL.reviewer(forToken: token) == "Ada")
      #expect(try onPostgreSQL.check().isHealthy)
      // A review added there takes the next number, after the copied ones.
      let added = try onPostgreSQL.create(ReviewDraft(title: "Collateral", rating: 4, category: "movie"))
      #expect(try onPostgreSQL.list(ReviewQuery(sort: .created, limit: 1)).reviews.first?.id == added.id)
      _ = try onPostgreSQL.delete(added.id)

      let back = try Library.migrate(libraryAt: path, to: .sqlite)
      #expect(back.tables.first { $0.name == "reviews" }?.rows == 4)
      #expect(!FileManager.default.fileExists(atPath: "\(path)/catalogue.database"))
      let onSQLite = try Library(opening: path)
      #expect(onSQLite.records is SQLiteRecords)
      #expect(try Self.everything(onSQLite) == before)
      #expect(try onSQLite.session(secret: session)?.grant.reviewer == "Ada")
      #expect(try onSQLite.check().isHealthy)
    }
  }

  /// Stopped part-way, the library is still on its own store, whole; the same migration goes
  /// on where it stopped and ends with every row.
  @Test func aMigrationStoppedPartWayLeavesTheLibraryAsItWasAndResumes() throws {
    try PostgreSQLCluster.withDatabase { database in
      let folder = TemporaryFolder()
      let path = folder.file("Library")
      let library = try Library.create(at: path)
      _ = try library.create(
        (0..<1_200).map { ReviewDraft(title: "Review \($0)", body: "Night \($0)", rating: $0 % 6, category: "movie") })
      let before = try snapshot(path)
      var batches = 0
      #expect(throws: CatalogueError.interrupted) {
        try Library.migrate(libraryAt: path, to: .postgreSQL(database.conninfo)) { table, _, _ throws(CatalogueError) in
          guard table == "reviews" else { return }
          batches += 1
          if batches == 2 { throw .interrupted }
        }
      }
      // The same files (and the lock's empty file, which every command that locks makes).
      let after = try snapshot(path).filter { $0.key != "catalogue.lock" }
      #expect(after.keys.sorted() == before.keys.sorted(), "\(Set(after.keys).symmetricDifference(before.keys))")
      #expect(try Library(opening: path).list().total == 1_200)
      let partial = try database.connect().execute("SELECT count(*) FROM reviews").int(row: 0, column: 0)
      #expect(partial == 1_000)

      let resumed = try Library.migrate(libraryAt: path, to: .postgreSQL(database.conninfo))
      #expect(resumed.resumed)
      #expect(resumed.tables.first { $0.name == "reviews" }.map { ($0.rows, $0.copied) } ?? (0, 0) == (1_200, 200))
      let moved = try Library(opening: path)
      #expect(try moved.list().total == 1_200)
      #expect(try moved.list(ReviewQuery(search: "night")).total == 1_200)
    }
  }

  /// A database that holds another library (or anything else) is never written over.
  @Test func aDatabaseHoldingAnotherLibraryIsRefusedUntouched() throws {
    try PostgreSQLCluster.withDatabase { database in
      let folder = TemporaryFolder()
      let other = try Library.create(at: folder.file("Other"), database: database.conninfo)
      _ = try other.create(ReviewDraft(title: "Theirs", rating: 3, category: "movie"))
      let mine = try Library.create(at: folder.file("Mine"))
      _ = try mine.create(ReviewDraft(title: "Mine", rating: 3, category: "movie"))
      let before = try snapshot(mine.path)
      #expect(throws: CatalogueError.alreadyALibrary(path: try database.connect().name)) {
        try Library.migrate(libraryAt: mine.path, to: .postgreSQL(database.conninfo))
      }
      let after = try snapshot(mine.path).filter { $0.key != "catalogue.lock" }
      #expect(after == before, "\(Set(after.keys).symmetricDifference(before.keys))")
      #expect(try other.list().reviews.map(\.title) == ["Theirs"])
      #expect(throws: CatalogueError.self) { try Library.migrate(libraryAt: mine.path, to: .sqlite) }
    }
  }
}
