import Catalogue
import HTTPTestSupport
import Foundation
import HTTP
import Testing
import TestSupport

/// The whole-review spoiler warning: a review that gives away what happens shows its title,
/// facts and cover, and asks before its body and its pictures' captions; cards and rows say
/// "Spoilers" in words; the export's pages are built from the same parts.
@Suite("Spoiler warnings")
struct EndToEndSpoilersTests {
  /// The words only the hidden part of the review holds: body, the cover's caption, another
  /// picture's caption.
  static let hidden = ["butler", "conservatory", "candlestick", "midnight"]

  @Test func theBodyAndCaptionsOfAReviewWithSpoilersSitOnlyInsideItsWarning() throws {
    let site = try LiveSite { try $0.addReview("Arrival", body: "Circles.") }
    let made = try site.json(
      "POST", "/api/reviews",
      [
        "title": "Clue", "rating": 4, "category": "movie", "containsSpoilers": true,
        "body": "The *butler* did it, in the conservatory.",
      ])
    #expect(made.status == 201)
    let id = try #require(try made.json()["id"] as? String)
    let attached = try site.upload(
      "POST", "/api/reviews/\(id)/images",
      [(Fixture.image("baseline.jpg"), "cover.jpg"), (Fixture.image("rgb-8.png"), "hall.png")])
    #expect(attached.status == 201)
    #expect(try site.json("PATCH", "/api/reviews/\(id)/images/1", ["caption": "The candlestick"]).status == 200)
    #expect(try site.json("PATCH", "/api/reviews/\(id)/images/2", ["caption": "The hall at midnight"]).status == 200)

    let page = try site.request("GET", "/reviews/\(id)")
    #expect(page.status == 200)
    let html = page.text
    let warning = try #require(Self.element(#"<details class="spoiler-warning">"#, in: html))
    #expect(
      html[warning].hasPrefix(
        #"<details class="spoiler-warning">"# + "\n<summary>This review contains spoilers. Show it</summary>\n"))
    #expect(html[warning].contains(#"<p class="cover-caption">Cover: The candlestick</p>"#))
    #expect(html[warning].contains(#"<div class="body">"#))
    #expect(html[warning].contains(#"<section class="pictures">"#))
    #expect(html[warning].contains(#"<p class="download">Originals (2 pictures"#), "the links to every original")
    let outside = String(html[..<warning.lowerBound] + html[warning.upperBound...]).lowercased()
    for word in Self.hidden {
      #expect(html[warning].lowercased().contains(word), "\(word) is in the review")
      #expect(!outside.contains(word), "\(word) is outside the warning")
    }
    // What is shown before asking: the title, the facts, the cover without its caption.
    let before = html[..<warning.lowerBound]
    #expect(before.contains("<h1>Clue</h1>"))
    #expect(before.contains(#"<p class="facts">"#))
    let cover = try #require(before.range(of: #"<figure class="cover">"#))
    #expect(before[cover.lowerBound...].contains("</figure>") && !before[cover.lowerBound...].contains("<figcaption>"))

    // Cards and rows say it in words; a review without the warning says nothing of it.
    let grid = try site.request("GET", "/").text
    let card = try #require(grid.components(separatedBy: #"<li class="card">"#).first { $0.contains(id) })
    #expect(card.contains(#"<p class="badges"><span class="badge spoilers">Spoilers</span></p>"#))
    #expect(grid.components(separatedBy: "badge spoilers").count == 2, "one card has the badge")
    let list = try site.request("GET", "/?view=list").text
    #expect(list.contains(#"Clue</a> <span class="badge spoilers">Spoilers</span></td>"#))
    let plain = try #require(
      try site.request("GET", "/api/reviews?search=circles").json()["reviews"] as? [[String: Any]])
    let arrival = try site.request("GET", "/reviews/\(try #require(plain.first?["id"] as? String))").text
    #expect(!arrival.contains("spoiler-warning"))
    #expect(arrival.contains("<p>Circles.</p>"))
    #expect(try site.request("GET", "/api/reviews/\(id)").json()["containsSpoilers"] as? Bool == true)
  }

  /// The export's pages and the server's share the parts: the article asks in the same
  /// words, a card carries its badges, and a warned review with nothing to hide asks nothing.
  @Test func theSharedPartsMarkSpoilersAndDrafts() throws {
    let movie = try #require(Category(rawValue: "movie"))
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    var review = Review(
      id: "0123456789abcdef", title: "Clue", body: "The butler.", rating: 4, category: movie, favorite: false,
      created: date, updated: date, containsSpoilers: true, published: date)
    let article = HTML.article(review, pictures: [], coverIndex: nil).joined(separator: "\n")
    #expect(article.contains("<details class=\"spoiler-warning\">\n<summary>\(HTML.spoilerWarningSummary)</summary>"))
    #expect(article.hasSuffix("</details>\n</article>"))
    review.body = ""
    #expect(!HTML.article(review, pictures: [], coverIndex: nil).joined().contains("<details"))

    let card = HTML.Card(
      title: "Clue", rating: 4, category: movie, favorite: false, page: "clue/index.html", cover: nil,
      containsSpoilers: true, draft: true)
    #expect(
      HTML.cardItem(card).hasSuffix(
        #"<p class="badges"><span class="badge draft">Draft</span> "#
          + #"<span class="badge spoilers">Spoilers</span></p>"# + "\n</li>"))
    let plain = HTML.Card(title: "Clue", rating: 4, category: movie, favorite: false, page: "c", cover: nil)
    #expect(!HTML.cardItem(plain).contains("badge"))
    for rule in [
      "details.spoiler.spoiler-inline { display: inline;", "details.spoiler.spoiler-inline[open]::details-content",
      "div.paragraph {", "details.spoiler-warning {", ".badge.draft {", ".badge.spoilers {",
    ] {
      #expect(HTML.style.contains(rule), "\(rule)")
    }
  }

  /// The range of the first element that starts with `opening` in `html`, to its closing tag,
  /// elements of the same name inside it counted.
  static func element(_ opening: String, in html: String) -> Range<String.Index>? {
    guard let start = html.range(of: opening) else { return nil }
    let name = String(opening.dropFirst().prefix { $0.isLetter })
    var depth = 1
    var cursor = start.upperBound
    while depth > 0 {
      let open = html.range(of: "<\(name)", range: cursor..<html.endIndex)
      guard let close = html.range(of: "</\(name)>", range: cursor..<html.endIndex) else { return nil }
      if let open, open.lowerBound < close.lowerBound {
        depth += 1
        cursor = open.upperBound
      } else {
        depth -= 1
        cursor = close.upperBound
      }
    }
    return start.lowerBound..<cursor
  }
}
