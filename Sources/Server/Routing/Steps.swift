import Catalogue
import Foundation
import HTTP

/// A request on its way through the steps to its handler: the route its head matched (once,
/// when it was planned), what the path captured, the request, its form, and who is asking once
/// a step has found out.
struct Passage: Sendable {
  let route: Route
  let captures: [String: String]
  let request: HTTPRequest
  let form: FormFields
  var identity: Identity?

  var head: HTTPRequestHead { request.head }
}

/// One step around the handlers, as a web framework's middleware: it looks at the passage,
/// may answer at once, and otherwise hands it on with `next` and may change the answer that
/// comes back. ``CatalogueService/steps`` lists them in the order a request meets them.
protocol Step: Sendable {
  func handle(
    _ passage: inout Passage, service: CatalogueService,
    next: (inout Passage) throws(Failure) -> HTTPResponse
  ) throws(Failure) -> HTTPResponse
}

extension CatalogueService {
  /// The steps every route's request goes through, outermost first; then its handler.
  /// (Security headers are not a step: every answer gets them in ``prepareForSending(_:head:)``,
  /// those the HTTP layer makes itself included.)
  static let steps: [any Step] = [
    KeepReviewersPagesPrivate(), AnswerFailures(), Identify(), Authorize(), InvalidatePagesAfterWrites(),
    SayNoticesOnce(), AnswerNotModified(), KeepReadersPages(),
  ]

  /// Runs `passage` through the steps from `index`, then its handler.
  func run(_ passage: inout Passage, from index: Int) throws(Failure) -> HTTPResponse {
    guard index < Self.steps.count else {
      let exchange = Exchange(
        request: passage.request, captures: passage.captures, identity: passage.identity, service: self,
        form: passage.form)
      return try passage.route.handler(exchange)
    }
    return try Self.steps[index].handle(&passage, service: self) { (passage) throws(Failure) in
      try run(&passage, from: index + 1)
    }
  }
}

/// A failure becomes its answer: JSON for the API, a page (or the sign-in page) for a browser.
/// A review's form that came too late for its session, or from a page older than the
/// reviewer's last sign-in, is kept, and comes back to its page (after a sign-in when the
/// session has ended).
struct AnswerFailures: Step {
  func handle(
    _ passage: inout Passage, service: CatalogueService, next: (inout Passage) throws(Failure) -> HTTPResponse
  ) throws(Failure) -> HTTPResponse {
    do {
      return try next(&passage)
    } catch {
      let (route, head) = (passage.route, passage.head)
      if let kind = route.keepsForm, error.status == 401 || error.formOutOfDate, service.comesFromOwnPage(head),
        let (kept, path) = Pages.keep(
          kind, passage, in: service.forms, reason: error.status == 401 ? .signedOut : .outOfDate)
      {
        let page = path + "?kept=" + kept
        return error.status == 401 ? service.signInFirst(head, next: page) : Pages.redirect(to: page)
      }
      return service.answer(error, route: route, head: head, identity: passage.identity)
    }
  }
}

/// What a signed-in reviewer is shown (or a browser with a session cookie) is kept by no
/// cache; a page of a route ``Route/keptOnBack`` by the reviewer's browser alone.
struct KeepReviewersPagesPrivate: Step {
  func handle(
    _ passage: inout Passage, service: CatalogueService, next: (inout Passage) throws(Failure) -> HTTPResponse
  ) throws(Failure) -> HTTPResponse {
    var response = try next(&passage)
    if passage.identity != nil || passage.head.cookies[CookieName.session] != nil {
      let keptOnBack = passage.route.keptOnBack && response.status == 200
      response.headers.set("Cache-Control", keptOnBack ? "private, no-cache" : "private, no-store")
      response.headers.add("Vary", "Cookie")
    }
    return response
  }
}

/// Who is asking (not for pictures and assets: a browser's cookie on a thumbnail request is
/// never looked at); a session used far into its life is renewed on the answer.
struct Identify: Step {
  func handle(
    _ passage: inout Passage, service: CatalogueService, next: (inout Passage) throws(Failure) -> HTTPResponse
  ) throws(Failure) -> HTTPResponse {
    guard !passage.route.isFile else { return try next(&passage) }
    passage.identity = try service.authenticate(passage.head)
    var response = try next(&passage)
    if case .session(let grant, renewed: true)? = passage.identity?.credential {
      response.headers.add(
        "Set-Cookie",
        Cookie.session(
          grant, policy: service.options.sessionPolicy, secure: service.isSecure(passage.head), now: Date()))
    }
    return response
  }
}

/// A reviewer's route needs a reviewer; a write with a session cookie needs the session's
/// CSRF token and this site's origin.
struct Authorize: Step {
  func handle(
    _ passage: inout Passage, service: CatalogueService, next: (inout Passage) throws(Failure) -> HTTPResponse
  ) throws(Failure) -> HTTPResponse {
    if !passage.route.isFile {
      try service.authorize(passage.route, head: passage.head, form: passage.form, identity: passage.identity)
    }
    return try next(&passage)
  }
}

/// Whatever a write did (or began to do before it failed), the pages kept may be stale.
struct InvalidatePagesAfterWrites: Step {
  func handle(
    _ passage: inout Passage, service: CatalogueService, next: (inout Passage) throws(Failure) -> HTTPResponse
  ) throws(Failure) -> HTTPResponse {
    defer { if passage.route.method != "GET" { service.pages.invalidate() } }
    return try next(&passage)
  }
}

/// A notice a redirect carried (see ``Notice``) is said once: the page that shows it deletes
/// it, and is kept by no cache.
struct SayNoticesOnce: Step {
  func handle(
    _ passage: inout Passage, service: CatalogueService, next: (inout Passage) throws(Failure) -> HTTPResponse
  ) throws(Failure) -> HTTPResponse {
    var response = try next(&passage)
    if passage.head.cookies[CookieName.notice] != nil && passage.route.method == "GET"
      && response.headers["Content-Type"]?.hasPrefix("text/html") == true
    {
      response.headers.add("Set-Cookie", Cookie.expired(CookieName.notice, secure: service.isSecure(passage.head)))
      response.headers.set("Cache-Control", "no-store")
    }
    return response
  }
}

/// What anyone may see is kept until the library changes. A request with credentials is never
/// answered from it, nor kept; nor is a page that says what a change did.
struct KeepReadersPages: Step {
  func handle(
    _ passage: inout Passage, service: CatalogueService, next: (inout Passage) throws(Failure) -> HTTPResponse
  ) throws(Failure) -> HTTPResponse {
    let head = passage.head
    guard passage.route.isCacheable, CatalogueService.credentials(in: head) == nil,
      head.cookies[CookieName.notice] == nil, service.options.pageCacheBytes > 0
    else { return try next(&passage) }
    try service.lookForChanges()
    let generation = service.pages.generation
    let key = service.pageKey(head)
    if let kept = service.pages.page(key, generation: generation) { return kept }
    let response = try next(&passage)
    if response.status == 200 { service.pages.keep(response, for: key, generation: generation) }
    return response
  }
}

/// An answer that carries an `ETag` (a feed, the sitemap) is not sent again to a client that
/// holds it: `If-None-Match` naming it gets `304 Not Modified`, with the headers a cache
/// refreshes and no body. Whether it came from the readers' page cache or was made afresh.
struct AnswerNotModified: Step {
  func handle(
    _ passage: inout Passage, service: CatalogueService, next: (inout Passage) throws(Failure) -> HTTPResponse
  ) throws(Failure) -> HTTPResponse {
    let response = try next(&passage)
    guard response.status == 200, let etag = response.headers["ETag"],
      let asked = passage.head.headers["If-None-Match"], Self.matches(asked, etag)
    else { return response }
    var headers = HTTPHeaders()
    for name in ["ETag", "Cache-Control", "Content-Type", "Vary"] {
      if let value = response.headers[name] { headers.set(name, value) }
    }
    // Not sent, but said: the length the body has (a 304 must not claim an empty one).
    if case .bytes(let body) = response.body { headers.set("Content-Length", String(body.count)) }
    return HTTPResponse(status: 304, headers: headers)
  }

  /// Whether an `If-None-Match` list names `etag` (weakly, as RFC 9110 asks of a GET), or is `*`.
  static func matches(_ list: String, _ etag: String) -> Bool {
    func opaque(_ tag: Substring) -> Substring { tag.hasPrefix("W/") ? tag.dropFirst(2) : tag }
    let wanted = opaque(Substring(etag))
    return list.split(separator: ",").contains { item in
      let tag = item.trimmingCharacters(in: .whitespaces)
      return tag == "*" || opaque(Substring(tag)) == wanted
    }
  }
}
