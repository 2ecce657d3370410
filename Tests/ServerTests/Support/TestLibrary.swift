import HTTPTestSupport
import Foundation
import Testing
import TestSupport

/// What the built `catalogue` printed and how it ended.
typealias CommandResult = BuiltCatalogue.Result

extension BuiltCatalogue.Result {
  /// Standard output as a JSON object (`--json`).
  func json() throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] else {
      throw ClientError(description: "not a JSON object: \(output.prefix(200))")
    }
    return object
  }
}

/// A library of its own in a temporary folder, worked on through the built `catalogue`
/// executable as a user would: reviews, pictures, reviewers and tokens.
final class TestLibrary: Sendable {
  /// The executable beside the test bundle (both are products of the same build).
  static let executable = BuiltCatalogue.path

  let folder: TemporaryFolder
  /// The library folder.
  let path: String

  /// A new, empty library (`catalogue init`).
  init() throws {
    folder = TemporaryFolder()
    path = folder.file("Library")
    let made = try run("init")
    try #require(made.status == 0, "catalogue init: \(made.error)")
  }

  /// A library whose records are the SQL dump at `dump` (an older schema's, say), loaded with
  /// the sqlite3 shell.
  init(dump: String) throws {
    folder = TemporaryFolder()
    path = folder.file("Library")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    shell.arguments = [path + "/catalogue.sqlite"]
    shell.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: dump))
    try shell.run()
    shell.waitUntilExit()
    try #require(shell.terminationStatus == 0, "sqlite3 could not load \(dump)")
  }

  /// Runs `catalogue --library <this library> ARGUMENTS`, with `input` on standard input.
  @discardableResult
  func run(_ arguments: String..., input: String? = nil) throws -> CommandResult {
    try run(arguments, input: input)
  }

  @discardableResult
  func run(_ arguments: [String], input: String? = nil) throws -> CommandResult {
    try BuiltCatalogue.run(["--library", path] + arguments, input: input, directory: folder.path)
  }

  /// Adds a review and returns its id.
  @discardableResult
  func addReview(
    _ title: String, rating: Int = 4, category: String = "movie", body: String? = nil, favorite: Bool = false,
    pictures: [String] = []
  ) throws -> String {
    var arguments = [
      "add", "--title", title, "--rating", String(rating), "--category", category, "--body",
      body ?? "Body of \(title).",
    ]
    if favorite { arguments.append("--favorite") }
    for picture in pictures { arguments += ["--image", picture] }
    let added = try run(arguments)
    try #require(added.status == 0, "add \(title): \(added.error)")
    return added.output.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Adds a reviewer with `password` (`user add NAME --password-stdin`).
  func addReviewer(_ name: String, password: String) throws {
    let added = try run("user", "add", name, "--password-stdin", input: password + "\n")
    try #require(added.status == 0, "user add \(name): \(added.error)")
  }

  /// A new API token for `name` (`user token NAME`).
  func token(for name: String) throws -> String {
    let made = try run("user", "token", name)
    try #require(made.status == 0, "user token \(name): \(made.error)")
    let token = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
    try #require(token.hasPrefix("cat_"), "user token printed \(made.output)")
    return token
  }

  /// `show ID --json`.
  func show(_ id: String) throws -> [String: Any] {
    let shown = try run("--json", "show", id)
    try #require(shown.status == 0, "show \(id): \(shown.error)")
    return try shown.json()
  }

  /// The id of the review titled `title` (`list --json`).
  func id(of title: String) throws -> String {
    let listed = try run("--json", "list", "--limit", "500")
    try #require(listed.status == 0, "list: \(listed.error)")
    let reviews = try #require(try listed.json()["reviews"] as? [[String: Any]])
    let found = reviews.first { $0["title"] as? String == title }?["id"] as? String
    return try #require(found, "no review titled \(title)")
  }

  /// Every file below the library folder with its bytes (and every folder, as nil): what a
  /// refused request must leave exactly as it was. SQLite's shared-memory index is left out (it
  /// changes when anyone reads).
  func snapshot() throws -> [String: Data?] {
    var result: [String: Data?] = [:]
    let enumerator = FileManager.default.enumerator(atPath: path)
    while let relative = enumerator?.nextObject() as? String {
      if relative.hasSuffix("-shm") { continue }
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: path + "/" + relative, isDirectory: &isFolder)
      result[relative] = isFolder.boolValue ? nil : try Data(contentsOf: URL(fileURLWithPath: path + "/" + relative))
    }
    return result
  }

  /// The paths whose bytes differ between two snapshots, added or removed ones included.
  static func changes(_ before: [String: Data?], _ after: [String: Data?]) -> [String] {
    Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
  }

  /// The paths changed since `before` (a snapshot of this library).
  func changes(since before: [String: Data?]) throws -> [String] {
    Self.changes(before, try snapshot())
  }

  /// Records an issue naming every path changed since `before`.
  func expectUnchanged(since before: [String: Data?], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let changed = try changes(since: before)
    #expect(changed.isEmpty, "the library changed: \(changed)", sourceLocation: sourceLocation)
  }

  /// Runs `statement` on the library's records with the sqlite3 shell, as someone editing it
  /// by hand; what it prints.
  @discardableResult
  func sql(_ statement: String) throws -> String {
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    shell.arguments = ["-cmd", ".timeout 5000", path + "/catalogue.sqlite", statement]
    let output = Pipe()
    shell.standardOutput = output
    try shell.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    shell.waitUntilExit()
    try #require(shell.terminationStatus == 0, "sqlite3 failed on: \(statement)")
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Sets one of the library's settings (`file_size_cap`, …).
  func setting(_ key: String, _ value: String) throws {
    try sql("INSERT OR REPLACE INTO settings (key, value) VALUES ('\(key)', '\(value)')")
  }

  /// The number of rows of `table` in the library's records.
  func count(_ table: String) throws -> Int {
    let text = try sql("SELECT count(*) FROM \(table)")
    return try #require(Int(text), "count of \(table): \(text)")
  }

  /// The files below `folder` of the library (e.g. "originals"), relative to the library.
  func files(in folder: String) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: path + "/" + folder)
    var found: [String] = []
    while let relative = enumerator?.nextObject() as? String {
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: path + "/" + folder + "/" + relative, isDirectory: &isFolder)
      if !isFolder.boolValue { found.append(folder + "/" + relative) }
    }
    return found.sorted()
  }
}
