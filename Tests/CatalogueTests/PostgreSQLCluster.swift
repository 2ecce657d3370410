@testable import Catalogue
import Foundation
import Glibc
import Testing

/// The PostgreSQL server the tests use: a throwaway cluster that `scripts/postgresql-test-cluster`
/// starts once per test process, or the one `CATALOGUE_TEST_POSTGRESQL` names (a URL or libpq's
/// keywords; its role must be allowed to create databases and roles), and then nothing is started.
///
/// The cluster is started with `--watch` and this process's id: however the tests end, a
/// crash and a kill included, it is stopped and its folder removed about a second later.
/// Every test works in a database of its own (``withDatabase(_:)``), so that tests run in
/// parallel and never see each other's rows. Without PostgreSQL installed, the script says to
/// run `scripts/install-packages`, and every test that needs the server fails with that.
final class PostgreSQLCluster: Sendable {
  /// Where to connect: `postgresql://USER@127.0.0.1:PORT/catalogue_test` for a cluster started
  /// here.
  let url: String
  /// The cluster's folder, for one started here.
  let folder: String?

  private init(url: String, folder: String?) {
    self.url = url
    self.folder = folder
  }

  /// The variable that names a server to use instead of starting one.
  static let variable = "CATALOGUE_TEST_POSTGRESQL"

  /// The server `CATALOGUE_TEST_POSTGRESQL` names, if it names one.
  static var external: String? {
    guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else { return nil }
    return value
  }

  /// Started the first time a test asks, once for the whole process (a `static let` is
  /// initialised once, whichever thread asks first), never stopped but by its watcher.
  private static let sharedCluster: Result<PostgreSQLCluster, PostgreSQLClusterFailure> = {
    if let external { return .success(PostgreSQLCluster(url: external, folder: nil)) }
    return Result { () throws(PostgreSQLClusterFailure) in try start() }
  }()

  /// Where the tests' server is, started the first time this is asked.
  static func shared() throws -> String { try sharedCluster.get().url }

  /// A cluster of a test's own, for a test that restarts the server under the others' feet:
  /// started for `body` and stopped after it.
  static func withPrivateCluster<T>(_ body: (PostgreSQLCluster) throws -> T) throws -> T {
    let cluster = try start()
    defer { try? cluster.stop() }
    return try body(cluster)
  }

  /// A database of a test's own in the shared server, `t_` and random letters, made for `body`
  /// and dropped after it with every connection still open to it.
  static func withDatabase<T>(_ body: (PostgreSQLTestDatabase) throws -> T) throws -> T {
    let server = try shared()
    let name = "t_" + (0..<12).map { _ in String("abcdefghijklmnopqrstuvwxyz".randomElement()!) }.joined()
    try PostgreSQLConnection(server).run(script: "CREATE DATABASE \(name)")
    let database = PostgreSQLTestDatabase(name: name, conninfo: conninfo(server, database: name))
    let result = Result { try body(database) }
    do {
      try PostgreSQLConnection(server).run(script: "DROP DATABASE \(name) WITH (FORCE)")
    } catch {
      // The test's own failure says more than this one.
      _ = try result.get()
      throw error
    }
    return try result.get()
  }

  /// `base` with another database and, if given, a password: a URL's path replaced, or a
  /// keyword added to libpq's keywords (the last of a keyword wins).
  static func conninfo(_ base: String, database: String, password: String? = nil, user: String? = nil) -> String {
    if var url = URLComponents(string: base), url.scheme == "postgresql" || url.scheme == "postgres" {
      url.path = "/" + database
      if let password { url.password = password }
      if let user { url.user = user }
      return url.string!
    }
    var text = base + " dbname=" + quoted(database)
    if let password { text += " password=" + quoted(password) }
    if let user { text += " user=" + quoted(user) }
    return text
  }

  /// A value of libpq's keywords in single quotes, its backslashes and quotes escaped.
  private static func quoted(_ value: String) -> String {
    "'" + value.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
  }

  /// Stops it at once (`pg_ctl -m immediate stop`) and removes its folder.
  func stop() throws {
    guard let folder else { return }
    _ = try Self.script(["stop", folder])
  }

  /// Restarts it (`pg_ctl -m fast restart`), as an upgrade does: every session ends.
  func restart() throws {
    guard let folder else { throw PostgreSQLClusterFailure(message: "a server not started here cannot be restarted") }
    _ = try Self.script(["restart", folder])
  }

  /// The restart of ``restart()`` begun, not waited for.
  func beginRestart() throws -> Process {
    guard let folder else { throw PostgreSQLClusterFailure(message: "a server not started here cannot be restarted") }
    let process = Process()
    process.executableURL = Self.scriptURL
    process.arguments = ["restart", folder]
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    return process
  }

  /// A new cluster in a fresh temporary folder, watched by the script for this process's end.
  private static func start() throws(PostgreSQLClusterFailure) -> PostgreSQLCluster {
    var template = Array("\(NSTemporaryDirectory())/catalogue-postgresql-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    guard let made else { throw PostgreSQLClusterFailure(message: "cannot make a temporary folder") }
    let folder = String(cString: made)
    let url = try script(["start", folder, "--watch", String(getpid())])
    return PostgreSQLCluster(url: url, folder: folder)
  }

  private static let scriptURL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("scripts/postgresql-test-cluster")

  /// Runs the script and returns what it printed, or throws what it said on standard error.
  private static func script(_ arguments: [String]) throws(PostgreSQLClusterFailure) -> String {
    let process = Process()
    process.executableURL = scriptURL
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    do {
      try process.run()
    } catch {
      throw PostgreSQLClusterFailure(message: "cannot run \(scriptURL.path): \(error)")
    }
    // The script writes a line or two to each, far less than a pipe holds.
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    let said = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      let message = String(decoding: said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
      throw PostgreSQLClusterFailure(
        message: "scripts/postgresql-test-cluster \(arguments.joined(separator: " ")) failed: \(message)")
    }
    return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

/// A database of one test's own: see ``PostgreSQLCluster/withDatabase(_:)``.
struct PostgreSQLTestDatabase {
  let name: String
  /// Where to connect to it.
  let conninfo: String

  /// A new connection to it.
  func connect() throws(PostgreSQLError) -> PostgreSQLConnection { try PostgreSQLConnection(conninfo) }
}

/// The test cluster could not be started or stopped; `message` says why (the script's words).
struct PostgreSQLClusterFailure: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}
