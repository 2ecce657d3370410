import Foundation
import Testing
import TestSupport

/// Runs the built `catalogue` executable, as a user would.
struct CLI {
  typealias Result = BuiltCatalogue.Result

  static let executable = BuiltCatalogue.path

  let folder: TemporaryFolder
  var library: String { folder.file("Library") }

  init() {
    folder = TemporaryFolder()
  }

  /// Runs `catalogue --library <this test's library> ARGUMENTS`.
  @discardableResult
  func callAsFunction(_ arguments: String..., input: String? = nil, environment: [String: String] = [:]) throws
    -> Result
  {
    try run(["--library", library] + arguments, input: input, environment: environment)
  }

  /// Runs `catalogue --library <this test's library> ARGUMENTS`.
  @discardableResult
  func callAsFunction(_ arguments: [String]) throws -> Result {
    try run(["--library", library] + arguments)
  }

  func run(
    _ arguments: [String], input: String? = nil, environment: [String: String] = [:], directory: String? = nil,
    executable: String = CLI.executable
  ) throws -> Result {
    try BuiltCatalogue.run(
      arguments, input: input, environment: environment, directory: directory ?? folder.path, executable: executable)
  }

  /// Creates the library and one review; returns the review's id.
  func withReview(_ title: String = "Arrival", rating: String = "5", category: String = "movie") throws -> String {
    if !FileManager.default.fileExists(atPath: library + "/catalogue.sqlite") {
      try #require(try self("init").status == 0)
    }
    let added = try self(
      "add", "--title", title, "--rating", rating, "--category", category, "--body", "Body of \(title).")
    try #require(added.status == 0, "\(added.error)")
    return added.output.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Runs `sql` on this test's library with the sqlite3 shell, as a user editing it by hand.
  func sqlite(_ sql: String, database: String? = nil) throws {
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    shell.arguments = [database ?? library + "/catalogue.sqlite", sql]
    try shell.run()
    shell.waitUntilExit()
    try #require(shell.terminationStatus == 0, "sqlite3 failed on: \(sql)")
  }

  func json(_ result: Result) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
    return try #require(object as? [String: Any])
  }
}
