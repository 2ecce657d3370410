@testable import Catalogue
import Foundation
import ImagePipeline
import Testing
import TestSupport

/// The JSON the command line prints and the server's API sends: one shape, from one source.
@Suite("JSON shapes")
struct JSONShapeTests {
  static func object(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  static func urls(_ image: StoredImage) -> JSONShape.ImageURLs {
    JSONShape.ImageURLs(
      original: "/files/\(image.sha256)", thumbnail: "/thumbnails/\(image.sha256)", display: "/display/\(image.sha256)")
  }

  @Test func pictureURLsAreWrittenOnlyWhenGiven() throws {
    let (test, review) = try libraryWithPictures(["baseline.jpg"])
    let sha256 = review.images[0].image.sha256
    let plain = try Self.object(try JSONShape.encode(JSONShape.Review(review)))
    let image = try #require((plain["images"] as? [[String: Any]])?.first)
    #expect(image["urls"] == nil && image["thumbnail"] as? String == review.images[0].image.thumbnail)
    let served = try Self.object(try JSONShape.encode(JSONShape.Review(review, urls: Self.urls)))
    let urls = try #require((served["images"] as? [[String: Any]])?.first?["urls"] as? [String: String])
    #expect(
      urls == ["original": "/files/\(sha256)", "thumbnail": "/thumbnails/\(sha256)", "display": "/display/\(sha256)"])
    // A list's covers carry them too.
    let page = try test.library.list()
    let listed = try Self.object(try JSONShape.encodeCompact(JSONShape.Page(page, urls: Self.urls)))
    let cover = try #require((listed["reviews"] as? [[String: Any]])?.first?["cover"] as? [String: Any])
    #expect(Set(cover.keys) == ["alt", "sha256", "original", "thumbnail", "urls"])
    #expect(cover["alt"] is NSNull, "no description: null")
    #expect((cover["urls"] as? [String: String])?["display"] == "/display/\(sha256)")
    let bare = try Self.object(try JSONShape.encode(JSONShape.Page(page)))
    let bareCover = try #require((bare["reviews"] as? [[String: Any]])?.first?["cover"] as? [String: Any])
    #expect(Set(bareCover.keys) == ["alt", "sha256", "original", "thumbnail"])
    // Described, the cover carries its description.
    try test.library.describe(review.id, image: "1", alt: "A grey square", caption: nil)
    let described = try Self.object(try JSONShape.encodeCompact(JSONShape.Page(try test.library.list())))
    let describedCover = (described["reviews"] as? [[String: Any]])?.first?["cover"] as? [String: Any]
    #expect(describedCover?["alt"] as? String == "A grey square")
  }

  @Test func prettyForPeopleCompactForHTTPAndControlsEscaped() throws {
    let test = try TestLibrary()
    // A title from before control characters were refused, as check would find it.
    let review = try test.library.create(draft("Plain"))
    try test.library.database.run(
      "UPDATE reviews SET title = ? WHERE id = ?", [.text("A\u{9B}31mB\u{7F}/C\u{1B}"), .text(review.id)])
    let stored = try test.library.review(review.id)
    let pretty = try JSONShape.encode(JSONShape.Review(stored))
    #expect(pretty.contains("\n  \"body\" : \"Body text.\",\n"))
    #expect(pretty.contains(#""title" : "A\u009b31mB\u007f/C\u001b""#))
    let compact = try JSONShape.encodeCompact(JSONShape.Review(stored))
    #expect(
      !compact.contains("\n")
        && compact.hasPrefix(#"{"body":"Body text.","bodyHTML":"<p>Body text.</p>\n","category":"movie","#))
    #expect(compact.contains(#""createdBy":null"#) && compact.contains(#""title":"A\u009b31mB\u007f/C\u001b""#))
    #expect(!compact.unicodeScalars.contains { $0.properties.generalCategory == .control })
  }

  @Test func theAttachShapeNamesFailuresWarningsAndSkippedFiles() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    let report = try test.library.attach(
      files: [Fixture.image("webp-animated.webp"), Fixture.hostile("empty.jpg")], named: ["still.webp", "empty.jpg"],
      to: review.id)
    let skipped = [ImportSources.Skipped(path: "notes.txt", reason: "not a picture")]
    let json = try Self.object(try JSONShape.encode(JSONShape.Attach(report, skipped: skipped)))
    #expect(Set(json.keys) == ["review", "attached", "failures", "skipped", "warnings"])
    #expect((json["attached"] as? [[String: Any]])?.count == 1)
    #expect(
      (json["failures"] as? [[String: String]]) == [
        ["file": "empty.jpg", "error": "empty.jpg: empty file: there is nothing to decode"]
      ])
    #expect((json["skipped"] as? [[String: String]]) == [["file": "notes.txt", "reason": "not a picture"]])
    #expect(
      (json["warnings"] as? [[String: String]]) == [
        ["file": "still.webp", "warning": "animated WebP: only the first of 3 frames is shown"]
      ])
  }

  @Test func aReviewerShape() throws {
    let reviewer = Reviewer(
      name: "alice", created: signInTime, passwordChanged: signInTime.addingTimeInterval(1), sessions: 2, tokens: 1,
      lastSeen: nil)
    let json = try Self.object(try JSONShape.encode(JSONShape.Reviewer(reviewer)))
    #expect(json["name"] as? String == "alice" && json["lastSeen"] is NSNull)
    #expect(json["created"] as? String == "2027-01-15T08:00:00.000Z")
    #expect(json["passwordChanged"] as? String == "2027-01-15T08:00:01.000Z")
    #expect(json["sessions"] as? Int == 2 && json["tokens"] as? Int == 1)
  }
}

/// The list page's JSON, written directly for the server, is `JSONEncoder`'s byte for byte.
@Suite("The list page's JSON")
struct PageJSONTests {
  /// Text of every kind a title, a name or a label may hold, hostile included.
  static let texts: [String] = {
    var texts = [
      "", "Arrival", "a \"quoted\" word", "back\\slash", "a/b/c", "tab\there", "line\nbreak", "cr\rlf",
      "\u{8}\u{C}", "emoji 🎬🍿", "中文的书评", "עברית مع العربية", "\u{200F}\u{202E}mark", "\u{2028}\u{2029}",
      "nbsp\u{A0}and\u{C2}", "del\u{7F}", "c1\u{80}\u{85}\u{9B}\u{9F}", "\u{FEFF}bom", "é and e\u{301}",
    ]
    texts.append(String((0..<32).map { Character(Unicode.Scalar(UInt8($0))) }))
    texts.append(String((0x7F...0xA0).map { Character(Unicode.Scalar($0)!) }))
    return texts
  }()

  static func summary(_ index: Int, cover: Bool, urls: Bool) -> JSONShape.Summary {
    let text = { (offset: Int) in texts[(index + offset) % texts.count] }
    let image = StoredImage(
      sha256: String(repeating: "ab", count: 32), format: .jpeg, width: 10, height: 20, orientation: .up,
      bytes: 100, thumbnailFormat: .jpeg, thumbnailWidth: 5, thumbnailHeight: 10, imported: Date(),
      colorSpace: nil, original: "originals/ab/\(text(1)).jpg", thumbnail: "thumbnails/ab/\(text(2)).jpg",
      highDensityThumbnail: "thumbnails/ab/\(text(2))@2x.jpg", highDensityThumbnailWidth: 10,
      highDensityThumbnailHeight: 20)
    let summary = ReviewSummary(
      id: String(format: "%016x", index), title: text(0), rating: index % 6,
      category: Category(rawValue: index % 2 == 0 ? "movie" : "café au lait")!, favorite: index % 3 == 0,
      created: Date(timeIntervalSince1970: Double(index) * 1000.25),
      updated: Date(timeIntervalSince1970: Double(index) * 2000.5), imageCount: index % 4,
      cover: cover ? image : nil, coverAlt: cover && index % 3 != 1 ? text(8) : nil,
      createdBy: index % 2 == 0 ? text(3) : nil, updatedBy: index % 5 == 0 ? nil : text(4),
      containsSpoilers: index % 7 == 0,
      published: index % 3 == 2 ? nil : Date(timeIntervalSince1970: Double(index) * 1500.75))
    return JSONShape.Summary(
      summary,
      urls: urls
        ? {
          JSONShape.ImageURLs(
            original: "/originals/\($0.sha256)?\(text(5))", thumbnail: text(6),
            thumbnail2x: index % 4 == 0 ? nil : text(9), display: text(7), display2x: index % 5 < 2 ? nil : text(10))
        }
        : nil)
  }

  @Test(arguments: [false, true])
  func theDirectWriterIsJSONEncoders(_ estimate: Bool) throws {
    for count in [0, 1, 2, 50] {
      let reviews = (0..<count).map { Self.summary($0, cover: $0 % 3 != 1, urls: $0 % 2 == 0) }
      let page = JSONShape.Page(total: 123_456, totalIsEstimate: estimate, offset: 7, reviews: reviews)
      #expect(page.compactJSON == (try JSONShape.encodeCompact(page)))
    }
  }
}
