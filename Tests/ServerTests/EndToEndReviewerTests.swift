import HTTPTestSupport
import Foundation
import HTTP
import ImagePipeline
import Testing
import TestSupport

/// A reviewer's pages, through the built server as a browser uses them: sign in, add a review
/// with pictures, edit it, arrange its pictures, delete it.
@Suite("A reviewer writes through the pages")
struct EndToEndReviewerTests {
  /// A browser sends an unused file input as a part with an empty file name and no bytes: the
  /// review is added without pictures, not refused as an unsupported picture.
  @Test func aReviewWithoutPicturesIsAddedFromTheForm() throws {
    let site = try LiveSite()
    let browser = Browser(site.server)
    _ = try browser.signIn(LiveSite.reviewer, LiveSite.password, next: "/new")
    var new = Multipart()
    for (name, value) in [("title", "Outer Wilds"), ("rating", "5"), ("category", "game"), ("body", "A loop.")] {
      new.add(field: name, value)
    }
    new.add(file: "file", filename: "", [], contentType: "application/octet-stream")
    let created = try browser.upload("/new", new)
    #expect(created.status == 303, "\(created)")
    let location = try #require(created.headers["Location"])
    let id = String(location.dropFirst("/reviews/".count).prefix { $0 != "?" })
    let review = try site.library.show(id)
    #expect(review["title"] as? String == "Outer Wilds")
    #expect((review["images"] as? [[String: Any]])?.isEmpty == true)
    // On the edit page, an empty upload adds nothing and says so, rather than failing.
    var nothing = Multipart()
    nothing.add(file: "file", filename: "", [], contentType: "application/octet-stream")
    let uploaded = try browser.upload("/reviews/\(id)/images", nothing)
    #expect(uploaded.status == 400, "\(uploaded)")
    #expect(uploaded.text.contains("choose at least one picture to upload"))
    #expect((try site.library.show(id)["images"] as? [[String: Any]])?.isEmpty == true)
    #expect(try site.library.run(["check"]).status == 0)
  }

  @Test func aReviewerAddsEditsIllustratesAndDeletesAReview() throws {
    let site = try LiveSite()
    let browser = Browser(site.server)
    // Not signed in: the editor's pages send the reader to the sign-in form, and back after.
    let refused = try browser.get("/new")
    #expect(refused.status == 303)
    #expect(refused.headers["Location"] == "/sign-in?next=/new")
    let signedIn = try browser.signIn(LiveSite.reviewer, LiveSite.password, next: "/new")
    #expect(signedIn.headers["Location"] == "/new")

    let form = try browser.get("/new")
    #expect(form.status == 200)
    #expect(form.text.contains(#"enctype="multipart/form-data""#))
    // Kept by this browser alone, for Back (its token must come back with it), never by a proxy.
    #expect(form.headers["Cache-Control"] == "private, no-cache")
    #expect(form.headers["Vary"] == "Cookie")
    #expect(Browser.hiddenField("csrf", in: form.text, after: #"<form class="editor""#) == (try browser.csrfToken()))

    var new = Multipart()
    for (name, value) in [
      ("title", "Arrival"), ("rating", "5"), ("category", "movie"), ("favorite", "1"),
      ("body", "Heptapods *write* in circles."), ("publish", "1"),
    ] {
      new.add(field: name, value)
    }
    new.add(
      file: "file", filename: "poster.jpg", try Fixture.bytes(Fixture.image("baseline.jpg")), contentType: "image/jpeg")
    new.add(
      file: "file", filename: "IMG_0001.HEIC", try Fixture.bytes(Fixture.image("heic-8bit.heic")),
      contentType: "image/heic")
    let created = try browser.upload("/new", new)
    #expect(created.status == 303, "\(created)")
    let location = try #require(created.headers["Location"])
    #expect(!location.contains("?"), "no notice rides in the address: \(location)")
    let id = String(location.dropFirst("/reviews/".count))
    let page = try browser.get(location)
    #expect(page.text.contains("Review published."))
    #expect(page.headers["Cache-Control"] == "private, no-store")
    // Said once: a reload does not say it again.
    #expect(!(try browser.get(location)).text.contains("Review published."))
    #expect(try site.request("GET", location).status == 200, "published: a reader sees it")
    #expect(page.text.contains("<h1>Arrival</h1>"))
    #expect(page.text.contains("<em>write</em>"), "the body is Markdown")
    #expect(page.text.contains(#"By <a href="/reviewers/\#(LiveSite.reviewer)">\#(LiveSite.reviewer)</a>"#))
    let shown = PageText.attributes("src", startingWith: "/display/", in: page.text)
    #expect(shown.count == 2)
    for url in shown {
      let picture = try site.request("GET", url)
      #expect(picture.status == 200)
      #expect(try ImagePipeline.readHeader(picture.body).format == .jpeg, "the HEIC too is shown as a JPEG")
    }
    var review = try site.library.show(id)
    #expect(review["createdBy"] as? String == LiveSite.reviewer)
    #expect(review["favorite"] as? Bool == true)
    #expect((review["images"] as? [[String: Any]])?.map { $0["format"] as? String } == ["jpeg", "heic"])

    // Editing: what is typed wrong comes back with the reason and the typing kept.
    let editor = try browser.get("/reviews/\(id)/edit")
    #expect(editor.status == 200)
    #expect(editor.text.contains(#"value="Arrival""#))
    // Every form that posts carries the session's token.
    let token = try #require(try browser.csrfToken())
    let posting = editor.text.components(separatedBy: "<form").dropFirst().filter { $0.hasPrefix(#" method="post""#) }
    #expect(posting.count >= 8, "fields, sign-out, cover, move, detach, replace ×2, upload")
    for form in posting {
      #expect(form.contains(#"<input type="hidden" name="csrf" value="\#(token)">"#), "\(form.prefix(120))")
    }
    let fields = [("title", "Arrival (2016)"), ("category", "movie"), ("body", "Heptapods.")]
    let wrong = try browser.post("/reviews/\(id)/edit", fields + [("rating", "nine")])
    #expect(wrong.status == 400)
    #expect(wrong.text.contains(PageText.escape(#"rating "nine" is not a whole number of stars (0 to 5)"#)))
    #expect(wrong.text.contains(#"value="Arrival (2016)""#))
    #expect(try site.library.show(id)["title"] as? String == "Arrival")
    let saved = try browser.post("/reviews/\(id)/edit", fields + [("rating", "4")])
    #expect(saved.status == 303)
    #expect(saved.headers["Location"] == "/reviews/\(id)")
    #expect(try browser.get("/reviews/\(id)").text.contains("Saved."))
    review = try site.library.show(id)
    #expect(review["title"] as? String == "Arrival (2016)")
    #expect(review["rating"] as? Int == 4)
    #expect(review["favorite"] as? Bool == false, "an unticked box is no favourite")
    #expect(review["updatedBy"] as? String == LiveSite.reviewer)

    // The pictures: a cover, an order, a replacement, one fewer.
    #expect(try browser.post("/reviews/\(id)/images/2/cover").headers["Location"] == "/reviews/\(id)/edit")
    #expect(try browser.get("/reviews/\(id)/edit").text.contains("Cover changed."))
    #expect(try browser.post("/reviews/\(id)/images/2/move", [("to", "1")]).status == 303)
    let replacement = Multipart(files: [("new.png", try Fixture.bytes(Fixture.image("srgb.png")))])
    #expect(try browser.upload("/reviews/\(id)/images/2/replace", replacement).status == 303)
    let more = Multipart(files: [("more.webp", try Fixture.bytes(Fixture.image("webp-lossy.webp")))])
    #expect(
      try browser.upload("/reviews/\(id)/images", more).headers["Location"] == "/reviews/\(id)/edit")
    #expect(try browser.post("/reviews/\(id)/images/1/detach").status == 303)
    review = try site.library.show(id)
    let images = try #require(review["images"] as? [[String: Any]])
    #expect(images.map { $0["format"] as? String } == ["png", "webp"])
    #expect(try site.library.run("check").status == 0)

    // Deleting asks first.
    let ask = try browser.get("/reviews/\(id)/delete")
    #expect(ask.status == 200)
    #expect(ask.text.contains("The review and its 2 pictures will be deleted for good."))
    let deleted = try browser.post("/reviews/\(id)/delete")
    #expect(deleted.headers["Location"] == "/")
    #expect(try browser.get("/").text.contains("“Arrival (2016)” deleted."))
    #expect(try site.request("GET", "/reviews/\(id)").status == 404)
    #expect(site.library.files(in: "originals").isEmpty)
    #expect(site.library.files(in: "thumbnails").isEmpty, "the display renditions went with their pictures")
  }

  /// A new review with one picture that cannot be used is not added at all, as `catalogue add`
  /// does; the form comes back filled in.
  @Test func aNewReviewWithARefusedPictureAddsNothing() throws {
    // A library with pictures already: its stores and lock exist, as after any import.
    let site = try LiveSite { try $0.addReview("Existing", pictures: [Fixture.image("srgb.png")]) }
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    let before = try site.library.snapshot()
    var new = Multipart()
    for (name, value) in [("title", "Broken"), ("rating", "2"), ("category", "movie"), ("body", "Kept as typed.")] {
      new.add(field: name, value)
    }
    new.add(file: "file", filename: "good.jpg", try Fixture.bytes(Fixture.image("baseline.jpg")))
    new.add(file: "file", filename: "cut.jpg", try Fixture.bytes(Fixture.hostile("truncated-baseline.jpg")))
    let answer = try browser.upload("/new", new)
    #expect(answer.status == 400)
    #expect(answer.text.contains("cut.jpg: truncated JPEG: the file ends before its image data does"))
    #expect(answer.text.contains(#"value="Broken""#))
    #expect(answer.text.contains("Kept as typed."))
    try site.library.expectUnchanged(since: before)
  }

  /// A session that has run out sends the reviewer to sign in again, saying so, and back to
  /// the page after.
  @Test func anExpiredSessionAsksToSignInAgain() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Arrival") }
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    try site.library.sql("UPDATE sessions SET expires = '2001-01-01T00:00:00.000Z'")

    let page = try browser.get("/reviews/\(id)/edit")
    #expect(page.status == 303)
    #expect(page.headers["Location"] == "/sign-in?next=/reviews/\(id)/edit&expired=1")
    #expect(browser.cookies["catalogue_session"] == nil, "the dead cookie is cleared")
    let form = try browser.get(try #require(page.headers["Location"]))
    #expect(form.text.contains("Your session has ended: sign in again to go on"))
    #expect(try site.request("GET", "/api/session", headers: [("Cookie", "catalogue_session=x")]).status == 401)

    // A form posted with the dead session goes back to the page it was on, once signed in.
    let old = try #require(
      try site.json(
        "POST", "/api/session", ["name": LiveSite.reviewer, "password": LiveSite.password], signed: false
      ).cookie("catalogue_session"))
    try site.library.sql("UPDATE sessions SET expires = '2001-01-01T00:00:00.000Z'")
    let posted = try site.request(
      "POST", "/reviews/\(id)/edit",
      headers: [
        ("Cookie", "catalogue_session=\(old)"), ("Content-Type", "application/x-www-form-urlencoded"),
        ("Referer", "http://127.0.0.1/reviews/\(id)/edit"),
      ],
      body: Array("title=Late&rating=1&category=movie".utf8))
    #expect(posted.status == 303)
    #expect(posted.headers["Location"] == "/sign-in?next=/reviews/\(id)/edit&expired=1")
    #expect(try site.library.show(id)["title"] as? String == "Arrival")
  }
}
