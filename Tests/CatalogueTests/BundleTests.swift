@testable import Catalogue
import Foundation
import ImagePipeline
import Testing
import TestSupport

/// Exported bundles: their files, their pages, the round trip, and bundles that must be refused.
@Suite("Review bundles")
struct BundleTests {
  // MARK: Helpers

  /// A library with one review of three pictures (a JPEG, a transparent PNG, a rotated JPEG),
  /// the second the cover.
  static func libraryWithReview(_ title: String = "Arrival") throws -> (TestLibrary, Review) {
    let test = try TestLibrary()
    let review = try test.library.create(
      draft(
        title, rating: 5, body: "A *quiet* film about **language**.\n\n- first\n- second",
        favorite: true),
      now: Date(timeIntervalSince1970: 1_764_476_162.311))
    let files = ["baseline.jpg", "rgba-8.png", "orientation-6.jpg"].map(Fixture.image)
    _ = try test.library.attach(
      files: files, to: review.id, cover: files[1],
      now: Date(timeIntervalSince1970: 1_764_476_200.5))
    return (test, try test.library.review(review.id))
  }

  /// Exports one review into `folder` and returns its bundle folder.
  static func exportOne(_ library: Library, _ id: String, to folder: String) throws -> String {
    let report = try library.export([id], to: folder)
    return try #require(report.bundles.first).path
  }

  /// Imports the one bundle at `path`; throws what refused it.
  @discardableResult
  static func importOne(_ library: Library, _ path: String, conflict: BundleConflict = .refuse)
    throws -> BundleImport
  {
    let report = try library.importBundles(at: path, conflict: conflict)
    if let failure = report.failures.first { throw failure.error }
    return try #require(report.imported.first)
  }

  /// Every plain file below `folder`, relative, in name order.
  static func files(in folder: String) -> [String] {
    (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter {
      relative in
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: "\(folder)/\(relative)", isDirectory: &isFolder)
      return !isFolder.boolValue
    }.sorted()
  }

  /// Rewrites `SHA256SUMS` to match the bundle's files as they now are (so that a test can
  /// reach the checks that come after the hashes).
  static func rewriteChecksums(_ folder: String) throws {
    var sums: [String: String] = [:]
    for file in files(in: folder) where file != "SHA256SUMS" {
      sums[file] = SHA256.hex(try Fixture.bytes("\(folder)/\(file)"))
    }
    try Data(BundleFormat.checksums(sums)).write(to: URL(fileURLWithPath: "\(folder)/SHA256SUMS"))
  }

  /// Edits `review.json` as JSON, then rewrites `SHA256SUMS`.
  static func editRecord(_ folder: String, _ edit: (inout [String: Any]) throws -> Void) throws {
    let url = URL(fileURLWithPath: "\(folder)/review.json")
    var record = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    try edit(&record)
    try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]).write(to: url)
    try rewriteChecksums(folder)
  }

  static func run(_ executable: String, _ arguments: [String], in folder: String? = nil) throws
    -> Int32
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// The library folder's files and their bytes, without the lock file an import may create.
  static func state(_ test: TestLibrary) throws -> [String: Data] {
    try snapshot(test.path).filter { $0.key != "catalogue.lock" }
  }

  // MARK: Export

  @Test func anExportedBundleHoldsTheRecordTheOriginalsAndChecksumsSha256sumAccepts() throws {
    let (test, review) = try Self.libraryWithReview()
    let out = test.folder.file("Exports")
    let report = try test.library.export([String(review.id.prefix(6))], to: out)
    let bundle = try #require(report.bundles.first)
    #expect(report.index == nil && report.archive == nil)
    #expect(bundle.folder == "arrival-\(review.id.prefix(6))")
    #expect(bundle.path == "\(out)/\(bundle.folder)")
    let hashes = review.images.map(\.image.sha256)
    let expected = [
      "SHA256SUMS", "images/\(hashes[0]).jpg", "images/\(hashes[0])-thumbnail.jpg",
      "images/\(hashes[1]).png",
      "images/\(hashes[1])-thumbnail.png", "images/\(hashes[2]).jpg",
      "images/\(hashes[2])-thumbnail.jpg",
      "index.html", "review.json",
    ].sorted()
    #expect(Self.files(in: bundle.path) == expected)
    #expect(bundle.files == expected.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    // sha256sum itself accepts the checksums.
    #expect(
      try Self.run(
        "/usr/bin/sha256sum", ["-c", "--strict", "--quiet", "SHA256SUMS"], in: bundle.path) == 0)
    // The originals byte-for-byte.
    for (image, name) in zip(review.images, ["baseline.jpg", "rgba-8.png", "orientation-6.jpg"]) {
      let written = try Fixture.bytes(
        "\(bundle.path)/images/\(image.image.sha256).\(image.image.format.fileExtension)")
      #expect(written == (try Fixture.bytes(Fixture.image(name))))
    }
    // The record.
    let record = try BundleFormat.decode(try Fixture.bytes("\(bundle.path)/review.json"))
    #expect(record.format == 2 && record.id == review.id && record.title == "Arrival")
    #expect(record.created == "2025-11-30T04:16:02.311Z")
    #expect(record.updated == "2025-11-30T04:16:40.500Z")
    #expect(record.images.map(\.sha256) == hashes)
    #expect(record.images.map(\.cover) == [false, true, false])
    #expect(
      record.images[2].width == 120 && record.images[2].height == 80
        && record.images[2].orientation == 6)
    #expect(record.images.map(\.format) == ["jpeg", "png", "jpeg"])
    // Format 2: each picture's file name as attached; nothing said of them, so no alt or caption.
    #expect(record.images.map(\.name) == ["baseline.jpg", "rgba-8.png", "orientation-6.jpg"])
    #expect(record.images.allSatisfy { $0.alt == nil && $0.caption == nil })
    // Sorted keys, pretty-printed, no escaped slashes.
    let text = String(decoding: try Fixture.bytes("\(bundle.path)/review.json"), as: UTF8.self)
    #expect(text.hasPrefix("{\n  \"body\" : "))
    #expect(text.contains("\"original\" : \"images/\(hashes[0]).jpg\""))
    // The page: the cover and the others as thumbnails linking to their originals.
    let page = String(decoding: try Fixture.bytes("\(bundle.path)/index.html"), as: UTF8.self)
    #expect(
      page.contains(
        #"<figure class="cover"><a href="images/\#(hashes[1]).png"><img src="images/\#(hashes[1])-thumbnail.png""#
      ))
    #expect(
      page.contains(
        #"<li><a href="images/\#(hashes[0]).jpg"><img src="images/\#(hashes[0])-thumbnail.jpg""#))
    #expect(page.contains("<em>quiet</em>") && page.contains("<li>second</li>"))
    #expect(page.contains("★★★★★") && page.contains("♥ Favourite"))
    // Nothing from outside: no URL with a scheme anywhere in the page.
    #expect(!page.contains("http:") && !page.contains("https:") && !page.contains("<script"))
  }

  @Test func exportingAgainGivesTheSameBytes() throws {
    let (test, review) = try Self.libraryWithReview()
    let first = try Self.exportOne(test.library, review.id, to: test.folder.file("One"))
    let second = try Self.exportOne(test.library, review.id, to: test.folder.file("Two"))
    #expect(try snapshot(first) == snapshot(second))
  }

  @Test func anExportedReviewMissingAThumbnailGetsOneMadeAgain() throws {
    let (test, review) = try Self.libraryWithReview()
    try test.library.files.remove(review.images[0].image.thumbnail)
    let bundle = try Self.exportOne(test.library, review.id, to: test.folder.file("Exports"))
    #expect(
      FileManager.default.fileExists(
        atPath: "\(bundle)/images/\(review.images[0].image.sha256)-thumbnail.jpg"))
    #expect(try Self.run("/usr/bin/sha256sum", ["-c", "--quiet", "SHA256SUMS"], in: bundle) == 0)
  }

  @Test func aDamagedOriginalIsNotExported() throws {
    let (test, review) = try Self.libraryWithReview()
    let original = review.images[0].image.original
    var bytes = try test.library.files.read(original)
    bytes[bytes.count / 2] ^= 0xFF
    try test.library.files.write(bytes, to: original)
    let out = test.folder.file("Exports")
    #expect(
      throws: CatalogueError.damagedOriginal(
        review: review.id, path: test.library.files.location(of: original))
    ) {
      try test.library.export([review.id], to: out)
    }
    #expect(Self.files(in: out).isEmpty)
  }

  @Test func everyFieldIsEscapedAndNoScriptGetsThrough() throws {
    let test = try TestLibrary()
    let hostile = "<script>alert(1)</script>"
    let body = """
      Hello \(hostile) <img src=x onerror=alert(1)>

      [click](javascript:alert(1)) [also](JavaScript:alert(2)) <javascript:alert(3)> [fine](https://example.org)

      ![tracker](https://example.org/pixel.png) ![inline](data:image/png;base64,AAAA)

      <div onclick="alert(4)">raw block</div>
      """
    let review = try test.library.create(draft(hostile, rating: 3, category: "sci-fi", body: body))
    _ = try test.library.attach(files: [Fixture.image("baseline.jpg")], to: review.id)
    let out = test.folder.file("Exports")
    let report = try test.library.exportAll(to: out)
    let bundle = try #require(report.bundles.first)
    #expect(bundle.folder == "script-alert-1-script-\(review.id.prefix(6))")
    let page = String(decoding: try Fixture.bytes("\(bundle.path)/index.html"), as: UTF8.self)
    let catalogue = String(decoding: try Fixture.bytes("\(out)/index.html"), as: UTF8.self)
    for html in [page, catalogue] {
      #expect(!html.contains("<script"))
      #expect(!html.contains("onerror") && !html.contains("onclick"))
      #expect(!html.lowercased().contains("javascript:alert(1)\""))
      #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    }
    #expect(page.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>"))
    #expect(page.contains("Hello <!-- raw HTML omitted -->alert(1)<!-- raw HTML omitted -->"))
    #expect(
      page.contains(#"<a href="">click</a> <a href="">also</a> <a href="">javascript:alert(3)</a>"#)
    )
    #expect(page.contains(#"<a href="https://example.org">fine</a>"#))
    // A picture from the web becomes a link: the page loads nothing from outside.
    #expect(page.contains(#"<a href="https://example.org/pixel.png">tracker</a>"#))
    #expect(!page.contains(#"src="https:"#))
    #expect(page.contains(#"<img src="data:image/png;base64,AAAA" alt="inline" />"#))
    // The escaping itself, and a category cannot even hold markup.
    #expect(
      HTML.escape(#"<a href="x" title='y'>&</a>"#)
        == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;")
    #expect(Category(rawValue: hostile) == nil)
  }

  @Test func slugsOfHostileTitlesAreSafe() throws {
    let id = "3f2a91c0ffee0123"
    let titles = [
      "../../etc/passwd", "/absolute", "..", ".", "", "   ", "CON", "nul", "com1", "LPT9",
      "aux.txt",
      "a/b\\c", "\u{0}\u{1}\u{7F}bell\u{7}", "\u{202E}evil\u{200B}", "🎬🍿",
      String(repeating: "long words ", count: 40),
      String(repeating: "x", count: 300), "Amélie", "Straße & Æsir", "ＦＵＬＬ ＷＩＤＴＨ",
      "DC's best movie yet: Shazam!",
    ]
    let reserved = Set(
      ["con", "prn", "aux", "nul"] + (1...9).flatMap { ["com\($0)", "lpt\($0)"] })
    for title in titles {
      let slug = Slug.make(title: title, id: id)
      #expect(
        slug.utf8.allSatisfy {
          (48...57).contains($0) || (97...122).contains($0) || $0 == UInt8(ascii: "-")
        }, "\(slug)")
      #expect(slug.hasSuffix("-3f2a91"), "\(slug)")
      #expect(slug.utf8.count <= Slug.maximumWordsLength + 7, "\(slug)")
      #expect(!slug.hasPrefix("-") && !slug.contains("--"), "\(slug)")
      #expect(!reserved.contains(slug) && slug != "." && slug != "..", "\(slug)")
      #expect(!reserved.contains(String(slug.split(separator: ".").first ?? "")), "\(slug)")
    }
    #expect(Slug.make(title: "../../etc/passwd", id: id) == "etc-passwd-3f2a91")
    #expect(Slug.make(title: "CON", id: id) == "con-3f2a91")
    #expect(Slug.make(title: "🎬🍿", id: id) == "review-3f2a91")
    #expect(Slug.make(title: "Amélie", id: id) == "amelie-3f2a91")
    #expect(Slug.make(title: "Straße & Æsir", id: id) == "strasse-aesir-3f2a91")
    #expect(Slug.make(title: "ＦＵＬＬ ＷＩＤＴＨ", id: id) == "full-width-3f2a91")
    #expect(
      Slug.make(title: "DC's best movie yet: Shazam!", id: id) == "dcs-best-movie-yet-shazam-3f2a91"
    )
    #expect(
      Slug.make(title: String(repeating: "long words ", count: 40), id: id).hasPrefix(
        "long-words-long"))
    // Two reviews whose titles and first digits agree still get different folders.
    let twins = Slug.make([
      (title: "Same", id: "3f2a91aa00000000"), (title: "Same", id: "3f2a91bb00000000"),
      (title: "Other", id: "3f2a91cc00000000"),
    ])
    #expect(twins == ["same-3f2a91aa", "same-3f2a91bb", "other-3f2a91"])
  }

  @Test func twoReviewsWithTheSameTitleGetTwoFolders() throws {
    let test = try TestLibrary()
    let first = try test.library.create(draft("Dune"))
    let second = try test.library.create(draft("Dune"))
    let report = try test.library.export([first.id, second.id], to: test.folder.file("Exports"))
    #expect(Set(report.bundles.map(\.folder)).count == 2)
    #expect(report.bundles.allSatisfy { $0.folder.hasPrefix("dune-") })
  }

  @Test func exportRefusesAnExistingBundleUnlessForcedAndNeverDeletesOtherFiles() throws {
    let (test, review) = try Self.libraryWithReview()
    let out = test.folder.file("Exports")
    let bundle = try Self.exportOne(test.library, review.id, to: out)
    try "mine".write(toFile: "\(out)/notes.txt", atomically: true, encoding: .utf8)
    #expect(throws: CatalogueError.bundleExists(path: bundle)) {
      try test.library.export([review.id], to: out)
    }
    // Forced: the bundle is replaced with the review as it now is; the notes stay.
    _ = try test.library.update(
      review.id, with: draft("Arrival", rating: 4), now: Date(timeIntervalSince1970: 1_800_000_000))
    _ = try test.library.detach(review.id, image: "3")
    let forced = try test.library.export([review.id], to: out, force: true)
    #expect(forced.bundles.first?.path == bundle)
    #expect(try BundleFormat.decode(try Fixture.bytes("\(bundle)/review.json")).rating == 4)
    #expect(Self.files(in: bundle).count == 7)  // two pictures, their thumbnails, and three files
    #expect(try Self.run("/usr/bin/sha256sum", ["-c", "--quiet", "SHA256SUMS"], in: bundle) == 0)
    #expect(
      Self.files(in: out).filter {
        !$0.hasPrefix(URL(fileURLWithPath: bundle).lastPathComponent + "/")
      } == ["notes.txt"])
    // A file of someone else's inside the bundle folder: refused even when forced, and kept.
    try "keep me".write(toFile: "\(bundle)/my-notes.txt", atomically: true, encoding: .utf8)
    let before = try snapshot(out)
    #expect(
      throws: CatalogueError.exportBlocked(
        path: bundle, reason: "the bundle folder there holds my-notes.txt, which is not part of it")
    ) {
      try test.library.export([review.id], to: out, force: true)
    }
    #expect(try snapshot(out) == before)
    // A folder that is no bundle at all under the bundle's name.
    let other = try test.library.create(draft("Other"))
    let name = Slug.make(title: "Other", id: other.id)
    try FileManager.default.createDirectory(
      atPath: "\(out)/\(name)", withIntermediateDirectories: true)
    try "x".write(toFile: "\(out)/\(name)/photo.txt", atomically: true, encoding: .utf8)
    let blocked = #expect(throws: CatalogueError.self) {
      try test.library.export([other.id], to: out, force: true)
    }
    guard case .exportBlocked(let path, _)? = blocked else {
      Issue.record("expected exportBlocked, not \(String(describing: blocked))")
      return
    }
    #expect(path == "\(out)/\(name)")
    #expect(FileManager.default.fileExists(atPath: "\(out)/\(name)/photo.txt"))
    // A page that is not ours where the catalogue page goes.
    try FileManager.default.removeItem(atPath: "\(bundle)/my-notes.txt")
    try FileManager.default.removeItem(atPath: "\(out)/\(name)")
    try "<html>my own page</html>".write(
      toFile: "\(out)/index.html", atomically: true, encoding: .utf8)
    #expect(
      throws: CatalogueError.exportBlocked(
        path: "\(out)/index.html", reason: "it is not a catalogue page an export wrote")
    ) {
      try test.library.exportAll(to: test.folder.file("Exports"), force: true)
    }
    // Nothing half-written is left behind by the refusals.
    #expect(!Self.files(in: out).contains { $0.contains(".tmp-") })
  }

  @Test func exportAllWritesTheCataloguePageGroupedByCategory() throws {
    let test = try TestLibrary()
    let reviews = [
      ("Zodiac", "movie"), ("Celeste", "game"), ("Arrival", "movie"), ("Spirited Away", "anime"),
      ("Hades", "game"),
    ]
    var ids: [String] = []
    for (title, category) in reviews {
      let review = try test.library.create(draft(title, category: category))
      ids.append(review.id)
    }
    _ = try test.library.attach(files: [Fixture.image("rgb-8.png")], to: ids[0])
    let out = test.folder.file("Site")
    let report = try test.library.exportAll(to: out)
    #expect(report.bundles.count == 5 && report.index == "\(out)/index.html")
    let page = String(decoding: try Fixture.bytes("\(out)/index.html"), as: UTF8.self)
    let headings = page.split(separator: "\n").filter { $0.hasPrefix("<h2>") }
    #expect(headings == ["<h2>Movie</h2>", "<h2>Game</h2>", "<h2>Anime</h2>"])
    let order = ["Arrival", "Zodiac", "Celeste", "Hades", "Spirited Away"].map {
      page.range(of: ">\($0)</a>")?.lowerBound
    }
    #expect(order.allSatisfy { $0 != nil })
    #expect(zip(order, order.dropFirst()).allSatisfy { $0! < $1! })
    // Links and thumbnails point into the bundle folders, which exist.
    for bundle in report.bundles {
      #expect(page.contains(#"<a href="\#(bundle.folder)/index.html">"#))
    }
    let cover = try test.library.review(ids[0]).images[0].image.sha256
    let zodiac = try #require(report.bundles.first { $0.id == ids[0] }).folder
    #expect(page.contains(#"<img src="\#(zodiac)/images/\#(cover)-thumbnail.jpg""#))
    #expect(
      FileManager.default.fileExists(atPath: "\(out)/\(zodiac)/images/\(cover)-thumbnail.jpg"))
    // Again: refused, then forced.
    let again = #expect(throws: CatalogueError.self) { try test.library.exportAll(to: out) }
    guard case .bundleExists? = again else {
      Issue.record("expected bundleExists, not \(String(describing: again))")
      return
    }
    #expect(try test.library.exportAll(to: out, force: true).bundles.count == 5)
  }

  // MARK: Import

  @Test func theRoundTripGivesTheSameRecordsAndOriginalsByteForByte() throws {
    let (source, review) = try Self.libraryWithReview()
    let other = try source.library.create(draft("No pictures", category: "book", body: ""))
    let first = source.folder.file("First")
    let exported = try source.library.exportAll(to: first)
    let target = try TestLibrary()
    let report = try target.library.importBundles(at: first)
    #expect(report.failures.isEmpty)
    #expect(Set(report.imported.map(\.review.id)) == [review.id, other.id])
    let imported = try target.library.review(review.id)
    #expect(
      imported.title == review.title && imported.body == review.body
        && imported.rating == review.rating)
    #expect(imported.category == review.category && imported.favorite == review.favorite)
    #expect(imported.created == review.created && imported.updated == review.updated)
    #expect(imported.images.map(\.image.sha256) == review.images.map(\.image.sha256))
    #expect(imported.images.map(\.isCover) == review.images.map(\.isCover))
    #expect(try target.library.check().isHealthy)
    let second = target.folder.file("Second")
    let again = try target.library.exportAll(to: second)
    #expect(Set(again.bundles.map(\.folder)) == Set(exported.bundles.map(\.folder)))
    for bundle in exported.bundles {
      let one = "\(first)/\(bundle.folder)"
      let two = "\(second)/\(bundle.folder)"
      #expect(try Fixture.bytes("\(one)/review.json") == Fixture.bytes("\(two)/review.json"))
      for file in Self.files(in: one)
      where file.hasPrefix("images/") && !file.contains("-thumbnail") {
        #expect(try Fixture.bytes("\(one)/\(file)") == Fixture.bytes("\(two)/\(file)"))
      }
    }
  }

  @Test func importingTwiceIsRefusedUnlessReplacingOrAsNew() throws {
    let (source, review) = try Self.libraryWithReview()
    let bundle = try Self.exportOne(source.library, review.id, to: source.folder.file("One"))
    let target = try TestLibrary()
    try Self.importOne(target.library, bundle)
    let before = try Self.state(target)
    #expect(throws: CatalogueError.reviewExists(id: review.id, title: "Arrival")) {
      try Self.importOne(target.library, bundle)
    }
    #expect(try Self.state(target) == before)
    #expect(try target.library.list().total == 1)

    // The review changes in the source: new title, one picture swapped for another.
    _ = try source.library.update(review.id, with: draft("Arrival (2016)", rating: 4))
    _ = try source.library.replace(review.id, image: "1", with: Fixture.image("grayscale.jpg"))
    let newer = try source.library.export([review.id], to: source.folder.file("Two")).bundles[0]
      .path
    let replaced = try Self.importOne(target.library, newer, conflict: .replace)
    #expect(
      replaced.replaced && replaced.review.id == review.id
        && replaced.review.title == "Arrival (2016)")
    #expect(try target.library.list().total == 1)
    #expect(
      replaced.review.images.map(\.image.sha256)
        == (try source.library.review(review.id)).images.map(\.image.sha256))
    // The picture no review uses any more has lost its record, and its files.
    #expect(try target.library.database.scalar("SELECT count(*) FROM images") == .integer(3))
    #expect(try target.library.check().isHealthy)

    let copy = try Self.importOne(target.library, bundle, conflict: .asNew)
    #expect(copy.review.id != review.id && copy.bundleID == review.id && !copy.replaced)
    #expect(copy.review.title == "Arrival" && copy.review.created == review.created)
    #expect(try target.library.list().total == 2)
  }

  @Test func aFailingCommitLeavesNoReviewAndNoDanglingRecord() throws {
    let (source, review) = try Self.libraryWithReview()
    let bundle = try Self.exportOne(source.library, review.id, to: source.folder.file("One"))
    let target = try TestLibrary()
    target.library.beforeCommitHook = { () throws(CatalogueError) in
      throw .invalidArgument("injected")
    }
    let report = try target.library.importBundles(at: bundle)
    #expect(report.failures.map(\.error) == [.invalidArgument("injected")])
    #expect(try target.library.list().total == 0)
    #expect(try target.library.database.scalar("SELECT count(*) FROM images") == .integer(0))
    target.library.beforeCommitHook = nil
    #expect(try Self.importOne(target.library, bundle).review.id == review.id)
  }

  /// A way to spoil an exported bundle, and what the import must say.
  enum Hostile: String, CaseIterable, Sendable {
    case absolutePathInRecord, dotDotInRecord, dotDotInChecksums, symbolicLink, linkedFolder,
      hashMismatch,
      missingImage, unknownFormat, noFormat, undecodableImage, invalidRecord, malformedChecksums,
      noChecksums,
      notJSON, unlistedImage, factsMismatch
  }

  @Test(arguments: Hostile.allCases)
  func aHostileBundleIsRefusedWholeAndTheLibraryLeftUnchanged(_ hostile: Hostile) throws {
    let (source, review) = try Self.libraryWithReview()
    let bundle = try Self.exportOne(source.library, review.id, to: source.folder.file("Exports"))
    let original = "images/\(review.images[0].image.sha256).jpg"
    let expected: BundleProblem?
    switch hostile {
    case .absolutePathInRecord:
      try Self.editRecord(bundle) { record in
        var images = record["images"] as! [[String: Any]]
        images[0]["original"] = "/etc/passwd"
        record["images"] = images
      }
      expected = .unsafePath("/etc/passwd")
    case .dotDotInRecord:
      try Data("outside".utf8).write(to: URL(fileURLWithPath: "\(bundle)/../outside.jpg"))
      try Self.editRecord(bundle) { record in
        var images = record["images"] as! [[String: Any]]
        images[0]["original"] = "images/../../outside.jpg"
        record["images"] = images
      }
      expected = .unsafePath("images/../../outside.jpg")
    case .dotDotInChecksums:
      var sums = try String(contentsOfFile: "\(bundle)/SHA256SUMS", encoding: .utf8)
      sums += "\(String(repeating: "0", count: 64))  ../outside.jpg\n"
      try sums.write(toFile: "\(bundle)/SHA256SUMS", atomically: true, encoding: .utf8)
      expected = .unsafePath("../outside.jpg")
    case .symbolicLink:
      try FileManager.default.removeItem(atPath: "\(bundle)/\(original)")
      try FileManager.default.createSymbolicLink(
        atPath: "\(bundle)/\(original)", withDestinationPath: Fixture.image("baseline.jpg"))
      expected = .link(original, hard: false)
    case .linkedFolder:
      let elsewhere = source.folder.file("Elsewhere")
      try FileManager.default.moveItem(atPath: "\(bundle)/images", toPath: elsewhere)
      try FileManager.default.createSymbolicLink(
        atPath: "\(bundle)/images", withDestinationPath: elsewhere)
      expected = .link("images", hard: false)
    case .hashMismatch:
      var bytes = try Fixture.bytes("\(bundle)/\(original)")
      bytes[bytes.count / 2] ^= 0x01
      try Data(bytes).write(to: URL(fileURLWithPath: "\(bundle)/\(original)"))
      expected = .hashMismatch(original)
    case .missingImage:
      try FileManager.default.removeItem(atPath: "\(bundle)/\(original)")
      expected = .missingFile(original)
    case .unknownFormat:
      try Self.editRecord(bundle) { $0["format"] = BundleFormat.version + 1 }
      expected = .unknownFormat(BundleFormat.version + 1)
    case .noFormat:
      try Self.editRecord(bundle) { $0["format"] = nil }
      expected = .malformedRecord("it has no format version")
    case .undecodableImage:
      // A truncated JPEG, with a record and checksums that agree with it: only decoding finds it.
      let bytes = try Fixture.bytes(Fixture.hostile("truncated-baseline.jpg"))
      let hash = SHA256.hex(bytes)
      let path = "images/\(hash).jpg"
      try Data(bytes).write(to: URL(fileURLWithPath: "\(bundle)/\(path)"))
      try FileManager.default.removeItem(atPath: "\(bundle)/\(original)")
      try Self.editRecord(bundle) { record in
        var images = record["images"] as! [[String: Any]]
        images[0]["original"] = path
        images[0]["sha256"] = hash
        images[0]["bytes"] = bytes.count
        record["images"] = images
      }
      expected = nil  // checked below: the decoder's own words
    case .invalidRecord:
      try Self.editRecord(bundle) { record in
        record["rating"] = 9
        record["title"] = "  "
        record["category"] = "<script>alert(1)</script>"
        record["id"] = "../../x"
      }
      expected = .invalidRecord([
        #"id "../../x" is not 16 lowercase hexadecimal digits"#, "title is empty",
        "rating 9 is outside 0–5",
        #"category "<script>alert(1)</script>" is not a label (letters, digits, spaces, - and _, up to 40)"#,
      ])
    case .malformedChecksums:
      var sums = try String(contentsOfFile: "\(bundle)/SHA256SUMS", encoding: .utf8)
      sums = sums.replacingOccurrences(of: "  index.html", with: " *index.html")
      try sums.write(toFile: "\(bundle)/SHA256SUMS", atomically: true, encoding: .utf8)
      expected = .malformedChecksums(line: 7)
    case .noChecksums:
      try FileManager.default.removeItem(atPath: "\(bundle)/SHA256SUMS")
      expected = .noChecksums
    case .notJSON:
      try Data("{\"format\": 1, \"id\": ".utf8).write(
        to: URL(fileURLWithPath: "\(bundle)/review.json"))
      try Self.rewriteChecksums(bundle)
      expected = .malformedRecord("it is not JSON")
    case .unlistedImage:
      var sums = try String(contentsOfFile: "\(bundle)/SHA256SUMS", encoding: .utf8)
      sums = sums.split(separator: "\n").filter { !$0.hasSuffix("  \(original)") }.map { $0 + "\n" }
        .joined()
      try sums.write(toFile: "\(bundle)/SHA256SUMS", atomically: true, encoding: .utf8)
      expected = .notListed(original)
    case .factsMismatch:
      try Self.editRecord(bundle) { record in
        var images = record["images"] as! [[String: Any]]
        images[0]["width"] = 4000
        record["images"] = images
      }
      expected = .imageMismatch(
        original,
        detail:
          "review.json says 4000×80 jpeg, orientation 1, 1411 bytes, the picture is 120×80 jpeg, orientation 1, 1411 bytes"
      )
    }

    let target = try TestLibrary()
    let existing = try target.library.create(draft("Already here"))
    _ = try target.library.attach(files: [Fixture.image("progressive.jpg")], to: existing.id)
    let before = try Self.state(target)
    let report = try target.library.importBundles(at: bundle)
    #expect(report.imported.isEmpty)
    let failure = try #require(report.failures.first)
    #expect(failure.source == bundle)
    if let expected {
      #expect(failure.error == .badBundle(source: bundle, problem: expected))
    } else if case .badBundle(_, .badImage(let path, let reason)) = failure.error {
      #expect(path.hasSuffix(".jpg") && reason.description.hasPrefix("truncated JPEG"))
    } else {
      Issue.record("unexpected \(failure.error)")
    }
    let message = failure.error.description
    #expect(
      message.hasPrefix("cannot import \(bundle): ")
        && message.hasSuffix("; nothing was imported from it"))
    #expect(!message.contains("\n"))
    #expect(try Self.state(target) == before)
    #expect(try target.library.list().total == 1)
    #expect(!FileManager.default.fileExists(atPath: "\(target.path)/outside.jpg"))
  }

  // MARK: Archives

  @Test func archivesRoundTripToo() throws {
    let (source, review) = try Self.libraryWithReview()
    _ = try source.library.create(draft("Second", category: "game"))
    let out = source.folder.file("Tars")
    let one = try source.library.export([review.id], to: out, archive: true)
    let tar = try #require(one.bundles.first).path
    #expect(tar == "\(out)/arrival-\(review.id.prefix(6)).tar")
    // The system's tar reads it, and sha256sum accepts what it unpacks.
    let unpacked = source.folder.file("Unpacked")
    try FileManager.default.createDirectory(atPath: unpacked, withIntermediateDirectories: true)
    #expect(try Self.run("/bin/tar", ["-xf", tar, "-C", unpacked]) == 0)
    #expect(
      try Self.run(
        "/usr/bin/sha256sum", ["-c", "--quiet", "SHA256SUMS"],
        in: "\(unpacked)/arrival-\(review.id.prefix(6))") == 0)
    #expect(throws: CatalogueError.bundleExists(path: tar)) {
      try source.library.export([review.id], to: out, archive: true)
    }

    let target = try TestLibrary()
    let imported = try Self.importOne(target.library, tar)
    #expect(imported.source == "\(tar):arrival-\(review.id.prefix(6))")
    #expect(imported.review.images.map(\.image.sha256) == review.images.map(\.image.sha256))

    let all = try source.library.exportAll(to: out, archive: true)
    #expect(all.archive == "\(out)/catalogue.tar" && all.index == nil && all.bundles.count == 2)
    let everything = try TestLibrary()
    let report = try everything.library.importBundles(at: "\(out)/catalogue.tar")
    #expect(report.failures.isEmpty && report.imported.count == 2)
    // The same bytes as a folder export.
    let folderExport = source.folder.file("Folders")
    _ = try source.library.export([review.id], to: folderExport)
    let again = everything.folder.file("Again")
    _ = try everything.library.export([review.id], to: again)
    let name = "arrival-\(review.id.prefix(6))"
    #expect(
      try Fixture.bytes("\(folderExport)/\(name)/review.json")
        == Fixture.bytes("\(again)/\(name)/review.json"))
  }

  /// Writes a tar with Python's tarfile: each entry is (name, kind, content or link target).
  static func makeTar(_ path: String, from bundle: String, extra: [(String, String, String)]) throws {
    let script = """
      import sys, tarfile, io, os, json
      path, bundle, extra = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
      with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tar:
          for root, dirs, files in os.walk(bundle):
              for name in sorted(files):
                  full = os.path.join(root, name)
                  tar.add(full, arcname=os.path.join("b", os.path.relpath(full, bundle)))
          for name, kind, value in extra:
              info = tarfile.TarInfo(name)
              if kind == "symlink":
                  info.type, info.linkname = tarfile.SYMTYPE, value
                  tar.addfile(info)
              elif kind == "hardlink":
                  info.type, info.linkname = tarfile.LNKTYPE, value
                  tar.addfile(info)
              elif kind == "fifo":
                  info.type = tarfile.FIFOTYPE
                  tar.addfile(info)
              else:
                  data = value.encode()
                  info.size = len(data)
                  tar.addfile(info, io.BytesIO(data))
      """
    let extraJSON = String(
      decoding: try JSONSerialization.data(withJSONObject: extra.map { [$0.0, $0.1, $0.2] }),
      as: UTF8.self)
    #expect(try run("/usr/bin/python3", ["-c", script, path, bundle, extraJSON]) == 0)
  }

  @Test(arguments: [
    ("symlink", "b/images/evil.jpg", "/etc/passwd"),
    ("hardlink", "b/images/hard.jpg", "/etc/passwd"),
    ("file", "../evil.txt", "escaped"),
    ("file", "/tmp/evil.txt", "absolute"),
    ("file", "b/./review.json", "dot"),
    ("fifo", "b/pipe", ""),
    ("file", "b/review.json", "duplicate"),
  ])
  func aHostileArchiveIsRefusedWhole(kind: String, name: String, value: String) throws {
    let (source, review) = try Self.libraryWithReview()
    let bundle = try Self.exportOne(source.library, review.id, to: source.folder.file("Exports"))
    let tar = source.folder.file("hostile.tar")
    try Self.makeTar(tar, from: bundle, extra: [(name, kind, value)])
    let target = try TestLibrary()
    let before = try Self.state(target)
    let expected: BundleProblem
    switch (kind, name) {
    case ("symlink", _): expected = .link(name, hard: false)
    case ("hardlink", _): expected = .link(name, hard: true)
    case ("fifo", _): expected = .notAPlainFile(name)
    case (_, "b/review.json"): expected = .duplicateEntry(name)
    default: expected = .unsafePath(name)
    }
    #expect(throws: CatalogueError.badBundle(source: tar, problem: expected)) {
      try target.library.importBundles(at: tar)
    }
    #expect(try Self.state(target) == before)
    #expect(!FileManager.default.fileExists(atPath: "\(target.folder.path)/evil.txt"))
  }

  @Test func aPlainArchiveOfTheSameBundleIsAccepted() throws {
    let (source, review) = try Self.libraryWithReview()
    let bundle = try Self.exportOne(source.library, review.id, to: source.folder.file("Exports"))
    let tar = source.folder.file("plain.tar")
    try Self.makeTar(tar, from: bundle, extra: [])
    let target = try TestLibrary()
    #expect(try Self.importOne(target.library, tar).review.id == review.id)
    // `tar -C bundle .` names every entry ./…: read as a bundle at the archive's root.
    let dotted = source.folder.file("dotted.tar")
    #expect(try Self.run("/bin/tar", ["-cf", dotted, "-C", bundle, "."]) == 0)
    let other = try TestLibrary()
    #expect(try Self.importOne(other.library, dotted).source == dotted)
  }

  @Test func notABundleIsSaidSo() throws {
    let test = try TestLibrary()
    let empty = test.folder.file("Empty")
    try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
    #expect(throws: CatalogueError.badBundle(source: empty, problem: .noBundle)) {
      try test.library.importBundles(at: empty)
    }
    let text = test.folder.file("notes.tar")
    try "not a tar at all".write(toFile: text, atomically: true, encoding: .utf8)
    let error = #expect(throws: CatalogueError.self) { try test.library.importBundles(at: text) }
    guard case .badBundle(let source, .unreadableArchive)? = error else {
      Issue.record("unexpected \(String(describing: error))")
      return
    }
    #expect(source == text)
    #expect(
      throws: CatalogueError.io(operation: .read, path: test.folder.file("missing"), code: ENOENT)
    ) {
      try test.library.importBundles(at: test.folder.file("missing"))
    }
  }
}
