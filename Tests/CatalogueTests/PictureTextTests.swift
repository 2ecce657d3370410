@testable import Catalogue
import Foundation
import ImagePipeline
import Testing
import TestSupport

/// What a review says of each of its pictures (description, caption) and the name each
/// picture's file had: kept on the link, validated, carried through every change, migrated,
/// checked, exported and imported.
@Suite("Pictures described")
struct PictureTextTests {
  /// The description and caption of each picture of `id`, and the names, in order.
  static func said(_ library: Library, _ id: String) throws -> [[String?]] {
    try library.review(id).images.map { [$0.alt, $0.caption, $0.name] }
  }

  @Test func attachKeepsTheFileNameAndWhatIsSaidTrimmed() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    let report = try test.library.attach(
      files: [Fixture.image("baseline.jpg")], to: review.id,
      text: PictureText(alt: "  A lighthouse at dusk \n", caption: "Line one\r\nline two  "))
    #expect(report.failures.isEmpty)
    #expect(try Self.said(test.library, review.id) == [["A lighthouse at dusk", "Line one\nline two", "baseline.jpg"]])
    // Uploads keep the name the browser sent, reduced to its last component.
    let upload = test.folder.file("upload-7")
    try FileManager.default.copyItem(atPath: Fixture.image("progressive.jpg"), toPath: upload)
    _ = try test.library.attach(files: [upload], named: [#"C:\Users\Ann\Pictures\Ferry "1998".JPG"#], to: review.id)
    #expect(try test.library.review(review.id).images[1].name == #"Ferry "1998".JPG"#)
    #expect(try test.library.review(review.id).images[1].text == PictureText())
  }

  @Test func aDescriptionForSeveralFilesIsRefusedAndNothingChanges() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    try test.library.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    let before = try snapshot(test.path)
    let error = #expect(throws: CatalogueError.self) {
      try test.library.attach(
        files: ["baseline.jpg", "progressive.jpg"].map(Fixture.image), to: review.id,
        text: PictureText(alt: "Two of them"))
    }
    #expect(
      error?.description
        == "a description and a caption are said of one picture, and 2 were given: attach them one at a time, "
        + "or describe each once attached")
    #expect(
      try snapshot(test.path).filter { $0.key != "catalogue.lock" } == before.filter { $0.key != "catalogue.lock" })
  }

  @Test func describeSetsKeepsAndClearsEachAndMarksTheReviewUpdated() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft(), now: Date(timeIntervalSince1970: 1_000))
    _ = try test.library.attach(
      files: ["baseline.jpg", "rgb-8.png"].map(Fixture.image), to: review.id, now: Date(timeIntervalSince1970: 2_000))
    var described = try test.library.describe(
      review.id, image: "2", alt: "A red square", caption: nil, now: Date(timeIntervalSince1970: 3_000))
    #expect(described.images.map(\.text) == [PictureText(), PictureText(alt: "A red square")])
    #expect(described.updated == Date(timeIntervalSince1970: 3_000))
    described = try test.library.describe(review.id, image: "2", alt: nil, caption: "Painted\nin 1915")
    #expect(described.images[1].text == PictureText(alt: "A red square", caption: "Painted\nin 1915"))
    // Saying the same again changes nothing, not even the time.
    let again = try test.library.describe(
      review.id, image: "2", alt: "A red square ", caption: nil, now: Date(timeIntervalSince1970: 9_000))
    #expect(again.updated == described.updated)
    described = try test.library.describe(review.id, image: "2", alt: "  ", caption: nil)
    #expect(described.images[1].text == PictureText(caption: "Painted\nin 1915"))
    // By hash prefix too.
    let prefix = String(described.images[0].image.sha256.prefix(6))
    described = try test.library.describe(review.id, image: prefix, alt: "Grey", caption: "")
    #expect(described.images[0].text == PictureText(alt: "Grey"))
  }

  static let badTexts: [(alt: String?, caption: String?, problem: String)] = [
    (
      String(repeating: "é", count: 1_001), nil,
      "the description is 1001 characters long, over 1000"
    ),
    (
      "Two\nlines", nil,
      "the description has a control character U+000A at byte 3: only printable characters are allowed"
    ),
    (
      "Bell\u{7}", nil,
      "the description has a control character U+0007 at byte 4: only printable characters are allowed"
    ),
    (nil, String(repeating: "x", count: 2_001), "the caption is 2001 characters long, over 2000"),
    (
      nil, "Fine\nthen \u{1B}[31m",
      "the caption has a control character U+001B at byte 10 (line 2, column 6): only tab and newline are allowed among control characters"
    ),
  ]

  @Test(arguments: badTexts)
  func badTextIsRefusedWithWhyAndNothingChanges(alt: String?, caption: String?, problem: String) throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    _ = try test.library.attach(files: [Fixture.image("baseline.jpg")], to: review.id)
    _ = try test.library.describe(review.id, image: "1", alt: "Kept", caption: "Kept too")
    try test.library.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    let before = try snapshot(test.path)
    let error = #expect(throws: CatalogueError.self) {
      try test.library.describe(review.id, image: "1", alt: alt, caption: caption)
    }
    #expect(error == .invalidPictureText("picture 1 of review \(review.id)", problems: [problem]))
    #expect(error?.description.hasSuffix("; nothing was changed") == true)
    #expect(try snapshot(test.path) == before)
    #expect(try Self.said(test.library, review.id) == [["Kept", "Kept too", "baseline.jpg"]])
  }

  @Test func whatIsSaidMovesWithItsPictureAndBelongsToEachReview() throws {
    let test = try TestLibrary()
    let first = try test.library.create(draft("First"))
    let second = try test.library.create(draft("Second"))
    let files = ["baseline.jpg", "progressive.jpg", "rgb-8.png"].map(Fixture.image)
    _ = try test.library.attach(files: files, to: first.id)
    _ = try test.library.attach(files: [files[0]], to: second.id, text: PictureText(alt: "Second's words"))
    try test.library.describe(first.id, image: "1", alt: "First's words", caption: "One")
    try test.library.describe(first.id, image: "3", alt: "Red", caption: nil)
    try test.library.move(first.id, image: "1", to: 3)
    try test.library.setCover(first.id, image: "2")
    #expect(
      try Self.said(test.library, first.id) == [
        [nil, nil, "progressive.jpg"], ["Red", nil, "rgb-8.png"], ["First's words", "One", "baseline.jpg"],
      ])
    try test.library.detach(first.id, image: "1")
    #expect(
      try Self.said(test.library, first.id) == [["Red", nil, "rgb-8.png"], ["First's words", "One", "baseline.jpg"]])
    // A replacement takes the place, the words and the cover role, and its own file's name.
    let result = try test.library.replace(first.id, image: "1", with: Fixture.image("rgba-8.png"))
    #expect(result.changed)
    #expect(
      try Self.said(test.library, first.id) == [["Red", nil, "rgba-8.png"], ["First's words", "One", "baseline.jpg"]])
    #expect(try test.library.review(first.id).images[0].isCover)
    // The shared picture is described by each review on its own.
    #expect(try Self.said(test.library, second.id) == [["Second's words", nil, "baseline.jpg"]])
  }

  @Test func namesAreKeptSafe() throws {
    // A name that is not UTF-8, as the command line carries it.
    let latin1 = PathName.decoding(Array("/photos/caf".utf8) + [0xE9] + Array(".jpg".utf8))
    #expect(PictureName.of(latin1) == "caf\u{FFFD}.jpg")
    #expect(PictureName.of("dir/a\u{1B}[31mb\u{202E}gpj.exe") == "a\u{FFFD}[31mb\u{FFFD}gpj.exe")
    #expect(PictureName.of("a\\b.jpg") == "a\\b.jpg")
    #expect(PictureName.of("a\\b.jpg", uploaded: true) == "b.jpg")
    #expect(PictureName.of("photos/..") == nil && PictureName.of("  ") == nil)
    let long = PictureName.of(String(repeating: "ü", count: 300) + ".jpeg")
    #expect(long?.utf8.count == 255 && long?.hasSuffix("ü.jpeg") == true)
  }

  @Test(arguments: [1, 2, 3, 4, 5])
  func anEarlierLibraryKeepsItsLinksAndGainsTheFields(version: Int) throws {
    let folder = TemporaryFolder()
    try SchemaTests.fixtureLibrary(atVersion: version, in: folder)
    let sha = String(repeating: "ab", count: 32)
    do {
      let database = try Database(path: folder.file(LibraryLayout.database), create: false)
      try database.execute(
        """
        INSERT INTO images (sha256, format, width, height, orientation, bytes, thumbnail_format, thumbnail_width,
          thumbnail_height, imported) VALUES ('\(sha)', 'jpeg', 120, 80, 1, 1402, 'jpeg', 120, 80,
          '2025-01-01T00:00:00.000Z');
        INSERT INTO review_images (review, position, image, cover)
          SELECT id, 1, '\(sha)', 1 FROM reviews WHERE title = 'Outer Wilds';
        """)
    }
    let library = try Library(opening: folder.path)
    #expect(try library.schemaVersion == Schema.current)
    let wilds = try #require(try library.list(ReviewQuery(search: "wilds")).reviews.first)
    let images = try library.review(wilds.id).images
    #expect(images.map(\.image.sha256) == [sha] && images.map(\.isCover) == [true])
    #expect(images.map(\.text) == [PictureText()] && images.map(\.name) == [nil])
    let described = try library.describe(wilds.id, image: "1", alt: "A campfire under a planet", caption: nil)
    #expect(described.images[0].alt == "A campfire under a planet" && described.images[0].isCover)
    // check's hint is for covers without a description: this one has one now.
    let report = try library.check(quick: true)
    #expect(!report.findings.contains { $0.kind == .invalidPictureText })
    #expect(report.hints.isEmpty)
  }

  @Test func checkHintsAtCoversWithoutADescriptionAndFindsBadStoredText() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    _ = try test.library.attach(files: ["baseline.jpg", "rgb-8.png"].map(Fixture.image), to: review.id)
    var report = try test.library.check()
    #expect(report.isHealthy && report.findings.isEmpty)
    #expect(report.hints.map(\.kind) == [.coverWithoutDescription])
    #expect(report.hints.map(\.target) == [review.id])
    #expect(
      report.hints.first?.remedy == "add one with `catalogue describe \(review.id.prefix(8)) 1 --alt TEXT`")
    try test.library.describe(review.id, image: "1", alt: "Grey", caption: nil)
    report = try test.library.check()
    #expect(report.isHealthy && report.hints.isEmpty)
    // Written by hand, past what the catalogue writes.
    try test.library.database.run(
      "UPDATE review_images SET alt = ?, name = ? WHERE position = 2",
      [.text("Two\nlines"), .text(String(repeating: "n", count: 256))])
    report = try test.library.check()
    #expect(!report.isHealthy)
    #expect(report.findings.map(\.kind) == [.invalidPictureText])
    #expect(
      report.findings.first?.problem
        == "picture 2: the description has a control character U+000A at byte 3: only printable characters are "
        + "allowed; the file name is 256 bytes long, over 255")
  }

  @Test func bundlesCarryWhatIsSaidAndShowItOnTheirPages() throws {
    let (source, review) = try BundleTests.libraryWithReview()
    try source.library.describe(review.id, image: "2", alt: "A <transparent> square", caption: "Line one\nline two")
    try source.library.describe(review.id, image: "3", alt: nil, caption: "Turned upright")
    let bundle = try BundleTests.exportOne(source.library, review.id, to: source.folder.file("Out"))
    let page = String(decoding: try Fixture.bytes("\(bundle)/index.html"), as: UTF8.self)
    #expect(page.contains(#"alt="A &lt;transparent&gt; square""#))
    #expect(page.contains("<figcaption>Line one<br>line two</figcaption></figure>"))
    #expect(page.contains(#"alt="Picture 3 of Arrival"></a><figcaption>Turned upright</figcaption></figure></li>"#))
    #expect(page.contains(#"alt="Picture 1 of Arrival"></a></li>"#))
    #expect(try Self.record(bundle)["format"] as? Int == 2)
    let target = try TestLibrary()
    let imported = try BundleTests.importOne(target.library, bundle)
    #expect(try Self.said(target.library, imported.review.id) == Self.said(source.library, review.id))
    #expect(
      try Self.said(target.library, imported.review.id) == [
        [nil, nil, "baseline.jpg"], ["A <transparent> square", "Line one\nline two", "rgba-8.png"],
        [nil, "Turned upright", "orientation-6.jpg"],
      ])
    // A bundle written before the fields existed has none of them, and still imports.
    let older = try BundleTests.exportOne(source.library, review.id, to: source.folder.file("Older"))
    try BundleTests.editRecord(older) { record in
      var images = try #require(record["images"] as? [[String: Any]])
      for index in images.indices {
        images[index] = images[index].filter { !["alt", "caption", "name"].contains($0.key) }
      }
      record["images"] = images
      record["format"] = 1
    }
    let fresh = try TestLibrary()
    let plain = try BundleTests.importOne(fresh.library, older)
    #expect(plain.review.images.allSatisfy { $0.text == PictureText() && $0.name == nil })
    // Exported again it is format 1 still, which builds before these fields read; and format 1
    // has no room for them.
    let again = try BundleTests.exportOne(fresh.library, plain.review.id, to: fresh.folder.file("Again"))
    #expect(try Self.record(again)["format"] as? Int == 1)
    #expect(!String(decoding: try Fixture.bytes("\(again)/review.json"), as: UTF8.self).contains("\"name\""))
    try BundleTests.editRecord(again) { record in
      var images = try #require(record["images"] as? [[String: Any]])
      images[0]["alt"] = "Said in a format without room for it"
      record["images"] = images
    }
    let other = try TestLibrary()
    let refused = #expect(throws: CatalogueError.self) { try BundleTests.importOne(other.library, again) }
    #expect(
      refused == .badBundle(source: again, problem: .malformedRecord("alt in images[0] is not a field of format 1")))
  }

  /// A bundle's `review.json`, as JSON.
  static func record(_ bundle: String) throws -> [String: Any] {
    let data = try Data(contentsOf: URL(fileURLWithPath: "\(bundle)/review.json"))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  @Test func aBundleWithBadTextIsRefusedWhole() throws {
    let (source, review) = try BundleTests.libraryWithReview()
    let bundle = try BundleTests.exportOne(source.library, review.id, to: source.folder.file("Out"))
    try BundleTests.editRecord(bundle) { record in
      var images = try #require(record["images"] as? [[String: Any]])
      images[0]["alt"] = String(repeating: "a", count: 1_001)
      images[1]["name"] = "../../etc/passwd"
      record["images"] = images
    }
    let target = try TestLibrary()
    let before = try BundleTests.state(target)
    let error = #expect(throws: CatalogueError.self) { try BundleTests.importOne(target.library, bundle) }
    #expect(
      error
        == .badBundle(
          source: bundle,
          problem: .invalidRecord([
            "image 1: the description is 1001 characters long, over 1000", "image 2: the file name holds a /",
          ])))
    #expect(try BundleTests.state(target) == before)
  }
}
