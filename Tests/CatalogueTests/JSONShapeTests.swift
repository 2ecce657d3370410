@testable import Catalogue
import Foundation
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
    #expect(Set(cover.keys) == ["sha256", "original", "thumbnail", "urls"])
    #expect((cover["urls"] as? [String: String])?["display"] == "/display/\(sha256)")
    let bare = try Self.object(try JSONShape.encode(JSONShape.Page(page)))
    let bareCover = try #require((bare["reviews"] as? [[String: Any]])?.first?["cover"] as? [String: Any])
    #expect(Set(bareCover.keys) == ["sha256", "original", "thumbnail"])
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
    #expect(!compact.contains("\n") && compact.hasPrefix(#"{"body":"Body text.","category":"movie","#))
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
