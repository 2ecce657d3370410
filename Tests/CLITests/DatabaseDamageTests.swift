import Foundation
import Testing
import TestSupport

/// Real damage to a copy of the sample library's database: bytes flipped in its header and in
/// pages of every kind (a table, an index, the search index), found by SQLite's own page map.
/// `check` names the damage first and never mistakes what it cannot read for what is missing;
/// `check --repair` repairs the file before anything else, keeps a copy of it, and loses no
/// review, picture or link that can be had back.
@Suite("A damaged database")
struct DatabaseDamageTests {
  /// A flip: which page (by the b-tree that owns it, and which of its pages), where in it, how
  /// many bytes.
  struct Damage: CustomTestStringConvertible, Sendable {
    var name: String
    /// The b-tree (table or index) whose page is hit; nil: the file's header.
    var tree: String?
    /// Which of the tree's pages, in page order: leaves are what most trees are made of.
    var nth = 0
    var offset: Int
    var count: Int
    var testDescription: String { name }
  }

  /// The sample library, copied.
  static func sampleLibrary(_ cli: CLI) throws {
    let sample = Fixture.root.deletingLastPathComponent().appendingPathComponent("Library").path
    try FileManager.default.copyItem(atPath: sample, toPath: cli.library)
  }

  /// The pages of `tree` in the library's database, in page order (SQLite's `dbstat` table).
  static func pages(of tree: String, in cli: CLI) throws -> [Int] {
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    shell.arguments = [
      cli.library + "/catalogue.sqlite", "SELECT pageno FROM dbstat WHERE name = '\(tree)' ORDER BY pageno",
    ]
    let output = Pipe()
    shell.standardOutput = output
    try shell.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    shell.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
  }

  /// Inverts `damage.count` bytes at the damage's place.
  static func flip(_ damage: Damage, in cli: CLI) throws {
    var position = damage.offset
    if let tree = damage.tree {
      let pages = try pages(of: tree, in: cli)
      try #require(pages.count > damage.nth, "\(tree) has \(pages.count) pages")
      position += (pages[damage.nth] - 1) * 4096
    }
    let file = try FileHandle(forUpdating: URL(fileURLWithPath: cli.library + "/catalogue.sqlite"))
    defer { try? file.close() }
    try file.seek(toOffset: UInt64(position))
    let bytes = try #require(try file.read(upToCount: damage.count))
    try file.seek(toOffset: UInt64(position))
    try file.write(contentsOf: Data(bytes.map { ~$0 }))
  }

  /// Each review's id, title and pictures (their hashes, in order, and which is the cover).
  static func contents(_ cli: CLI) throws -> [String: String] {
    let listed = try cli.json(try cli("list", "--json", "--limit", "100"))
    var result: [String: String] = [:]
    for summary in listed["reviews"] as? [[String: Any]] ?? [] {
      let id = summary["id"] as? String ?? ""
      let shown = try cli.json(try cli("show", id, "--json"))
      let pictures = (shown["images"] as? [[String: Any]] ?? []).map {
        "\($0["sha256"] as? String ?? "")\($0["cover"] as? Bool == true ? "*" : "")"
      }
      result[id] = "\(shown["title"] as? String ?? "") | \(pictures.joined(separator: " "))"
    }
    return result
  }

  /// Every original's path in the store.
  static func originals(_ cli: CLI) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: cli.library + "/originals")
    var found: [String] = []
    while let path = enumerator?.nextObject() as? String {
      if (path.split(separator: "/").last?.count ?? 0) > 64 { found.append(path) }
    }
    return found.sorted()
  }

  static let pageDamage: [Damage] = [
    Damage(name: "a leaf of the reviews table", tree: "reviews", nth: 2, offset: 0, count: 8),
    Damage(name: "the root of the reviews table", tree: "reviews", nth: 0, offset: 8, count: 4),
    Damage(name: "the images table", tree: "images", offset: 0, count: 8),
    Damage(name: "the links table", tree: "review_images", offset: 0, count: 8),
    Damage(name: "an index's page header", tree: "reviews_title", offset: 0, count: 8),
    Damage(name: "an index's cells", tree: "reviews_category_rating", offset: 4050, count: 4),
    Damage(name: "the search index's data", tree: "reviews_fts_data", offset: 0, count: 8),
    Damage(name: "the search index's settings", tree: "reviews_fts_config", offset: 0, count: 8),
    Damage(name: "the search index's sizes", tree: "reviews_fts_docsize", offset: 4050, count: 8),
  ]

  @Test(arguments: pageDamage)
  func damageInAPageIsReportedFirstAndRepairedWithNothingLost(_ damage: Damage) throws {
    let cli = CLI()
    try Self.sampleLibrary(cli)
    let before = try Self.contents(cli)
    let originals = Self.originals(cli)
    try Self.flip(damage, in: cli)

    let check = try cli("check")
    #expect(check.status == 1, "\(check.output)\(check.error)")
    #expect(check.error.isEmpty, "\(check.error)")
    let first = check.output.split(separator: "\n").first.map(String.init) ?? ""
    #expect(
      first.hasPrefix("database-corrupt: catalogue.sqlite: the database file is damaged")
        || first.hasPrefix("search-index-out-of-step: reviews_fts: the full-text index is damaged"), "\(first)")
    // What could not be read is never taken for what is missing.
    #expect(!check.output.contains("unreferenced-file"), "\(check.output)")
    #expect(!check.output.contains("foreign-key-violation"), "\(check.output)")
    #expect(!check.output.contains("vtable constructor failed"))
    #expect(check.output.contains("run `catalogue check --repair`"))
    // --json prints its JSON all the same.
    let json = try cli.json(try cli("check", "--json"))
    #expect(json["healthy"] as? Bool == false)

    let repair = try cli("check", "--repair")
    #expect(repair.status == 0, "\(repair.output)\(repair.error)")
    #expect(repair.output.hasSuffix("the library is healthy now.\n"), "\(repair.output)")
    #expect(try cli("check").status == 0)
    // Every review, with every picture and its cover; every original where it was.
    let after = try Self.contents(cli)
    #expect(Set(after.keys) == Set(before.keys))
    for (id, contents) in before {
      // The pictures and titles are back; a review whose row was damaged may lack its text only.
      #expect(after[id]?.split(separator: "|").last == contents.split(separator: "|").last, "\(id)")
      #expect(after[id]?.split(separator: "|").first == contents.split(separator: "|").first, "\(id)")
    }
    #expect(Self.originals(cli) == originals)
    // Searching works.
    #expect(try cli("list", "--search", "Shazam").output.contains("Shazam"))
    // A copy of the damaged file is kept when the file itself was repaired.
    if repair.output.contains("kept a copy") {
      let kept = try FileManager.default.contentsOfDirectory(atPath: cli.library + "/lost+found")
      #expect(kept.count == 1)
      #expect(FileManager.default.fileExists(atPath: "\(cli.library)/lost+found/\(kept[0])/catalogue.sqlite"))
    }
  }

  static let headerDamage: [Damage] = [
    Damage(name: "the header's name", offset: 0, count: 4),
    Damage(name: "the page size", offset: 16, count: 2),
    Damage(name: "the payload fractions", offset: 21, count: 3),
    Damage(name: "the text encoding", offset: 56, count: 4),
  ]

  @Test(arguments: headerDamage)
  func aDamagedHeaderIsNamedAndRestored(_ damage: Damage) throws {
    let cli = CLI()
    try Self.sampleLibrary(cli)
    let before = try Self.contents(cli)
    try Self.flip(damage, in: cli)
    let check = try cli("check")
    #expect(check.status == 1)
    #expect(check.output.contains("cannot be read: its header is damaged"), "\(check.output)")
    #expect(check.output.contains("1 repairable: run `catalogue check --repair`"), "\(check.output)")
    // A dry run changes nothing.
    let damaged = try Data(contentsOf: URL(fileURLWithPath: cli.library + "/catalogue.sqlite"))
    let dry = try cli("check", "--repair", "--dry-run")
    #expect(dry.output.contains("would repair: would restore the database file's header"), "\(dry.output)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: cli.library + "/catalogue.sqlite")) == damaged)
    #expect(!FileManager.default.fileExists(atPath: cli.library + "/lost+found"))

    let repair = try cli("check", "--repair")
    #expect(repair.status == 0, "\(repair.output)\(repair.error)")
    #expect(repair.output.contains("repaired: restored the database file's header"), "\(repair.output)")
    #expect(try Self.contents(cli) == before)
    let kept = try FileManager.default.contentsOfDirectory(atPath: cli.library + "/lost+found")
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: "\(cli.library)/lost+found/\(kept[0])/catalogue.sqlite")) == damaged)
  }

  /// A table's page damaged past reading: what its indexes hold comes back, and the review
  /// keeps its pictures; the repair says whose text is lost.
  @Test func aReviewOnADamagedPageComesBackFromItsIndexes() throws {
    let cli = CLI()
    try Self.sampleLibrary(cli)
    try Self.flip(Damage(name: "a leaf of the reviews table", tree: "reviews", nth: 2, offset: 0, count: 8), in: cli)
    let repair = try cli("check", "--repair")
    #expect(repair.status == 0)
    let line = try #require(repair.output.split(separator: "\n").first { $0.contains("rebuilt the database") })
    #expect(line.contains("put together from its indexes"), "\(line)")
    #expect(line.contains("has lost its text: write it again with `catalogue edit`"))
  }
}
