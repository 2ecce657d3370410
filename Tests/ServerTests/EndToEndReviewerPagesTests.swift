import HTTPTestSupport
import Foundation
import HTTP
import Testing
import TestSupport

/// Reviewers' pages through the built server: who a reviewer is and what they published,
/// reached from every review they wrote and back, never a draft for a reader, and their
/// profiles in the API.
@Suite("Reviewers' pages")
struct EndToEndReviewerPagesTests {
  static let draftTitle = "Unfinished Quokka Symphony"

  /// A site where Alice (the site's reviewer, with a display name and bio) published Arrival
  /// and Celeste and keeps a draft; Bob published Dune; Carol has only a draft; Dave
  /// published Solaris and was removed since; the command line added Eraserhead.
  static func site() throws -> (site: LiveSite, ids: [String: String], bob: String) {
    var bob = ""
    var carol = ""
    var dave = ""
    let site = try LiveSite { library in
      try #require(
        try library.run(
          "user", "edit", LiveSite.reviewer, "--display-name", "Alice <Liddell>", "--bio",
          "Reads & writes.\nMostly films.\n\nSee <b>Arrival</b>."
        ).status == 0)
      for name in ["bob", "carol", "dave"] { try library.addReviewer(name, password: LiveSite.password) }
      bob = try library.token(for: "bob")
      carol = try library.token(for: "carol")
      dave = try library.token(for: "dave")
      try library.addReview("Eraserhead")
    }
    var ids: [String: String] = [:]
    func add(_ title: String, category: String = "movie", draft: Bool = false, token: String? = nil) throws {
      let headers = token.map { [("Authorization", "Bearer \($0)")] } ?? []
      let made = try site.json(
        "POST", "/api/reviews", ["title": title, "rating": 4, "category": category, "draft": draft], headers: headers,
        signed: token == nil)
      try #require(made.status == 201, "\(made)")
      ids[title] = try #require(try made.json()["id"] as? String)
    }
    try add("Arrival")
    try add("Celeste", category: "game")
    try add(draftTitle, draft: true)
    try add("Dune", token: bob)
    try add("Nothing Yet", draft: true, token: carol)
    try add("Solaris", token: dave)
    try #require(try site.library.run("user", "remove", "dave", "--yes").status == 0)
    return (site, ids, bob)
  }

  @Test func aReaderSeesTheProfileAndThePublishedReviewsOnly() throws {
    let (site, ids, _) = try Self.site()
    let page = try site.request("GET", "/reviewers/alice")
    #expect(page.status == 200)
    #expect(page.headers["Cache-Control"] == "no-cache")
    #expect(page.text.contains("<title>Reviews by Alice &lt;Liddell&gt;</title>"))
    #expect(page.text.contains("<h1>Alice &lt;Liddell&gt;</h1>"))
    #expect(page.text.contains(#"<p class="facts">Reviewer alice</p>"#))
    #expect(
      page.text.contains(
        #"<div class="bio">"#
          + "\n<p>Reads &amp; writes.<br>\nMostly films.</p>\n<p>See &lt;b&gt;Arrival&lt;/b&gt;.</p>\n</div>"),
      "the bio as plain text, a paragraph between blank lines")
    #expect(PageText.cardTitles(page.text) == ["Celeste", "Arrival"], "newest first")
    #expect(PageText.classText("count", in: page.text) == "2 reviews")
    for other in [Self.draftTitle, "Dune", "Eraserhead", "Solaris"] {
      #expect(!page.text.contains(other), "\(other)")
    }
    #expect(!page.text.contains(try #require(ids[Self.draftTitle])))
    // The filters, orders and views of the home page, their links and form on this page.
    #expect(page.text.contains(#"<form class="filters" method="get" action="/reviewers/alice">"#))
    #expect(try PageText.cardTitles(site.request("GET", "/reviewers/alice?sort=title").text) == ["Arrival", "Celeste"])
    #expect(try PageText.cardTitles(site.request("GET", "/reviewers/alice?category=game").text) == ["Celeste"])
    let list = try site.request("GET", "/reviewers/alice?view=list&sort=title")
    #expect(PageText.listTitles(list.text) == ["Arrival", "Celeste"])
    #expect(list.text.contains(#"<a href="/reviewers/alice?sort=title" aria-current"#) == false)
    #expect(list.text.contains(#"<a href="/reviewers/alice?sort=title">Grid</a>"#), "\(list.text)")
    let none = try site.request("GET", "/reviewers/alice?category=book")
    #expect(none.text.contains(#"Clear them to <a href="/reviewers/alice">show every review</a>"#))

    // The name in any case leads to the page, in the name's own.
    let cased = try site.request("GET", "/reviewers/ALICE?sort=title")
    #expect(cased.status == 303)
    #expect(cased.headers["Location"] == "/reviewers/alice?sort=title")

    // A reviewer removed since keeps a page of their name and reviews.
    let removed = try site.request("GET", "/reviewers/dave")
    #expect(removed.status == 200)
    #expect(removed.text.contains("<h1>dave</h1>") && !removed.text.contains(#"class="facts">Reviewer"#))
    #expect(PageText.cardTitles(removed.text) == ["Solaris"])

    // No page for a name no one has, nor for a reviewer who has published nothing: the same
    // page, but for the name.
    let unknown = try site.request("GET", "/reviewers/zed")
    let unpublished = try site.request("GET", "/reviewers/carol")
    #expect(unknown.status == 404 && unpublished.status == 404)
    #expect(unpublished.text.contains("no reviewer carol here: the address may be mistyped"))
    #expect(unpublished.text.replacingOccurrences(of: "carol", with: "zed") == unknown.text)
    #expect(!unpublished.text.contains("Nothing Yet"))
    #expect(try site.request("GET", "/reviewers/not%20a%20name").status == 404)

    #expect(try site.request("GET", "/reviewers/alice?by=bob").status == 400)
    let drafts = try site.request("GET", "/reviewers/alice?show=drafts")
    #expect(drafts.status == 303 && drafts.headers["Location"]?.hasPrefix("/sign-in?next=") == true)
  }

  @Test func aSignedInReviewerSeesDraftsMarkedOnTheirPage() throws {
    let (site, ids, _) = try Self.site()
    let reader = try site.request("GET", "/reviewers/alice")
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    let page = try browser.get("/reviewers/alice")
    #expect(page.status == 200)
    #expect(page.headers["Cache-Control"] == "private, no-store")
    #expect(PageText.cardTitles(page.text) == [Self.draftTitle, "Celeste", "Arrival"])
    #expect(PageText.classText("count", in: page.text) == "3 reviews")
    let draft = try #require(ids[Self.draftTitle])
    let card = try #require(page.text.components(separatedBy: #"<li class="card">"#).first { $0.contains(draft) })
    #expect(card.contains(#"<span class="badge draft">Draft</span>"#))
    #expect(try PageText.cardTitles(browser.get("/reviewers/alice?show=drafts").text) == [Self.draftTitle])
    #expect(try browser.get("/reviewers/carol").status == 200, "a reviewer sees every reviewer's page")
    // Nor was the reviewer's page kept for the next reader.
    #expect(try site.request("GET", "/reviewers/alice").text == reader.text)
  }

  /// "By" on a review links to its reviewer's page, under their display name, and their page
  /// links back to the review; an editor with nothing published is named without a link.
  @Test func aReviewLinksToItsReviewerAndBack() throws {
    let (site, ids, bob) = try Self.site()
    let arrival = try #require(ids["Arrival"])
    let review = try site.request("GET", "/reviews/\(arrival)")
    #expect(review.text.contains(#"<p class="dates">By <a href="/reviewers/alice">Alice &lt;Liddell&gt;</a></p>"#))
    let link = try #require(PageText.attributes("href", startingWith: "/reviewers/", in: review.text).first)
    let page = try site.request("GET", link)
    #expect(page.status == 200)
    #expect(PageText.attributes("href", startingWith: "/reviews/\(arrival)", in: page.text).count >= 1)

    let edited = try site.json(
      "PATCH", "/api/reviews/\(arrival)", ["rating": 5], headers: [("Authorization", "Bearer \(bob)")], signed: false)
    try #require(edited.status == 200)
    #expect(
      try site.request("GET", "/reviews/\(arrival)").text.contains(
        #"By <a href="/reviewers/alice">Alice &lt;Liddell&gt;</a>; last changed by <a href="/reviewers/bob">bob</a>"#))
    let carol = try site.library.token(for: "carol")
    try #require(
      try site.json(
        "PATCH", "/api/reviews/\(arrival)", ["rating": 4], headers: [("Authorization", "Bearer \(carol)")],
        signed: false
      ).status == 200)
    #expect(
      try site.request("GET", "/reviews/\(arrival)").text.contains(
        #"By <a href="/reviewers/alice">Alice &lt;Liddell&gt;</a>; last changed by carol</p>"#))
    // The command line's review names no one.
    let cli =
      try #require(
        try site.request("GET", "/api/reviews?search=eraserhead").json()["reviews"] as? [[String: Any]]
      ).first?["id"] as? String
    #expect(try !site.request("GET", "/reviews/\(try #require(cli))").text.contains("By "))
  }

  @Test func theHomePageAndTheAPIFilterByReviewer() throws {
    let (site, _, _) = try Self.site()
    let home = try site.request("GET", "/?by=ALICE")
    #expect(home.status == 200)
    #expect(home.text.contains("<h1>Reviews by ALICE</h1>"))
    #expect(PageText.cardTitles(home.text) == ["Celeste", "Arrival"])
    #expect(home.text.contains(#"<input type="hidden" name="by" value="ALICE">"#))
    #expect(try PageText.cardTitles(site.request("GET", "/?by=alice&category=movie").text) == ["Arrival"])
    #expect(try site.request("GET", "/?by=Alice%20Liddell").status == 400)

    func titles(_ target: String, signed: Bool = false) throws -> [String] {
      let listed = try site.request("GET", target, signed: signed).json()
      return try #require(listed["reviews"] as? [[String: Any]]).compactMap { $0["title"] as? String }
    }
    #expect(try titles("/api/reviews?by=alice&sort=title") == ["Arrival", "Celeste"])
    #expect(try titles("/api/reviews?by=alice&sort=title", signed: true) == ["Arrival", "Celeste", Self.draftTitle])
    #expect(try titles("/api/reviews?by=BOB") == ["Dune"])
    #expect(try titles("/api/reviews?by=carol").isEmpty)
    let wrong = try site.request("GET", "/api/reviews?by=")
    #expect(wrong.status == 400 && wrong.errorMessage == "by needs a reviewer's name")

    let profile = try site.request("GET", "/api/reviewers/ALICE")
    #expect(profile.status == 200)
    #expect(
      JSONValue.canonical(try profile.json())
        == JSONValue.canonical([
          "name": "alice", "displayName": "Alice <Liddell>",
          "bio": "Reads & writes.\nMostly films.\n\nSee <b>Arrival</b>.",
          "reviews": 2,
        ]))
    #expect(try site.request("GET", "/api/reviewers/alice", signed: true).json()["reviews"] as? Int == 3)
    let removed = try site.request("GET", "/api/reviewers/dave").json()
    #expect(removed["name"] as? String == "dave" && removed["displayName"] is NSNull && removed["reviews"] as? Int == 1)
    let carol = try site.request("GET", "/api/reviewers/carol")
    #expect(carol.status == 404 && carol.errorMessage == "no reviewer carol: the address may be mistyped")
    #expect(try site.request("GET", "/api/reviewers/carol", signed: true).json()["reviews"] as? Int == 1)
  }

  /// A reviewer changes their own profile through the API, and their page shows it at once;
  /// another's is refused, and so is a profile that cannot be, changing nothing.
  @Test func aReviewerChangesTheirOwnProfileOnly() throws {
    let (site, _, bob) = try Self.site()
    #expect(try site.request("GET", "/reviewers/alice").text.contains("<h1>Alice &lt;Liddell&gt;</h1>"))
    let changed = try site.json("PATCH", "/api/reviewers/ALICE", ["displayName": "A. Liddell", "bio": NSNull()])
    #expect(changed.status == 200, "\(changed)")
    #expect(try changed.json()["displayName"] as? String == "A. Liddell" && changed.json()["bio"] is NSNull)
    let page = try site.request("GET", "/reviewers/alice")
    #expect(page.text.contains("<h1>A. Liddell</h1>") && !page.text.contains(#"class="bio""#))

    let other = try site.json("PATCH", "/api/reviewers/bob", ["displayName": "Not Bob"])
    #expect(other.status == 403 && other.errorMessage == "a reviewer may change only their own profile, not bob's")
    let asBob = try site.json(
      "PATCH", "/api/reviewers/alice", ["bio": "Bob was here."], headers: [("Authorization", "Bearer \(bob)")],
      signed: false)
    #expect(asBob.status == 403)
    #expect(try site.json("PATCH", "/api/reviewers/alice", ["bio": "x"], signed: false).status == 401)
    let long = try site.json("PATCH", "/api/reviewers/alice", ["displayName": String(repeating: "x", count: 101)])
    #expect(long.status == 400)
    #expect(
      long.errorMessage
        == "cannot change the profile of reviewer alice: the display name is 101 characters long, over 100: "
        + "give a shorter one (nothing was changed)")
    #expect(try site.json("PATCH", "/api/reviewers/alice", [:]).status == 400)
    #expect(try site.json("PATCH", "/api/reviewers/zed", ["bio": "x"]).status == 404)
    #expect(try site.request("GET", "/api/reviewers/alice").json()["displayName"] as? String == "A. Liddell")
  }

  /// A signed-in reviewer edits their own profile from the form their page links to; a
  /// profile that cannot be is shown again with why, and nothing changes; another's form is
  /// refused.
  @Test func aReviewerEditsTheirProfileFromItsForm() throws {
    let (site, _, _) = try Self.site()
    #expect(try !site.request("GET", "/reviewers/alice").text.contains("Edit your profile"))
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    #expect(
      try browser.get("/reviewers/alice").text.contains(
        #"<a class="button" href="/reviewers/alice/edit">Edit your profile</a>"#))
    #expect(try !browser.get("/reviewers/bob").text.contains("Edit your profile"))
    let form = try browser.get("/reviewers/alice/edit")
    #expect(form.status == 200)
    #expect(form.text.contains(#"name="display-name" value="Alice &lt;Liddell&gt;""#))
    #expect(form.text.contains(">Reads &amp; writes.\nMostly films.\n\nSee &lt;b&gt;Arrival&lt;/b&gt;.</textarea>"))

    let refused = try browser.post(
      "/reviewers/alice/edit", [("display-name", String(repeating: "x", count: 101)), ("bio", "Kept?")])
    #expect(refused.status == 400)
    #expect(refused.text.contains("the display name is 101 characters long, over 100: give a shorter one"))
    #expect(refused.text.contains(">Kept?</textarea>"), "what was typed is kept")
    #expect(try site.request("GET", "/api/reviewers/alice").json()["bio"] as? String != "Kept?")

    let saved = try browser.post("/reviewers/alice/edit", [("display-name", " Alice L. "), ("bio", "")])
    #expect(saved.status == 303 && saved.headers["Location"] == "/reviewers/alice")
    let page = try browser.get("/reviewers/alice")
    #expect(page.text.contains("Your profile is saved.") && page.text.contains("<h1>Alice L.</h1>"))
    #expect(!page.text.contains(#"<div class="bio">"#))
    #expect(try site.request("GET", "/reviewers/alice").text.contains("<h1>Alice L.</h1>"), "and readers see it")

    #expect(try browser.get("/reviewers/bob/edit").status == 403)
    #expect(try browser.post("/reviewers/bob/edit", [("display-name", "Not Bob")]).status == 403)
    #expect(try browser.post("/reviewers/alice/edit", [("display-name", "No token")], csrf: false).status == 403)
    #expect(try site.request("GET", "/api/reviewers/bob").json()["displayName"] is NSNull)
    #expect(try site.request("GET", "/reviewers/alice/edit").status == 303, "a reader is sent to sign in")
  }
}
