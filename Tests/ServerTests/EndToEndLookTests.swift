import HTTPTestSupport
import Foundation
import HTTP
import Testing
import TestSupport

/// What the pages' look promises that a test can read from the HTML a browser receives: the
/// star input as a radio group with 0 included, 0 stars shown as five empty ones, the theme
/// script in the head (so a chosen theme never flashes the other), and a policy that lets the
/// script upload to this server alone.
@Suite("The look of the pages")
struct EndToEndLookTests {
  /// The six radio inputs of the star input, as (value, checked, the label's words).
  static func ratingChoices(_ html: String) -> [(value: String, checked: Bool, label: String)] {
    html.matches(
      of:
        /<input type="radio" name="rating" value="(\d)" id="rating-\d" required( checked)?><label for="rating-\d"[^>]*>(.*?)<\/label>/
    ).map { match in
      let words = String(match.3).replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
      return (String(match.1), match.2 != nil, words)
    }
  }

  @Test func theStarInputIsARadioGroupFromZeroToFive() throws {
    let site = try LiveSite { library in
      _ = try library.addReview("Nothing at all", rating: 0, category: "movie")
    }
    let browser = Browser(site.server)
    _ = try browser.signIn(LiveSite.reviewer, LiveSite.password, next: "/new")
    let form = try browser.get("/new")
    #expect(form.status == 200)
    #expect(
      form.text.contains(
        #"<fieldset class="rating" role="radiogroup" aria-labelledby="rating-legend"><legend id="rating-legend">Stars</legend>"#
      ))
    #expect(!form.text.contains(#"<select name="rating""#), "the stars are no longer a select")
    let choices = Self.ratingChoices(form.text)
    #expect(choices.map(\.value) == ["0", "1", "2", "3", "4", "5"])
    #expect(choices.map(\.label) == (0...5).map { "\($0) of 5 stars" })
    #expect(choices.filter(\.checked).map(\.value) == ["3"], "a new review starts at 3 stars")

    let id = try #require(
      (try site.library.run("--json", "list").json()["reviews"] as? [[String: Any]])?.first?["id"] as? String)
    let edit = try browser.get("/reviews/\(id)/edit")
    #expect(Self.ratingChoices(edit.text).filter(\.checked).map(\.value) == ["0"], "0 stars is chosen as 0")

    let page = try browser.get("/reviews/\(id)")
    #expect(page.text.contains(#"<span class="stars" role="img" aria-label="0 of 5 stars""#))
    #expect(page.text.contains(">☆☆☆☆☆</span>"), "0 stars reads as five empty stars")
  }

  @Test func theThemeIsSetBeforeThePageIsDrawnAndTheScriptMayUploadHereAlone() throws {
    let site = try LiveSite()
    let page = try site.request("GET", "/")
    let head = try #require(page.text.components(separatedBy: "</head>").first)
    let script = try #require(
      head.firstMatch(of: /<script src="(\/assets\/app-[0-9a-f]{12}\.js)"><\/script>/), "no blocking script in the head"
    )
    let policy = try #require(page.headers["Content-Security-Policy"])
    #expect(policy.contains("script-src 'self'") && policy.contains("connect-src 'self'"), "\(policy)")
    #expect(!policy.contains("unsafe-inline"), "\(policy)")
    let code = try site.request("GET", String(script.1)).text
    #expect(code.contains(#"localStorage.getItem(themeKey)"#))
    #expect(!code.contains("form.submit()"), "the filters apply only with their button")
    let css = try site.request(
      "GET", try #require(PageText.attributes("href", startingWith: "/assets/style", in: page.text).first)
    ).text
    #expect(css.contains("@media (prefers-color-scheme: dark)"))
    #expect(css.contains(":root[data-theme=dark]") && css.contains(":root[data-theme=light]"))
  }

  /// The editor's preview renders the text as the review's page will (raw HTML left out), for a
  /// signed-in reviewer whose page sent the session's token, and for nobody else.
  @Test func thePreviewRendersMarkdownForAReviewerOnly() throws {
    let site = try LiveSite()
    let reader = Browser(site.server)
    let refused = try reader.post("/preview", [("body", "*hello*")])
    #expect(refused.status == 401 || refused.status == 303, "\(refused.status)")
    #expect(!refused.text.contains("<em>hello</em>"))

    let browser = Browser(site.server)
    _ = try browser.signIn(LiveSite.reviewer, LiveSite.password)
    let shown = try browser.post("/preview", [("body", "A *quiet* film.\n\n<script>alert(1)</script>")])
    #expect(shown.status == 200, "\(shown)")
    #expect(shown.headers["Content-Type"] == "text/html; charset=utf-8")
    #expect(shown.headers["Cache-Control"]?.contains("no-store") == true)
    #expect(shown.text.contains("<p>A <em>quiet</em> film.</p>"), "\(shown.text)")
    #expect(!shown.text.contains("<script"), "raw HTML is left out: \(shown.text)")
    let forged = try browser.post("/preview", [("body", "*x*")], csrf: false)
    #expect(forged.status == 403, "\(forged.status)")
  }
}
