import HTTPTestSupport
import Foundation
import HTTP
import Testing
import TestSupport

/// Markup a reviewer (or a reader, through the query) writes is shown as text on every page
/// that shows it, and is data in the JSON; no link or redirect leaves the site.
@Suite("What users write is shown as text")
struct SecurityEscapingTests {
  static let title = #"<script>alert("title")</script> & "quoted" 'single' <img src=x onerror=alert(2)>"#
  static let body = """
    <script>alert("body")</script>

    <img src=x onerror=alert(3)> and <iframe src="https://evil.example"></iframe>

    [a link](javascript:alert(4)) and ![a picture](javascript:alert(5))

    <a href="javascript:alert(6)">raw link</a>
    """

  /// Checks that `html` holds no element or attribute a user's text could have made: escaped
  /// text has no `<` of its own, so markup from users would show as a tag here.
  static func expectNoMarkupFromUsers(_ html: String, _ page: String, sourceLocation: SourceLocation = #_sourceLocation)
  {
    for markup in [
      "<script>alert", "<img src=x", "<iframe", "href=\"javascript:", "src=\"javascript:", "<a href=\"javascript",
    ] {
      #expect(!html.contains(markup), "\(page) holds \(markup)", sourceLocation: sourceLocation)
    }
    // No tag carries an event handler (the pages have none of their own). Attribute values are
    // emptied first: escaped, they hold no quote of their own.
    let tags = html.replacing(/"[^"]*"/, with: "\"\"")
    let handler = tags.firstMatch(of: /<[^<>]*\son[a-z]+\s*=/).map { String($0.output) }
    #expect(handler == nil, "\(page) has a tag with a handler", sourceLocation: sourceLocation)
    // The page's only scripts are its own, from /assets/.
    let scripts = html.components(separatedBy: "<script").count - 1
    #expect(scripts == 1, "\(page) has \(scripts) script elements", sourceLocation: sourceLocation)
  }

  @Test func aScriptInATitleOrBodyIsTextOnEveryPage() throws {
    var id = ""
    let site = try LiveSite { library in
      id = try library.addReview(
        Self.title, rating: 3, category: "movie", body: Self.body, pictures: [Fixture.image("baseline.jpg")])
    }
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    let escapedTitle = PageText.escape(Self.title)
    let pages: [(String, Response)] = [
      ("the grid", try site.request("GET", "/")),
      ("the list", try site.request("GET", "/?view=list")),
      ("a search", try site.request("GET", "/?q=alert")),
      ("the review page", try site.request("GET", "/reviews/\(id)")),
      ("the review page, signed in", try browser.get("/reviews/\(id)")),
      ("the grid, signed in", try browser.get("/")),
      ("the edit form", try browser.get("/reviews/\(id)/edit")),
      ("the delete form", try browser.get("/reviews/\(id)/delete")),
    ]
    for (name, page) in pages {
      #expect(page.status == 200, "\(name)")
      #expect(page.headers["Content-Security-Policy"]?.contains("script-src 'self'") == true, "\(name)")
      #expect(page.text.contains(escapedTitle), "\(name) does not show the title as text")
      Self.expectNoMarkupFromUsers(page.text, name)
    }
    // The body: its markup shown as text or left out, never run.
    let review = try site.request("GET", "/reviews/\(id)").text
    #expect(review.contains("a link"))
    #expect(review.contains("raw link"))
    // The edit form gives the text back as typed, escaped, for editing.
    let editor = try browser.get("/reviews/\(id)/edit").text
    #expect(editor.contains(#"value="\#(escapedTitle)""#))
    #expect(editor.contains(PageText.escape(Self.body)))

    // The JSON holds the text as it was written, as data.
    let json = try site.request("GET", "/api/reviews/\(id)")
    #expect(json.headers["Content-Type"] == "application/json; charset=utf-8")
    #expect(json.headers["X-Content-Type-Options"] == "nosniff")
    #expect(try json.json()["title"] as? String == Self.title)
    #expect(try json.json()["body"] as? String == Self.body)
    let list = try site.request("GET", "/api/reviews")
    #expect((try list.json()["reviews"] as? [[String: Any]])?.first?["title"] as? String == Self.title)
  }

  @Test func whatAReaderPutsInTheQueryIsShownAsText() throws {
    let site = try LiveSite()
    let probe = #"<script>alert("q")</script>"#
    let encoded = probe.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    let pages: [(String, Response)] = [
      ("a search", try site.request("GET", "/?q=\(encoded)")),
      ("a bad filter", try site.request("GET", "/?min=\(encoded)")),
      ("a bad category", try site.request("GET", "/?category=\(encoded)")),
      ("a bad view", try site.request("GET", "/?view=\(encoded)")),
      ("a review that is not", try site.request("GET", "/reviews/\(encoded)")),
      ("a page that is not", try site.request("GET", "/\(encoded)")),
      ("the sign-in form", try site.request("GET", "/sign-in?next=\(encoded)")),
    ]
    for (name, page) in pages {
      #expect(page.status < 500, "\(name)")
      #expect(page.headers["Content-Type"] == "text/html; charset=utf-8", "\(name)")
      Self.expectNoMarkupFromUsers(page.text, name)
    }
    #expect(pages[0].1.text.contains(PageText.escape(probe)), "the search box shows what was asked")
    let api = try site.request("GET", "/api/reviews?search=\(encoded)&category=\(encoded)")
    #expect(api.headers["Content-Type"] == "application/json; charset=utf-8")
    #expect(api.status == 400)
  }

  @Test func aSignInNeverSendsTheReaderToAnotherSite() throws {
    let site = try LiveSite()
    let places = [
      "//evil.example/", "/\\evil.example", "https://evil.example/", "javascript:alert(1)", "/\r\nSet-Cookie: x=y",
      "\\\\evil.example",
    ]
    for next in places {
      let browser = Browser(site.server)
      let form = try browser.get("/sign-in?next=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
      #expect(form.status == 200)
      #expect(Browser.hiddenField("next", in: form.text) == "/", "next \(next)")
      let token = try #require(Browser.signInToken(form.text))
      let signedIn = try browser.post(
        "/sign-in", [("name", LiveSite.reviewer), ("password", LiveSite.password), ("next", next), ("csrf", token)],
        csrf: false)
      #expect(signedIn.status == 303)
      #expect(signedIn.headers["Location"] == "/", "next \(next)")
    }
  }
}
