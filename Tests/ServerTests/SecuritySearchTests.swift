import HTTPTestSupport
import Foundation
import HTTP
import Testing
import TestSupport

/// Searches a reader cannot ask are a 400 in their own words, and no answer of the server, a
/// failure of its own included, shows its SQL or other internals.
@Suite("Searches that cannot be asked, and the server's own failures")
struct SecuritySearchTests {
  /// Words that would show the server's insides (as written: a page has `<select>` of its own).
  static let internals = ["SELECT", "FTS", "fts5", "reviews_fts", "sqlite", "SQLite", "database error", "MATCH"]

  static func expectNoInternals(_ answer: Response, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let text = answer.text
    for word in internals {
      #expect(!text.contains(word), "\(what) shows \(word): \(answer.text.prefix(300))", sourceLocation: sourceLocation)
    }
  }

  static func site() throws -> LiveSite {
    try LiveSite {
      try $0.addReview("Arrival", body: "A quiet film about time and language.")
      try $0.addReview("Outer Wilds", category: "game", body: "A loop of twenty-two minutes, and time enough.")
    }
  }

  @Test func aNULInASearchIsA400WithoutInternals() throws {
    let site = try Self.site()
    let message = "a search cannot hold a NUL character (U+0000): leave it out"
    let api = try site.request("GET", "/api/reviews?search=a%00b")
    #expect(api.status == 400)
    #expect(api.errorMessage == message)
    Self.expectNoInternals(api, "the API")
    // The page's parameter is q; the API says it has none of that name.
    #expect(try site.request("GET", "/api/reviews?q=a%00b").status == 400)
    let page = try site.request("GET", "/?q=a%00b")
    #expect(page.status == 400)
    #expect(page.text.contains(message))
    Self.expectNoInternals(page, "the page")
    #expect(try site.request("GET", "/?q=time").status == 200, "the server goes on")
  }

  /// 2,000 words joined by OR (a word here, like any other) once kept the server's thread for a
  /// second and more on a large library: refused at once, in words that give the limit; a
  /// search of a few words is answered as before.
  @Test func aSearchOfTooManyWordsIsA400AndAFewWordsAreAnswered() throws {
    let site = try Self.site()
    let many = Array(repeating: "time OR", count: 1000).joined(separator: " ")
    let quoted = try #require(many.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
    let message = "a search of 2000 words is too many: at most 32 are looked for; leave some out"
    let api = try site.request("GET", "/api/reviews?search=\(quoted)")
    #expect(api.status == 400)
    #expect(api.errorMessage == message)
    let page = try site.request("GET", "/?q=\(quoted)")
    #expect(page.status == 400)
    #expect(page.text.contains(message))
    let short = try site.request("GET", "/api/reviews?search=a*")
    #expect(short.status == 400)
    #expect(
      short.errorMessage == "search term \"a*\" is too short a prefix: give at least 3 letters or digits before the *")
    let few = try site.request("GET", "/api/reviews?search=time%20lan*&sort=relevance")
    #expect(few.status == 200)
    let reviews = try #require(try few.json()["reviews"] as? [[String: Any]])
    #expect(reviews.compactMap { $0["title"] as? String } == ["Arrival"])
    #expect(try site.request("GET", "/?q=time").text.contains("Outer Wilds"))
  }

  /// A failure of the server's own (here the search index gone from under it) is a 500 that
  /// says only that; the request log has the reason, SQL and all.
  @Test func theServersOwnFailureSaysNothingOfItsInsides() throws {
    let site = try Self.site()
    #expect(try site.request("GET", "/api/reviews?search=time").status == 200)
    _ = try site.library.sql("DROP TABLE reviews_fts")
    let api = try site.request("GET", "/api/reviews?search=time")
    #expect(api.status == 500)
    #expect(api.errorMessage == "the server failed to answer this request; its log says why")
    Self.expectNoInternals(api, "the API's 500")
    let page = try site.request("GET", "/?q=time")
    #expect(page.status == 500)
    #expect(page.text.contains("the server failed to answer this request; its log says why"))
    Self.expectNoInternals(page, "the page's 500")
    // The log line of each says why, on one line.
    let deadline = Date().addingTimeInterval(5)
    var lines: [Substring] = []
    repeat {
      lines = site.server.log.split(separator: "\n").filter { $0.contains(" 500 ") }
      if lines.count >= 2 { break }
      usleep(20_000)
    } while Date() < deadline
    #expect(lines.count == 2, "\(site.server.log)")
    for line in lines {
      #expect(line.contains(#"failure="database error 1: no such table: reviews_fts"#), "\(line)")
      #expect(line.contains("(in: SELECT"), "\(line)")
    }
  }
}
