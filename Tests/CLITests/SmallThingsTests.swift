import Foundation
import Testing
import TestSupport

/// Small things users noticed, each as they would see it.
@Suite("Small things users noticed")
struct SmallThingsTests {
  /// The progress line on a terminal 30 columns wide: every redraw fits in one row (a line that
  /// wraps cannot be redrawn in place, and leaves rows behind).
  @Test func theProgressLineFitsTheTerminal() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let pictures = ["baseline.jpg", "progressive.jpg", "rgb-8.png", "grayscale.jpg", "large-1600x1200.jpg"]
      .map { "'\(Fixture.image($0))'" }.joined(separator: " ")
    // `script` runs the command on a terminal of its own, whose width `stty` sets.
    let typescript = cli.folder.file("typescript")
    let command = "stty cols 30; '\(CLI.executable)' --library '\(cli.library)' attach \(id) \(pictures)"
    let ran = try cli.run(["-qec", command, typescript], executable: "/usr/bin/script")
    #expect(ran.status == 0, "\(ran.error)")
    let written = String(decoding: try Data(contentsOf: URL(fileURLWithPath: typescript)), as: UTF8.self)
    let draws = written.components(separatedBy: "\r\u{1B}[K").dropFirst().map {
      $0.prefix { $0 != "\r" && $0 != "\n" && $0 != "\u{1B}" }
    }.filter { $0.hasPrefix("Importing") }
    #expect(!draws.isEmpty)
    for line in draws { #expect(line.count <= 29, "\(line)") }
  }

  /// A library of the first schema, made before WAL was the default, switches to it when
  /// upgraded; `upgrade --json` gives the schema as a number.
  @Test func anUpgradedFirstSchemaLibraryUsesTheWriteAheadLog() throws {
    let cli = CLI()
    try FileManager.default.createDirectory(atPath: cli.library, withIntermediateDirectories: true)
    let dump = try String(contentsOfFile: Fixture.root.appendingPathComponent("libraries/v1.sql").path, encoding: .utf8)
    try cli.sqlite(dump, database: cli.library + "/catalogue.sqlite")
    try cli.sqlite("PRAGMA journal_mode = DELETE", database: cli.library + "/catalogue.sqlite")
    let upgraded = try cli("upgrade", "--json")
    #expect(upgraded.status == 0, "\(upgraded.error)")
    let report = try cli.json(upgraded)
    #expect(report["schema"] as? Int != nil)
    #expect(report["was"] as? Int == 1)
    let mode = try cli.run(
      [cli.library + "/catalogue.sqlite", "PRAGMA journal_mode"], executable: "/usr/bin/sqlite3")
    #expect(mode.output == "wal\n")
  }

  /// The clock went back an hour between writing a review and editing it: the review is not
  /// updated before it was created.
  @Test func updatedNeverPrecedesCreated() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let later = "2030-01-01T00:00:00.000Z"
    try cli.sqlite("UPDATE reviews SET created = '\(later)', updated = '\(later)'")
    #expect(try cli("edit", id, "--rating", "2").status == 0)
    #expect(try cli("attach", id, Fixture.image("baseline.jpg")).status == 0)
    let shown = try cli.json(try cli("show", id, "--json"))
    let created = try #require(shown["created"] as? String)
    let updated = try #require(shown["updated"] as? String)
    #expect(created == later)
    #expect(updated >= created)
  }

  /// A category typed with a combining accent (NFD, as macOS gives it) is the label typed with
  /// the composed letter (NFC).
  @Test func aCategoryInNFDMatchesItsNFCLabel() throws {
    let cli = CLI()
    let composed = "caf\u{E9}"
    let decomposed = "cafe\u{301}"
    _ = try cli.withReview("One", category: composed)
    _ = try cli.withReview("Two", category: decomposed)
    for typed in [composed, decomposed] {
      let listed = try cli("list", "--category", typed, "--json")
      #expect(listed.status == 0, "\(listed.error)")
      let reviews = try #require(try cli.json(listed)["reviews"] as? [[String: Any]])
      #expect(Set(reviews.compactMap { $0["title"] as? String }) == ["One", "Two"])
      #expect(
        reviews.allSatisfy {
          ($0["category"] as? String)?.unicodeScalars.elementsEqual(composed.unicodeScalars) == true
        })
    }
  }

  /// A malformed reviewer name is a mistake in the call for every `user` action: exit 2.
  @Test(arguments: [["passwd"], ["remove", "--yes"], ["token"], ["token", "--revoke"], ["add"]])
  func aMalformedReviewerNameIsExitStatus2(_ action: [String]) throws {
    let cli = CLI()
    #expect(try cli("init").status == 0)
    let result = try cli(["user", action[0], "bad name"] + action.dropFirst())
    #expect(result.status == 2, "\(result.error)")
    #expect(result.error.hasPrefix("error: bad name is not a reviewer name"), "\(result.error)")
  }

  /// A `review.json` with a key twice, or a field its format does not have, is refused with the
  /// key named: a JSON reader would keep one of the two, or drop the field, in silence.
  @Test(arguments: [
    ("\"rating\": 4,", "\"rating\": 4, \"rating\": 1,", "rating is given twice at the top level"),
    ("\"rating\": 4,", "\"rating\": 4, \"spoilers\": true,", "spoilers at the top level is not a field of format 2"),
    ("\"cover\" : true,", "\"cover\" : true, \"cover\" : false,", "cover is given twice in images[0]"),
  ])
  func aRecordWithADuplicateOrUnknownKeyIsRefused(_ find: String, _ replace: String, _ problem: String) throws {
    let cli = CLI()
    let id = try cli.withReview(rating: "4")
    #expect(try cli("attach", id, Fixture.image("baseline.jpg")).status == 0)
    let out = cli.folder.file("out")
    #expect(try cli("export", id, "--to", out).status == 0)
    let bundle = try #require(try FileManager.default.contentsOfDirectory(atPath: out).first)
    let record = "\(out)/\(bundle)/review.json"
    var text = try String(contentsOfFile: record, encoding: .utf8)
    let compact = text.replacingOccurrences(of: "\" : ", with: "\": ")
    text = find.hasPrefix("\"cover\"") ? text : compact
    try #require(text.contains(find), "\(text)")
    try text.replacingOccurrences(of: find, with: replace).write(toFile: record, atomically: true, encoding: .utf8)
    // The bundle's checksums made again, as whoever edited the record would: the record
    // itself is what is refused.
    let sums = try cli.run(
      ["-c", "sha256sum images/* index.html review.json > SHA256SUMS"], directory: "\(out)/\(bundle)",
      executable: "/bin/sh")
    try #require(sums.status == 0, "\(sums.error)")
    let other = cli.folder.file("Other")
    #expect(try cli.run(["--library", other, "init"]).status == 0)
    let refused = try cli.run(["--library", other, "import-bundle", "\(out)/\(bundle)"])
    #expect(refused.status == 1)
    #expect(refused.error.contains("review.json is not a review record: \(problem)"), "\(refused.error)")
  }

  /// An export onto a disk that fills says so, and removes the folder it made.
  @Test(.enabled(if: Mounts.available)) func anExportOntoAFullDiskSaysSoAndLeavesNothing() throws {
    let cli = CLI()
    let mounts = Mounts()
    defer { mounts.unmountAll() }
    let id = try cli.withReview()
    #expect(try cli("attach", id, Fixture.image("large-1600x1200.png")).status == 0)
    let disk = cli.folder.file("disk")
    try mounts.tmpfs(at: disk, size: "1m")
    // All but 16 KB taken: the bundle's folder is made, its picture does not fit.
    try mounts.fill(disk, leaving: 16 << 10)
    let target = disk + "/Export"
    let result = try cli("export", id, "--to", target)
    #expect(result.status == 1)
    #expect(
      result.error
        == "error: cannot export to \(target): the disk holding it is full (no space left): "
        + "free some space and try again; it was left alone\n")
    #expect(!FileManager.default.fileExists(atPath: target))
  }
}
