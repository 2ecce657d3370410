@testable import Catalogue
import Foundation
import ImagePipeline
import Testing
import TestSupport

@Suite("Opening libraries and the schema")
struct SchemaTests {
  @Test func aFolderWithoutADatabaseIsNotALibrary() throws {
    let folder = TemporaryFolder()
    #expect(throws: CatalogueError.notALibrary(path: folder.path)) { try Library(opening: folder.path) }
    #expect(try snapshot(folder.path).isEmpty)
    let missing = folder.file("missing")
    #expect(throws: CatalogueError.notALibrary(path: missing)) { try Library(opening: missing) }
    #expect(!FileManager.default.fileExists(atPath: missing))
  }

  @Test func creatingTwiceIsRefused() throws {
    let test = try TestLibrary()
    #expect(throws: CatalogueError.alreadyALibrary(path: test.path)) { try Library.create(at: test.path) }
  }

  @Test func aNewerSchemaIsRefusedUntouched() throws {
    let test = try TestLibrary()
    try test.library.create(draft())
    try test.library.database.execute("PRAGMA user_version = \(Schema.current + 1)")
    try test.library.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    let before = try snapshot(test.path)
    #expect(throws: CatalogueError.newerSchema(path: test.path, found: Schema.current + 1, known: Schema.current)) {
      try Library(opening: test.path)
    }
    #expect(try snapshot(test.path) == before)
  }

  @Test func theVersionOneFixtureOpensWithItsReviews() throws {
    // Fixtures/libraries/v1.sql is a dump of a library written by schema version 1; later
    // schemas must migrate it.
    let folder = TemporaryFolder()
    let dump = try String(contentsOf: Fixture.root.appendingPathComponent("libraries/v1.sql"), encoding: .utf8)
    do {
      let database = try Database(path: folder.file(LibraryLayout.database), create: true)
      try database.execute(dump)
    }
    let library = try Library(opening: folder.path)
    #expect(try library.schemaVersion == Schema.current)
    let page = try library.list(ReviewQuery(sort: .title))
    #expect(page.reviews.map(\.title) == ["Grave of the Fireflies", "Outer Wilds"])
    #expect(page.reviews.map(\.rating) == [5, 4])
    #expect(try library.list(ReviewQuery(search: "loop")).total == 1)
  }

  /// A library written by schema `version` from the v1 fixture: the dump, migrated that far.
  static func fixtureLibrary(atVersion version: Int, in folder: TemporaryFolder) throws {
    let dump = try String(contentsOf: Fixture.root.appendingPathComponent("libraries/v1.sql"), encoding: .utf8)
    let database = try Database(path: folder.file(LibraryLayout.database), create: true)
    try database.execute(dump)
    try Schema.migrate(
      database, path: folder.path, migrations: Array(Schema.migrations.prefix { $0.version <= version }))
    #expect(try Schema.version(of: database) == version)
  }

  @Test(arguments: [1, 2, 3, 4])
  func anEarlierLibraryGainsReviewersAndAuthors(version: Int) throws {
    let folder = TemporaryFolder()
    try Self.fixtureLibrary(atVersion: version, in: folder)
    // A command that only reads leaves it as it is, and says why.
    #expect(throws: CatalogueError.olderSchema(path: folder.path, found: version, known: Schema.current)) {
      try Library(opening: folder.path, upgrading: false)
    }
    let library = try Library(opening: folder.path)
    #expect(library.openedSchemaVersion == version)
    #expect(try library.schemaVersion == Schema.current)
    // The reviews written before reviewers existed have no author.
    let page = try library.list(ReviewQuery(sort: .title))
    #expect(page.reviews.map(\.title) == ["Grave of the Fireflies", "Outer Wilds"])
    #expect(page.reviews.allSatisfy { $0.createdBy == nil && $0.updatedBy == nil })
    #expect(try library.review(page.reviews[0].id).createdBy == nil)
    // The new tables work, foreign keys included.
    try library.setPasswordCost(.minimum)
    try library.addReviewer("alice", password: "correct horse")
    let grant = try library.startSession(for: "alice", from: "192.0.2.1")
    #expect(try library.session(secret: grant.secret)?.grant.reviewer == "alice")
    #expect(try library.signedInLately("alice", from: "192.0.2.1"))
    library.author = "alice"
    let edited = try library.update(page.reviews[1].id, changes: ReviewChanges(rating: 5))
    #expect(edited.createdBy == nil && edited.updatedBy == "alice")
    try library.removeReviewer("alice")
    #expect(try library.database.scalar("SELECT count(*) FROM sessions") == .integer(0))
    #expect(try library.database.scalar("SELECT count(*) FROM sign_in_addresses") == .integer(0))
    #expect(try library.check().isHealthy)
  }

  /// A library written before the index knew every script (schema 4 and earlier) is upgraded
  /// with its index rebuilt: its Chinese, Arabic and German words are found as a new
  /// library's are, edits keep the index in step, and `check` finds it healthy.
  @Test(arguments: [1, 4])
  func anEarlierLibraryIsSearchedInEveryScript(version: Int) throws {
    let folder = TemporaryFolder()
    try Self.fixtureLibrary(atVersion: version, in: folder)
    do {
      // Written by that schema's own triggers.
      let database = try Database(path: folder.file(LibraryLayout.database), create: false)
      try database.run(
        "UPDATE reviews SET body = ? WHERE title = 'Outer Wilds'", [.text("我们在北京吃了烤鸭。Die Straße. الفِيلْمَ")])
    }
    let library = try Library(opening: folder.path)
    #expect(try library.schemaVersion == Schema.current)
    for search in ["烤鸭", "strasse", "الفيلم", "wilds"] {
      #expect(try library.list(ReviewQuery(search: search)).reviews.map(\.title) == ["Outer Wilds"], "\(search)")
    }
    #expect(try library.list(ReviewQuery(search: "fireflies")).reviews.map(\.title) == ["Grave of the Fireflies"])
    let wilds = try #require(try library.list(ReviewQuery(search: "烤鸭")).reviews.first)
    try library.update(wilds.id, changes: ReviewChanges(body: "東京都庁"))
    #expect(try library.list(ReviewQuery(search: "烤鸭")).total == 0)
    #expect(try library.list(ReviewQuery(search: "都庁")).total == 1)
    #expect(try library.check().isHealthy)
  }

  @Test func migrationsRunInOrderEachInOneTransaction() throws {
    let test = try TestLibrary()
    let database = test.library.database
    let later =
      Schema.migrations + [
        Schema.Migration(version: Schema.current + 1, sql: "CREATE TABLE later (x INTEGER)"),
        Schema.Migration(version: Schema.current + 2, sql: "ALTER TABLE later ADD COLUMN y TEXT"),
      ]
    try Schema.migrate(database, path: test.path, migrations: later)
    #expect(try Schema.version(of: database) == Schema.current + 2)
    #expect(try database.scalar("SELECT count(*) FROM pragma_table_info('later')") == .integer(2))

    // A migration that fails leaves the version before it, and none of its changes.
    let broken =
      later + [
        Schema.Migration(
          version: Schema.current + 3, sql: "CREATE TABLE half (x INTEGER); THIS IS NOT SQL")
      ]
    let error = #expect(throws: CatalogueError.self) {
      try Schema.migrate(database, path: test.path, migrations: broken)
    }
    guard case .database(let cause)? = error else {
      Issue.record("expected SQLite's error, not \(String(describing: error))")
      return
    }
    #expect(cause.message.contains("syntax error"), "\(cause)")
    #expect(try Schema.version(of: database) == Schema.current + 2)
    #expect(try database.scalar("SELECT count(*) FROM sqlite_schema WHERE name = 'half'") == .integer(0))
  }

  @Test func settingsPersist() throws {
    let test = try TestLibrary()
    try test.library.setThumbnailSpec(ThumbnailSpec(longestEdge: 128, mode: .square))
    try test.library.setPixelBudget(1_000_000)
    let reopened = try Library(opening: test.path)
    #expect(reopened.thumbnailSpec.name == "128-square-q85")
    #expect(reopened.decodeOptions.pixelBudget == 1_000_000)
    let review = try reopened.create(draft())
    let report = try reopened.attach(files: [Fixture.image("large-1600x1200.jpg")], to: review.id)
    #expect(report.failures.first?.error.description.contains("too many pixels") == true)
  }
}

@Suite("The SQLite layer")
struct DatabaseTests {
  @Test func theStatementCacheStaysBoundedAndStatementsStayUsable() throws {
    let test = try TestLibrary()
    for index in 0..<20 { _ = try test.library.create(draft("Review \(index)")) }
    let database = test.library.database
    // As many shapes of `IN (?, …)` as a long listing might make.
    for count in 1...200 {
      let placeholders = Array(repeating: "?", count: count).joined(separator: ", ")
      let rows = try database.query(
        "SELECT count(*) FROM reviews WHERE seq IN (\(placeholders))", (1...count).map { .integer(Int64($0)) }
      ) { $0.int(0) }
      #expect(rows == [min(count, 20)])
    }
    #expect(database.cachedStatements <= Database.statementCacheLimit)
    // A statement evicted while it is being stepped finishes its rows.
    var seen = 0
    let ids = try database.query(
      "SELECT id FROM reviews",
      row: { (statement) throws(DatabaseError) -> String in
        // On the first row, more new statements than the cache holds: this one is evicted.
        if seen == 0 {
          for other in 0...Database.statementCacheLimit { _ = try database.scalar("SELECT \(other) + 1000") }
        }
        seen += 1
        return statement.text(0)
      })
    #expect(seen == 20 && Set(ids).count == 20)
  }
}

@Suite("Transactions")
struct TransactionTests {
  @Test func aWriteInsideAReadTransactionIsRefusedLoudly() throws {
    let test = try TestLibrary()
    let database = test.library.database
    #expect(throws: CatalogueError.internalFailure("a write transaction was begun inside a read transaction")) {
      try database.readTransaction { () throws(CatalogueError) in
        try database.writeTransaction { () throws(CatalogueError) in
          _ = try test.library.create(draft())
        }
      }
    }
    #expect(try test.library.list().total == 0)
    // A write inside a write joins it, and a failure rolls both back.
    #expect(throws: CatalogueError.invalidArgument("stop")) {
      try database.writeTransaction { () throws(CatalogueError) in
        _ = try test.library.create(draft())
        try database.writeTransaction { () throws(CatalogueError) in throw .invalidArgument("stop") }
      }
    }
    #expect(try test.library.list().total == 0)
  }
}
