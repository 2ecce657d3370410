import Foundation
import Testing
import TestSupport

/// Runs the built `catalogue` executable, as a user would.
struct CLI {
  struct Result {
    let status: Int32
    let output: String
    let error: String
  }

  /// The executable beside the test bundle (both are products of the same build).
  static let executable: String = {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for folder in [here, here.deletingLastPathComponent()] {
      let candidate = folder.appendingPathComponent("catalogue").path
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    let build = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent(".build/debug/catalogue").path
    return build
  }()

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
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory ?? folder.path)
    var env = ProcessInfo.processInfo.environment
    env.removeValue(forKey: "CATALOGUE_LIBRARY")
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let output = Pipe()
    let error = Pipe()
    let standardInput = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = standardInput
    try process.run()
    if let input { standardInput.fileHandleForWriting.write(Data(input.utf8)) }
    try standardInput.fileHandleForWriting.close()
    // Read both pipes before waiting, so that a large output cannot block the child.
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
      error: String(decoding: errorData, as: UTF8.self))
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
