@testable import Catalogue
import Foundation
import Glibc
import Testing
import TestSupport

/// The command line and the server on a library whose records are in PostgreSQL, run as a user
/// runs them: the built `catalogue`, a real server, exit statuses and messages.
@Suite("The command line and the server on PostgreSQL")
struct PostgreSQLCommandTests {
  private static func catalogue(_ arguments: [String], in folder: TemporaryFolder) throws -> BuiltCatalogue.Result {
    try BuiltCatalogue.run(arguments, directory: folder.path)
  }

  @Test func initWritesTheDatabaseIntoTheFolderAndLaterCommandsNeedOnlyTheFolder() throws {
    try PostgreSQLCluster.withDatabase { database in
      let folder = TemporaryFolder()
      let library = folder.file("Team")
      let created = try Self.catalogue(["--database", database.conninfo, "init", library], in: folder)
      #expect(created.status == 0, "\(created.error)")
      #expect(created.output == "Created an empty library in \(library)\n")
      #expect(try String(contentsOfFile: "\(library)/catalogue.database", encoding: .utf8) == database.conninfo + "\n")
      #expect(!FileManager.default.fileExists(atPath: "\(library)/catalogue.sqlite"))
      let added = try Self.catalogue(
        ["--library", library, "add", "--title", "Heat", "--rating", "5", "--category", "movie", "--body", "Night."],
        in: folder)
      #expect(added.status == 0, "\(added.error)")
      let listed = try Self.catalogue(["--library", library, "list", "--search", "night"], in: folder)
      #expect(listed.output.contains("Heat") && listed.status == 0)
      let checked = try Self.catalogue(["--library", library, "check"], in: folder)
      #expect(checked.status == 0 && checked.output.contains("no problems"), "\(checked.output)\(checked.error)")
      // The records are in the database, not in the folder.
      let count = try database.connect().execute("SELECT count(*) FROM reviews").int(row: 0, column: 0)
      #expect(count == 1)
      // Another database, empty: named as holding no catalogue, with what to do.
      try PostgreSQLCluster.withDatabase { empty in
        let none = try Self.catalogue(["--library", library, "--database", empty.conninfo, "list"], in: folder)
        #expect(none.status == 1, "\(none.error)")
        #expect(none.error.contains("holds no catalogue: `catalogue --database URL init FOLDER`"), "\(none.error)")
      }
      let again = try Self.catalogue(["--database", database.conninfo, "init", folder.file("Other")], in: folder)
      #expect(again.status == 1 && again.error.contains("is already a catalogue library"), "\(again.error)")
      #expect(!FileManager.default.fileExists(atPath: folder.file("Other")))
    }
  }

  /// A URL that is not PostgreSQL's is a mistake on the command line (exit 2), said without
  /// repeating it (it may hold a password); nothing is made.
  @Test func aDatabaseThatIsNotAPostgreSQLURLIsAUsageError() throws {
    let folder = TemporaryFolder()
    let result = try Self.catalogue(
      ["--database", "mysql://ada:hunter22@db.example/reviews", "init", folder.file("Team")], in: folder)
    #expect(result.status == 2)
    #expect(result.error.split(separator: "\n").count == 1, "\(result.error)")
    #expect(result.error.contains("postgresql://USER@HOST:PORT/DATABASE"))
    #expect(!result.error.contains("hunter22"))
    #expect(!FileManager.default.fileExists(atPath: folder.file("Team")))
  }

  /// A database that cannot be reached: one line that says so, no password, exit 1, no folder.
  @Test func anUnreachableDatabaseIsOneLineAndLeavesNothing() throws {
    let folder = TemporaryFolder()
    let result = try Self.catalogue(
      ["--database", "postgresql://ada:hunter22@127.0.0.1:1/reviews?connect_timeout=2", "init", folder.file("Team")],
      in: folder)
    #expect(result.status == 1)
    #expect(result.error.hasPrefix("error: the library's database cannot be reached"), "\(result.error)")
    // libpq's two lines as two sentences, not run together.
    #expect(result.error.contains("Connection refused. Is the server running"), "\(result.error)")
    #expect(result.error.split(separator: "\n").count == 1, "\(result.error)")
    #expect(!result.error.contains("hunter22"))
    #expect(!FileManager.default.fileExists(atPath: folder.file("Team")))
  }

  /// A database that holds something else is not taken over: refused, left as it was.
  @Test func aDatabaseHoldingOtherTablesIsRefusedUntouched() throws {
    try PostgreSQLCluster.withDatabase { database in
      try database.connect().run(script: "CREATE TABLE invoices (id integer)")
      let folder = TemporaryFolder()
      let result = try Self.catalogue(["--database", database.conninfo, "init", folder.file("Team")], in: folder)
      #expect(result.status == 1)
      #expect(result.error.contains("holds 1 table and no catalogue"), "\(result.error)")
      #expect(!FileManager.default.fileExists(atPath: folder.file("Team")))
      let tables = try database.connect().execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")
      #expect(try tables.int(row: 0, column: 0) == 1)
    }
  }

  /// A review edited by hand in `psql` leaves the search index behind: check says so (exit 1),
  /// repair rebuilds it, and the search finds the new words.
  @Test func checkAndRepairPutTheSearchIndexRight() throws {
    try PostgreSQLCluster.withDatabase { database in
      let folder = TemporaryFolder()
      let library = folder.file("Team")
      #expect(try Self.catalogue(["--database", database.conninfo, "init", library], in: folder).status == 0)
      _ = try Self.catalogue(
        ["--library", library, "add", "--title", "Heat", "--rating", "5", "--category", "movie"], in: folder)
      _ = try database.connect().execute("UPDATE reviews SET title = 'Thief'")
      let checked = try Self.catalogue(["--library", library, "check"], in: folder)
      #expect(checked.status == 1 && checked.output.contains("full-text index"), "\(checked.output)")
      let repaired = try Self.catalogue(["--library", library, "check", "--repair"], in: folder)
      #expect(repaired.status == 0, "\(repaired.output)\(repaired.error)")
      let found = try Self.catalogue(["--library", library, "list", "--search", "thief"], in: folder)
      #expect(found.output.contains("Thief"))
    }
  }

  /// `migrate --to URL` moves the records and says where, and where the old file went;
  /// `--to` that is neither a URL nor `sqlite` is a usage error; `--to sqlite` brings them back.
  @Test func migrateMovesTheRecordsAndSaysWhere() throws {
    try PostgreSQLCluster.withDatabase { database in
      let folder = TemporaryFolder()
      let library = folder.file("Library")
      #expect(try Self.catalogue(["init", library], in: folder).status == 0)
      _ = try Self.catalogue(
        ["--library", library, "add", "--title", "Heat", "--rating", "5", "--category", "movie"], in: folder)
      let wrong = try Self.catalogue(["--library", library, "migrate", "--to", "mysql://x"], in: folder)
      #expect(wrong.status == 2 && wrong.error.contains("PostgreSQL URL"), "\(wrong.error)")
      let missing = try Self.catalogue(["--library", library, "migrate"], in: folder)
      #expect(missing.status == 2 && missing.error.contains("--to"), "\(missing.error)")
      let moved = try Self.catalogue(["--library", library, "migrate", "--to", database.conninfo], in: folder)
      #expect(moved.status == 0, "\(moved.error)")
      #expect(
        moved.output.contains("Copied the records to \(database.conninfo) and checked them row by row (reviews: 1)"))
      #expect(moved.output.contains("the old store is kept in \(library)/lost+found/"))
      let listed = try Self.catalogue(["--library", library, "list"], in: folder)
      #expect(listed.output.contains("Heat"))
      let again = try Self.catalogue(["--library", library, "migrate", "--to", database.conninfo], in: folder)
      #expect(again.status == 1 && again.error.contains("in PostgreSQL already"), "\(again.error)")
      let back = try Self.catalogue(["--library", library, "--json", "migrate", "--to", "sqlite"], in: folder)
      #expect(back.status == 0, "\(back.error)")
      let report = try JSONSerialization.jsonObject(with: Data(back.output.utf8)) as? [String: Any]
      #expect((report?["rows"] as? [String: Int])?["reviews"] == 1, "\(back.output)")
      #expect(FileManager.default.fileExists(atPath: "\(library)/catalogue.sqlite"))
    }
  }

  /// The server reads and writes through PostgreSQL, sees the command line's change at its next
  /// request, and goes on answering after the database restarts under it.
  @Test func theServerFollowsTheCommandLineAndOutlivesADatabaseRestart() throws {
    try PostgreSQLCluster.withPrivateCluster { cluster in
      let folder = TemporaryFolder()
      let library = folder.file("Team")
      #expect(try Self.catalogue(["--database", cluster.url, "init", library], in: folder).status == 0)
      _ = try Self.catalogue(
        ["--library", library, "add", "--title", "Heat", "--rating", "5", "--category", "movie"], in: folder)
      let server = try RunningServer(library: library)
      defer { server.stop() }
      #expect(try server.get("/").body.contains("Heat"))
      _ = try Self.catalogue(
        ["--library", library, "add", "--title", "Collateral", "--rating", "4", "--category", "movie"], in: folder)
      #expect(try server.get("/").body.contains("Collateral"))
      try cluster.restart()
      let after = try server.get("/?sort=title")
      #expect(after.status == 200 && after.body.contains("Collateral"), "\(after.status)")
      #expect(try server.get("/api/reviews").status == 200)
    }
  }
}

/// `catalogue serve --port 0` on a library, for as long as a test needs it.
private final class RunningServer {
  let process = Process()
  let port: Int

  init(library: String) throws {
    process.executableURL = URL(fileURLWithPath: BuiltCatalogue.path)
    process.arguments = ["--library", library, "serve", "--port", "0"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    // "Serving LIBRARY at http://127.0.0.1:PORT/ (Ctrl-C stops)"
    var line = Data()
    let reader = output.fileHandleForReading
    while !line.contains(UInt8(ascii: "\n")) {
      let chunk = reader.availableData
      if chunk.isEmpty { break }
      line += chunk
    }
    let text = String(decoding: line, as: UTF8.self)
    guard let range = text.range(of: "127.0.0.1:"),
      let port = Int(text[range.upperBound...].prefix { $0.isNumber })
    else {
      process.terminate()
      throw CatalogueError.internalFailure("the server did not say where it listens: \(text)")
    }
    self.port = port
  }

  func stop() {
    process.terminate()
    process.waitUntilExit()
  }

  /// GET `path` over HTTP/1.0: the status and the body.
  func get(_ path: String) throws -> (status: Int, body: String) {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw CatalogueError.internalFailure("no socket") }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw CatalogueError.internalFailure("cannot connect to the server") }
    let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
      if count <= 0 { break }
      response += buffer[0..<count]
    }
    let text = String(decoding: response, as: UTF8.self)
    let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
    return (status, text)
  }
}
