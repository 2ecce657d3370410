import HTTPTestSupport
import Foundation
import HTTP
import Testing
import TestSupport

/// Sign-in, sessions, CSRF and tokens as an attacker would try them against the built server:
/// forged writes, fixed session ids, replayed cookies, guessed passwords, revoked tokens.
@Suite("Sessions, CSRF and tokens")
struct SecuritySessionTests {
  static let session = "catalogue_session"

  // MARK: CSRF

  @Test func aFormWriteNeedsTheSessionsTokenAndThisSite() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Arrival") }
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    let token = try #require(try browser.csrfToken())
    let fields = [("title", "Forged"), ("rating", "1"), ("category", "movie"), ("body", "")]
    let before = try site.library.snapshot()

    let missing = try browser.post("/reviews/\(id)/edit", fields, csrf: false)
    #expect(missing.status == 403)
    #expect(
      missing.text.contains(
        "this form is out of date (it does not carry your session&#39;s token): reload the page and try again"))
    let wrong = try browser.post(
      "/reviews/\(id)/edit", fields + [("csrf", String(repeating: "0", count: 64))], csrf: false)
    #expect(wrong.status == 403)
    let otherSite = try browser.post("/reviews/\(id)/edit", fields, headers: [("Origin", "http://evil.example")])
    #expect(otherSite.status == 403)
    #expect(otherSite.text.contains("a write from another site (http://evil.example) is refused"))
    let crossSite = try browser.post("/reviews/\(id)/edit", fields, headers: [("Sec-Fetch-Site", "cross-site")])
    #expect(crossSite.status == 403)
    let deleted = try browser.post("/reviews/\(id)/delete", csrf: false)
    #expect(deleted.status == 403)
    let uploaded = try browser.upload(
      "/reviews/\(id)/images", Multipart(files: [("a.jpg", try Fixture.bytes(Fixture.image("baseline.jpg")))]),
      csrf: false)
    #expect(uploaded.status == 403)
    let signedOut = try browser.post("/sign-out", csrf: false)
    #expect(signedOut.status == 403)
    #expect(try browser.csrfToken() == token, "the session goes on")
    try site.library.expectUnchanged(since: before)

    let saved = try browser.post("/reviews/\(id)/edit", fields, headers: [("Origin", "http://127.0.0.1")])
    #expect(saved.status == 303)
    #expect(try site.library.show(id)["title"] as? String == "Forged")
  }

  @Test func anAPIWriteWithACookieNeedsTheCSRFHeader() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Arrival") }
    let opened = try site.json(
      "POST", "/api/session", ["name": LiveSite.reviewer, "password": LiveSite.password], signed: false)
    let cookie = ("Cookie", "\(Self.session)=\(try #require(opened.cookie(Self.session)))")
    let csrf = try #require(try opened.json()["csrfToken"] as? String)
    let review: [String: Any] = ["title": "Forged", "rating": 1, "category": "movie"]
    let before = try site.library.snapshot()

    let missing = try site.json("POST", "/api/reviews", review, headers: [cookie], signed: false)
    #expect(missing.status == 403)
    #expect(
      missing.errorMessage
        == "a write with a session cookie needs the session's CSRF token in the X-CSRF-Token header (POST /api/session and GET /api/session give it)"
    )
    let wrong = try site.json(
      "POST", "/api/reviews", review, headers: [cookie, ("X-CSRF-Token", String(csrf.reversed()))], signed: false)
    #expect(wrong.status == 403)
    let otherSite = try site.json(
      "POST", "/api/reviews", review, headers: [cookie, ("X-CSRF-Token", csrf), ("Origin", "https://evil.example")],
      signed: false)
    #expect(otherSite.status == 403)
    #expect(otherSite.errorMessage == "a write from another site (https://evil.example) is refused")
    let removed = try site.request("DELETE", "/api/reviews/\(id)", headers: [cookie])
    #expect(removed.status == 403)
    try site.library.expectUnchanged(since: before)

    let allowed = try site.json(
      "POST", "/api/reviews", review, headers: [cookie, ("X-CSRF-Token", csrf)], signed: false)
    #expect(allowed.status == 201)
    // A script's token needs no CSRF token: no browser sends it on its own.
    let scripted = try site.json("POST", "/api/reviews", ["title": "Scripted", "rating": 2, "category": "movie"])
    #expect(scripted.status == 201)
  }

  /// Another site cannot sign a browser in (login CSRF): the form and the API refuse a sign-in
  /// whose Origin is not this site, and the form one without its own token.
  @Test func signingInFromAnotherSiteIsRefused() throws {
    let site = try LiveSite()
    let browser = Browser(site.server)
    let form = try browser.get("/sign-in")
    let token = try #require(Browser.signInToken(form.text))
    let fields = [("name", LiveSite.reviewer), ("password", LiveSite.password), ("next", "/"), ("csrf", token)]
    let otherSite = try browser.post("/sign-in", fields, csrf: false, headers: [("Origin", "https://evil.example")])
    #expect(otherSite.status == 403)
    #expect(otherSite.setCookie(Self.session) == nil)
    let api = try site.json(
      "POST", "/api/session", ["name": LiveSite.reviewer, "password": LiveSite.password],
      headers: [("Origin", "https://evil.example")], signed: false)
    #expect(api.status == 403)
    #expect(api.setCookie(Self.session) == nil)
    // Without the form's own cookie (a form posted from elsewhere never has it).
    let withoutCookie = try site.request(
      "POST", "/sign-in", headers: [("Content-Type", "application/x-www-form-urlencoded")],
      body: Array(Browser.encode(fields).utf8))
    #expect(withoutCookie.status == 403)
    #expect(withoutCookie.text.contains("The sign-in form had expired"))
    #expect(withoutCookie.setCookie(Self.session) == nil)
    #expect(try site.library.count("sessions") == 0)
  }

  // MARK: Session fixation

  @Test func aCookieTheClientChoseIsNeverAdopted() throws {
    let site = try LiveSite()
    let planted = "attacker-chosen-session-id-0123456789abcdef0123456789"
    let browser = Browser(site.server)
    browser.plant(Self.session, planted)
    let refused = try browser.get("/new")
    #expect(refused.status == 303)
    #expect(refused.headers["Location"] == "/sign-in?next=/new&expired=1")
    #expect(refused.setCookie(Self.session)?.contains("Max-Age=0") == true, "the unknown cookie is cleared")

    browser.plant(Self.session, planted)
    let signedIn = try browser.signIn(LiveSite.reviewer, LiveSite.password)
    #expect(signedIn.status == 303)
    let given = try #require(signedIn.cookie(Self.session))
    #expect(given != planted)
    #expect(given.count >= 43, "a 256-bit id")
    #expect(try site.request("GET", "/api/session", headers: [("Cookie", "\(Self.session)=\(planted)")]).status == 401)
    #expect(try site.request("GET", "/api/session", headers: [("Cookie", "\(Self.session)=\(given)")]).status == 200)
  }

  @Test func signingInEndsTheSessionTheBrowserHeld() throws {
    let site = try LiveSite()
    // An attacker's own, real session, planted in the victim's browser.
    let attacker = Browser(site.server)
    try #require(try attacker.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    let fixed = try #require(attacker.cookies[Self.session]?.value)
    let victim = Browser(site.server)
    let form = try victim.get("/sign-in")
    let token = try #require(Browser.signInToken(form.text))
    victim.plant(Self.session, fixed)
    let signedIn = try victim.post(
      "/sign-in", [("name", LiveSite.reviewer), ("password", LiveSite.password), ("next", "/"), ("csrf", token)],
      csrf: false)
    #expect(signedIn.status == 303)
    let fresh = try #require(signedIn.cookie(Self.session))
    #expect(fresh != fixed)
    #expect(try site.request("GET", "/api/session", headers: [("Cookie", "\(Self.session)=\(fixed)")]).status == 401)
    #expect(try site.request("GET", "/api/session", headers: [("Cookie", "\(Self.session)=\(fresh)")]).status == 200)
    // The attacker's browser has lost its session too: the id is dead on the server.
    #expect(try attacker.get("/new").status == 303)
  }

  @Test func signingOutEndsTheSessionOnTheServer() throws {
    let site = try LiveSite()
    let browser = Browser(site.server)
    let form = try browser.get("/sign-in")
    let formCookie = try #require(form.setCookie("catalogue_signin"))
    #expect(formCookie.contains("Path=/sign-in"))
    #expect(formCookie.contains("SameSite=Strict"))
    #expect(formCookie.contains("HttpOnly"))
    #expect(form.cookie("catalogue_signin") == Browser.signInToken(form.text))

    let signedIn = try browser.signIn(LiveSite.reviewer, LiveSite.password, next: "/new")
    #expect(signedIn.status == 303)
    #expect(signedIn.headers["Location"] == "/new")
    let attributes = try #require(signedIn.setCookie(Self.session)).split(separator: ";").map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    #expect(attributes.contains("HttpOnly"))
    #expect(attributes.contains("SameSite=Lax"))
    #expect(attributes.contains("Path=/"))
    let old = try #require(browser.cookies[Self.session]?.value)
    let csrf = try #require(try browser.csrfToken())
    #expect(try browser.get("/new").status == 200)

    let signedOut = try browser.post("/sign-out")
    #expect(signedOut.status == 303)
    #expect(signedOut.headers["Location"] == "/")
    #expect(signedOut.setCookie(Self.session)?.contains("Max-Age=0") == true)
    #expect(browser.cookies[Self.session] == nil)

    // The old cookie, replayed, is no one's any more.
    let replay = ("Cookie", "\(Self.session)=\(old)")
    #expect(try site.request("GET", "/api/session", headers: [replay]).status == 401)
    let page = try site.request("GET", "/new", headers: [replay])
    #expect(page.status == 303)
    #expect(page.headers["Location"]?.hasPrefix("/sign-in?next=") == true)
    let write = try site.json(
      "POST", "/api/reviews", ["title": "Late", "rating": 1, "category": "movie"],
      headers: [replay, ("X-CSRF-Token", csrf)], signed: false)
    #expect(write.status == 401)
    #expect(try site.library.count("sessions") == 0)
  }

  // MARK: The sign-in form's own cookie

  static let signIn = "catalogue_signin"

  /// A `Set-Cookie` value's attributes but its lifetime: what a browser keys it by and sends it
  /// under.
  static func attributes(_ setCookie: String) -> Set<String> {
    Set(
      setCookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }.filter {
        !$0.hasPrefix("Max-Age=")
      })
  }

  /// The form's cookie is cleared with the path and attributes it was set with (a browser keeps
  /// one cleared on another path), and its token works once, whatever the password was.
  @Test func theSignInCookieIsClearedWhereItWasSetAndItsTokenWorksOnce() throws {
    let site = try LiveSite(arguments: ["--trust-proxy"])
    let https = ("X-Forwarded-Proto", "https")
    func form() throws -> (setCookie: String, token: String) {
      let page = try site.request("GET", "/sign-in", headers: [https])
      let setCookie = try #require(page.setCookie(Self.signIn))
      let token = try #require(page.cookie(Self.signIn))
      #expect(Browser.signInToken(page.text) == token)
      return (setCookie, token)
    }
    func post(_ token: String, password: String) throws -> Response {
      let fields = [("name", LiveSite.reviewer), ("password", password), ("next", "/"), ("csrf", token)]
      return try site.request(
        "POST", "/sign-in",
        headers: [https, ("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", "\(Self.signIn)=\(token)")],
        body: Array(Browser.encode(fields).utf8))
    }

    let (setCookie, token) = try form()
    #expect(Self.attributes(setCookie) == ["Path=/sign-in", "HttpOnly", "SameSite=Strict", "Secure"])
    let signedIn = try post(token, password: LiveSite.password)
    #expect(signedIn.status == 303)
    let cleared = try #require(signedIn.setCookie(Self.signIn), "the form's cookie is cleared")
    #expect(cleared.hasPrefix("\(Self.signIn)=;"))
    #expect(cleared.contains("Max-Age=0"))
    #expect(Self.attributes(cleared) == Self.attributes(setCookie), "\(cleared) does not clear \(setCookie)")

    // The same form sent again: refused, and shown again with a fresh token.
    let again = try post(token, password: LiveSite.password)
    #expect(again.status == 403)
    #expect(again.text.contains("This sign-in form was sent already, and each works once: please sign in again."))
    #expect(again.setCookie(Self.session) == nil)
    let fresh = try #require(again.cookie(Self.signIn))
    #expect(fresh != token)
    #expect(Browser.signInToken(again.text) == fresh)
    #expect(try site.library.count("sessions") == 1)
    #expect(try post(fresh, password: LiveSite.password).status == 303, "the form shown again works")

    // A wrong password takes the token too.
    let wrongForm = try form()
    #expect(try post(wrongForm.token, password: "not the password").status == 401)
    let replayed = try post(wrongForm.token, password: LiveSite.password)
    #expect(replayed.status == 403)
    #expect(replayed.setCookie(Self.session) == nil)
    #expect(try site.library.count("sessions") == 2)
  }

  /// A browser keeps no sign-in cookie once signed in, and the form sent again after signing out
  /// (the back button, "resubmit") signs no one in, even with the cookie put back.
  @Test func aBrowserCannotSendTheSignInFormTwice() throws {
    let site = try LiveSite()
    let browser = Browser(site.server)
    let form = try browser.get("/sign-in")
    let token = try #require(Browser.signInToken(form.text))
    #expect(browser.jar[Browser.CookieKey(name: Self.signIn, path: "/sign-in")] == token)
    let fields = [("name", LiveSite.reviewer), ("password", LiveSite.password), ("next", "/"), ("csrf", token)]
    #expect(try browser.post("/sign-in", fields, csrf: false).status == 303)
    #expect(browser.cookies[Self.signIn] == nil, "the form's cookie is kept: \(browser.jar)")
    #expect(try browser.post("/sign-out").status == 303)
    #expect(browser.cookies[Self.session] == nil)

    let resubmitted = try browser.post("/sign-in", fields, csrf: false)
    #expect(resubmitted.status == 403)
    #expect(resubmitted.text.contains("The sign-in form had expired"))
    #expect(browser.cookies[Self.session] == nil)
    browser.plant(Self.signIn, token, path: "/sign-in")
    let replayed = try browser.post("/sign-in", fields, csrf: false)
    #expect(replayed.status == 403)
    #expect(replayed.text.contains("This sign-in form was sent already"))
    #expect(browser.cookies[Self.session] == nil)
    #expect(try site.library.count("sessions") == 0)
    // The form shown again signs in.
    let fresh = try #require(Browser.signInToken(replayed.text))
    #expect(browser.cookies[Self.signIn]?.value == fresh)
    let signedIn = try browser.post(
      "/sign-in", [("name", LiveSite.reviewer), ("password", LiveSite.password), ("next", "/"), ("csrf", fresh)],
      csrf: false)
    #expect(signedIn.status == 303)
    #expect(browser.cookies[Self.signIn] == nil)
  }

  /// A session in use is renewed for another week (the cookie sent again, the same id); one
  /// older than thirty days ends however much it is used.
  @Test func aSessionInUseIsRenewedAndAnOldOneEnds() throws {
    let site = try LiveSite()
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    let secret = try #require(browser.cookies[Self.session]?.value)
    let format = ISO8601DateFormatter.withFractions
    let hoursAgo = format.string(from: Date().addingTimeInterval(-2 * 3600))
    let tomorrow = format.string(from: Date().addingTimeInterval(86_400))
    try site.library.sql("UPDATE sessions SET last_seen = '\(hoursAgo)', expires = '\(tomorrow)'")

    let page = try browser.get("/new")
    #expect(page.status == 200)
    let renewed = try #require(page.setCookie(Self.session), "the renewed session's cookie is sent again")
    #expect(page.cookie(Self.session) == secret, "renewal keeps the id")
    let maxAge =
      renewed.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
      .first { $0.hasPrefix("Max-Age=") }.flatMap { Int($0.dropFirst("Max-Age=".count)) } ?? 0
    #expect(abs(maxAge - 7 * 86_400) < 120, "Max-Age \(maxAge)")
    let expires = try site.library.sql("SELECT expires FROM sessions")
    #expect(expires > format.string(from: Date().addingTimeInterval(6 * 86_400)), "expires \(expires)")
    #expect(try browser.get("/new").setCookie(Self.session) == nil, "renewed at most once an hour")

    let monthAgo = format.string(from: Date().addingTimeInterval(-31 * 86_400))
    try site.library.sql("UPDATE sessions SET created = '\(monthAgo)'")
    let ended = try browser.get("/new")
    #expect(ended.status == 303)
    #expect(ended.headers["Location"] == "/sign-in?next=/new&expired=1")
    #expect(try site.library.count("sessions") == 0)
  }

  @Test func cookiesAreSecureBehindAnHTTPSProxy() throws {
    let site = try LiveSite(arguments: ["--trust-proxy"])
    let https = [("X-Forwarded-Proto", "https"), ("Content-Type", "application/json")]
    let body = Array(#"{"name":"\#(LiveSite.reviewer)","password":"\#(LiveSite.password)"}"#.utf8)
    let proxied = try site.request("POST", "/api/session", headers: https, body: body)
    #expect(proxied.status == 200)
    #expect(
      proxied.setCookie(Self.session)?.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        .contains("Secure") == true)
    let plain = try site.json(
      "POST", "/api/session", ["name": LiveSite.reviewer, "password": LiveSite.password], signed: false)
    #expect(plain.setCookie(Self.session)?.contains("Secure") == false)
  }

  // MARK: Guessing passwords

  @Test func theSixthWrongPasswordForAnAccountIsThrottled() throws {
    let site = try LiveSite()
    func signIn(_ name: String, _ password: String) throws -> Response {
      try site.json("POST", "/api/session", ["name": name, "password": password], signed: false)
    }
    for attempt in 1...5 {
      let wrong = try signIn(LiveSite.reviewer, "guess number \(attempt)")
      #expect(wrong.status == 401, "attempt \(attempt)")
      #expect(wrong.errorMessage == "wrong name or password")
    }
    let sixth = try signIn(LiveSite.reviewer, "guess number 6")
    #expect(sixth.status == 429)
    let wait = try #require(sixth.headers["Retry-After"].flatMap { Int($0) })
    #expect(wait >= 1)
    #expect(
      sixth.errorMessage == "too many failed sign-ins lately: wait \(wait) second\(wait == 1 ? "" : "s") and try again")
    // Even the right password waits its turn…
    #expect(try signIn(LiveSite.reviewer, LiveSite.password).status == 429)
    // …and is taken once the wait is over: a reviewer who mistypes is not locked out.
    usleep(useconds_t(wait * 1_000_000 + 200_000))
    #expect(try signIn(LiveSite.reviewer, LiveSite.password).status == 200)
  }

  /// Signs in through the API from the loopback address `source`.
  static func signIn(_ server: ServeProcess, from source: String, password: String) throws -> Response {
    let body = try JSONSerialization.data(withJSONObject: ["name": LiveSite.reviewer, "password": password])
    return try server.connect(source: source).request(
      "POST", "/api/session", headers: [("Content-Type", "application/json")], body: [UInt8](body))
  }

  /// A stranger fails five times from each of four addresses (each address's free tries), then
  /// twice more from a fifth once the account-wide cap lets it: 22 failures for the account,
  /// which hold every new address for four seconds.
  static func guess(_ server: ServeProcess) throws {
    for address in 10...13 {
      for attempt in 1...5 {
        let answer = try signIn(server, from: "127.0.0.\(address)", password: "guess \(attempt)")
        #expect(answer.status == 401, "127.0.0.\(address), attempt \(attempt): \(answer)")
      }
    }
    for attempt in 1...2 {
      let held = try signIn(server, from: "127.0.0.14", password: "guess \(attempt)")
      #expect(held.status == 429, "attempt \(attempt): \(held)")
      let wait = try #require(held.headers["Retry-After"].flatMap { Int($0) })
      usleep(useconds_t(wait * 1_000_000 + 100_000))
      let answer = try signIn(server, from: "127.0.0.14", password: "guess \(attempt)")
      #expect(answer.status == 401, "127.0.0.14, attempt \(attempt): \(answer)")
    }
  }

  /// A stranger who fails again and again keeps no reviewer out: the address the reviewer
  /// signed in from before still signs in at once, through the API and the form, while the
  /// stranger waits; a new address for the account waits for the account-wide cap alone.
  @Test func aStrangersFailuresDoNotKeepTheReviewerOut() throws {
    let site = try LiveSite()
    let home = "127.0.0.2"
    #expect(try Self.signIn(site.server, from: home, password: LiveSite.password).status == 200)
    try Self.guess(site.server)

    let newPlace = try Self.signIn(site.server, from: "127.0.0.20", password: LiveSite.password)
    #expect(newPlace.status == 429)
    let wait = try #require(newPlace.headers["Retry-After"].flatMap { Int($0) })
    #expect((1...4).contains(wait), "the account-wide cap's 4 s, not a pair's or an address's: \(wait)")
    #expect(
      newPlace.errorMessage
        == "too many failed sign-ins lately: wait \(wait) second\(wait == 1 ? "" : "s") and try again")
    #expect(try Self.signIn(site.server, from: "127.0.0.10", password: LiveSite.password).status == 429)
    #expect(try Self.signIn(site.server, from: home, password: LiveSite.password).status == 200)
    #expect(try Browser(site.server, from: home).signIn(LiveSite.reviewer, LiveSite.password).status == 303)

    usleep(useconds_t(wait * 1_000_000 + 200_000))
    #expect(try Self.signIn(site.server, from: "127.0.0.20", password: LiveSite.password).status == 200)
  }

  /// The addresses a reviewer signed in from are kept in the library: a restart does not hand
  /// the reviewer back to the account-wide cap while a guesser goes on.
  @Test func theReviewersAddressesOutliveARestart() throws {
    let site = try LiveSite()
    let home = "127.0.0.2"
    #expect(try Self.signIn(site.server, from: home, password: LiveSite.password).status == 200)
    #expect(site.server.stop() == 0)
    let restarted = try ServeProcess(library: site.library)
    try Self.guess(restarted)
    #expect(try Self.signIn(restarted, from: "127.0.0.20", password: LiveSite.password).status == 429)
    #expect(try Self.signIn(restarted, from: home, password: LiveSite.password).status == 200)
  }

  @Test func anUnknownNameIsAnsweredAsAWrongPassword() throws {
    let site = try LiveSite()
    let known = try site.json(
      "POST", "/api/session", ["name": LiveSite.reviewer, "password": "wrong password"], signed: false)
    let unknown = try site.json(
      "POST", "/api/session", ["name": "mallory", "password": "wrong password"], signed: false)
    #expect(known.status == 401)
    #expect(unknown.status == known.status)
    #expect(unknown.body == known.body)
    // The form says the same, token values aside.
    let knownPage = try Browser(site.server).signIn(LiveSite.reviewer, "wrong password")
    let unknownPage = try Browser(site.server).signIn("mallory", "wrong password")
    #expect(knownPage.status == 401)
    #expect(unknownPage.status == 401)
    #expect(knownPage.text.contains("wrong name or password"))
    let strip = { (page: Response, name: String) in
      page.text.replacingOccurrences(of: Browser.signInToken(page.text) ?? "", with: "TOKEN")
        .replacingOccurrences(of: #"value="\#(name)""#, with: #"value="NAME""#)
    }
    #expect(strip(knownPage, LiveSite.reviewer) == strip(unknownPage, "mallory"))
    // An unknown name is throttled as a known one is.
    for _ in 1...4 {
      _ = try site.json("POST", "/api/session", ["name": "mallory", "password": "wrong"], signed: false)
    }
    let throttled = try site.json("POST", "/api/session", ["name": "mallory", "password": "wrong"], signed: false)
    #expect(throttled.status == 429)
    #expect(throttled.headers["Retry-After"] != nil)
  }

  /// Many names tried from one address: past twenty failures the address waits, whatever
  /// `X-Forwarded-For` it claims (no proxy is trusted), while another address may still try.
  @Test func oneAddressTryingManyNamesIsThrottled() throws {
    let site = try LiveSite()
    func signIn(_ name: String, from source: String, forwardedFor: String? = nil) throws -> Response {
      let body = try JSONSerialization.data(withJSONObject: ["name": name, "password": "wrong password"])
      var headers = [("Content-Type", "application/json")]
      if let forwardedFor { headers.append(("X-Forwarded-For", forwardedFor)) }
      return try site.connect(source: source).request("POST", "/api/session", headers: headers, body: [UInt8](body))
    }
    for attempt in 1...20 {
      let answer = try signIn("name\(attempt)", from: "127.0.0.7", forwardedFor: "203.0.113.\(attempt)")
      #expect(answer.status == 401, "attempt \(attempt)")
    }
    let throttled = try signIn("name21", from: "127.0.0.7", forwardedFor: "198.51.100.1")
    #expect(throttled.status == 429)
    #expect(throttled.headers["Retry-After"] != nil)
    #expect(try signIn("name21", from: "127.0.0.8").status == 401, "another address is not held up")
  }

  @Test func theSignInFormIsThrottledToo() throws {
    let site = try LiveSite()
    let browser = Browser(site.server, from: "127.0.0.3")
    for attempt in 1...5 {
      #expect(try browser.signIn(LiveSite.reviewer, "guess \(attempt)").status == 401, "attempt \(attempt)")
    }
    let sixth = try browser.signIn(LiveSite.reviewer, "guess 6")
    #expect(sixth.status == 429)
    #expect(sixth.headers["Retry-After"].flatMap { Int($0) } ?? 0 >= 1)
    #expect(sixth.text.contains("too many failed sign-ins lately"))
    #expect(sixth.setCookie(Self.session) == nil)
  }

  // MARK: Tokens

  @Test func aRevokedTokenStopsWorkingAtOnce() throws {
    let site = try LiveSite()
    let client = try site.connect()
    let review = Array(#"{"title":"Before","rating":3,"category":"movie"}"#.utf8)
    let headers = [site.bearer, ("Content-Type", "application/json")]
    #expect(try client.request("POST", "/api/reviews", headers: headers, body: review).status == 201)
    let revoked = try site.library.run("user", "token", LiveSite.reviewer, "--revoke")
    #expect(revoked.status == 0)
    #expect(revoked.output == "Revoked 1 token of \(LiveSite.reviewer)\n")
    // The very next request, on the same kept-alive connection.
    let refused = try client.request("POST", "/api/reviews", headers: headers, body: review)
    #expect(refused.status == 401)
    #expect(
      refused.errorMessage
        == "the API token is not valid (revoked, or mistyped): `catalogue user token NAME` makes a new one")
    #expect(try site.request("GET", "/api/session", signed: true).status == 401)
    #expect(try site.library.count("reviews") == 1)
  }

  /// A token put in a query string, under a credential's name or any other, is not written to
  /// the request log; the rest of the target is.
  @Test func aTokenInAQueryStringIsNotLogged() throws {
    let site = try LiveSite()
    // The API answers 400 to a parameter it does not know; the log has the request all the same.
    #expect(try site.request("GET", "/api/reviews?limit=1&access_token=\(site.token)").status == 400)
    #expect(try site.request("GET", "/?view=list&t=\(site.token)").status == 200)
    #expect(site.server.stop() == 0)
    let log = site.server.log
    #expect(!log.contains(site.token), "\(log)")
    #expect(!log.contains(String(site.token.dropFirst(4))), "\(log)")
    #expect(log.contains(" GET /api/reviews?limit=1&access_token=REDACTED 400 "), "\(log)")
    #expect(log.contains(" GET /?view=list&t=REDACTED 200 "), "\(log)")
  }
}
