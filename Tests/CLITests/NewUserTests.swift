import Foundation
import Testing
import TestSupport

/// What a new user trips over: each test reproduces one reported defect with the command a
/// user ran, and checks what they would notice (exit status, messages, the library folder).
@Suite("What a new user trips over")
struct NewUserTests {
  /// Runs the built executable with standard output into a pipe whose reader takes `take`
  /// bytes and then closes it, as `| head -c N` does. Returns the exit status and stderr.
  static func runWithEarlyClosingReader(_ arguments: [String], take: Int) throws -> (status: Int32, error: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLI.executable)
    process.arguments = arguments
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let head = try output.fileHandleForReading.read(upToCount: take) ?? Data()
    #expect(head.count == take)
    try output.fileHandleForReading.close()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: errorData, as: UTF8.self))
  }

  /// Runs `body` with a deadline: a command that hangs fails the test instead of the suite.
  static func within(_ seconds: Double, _ arguments: [String]) throws -> (status: Int32, error: String, elapsed: Double)
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLI.executable)
    process.arguments = arguments
    let error = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    let start = Date()
    try process.run()
    let deadline = DispatchTime.now() + seconds
    // A queue of its own: the global queue's threads may all be busy running other tests.
    DispatchQueue(label: "deadline").asyncAfter(deadline: deadline) {
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: errorData, as: UTF8.self), Date().timeIntervalSince(start))
  }

  // MARK: 1. Output into a closed pipe or a full disk

  @Test func aReaderThatStopsEarlyEndsTheOutputQuietly() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let body = String(repeating: "All work and no play. ", count: 50_000)  // 1.1 MB, past any pipe buffer
    let file = cli.folder.file("long.md")
    try Data(body.utf8).write(to: URL(fileURLWithPath: file))
    #expect(try cli("edit", id, "--body-file", file).status == 0)
    for _ in 0..<30 { _ = try cli.withReview("Another") }
    for arguments in [["show", id], ["show", id, "--json"], ["list", "--json"], ["list"]] {
      let result = try Self.runWithEarlyClosingReader(["--library", cli.library] + arguments, take: 10)
      #expect(result.status == 0, "\(arguments): \(result.error)")
      #expect(result.error.isEmpty, "\(arguments): \(result.error)")
    }
  }

  @Test func aFullDiskIsOneLineAndExitStatusOne() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLI.executable)
    process.arguments = ["--library", cli.library, "show", id]
    process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
    let error = Pipe()
    process.standardError = error
    try process.run()
    let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 1)
    #expect(text == "error: cannot write to standard output: No space left on device\n")
  }

  // MARK: 2, 3. Devices, FIFOs and huge files are refused at once

  @Test func specialFilesAreRefusedAtOnce() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let fifo = cli.folder.file("f.jpg")
    #expect(mkfifo(fifo, 0o644) == 0)
    let before = try HostileImportTests.hashes(cli.library)
    let cases: [([String], String)] = [
      (["attach", id, "/dev/zero"], "error: /dev/zero: a character device, not a regular file"),
      (["attach", id, "/dev/urandom"], "error: /dev/urandom: a character device, not a regular file"),
      (["attach", id, fifo], "error: \(fifo): a FIFO (named pipe), not a regular file"),
      (["replace", id, "1", fifo], "error: \(fifo): a FIFO (named pipe), not a regular file"),
      (["edit", id, "--body-file", fifo], "error: \(fifo): a FIFO (named pipe), not a regular file"),
      (["edit", id, "--body-file", "/dev/zero"], "error: /dev/zero: a character device, not a regular file"),
      (
        ["add", "--title", "T", "--rating", "1", "--category", "book", "--body-file", fifo],
        "error: \(fifo): a FIFO (named pipe), not a regular file"
      ),
    ]
    try #require(try cli("attach", id, Fixture.image("baseline.jpg")).status == 0)
    let attached = try HostileImportTests.hashes(cli.library)
    #expect(attached != before)
    for (arguments, message) in cases {
      let result = try Self.within(10, ["--library", cli.library] + arguments)
      #expect(result.elapsed < 5, "\(arguments) took \(result.elapsed) s")
      #expect(result.status == 1, "\(arguments): \(result.error)")
      #expect(result.error.hasPrefix(message), "\(arguments): \(result.error)")
      #expect(try HostileImportTests.hashes(cli.library) == attached, "\(arguments) changed the library")
    }
  }

  @Test func aHugeFileIsRefusedWithoutBeingRead() throws {
    let cli = CLI()
    let id = try cli.withReview()
    // 1 GB of zeros (sparse: no disk used) named like a JPEG, and a JPEG header on 1 GB.
    let zeros = cli.folder.file("zeros.jpg")
    #expect(FileManager.default.createFile(atPath: zeros, contents: nil))
    #expect(truncate(zeros, 1 << 30) == 0)
    let big = cli.folder.file("big.jpg")
    let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixture.image("baseline.jpg")))
    #expect(FileManager.default.createFile(atPath: big, contents: jpeg))
    #expect(truncate(big, 1 << 30) == 0)
    let zerosResult = try Self.within(10, ["--library", cli.library, "attach", id, zeros])
    #expect(zerosResult.elapsed < 5)
    #expect(zerosResult.error.hasPrefix("error: \(zeros): not an image"), "\(zerosResult.error)")
    let bigResult = try Self.within(10, ["--library", cli.library, "attach", id, big])
    #expect(bigResult.elapsed < 5)
    #expect(
      bigResult.error.hasPrefix("error: \(big): 1.1 GB is over the largest file this library takes (400 MB)"),
      "\(bigResult.error)")
    let body = try Self.within(10, ["--library", cli.library, "edit", id, "--body-file", zeros])
    #expect(body.status == 1)
    #expect(body.error.hasPrefix("error: \(zeros): more text than a review may hold (17 MB)"), "\(body.error)")
  }

  // MARK: 4, 6. NUL and control characters in text

  @Test func nulAndControlCharactersInBodiesAreRefusedWithTheirPlace() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let nul = cli.folder.file("nul.md")
    try Data("hello\0world\n".utf8).write(to: URL(fileURLWithPath: nul))
    let added = try cli("add", "--title", "T", "--rating", "3", "--category", "book", "--body-file", nul)
    #expect(added.status == 2)
    #expect(
      added.error
        == "error: invalid review: body has a control character U+0000 at byte 5 (line 1, column 6): only tab and newline are allowed among control characters\n"
    )
    let escape = try cli("edit", id, "--body", "x\u{1B}]0;pwned\u{07}\u{1B}[2J")
    #expect(escape.status == 2)
    #expect(escape.error.contains("U+001B at byte 1 (line 1, column 2)"), "\(escape.error)")
    #expect(try cli("show", id, "--json").output.contains("Body of Arrival."))
    // A CRLF file keeps its lines; tabs stay.
    let crlf = cli.folder.file("crlf.md")
    try Data("one\r\n\ttwo\r\n".utf8).write(to: URL(fileURLWithPath: crlf))
    #expect(try cli("edit", id, "--body-file", crlf).status == 0)
    #expect(try cli.json(try cli("show", id, "--json"))["body"] as? String == "one\n\ttwo")
  }

  @Test func storedControlCharactersNeverReachATerminalRaw() throws {
    let cli = CLI()
    let id = try cli.withReview()
    // A body stored before control characters were refused, as the sqlite3 shell writes it.
    let sql =
      "UPDATE reviews SET body = 'x' || char(27) || ']0;pwned' || char(7) || char(155) || 'y' WHERE id = '\(id)'"
    try cli.sqlite(sql)
    // On a terminal (script(1) gives the command one), shown escaped.
    let terminal = try cli.run(
      ["-qec", "\(CLI.executable) --library \(cli.library) show \(id)", "/dev/null"], executable: "/usr/bin/script")
    #expect(terminal.output.contains("x\\x1B]0;pwned\\x07\\x9By"), "\(terminal.output)")
    #expect(!terminal.output.unicodeScalars.contains("\u{1B}"))
    // JSON escapes every control character, C1 included.
    let json = try cli("show", id, "--json")
    #expect(json.output.contains(#""body" : "x\u001b]0;pwned\u0007\u009by""#), "\(json.output)")
  }

  // MARK: 5. Read commands never write; a damaged database is reported

  @Test func anEmptyOrForeignDatabaseIsRefusedUntouchedAndCheckReportsIt() throws {
    let cli = CLI()
    _ = try cli.withReview()
    let database = cli.library + "/catalogue.sqlite"
    for (contents, reason) in [
      (Data(), "it is empty (0 bytes): was a copy cut short?"),
      (Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }), "it does not start like an SQLite database"),
    ] {
      try contents.write(to: URL(fileURLWithPath: database))
      for arguments in [["list"], ["show", "abcd"], ["add", "--title", "X", "--rating", "1", "--category", "book"]] {
        let result = try cli(arguments)
        #expect(result.status == 1, "\(arguments)")
        #expect(
          result.error.hasPrefix("error: \(database) is not a usable catalogue database: \(reason)"), "\(result.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == contents, "\(arguments) wrote to the database")
      }
      let check = try cli("check", "--json")
      #expect(check.status == 1)
      let findings = try #require(try cli.json(check)["findings"] as? [[String: Any]])
      #expect(findings.count == 1)
      #expect(findings.first?["kind"] as? String == "database-corrupt")
      #expect((findings.first?["remedy"] as? String)?.hasPrefix("restore catalogue.sqlite from a backup") == true)
      #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == contents)
    }
  }

  @Test func anSQLiteFileThatIsNotACatalogueIsRefused() throws {
    let cli = CLI()
    try FileManager.default.createDirectory(atPath: cli.library, withIntermediateDirectories: true)
    try cli.sqlite("CREATE TABLE notes (text TEXT)")
    let before = try Data(contentsOf: URL(fileURLWithPath: cli.library + "/catalogue.sqlite"))
    let result = try cli("attach", "abcd", Fixture.image("baseline.jpg"))
    #expect(result.status == 1)
    #expect(
      result.error.contains("it is an SQLite database, but not a catalogue's (schema version 0)"), "\(result.error)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: cli.library + "/catalogue.sqlite")) == before)
  }

  // MARK: 12, 13. The library path and init

  @Test func libraryPathsThatAreFilesOrEmptyAreNamed() throws {
    let cli = CLI()
    let file = cli.folder.file("text.png")
    try Data("not a library".utf8).write(to: URL(fileURLWithPath: file))
    let list = try cli.run(["--library", file, "list"])
    #expect(list.status == 1)
    #expect(
      list.error == "error: \(file) is a file, not a library folder: give the folder that holds catalogue.sqlite\n")
    let initFile = try cli.run(["init", file])
    #expect(initFile.status == 1)
    #expect(initFile.error == list.error)
    let empty = try cli.run(["--library", "", "list"])
    #expect(empty.status == 2)
    #expect(empty.error == "error: --library needs a folder, not an empty path; see `catalogue list --help`\n")
    // An empty path would put a library in the file system's root.
    let emptyInit = try cli.run(["init", ""])
    #expect(emptyInit.status == 2)
    #expect(
      emptyInit.error
        == "error: an empty argument: give a value (an id, a position, a file or a folder); see `catalogue init --help`\n"
    )
    let emptyFile = try cli.run([
      "--library", cli.library, "add", "--title", "T", "--rating", "1", "--category", "book", "--image", "",
    ])
    #expect(emptyFile.status == 2)
    #expect(emptyFile.error == "error: --image needs a file, not an empty path; see `catalogue add --help`\n")
    #expect(!FileManager.default.fileExists(atPath: "/catalogue.sqlite"))
  }

  @Test func initRefusesAFolderThatHoldsOtherFiles() throws {
    let cli = CLI()
    let folder = cli.folder.file("Documents")
    try FileManager.default.createDirectory(atPath: folder + "/taxes", withIntermediateDirectories: true)
    try Data("a".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
    let result = try cli.run(["init", folder])
    #expect(result.status == 1)
    #expect(
      result.error
        == "error: cannot make a library in \(folder): it holds other files (notes.txt, taxes); give a new or empty folder, such as \(folder)/Reviews\n"
    )
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["notes.txt", "taxes"])
    let fresh = cli.folder.file("Empty")
    try FileManager.default.createDirectory(atPath: fresh, withIntermediateDirectories: true)
    #expect(try cli.run(["init", fresh]).status == 0)
    #expect(try cli.run(["--library", fresh, "check"]).status == 0)
  }

  // MARK: 7, 8. Ordinary commands, failures and interruptions leave a healthy library

  @Test func theTourLeavesAHealthyLibrary() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let other = try cli.withReview("Other")
    let pictures = ["baseline.jpg", "progressive.jpg", "rgb-8.png"].map(Fixture.image)
    try #require(try cli(["attach", id] + pictures).status == 0)
    try #require(try cli("attach", other, Fixture.image("grayscale.jpg")).status == 0)
    for step in [
      ["replace", id, "2", Fixture.image("interlaced.png")], ["detach", id, "2"], ["remove", other, "--yes"],
    ] {
      #expect(try cli(step).status == 0, "\(step)")
      let check = try cli("check")
      #expect(check.status == 0, "after \(step): \(check.output)")
    }
    let same = try cli("replace", id, "1", pictures[0])
    #expect(same.status == 0)
    #expect(same.output == "Image 1 of \(id.prefix(8)) is this picture already: nothing changed\n")
  }

  /// `count` distinct large JPEGs in a folder (the same picture with a different trailer).
  static func photoFolder(_ cli: CLI, count: Int) throws -> String {
    let folder = cli.folder.file("Photos")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixture.image("large-1600x1200.jpg")))
    for index in 1...count {
      try (jpeg + Data("trailer \(index)".utf8)).write(
        to: URL(fileURLWithPath: "\(folder)/p\(String(format: "%02d", index)).jpg"))
    }
    return folder
  }

  @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
  func anInterruptedAttachSaysSoAndLeavesTheLibraryAsItWas(signal: Int32, status: Int32) throws {
    let cli = CLI()
    let id = try cli.withReview()
    let folder = try Self.photoFolder(cli, count: 30)
    let originals = cli.library + "/originals"
    let before = try HostileImportTests.hashes(originals)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLI.executable)
    process.arguments = ["--library", cli.library, "attach", id, folder]
    let error = Pipe()
    process.standardError = error
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    // Interrupt once some pictures are written.
    let deadline = Date().addingTimeInterval(20)
    // (Counting names only: reading files the import is writing could race with their renames.)
    while ((try? FileManager.default.subpathsOfDirectory(atPath: originals))?.count ?? 0) < before.count + 4
      && Date() < deadline && process.isRunning
    {
      usleep(5000)
    }
    kill(process.processIdentifier, signal)
    let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == status)
    #expect(message == "interrupted: nothing was changed\n")
    #expect(try HostileImportTests.hashes(originals) == before)
    #expect((try cli.json(try cli("show", id, "--json"))["images"] as? [Any])?.isEmpty == true)
    let check = try cli("check")
    #expect(check.status == 0, "\(check.output)")
  }

  // MARK: 10, 11, 12. One rule for exit statuses; messages name what is wrong

  @Test func everyCommandExitsTwoForTheCommandLineAndOneForTheWork() throws {
    let cli = CLI()
    let id = try cli.withReview()
    try #require(try cli("attach", id, Fixture.image("baseline.jpg")).status == 0)
    let absent = id.hasPrefix("ffff") ? "eeee" : "ffff"
    let file = cli.folder.file("file.txt")
    try Data("x".utf8).write(to: URL(fileURLWithPath: file))
    let usage: [[String]] = [
      ["init", "a", "b"],
      ["add", "--title", "T", "--rating", "6", "--category", "book"],
      ["add", "--title", "T", "--rating", "five", "--category", "book"],
      ["add", "--title", "", "--rating", "3", "--category", "book"],
      ["edit", id, "--rating", "9"], ["edit", "abc", "--rating", "3"], ["edit", "abcd00000000000012", "--rating", "3"],
      ["show", "abc"], ["show", "xyz!"], ["show", id, "--bogus"],
      ["list", "--min-rating", "6"], ["list", "--search", "*"], ["list", "--limit", "-1"], ["list", "--sort", "stars"],
      ["remove"], ["attach", id], ["replace", id, "1"], ["detach", id, "xyz"], ["cover", id],
      ["move", id, "1", "zero"], ["check", "--dry-run"], ["thumbnails", "--rebuild", "--size", "5"],
      ["export"], ["import-bundle"], ["upgrade", "extra"], ["nonsense"],
    ]
    for arguments in usage {
      let result = try cli(arguments)
      #expect(result.status == 2, "\(arguments): \(result.error)")
      #expect(
        result.error.hasPrefix("error: ") && result.error.split(separator: "\n").count == 1,
        "\(arguments): \(result.error)")
    }
    let failures: [[String]] = [
      ["edit", absent, "--rating", "3"], ["show", absent], ["remove", absent, "--yes"],
      ["attach", id, cli.folder.file("missing.jpg")], ["replace", id, "1", "/dev/zero"], ["detach", id, "9"],
      ["cover", id, "9"], ["move", id, "9", "1"], ["export", absent, "--to", cli.folder.file("out")],
      ["import-bundle", cli.folder.file("missing")],
    ]
    for arguments in failures {
      let result = try cli(arguments)
      #expect(result.status == 1, "\(arguments): \(result.error)")
    }
    for arguments in [
      ["init", file], ["--library", file, "list"], ["--library", file, "upgrade"],
      ["--library", file, "thumbnails", "--rebuild"],
    ] {
      let result = try cli.run(arguments)
      #expect(result.status == 1, "\(arguments): \(result.error)")
    }
    // A check that finds a problem exits 1.
    let show = try cli.json(try cli("show", id, "--json"))
    let thumbnail = try #require((show["images"] as? [[String: Any]])?.first?["thumbnail"] as? String)
    try FileManager.default.removeItem(atPath: cli.library + "/" + thumbnail)
    #expect(try cli("check").status == 1)
  }

  @Test func argumentErrorsNameWhatIsMissing() throws {
    let cli = CLI()
    let id = try cli.withReview()
    #expect(try cli("attach", id).error == "error: missing FILE|FOLDER...; see `catalogue attach --help`\n")
    #expect(try cli("move", id).error == "error: missing IMAGE POSITION; see `catalogue move --help`\n")
    #expect(try cli("replace").error == "error: missing REVIEW IMAGE FILE; see `catalogue replace --help`\n")
  }

  @Test func checkJSONHasNullRepairAndRemaining() throws {
    let cli = CLI()
    _ = try cli.withReview()
    let plain = try cli.json(try cli("check", "--json"))
    #expect(plain.keys.contains("repair") && plain["repair"] is NSNull)
    #expect(plain.keys.contains("remaining") && plain["remaining"] is NSNull)
    try Data("x".utf8).write(to: URL(fileURLWithPath: cli.library + "/originals-stray"))
    try FileManager.default.createDirectory(atPath: cli.library + "/originals/ab", withIntermediateDirectories: true)
    try Data("x".utf8).write(to: URL(fileURLWithPath: cli.library + "/originals/ab/.tmp-0000-x.jpg"))
    let dry = try cli.json(try cli("check", "--repair", "--dry-run", "--json"))
    #expect(dry["repair"] is [String: Any])
    #expect(dry.keys.contains("remaining") && dry["remaining"] is NSNull)
  }

  // MARK: 14. Folder imports say what they skipped, and refuse when there is nothing

  @Test func foldersListEverySkippedEntryAndAnEmptyOneIsRefused() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let before = try HostileImportTests.hashes(cli.library)
    let empty = cli.folder.file("Empty")
    try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
    let nothing = try cli("attach", id, empty)
    #expect(nothing.status == 1)
    #expect(nothing.error == "error: nothing to attach: \(empty) holds no pictures\n")

    let odd = cli.folder.file("Odd")
    try FileManager.default.createDirectory(atPath: odd + "/sub", withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: odd + "/loop1", withDestinationPath: "loop2")
    try FileManager.default.createSymbolicLink(atPath: odd + "/loop2", withDestinationPath: "loop1")
    try FileManager.default.createSymbolicLink(atPath: odd + "/broken", withDestinationPath: "nowhere")
    try FileManager.default.createSymbolicLink(atPath: odd + "/sub/back", withDestinationPath: odd)
    #expect(mkfifo(odd + "/pipe", 0o644) == 0)
    let loops = try cli("attach", id, odd)
    #expect(loops.status == 1)
    #expect(
      loops.error == """
        skipped: \(odd)/broken: a broken symbolic link
        skipped: \(odd)/loop1: a symbolic link loop
        skipped: \(odd)/loop2: a symbolic link loop
        skipped: \(odd)/pipe: a FIFO (named pipe), not a file
        skipped: \(odd)/sub/back: a folder already walked (a link leads back to it)
        error: nothing to attach: \(odd) holds no pictures (5 entries skipped)

        """)
    let added = try cli("add", "--title", "T", "--rating", "3", "--category", "book", "--image", empty)
    #expect(added.status == 1)
    #expect(try HostileImportTests.hashes(cli.library) == before)
    #expect(try cli("list").output.hasSuffix("1 review\n"))

    // With a picture beside them, the picture is attached and the skipped entries are in JSON.
    try FileManager.default.copyItem(atPath: Fixture.image("baseline.jpg"), toPath: odd + "/sub/photo.jpg")
    let attached = try cli("attach", id, odd, "--json")
    #expect(attached.status == 0)
    let skipped = try #require(try cli.json(attached)["skipped"] as? [[String: String]])
    #expect(skipped.count == 5)
    #expect(skipped.first == ["file": odd + "/broken", "reason": "a broken symbolic link"])
  }

  // MARK: 15. A new category close to a known one

  @Test func aCategoryThatLooksLikeATypoIsRefusedWithASuggestion() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let typo = try cli("add", "--title", "T", "--rating", "3", "--category", "moive")
    #expect(typo.status == 2)
    #expect(
      typo.error
        == "error: category moive is new to this library: did you mean movie? (--new-category to add moive as a label of its own)\n"
    )
    #expect(try cli("edit", id, "--category", "gmae").error.contains("did you mean game?"))
    #expect(try cli("list").output.hasSuffix("1 review\n"))
    // Far from every label, or asked for, a new label is fine; once used, it is known.
    #expect(try cli("add", "--title", "T", "--rating", "3", "--category", "documentary").status == 0)
    #expect(
      try cli("add", "--title", "T", "--rating", "3", "--category", "documentry").error.contains(
        "did you mean documentary?"))
    #expect(try cli("add", "--title", "T", "--rating", "3", "--category", "moive", "--new-category").status == 0)
    #expect(try cli("add", "--title", "T", "--rating", "3", "--category", "moive").status == 0)
  }

  // MARK: 16. Lists fit the terminal and their ids stay unique

  @Test func listShortensTitlesToTheTerminalAndWidensIDsUntilUnique() throws {
    let cli = CLI()
    _ = try cli.withReview(String(repeating: "A very long title ", count: 16))
    try cli.sqlite(
      """
      INSERT INTO reviews (id, title, body, rating, category, favorite, created, updated) VALUES
        ('abcdef0123456789', '映画のタイトルはとても長いです映画のタイトルはとても長いです', '', 3, 'movie', 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
        ('abcdef0123000000', 'Twin', '', 3, 'movie', 0, '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z');
      """)
    for columns in [60, 30] {
      let result = try cli.run(
        ["-qec", "stty cols \(columns); \(CLI.executable) --library \(cli.library) list", "/dev/null"],
        executable: "/usr/bin/script")
      let lines = result.output.replacingOccurrences(of: "\r", with: "").split(separator: "\n").map(String.init)
      #expect(lines.count == 5, "\(lines)")
      for line in lines.dropFirst().dropLast() {
        // The columns before the title take 40; a title keeps at least 12.
        #expect(Output.displayWidth(line) <= max(columns, 52), "\(columns): \(line)")
      }
      #expect(lines[2].hasPrefix("abcdef01230 "), "\(lines)")
      #expect(lines[3].hasPrefix("abcdef01234 "), "\(lines)")
      #expect(lines.contains { $0.hasSuffix("…") })
    }
    // Not on a terminal: whole titles, for scripts.
    #expect(
      try cli("list").output.contains(
        String(repeating: "A very long title ", count: 16).trimmingCharacters(in: .whitespaces)))
  }
}

/// The width rule the list uses, restated for the tests: two columns for wide characters.
enum Output {
  static func displayWidth(_ text: String) -> Int {
    text.reduce(0) { width, character in
      guard let scalar = character.unicodeScalars.first else { return width }
      return width + ((0x3000...0x9FFF).contains(scalar.value) ? 2 : 1)
    }
  }
}
