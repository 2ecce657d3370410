@testable import Catalogue
import Foundation
import Synchronization
import Testing

/// The records' schema in PostgreSQL, on a real server: made whole by its migrations, once
/// however many servers start at once, a newer one refused untouched, and the rules SQLite's
/// schema keeps kept the same way.
@Suite("The PostgreSQL schema")
struct PostgreSQLSchemaTests {
  private static func migrated(_ database: PostgreSQLTestDatabase) throws -> PostgreSQLConnection {
    let connection = try database.connect()
    try PostgreSQLSchema.migrate(connection, library: "team")
    return connection
  }

  private static func insertReview(
    _ connection: PostgreSQLConnection, id: String, title: String, seq: Int? = nil
  ) throws {
    _ = try connection.execute(
      """
      INSERT INTO reviews (id, title, body, rating, category, created, updated)
      VALUES ($1, $2, '', 3, 'film', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')
      """, [.text(id), .text(title)])
  }

  @Test func anEmptyDatabaseIsMadeWholeOnceAndAgainChangesNothing() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try database.connect()
      #expect(try PostgreSQLSchema.version(of: connection) == 0)
      try PostgreSQLSchema.migrate(connection, library: "team")
      #expect(try PostgreSQLSchema.version(of: connection) == PostgreSQLSchema.current)
      #expect(PostgreSQLSchema.current == Schema.current)
      let tables = try connection.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")
      let names = (0..<tables.rowCount).compactMap { tables.string(row: $0, column: 0) }
      #expect(
        names == [
          "catalogue_schema", "images", "review_images", "review_search", "review_sources", "reviews", "sessions",
          "settings",
          "sign_in_addresses", "tokens", "users",
        ])
      try PostgreSQLSchema.migrate(connection, library: "team")
      #expect(try connection.execute("SELECT count(*) FROM catalogue_schema").int(row: 0, column: 0) == 1)
    }
  }

  /// Servers started together: each waits for the migration lock, and the schema is made once.
  @Test func fourServersStartingAtOnceMakeTheSchemaOnce() throws {
    try PostgreSQLCluster.withDatabase { database in
      let failures = Mutex<[String]>([])
      DispatchQueue.concurrentPerform(iterations: 4) { _ in
        do {
          try PostgreSQLSchema.migrate(try database.connect(), library: "team")
        } catch {
          failures.withLock { $0.append("\(error)") }
        }
      }
      #expect(failures.withLock { $0 } == [])
      let connection = try database.connect()
      #expect(try PostgreSQLSchema.version(of: connection) == PostgreSQLSchema.current)
    }
  }

  @Test func aDatabaseOfANewerSchemaIsRefusedUntouched() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try Self.migrated(database)
      _ = try connection.execute("UPDATE catalogue_schema SET version = 99")
      #expect(throws: CatalogueError.newerSchema(path: "team", found: 99, known: PostgreSQLSchema.current)) {
        try PostgreSQLSchema.migrate(connection, library: "team")
      }
      #expect(try PostgreSQLSchema.version(of: connection) == 99)
    }
  }

  /// A broken migration leaves the version it started from, and none of its tables.
  @Test func aMigrationThatFailsLeavesTheVersionBefore() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try Self.migrated(database)
      let later =
        PostgreSQLSchema.migrations + [
          PostgreSQLSchema.Migration(version: 13, sql: "CREATE TABLE half (x integer); SELECT nonsense FROM nowhere;")
        ]
      let error = #expect(throws: CatalogueError.self) {
        try PostgreSQLSchema.migrate(connection, library: "team", migrations: later)
      }
      guard case .database(let failure)? = error else {
        Issue.record("expected PostgreSQL's error, not \(String(describing: error))")
        return
      }
      #expect(failure.code == "42P01", "\(failure)")
      #expect(try PostgreSQLSchema.version(of: connection) == 12)
      #expect(try connection.execute("SELECT to_regclass('half') IS NULL").bool(row: 0, column: 0) == true)
    }
  }

  /// A review's card follows its links, as SQLite's triggers keep it.
  @Test func aReviewsCardFollowsItsLinks() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try Self.migrated(database)
      try Self.insertReview(connection, id: "0123456789abcdef", title: "A")
      let hash = String(repeating: "a", count: 64)
      let other = String(repeating: "b", count: 64)
      for sha in [hash, other] {
        _ = try connection.execute(
          "INSERT INTO images VALUES ($1, 'jpeg', 10, 10, 1, 100, 'jpeg', 10, 10, '2026-01-01T00:00:00Z')",
          [.text(sha)])
      }
      _ = try connection.execute(
        """
        INSERT INTO review_images (review, position, image, cover, alt)
        VALUES ('0123456789abcdef', 1, $1, true, 'a red door'), ('0123456789abcdef', 2, $2, false, NULL)
        """, [.text(hash), .text(other)])
      func card() throws -> [String?] {
        let row = try connection.execute(
          "SELECT image_count::text, cover_image, cover_alt FROM reviews WHERE id = '0123456789abcdef'")
        return (0..<3).map { row.string(row: 0, column: $0) }
      }
      #expect(try card() == ["2", hash, "a red door"])
      _ = try connection.execute("UPDATE review_images SET cover = (position = 2)")
      #expect(try card() == ["2", other, nil])
      _ = try connection.execute("DELETE FROM review_images WHERE position = 2")
      #expect(try card() == ["1", nil, nil])
      // One cover a review, whatever writes the links.
      _ = try connection.execute(
        "INSERT INTO review_images (review, position, image, cover) VALUES ('0123456789abcdef', 2, $1, true)",
        [.text(other)])
      #expect(try card() == ["2", other, nil])
      let error = #expect(throws: PostgreSQLError.self) {
        try connection.execute("UPDATE review_images SET cover = true")
      }
      #expect(error?.constraint == "review_images_one_cover")
    }
  }

  /// Titles in the order SQLite's `COLLATE NOCASE` gives: ASCII letters folded, nothing else.
  @Test func titlesSortAsSQLiteSortsThem() throws {
    let titles = ["b", "A", "a", "Éclair", "eclair", "Z", "z", "ß", "_", "1", "émile", "Ärger"]
    let sqlite = try Database(path: ":memory:", create: true)
    try sqlite.execute("CREATE TABLE t (seq INTEGER PRIMARY KEY, title TEXT)")
    for title in titles { try sqlite.run("INSERT INTO t (title) VALUES (?)", [.text(title)]) }
    let expected = try sqlite.query("SELECT title FROM t ORDER BY title COLLATE NOCASE, seq") { $0.text(0) }
    try PostgreSQLCluster.withDatabase { database in
      let connection = try Self.migrated(database)
      for (index, title) in titles.enumerated() {
        try Self.insertReview(connection, id: String(format: "%016x", index + 1), title: title)
      }
      let rows = try connection.execute(
        "SELECT title FROM reviews ORDER BY lower(title), seq")
      #expect((0..<rows.rowCount).compactMap { rows.string(row: $0, column: 0) } == expected)
    }
  }

  /// Every change, by anyone, moves the change token on and wakes a listener at commit; a
  /// session's renewal, which every signed-in request makes, does neither.
  @Test func aCommittedChangeIsAnnouncedAndASessionIsNot() throws {
    try PostgreSQLCluster.withDatabase { database in
      let writer = try Self.migrated(database)
      let listener = try database.connect()
      try listener.listen(PostgreSQLSchema.changesChannel)
      func token() throws -> Int? {
        try listener.execute(PostgreSQLRecords.changeTokenQuery).int(row: 0, column: 0)
      }
      let before = try token()
      try writer.begin()
      try Self.insertReview(writer, id: "00000000000000aa", title: "Heat")
      #expect(try listener.notifications(waitingUpTo: 0.2).isEmpty, "announced before the commit")
      try writer.commit()
      let heard = try listener.notifications(waitingUpTo: 5)
      #expect(heard.map(\.channel) == [PostgreSQLSchema.changesChannel])
      let after = try token()
      #expect(after != before)
      _ = try writer.execute("INSERT INTO users VALUES ('ada', 'h', 't', 't')")
      _ = try listener.notifications(waitingUpTo: 5)
      let beforeSession = try token()
      _ = try writer.execute(
        "INSERT INTO sessions VALUES ($1, 'ada', 't', 't', 't')", [.text(String(repeating: "c", count: 64))])
      #expect(try listener.notifications(waitingUpTo: 0.3).isEmpty)
      #expect(try token() == beforeSession)
    }
  }

  /// A reviewer's name is taken in any case, as in SQLite.
  @Test func aReviewersNameIsUniqueInAnyCase() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try Self.migrated(database)
      _ = try connection.execute("INSERT INTO users VALUES ('Ada', 'h', 't', 't')")
      let error = #expect(throws: PostgreSQLError.self) {
        try connection.execute("INSERT INTO users VALUES ('ADA', 'h', 't', 't')")
      }
      #expect(error?.kind == .uniqueViolation)
      #expect(RecordStoreFailure(try #require(error)).kind == .constraint)
    }
  }

  /// The search index: the words the catalogue writes, found by the query it writes, prefixes
  /// and phrases included.
  @Test func theSearchIndexFindsTheWordsTheCatalogueWrites() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try Self.migrated(database)
      try Self.insertReview(connection, id: "00000000000000bb", title: "東京")
      _ = try connection.execute(
        "INSERT INTO review_search (seq, length, search) SELECT seq, 5, $1::tsvector FROM reviews",
        [.text("'東京':1A 'night':2B 'train':3B 'eclair':4B")])
      func found(_ query: String) throws -> Int? {
        try connection.execute("SELECT count(*) FROM review_search WHERE search @@ $1::tsquery", [.text(query)])
          .int(row: 0, column: 0)
      }
      #expect(try found("'night' <-> 'train'") == 1)
      #expect(try found("'train' <-> 'night'") == 0)
      #expect(try found("'ecl':* & '東京'") == 1)
      #expect(try found("'tokyo'") == 0)
    }
  }
}
