import HTTPTestSupport
import Foundation
import HTTP
import Testing
import TestSupport

/// Drafts through the API: made, published and taken back, and what readers are given
/// follows at once.
@Suite("Drafts stay with their reviewers")
struct EndToEndDraftsTests {
  /// The API's `draft` and `containsSpoilers`: a new review is published unless it says
  /// `draft: true`; `PATCH` publishes and takes back, and readers' answers follow at once.
  @Test func theAPIMakesPublishesAndTakesBackDrafts() throws {
    let site = try LiveSite()
    let plain = try site.json("POST", "/api/reviews", ["title": "Arrival", "rating": 5, "category": "movie"])
    #expect(plain.status == 201)
    #expect(try plain.json()["draft"] as? Bool == false, "published unless asked: scripts rely on it")
    #expect(try plain.json()["published"] is String)
    #expect(try plain.json()["containsSpoilers"] as? Bool == false)

    let made = try site.json(
      "POST", "/api/reviews",
      ["title": "Solaris", "rating": 4, "category": "book", "draft": true, "containsSpoilers": true])
    #expect(made.status == 201)
    let review = try made.json()
    #expect(review["draft"] as? Bool == true)
    #expect(review["published"] is NSNull)
    #expect(review["containsSpoilers"] as? Bool == true)
    let id = try #require(review["id"] as? String)
    let readerTitles = { () throws -> [String] in
      (try site.request("GET", "/api/reviews").json()["reviews"] as? [[String: Any]] ?? []).compactMap {
        $0["title"] as? String
      }
    }
    #expect(try readerTitles() == ["Arrival"])
    #expect(try site.request("GET", "/api/reviews/\(id)").status == 404)

    let published = try site.json("PATCH", "/api/reviews/\(id)", ["draft": false])
    #expect(published.status == 200, "\(published)")
    #expect(try published.json()["draft"] as? Bool == false)
    #expect(try readerTitles() == ["Solaris", "Arrival"])
    #expect(try site.request("GET", "/api/reviews/\(id)").status == 200)

    let back = try site.json("PATCH", "/api/reviews/\(id)", ["draft": true, "containsSpoilers": false])
    #expect(back.status == 200)
    #expect(try back.json()["draft"] as? Bool == true)
    #expect(try back.json()["containsSpoilers"] as? Bool == false)
    #expect(try readerTitles() == ["Arrival"])
    #expect(try site.request("GET", "/api/reviews/\(id)").status == 404)

    let wrong = try site.json("PATCH", "/api/reviews/\(id)", ["draft": "yes"])
    #expect(wrong.status == 400)
    #expect(wrong.errorMessage == "draft must be true or false")
    let shows: [(String, [String])] = [
      ("", ["Solaris", "Arrival"]), ("?show=all", ["Solaris", "Arrival"]), ("?show=drafts", ["Solaris"]),
      ("?show=published", ["Arrival"]),
    ]
    for (query, titles) in shows {
      let listed = try site.request("GET", "/api/reviews\(query)", signed: true).json()
      let found = (listed["reviews"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
      #expect(found == titles, "a reviewer's \(query)")
    }
    let bad = try site.request("GET", "/api/reviews?show=some", signed: true)
    #expect(bad.status == 400)
    #expect(bad.errorMessage == "show must be published, drafts or all, not some")
  }
}
