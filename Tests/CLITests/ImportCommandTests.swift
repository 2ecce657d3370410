import Foundation
import Testing
import TestSupport

/// `catalogue import`: the services' exports (the committed fixtures, in their shapes) read as
/// a user would import them: a dry run that changes nothing, a second import that adds
/// nothing, updates that never overwrite an edit made here, ratings rounded by the documented
/// rule with the service's own kept, and malformed rows named by file, line and column.
@Suite struct ImportCommandTests {
  static func export(_ name: String) -> String { Fixture.root.appendingPathComponent("imports/\(name)").path }

  func library() throws -> CLI {
    let cli = CLI()
    try #require(try cli("init").status == 0)
    return cli
  }

  /// Each review of `cli`'s library by title (the last of a title met twice), as `list --json`
  /// and `show --json` give them.
  func reviews(_ cli: CLI) throws -> [String: [String: Any]] {
    var found: [String: [String: Any]] = [:]
    for review in try everyReview(cli) { found[review["title"] as? String ?? ""] = review }
    return found
  }

  /// Every review of `cli`'s library, as `show --json` gives it.
  func everyReview(_ cli: CLI) throws -> [[String: Any]] {
    let listed = try cli("--json", "list", "--limit", "1000")
    let page = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any])
    var found: [[String: Any]] = []
    for summary in page["reviews"] as? [[String: Any]] ?? [] {
      let id = try #require(summary["id"] as? String)
      let shown = try cli("--json", "show", id)
      found.append(try #require(try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any]))
    }
    return found
  }

  @Test func aDryRunSaysWhatWouldHappenAndChangesNothing() throws {
    let cli = try library()
    let before = try fileSnapshot(cli.library)
    let dry = try cli("import", "letterboxd", Self.export("letterboxd.zip"), "--dry-run")
    #expect(dry.status == 0, "\(dry.error)")
    #expect(dry.output.contains("would add     Amélie (2001)\n"))
    #expect(dry.output.contains("skipped   Heat (1995) (ratings.csv, line 8): rated, with no review text"))
    #expect(dry.output.contains("skipped   Stalker (1979) (watched.csv, line 9): watched, neither rated nor reviewed"))
    #expect(
      dry.output.hasSuffix(
        "Letterboxd: 8 to add, 0 to update, 0 unchanged, 2 skipped (a dry run: nothing was changed)\n"))
    #expect(try fileSnapshot(cli.library) == before, "a dry run changes no byte")
  }

  /// The ZIP and the folder it unpacks to are the same export: the second import adds nothing.
  @Test func aSecondImportAddsNothing() throws {
    let cli = try library()
    let first = try cli("import", "letterboxd", Self.export("letterboxd.zip"))
    #expect(first.status == 0, "\(first.error)")
    #expect(first.output.hasSuffix("Letterboxd: 8 added, 0 updated, 0 unchanged, 2 skipped\n"))
    let before = try fileSnapshot(cli.library)
    let second = try cli("import", "letterboxd", Self.export("letterboxd"))
    #expect(second.status == 0)
    #expect(second.output.hasSuffix("Letterboxd: 0 added, 0 updated, 8 unchanged, 2 skipped\n"))
    #expect(try cli("list").output.hasSuffix("8 reviews\n"))
    #expect(try fileSnapshot(cli.library).keys == before.keys)
  }

  /// Ratings by the rule, the service's own kept and shown; the date is the review's; the
  /// text's HTML is Markdown; the category is the service's kind.
  @Test func nothingIsLostInConversion() throws {
    let cli = try library()
    #expect(try cli("import", "letterboxd", Self.export("letterboxd")).status == 0)
    let found = try reviews(cli)
    let amelie = try #require(found["Amélie (2001)"])
    #expect(amelie["rating"] as? Int == 5, "4.5 rounds up to 5")
    #expect(amelie["category"] as? String == "movie")
    #expect((amelie["created"] as? String)?.hasPrefix("2023-02-14T00:00:00") == true, "the watched date")
    let source = try #require((amelie["sources"] as? [[String: Any]])?.first)
    #expect(source["source"] as? String == "letterboxd")
    #expect(source["id"] as? String == "https://boxd.it/abc1")
    #expect(source["rating"] as? String == "4.5/5")
    #expect((amelie["body"] as? String)?.contains("Audrey Tautou's \"Amélie\"") == true)
    #expect(try #require(found["Cats (2019)"])["rating"] as? Int == 1, "0.5 rounds to 1, never to 0")
    let thing = try #require(found["The Thing (1982)"])
    #expect(thing["rating"] as? Int == 0)
    #expect((thing["sources"] as? [[String: Any]])?.first?["rating"] is NSNull)
    let id = try #require(amelie["id"] as? String)
    let shown = try cli("show", id)
    #expect(shown.output.contains("imported from Letterboxd: https://boxd.it/abc1, rated 4.5/5 there\n"))

    #expect(try cli("import", "goodreads", Self.export("goodreads.csv")).status == 0)
    #expect(try cli("import", "storygraph", Self.export("storygraph.csv")).status == 0)
    #expect(try cli("import", "imdb", Self.export("imdb.csv"), "--include-unreviewed").status == 0)
    let all = try reviews(cli)
    let miserables = try #require(all["Les Misérables by Victor Hugo"])
    #expect(miserables["containsSpoilers"] as? Bool == true, "Goodreads' Spoiler mark is the warning")
    #expect(miserables["category"] as? String == "book")
    #expect(miserables["draft"] as? Bool == false)
    for (title, stars, rating) in [
      ("Breaking Bad (2008)", 5, "9/10"), ("Luxo Jr. (1986)", 4, "7/10"),
      ("Black Mirror: Bandersnatch (2018)", 1, "1/10"),
      ("Dune by Frank Herbert", 4, "3.75/5"), ("Piranesi by Susanna Clarke", 4, "4.25/5"),
    ] {
      let review = try #require(all[title], "\(title)")
      #expect(review["rating"] as? Int == stars, "\(title)")
      #expect(
        (review["sources"] as? [[String: Any]])?.contains { $0["rating"] as? String == rating } == true, "\(title)")
    }
    let breaking = try #require(all["Breaking Bad (2008)"])
    #expect(breaking["category"] as? String == "tv", "IMDb's TV Series")
    #expect(all["The Last of Us (2013)"]?["category"] as? String == "game")
    #expect(all["Black Mirror: Bandersnatch (2018)"]?["category"] as? String == "movie", "a TV Movie is a film")
    #expect(breaking["draft"] as? Bool == true, "unreviewed entries come in as drafts when asked for")
  }

  /// A newer export: `--update` brings what changed up to date, never over an edit made here
  /// (exit status 1, saying why), unless `--overwrite`.
  @Test func anUpdateNeverOverwritesAnEditMadeHere() throws {
    let cli = try library()
    let folder = cli.folder.file("export")
    try FileManager.default.copyItem(atPath: Self.export("letterboxd"), toPath: folder)
    #expect(try cli("import", "letterboxd", folder).status == 0)
    let reviewsFile = folder + "/reviews.csv"
    var text = try String(contentsOfFile: reviewsFile, encoding: .utf8)
    text = text.replacingOccurrences(of: "Marmalade diplomacy.", with: "Marmalade diplomacy again.")
      .replacingOccurrences(of: "No.,,2024-02-01", with: "No. Never.,,2024-02-01")
    try text.write(toFile: reviewsFile, atomically: true, encoding: .utf8)

    let plain = try cli("import", "letterboxd", folder)
    #expect(plain.status == 0)
    #expect(plain.output.contains("(reviews.csv, line 2): changed in this export (--update brings it up to date)"))
    #expect(plain.output.hasSuffix("Letterboxd: 0 added, 0 updated, 6 unchanged, 4 skipped\n"))

    let cats = try #require(try reviews(cli)["Cats (2019)"]?["id"] as? String)
    #expect(try cli("edit", cats, "--body", "My own words.").status == 0)
    let updated = try cli("import", "letterboxd", folder, "--update")
    #expect(updated.status == 1, "an entry was left for the edit made here")
    #expect(updated.output.contains("updated   Paddington 2 (2017)"))
    #expect(updated.output.contains("skipped   Cats (2019) (reviews.csv, line 14): edited here since it was imported"))
    #expect(try reviews(cli)["Cats (2019)"]?["body"] as? String == "My own words.")
    let bodies = try everyReview(cli).compactMap { $0["body"] as? String }
    #expect(bodies.contains("Marmalade diplomacy again."))

    let overwritten = try cli("import", "letterboxd", folder, "--update", "--overwrite")
    #expect(overwritten.status == 0)
    #expect(try reviews(cli)["Cats (2019)"]?["body"] as? String == "No. Never.")
    #expect(try cli("import", "letterboxd", folder, "--overwrite").status == 2, "--overwrite goes with --update")
  }

  /// A malformed row refuses the export, naming file, line and column, and changes nothing;
  /// `--skip-malformed` imports the rest and names it (exit status 1).
  @Test func aMalformedRowIsNamedAndChangesNothing() throws {
    let cli = try library()
    let file = cli.folder.file("goodreads.csv")
    var text = try String(contentsOfFile: Self.export("goodreads.csv"), encoding: .utf8)
    text += "99,\"Broken \"quote\",Someone\r\n"
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    let before = try fileSnapshot(cli.library)
    let refused = try cli("import", "goodreads", file)
    #expect(refused.status == 1)
    #expect(refused.error.hasPrefix("error: cannot import "))
    #expect(refused.error.contains("a row cannot be read, first goodreads.csv, line"))
    #expect(refused.error.contains("--skip-malformed"))
    #expect(try fileSnapshot(cli.library) == before)

    let skipping = try cli("import", "goodreads", file, "--skip-malformed")
    #expect(skipping.status == 1)
    #expect(skipping.error.contains("warning: skipped a row: goodreads.csv, line"))
    #expect(skipping.output.contains("Goodreads: 4 added"))

    for (arguments, status, message) in [
      (["import", "netflix", file], 2, "there is no service netflix"),
      (["import", "goodreads", cli.folder.file("missing.csv")], 1, "it cannot be opened"),
      (["import", "letterboxd", Self.export("goodreads.csv")], 1, "not a ZIP"),
      (["import", "imdb", Self.export("goodreads.csv")], 1, "has no column Const"),
      (["import", "goodreads", Self.export("hostile/not-utf8.csv")], 1, "cannot import"),
    ] {
      let result = try cli(arguments)
      #expect(result.status == Int32(status), "\(arguments): \(result.error)")
      #expect(result.error.contains(message), "\(arguments): \(result.error)")
    }
  }

  /// `--as NAME` records the reviews as a reviewer's, whose page then lists them; a name no
  /// reviewer has is refused before anything is read.
  @Test func importedReviewsCanBeAReviewers() throws {
    let cli = try library()
    let made = try cli("user", "add", "Alice", "--password-stdin", input: "correct horse battery\n")
    try #require(made.status == 0, "\(made.error)")
    let before = try fileSnapshot(cli.library)
    let refused = try cli("import", "goodreads", Self.export("goodreads.csv"), "--as", "bob")
    #expect(refused.status == 1 && refused.error.contains("bob"))
    #expect(try fileSnapshot(cli.library) == before)
    #expect(try cli("import", "goodreads", Self.export("goodreads.csv"), "--as", "alice").status == 0)
    #expect(try cli("list", "--by", "alice").output.hasSuffix("4 reviews\n"))
    #expect(try reviews(cli)["Les Misérables by Victor Hugo"]?["createdBy"] as? String == "Alice")
  }

  /// `--json` gives the report for scripts: each entry with its review, file and line.
  @Test func theReportIsJSONForScripts() throws {
    let cli = try library()
    let result = try cli("--json", "import", "goodreads", Self.export("goodreads.csv"))
    #expect(result.status == 0)
    let report = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    #expect(report["source"] as? String == "goodreads")
    #expect(report["dryRun"] as? Bool == false)
    #expect((report["added"] as? [[String: Any]])?.count == 4)
    let skipped = try #require(report["skipped"] as? [[String: Any]])
    #expect(skipped.contains { $0["reason"] as? String == "on the to-read shelf" && $0["line"] as? Int == 6 })
    #expect(report["unchanged"] as? Int == 0)
  }

  /// Ctrl-C in the middle of a large import: exit status 130, the words every command says,
  /// and not one review of the export in the library.
  @Test func anInterruptedImportLeavesNothing() throws {
    let cli = try library()
    let folder = cli.folder.file("big")
    let made = try BuiltCatalogue.run(
      [
        "/usr/bin/python3", Fixture.root.appendingPathComponent("imports/make-imports.py").path, "--letterboxd-bench",
        "20000", folder,
      ], directory: cli.folder.path, executable: "/usr/bin/env")
    try #require(made.status == 0, "\(made.error)")
    let before = try fileSnapshot(cli.library)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLI.executable)
    process.arguments = ["--library", cli.library, "import", "letterboxd", folder]
    let error = Pipe()
    process.standardError = error
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    usleep(400_000)
    kill(process.processIdentifier, SIGINT)
    let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 130, "\(message)")
    #expect(message == "interrupted: nothing was changed\n")
    #expect(try cli("list").output.hasSuffix("No reviews.\n") || (try cli("list").output.isEmpty), "no review came in")
    #expect(try fileSnapshot(cli.library).keys == before.keys)
    #expect(try cli("check").status == 0)
  }

  /// Leaving as easily: the films as the CSV Letterboxd imports and the books as Goodreads'
  /// CSV, with the services' own ratings and ids; a Goodreads file made here imports again
  /// (into another library) with its ratings and spoiler marks.
  @Test func reviewsLeaveAsTheServicesImportThem() throws {
    let cli = try library()
    #expect(try cli("import", "letterboxd", Self.export("letterboxd")).status == 0)
    #expect(try cli("import", "goodreads", Self.export("goodreads.csv")).status == 0)
    #expect(try cli("import", "imdb", Self.export("imdb.csv"), "--include-unreviewed").status == 0)
    let films = cli.folder.file("letterboxd-import.csv")
    let written = try cli("export", "--format", "letterboxd-csv", "--to", films)
    #expect(written.status == 0, "\(written.error)")
    #expect(written.output == "Wrote 8 reviews of films (4 reviews of other kinds left out) to \(films)\n")
    let csv = try String(contentsOfFile: films, encoding: .utf8)
    #expect(csv.hasPrefix("Title,Year,Rating,WatchedDate,Review,imdbID,LetterboxdURI\r\n"))
    #expect(csv.contains("\r\nCats,2019,0.5,2024-02-01,No.,,\r\n"), "Letterboxd's own half star")
    #expect(csv.contains("\r\nAmélie,2001,4.5,2023-02-14,\"Paris as a music box"))
    let drafts = try cli("export", "--format", "letterboxd-csv", "--include-drafts", "--to", "-")
    #expect(drafts.output.contains("\r\nSpirited Away,2001,5,"))
    #expect(drafts.output.contains(",tt0245429,"), "IMDb's id for Letterboxd to match")
    #expect(drafts.error.hasPrefix("Wrote 13 reviews of films (8 reviews of other kinds left out)"))

    let books = cli.folder.file("goodreads-import.csv")
    #expect(try cli("export", "--format", "goodreads-csv", "--to", books).status == 0)
    let text = try String(contentsOfFile: books, encoding: .utf8)
    #expect(
      text.hasPrefix(
        "Book Id,Title,Author,ISBN,My Rating,Date Read,Date Added,Bookshelves,Exclusive Shelf,My Review,Spoiler\r\n"))
    #expect(text.contains("<spoiler>Javert"))
    let other = CLI()
    #expect(try other("init").status == 0)
    let again = try other("import", "goodreads", books)
    #expect(again.status == 0, "\(again.error)")
    #expect(again.output.hasSuffix("Goodreads: 4 added, 0 updated, 0 unchanged, 0 skipped\n"))
    let miserables = try #require(try reviews(other)["Les Misérables by Victor Hugo"])
    #expect(miserables["containsSpoilers"] as? Bool == true)
    #expect(miserables["rating"] as? Int == 4)
    #expect((miserables["body"] as? String)?.contains("||Javert") == true, "the spoiler is hidden again")

    for (arguments, status, message) in [
      (["export", "--format", "csv", "--to", books], 2, "--format must be letterboxd-csv or goodreads-csv, not csv"),
      (["export", "--format", "goodreads-csv"], 2, "--format needs --to FILE"),
      (["export", "--format", "goodreads-csv", "--all", "--to", books], 2, "--all does not go with --format"),
      (["export", "--format", "goodreads-csv", "--to", cli.folder.path], 1, "not a file; name a file"),
      (["export", "--format", "goodreads-csv", "--to", cli.folder.file("no/such.csv")], 1, "there is no folder"),
    ] {
      let result = try cli(arguments)
      #expect(result.status == Int32(status), "\(arguments): \(result.error)")
      #expect(result.error.contains(message), "\(arguments): \(result.error)")
    }
  }
}
