import HTTPTestSupport
import Foundation
import HTTP
import Testing
import TestSupport

/// Drafts through the built server: a reader finds no trace of one anywhere (its page, its id,
/// its category, its words, its pictures, its count), reviewers see each marked and publish or
/// take back through the pages and the API, and what a reader is shown, kept pages included,
/// follows at once.
@Suite("Drafts stay with their reviewers")
struct EndToEndDraftsTests {
  /// What only the draft holds: each is looked for, lowercased, in every answer a reader gets.
  static let publicURL = "https://reviews.example"

  enum Secret {
    static let title = "Quixotic Zeppelin Marmalade"
    static let body = "Xylophonic pterodactyls conspire at dawn."
    static let category = "obscurantism"
    static let words = ["quixotic", "zeppelin", "xylophonic", "pterodactyl", "obscurantism"]
  }

  /// A site with published reviews over two pages of the grid (two with pictures, one a
  /// favourite) and one draft, with a picture of its own, in a category of its own; the
  /// draft's id and its picture's SHA-256.
  static func siteWithADraft() throws -> (site: LiveSite, draft: String, picture: String) {
    // With a public address, so that the sitemap and the share previews are there to crawl.
    let site = try LiveSite(arguments: ["--public-url", publicURL]) { library in
      try library.addReview(
        "Arrival", rating: 5, category: "movie", body: "A linguist learns to think in circles.", favorite: true,
        pictures: [Fixture.image("baseline.jpg")])
      try library.addReview(
        "Celeste", rating: 4, category: "game", body: "A climb up a mountain.",
        pictures: [Fixture.image("webp-lossy.webp")])
    }
    for number in 1...50 {
      let added = try site.json(
        "POST", "/api/reviews", ["title": "Filler \(number)", "rating": 1, "category": "book", "body": "Pages."])
      try #require(added.status == 201, "\(added)")
    }
    let made = try site.json(
      "POST", "/api/reviews",
      [
        "title": Secret.title, "rating": 3, "category": Secret.category, "newCategory": true, "body": Secret.body,
        "draft": true,
      ])
    try #require(made.status == 201, "\(made)")
    let draft = try #require(try made.json()["id"] as? String)
    let attached = try site.upload("POST", "/api/reviews/\(draft)/images", [(Fixture.image("rgba-8.png"), "x.png")])
    try #require(attached.status == 201, "\(attached)")
    let images = try #require(try site.request("GET", "/api/reviews/\(draft)", signed: true).json()["images"])
    let picture = try #require((images as? [[String: Any]])?.first?["sha256"] as? String)
    return (site, draft, picture)
  }

  // MARK: A reader

  /// Every page, file and answer a reader can reach from the home page by following links
  /// (the filters' every choice, the pages, the reviews, their pictures, the API and the
  /// addresses its answers give) names nothing of the draft; its id, a prefix of it, and its
  /// address in the API are not found exactly as an id no review has.
  @Test func aReaderFindsNoTraceOfADraftAnywhere() throws {
    let (site, draft, picture) = try Self.siteWithADraft()
    let secrets = Secret.words + [draft, picture]
    let crawl = try Crawl(
      site: site, start: ["/", "/api/reviews", "/api/reviews?limit=500", "/?view=list", "/robots.txt", "/sitemap.xml"])
    #expect(crawl.visited.count > 60, "the crawl reached \(crawl.visited.count) addresses")
    let reviewerPage = "/reviewers/\(LiveSite.reviewer)"
    for expected in [
      "/?page=2", "/?category=game", "/?min=5", "/?favorites=1", "/?sort=title", reviewerPage, "/feed.atom",
      "/feed.json", "/categories/game/feed.json",
    ] {
      #expect(crawl.visited.contains(expected), "the crawl followed \(expected)")
    }
    #expect(crawl.visited.contains { $0.hasPrefix("/thumbnails/") }, "and the covers' thumbnails")
    #expect(crawl.visited.contains { $0.hasPrefix("/display/") }, "and the pictures shown on review pages")
    #expect(crawl.visited.contains { $0.hasPrefix("/api/reviews/") }, "and the reviews of the API")
    for (target, response) in crawl.responses {
      #expect(response.status < 500, "\(target): \(response.status)")
      let text = (response.text + "\n" + response.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
        .lowercased()
      for secret in secrets where text.contains(secret) {
        Issue.record("\(target) gives a reader “\(secret)” of the draft")
      }
    }

    // Asked outright, by a reader who knows the words: nothing found.
    let searched = try site.request("GET", "/?q=xylophonic")
    #expect(searched.text.contains("No review matches “xylophonic”"))
    for format in ["atom", "json"] {
      #expect(try site.request("GET", "/categories/\(Secret.category)/feed.\(format)").status == 404)
    }
    let category = try site.request("GET", "/?category=\(Secret.category)")
    #expect(category.text.contains("No review matches these filters"))
    #expect(PageText.cardTitles(category.text).isEmpty)
    for query in ["search=xylophonic", "search=quixotic", "category=\(Secret.category)"] {
      let listed = try site.request("GET", "/api/reviews?\(query)").json()
      #expect(listed["total"] as? Int == 0, "\(query)")
    }
    for answer in [searched, category] {
      #expect(!answer.text.contains(draft) && !answer.text.lowercased().contains("marmalade"))
    }

    // The draft's addresses are not found, in the words an address of no review gets.
    let others = try #require(try site.request("GET", "/api/reviews?limit=500").json()["reviews"] as? [[String: Any]])
    let ids = others.compactMap { $0["id"] as? String } + [draft]
    let random = Self.unusedID(among: ids)
    try Self.expectAlike(
      site.request("GET", "/reviews/\(draft)"), site.request("GET", "/reviews/\(random)"), draft, random)
    try Self.expectAlike(
      site.request("GET", "/api/reviews/\(draft)"), site.request("GET", "/api/reviews/\(random)"), draft, random)
    let length = (4...16).first { length in
      !ids.contains { $0 != draft && $0.hasPrefix(draft.prefix(length)) }
    }
    let prefix = String(draft.prefix(try #require(length)))
    let otherPrefix = String(random.prefix(prefix.count))
    try Self.expectAlike(
      site.request("GET", "/reviews/\(prefix)"), site.request("GET", "/reviews/\(otherPrefix)"), prefix, otherPrefix)
    #expect(try site.request("GET", "/reviews/\(draft)").status == 404)
    #expect(try site.request("GET", "/reviews/\(prefix)").status == 404)
    #expect(try site.request("GET", "/api/reviews/\(draft)").status == 404)

    // Drafts asked for by name: the sign-in first.
    let drafts = try site.request("GET", "/?show=drafts")
    #expect(drafts.status == 303)
    #expect(drafts.headers["Location"] == "/sign-in?next=/%3Fshow%3Ddrafts")
    for show in ["drafts", "all"] {
      let refused = try site.request("GET", "/api/reviews?show=\(show)")
      #expect(refused.status == 401, "show=\(show)")
      #expect(refused.errorMessage?.contains("only reviewers see") == true)
    }
    let published = try site.request("GET", "/api/reviews?show=published&limit=500").json()
    #expect(published["total"] as? Int == 52)
  }

  /// The same library as a signed-in reviewer sees it: the draft in the grid, the list and the
  /// API, marked "Draft", a filter for drafts alone; its page says that only reviewers see
  /// it. The reviewer's pages are never kept for readers, nor are readers' pages given to
  /// the reviewer.
  @Test func aReviewerSeesTheDraftMarked() throws {
    let (site, draft, _) = try Self.siteWithADraft()
    // A reader's home page first: kept, from now on, until the library changes.
    let before = try site.request("GET", "/")
    #expect(!before.text.contains(Secret.title))
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)

    let home = try browser.get("/")
    #expect(home.status == 200)
    #expect(home.headers["Cache-Control"] == "private, no-store")
    #expect(PageText.cardTitles(home.text).first == Secret.title, "the newest, a draft, comes first")
    let card = try #require(home.text.components(separatedBy: #"<li class="card">"#).first { $0.contains(draft) })
    #expect(card.contains(#"<p class="badges"><span class="badge draft">Draft</span></p>"#), "\(card)")
    #expect(PageText.classText("count", in: home.text) == "1–50 of 53 reviews")
    #expect(home.text.contains(#"<option value="obscurantism">Obscurantism</option>"#))
    #expect(
      home.text.contains(
        #"<label>Show <select name="show"><option value="" selected>Published and drafts</option>"#
          + #"<option value="drafts">Drafts only</option><option value="published">Published only</option>"#
          + "</select></label>"))
    let list = try browser.get("/?view=list")
    #expect(list.text.contains(#"\#(Secret.title)</a> <span class="badge draft">Draft</span></td>"#))

    let drafts = try browser.get("/?show=drafts")
    #expect(PageText.cardTitles(drafts.text) == [Secret.title])
    #expect(drafts.text.contains(#"<option value="drafts" selected>Drafts only</option>"#))
    #expect(drafts.text.contains("1 review"))
    let published = try browser.get("/?show=published&page=2")
    #expect(!published.text.contains(Secret.title))
    #expect(PageText.classText("count", in: published.text) == "51–52 of 52 reviews")
    #expect(published.text.contains(#"<a rel="prev" href="/?show=published">"#), "the pages keep the choice")
    #expect(try browser.get("/?show=everything").status == 400)

    let page = try browser.get("/reviews/\(draft)")
    #expect(page.status == 200)
    #expect(page.text.contains("<p><strong>Draft:</strong> only reviewers can see this review.</p>"))
    #expect(page.text.contains(#"<form method="post" action="/reviews/\#(draft)/publish">"#))
    #expect(page.text.contains("<h1>\(Secret.title)</h1>"))

    let api = try site.request("GET", "/api/reviews?show=drafts", signed: true).json()
    let listed = try #require(api["reviews"] as? [[String: Any]])
    #expect(listed.map { $0["id"] as? String } == [draft])
    #expect(listed.first?["draft"] as? Bool == true)
    #expect(listed.first?["published"] is NSNull)
    #expect(try site.request("GET", "/api/reviews?limit=500", signed: true).json()["total"] as? Int == 53)
    #expect(try site.request("GET", "/api/reviews?show=published", signed: true).json()["total"] as? Int == 52)
    let shown = try site.request("GET", "/api/reviews/\(draft)", signed: true)
    #expect(shown.status == 200)
    #expect(try shown.json()["draft"] as? Bool == true)

    // The reader's page was not given to the reviewer (above), and the reviewer's is not given
    // to the next reader.
    let after = try site.request("GET", "/")
    #expect(!after.text.contains(Secret.title))
    #expect(after.text == before.text)
  }

  // MARK: Publishing

  /// The review page's Publish button, and the edit page's Back to draft, change what readers
  /// see at once, their kept pages included.
  @Test func publishingFromThePagesChangesWhatReadersSee() throws {
    let site = try LiveSite { try $0.addReview("Arrival", body: "Circles.") }
    let made = try site.json(
      "POST", "/api/reviews", ["title": "Solaris", "rating": 4, "category": "book", "draft": true])
    let id = try #require(try made.json()["id"] as? String)
    let updated = try #require(try made.json()["updated"] as? String)
    let readerHome = { () throws -> String in try site.request("GET", "/").text }
    #expect(try !readerHome().contains("Solaris"))
    #expect(try site.request("GET", "/reviews/\(id)").status == 404)

    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    // A form without the session's token changes nothing.
    #expect(try browser.post("/reviews/\(id)/publish", csrf: false).status == 403)
    #expect(try site.library.show(id)["draft"] as? Bool == true)

    let publish = try browser.post("/reviews/\(id)/publish")
    #expect(publish.status == 303)
    #expect(publish.headers["Location"] == "/reviews/\(id)")
    let page = try browser.get("/reviews/\(id)")
    #expect(page.text.contains("Published: readers can see this review now."))
    #expect(!page.text.contains("only reviewers can see this review"))
    #expect(try readerHome().contains("Solaris"))
    #expect(try site.request("GET", "/reviews/\(id)").status == 200)
    #expect(try site.request("GET", "/api/reviews/\(id)").status == 200)
    var shown = try site.library.show(id)
    #expect(shown["draft"] as? Bool == false)
    #expect(shown["published"] is String)
    #expect(shown["updated"] as? String == updated, "publishing is not a change of the text")
    #expect(try browser.post("/reviews/\(id)/publish").status == 303)
    #expect(try browser.get("/reviews/\(id)").text.contains("This review was published already."))

    let editor = try browser.get("/reviews/\(id)/edit")
    #expect(editor.text.contains("<p><strong>Published:</strong> readers can see this review.</p>"))
    #expect(editor.text.contains(#"<form method="post" action="/reviews/\#(id)/unpublish">"#))
    #expect(editor.text.contains("<button>Back to draft</button>"))
    // A reader's page, kept, then the review taken back: the kept page is not given again.
    #expect(try readerHome().contains("Solaris"))
    let unpublish = try browser.post("/reviews/\(id)/unpublish")
    #expect(unpublish.headers["Location"] == "/reviews/\(id)")
    #expect(try browser.get("/reviews/\(id)").text.contains("Back to a draft: only reviewers can see this review now."))
    #expect(try !readerHome().contains("Solaris"))
    #expect(try site.request("GET", "/reviews/\(id)").status == 404)
    shown = try site.library.show(id)
    #expect(shown["draft"] as? Bool == true)
    #expect(shown["published"] is NSNull)
    let draftEditor = try browser.get("/reviews/\(id)/edit")
    #expect(draftEditor.text.contains(#"<form method="post" action="/reviews/\#(id)/publish">"#))
    #expect(try browser.post("/reviews/\(id)/unpublish").status == 303)
    #expect(try browser.get("/reviews/\(id)").text.contains("This review was a draft already."))
    // Readers cannot.
    #expect(try site.request("POST", "/reviews/\(id)/publish").status == 303)
    #expect(try site.library.show(id)["draft"] as? Bool == true)
  }

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

  // MARK: The editor

  /// A new review is published only by the Publish button; Save draft, or a form sent by no
  /// button, keeps it a draft. The spoiler box is saved, shown ticked, and cleared.
  @Test func theEditorSavesDraftsPublishesAndKeepsTheSpoilerBox() throws {
    let site = try LiveSite()
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    let form = try browser.get("/new").text
    #expect(
      form.contains(
        #"<p class="buttons"><button class="primary" name="publish" value="1">Publish</button> "#
          + #"<button name="publish" value="0">Save draft</button>"#))
    #expect(
      form.contains(
        #"<label class="check"><input type="checkbox" name="contains-spoilers" value="1"> "#
          + "Contains spoilers (readers are asked before the review is shown)</label>"))

    func add(_ title: String, _ extra: [(String, String)]) throws -> String {
      var new = Multipart()
      for (name, value) in [("title", title), ("rating", "4"), ("category", "movie"), ("body", "Text.")] + extra {
        new.add(field: name, value)
      }
      let created = try browser.upload("/new", new)
      #expect(created.status == 303, "\(created)")
      return String(try #require(created.headers["Location"]).dropFirst("/reviews/".count))
    }
    let saved = try add("Kept back", [("publish", "0")])
    #expect(try browser.get("/reviews/\(saved)").text.contains("Draft saved: only reviewers can see it until"))
    #expect(try site.library.show(saved)["draft"] as? Bool == true)
    let unsaid = try add("Sent by no button", [])
    #expect(try site.library.show(unsaid)["draft"] as? Bool == true)
    let out = try add("Out now", [("contains-spoilers", "1"), ("publish", "1")])
    #expect(try browser.get("/reviews/\(out)").text.contains("Review published."))
    var shown = try site.library.show(out)
    #expect(shown["draft"] as? Bool == false)
    #expect(shown["containsSpoilers"] as? Bool == true)
    #expect(try site.request("GET", "/reviews/\(out)").status == 200)
    #expect(try site.request("GET", "/reviews/\(saved)").status == 404)

    let editor = try browser.get("/reviews/\(out)/edit").text
    #expect(editor.contains(#"<input type="checkbox" name="contains-spoilers" value="1" checked>"#))
    #expect(!editor.contains(#"name="publish""#), "the edit form keeps the review as it stands")
    let cleared = try browser.post(
      "/reviews/\(out)/edit", EndToEndFormsTests.fields(of: editor, ["title": "Out now", "body": "Text."]))
    #expect(cleared.status == 303)
    shown = try site.library.show(out)
    #expect(shown["containsSpoilers"] as? Bool == false, "an unticked box clears the warning")
    #expect(shown["draft"] as? Bool == false, "saving leaves a published review published")
    let ticked = try browser.post(
      "/reviews/\(saved)/edit",
      EndToEndFormsTests.fields(of: try browser.get("/reviews/\(saved)/edit").text, ["title": "Kept back"])
        + [("contains-spoilers", "1")])
    #expect(ticked.status == 303)
    shown = try site.library.show(saved)
    #expect(shown["containsSpoilers"] as? Bool == true)
    #expect(shown["draft"] as? Bool == true, "saving leaves a draft a draft")
  }

  /// A new review's form sent after its session ended comes back with the spoiler box ticked
  /// and the button that was pressed said; an edit's, with the box as it was typed.
  @Test func aKeptFormCarriesTheSpoilerBoxAndTheButtonPressed() throws {
    let (site, browser, id) = try EndToEndFormsTests.site()
    let token = try #require(Browser.hiddenField("token", in: try browser.get("/new").text))
    let csrf = try #require(try browser.csrfToken())
    browser.plant("catalogue_session", "ended-long-ago")
    var new = Multipart()
    for (name, value) in [
      ("csrf", csrf), ("token", token), ("title", "Typed late"), ("rating", "2"), ("category", "movie"),
      ("body", "The twist."), ("contains-spoilers", "1"), ("publish", "1"),
    ] {
      new.add(field: name, value)
    }
    let sent = try browser.request(
      "POST", "/new", headers: [("Content-Type", new.contentType), ("Sec-Fetch-Site", "same-origin")], body: new.bytes)
    #expect(sent.status == 303)
    let location = try #require(sent.headers["Location"])
    #expect(location.hasPrefix("/sign-in?next=/new%3Fkept%3D"), "\(location)")
    let next = try #require(Browser.hiddenField("next", in: try browser.get(location).text))
    #expect(try browser.signIn(LiveSite.reviewer, LiveSite.password, next: next).headers["Location"] == next)
    let page = try browser.get(next).text
    #expect(page.contains(#"value="Typed late""#))
    #expect(page.contains(#"<input type="checkbox" name="contains-spoilers" value="1" checked>"#))
    #expect(page.contains("What you typed is below: check it, then publish it."))

    let editor = try browser.get("/reviews/\(id)/edit").text
    let editCSRF = try #require(try browser.csrfToken())
    browser.plant("catalogue_session", "ended-long-ago")
    let edited = try browser.post(
      "/reviews/\(id)/edit",
      EndToEndFormsTests.fields(of: editor, [:]) + [("contains-spoilers", "1"), ("csrf", editCSRF)], csrf: false,
      headers: [("Sec-Fetch-Site", "same-origin")])
    let signInPage = try browser.get(try #require(edited.headers["Location"]))
    let editNext = try #require(Browser.hiddenField("next", in: signInPage.text))
    _ = try browser.signIn(LiveSite.reviewer, LiveSite.password, next: editNext)
    let kept = try browser.get(editNext).text
    #expect(kept.contains(#"<input type="checkbox" name="contains-spoilers" value="1" checked>"#))
    #expect(kept.contains("check it, then save it."))
    #expect(
      try site.library.show(id)["containsSpoilers"] as? Bool == false, "nothing saved before the reviewer says so")
  }

  // MARK: Preview as a reader

  /// A reviewer sees a review, a draft too, exactly as a reader would: no reviewer's links or
  /// notices, the header of someone not signed in, a banner that says it is a preview.
  @Test func aReviewerPreviewsAReviewAsAReader() throws {
    var published = ""
    let site = try LiveSite { published = try $0.addReview("Arrival", body: "Circles.") }
    let draft = try #require(
      try site.json("POST", "/api/reviews", ["title": "Solaris", "rating": 4, "category": "book", "draft": true])
        .json()["id"] as? String)
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    let own = try browser.get("/reviews/\(published)").text
    #expect(own.contains(#"<a class="button" href="/reviews/\#(published)?preview=reader">Preview as a reader</a>"#))

    let preview = try browser.get("/reviews/\(draft)?preview=reader")
    #expect(preview.status == 200)
    #expect(preview.headers["Cache-Control"] == "private, no-store")
    #expect(
      preview.text.contains(
        #"<p class="preview-banner" role="note"><strong>Preview:</strong> readers will see this review once it is "#
          + #"published. <a href="/reviews/\#(draft)">Back to the reviewer’s view</a></p>"#))
    for reviewers in ["only reviewers can see", "/edit", "/delete", "/publish", "Signed in as", "New review"] {
      #expect(!preview.text.contains(reviewers), "\(reviewers) in a preview")
    }
    #expect(preview.text.contains(#"<a href="/sign-in">Sign in</a>"#))
    let previewPublished = try browser.get("/reviews/\(published)?preview=reader").text
    #expect(previewPublished.contains("<strong>Preview:</strong> this is what readers see."))
    // The page without the banner and the header is the reader's own.
    let reader = try site.request("GET", "/reviews/\(published)").text
    let article = { (page: String) -> Substring? in
      guard let start = page.range(of: "<article"), let end = page.range(of: "</article>") else { return nil }
      return page[start.lowerBound..<end.upperBound]
    }
    #expect(article(previewPublished) != nil && article(previewPublished) == article(reader))
    #expect(
      try browser.get("/reviews/\(draft.prefix(8))?preview=reader").headers["Location"]
        == "/reviews/\(draft)?preview=reader")

    #expect(try site.request("GET", "/reviews/\(draft)?preview=reader").status == 404)
    let readers = try site.request("GET", "/reviews/\(published)?preview=reader")
    #expect(readers.status == 200)
    #expect(!readers.text.contains("preview-banner"), "a reader's page is what it previews")
    #expect(try browser.get("/reviews/\(published)?preview=author").status == 400)
  }

  // MARK: Helpers

  /// An id of 16 hexadecimal digits no review has, nor starts like.
  static func unusedID(among ids: [String]) -> String {
    while true {
      let id = (0..<16).map { _ in String(Int.random(in: 0..<16), radix: 16) }.joined()
      if !ids.contains(where: { $0.hasPrefix(id.prefix(4)) }) { return id }
    }
  }

  /// Records an issue unless `a` (about `aName`) and `b` (about `bName`) are the same answer:
  /// status, headers (but the date) and body, each name in its place.
  static func expectAlike(
    _ a: Response, _ b: Response, _ aName: String, _ bName: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(a.status == b.status, "\(aName): \(a.status), \(bName): \(b.status)", sourceLocation: sourceLocation)
    let headers = { (response: Response, name: String) -> [String] in
      response.headers.filter { $0.name.lowercased() != "date" }.map {
        "\($0.name.lowercased()): \($0.value.replacingOccurrences(of: name, with: "ID"))"
      }
    }
    #expect(headers(a, aName) == headers(b, bName), sourceLocation: sourceLocation)
    #expect(
      a.text.replacingOccurrences(of: aName, with: "ID") == b.text.replacingOccurrences(of: bName, with: "ID"),
      sourceLocation: sourceLocation)
  }
}

/// What a reader reaches by following every link from some addresses, GET only, on the site's
/// own host: `href`, `src` and `srcset` in pages, every choice of the filters' selects, the
/// addresses in the API's JSON, and redirects.
struct Crawl {
  private(set) var visited: [String] = []
  private(set) var responses: [(target: String, response: Response)] = []

  init(site: LiveSite, start: [String], limit: Int = 600) throws {
    var queue = start
    var seen = Set(start)
    while !queue.isEmpty && visited.count < limit {
      let target = queue.removeFirst()
      let response = try site.request("GET", target)
      visited.append(target)
      responses.append((target, response))
      for link in Self.links(in: response) where !seen.contains(link) {
        seen.insert(link)
        queue.append(link)
      }
    }
  }

  /// The site's addresses an answer names.
  static func links(in response: Response) -> [String] {
    var found: [String] = []
    if let location = response.headers["Location"] { found.append(location) }
    let type = response.headers["Content-Type"] ?? ""
    let text = response.text
    if type.hasPrefix("text/html") {
      for attribute in ["href", "src"] {
        found += values(of: attribute, in: text)
      }
      for srcset in values(of: "srcset", in: text) {
        found += srcset.split(separator: ",").compactMap { $0.split(separator: " ").first.map(String.init) }
      }
      found += filterChoices(in: text)
    } else if type.hasPrefix("application/xml") || type.hasPrefix("application/atom+xml")
      || type.hasPrefix("text/plain")
    {
      // The sitemap's and the feeds' addresses, and the sitemap robots.txt names.
      for (open, close) in [("<loc>", "<"), (#"href=""#, "\""), ("Sitemap: ", "\n")] {
        for part in text.components(separatedBy: open).dropFirst() {
          if let end = part.firstIndex(where: { String($0) == close }) { found.append(String(part[..<end])) }
        }
      }
    } else if type.hasPrefix("application/json") || type.hasPrefix("application/feed+json") {
      var rest = text[...]
      while let start = rest.range(of: #""/"#) {
        let value = rest[rest.index(before: start.upperBound)...]
        guard let end = value.firstIndex(of: "\"") else { break }
        found.append(String(value[..<end]))
        rest = value[end...]
      }
      // Each review a list names, at its own address.
      for part in text.components(separatedBy: #""id":""#).dropFirst() {
        if let end = part.firstIndex(of: "\"") { found.append("/api/reviews/" + part[..<end]) }
      }
    }
    return found.compactMap { link in
      let site = EndToEndDraftsTests.publicURL
      let local = link.hasPrefix(site + "/") ? String(link.dropFirst(site.count)) : link
      let path = String(local.prefix { $0 != "#" })
      guard path.hasPrefix("/"), !path.hasPrefix("//") else { return nil }
      return path
    }
  }

  /// Every value of `attribute` in `html`, its escapes undone.
  static func values(of attribute: String, in html: String) -> [String] {
    html.components(separatedBy: " \(attribute)=\"").dropFirst().compactMap { part in
      part.firstIndex(of: "\"").map { PageText.unescape(String(part[..<$0])) }
    }
  }

  /// `/?NAME=VALUE` for every option of every select of the page's GET forms to `/`.
  static func filterChoices(in html: String) -> [String] {
    var found: [String] = []
    for select in html.components(separatedBy: #"<select name=""#).dropFirst() {
      guard let nameEnd = select.firstIndex(of: "\""), let end = select.range(of: "</select>") else { continue }
      let name = select[..<nameEnd]
      for option in values(of: "value", in: "<" + select[..<end.lowerBound]) where !option.isEmpty {
        found.append("/?\(name)=\(option.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? option)")
      }
    }
    return found + ["/?favorites=1"]
  }
}
