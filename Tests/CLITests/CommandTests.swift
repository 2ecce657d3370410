import Foundation
import Testing
import TestSupport

@Suite("The catalogue command")
struct CommandTests {
  @Test func initCreatesALibraryOnceAndOtherCommandsNeedOne() throws {
    let cli = CLI()
    let missing = try cli("list")
    #expect(missing.status == 1)
    #expect(
      missing.error
        == "error: \(cli.library) is not a catalogue library (no catalogue.sqlite): run `catalogue init \(cli.library)` to create one\n"
    )
    #expect(!FileManager.default.fileExists(atPath: cli.library))
    let created = try cli("init")
    #expect(created.status == 0)
    #expect(created.output == "Created an empty library in \(cli.library)\n")
    #expect(FileManager.default.fileExists(atPath: cli.library + "/catalogue.sqlite"))
    let again = try cli("init")
    #expect(again.status == 1)
    #expect(again.error.contains("already a catalogue library"))
    // init takes a path of its own too.
    let other = cli.folder.file("Other")
    #expect(try cli.run(["init", other]).status == 0)
  }

  @Test func libraryComesFromTheEnvironmentThenTheWorkingFolder() throws {
    let cli = CLI()
    _ = try cli.withReview("From the option")
    let viaEnvironment = try cli.run(["list"], environment: ["CATALOGUE_LIBRARY": cli.library])
    #expect(viaEnvironment.status == 0 && viaEnvironment.output.contains("From the option"))
    let viaFolder = try cli.run(["list"], directory: cli.folder.path)
    #expect(viaFolder.status == 0 && viaFolder.output.contains("From the option"))
  }

  @Test func addPrintsTheIdAndShowTheCard() throws {
    let cli = CLI()
    let id = try cli.withReview("Arrival")
    #expect(id.count == 16 && id.allSatisfy(\.isHexDigit))
    let show = try cli("show", String(id.prefix(5)))
    #expect(show.status == 0)
    let lines = show.output.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines[0] == "Arrival")
    #expect(lines[1] == "★★★★★  Movie")
    #expect(show.output.contains("Body of Arrival."))
    #expect(show.output.contains("No images."))
  }

  @Test func showJSONHasTheDocumentedShape() throws {
    let cli = CLI()
    let id = try cli.withReview()
    try #require(try cli("attach", id, Fixture.image("orientation-6.jpg"), Fixture.image("rgba-8.png")).status == 0)
    let json = try cli.json(try cli("show", id, "--json"))
    #expect(
      Set(json.keys) == [
        "id", "title", "body", "bodyHTML", "rating", "category", "favorite", "created", "updated", "createdBy",
        "updatedBy", "containsSpoilers", "draft", "published", "images",
      ])
    #expect(json["id"] as? String == id)
    // Written from the command line: no reviewer made it, and the keys say so with null.
    #expect(json["createdBy"] is NSNull && json["updatedBy"] is NSNull)
    #expect(json["rating"] as? Int == 5)
    #expect(json["favorite"] as? Bool == false)
    #expect((json["created"] as? String)?.hasSuffix("Z") == true)
    let images = try #require(json["images"] as? [[String: Any]])
    #expect(images.count == 2)
    #expect(
      Set(images[0].keys) == [
        "position", "sha256", "format", "width", "height", "orientation", "colorSpace", "bytes", "cover", "original",
        "thumbnail", "alt", "caption", "name",
      ])
    #expect(images[0]["width"] as? Int == 120 && images[0]["height"] as? Int == 80)
    #expect(images[0]["cover"] as? Bool == true && images[1]["cover"] as? Bool == false)
    #expect(images[1]["format"] as? String == "png")
    for image in images {
      for key in ["original", "thumbnail"] {
        let relative = try #require(image[key] as? String)
        #expect(FileManager.default.fileExists(atPath: cli.library + "/" + relative), "\(relative)")
      }
    }
    // The transparent PNG has a PNG thumbnail.
    #expect((images[1]["thumbnail"] as? String)?.hasSuffix(".png") == true)
  }

  @Test func addWithJSONPrintsTheRecordAndReadsTheBodyFromStandardInput() throws {
    let cli = CLI()
    try #require(try cli("init").status == 0)
    let added = try cli(
      "add", "--title", "Celeste", "--rating", "4", "--category", "Game", "--favorite", "--body-file", "-", "--json",
      input: "Climb.\n\nAgain.\n")
    #expect(added.status == 0)
    let json = try cli.json(added)
    #expect(json["body"] as? String == "Climb.\n\nAgain.")
    #expect(json["category"] as? String == "game")
    #expect(json["favorite"] as? Bool == true)
  }

  @Test func badReviewsAreRefusedWithEveryProblem() throws {
    let cli = CLI()
    try #require(try cli("init").status == 0)
    let invalid = try cli("add", "--title", "  ", "--rating", "7", "--category", "movie")
    #expect(invalid.status == 2)
    #expect(invalid.error == "error: invalid review: title is empty; rating 7 is outside 0–5\n")
    let missing = try cli("add", "--title", "X")
    #expect(missing.status == 2)
    #expect(missing.error == "error: add needs --rating, --category; see `catalogue add --help`\n")
    let notANumber = try cli("add", "--title", "X", "--rating", "five", "--category", "movie")
    #expect(notANumber.status == 2)
    #expect(try cli("list").output == "No reviews.\n")
  }

  @Test func listTableFiltersAndJSON() throws {
    let cli = CLI()
    _ = try cli.withReview("Arrival", rating: "5", category: "movie")
    _ = try cli.withReview("Celeste", rating: "4", category: "game")
    _ = try cli.withReview("Dune", rating: "3", category: "book")
    let table = try cli("list", "--sort", "title")
    #expect(table.status == 0)
    let lines = table.output.split(separator: "\n").map(String.init)
    #expect(lines[0].hasPrefix("ID") && lines[0].hasSuffix("TITLE"))
    #expect(lines[1].contains("★★★★★") && lines[1].hasSuffix("Arrival"))
    #expect(lines[2].contains("★★★★☆") && lines[2].contains("Game") && lines[2].hasSuffix("Celeste"))
    #expect(lines.last == "3 reviews")
    let filtered = try cli.json(try cli("list", "--min-rating", "4", "--sort", "rating", "--json"))
    #expect(filtered["total"] as? Int == 2)
    let reviews = try #require(filtered["reviews"] as? [[String: Any]])
    #expect(reviews.map { $0["title"] as? String } == ["Arrival", "Celeste"])
    #expect(
      Set(reviews[0].keys) == [
        "id", "title", "rating", "category", "favorite", "created", "updated", "createdBy", "updatedBy", "imageCount",
        "cover", "containsSpoilers", "draft", "published",
      ])
    #expect(reviews[0]["createdBy"] is NSNull && reviews[0]["updatedBy"] is NSNull)
    let searched = try cli("list", "--search", "dune", "--json")
    #expect(try cli.json(searched)["total"] as? Int == 1)
    let paged = try cli("list", "--sort", "title", "--limit", "2")
    #expect(paged.output.hasSuffix("1–2 of 3 reviews (--offset 2 for more)\n"))
    let bad = try cli("list", "--min-rating", "9")
    #expect(bad.status == 2)
    #expect(bad.error == "error: --min-rating must be a whole number from 0 to 5, not 9; see `catalogue list --help`\n")
  }

  @Test func editChangesOnlyWhatIsGiven() throws {
    let cli = CLI()
    let id = try cli.withReview("Arrival")
    let edited = try cli("edit", id, "--rating", "3", "--favorite", "--json")
    #expect(edited.status == 0)
    let json = try cli.json(edited)
    #expect(json["rating"] as? Int == 3 && json["favorite"] as? Bool == true && json["title"] as? String == "Arrival")
    let nothing = try cli("edit", id)
    #expect(nothing.status == 2)
    let invalid = try cli("edit", id, "--rating", "6")
    #expect(invalid.status == 2 && invalid.error.contains("rating 6 is outside 0–5"))
  }

  @Test func removeAsksUnlessTold() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let refused = try cli("remove", id)
    #expect(refused.status == 2)
    #expect(refused.error.contains("pass --yes"))
    let removed = try cli("remove", id, "--yes")
    #expect(removed.status == 0)
    #expect(removed.output == "Removed \(id): Arrival\n")
    let gone = try cli("show", id)
    #expect(gone.status == 1)
    #expect(gone.error == "error: no review \(id): `catalogue list` shows the ids\n")
  }

  @Test func ambiguousAndBadReferences() throws {
    let cli = CLI()
    let id = try cli.withReview()
    // Two ids sharing a prefix, written with the sqlite3 shell.
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    shell.arguments = [
      cli.library + "/catalogue.sqlite",
      """
      INSERT INTO reviews (id, title, body, rating, category, favorite, created, updated) VALUES
        ('abcd000000000001', 'One', '', 3, 'movie', 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
        ('abcd000000000002', 'Two', '', 3, 'movie', 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
      """,
    ]
    try shell.run()
    shell.waitUntilExit()
    try #require(shell.terminationStatus == 0)
    let ambiguous = try cli("show", "abcd")
    #expect(ambiguous.status == 1)
    #expect(
      ambiguous.error
        == "error: review id abcd is ambiguous: it starts abcd000000000001, abcd000000000002; give more digits\n")
    #expect(try cli("show", "abcd000000000002").output.hasPrefix("Two\n"))
    let bad = try cli("show", "zz")
    #expect(bad.status == 2)
    #expect(bad.error == "error: zz is not a review id: ids are hexadecimal (0–9, a–f); `catalogue list` shows them\n")
    let short = try cli("show", "abc")
    #expect(short.status == 2)
    #expect(short.error == "error: abc is too short to name a review: give at least 4 of its 16 digits\n")
    let long = try cli("show", "abcd0000000000012")
    #expect(long.status == 2)
    #expect(long.error == "error: abcd0000000000012 is not a review id: ids are 16 digits long, and this has 17\n")
    let absent = id.hasPrefix("ffff") ? "eeee" : "ffff"
    let missing = try cli("remove", absent, "--yes")
    #expect(missing.status == 1)
    #expect(missing.error == "error: no review \(absent): `catalogue list` shows the ids\n")
  }

  @Test func helpOnEveryCommand() throws {
    let cli = CLI()
    let overview = try cli.run(["--help"])
    #expect(overview.status == 0)
    for command in ["init", "add", "edit", "show", "list", "remove", "attach", "replace", "detach", "cover", "move"] {
      #expect(overview.output.contains("  \(command) "), "\(command) missing from the overview")
      let help = try cli.run([command, "--help"])
      #expect(help.status == 0, "\(command) --help")
      #expect(help.output.hasPrefix("catalogue \(command) — "))
      #expect(help.output.contains("Examples:"))
      #expect(try cli.run(["help", command]).output == help.output)
    }
    let unknown = try cli.run(["frobnicate"])
    #expect(unknown.status == 2 && unknown.error == "error: no command frobnicate; `catalogue --help` lists them\n")
    let badOption = try cli("list", "--colour")
    #expect(badOption.status == 2 && badOption.error == "error: unknown option --colour; see `catalogue list --help`\n")
  }
}
