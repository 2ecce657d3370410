import Catalogue
import Foundation
import HTTP
import ImagePipeline
import Testing
import TestSupport

@testable import Server

@Suite("Readers")
struct ReaderTests {
  @Test func theGridHasEveryHeaderAPageNeedsAndNoCookie() throws {
    let site = try Site()
    let response = site.ask("GET", "/")
    #expect(response.status == 200)
    #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
    #expect(response.headers["Content-Security-Policy"]?.contains("default-src 'none'") == true)
    #expect(response.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
    #expect(response.headers["X-Content-Type-Options"] == "nosniff")
    #expect(response.headers["X-Frame-Options"] == "DENY")
    #expect(response.headers["Referrer-Policy"] == "same-origin")
    #expect(response.headers.values("Set-Cookie").isEmpty)
    #expect(response.text.contains("No reviews yet."))
    #expect(response.text.contains(#"<a href="/sign-in">Sign in</a>"#))
  }

  @Test func aScriptInATitleOrBodyIsShownAsText() throws {
    let site = try Site()
    let hostile = #"<script>alert("x")</script><img src=x onerror=alert(1)>"#
    let review = try site.openLibrary().create(
      ReviewDraft(title: hostile, body: hostile + "\n\n" + hostile, rating: 3, category: "movie"))
    let signedIn = try site.signIn()
    let pages = [
      site.ask("GET", "/"), site.ask("GET", "/?view=list"), site.ask("GET", "/reviews/\(review.id)"),
      site.ask("GET", "/?q=alert"),
      site.ask("GET", "/reviews/\(review.id)/edit", headers: [("Cookie", "\(CookieName.session)=\(signedIn.cookie)")]),
    ]
    for page in pages {
      #expect(page.status == 200)
      #expect(!page.text.contains("<script>alert"), "\(page.text)")
      #expect(!page.text.contains("<img src=x"))
      #expect(page.text.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
    }
  }

  @Test func aPrefixOfAnIdLeadsToTheReview() throws {
    let site = try Site()
    let review = try site.openLibrary().create(ReviewDraft(title: "Arrival", rating: 5, category: "movie"))
    let response = site.ask("GET", "/reviews/\(review.id.prefix(6))")
    #expect(response.status == 303)
    #expect(response.headers["Location"] == "/reviews/\(review.id)")
    #expect(site.ask("GET", "/reviews/\(review.id)").text.contains("<h1>Arrival</h1>"))
  }

  @Test func aChangeByTheCommandLineShowsAtTheNextRequest() throws {
    let site = try Site()
    #expect(site.ask("GET", "/").text.contains("No reviews yet."))
    let other = try site.openLibrary()
    try other.create(ReviewDraft(title: "Made elsewhere", rating: 4, category: "book"))
    #expect(site.ask("GET", "/").text.contains("Made elsewhere"))
    // A setting changed elsewhere is followed too: list thumbnails of the new spec.
    let review = try other.create(
      ReviewDraft(title: "Pictured", rating: 4, category: "book"), attaching: [Fixture.image("baseline.jpg")])
    #expect(site.ask("GET", "/").text.contains("-256-fit-q85.jpg"))
    _ = try other.rebuildThumbnails(spec: ThumbnailSpec(longestEdge: 128))
    let grid = site.ask("GET", "/").text
    #expect(grid.contains("-128-fit-q85.jpg"))
    let url = try #require(
      try JSONSerialization.jsonObject(with: Data(site.ask("GET", "/api/reviews/\(review.id)").text.utf8))
        as? [String: Any])
    let images = try #require(url["images"] as? [[String: Any]])
    let thumbnail = try #require((images.first?["urls"] as? [String: Any])?["thumbnail"] as? String)
    #expect(thumbnail.hasSuffix("-128-fit-q85.jpg"))
    #expect(site.ask("GET", thumbnail).status == 200)
  }

  @Test(arguments: [
    ("/?min=9", "minimum stars must be a whole number from 0 to 5, not 9"),
    ("/?q=*", "has no words to look for"),
    ("/?sort=sideways", "sort must be one of"),
  ])
  func aBadFilterIsAPageThatSaysWhy(_ target: String, _ words: String) throws {
    let site = try Site()
    let response = site.ask("GET", target)
    #expect(response.status == 400)
    #expect(response.text.contains(HTML.escape(words)))
  }

  @Test func pagesOfFiftyWithLinksBetweenThem() throws {
    let site = try Site()
    let library = try site.openLibrary()
    try library.create((1...120).map { ReviewDraft(title: "Review \($0)", rating: $0 % 6, category: "game") })
    let first = site.ask("GET", "/?sort=title").text
    #expect(first.contains("1–50 of 120 reviews"))
    #expect(first.contains(#"href="/?sort=title&amp;page=2""#))
    #expect(first.components(separatedBy: #"<li class="card">"#).count == 51)
    let last = site.ask("GET", "/?sort=title&page=3").text
    #expect(last.contains("101–120 of 120 reviews"))
    #expect(last.contains("Page 3 of 3"))
    #expect(!last.contains(#"rel="next""#))
  }
}

@Suite("Pictures over HTTP")
struct PictureRouteTests {
  @Test func anOriginalComesByteForByteAndIsCachedForGood() throws {
    let site = try Site()
    let review = try site.openLibrary().create(
      ReviewDraft(title: "Pictured", rating: 4, category: "movie"), attaching: [Fixture.image("baseline.jpg")])
    let image = try #require(review.images.first?.image)
    let url = "/originals/\(image.sha256).jpg"
    #expect(site.service.plan(for: HTTPRequestHead(method: "GET", target: url)) == .inline)
    let response = site.ask("GET", url)
    #expect(response.status == 200)
    #expect(response.headers["ETag"] == "\"\(image.sha256)\"")
    #expect(response.headers["Cache-Control"] == "public, max-age=31536000, immutable")
    #expect(response.headers["Content-Type"] == "image/jpeg")
    guard case .file(let file, let offset, let length) = response.body else {
      Issue.record("the original is not served from its file")
      return
    }
    #expect(offset == 0 && length == file.size && file.size == image.bytes)
    #expect(site.ask("GET", url, headers: [("If-None-Match", "\"\(image.sha256)\"")]).status == 304)
    let range = site.ask("GET", url, headers: [("Range", "bytes=0-99")])
    #expect(range.status == 206)
    #expect(range.headers["Content-Range"] == "bytes 0-99/\(image.bytes)")
  }

  @Test func theDisplayRenditionIsMadeOnAWorkerOnceThenServedInline() throws {
    let site = try Site()
    let review = try site.openLibrary().create(
      ReviewDraft(title: "Turned", rating: 4, category: "movie"), attaching: [Fixture.image("heic-8bit.heic")])
    let image = try #require(review.images.first?.image)
    let url = Files.displayURL(image)
    let head = HTTPRequestHead(method: "GET", target: url)
    #expect(site.service.plan(for: head) == .worker)
    let response = site.ask("GET", url)
    #expect(response.status == 200)
    #expect(response.headers["Content-Type"] == "image/jpeg")
    #expect(site.service.plan(for: head) == .inline)
    guard case .file(let file, _, _) = response.body else {
      Issue.record("the rendition is not served from its file")
      return
    }
    let stored = try #require(Files.existingDisplay(image.sha256, highDensity: false, root: site.libraryPath + "/"))
    let bytes = try Fixture.bytes(site.libraryPath + "/" + stored)
    #expect(bytes.count == file.size)
    let decoded = try bytes.withUnsafeBytes { (raw) throws(ImageError) in try ImagePipeline.decode(raw) }
    #expect(decoded.header.format == .jpeg)
    #expect(decoded.header.width == image.width && decoded.header.height == image.height)
  }

  /// What reads the library runs on a worker (a search may be slow on a large library), so
  /// that thumbnails asked meanwhile do not wait behind it; once the page is kept, it is
  /// answered on the connection's thread. A reviewer's pages are never kept.
  @Test func aPageNotYetKeptRunsOnAWorker() throws {
    let site = try Site()
    let review = try site.openLibrary().create(
      ReviewDraft(title: "Arrival", body: "Time and language.", rating: 5, category: "movie"))
    let signedIn = try site.signIn()
    let cookie = ("Cookie", "\(CookieName.session)=\(signedIn.cookie)")
    for url in ["/", "/api/reviews?limit=5", "/?q=time", "/api/reviews?search=time", "/reviews/\(review.id)"] {
      let head = HTTPRequestHead(method: "GET", target: url)
      #expect(site.service.plan(for: head) == .worker, "\(url)")
      #expect(site.ask("GET", url).status == 200)
      #expect(site.service.plan(for: head) == .inline, "\(url) once kept")
      #expect(
        site.service.plan(for: HTTPRequestHead(method: "GET", target: url, headers: HTTPHeaders([cookie]))) == .worker)
    }
    // An upload (decoded whole, thumbnailed) runs below the pages; a form or JSON does not.
    let token = site.bearer
    for (method, url, place) in [
      ("POST", "/api/reviews/\(review.id)/images", RequestPlan.Place.background),
      ("POST", "/reviews/\(review.id)/images", .background), ("POST", "/new", .background),
      ("PATCH", "/api/reviews/\(review.id)", .worker), ("POST", "/reviews/\(review.id)/edit", .worker),
    ] {
      let head = HTTPRequestHead(method: method, target: url, headers: HTTPHeaders([token]))
      #expect(site.service.plan(for: head) == place, "\(method) \(url)")
    }
    // The route is matched once, when the request is planned, and handed on with what it captured.
    guard
      case .read(_, _, let planned, _) = site.service.plan(for: HTTPRequestHead(method: "GET", target: "/reviews/ab12"))
    else {
      Issue.record("a review page was not planned to be read")
      return
    }
    let match = try #require(planned as? RouteMatch)
    #expect(match.captures == ["id": "ab12"] && match.route.isCacheable)
    // Once the library changes, the page is made again, on a worker.
    try site.openLibrary().update(review.id, changes: ReviewChanges(rating: 4))
    _ = site.ask("GET", "/api/reviews?limit=1")
    #expect(site.service.plan(for: HTTPRequestHead(method: "GET", target: "/")) == .worker)
  }

  @Test(arguments: [
    "/originals/..", "/originals/%2e%2e%2fcatalogue.sqlite", "/originals/..%2F..%2Fetc%2Fpasswd",
    "/thumbnails/..%2Fcatalogue.sqlite", "/display/..%2f..%2fcatalogue.sqlite", "/assets/..%2F..%2FPackage.swift",
    "/originals/%00.jpg", "/originals/ABCDEF.jpg", "/originals/\(String(repeating: "a", count: 64)).jpg%00.txt",
    "/thumbnails/\(String(repeating: "a", count: 64))-256-fit-q85.jpg/..", "/reviews/..%2F..%2Fcatalogue.sqlite",
    "/api/reviews/..%2F..", "/reviews/%2e%2e/edit",
    "/display/\(String(repeating: "A", count: 64))-1600-fit-q85-progressive",
  ])
  func noNameReachesOutsideTheStores(_ target: String) throws {
    let site = try Site()
    let response = site.ask("GET", target)
    #expect([400, 404, 303].contains(response.status), "\(target): \(response.status)")
    if case .file = response.body { Issue.record("\(target) was answered with a file") }
    #expect(!response.text.contains("SQLite format"))
  }
}

extension RequestPlan {
  /// Where the plan runs the request, for comparing.
  static func == (plan: RequestPlan, place: Place) -> Bool {
    switch plan {
    case .respond: return place == .answered
    case .read(_, let onWorker, _, let background):
      return place == (onWorker ? (background ? .background : .worker) : .inline)
    }
  }

  enum Place { case inline, worker, background, answered }
}

@Suite("Signing in")
struct SignInTests {
  @Test func aSessionCookieIsHttpOnlyLaxAndNewAtEverySignIn() throws {
    let site = try Site()
    let first = try site.json(
      "POST", "/api/session", ["name": Site.reviewer, "password": Site.password],
      headers: [("Cookie", "\(CookieName.session)=chosen-by-the-client")])
    #expect(first.status == 200)
    let cookie = try #require(first.setCookie(CookieName.session))
    #expect(cookie.contains("HttpOnly"))
    #expect(cookie.contains("SameSite=Lax"))
    #expect(cookie.contains("Path=/"))
    #expect(!cookie.contains("Secure"))
    let secret = try #require(first.cookie(CookieName.session))
    #expect(secret != "chosen-by-the-client")
    #expect(secret.count == 43)
    let second = try site.signIn()
    #expect(second.cookie != secret)
    // Both sessions are live until each is ended.
    #expect(site.ask("GET", "/api/session", headers: [("Cookie", "\(CookieName.session)=\(secret)")]).status == 200)
    #expect(
      site.ask("GET", "/api/session", headers: [("Cookie", "\(CookieName.session)=chosen-by-the-client")]).status == 401
    )
  }

  @Test func behindAnHTTPSProxyTheCookieIsSecure() throws {
    let site = try Site { $0.trustProxy = true }
    let response = try site.json(
      "POST", "/api/session", ["name": Site.reviewer, "password": Site.password],
      headers: [("X-Forwarded-Proto", "https")])
    #expect(response.setCookie(CookieName.session)?.hasSuffix("; Secure") == true)
    let untrusted = try Site()
    let plain = try untrusted.json(
      "POST", "/api/session", ["name": Site.reviewer, "password": Site.password],
      headers: [("X-Forwarded-Proto", "https")])
    #expect(plain.setCookie(CookieName.session)?.contains("Secure") == false)
  }

  @Test func anUnknownNameIsAnsweredAsAWrongPasswordAndBothAreThrottled() throws {
    let site = try Site()
    let wrong = try site.json("POST", "/api/session", ["name": Site.reviewer, "password": "not the password"])
    let unknown = try site.json("POST", "/api/session", ["name": "nobody", "password": "not the password"])
    #expect(wrong.status == 401 && unknown.status == 401)
    #expect(wrong.text == unknown.text)
    for _ in 0..<4 {
      #expect(try site.json("POST", "/api/session", ["name": Site.reviewer, "password": "nope nope"]).status == 401)
    }
    let throttled = try site.json("POST", "/api/session", ["name": Site.reviewer, "password": Site.password])
    #expect(throttled.status == 429)
    #expect(throttled.headers["Retry-After"] == "1")
    #expect(
      try throttled.object()["error"] as? String == "too many failed sign-ins lately: wait 1 second and try again")
    // Another account is not held up by this one's failures.
    let other = try site.json("POST", "/api/session", ["name": "grace", "password": "whatever it is"])
    #expect(other.status == 401)
  }

  @Test func theFormNeedsItsOwnTokenAndSendsTheReaderBack() throws {
    let site = try Site()
    let body = "name=ada&password=correct+horse+battery&next=%2Freviews%2F0123456789abcdef%2Fedit"
    let forged = site.ask(
      "POST", "/sign-in", headers: [("Content-Type", "application/x-www-form-urlencoded")],
      body: Array((body + "&csrf=made-up").utf8))
    #expect(forged.status == 403)
    #expect(forged.cookie(CookieName.session) == nil)
    #expect(forged.text.contains("The sign-in form had expired"))
    let form = site.ask("GET", "/sign-in")
    let token = try #require(form.cookie(CookieName.signIn))
    #expect(form.text.contains(#"name="csrf" value="\#(token)""#))
    let signedIn = site.ask(
      "POST", "/sign-in",
      headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", "\(CookieName.signIn)=\(token)")],
      body: Array((body + "&csrf=\(token)").utf8))
    #expect(signedIn.status == 303)
    #expect(signedIn.headers["Location"] == "/reviews/0123456789abcdef/edit")
    #expect(signedIn.cookie(CookieName.session) != nil)
    // A `next` on another site is not followed (a new form: each token works once).
    let second = try #require(site.ask("GET", "/sign-in").cookie(CookieName.signIn))
    let offsite = site.ask(
      "POST", "/sign-in",
      headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", "\(CookieName.signIn)=\(second)")],
      body: Array("name=ada&password=correct+horse+battery&next=%2F%2Fevil.example&csrf=\(second)".utf8))
    #expect(offsite.status == 303)
    #expect(offsite.headers["Location"] == "/")
  }

  @Test func signingOutEndsTheSessionOnTheServer() throws {
    let site = try Site()
    let session = try site.signIn()
    let cookie = ("Cookie", "\(CookieName.session)=\(session.cookie)")
    #expect(site.ask("DELETE", "/api/session", headers: [cookie]).status == 403)
    let out = site.ask("DELETE", "/api/session", headers: [cookie, (CSRF.header, session.csrf)])
    #expect(out.status == 204)
    #expect(out.setCookie(CookieName.session)?.contains("Max-Age=0") == true)
    #expect(site.ask("GET", "/api/session", headers: [cookie]).status == 401)
    let page = site.ask("GET", "/new", headers: [cookie])
    #expect(page.status == 303)
    #expect(page.headers["Location"]?.hasPrefix("/sign-in?next=/new") == true)
    #expect(page.headers["Location"]?.hasSuffix("&expired=1") == true)
  }

  @Test func readersAreSentToSignInFromEveryEditPage() throws {
    let site = try Site()
    let review = try site.openLibrary().create(ReviewDraft(title: "Arrival", rating: 5, category: "movie"))
    for target in ["/new", "/reviews/\(review.id)/edit", "/reviews/\(review.id)/delete"] {
      let response = site.ask("GET", target)
      #expect(response.status == 303, "\(target)")
      #expect(response.headers["Location"] == "/sign-in?next=\(target)")
    }
  }
}

@Suite("Writing through the API")
struct APIWriteTests {
  @Test func aCookieWriteNeedsTheSessionsTokenAndThisSite() throws {
    let site = try Site()
    let session = try site.signIn()
    let cookie = ("Cookie", "\(CookieName.session)=\(session.cookie)")
    let fields: [String: Any] = ["title": "Arrival", "rating": 5, "category": "movie"]
    #expect(try site.json("POST", "/api/reviews", fields, headers: [cookie]).status == 403)
    // One digit changed: a token a forger might come close to.
    let wrong = (session.csrf.hasPrefix("0") ? "1" : "0") + session.csrf.dropFirst()
    #expect(try site.json("POST", "/api/reviews", fields, headers: [cookie, (CSRF.header, wrong)]).status == 403)
    let crossSite = try site.json(
      "POST", "/api/reviews", fields,
      headers: [cookie, (CSRF.header, session.csrf), ("Origin", "https://evil.example")])
    #expect(crossSite.status == 403)
    #expect(try site.openLibrary().list().total == 0)
    let made = try site.json(
      "POST", "/api/reviews", fields,
      headers: [cookie, (CSRF.header, session.csrf), ("Origin", "http://127.0.0.1:8080")])
    #expect(made.status == 201)
    let object = try made.object()
    #expect(object["createdBy"] as? String == Site.reviewer)
    #expect(made.headers["Location"] == "/api/reviews/\(object["id"] as? String ?? "")")
  }

  @Test func aTokenWritesWithoutACSRFToken() throws {
    let site = try Site()
    let made = try site.json(
      "POST", "/api/reviews", ["title": "Celeste", "rating": 4, "category": "game"], headers: [site.bearer])
    #expect(made.status == 201)
    let id = try #require(try made.object()["id"] as? String)
    let edited = try site.json("PATCH", "/api/reviews/\(id)", ["rating": 5, "favorite": true], headers: [site.bearer])
    #expect(edited.status == 200)
    let review = try site.openLibrary().review(id)
    #expect(review.rating == 5 && review.favorite && review.title == "Celeste")
    #expect(review.updatedBy == Site.reviewer)
    let wrongToken = try site.json(
      "POST", "/api/reviews", ["title": "X", "rating": 1, "category": "game"],
      headers: [("Authorization", "Bearer cat_nope")])
    #expect(wrongToken.status == 401)
  }

  @Test func anAnonymousUploadIsRefusedBeforeItsBodyIsRead() throws {
    let site = try Site()
    let head = HTTPRequestHead(
      method: "POST", target: "/api/reviews/0123456789abcdef/images",
      headers: HTTPHeaders([("Content-Type", "multipart/form-data; boundary=x"), ("Content-Length", "100000000")]))
    guard case .respond(let response) = site.service.plan(for: head) else {
      Issue.record("the upload's body would be read")
      return
    }
    #expect(response.status == 401)
    #expect(response.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
  }

  @Test(arguments: [
    (#"{"title": "X", "rating": 9, "category": "movie"}"#, "invalid review: rating 9 is outside 0–5"),
    (#"{"title": "", "rating": 3, "category": "movie"}"#, "invalid review: title is empty"),
    (
      #"{"title": "X", "rating": 3, "category": "moive"}"#,
      #"category moive is new to this library: did you mean movie? (send "newCategory": true to add moive as a label of its own)"#
    ),
    (#"{"title": "X", "rating": "3", "category": "movie"}"#, "rating must be a whole number"),
    (
      #"{"title": "X", "rating": 3, "category": "movie", "stars": 3}"#,
      "unknown field stars: give body, category, containsSpoilers, draft, favorite, newCategory, rating, title"
    ),
    (#"{"rating": 3}"#, "a new review needs title, category"),
    (#"{"title": "X", "rating": 3.5, "category": "movie"}"#, "rating must be a whole number"),
    (#"{"title": "X", "rating": 3, "category": "movie", "favorite": "yes"}"#, "favorite must be true or false"),
    (#"{"title": "X", "rating": true, "category": "movie"}"#, "rating must be a whole number"),
    (#"{"title": "X", "rating": 3, "category": "movie", "favorite": 1}"#, "favorite must be true or false"),
    (#"{"title": 7, "rating": 3, "category": "movie"}"#, "title must be a string"),
    (#"[1, 2]"#, "the body must be a JSON object"),
    (#"{"title": "#, "the body is not valid JSON"),
  ])
  func aRefusedReviewSaysWhatTheCommandLineSays(_ body: String, _ message: String) throws {
    let site = try Site()
    let response = site.ask(
      "POST", "/api/reviews", headers: [site.bearer, ("Content-Type", "application/json")], body: Array(body.utf8))
    #expect(response.status == 400)
    #expect(try response.object()["error"] as? String == message)
    #expect(try site.openLibrary().list().total == 0)
  }

  @Test func statusesForWhatIsMissingOrMalformed() throws {
    let site = try Site()
    #expect(site.ask("GET", "/api/reviews/zzzz").status == 404)
    let missing = site.ask("GET", "/api/reviews/0123456789abcdef")
    #expect(missing.status == 404)
    #expect(
      try missing.object()["error"] as? String
        == "no review 0123456789abcdef: it may have been removed, or the address is mistyped")
    let wrongMethod = site.ask("PUT", "/api/reviews")
    #expect(wrongMethod.status == 405)
    #expect(wrongMethod.headers["Allow"] == "GET, POST, HEAD")
    let notJSON = site.ask(
      "POST", "/api/reviews", headers: [site.bearer, ("Content-Type", "text/plain")], body: Array("title=x".utf8))
    #expect(notJSON.status == 415)
    #expect(site.ask("GET", "/api/reviews?limit=9000").status == 400)
    #expect(site.ask("GET", "/api/reviews?colour=red").status == 400)
  }

  @Test func anUploadIsAttachedAndAHostileOneRefusedWithTheCommandLinesWordsLeavingNothing() throws {
    let site = try Site()
    let review = try site.openLibrary().create(ReviewDraft(title: "Pictured", rating: 4, category: "movie"))
    let attached = site.ask(
      "POST", "/api/reviews/\(review.id)/images",
      headers: [site.bearer, ("Content-Type", "multipart/form-data; boundary=x")],
      parts: [try site.upload(Fixture.image("baseline.jpg"), as: "poster.jpg")])
    #expect(attached.status == 201)
    let object = try attached.object()
    let image = try #require((object["attached"] as? [[String: Any]])?.first)
    let urls = try #require(image["urls"] as? [String: String])
    #expect(urls["original"] == "/originals/\(image["sha256"] as? String ?? "").jpg")
    #expect(site.ask("GET", urls["thumbnail"] ?? "").status == 200)

    let before = try site.snapshot()
    let hostile = Fixture.hostile("empty.jpg")
    let bytes = try Fixture.bytes(hostile)
    let expected: String
    do throws(CatalogueError) {
      _ = try PreparedImage.make(
        bytes: bytes, source: "holiday.jpg", spec: .default, options: DecodeOptions())
      Issue.record("the hostile fixture decoded")
      return
    } catch {
      expected = error.description
    }
    let refused = site.ask(
      "POST", "/api/reviews/\(review.id)/images",
      headers: [site.bearer, ("Content-Type", "multipart/form-data; boundary=x")],
      parts: [try site.upload(hostile, as: "holiday.jpg")])
    #expect(refused.status == 415)
    #expect(try refused.object()["error"] as? String == expected)
    #expect(expected.hasPrefix("holiday.jpg: "))
    #expect(try site.snapshot() == before)
    #expect(try site.openLibrary().review(review.id).images.count == 1)
  }
}

@Suite("Readers' pages kept until the library changes")
struct PageCacheTests {
  @Test func aPageIsKeptAndGivenAgainUntilAnythingChanges() throws {
    let site = try Site()
    let library = try site.openLibrary()
    try library.create(ReviewDraft(title: "First", rating: 4, category: "movie"))
    let first = site.ask("GET", "/")
    #expect(first.text.contains("First"))
    #expect(site.service.pages.count == 1)
    let generation = site.service.pages.generation
    #expect(site.ask("GET", "/").text == first.text)
    #expect(site.service.pages.generation == generation)

    // The command line's change: seen at the next request, through SQLite's data_version.
    try library.create(ReviewDraft(title: "Second", rating: 4, category: "movie"))
    #expect(site.ask("GET", "/").text.contains("Second"))
    #expect(site.service.pages.generation != generation)

    // The server's own write.
    let kept = site.service.pages.generation
    let made = try site.json(
      "POST", "/api/reviews", ["title": "Third", "rating": 2, "category": "game"], headers: [site.bearer])
    #expect(made.status == 201)
    #expect(site.service.pages.generation != kept)
    #expect(site.ask("GET", "/").text.contains("Third"))
  }

  @Test func aSignedInReviewersPagesAreNeverKept() throws {
    let site = try Site()
    let session = try site.signIn()
    let page = site.ask("GET", "/", headers: [("Cookie", "\(CookieName.session)=\(session.cookie)")])
    #expect(page.text.contains("Signed in as"))
    #expect(site.service.pages.count == 0)
    // …and a reader never gets a reviewer's page.
    #expect(!site.ask("GET", "/").text.contains("Signed in as"))
  }

  @Test func theCacheKeepsToItsBytesDroppingThePageUsedLongestAgo() throws {
    let cache = PageCache(maximumBytes: 8 * 1024)
    let page = HTTPResponse(status: 200, body: [UInt8](repeating: 65, count: 700))
    for index in 0..<20 { cache.keep(page, for: "/?page=\(index)", generation: cache.generation) }
    #expect(cache.count < 20)
    #expect(cache.page("/?page=19", generation: cache.generation) != nil)
    #expect(cache.page("/?page=0", generation: cache.generation) == nil)
    // A page made before a change is not kept, and none is given after one.
    let before = cache.generation
    cache.invalidate()
    cache.keep(page, for: "/late", generation: before)
    #expect(cache.page("/late", generation: cache.generation) == nil)
    #expect(cache.count == 0)
  }
}
