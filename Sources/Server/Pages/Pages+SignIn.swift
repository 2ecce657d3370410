import Catalogue
import Foundation
import HTTP

extension Pages {
  /// `GET /sign-in`: the form, with a token of its own in a cookie and a hidden field (there is
  /// no session yet to tie one to), so that another site cannot sign a browser in.
  @Sendable static func signInForm(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let query = exchange.head.query
    let next = query["next"].flatMap(safeNext) ?? "/"
    if let identity = exchange.identity {
      return document(
        title: "Signed in", identity: identity,
        main: [
          "<h1>Signed in</h1>",
          "<p>You are signed in as <strong>\(e(identity.reviewer))</strong>. <a href=\"\(e(next))\">Go on</a>.</p>",
        ])
    }
    var messages: [String] = []
    if query["expired"] != nil {
      messages.append(
        next.contains("?kept=")
          ? "Your session has ended: sign in again, and what you typed comes back to its form, to be saved."
          : "Your session has ended: sign in again to go on (a change you were making was not saved).")
    }
    return signInPage(exchange, name: "", next: next, problems: messages, status: 200)
  }

  /// `POST /sign-in`: checks the form's token (and takes it: each works once), the throttle and
  /// the password; on success a new session (a new id, whatever cookie came in), the form's
  /// cookie cleared, and back to where the reader was.
  @Sendable static func signIn(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let service = exchange.service
    let head = exchange.head
    let form = exchange.form
    let name = (form["name"] ?? "").trimmingCharacters(in: .whitespaces)
    let password = form["password"] ?? ""
    let next = form["next"].flatMap(safeNext) ?? "/"
    do {
      try service.checkSameOrigin(head)
    } catch {
      return signInPage(exchange, name: name, next: next, problems: [error.message], status: 403)
    }
    let expired = "The sign-in form had expired (or this browser refuses cookies): please sign in again."
    guard let cookie = head.cookies[CookieName.signIn], CSRF.matches(form[CSRF.field], cookie) else {
      return signInPage(exchange, name: name, next: next, problems: [expired], status: 403)
    }
    switch service.signInTokens.take(cookie) {
    case .taken:
      break
    case .invalid:
      return signInPage(exchange, name: name, next: next, problems: [expired], status: 403)
    case .usedAlready:
      return signInPage(
        exchange, name: name, next: next,
        problems: ["This sign-in form was sent already, and each works once: please sign in again."], status: 403)
    }
    let outcome = service.signIn(name: name, password: password, head: head)
    switch outcome {
    case .throttled(let seconds, let message):
      var response = signInPage(exchange, name: name, next: next, problems: [message], status: 429)
      response.headers.set("Retry-After", String(seconds))
      return response
    case .refused(let message):
      return signInPage(exchange, name: name, next: next, problems: [message], status: 401)
    case .failed(let failure):
      return error(failure, identity: nil)
    case .signedIn(let grant):
      return redirect(
        to: next,
        headers: [
          (
            "Set-Cookie",
            Cookie.session(grant, policy: service.options.sessionPolicy, secure: exchange.isSecure, now: Date())
          ),
          ("Set-Cookie", Cookie.expired(CookieName.signIn, secure: exchange.isSecure)),
        ])
    }
  }

  /// `POST /sign-out`: ends the session here and in the library.
  @Sendable static func signOut(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    if case .session(let grant, _)? = exchange.identity?.credential {
      try exchange.library { (library) throws(CatalogueError) in try library.endSession(secret: grant.secret) }
    }
    var response = redirect(to: "/", notice: Notice(said: "Signed out."), exchange)
    response.headers.add("Set-Cookie", Cookie.expired(CookieName.session, secure: exchange.isSecure))
    return response
  }

  /// The sign-in form with a fresh token (cookie and field), the name kept, and what went wrong.
  static func signInPage(_ exchange: Exchange, name: String, next: String, problems messages: [String], status: Int)
    -> HTTPResponse
  {
    let token = exchange.service.signInTokens.make()
    var main = ["<h1>Sign in</h1>"]
    main += problems(messages)
    main += [
      #"<form class="signin" method="post" action="/sign-in">"#,
      hidden(CSRF.field, token),
      hidden("next", next),
      #"<label>Name <input type="text" name="name" value="\#(e(name))" autocomplete="username" required autofocus></label>"#,
      #"<label>Password <input type="password" name="password" autocomplete="current-password" required></label>"#,
      #"<button class="primary">Sign in</button>"#,
      "</form>",
      "<p>Reading needs no account. Reviewers are added on the server with <code>catalogue user add NAME</code>.</p>",
    ]
    var response = document(title: "Sign in", identity: nil, main: main, status: status)
    response.headers.add("Set-Cookie", Cookie.signIn(token, secure: exchange.isSecure))
    response.headers.set("Cache-Control", "no-store")
    return response
  }
}

/// What a sign-in came to.
enum SignInOutcome: Sendable {
  case signedIn(SessionGrant)
  /// A wrong name or password: the same words for both.
  case refused(String)
  /// Too many failures lately, for the account or the address.
  case throttled(seconds: Int, message: String)
  case failed(Failure)
}

extension CatalogueService {
  /// Signs a reviewer in, for the form and the API alike: throttled (see ``SignInGuard``)
  /// before the password is looked at, the password verified (as slowly for an unknown name
  /// as for a known one), then a new session, and the address remembered as one the reviewer
  /// signs in from.
  func signIn(name: String, password: String, head: HTTPRequestHead) -> SignInOutcome {
    let address = clientAddress(head)
    let now = Date()
    do {
      let wait = try signInGuard.wait(name: name, address: address, now: now) { () throws(Failure) in
        try library(author: nil) { (library) throws(CatalogueError) in
          try library.signedInLately(name, from: address, now: now)
        }
      }
      if let wait {
        let seconds = Int(wait.rounded(.up))
        return .throttled(
          seconds: seconds,
          message: "too many failed sign-ins lately: wait \(seconds) second\(seconds == 1 ? "" : "s") and try again")
      }
      // An id the browser held before is ended with the same connection, before the new
      // session starts: the session it signs in with is new, and a failure to end the old one
      // is the sign-in's failure, not a session left valid in silence.
      let old = head.cookies[CookieName.session].flatMap { $0.isEmpty ? nil : $0 }
      let session = try library(author: nil) { (library) throws(CatalogueError) -> SessionGrant? in
        guard let reviewer = try library.verifyPassword(name: name, password: password, now: now) else { return nil }
        if let old { try library.endSession(secret: old) }
        return try library.startSession(for: reviewer, policy: options.sessionPolicy, from: address, now: now)
      }
      guard let session else {
        signInGuard.failed(name: name, address: address, now: now)
        return .refused("wrong name or password")
      }
      signInGuard.succeeded(name: name, address: address)
      return .signedIn(session)
    } catch {
      return .failed(error)
    }
  }
}
