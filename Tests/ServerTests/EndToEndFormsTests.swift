import HTTPTestSupport
import Foundation
import HTTP
import Synchronization
import Testing
import TestSupport

/// What a reviewer types in the pages is never lost and never saved twice: a stale form meets
/// the change it would overwrite, a form sent twice adds one review, a form whose session ended
/// comes back after the sign-in, and no notice stays in an address.
@Suite("Nothing typed is lost")
struct EndToEndFormsTests {
  /// A signed-in browser on a site with one review; its id.
  static func site() throws -> (LiveSite, Browser, String) {
    let site = try LiveSite()
    let id = try site.library.addReview("Arrival", rating: 4, category: "movie", body: "Heptapods.")
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    return (site, browser, id)
  }

  /// The fields of the edit form as the page gives them (hidden ones included), with `changes`.
  static func fields(of page: String, _ changes: [String: String]) -> [(String, String)] {
    var fields: [(String, String)] = []
    for name in ["version", "token", "kept"] {
      if let value = Browser.hiddenField(name, in: page, after: #"<form class="editor""#) {
        fields.append((name, value))
      }
    }
    let typed = ["title": "Arrival", "rating": "4", "category": "movie", "body": "Heptapods."]
      .merging(changes) { $1 }
    return fields + typed.sorted { $0.key < $1.key }
  }

  @Test func aStaleFormMeetsTheChangeItWouldOverwrite() throws {
    let (site, browser, id) = try Self.site()
    let page = try browser.get("/reviews/\(id)/edit").text
    // Another tab (or reviewer) saves first.
    let other = try browser.post(
      "/reviews/\(id)/edit", Self.fields(of: page, ["body": "Heptapods write in circles."]))
    #expect(other.status == 303)
    // The first tab's form, opened before that change, is not saved over it.
    let stale = try browser.post("/reviews/\(id)/edit", Self.fields(of: page, ["title": "Arrival (2016)"]))
    #expect(stale.status == 409, "\(stale.text)")
    #expect(stale.text.contains("was changed while you were editing"))
    #expect(stale.text.contains("Heptapods write in circles."), "the version saved now is shown")
    #expect(stale.text.contains(#"value="Arrival (2016)""#), "what was typed is in the form again")
    #expect(stale.text.contains(#"<dt>Title <strong class="differs">(differs)</strong></dt>"#))
    var review = try site.library.show(id)
    #expect(review["title"] as? String == "Arrival")
    #expect(review["body"] as? String == "Heptapods write in circles.")
    // Saved from the conflict page, knowingly: the form now carries the version it showed.
    let again = try browser.post(
      "/reviews/\(id)/edit", Self.fields(of: stale.text, ["title": "Arrival (2016)", "body": "Mine."]))
    #expect(again.status == 303, "\(again.text)")
    review = try site.library.show(id)
    #expect(review["title"] as? String == "Arrival (2016)")
    #expect(review["body"] as? String == "Mine.")
  }

  /// An upload where some pictures are refused: the result is reached by a redirect (a reload
  /// uploads nothing again), and the page says what was added and what was not, once.
  @Test func anUploadsResultIsReachedByARedirect() throws {
    let (site, browser, id) = try Self.site()
    let pictures = Multipart(files: [
      ("poster.jpg", try Fixture.bytes(Fixture.image("baseline.jpg"))), ("notes.jpg", Array("not a picture".utf8)),
    ])
    let sent = try browser.upload("/reviews/\(id)/images", pictures)
    #expect(sent.status == 303)
    #expect(sent.headers["Location"] == "/reviews/\(id)/edit")
    let page = try browser.get("/reviews/\(id)/edit")
    #expect(page.text.contains("1 picture added."))
    #expect(page.text.contains("notes.jpg"))
    #expect(page.text.contains(#"role="status" tabindex="-1" autofocus"#), "the focus goes to the result")
    #expect(!(try browser.get("/reviews/\(id)/edit")).text.contains("1 picture added."))
    #expect((try site.library.show(id)["images"] as? [[String: Any]])?.count == 1)
  }

  /// A category that looks like a typo is said in the page's own terms (no command-line flag),
  /// with the focus on the field; ticking the box saves it.
  @Test func aCategoryThatLooksLikeATypoIsSaidInThePagesTerms() throws {
    let (site, browser, id) = try Self.site()
    let page = try browser.get("/reviews/\(id)/edit").text
    let typo = try browser.post("/reviews/\(id)/edit", Self.fields(of: page, ["category": "moive"]))
    #expect(typo.status == 400)
    #expect(
      typo.text.contains(
        "category moive is new to this library: did you mean movie? To add moive as a category of its own, tick "))
    #expect(!typo.text.contains("--new-category"))
    #expect(
      typo.text.contains(#"list="categories" required aria-invalid="true" aria-describedby="problems" autofocus"#))
    let meant = try browser.post(
      "/reviews/\(id)/edit", Self.fields(of: page, ["category": "moive", "new-category": "1"]))
    #expect(meant.status == 303)
    #expect(try site.library.show(id)["category"] as? String == "moive")
  }

  @Test func aStaleFormSentBackUnchangedLeavesTheChangeMadeMeanwhile() throws {
    let (site, browser, id) = try Self.site()
    let page = try browser.get("/reviews/\(id)/edit").text
    #expect(try browser.post("/reviews/\(id)/edit", Self.fields(of: page, ["rating": "2"])).status == 303)
    // Back, then Save without touching a field: nothing of this form's to save.
    #expect(try browser.post("/reviews/\(id)/edit", Self.fields(of: page, [:])).status == 303)
    #expect(try site.library.show(id)["rating"] as? Int == 2)
  }

  @Test func aNewReviewFormSentTwiceAddsOneReview() throws {
    let site = try LiveSite()
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    let page = try browser.get("/new").text
    let token = try #require(Browser.hiddenField("token", in: page, after: #"<form class="editor""#))
    #expect(token.count == 43)
    var form = Multipart()
    for (name, value) in [
      ("token", token), ("title", "Outer Wilds"), ("rating", "5"), ("category", "game"), ("publish", "1"),
    ] {
      form.add(field: name, value)
    }
    let first = try browser.upload("/new", form)
    #expect(first.status == 303)
    // Back, then Add again; and a double click, the two at once.
    let second = try browser.upload("/new", form)
    #expect(second.status == 303)
    #expect(second.headers["Location"] == first.headers["Location"])
    #expect(try browser.get(second.headers["Location"] ?? "/").text.contains("This review was added already"))
    var twice = form
    twice.parts.insert(Multipart.Part(name: "csrf", bytes: Array((try browser.csrfToken() ?? "").utf8)), at: 0)
    let (body, type) = (twice.bytes, twice.contentType)
    let cookie = "catalogue_session=\(browser.cookies["catalogue_session"]?.value ?? "")"
    let port = site.port
    let locations = Mutex<[String?]>([])
    onThreads(2) { _ in
      let answer = try? HTTPClient(port: port).request(
        "POST", "/new", headers: [("Content-Type", type), ("Cookie", cookie)], body: body)
      locations.withLock { $0.append(answer?.headers["Location"]) }
    }.wait()
    #expect(locations.withLock { $0 } == [first.headers["Location"], first.headers["Location"]])
    let listed = try site.library.run("--json", "list").json()
    #expect((listed["reviews"] as? [[String: Any]])?.count == 1)
    // A form with a problem is sent again once fixed, with the same token: it adds the review.
    let other = try browser.get("/new").text
    let otherToken = try #require(Browser.hiddenField("token", in: other, after: #"<form class="editor""#))
    #expect(otherToken != token, "each form its own token")
    var wrong = Multipart()
    for (name, value) in [("token", otherToken), ("title", ""), ("rating", "5"), ("category", "game")] {
      wrong.add(field: name, value)
    }
    let refused = try browser.upload("/new", wrong)
    #expect(refused.status == 400)
    #expect(refused.text.contains(#"name="title" value="" maxlength="300" required aria-invalid="true""#))
    #expect(refused.text.contains("autofocus"), "the focus goes to the field at fault")
    var fixed = Multipart()
    for (name, value) in [
      ("token", otherToken), ("title", "Tunic"), ("rating", "5"), ("category", "game"), ("publish", "1"),
    ] {
      fixed.add(field: name, value)
    }
    #expect(try browser.upload("/new", fixed).status == 303)
    #expect(((try site.library.run("--json", "list").json())["reviews"] as? [[String: Any]])?.count == 2)
  }

  @Test func aFormWhoseSessionEndedComesBackAfterTheSignIn() throws {
    let (site, browser, id) = try Self.site()
    let page = try browser.get("/reviews/\(id)/edit").text
    let token = try #require(try browser.csrfToken())
    // The session ends on the server while the reviewer types.
    browser.plant("catalogue_session", "ended-long-ago")
    let typed = Self.fields(of: page, ["body": "A long review, typed for an hour."]) + [("csrf", token)]
    // Sent from the site's own page: a form another site sends is never kept for a reviewer.
    let fromAnotherSite = try browser.post(
      "/reviews/\(id)/edit", typed, csrf: false, headers: [("Origin", "https://elsewhere.example")])
    #expect(fromAnotherSite.status == 303)
    #expect(fromAnotherSite.headers["Location"]?.contains("kept") == false, "\(fromAnotherSite.headers)")
    browser.plant("catalogue_session", "ended-long-ago")
    let sent = try browser.post("/reviews/\(id)/edit", typed, csrf: false, headers: [("Sec-Fetch-Site", "same-origin")])
    #expect(sent.status == 303)
    let location = try #require(sent.headers["Location"])
    #expect(location.hasPrefix("/sign-in?next=/reviews/\(id)/edit%3Fkept%3D"), "\(location)")
    #expect(location.hasSuffix("&expired=1"))
    let signIn = try browser.get(location)
    #expect(signIn.text.contains("what you typed comes back to its form"))
    let next = try #require(Browser.hiddenField("next", in: signIn.text))
    let back = try browser.signIn(LiveSite.reviewer, LiveSite.password, next: next)
    #expect(back.headers["Location"] == next)
    let form = try browser.get(next)
    #expect(form.status == 200)
    #expect(form.text.contains("A long review, typed for an hour."))
    #expect(form.text.contains("Your session had ended, so nothing was saved."))
    #expect(try site.library.show(id)["body"] as? String == "Heptapods.", "nothing saved before the reviewer says so")
    #expect(
      try browser.post("/reviews/\(id)/edit", Self.fields(of: form.text, ["body": "A long review, typed for an hour."]))
        .status == 303)
    #expect(try site.library.show(id)["body"] as? String == "A long review, typed for an hour.")
  }

  /// A picture's description typed while the session ended comes back in that picture's form
  /// on the edit page after the sign-in, the review's fields as saved; nothing is saved before
  /// the reviewer sends it again.
  @Test func aPicturesDescriptionWhoseSessionEndedComesBackAfterTheSignIn() throws {
    let site = try LiveSite()
    let id = try site.library.addReview(
      "Arrival", rating: 4, category: "movie", body: "Heptapods.",
      pictures: [Fixture.image("baseline.jpg"), Fixture.image("rgb-8.png")])
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    _ = try browser.get("/reviews/\(id)/edit")
    let token = try #require(try browser.csrfToken())
    browser.plant("catalogue_session", "ended-long-ago")
    let typed = [
      ("alt", "A gate of light over a dark plain"), ("caption", "The first contact,\nat dawn"), ("csrf", token),
    ]
    let sent = try browser.post(
      "/reviews/\(id)/images/2/describe", typed, csrf: false, headers: [("Sec-Fetch-Site", "same-origin")])
    #expect(sent.status == 303)
    let location = try #require(sent.headers["Location"])
    #expect(location.hasPrefix("/sign-in?next=/reviews/\(id)/edit%3Fkept%3D"), "\(location)")
    let signIn = try browser.get(location)
    let next = try #require(Browser.hiddenField("next", in: signIn.text))
    #expect(try browser.signIn(LiveSite.reviewer, LiveSite.password, next: next).headers["Location"] == next)
    let page = try browser.get(next)
    #expect(page.status == 200)
    #expect(page.text.contains("Your session had ended, so picture 2’s description was not saved."))
    // In picture 2's form, not picture 1's; the review's fields as saved.
    let second = try #require(page.text.range(of: "Description of picture 2"))
    let first = try #require(page.text.range(of: "Description of picture 1"))
    #expect(page.text[second.upperBound...].prefix(200).contains(#"value="A gate of light over a dark plain""#))
    #expect(page.text[first.upperBound...].prefix(80).contains(#"name="alt" value="""#))
    #expect(page.text.contains("The first contact,\nat dawn</textarea>"))
    #expect(page.text.contains(#"name="title" value="Arrival""#))
    let images = { () throws -> [[String: Any]] in try site.library.show(id)["images"] as? [[String: Any]] ?? [] }
    #expect(try images().allSatisfy { $0["alt"] is NSNull }, "nothing saved before the reviewer says so")
    // Sent again from the page (its form carries the kept form's id, and no other picture's
    // does): saved, and the kept form forgotten.
    let kept = try #require(next.components(separatedBy: "kept=").last)
    #expect(page.text.components(separatedBy: #"name="kept" value="\#(kept)""#).count == 2)
    let again = try browser.post(
      "/reviews/\(id)/images/2/describe",
      [("alt", "A gate of light over a dark plain"), ("caption", "The first contact,\nat dawn"), ("kept", kept)])
    #expect(again.status == 303)
    #expect(try images()[1]["alt"] as? String == "A gate of light over a dark plain")
    let after = try browser.get(next)
    #expect(!after.text.contains("was not saved"), "the kept form is forgotten once saved")
  }

  /// A kept description whose picture was removed meanwhile has no form to go back to: the
  /// edit page says what was typed, rather than dropping it.
  @Test func aKeptDescriptionOfAPictureRemovedMeanwhileIsSaidNotDropped() throws {
    let site = try LiveSite()
    let id = try site.library.addReview(
      "Arrival", rating: 4, category: "movie", body: "Heptapods.",
      pictures: [Fixture.image("baseline.jpg"), Fixture.image("rgb-8.png")])
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    _ = try browser.get("/reviews/\(id)/edit")
    let token = try #require(try browser.csrfToken())
    browser.plant("catalogue_session", "ended-long-ago")
    let sent = try browser.post(
      "/reviews/\(id)/images/2/describe", [("alt", "A gate of light"), ("caption", ""), ("csrf", token)],
      csrf: false, headers: [("Sec-Fetch-Site", "same-origin")])
    let location = try #require(sent.headers["Location"])
    let next = try #require(Browser.hiddenField("next", in: try browser.get(location).text))
    #expect(try site.library.run("detach", id, "2").status == 0)
    _ = try browser.signIn(LiveSite.reviewer, LiveSite.password, next: next)
    let page = try browser.get(next)
    #expect(page.status == 200)
    #expect(
      page.text.contains(
        "Your session had ended, so the description of picture 2 was not saved, and that picture is no longer in "
          + "this review. What you typed: description “A gate of light”."), "\(page.text)")
  }

  @Test func aFormOlderThanTheLastSignInIsKeptNotDropped() throws {
    let (site, browser, id) = try Self.site()
    let page = try browser.get("/reviews/\(id)/edit").text
    let old = try #require(Browser.hiddenField("csrf", in: page, after: #"<form class="editor""#))
    // Signed out and in again in another tab: the form's token is the old session's.
    #expect(try browser.post("/sign-out").status == 303)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    let sent = try browser.post(
      "/reviews/\(id)/edit", Self.fields(of: page, ["title": "Arrival, again"]) + [("csrf", old)], csrf: false,
      headers: [("Origin", "http://127.0.0.1")])
    #expect(sent.status == 303)
    let location = try #require(sent.headers["Location"])
    #expect(location.hasPrefix("/reviews/\(id)/edit?kept="))
    let form = try browser.get(location)
    #expect(form.text.contains(#"value="Arrival, again""#))
    #expect(form.text.contains("This form was older than your last sign-in"))
    #expect(try site.library.show(id)["title"] as? String == "Arrival")
  }
}
