import Foundation
import Testing
import TestSupport

@Suite("check, check --repair, thumbnails --rebuild")
struct CheckCommandTests {
  /// The repository's sample library, copied so that nothing here touches it.
  @Test func theSampleLibraryIsHealthy() throws {
    let cli = CLI()
    let sample = Fixture.root.deletingLastPathComponent().appendingPathComponent("Library").path
    try FileManager.default.copyItem(atPath: sample, toPath: cli.library)
    let check = try cli("check")
    #expect(check.status == 0, "\(check.output)\(check.error)")
    #expect(check.output.hasSuffix("9 images verified in 7 reviews (1.3 MB read): no problems.\n"), "\(check.output)")
    let list = try cli("list", "--json")
    let json = try cli.json(list)
    #expect(json["total"] as? Int == 7)
    let titles = Set((json["reviews"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String })
    #expect(
      titles == [
        "DC's best movie yet: Shazam!", "The Biggest Error in Avengers Endgame!", "John Wick 3 and the Endless Action!",
        "Black Ops 4 Where are the Changes?", "Morgan's Reviews the Best App Ever", "Computer Science the best subject",
        "SuperStore the soon to be superstar show",
      ])
  }

  @Test func aHandEditedRatingIsFoundAndNamed() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    shell.arguments = [
      cli.library + "/catalogue.sqlite", "PRAGMA ignore_check_constraints = ON; UPDATE reviews SET rating = 9;",
    ]
    try shell.run()
    shell.waitUntilExit()
    try #require(shell.terminationStatus == 0)
    let check = try cli("check")
    #expect(check.status == 1)
    #expect(
      check.output.hasPrefix(
        "invalid-review: \(id): rating 9 is outside 0–5 — correct it with `catalogue edit \(id.prefix(8)) …`\n"))
    let json = try cli.json(try cli("check", "--json"))
    #expect(json["healthy"] as? Bool == false)
    let findings = try #require(json["findings"] as? [[String: Any]])
    #expect(findings.map { $0["kind"] as? String } == ["invalid-review"])
    #expect(Set(findings[0].keys) == ["kind", "target", "problem", "remedy", "repairable", "reviews"])
    // The remedy works.
    #expect(try cli("edit", id, "--rating", "4").status == 0)
    #expect(try cli("check").status == 0)
  }

  @Test func repairPutsRightWhatItCanAndSaysWhatItCannot() throws {
    let cli = CLI()
    let id = try cli.withReview()
    try #require(try cli("attach", id, Fixture.image("large-1600x1200.jpg"), Fixture.image("rgb-8.png")).status == 0)
    let images = try #require(try cli.json(try cli("show", id, "--json"))["images"] as? [[String: Any]])
    let thumbnail = cli.library + "/" + (images[0]["thumbnail"] as! String)
    let original = cli.library + "/" + (images[1]["original"] as! String)
    try FileManager.default.removeItem(atPath: thumbnail)
    try FileManager.default.removeItem(atPath: original)
    try "left over".write(toFile: cli.library + "/originals/.tmp-0000-x.jpg", atomically: false, encoding: .utf8)

    let dry = try cli("check", "--repair", "--dry-run")
    #expect(dry.status == 1)
    #expect(dry.output.contains("would repair: made \(images[0]["thumbnail"] as! String) again from the original"))
    #expect(dry.output.hasSuffix("Dry run: nothing was changed.\n"))
    #expect(!FileManager.default.fileExists(atPath: thumbnail))

    let repair = try cli("check", "--repair")
    #expect(repair.status == 1)
    #expect(repair.output.contains("repaired: made \(images[0]["thumbnail"] as! String) again from the original"))
    #expect(repair.output.contains("repaired: moved originals/.tmp-0000-x.jpg to lost+found/"))
    #expect(
      repair.output.contains(
        "Repaired 2 problems; still wrong:\n  missing-original: \(images[1]["original"] as! String): the original is missing"
      ))
    #expect(FileManager.default.fileExists(atPath: thumbnail))
    // The second check reports only what could not be repaired.
    let again = try cli("check", "--json")
    #expect(again.status == 1)
    let findings = try #require(try cli.json(again)["findings"] as? [[String: Any]])
    #expect(findings.map { $0["kind"] as? String } == ["missing-original"])
    #expect(findings[0]["repairable"] as? Bool == false)
    #expect(findings[0]["reviews"] as? [String] == [id])
    // Restoring the original as the remedy says makes it healthy.
    #expect(try cli("replace", id, "2", Fixture.image("rgb-8.png")).status == 0)
    #expect(try cli("check", "--repair").status == 0)
    #expect(try cli("check").status == 0)
  }

  @Test func rebuildingThumbnailsChangesTheSpec() throws {
    let cli = CLI()
    let id = try cli.withReview()
    try #require(try cli("attach", id, Fixture.image("large-1600x1200.jpg")).status == 0)
    let rebuilt = try cli("thumbnails", "--rebuild", "--size", "100", "--square")
    #expect(rebuilt.status == 0)
    #expect(
      rebuilt.output == "Made the 1× and 2× thumbnails of 1 picture to 100-square-q85; removed 2 old thumbnails.\n")
    let image = try #require((try cli.json(try cli("show", id, "--json"))["images"] as? [[String: Any]])?.first)
    #expect((image["thumbnail"] as? String)?.hasSuffix("-100-square-q85.jpg") == true)
    #expect(try cli("check").status == 0)
    let bad = try cli("thumbnails", "--rebuild", "--size", "5")
    #expect(bad.status == 2)
    #expect(
      bad.error == "error: --size takes a whole number from 16 to 4096, not 5; see `catalogue thumbnails --help`\n")
    #expect(try cli("thumbnails").status == 2)
  }

  @Test func noProgressLineWhenStandardErrorIsNotATerminal() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let attach = try cli("attach", id, Fixture.root.appendingPathComponent("images").path)
    #expect(!attach.error.contains("\r") && !attach.error.contains("Importing"))
    let check = try cli("check")
    #expect(!check.error.contains("\r") && !check.error.contains("Verifying"))
  }

  @Test func damagedRecordsAreReportedNeverReadAsDefaults() throws {
    let cli = CLI()
    let id = try cli.withReview()
    try #require(try cli("attach", id, Fixture.image("baseline.jpg")).status == 0)
    for (sql, message) in [
      ("UPDATE reviews SET category = '!!'", "review \(id) is damaged: category \"!!\" is not a category label"),
      ("UPDATE reviews SET created = 'yesterday'", "review \(id) is damaged: created time \"yesterday\" is not a time"),
      ("UPDATE images SET format = 'gif'", "is damaged: format \"gif\" is not one the library stores"),
      ("UPDATE images SET orientation = 12", "is damaged: orientation 12 is not 1 to 8"),
    ] {
      let fresh = CLI()
      let copy = fresh.library
      try FileManager.default.copyItem(atPath: cli.library, toPath: copy)
      try fresh.sqlite(sql)
      for arguments in [["show", id], ["list"]] {
        let result = try fresh(arguments)
        #expect(result.status == 1, "\(sql): \(arguments)")
        #expect(result.error.contains(message), "\(sql): \(result.error)")
        #expect(result.error.hasSuffix("`catalogue check` reports it and says what to do\n"))
      }
      #expect(try fresh("check").status == 1, "\(sql)")
    }
  }
}
