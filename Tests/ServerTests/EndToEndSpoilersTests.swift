import Catalogue
import HTTPTestSupport
import Foundation
import HTTP
import Testing
import TestSupport

/// The whole-review spoiler warning: a review that gives away what happens shows its title,
/// facts and cover, and asks before its body and its pictures' captions; cards say "Spoilers"
/// in words; the export's pages and the server's are built from the same parts.
@Suite("Spoiler warnings")
struct EndToEndSpoilersTests {
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
}
