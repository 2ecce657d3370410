@testable import Catalogue
import Foundation
import Testing

/// The PostgreSQL client layer against a real server (``PostgreSQLCluster``), each test in a
/// database of its own.
@Suite(.timeLimit(.minutes(1)))
struct PostgreSQLConnectionTests {
  /// Texts that must come back byte for byte: scripts, emoji, and everything a careless client
  /// would escape, cut or trim.
  static let texts = [
    "plain ASCII", "🎬🍿 popcorn, 👩‍👩‍👧 family, 🇫🇷 flag", "עברית ומספרים 123 العربية",
    "映画の感想 영화 리뷰 电影评论", #"quotes ' '' " "" ` and a semicolon; DROP TABLE t; --"#,
    #"backslashes \ \\ \n \t \0 \x00 \u0000 (not NULs: text)"#, " spaces around ", "lines\nand\r\nreturns\ttab",
    "placeholders $1 $2 ? :name %s %d", "combining e\u{301} and precomposed \u{e9}", "",
  ]

  @Test func textRoundTripsWithEmptyAndNullApart() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try database.connect()
      try connection.run(script: "CREATE TABLE t (id int PRIMARY KEY, value text)")
      for (id, text) in Self.texts.enumerated() {
        #expect(
          try connection.execute("INSERT INTO t VALUES ($1, $2)", [PostgreSQLValue(id), .text(text)]).affectedRows == 1)
      }
      _ = try connection.execute("INSERT INTO t VALUES ($1, $2)", [-1, nil])
      let rows = try connection.execute("SELECT id, value, length(value), value IS NULL FROM t ORDER BY id")
      #expect(rows.rowCount == Self.texts.count + 1)
      #expect(rows.string(row: 0, column: 1) == nil)
      #expect(rows.isNull(row: 0, column: 1))
      #expect(try rows.bool(row: 0, column: 3) == true)
      for (id, text) in Self.texts.enumerated() {
        #expect(try rows.int(row: id + 1, column: 0) == id)
        #expect(rows.string(row: id + 1, column: 1) == text)
        // The server counted the characters the client meant: nothing was cut or re-encoded.
        #expect(try rows.int(row: id + 1, column: 2) == text.unicodeScalars.count)
        #expect(try rows.bool(row: id + 1, column: 3) == false)
        // Compared on the server too, as a parameter of another statement.
        #expect(
          try connection.execute("SELECT value = $1 FROM t WHERE id = $2", [.text(text), PostgreSQLValue(id)]).bool(
            row: 0, column: 0) == true)
      }
      // The same texts through the other spelling of parameters.
      #expect(
        try connection.execute("SELECT $1::text, $2::text", ["", nil] as [String?]).string(row: 0, column: 0) == "")
      #expect(try connection.execute("SELECT $1::text, $2::text", ["", nil] as [String?]).isNull(row: 0, column: 1))
    }
  }

  @Test func largeTextRoundTrips() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try database.connect()
      try connection.run(script: "CREATE TABLE t (value text)")
      // A mebibyte and a little more, with every width of UTF-8 in it.
      let text = String(repeating: "abcé映🎬", count: 1 << 20 / 12 + 1)
      #expect(text.utf8.count > 1 << 20)
      _ = try connection.execute("INSERT INTO t VALUES ($1)", [.text(text)])
      let row = try connection.execute("SELECT value, octet_length(value), md5(value) FROM t")
      #expect(row.string(row: 0, column: 0) == text)
      #expect(try row.int(row: 0, column: 1) == text.utf8.count)
    }
  }

  @Test func numbersAndBooleansRoundTrip() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try database.connect()
      try connection.run(script: "CREATE TABLE n (id int PRIMARY KEY, big bigint, real float8, flag boolean)")
      let integers: [Int64] = [.min, .min + 1, -1, 0, 1, 1 << 53 + 1, .max - 1, .max]
      let doubles: [Double] = [
        0, -0.0, 1.5, -.pi, 0.1, 1e-300, 1e300, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity,
        -.infinity, .nan,
      ]
      for index in 0..<max(integers.count, doubles.count) {
        let values: [PostgreSQLValue?] = [
          PostgreSQLValue(index), index < integers.count ? .integer(integers[index]) : nil,
          index < doubles.count ? .real(doubles[index]) : nil, .boolean(index % 2 == 0),
        ]
        _ = try connection.execute("INSERT INTO n VALUES ($1, $2, $3, $4)", values)
      }
      let rows = try connection.execute("SELECT big, real, flag FROM n ORDER BY id")
      for index in 0..<rows.rowCount {
        #expect(try rows.int(row: index, column: 0) == (index < integers.count ? Int(integers[index]) : nil))
        let real = try rows.double(row: index, column: 1)
        if index < doubles.count {
          let expected = doubles[index]
          #expect(real?.bitPattern == expected.bitPattern || (expected.isNaN && real?.isNaN == true))
        } else {
          #expect(real == nil)
        }
        #expect(try rows.bool(row: index, column: 2) == (index % 2 == 0))
      }
      // Literals of every kind, and the server's own spelling of them.
      let literal = try connection.execute(
        "SELECT $1::bigint, $2::float8, $3::boolean, $4::text, 9223372036854775807, 'NaN'::float8, true",
        [42, 2.5, true, "x"])
      #expect(try literal.int(row: 0, column: 0) == 42)
      #expect(try literal.double(row: 0, column: 1) == 2.5)
      #expect(try literal.bool(row: 0, column: 2) == true)
      #expect(literal.string(row: 0, column: 3) == "x")
      #expect(try literal.int(row: 0, column: 4) == Int.max)
      #expect(try literal.double(row: 0, column: 5)?.isNaN == true)
      #expect(literal.string(row: 0, column: 6) == "t")
    }
  }

  @Test func resultsNameTheirColumnsAndCountTheirRows() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try database.connect()
      try connection.run(
        script: """
          CREATE TABLE film (id int PRIMARY KEY, title text, "Year" int);
          INSERT INTO film VALUES (1, 'Alien', 1979), (2, 'Heat', 1995), (3, 'Ran', 1985), (4, '12', NULL);
          """)
      let update = try connection.execute("UPDATE film SET title = upper(title) WHERE \"Year\" > $1", [1980])
      #expect(update.affectedRows == 2)
      #expect(update.rowCount == 0 && update.columnCount == 0)
      #expect(try connection.execute("CREATE INDEX film_year ON film (\"Year\")").affectedRows == 0)
      let rows = try connection.execute("SELECT id, title, \"Year\" FROM film ORDER BY id")
      #expect(rows.rowCount == 4 && rows.columnCount == 3 && rows.affectedRows == 4)
      #expect(rows.columnNames == ["id", "title", "Year"])
      #expect(rows.column(named: "Year") == 2 && rows.column(named: "year") == nil)
      #expect(rows.string(row: 1, column: 1) == "HEAT")
      #expect(try rows.int(row: 3, column: 2) == nil)
      #expect(try rows.int(row: 3, column: 1) == 12)
      let error = #expect(throws: PostgreSQLError.self) { try rows.int(row: 0, column: 1) }
      #expect(error?.message == "column 1 (title) of row 0 holds \"Alien\", not an integer")
      #expect(throws: PostgreSQLError.self) { try rows.bool(row: 0, column: 0) }
      #expect(throws: PostgreSQLError.self) { try rows.double(row: 0, column: 1) }
      let empty = try connection.execute("SELECT id FROM film WHERE id < 0")
      #expect(empty.rowCount == 0 && empty.columnNames == ["id"])
    }
  }

  @Test func aNulIsRefusedBeforeAnythingIsSent() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try database.connect()
      try connection.run(script: "CREATE TABLE t (id int, value text)")
      let sql = "INSERT INTO t VALUES ($1, $2)"
      #expect(
        throws: PostgreSQLError(
          kind: .other, sqlState: "22021",
          message: "parameter 2 holds a NUL character (U+0000), which PostgreSQL's text cannot store", sql: sql)
      ) { try connection.execute(sql, [1, "before\u{0}after"]) }
      #expect(throws: PostgreSQLError.self) { try connection.execute("SELECT 1 -- \u{0}") }
      #expect(throws: PostgreSQLError.self) { try connection.listen("a\u{0}b") }
      #expect(try connection.execute("SELECT count(*) FROM t").int(row: 0, column: 0) == 0)
    }
  }

  @Test func constraintsAreClassified() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try database.connect()
      try connection.run(
        script: """
          CREATE TABLE film (id int PRIMARY KEY, title text UNIQUE);
          CREATE TABLE review (id int PRIMARY KEY, film int REFERENCES film (id));
          INSERT INTO film VALUES (1, 'Alien');
          INSERT INTO review VALUES (1, 1);
          """)
      let unique = #expect(throws: PostgreSQLError.self) {
        try connection.execute("INSERT INTO film VALUES ($1, $2)", [2, "Alien"])
      }
      #expect(unique?.kind == .uniqueViolation && unique?.sqlState == "23505")
      #expect(unique?.constraint == "film_title_key")
      #expect(unique?.message == #"duplicate key value violates unique constraint "film_title_key""#)
      #expect(unique?.detail == "Key (title)=(Alien) already exists.")
      #expect(unique?.sql == "INSERT INTO film VALUES ($1, $2)")

      let missing = #expect(throws: PostgreSQLError.self) {
        try connection.execute("INSERT INTO review VALUES ($1, $2)", [2, 99])
      }
      #expect(missing?.kind == .foreignKeyViolation && missing?.sqlState == "23503")
      #expect(missing?.constraint == "review_film_fkey")
      let referenced = #expect(throws: PostgreSQLError.self) { try connection.execute("DELETE FROM film") }
      #expect(referenced?.kind == .foreignKeyViolation)

      let null = #expect(throws: PostgreSQLError.self) {
        try connection.execute("INSERT INTO film VALUES ($1, $2)", [nil, "Heat"])
      }
      #expect(null?.kind == .other && null?.sqlState == "23502")
      #expect(try connection.execute("SELECT count(*) FROM film").int(row: 0, column: 0) == 1)
    }
  }

  @Test func aSyntaxErrorIsOtherWithItsStateMessageAndSQL() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try database.connect()
      let cached = connection.cachedStatements
      let error = #expect(throws: PostgreSQLError.self) { try connection.execute("SELEC 1") }
      #expect(error?.kind == .other && error?.sqlState == "42601")
      #expect(error?.message == #"syntax error at or near "SELEC""#)
      #expect(error?.sql == "SELEC 1")
      #expect(error?.description == #"PostgreSQL error 42601: syntax error at or near "SELEC" (in: SELEC 1)"#)
      #expect(connection.cachedStatements == cached)
      let undefined = #expect(throws: PostgreSQLError.self) { try connection.execute("SELECT * FROM nowhere") }
      #expect(undefined?.kind == .other && undefined?.sqlState == "42P01")
      #expect(try connection.execute("SELECT 1").int(row: 0, column: 0) == 1)
    }
  }

  @Test(arguments: [
    ("40001", PostgreSQLError.Kind.busy), ("40P01", .busy), ("55P03", .busy), ("23505", .uniqueViolation),
    ("23503", .foreignKeyViolation), ("53100", .diskFull), ("25006", .readOnly), ("XX001", .damaged),
    ("XX002", .damaged), ("08006", .connectionLost), ("08001", .connectionLost), ("57P01", .connectionLost),
    ("57P02", .connectionLost), ("57P03", .connectionLost), ("53300", .tooManyConnections), ("42601", .other),
    ("23502", .other), ("XX000", .other), ("57014", .other),
  ])
  func sqlStatesAreClassified(_ sqlState: String, _ kind: PostgreSQLError.Kind) {
    #expect(PostgreSQLError.kind(sqlState: sqlState) == kind)
  }

  @Test func scriptsRunWholeOrNotAtAll() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try database.connect()
      try connection.run(script: "CREATE TABLE a (id int); INSERT INTO a VALUES (1); INSERT INTO a VALUES (2);")
      let error = #expect(throws: PostgreSQLError.self) {
        try connection.run(script: "CREATE TABLE b (id int); INSERT INTO a VALUES (3); SELEC 1;")
      }
      #expect(error?.sqlState == "42601")
      #expect(try connection.execute("SELECT count(*) FROM a").int(row: 0, column: 0) == 2)
      #expect(try connection.execute("SELECT to_regclass('b') IS NULL").bool(row: 0, column: 0) == true)
      // COPY with the client is refused, and the connection is fine afterwards.
      #expect(throws: PostgreSQLError.self) { try connection.execute("COPY a FROM STDIN") }
      #expect(throws: PostgreSQLError.self) { try connection.run(script: "COPY a TO STDOUT") }
      #expect(try connection.execute("SELECT count(*) FROM a").int(row: 0, column: 0) == 2)
    }
  }

  @Test func transactionsCommitRollBackAndRefuseWhatTheyMust() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try database.connect()
      try connection.run(script: "CREATE TABLE t (id int PRIMARY KEY)")
      try connection.begin()
      #expect(connection.isInTransaction)
      _ = try connection.execute("INSERT INTO t VALUES (1)")
      #expect(throws: PostgreSQLError.self) { try connection.begin() }
      try connection.rollback()
      #expect(!connection.isInTransaction)
      try connection.begin(isolation: .repeatableRead)
      _ = try connection.execute("INSERT INTO t VALUES (2)")
      try connection.commit()
      #expect(try connection.execute("SELECT array_agg(id)::text FROM t").string(row: 0, column: 0) == "{2}")

      // A statement that failed aborts the transaction: its commit is a rollback, and says so.
      try connection.begin()
      _ = try connection.execute("INSERT INTO t VALUES (3)")
      #expect(throws: PostgreSQLError.self) { try connection.execute("INSERT INTO t VALUES (2)") }
      let commit = #expect(throws: PostgreSQLError.self) { try connection.commit() }
      #expect(commit?.sqlState == "25P02")
      #expect(!connection.isInTransaction)
      #expect(try connection.execute("SELECT count(*) FROM t").int(row: 0, column: 0) == 1)

      try connection.begin(readOnly: true)
      let readOnly = #expect(throws: PostgreSQLError.self) { try connection.execute("INSERT INTO t VALUES (4)") }
      #expect(readOnly?.kind == .readOnly && readOnly?.sqlState == "25006")
      try connection.rollback()

      // The helper commits what returns and rolls back what throws.
      try connection.transaction { () throws(PostgreSQLError) in _ = try connection.execute("INSERT INTO t VALUES (5)")
      }
      #expect(throws: PostgreSQLError.self) {
        try connection.transaction { () throws(PostgreSQLError) in
          _ = try connection.execute("INSERT INTO t VALUES (6)")
          _ = try connection.execute("INSERT INTO t VALUES (5)")
        }
      }
      #expect(
        try connection.execute("SELECT array_agg(id ORDER BY id)::text FROM t").string(row: 0, column: 0) == "{2,5}")
    }
  }

  @Test func aSerializationFailureIsBusyAndTheTransactionRunsAgain() throws {
    try PostgreSQLCluster.withDatabase { database in
      let first = try database.connect()
      let second = try database.connect()
      try first.run(
        script: "CREATE TABLE duty (doctor text, on_call boolean); INSERT INTO duty VALUES ('a', true), ('b', true);")

      // Write skew: each reads that two are on call and takes one off; both cannot commit.
      func takeOff(_ connection: PostgreSQLConnection, _ doctor: String) throws(PostgreSQLError) {
        let onCall = try connection.execute("SELECT count(*) FROM duty WHERE on_call").int(row: 0, column: 0)
        if onCall ?? 0 > 1 {
          _ = try connection.execute("UPDATE duty SET on_call = false WHERE doctor = $1", [.text(doctor)])
        }
      }
      try first.begin(isolation: .serializable)
      try second.begin(isolation: .serializable)
      try takeOff(first, "a")
      try takeOff(second, "b")
      try first.commit()
      var busy: PostgreSQLError?
      do throws(PostgreSQLError) {
        _ = try second.execute("SELECT 1")
        try second.commit()
      } catch {
        busy = error
      }
      #expect(busy?.kind == .busy && busy?.sqlState == "40001")
      try second.rollback()
      #expect(try first.execute("SELECT count(*) FROM duty WHERE on_call").int(row: 0, column: 0) == 1)

      // The helper runs the loser again, which then sees the winner's commit.
      try first.run(script: "UPDATE duty SET on_call = true")
      var attempts = 0
      try second.transaction(isolation: .serializable) { () throws(PostgreSQLError) in
        attempts += 1
        try takeOff(second, "b")
        if attempts == 1 {
          try first.transaction(isolation: .serializable) { () throws(PostgreSQLError) in try takeOff(first, "a") }
        }
      }
      #expect(attempts == 2)
      #expect(!second.isInTransaction)
      #expect(
        try first.execute("SELECT string_agg(doctor, ',') FROM duty WHERE on_call").string(row: 0, column: 0) == "b")

      // Busy every time: the last failure is thrown after the attempts allowed.
      var tries = 0
      let given = #expect(throws: PostgreSQLError.self) {
        try second.transaction(retrying: 3) { () throws(PostgreSQLError) in
          tries += 1
          throw PostgreSQLError(kind: .busy, sqlState: "40P01", message: "deadlock detected")
        }
      }
      #expect(tries == 3 && given?.sqlState == "40P01")
    }
  }

  @Test func notificationsCrossConnectionsWithTheirPayloads() throws {
    try PostgreSQLCluster.withDatabase { database in
      let listener = try database.connect()
      let sender = try database.connect()
      // A channel's name is taken as it is: case, spaces and quotes kept.
      try listener.listen("Reviews \"Feed\"")
      try listener.listen("other")
      try sender.notify("Reviews \"Feed\"", payload: "review 42 — é 🎬")
      try sender.notify("unheard", payload: "nobody listens")
      let received = try listener.notifications(waitingUpTo: 5)
      #expect(
        received == [
          PostgreSQLNotification(channel: "Reviews \"Feed\"", payload: "review 42 — é 🎬", sender: sender.processID)
        ])

      // Sent in a transaction, it comes when the transaction commits.
      try sender.begin()
      try sender.notify("other", payload: "first")
      try sender.notify("other")
      #expect(try listener.notifications(waitingUpTo: 0.1).isEmpty)
      try sender.commit()
      var payloads: [String] = []
      while payloads.count < 2, case let received = try listener.notifications(waitingUpTo: 5), !received.isEmpty {
        payloads += received.map(\.payload)
      }
      #expect(payloads == ["first", ""])

      // None to come: the wait ends on time, empty.
      let clock = ContinuousClock()
      let start = clock.now
      #expect(try listener.notifications(waitingUpTo: 0.3).isEmpty)
      let waited = clock.now - start
      #expect(waited >= .milliseconds(300) && waited < .seconds(2))
      #expect(try listener.pendingNotifications().isEmpty)

      // Received while the listener ran a statement: there without waiting.
      try sender.notify("other", payload: "meanwhile")
      _ = try listener.execute("SELECT pg_sleep(0.1)")
      #expect(try listener.pendingNotifications().map(\.payload) == ["meanwhile"])

      try listener.unlisten("other")
      try sender.notify("other", payload: "after unlisten")
      #expect(try listener.notifications(waitingUpTo: 0.1).isEmpty)
    }
  }

  @Test func aLostConnectionIsMadeAgainOutsideATransactionOnly() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try database.connect()
      let other = try database.connect()
      try connection.listen("after")
      func terminate() throws(PostgreSQLError) {
        // Waits until the process is gone (PostgreSQL 14 and later).
        let sql = "SELECT pg_terminate_backend($1, 5000)"
        let ended = try other.execute(sql, [PostgreSQLValue(connection.processID)]).bool(row: 0, column: 0)
        #expect(ended == true)
      }
      #expect(try connection.execute("SELECT $1::int + 1", [1]).int(row: 0, column: 0) == 2)
      let first = connection.processID
      try terminate()
      #expect(try connection.execute("SELECT $1::int + 1", [2]).int(row: 0, column: 0) == 3)
      #expect(connection.processID != first && connection.reconnections == 1)
      // Listened to again on the new session.
      try other.notify("after", payload: "again")
      #expect(try connection.notifications(waitingUpTo: 5).map(\.payload) == ["again"])

      // In a transaction, the work is gone: every statement fails until the rollback.
      try connection.begin()
      _ = try connection.execute("SELECT 1")
      try terminate()
      let lost = #expect(throws: PostgreSQLError.self) { try connection.execute("SELECT 2") }
      #expect(lost?.kind == .connectionLost)
      let still = #expect(throws: PostgreSQLError.self) { try connection.execute("SELECT 3") }
      #expect(still?.kind == .connectionLost && connection.reconnections == 1)
      #expect(throws: PostgreSQLError.self) { try connection.ensureConnected() }
      try connection.rollback()
      #expect(try connection.execute("SELECT 4").int(row: 0, column: 0) == 4)
      #expect(connection.reconnections == 2)

      // A transaction whose connection is lost before its commit runs again on a new one.
      var attempts = 0
      let value = try connection.transaction { () throws(PostgreSQLError) -> Int in
        attempts += 1
        if attempts == 1 { try terminate() }
        return try connection.execute("SELECT 5").int(row: 0, column: 0) ?? 0
      }
      #expect(value == 5 && attempts == 2 && connection.reconnections == 3)
    }
  }

  @Test(
    .enabled(
      if: PostgreSQLCluster.external == nil, "restarts a server of its own, which the variable asks not to start"))
  func aRestartedServerIsWaitedForAndStatementsArePreparedAgain() throws {
    try PostgreSQLCluster.withPrivateCluster { cluster in
      let connection = try PostgreSQLConnection(cluster.url)
      let sql = "SELECT $1::int * 2"
      #expect(try connection.execute(sql, [21]).int(row: 0, column: 0) == 42)
      #expect(connection.cachedStatements == 1)
      try cluster.restart()
      #expect(try connection.execute(sql, [4]).int(row: 0, column: 0) == 8)
      #expect(connection.reconnections == 1 && connection.cachedStatements == 1)

      try connection.begin()
      _ = try connection.execute(sql, [1])
      try cluster.restart()
      let lost = #expect(throws: PostgreSQLError.self) { try connection.execute(sql, [2]) }
      #expect(lost?.kind == .connectionLost)
      try connection.rollback()
      #expect(try connection.execute(sql, [3]).int(row: 0, column: 0) == 6)

      // Statements all through a restart: each one waits for the server, none fails.
      let before = connection.reconnections
      let restart = try cluster.beginRestart()
      var statements = 0
      while restart.isRunning || statements == 0 {
        #expect(try connection.execute(sql, [PostgreSQLValue(statements)]).int(row: 0, column: 0) == statements * 2)
        statements += 1
        usleep(1000)
      }
      restart.waitUntilExit()
      #expect(restart.terminationStatus == 0)
      #expect(connection.reconnections > before)
      #expect(try connection.execute(sql, [5]).int(row: 0, column: 0) == 10)
      #expect(connection.serverVersion >= 140000)
    }
  }

  @Test func aServerThatDoesNotAnswerIsWaitedForWithinBounds() throws {
    // A port nothing listens on: the kernel refuses at once.
    let conninfo = "host=127.0.0.1 port=1 dbname=nowhere user=nobody"
    let quick = #expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(conninfo) }
    #expect(quick?.kind == .connectionLost && quick?.sqlState == nil)
    #expect(quick?.database == "postgresql://nobody@127.0.0.1:1/nowhere")
    let clock = ContinuousClock()
    let start = clock.now
    let waited = #expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(conninfo, waitingForServer: 0.5) }
    let elapsed = clock.now - start
    #expect(waited?.kind == .connectionLost)
    #expect(elapsed >= .milliseconds(500) && elapsed < .seconds(3))
  }

  @Test func aFailedConnectionNamesTheDatabaseButNeverThePassword() throws {
    let server = try PostgreSQLCluster.shared()
    let password = "hunter2-correct-horse"
    // The second percent-encoded in the URL, as libpq reads it.
    for conninfo in [
      PostgreSQLCluster.conninfo(server, database: "no_such_database", password: password),
      PostgreSQLCluster.conninfo(server, database: "no_such_database", password: "p@ss:w/rd " + password),
    ] {
      let error = #expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(conninfo) }
      #expect(error?.kind == .other)
      #expect(error?.message.contains(#"database "no_such_database" does not exist"#) == true)
      #expect(error?.database?.hasSuffix("/no_such_database") == true)
      #expect(error?.description.contains("no_such_database") == true)
      #expect(error?.description.contains("hunter2") == false)
      #expect(error?.description.contains("p%40ss") == false)
    }
    // A string libpq cannot read: its words would quote the password.
    let unreadable = #expect(throws: PostgreSQLError.self) {
      try PostgreSQLConnection("host=127.0.0.1 password=\(password) \(password)")
    }
    #expect(unreadable?.kind == .other && unreadable?.message.hasPrefix("the connection string cannot be read") == true)
    #expect(unreadable?.description.contains("hunter2") == false)
    let typo = #expect(throws: PostgreSQLError.self) { try PostgreSQLConnection("host=127.0.0.1 prot=5432") }
    #expect(typo?.message == #"the connection string cannot be read: invalid connection option "prot""#)
    let keywords = "host=127.0.0.1 port=1 dbname=elsewhere user=someone password=\(password) connect_timeout=2"
    let refused = #expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(keywords) }
    #expect(refused?.description.contains("elsewhere") == true && refused?.description.contains("hunter2") == false)
  }

  @Test func aRoleWithoutRoomIsTooManyConnections() throws {
    try PostgreSQLCluster.withDatabase { database in
      let admin = try database.connect()
      let role = database.name + "_role"
      try admin.run(script: "CREATE ROLE \(role) LOGIN PASSWORD 'not-a-secret' CONNECTION LIMIT 0")
      defer { try? admin.run(script: "DROP ROLE \(role)") }
      let conninfo = PostgreSQLCluster.conninfo(
        database.conninfo, database: database.name, password: "not-a-secret", user: role)
      let error = #expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(conninfo) }
      #expect(error?.kind == .tooManyConnections && error?.sqlState == "53300")
      #expect(error?.message.contains("too many connections for role") == true)
      let unknown = PostgreSQLCluster.conninfo(database.conninfo, database: database.name, user: "nobody_at_all")
      let nobody = #expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(unknown) }
      #expect(nobody?.kind == .other && nobody?.message.contains(#"role "nobody_at_all" does not exist"#) == true)
    }
  }

  @Test func preparedStatementsAreBoundedAndPreparedAgainWhenTheServerForgetsThem() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try database.connect()
      let limit = PostgreSQLConnection.statementCacheLimit
      for k in 0..<(limit * 2 + 10) {
        #expect(try connection.execute("SELECT $1::int + \(k)", [1]).int(row: 0, column: 0) == 1 + k)
      }
      #expect(connection.cachedStatements == limit)
      // The statements dropped from the cache are deallocated on the server too.
      let held = try connection.execute("SELECT count(*) FROM pg_prepared_statements").int(row: 0, column: 0) ?? 0
      #expect(held >= limit && held <= limit + 1)
      #expect(try connection.execute("SELECT $1::int + 0", [7]).int(row: 0, column: 0) == 7)

      // The server's statements gone behind the cache's back, inside a script.
      try connection.run(script: "DEALLOCATE ALL")
      #expect(try connection.execute("SELECT $1::int + 0", [8]).int(row: 0, column: 0) == 8)

      // A `SELECT *` whose rows changed shape is prepared again.
      try connection.run(script: "CREATE TABLE t (a int); INSERT INTO t VALUES (1)")
      #expect(try connection.execute("SELECT * FROM t").columnCount == 1)
      try connection.run(script: "ALTER TABLE t ADD COLUMN b text DEFAULT 'x'")
      let wider = try connection.execute("SELECT * FROM t")
      #expect(wider.columnNames == ["a", "b"] && wider.string(row: 0, column: 1) == "x")

      // A new session starts with none, and prepares them again as they come.
      try connection.reset()
      #expect(connection.cachedStatements == 0)
      #expect(try connection.execute("SELECT $1::int + 0", [9]).int(row: 0, column: 0) == 9)
      #expect(connection.cachedStatements == 1)
      #expect(try connection.execute("SELECT count(*) FROM pg_prepared_statements").int(row: 0, column: 0) == 2)
    }
  }

  @Test func theConnectionNamesItselfAndSpeaksUTF8() throws {
    try PostgreSQLCluster.withDatabase { database in
      let connection = try database.connect()
      let settings = try connection.execute(
        "SELECT current_setting('client_encoding'), current_setting('application_name'), current_database()")
      #expect(settings.string(row: 0, column: 0) == "UTF8")
      #expect(settings.string(row: 0, column: 1) == "catalogue")
      #expect(settings.string(row: 0, column: 2) == database.name)
      #expect(connection.name.hasSuffix("/\(database.name)") && !connection.name.contains("password"))
      // A name of the caller's own wins; the encoding is always UTF-8.
      let named = try PostgreSQLConnection(
        database.conninfo + (database.conninfo.contains("://") ? "?" : " ")
          + "application_name=importer" + (database.conninfo.contains("://") ? "&" : " ") + "client_encoding=LATIN1")
      let own = try named.execute("SELECT current_setting('application_name'), current_setting('client_encoding')")
      #expect(own.string(row: 0, column: 0) == "importer" && own.string(row: 0, column: 1) == "UTF8")
    }
  }
}
