import Foundation
import Testing
import TestSupport

@Suite("Bundle commands")
struct BundleCommandTests {
  /// The bundle folder names in `folder`, in name order.
  static func folders(in folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).filter { name in
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: "\(folder)/\(name)", isDirectory: &isFolder)
      return isFolder.boolValue
    }.sorted()
  }

  /// The SHA-256 of a file, by coreutils' sha256sum.
  static func sha256(_ path: String) throws -> String {
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [path]
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return String(text.prefix(64))
  }

  static func sha256sumAccepts(_ folder: String) throws -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = ["-c", "--strict", "--quiet", "SHA256SUMS"]
    process.currentDirectoryURL = URL(fileURLWithPath: folder)
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus == 0
  }

  @Test func exportThenImportIntoAnotherLibrary() throws {
    let cli = CLI()
    let id = try cli.withReview("Arrival")
    try #require(
      try cli("attach", id, Fixture.image("baseline.jpg"), Fixture.image("rgb-8.png")).status == 0)
    let out = cli.folder.file("Exports")
    let exported = try cli("export", String(id.prefix(6)), "--to", out)
    #expect(exported.status == 0, "\(exported.error)")
    let folder = "arrival-\(id.prefix(6))"
    #expect(exported.output == "Exported \(id.prefix(8)) (Arrival) to \(out)/\(folder)\n")
    #expect(exported.error.isEmpty)
    #expect(try Self.folders(in: out) == [folder])
    #expect(try Self.sha256sumAccepts("\(out)/\(folder)"))

    // Again: refused with one line, then forced.
    let again = try cli("export", id, "--to", out)
    #expect(again.status == 1)
    #expect(
      again.error
        == "error: \(out)/\(folder) holds a bundle already: export with --force to replace it\n")
    #expect(try cli("export", id, "--to", out, "--force").status == 0)

    let other = cli.folder.file("Other")
    #expect(try cli.run(["init", other]).status == 0)
    let imported = try cli.run(["--library", other, "import-bundle", "\(out)/\(folder)"])
    #expect(imported.status == 0, "\(imported.error)")
    #expect(imported.output == "Imported \(id.prefix(8)) (Arrival) from \(out)/\(folder)\n")
    let show = try cli.json(try cli.run(["--library", other, "show", id, "--json"]))
    #expect((show["images"] as? [Any])?.count == 2 && show["title"] as? String == "Arrival")

    // Twice: refused, library unchanged; --replace and --as-new.
    let twice = try cli.run(["--library", other, "import-bundle", "\(out)/\(folder)"])
    #expect(twice.status == 1 && twice.output.isEmpty)
    #expect(
      twice.error
        == "error: review \(id) (Arrival) is in the library already: import with --replace to replace it, or --as-new to add it under a new id\n"
    )
    let replaced = try cli.run([
      "--library", other, "import-bundle", "\(out)/\(folder)", "--replace",
    ])
    #expect(replaced.status == 0 && replaced.output.hasPrefix("Replaced \(id.prefix(8)) (Arrival)"))
    let copy = try cli.run(["--library", other, "import-bundle", "\(out)/\(folder)", "--as-new"])
    #expect(copy.status == 0 && copy.output.contains("as a new review (the bundle's id is \(id))"))
    let list = try cli.json(try cli.run(["--library", other, "list", "--json"]))
    #expect(list["total"] as? Int == 2)
    #expect(try cli.run(["--library", other, "check"]).status == 0)
  }

  @Test func newFormatsGoThroughABundleByteForByte() throws {
    // WebP, HEIC and AVIF originals are exported as they are, their thumbnails are JPEG or
    // PNG, the page offers the HEIC (which browsers do not show) as a download, and another
    // library takes the bundle back with the same hashes.
    let cli = CLI()
    let id = try cli.withReview("Formats")
    let pictures = ["webp-lossy.webp", "heic-8bit.heic", "avif-alpha.avif"].map { Fixture.image($0) }
    try #require(try cli(["attach", id] + pictures).status == 0)
    let out = cli.folder.file("Exports")
    try #require(try cli("export", id, "--to", out).status == 0)
    let folder = "\(out)/formats-\(id.prefix(6))"
    #expect(try Self.sha256sumAccepts(folder))
    let page = try String(contentsOfFile: folder + "/index.html", encoding: .utf8)
    #expect(page.contains(#".heic" download title="Download the original (HEIC)"><img"#))
    #expect(page.contains(#".webp"><img"#) && page.contains(#".avif"><img"#))
    let hashes = try pictures.map { try Self.sha256($0) }
    for (picture, sha) in zip(pictures, hashes) {
      let original = "\(folder)/images/\(sha).\((picture as NSString).pathExtension)"
      #expect(try Fixture.bytes(original) == (try Fixture.bytes(picture)), "\(original)")
    }

    let other = CLI()
    try #require(try other("init", other.library).status == 0)
    let imported = try other("import-bundle", folder)
    #expect(imported.status == 0, "\(imported.error)")
    let shown = try other.json(try other("show", id, "--json"))
    let images = try #require(shown["images"] as? [[String: Any]])
    #expect(images.map { $0["format"] as? String } == ["webp", "heic", "avif"])
    #expect(images.map { $0["sha256"] as? String } == hashes)
    #expect(try other("check").status == 0)
  }

  @Test func exportAllWritesTheCataloguePageGroupedByCategory() throws {
    let cli = CLI()
    let zodiac = try cli.withReview("Zodiac", category: "movie")
    _ = try cli.withReview("Celeste", rating: "4", category: "game")
    _ = try cli.withReview("Arrival", category: "movie")
    _ = try cli.withReview("Severance", category: "tv")
    try #require(try cli("attach", zodiac, Fixture.image("progressive.jpg")).status == 0)
    let site = cli.folder.file("Site")
    let result = try cli("export", "--all", "--to", site)
    #expect(result.status == 0, "\(result.error)")
    #expect(result.output.split(separator: "\n").count == 5)
    #expect(result.output.hasSuffix("Wrote the catalogue page \(site)/index.html (4 reviews)\n"))
    #expect(try Self.folders(in: site).count == 4)
    let page = try String(contentsOfFile: "\(site)/index.html", encoding: .utf8)
    #expect(
      page.split(separator: "\n").filter { $0.hasPrefix("<h2>") } == [
        "<h2>Movie</h2>", "<h2>TV</h2>", "<h2>Game</h2>",
      ])
    let positions = ["Arrival", "Zodiac", "Severance", "Celeste"].compactMap {
      page.range(of: ">\($0)</a></h3>")?.lowerBound
    }
    #expect(positions.count == 4 && positions == positions.sorted())
    for folder in try Self.folders(in: site) {
      #expect(page.contains(#"href="\#(folder)/index.html""#))
      #expect(try Self.sha256sumAccepts("\(site)/\(folder)"))
    }
    // The whole site back into an empty library, from the folder and from one archive.
    let archive = try cli("export", "--all", "--to", cli.folder.file("Tar"), "--archive")
    #expect(
      archive.output
        == "Exported 4 reviews and the catalogue page to \(cli.folder.file("Tar"))/catalogue.tar\n")
    for source in [site, cli.folder.file("Tar") + "/catalogue.tar"] {
      let fresh = cli.folder.file(UUID().uuidString)
      #expect(try cli.run(["init", fresh]).status == 0)
      let imported = try cli.run(["--library", fresh, "import-bundle", source])
      #expect(
        imported.status == 0 && imported.output.split(separator: "\n").count == 4,
        "\(imported.error)")
    }
  }

  @Test func jsonOutputHasTheDocumentedShape() throws {
    let cli = CLI()
    let id = try cli.withReview("Arrival")
    try #require(try cli("attach", id, Fixture.image("baseline.jpg")).status == 0)
    let out = cli.folder.file("Exports")
    let exported = try cli.json(try cli("export", id, "--to", out, "--archive", "--json"))
    #expect(Set(exported.keys) == ["bundles", "index", "archive", "pruned"])
    #expect(exported["index"] is NSNull && exported["archive"] is NSNull)
    let bundles = try #require(exported["bundles"] as? [[String: Any]])
    #expect(bundles.count == 1)
    #expect(Set(bundles[0].keys) == ["id", "title", "folder", "path", "files"])
    #expect(bundles[0]["id"] as? String == id)
    #expect(bundles[0]["path"] as? String == "\(out)/arrival-\(id.prefix(6)).tar")
    let files = try #require(bundles[0]["files"] as? [String])
    #expect(
      files.first == "SHA256SUMS" && files.contains("review.json") && files.contains("index.html")
        && files.count == 5)

    let other = cli.folder.file("Other")
    #expect(try cli.run(["init", other]).status == 0)
    let tar = "\(out)/arrival-\(id.prefix(6)).tar"
    let imported = try cli.json(try cli.run(["--library", other, "import-bundle", tar, "--json"]))
    #expect(Set(imported.keys) == ["imported", "failures"])
    let items = try #require(imported["imported"] as? [[String: Any]])
    #expect(Set(items[0].keys) == ["source", "bundleId", "replaced", "review"])
    #expect(items[0]["source"] as? String == "\(tar):arrival-\(id.prefix(6))")
    #expect(items[0]["replaced"] as? Bool == false)
    #expect((items[0]["review"] as? [String: Any])?["id"] as? String == id)
    #expect((imported["failures"] as? [Any])?.isEmpty == true)

    let refused = try cli.run(["--library", other, "import-bundle", tar, "--json"])
    #expect(refused.status == 1)
    let failures = try #require(try cli.json(refused)["failures"] as? [[String: String]])
    #expect(failures.map { $0["source"] } == ["\(tar):arrival-\(id.prefix(6))"])
    #expect(
      failures[0]["error"]?.hasPrefix("review \(id) (Arrival) is in the library already") == true)
  }

  @Test func aHostileBundleIsRefusedWithOneLine() throws {
    let cli = CLI()
    let id = try cli.withReview("Arrival")
    try #require(try cli("attach", id, Fixture.image("baseline.jpg")).status == 0)
    let out = cli.folder.file("Exports")
    try #require(try cli("export", id, "--to", out).status == 0)
    let bundle = "\(out)/arrival-\(id.prefix(6))"
    // A picture changed after export.
    let image = try #require(
      try FileManager.default.contentsOfDirectory(atPath: "\(bundle)/images").first {
        !$0.contains("thumbnail")
      })
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(bundle)/images/\(image)")))
    bytes[bytes.count / 2] ^= 0x01
    try Data(bytes).write(to: URL(fileURLWithPath: "\(bundle)/images/\(image)"))

    let other = cli.folder.file("Other")
    #expect(try cli.run(["init", other]).status == 0)
    let result = try cli.run(["--library", other, "import-bundle", bundle])
    #expect(result.status == 1)
    #expect(result.output.isEmpty)
    #expect(
      result.error
        == "error: cannot import \(bundle): images/\(image) does not match its SHA-256 in SHA256SUMS: the bundle is damaged or was altered; nothing was imported from it\n"
    )
    let list = try cli.json(try cli.run(["--library", other, "list", "--json"]))
    #expect(list["total"] as? Int == 0)
  }

  @Test func aBundleWhoseBodyHoldsControlCharactersIsRefused() throws {
    let cli = CLI()
    let id = try cli.withReview("Arrival")
    let out = cli.folder.file("Exports")
    try #require(try cli("export", id, "--to", out).status == 0)
    let bundle = "\(out)/arrival-\(id.prefix(6))"
    // The record altered to carry a terminal escape, its checksum made to match again.
    let record = "\(bundle)/review.json"
    let text = try String(contentsOfFile: record, encoding: .utf8)
      .replacingOccurrences(of: "Body of Arrival.", with: "x\\u001b]0;pwned\\u0007")
    try text.write(toFile: record, atomically: true, encoding: .utf8)
    let sums = try String(contentsOfFile: "\(bundle)/SHA256SUMS", encoding: .utf8)
    let digest = SHA256Sum.hex(Data(text.utf8))
    let fixed =
      sums.split(separator: "\n").map { line in
        line.hasSuffix("  review.json") ? "\(digest)  review.json" : String(line)
      }.joined(separator: "\n") + "\n"
    try fixed.write(toFile: "\(bundle)/SHA256SUMS", atomically: true, encoding: .utf8)

    let other = cli.folder.file("Other")
    #expect(try cli.run(["init", other]).status == 0)
    let result = try cli.run(["--library", other, "import-bundle", bundle])
    #expect(result.status == 1)
    #expect(
      result.error.contains("body has a control character U+001B at byte 1 (line 1, column 2)"), "\(result.error)")
    #expect(result.error.hasSuffix("nothing was imported from it\n"))
    #expect(try cli.json(try cli.run(["--library", other, "list", "--json"]))["total"] as? Int == 0)
  }

  @Test func exportAllPrunesItsOwnStaleBundlesAndTidiesWhatAStopLeft() throws {
    let cli = CLI()
    let keep = try cli.withReview("Keep")
    let drop = try cli.withReview("Drop")
    let out = cli.folder.file("Site")
    try #require(try cli("export", "--all", "--to", out).status == 0)
    let kept = "keep-\(keep.prefix(6))"
    let dropped = "drop-\(drop.prefix(6))"
    #expect(try Self.folders(in: out).contains(dropped))
    try #require(try cli("remove", drop, "--yes").status == 0)
    // What a killed export leaves: a staging folder, an old bundle moved aside with its
    // replacement never renamed in, a temporary archive; and the user's own things.
    let manager = FileManager.default
    try manager.createDirectory(
      atPath: "\(out)/.tmp-0123456789abcdef-\(kept)/images", withIntermediateDirectories: true)
    try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(out)/.tmp-0123456789abcdef-\(kept)/review.json"))
    try manager.moveItem(atPath: "\(out)/\(kept)", toPath: "\(out)/.tmp-1111111111111111-old-\(kept)")
    try Data("t".utf8).write(to: URL(fileURLWithPath: "\(out)/.tmp-2222222222222222-x.tar"))
    try manager.createDirectory(atPath: "\(out)/Holiday", withIntermediateDirectories: true)
    try Data("mine".utf8).write(to: URL(fileURLWithPath: "\(out)/Holiday/notes.txt"))

    let again = try cli("export", "--all", "--to", out, "--force", "--json")
    #expect(again.status == 0, "\(again.error)")
    #expect(try cli.json(again)["pruned"] as? [String] == [dropped])
    let names = try manager.contentsOfDirectory(atPath: out).sorted()
    #expect(names == ["Holiday", "index.html", kept], "\(names)")
    #expect(try String(contentsOfFile: "\(out)/Holiday/notes.txt", encoding: .utf8) == "mine")
    #expect(try Self.sha256sumAccepts("\(out)/\(kept)"))
  }

  @Test func usageMistakesExitWithTwo() throws {
    let cli = CLI()
    let id = try cli.withReview()
    for arguments in [
      ["export", id], ["export", "--to", cli.folder.file("x")],
      ["export", id, "--all", "--to", cli.folder.file("x")],
      ["import-bundle"], ["import-bundle", cli.folder.file("x"), "--replace", "--as-new"],
    ] {
      let result = try cli.run(["--library", cli.library] + arguments)
      #expect(result.status == 2, "\(arguments)")
      #expect(
        result.error.hasPrefix("error: ") && result.error.split(separator: "\n").count == 1,
        "\(result.error)")
    }
    let help = try cli("export", "--help")
    #expect(
      help.status == 0 && help.output.contains("Examples:") && help.output.contains("--archive"))
    let importHelp = try cli("import-bundle", "--help")
    #expect(importHelp.status == 0 && importHelp.output.contains("--as-new"))
  }
}

/// SHA-256 through the `sha256sum` tool, as a user would check a bundle.
enum SHA256Sum {
  static func hex(_ data: Data) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try? process.run()
    input.fileHandleForWriting.write(data)
    try? input.fileHandleForWriting.close()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return String(text.prefix(64))
  }
}
