import HTTP

/// Who may use a route.
enum Access: Sendable {
  /// Anyone, signed in or not.
  case everyone
  /// Signed-in reviewers only (a session cookie, or a bearer token for the API).
  case reviewer
}

/// What a route takes as its body.
enum BodyKind: Sendable {
  /// No body.
  case none
  /// A form: `application/x-www-form-urlencoded`, or `multipart/form-data` with files.
  case form
  /// `application/json`.
  case json
  /// `multipart/form-data` with pictures.
  case upload
}

/// A route: a method and a path pattern, to a handler.
///
/// A pattern is a list of segments: literal ones, and `:name` ones that capture any one
/// (percent-decoded) segment. The handler checks what it captured; the router only matches.
struct Route: Sendable {
  enum Segment: Sendable, Equatable {
    case literal(String)
    case capture(String)
  }

  let method: String
  let segments: [Segment]
  let access: Access
  let body: BodyKind
  /// Whether the route answers with JSON (the API) rather than a page.
  let isAPI: Bool
  /// Whether the route serves files and pictures, which need no identity: a browser's cookie
  /// on a thumbnail request is never looked at.
  let isFile: Bool
  /// Whether the handler guards against forgery itself (signing in, where there is no session
  /// token yet), instead of the session's CSRF token.
  let checksOwnForgery: Bool
  /// Whether readers' answers may be kept in the page cache until the library changes.
  let isCacheable: Bool
  /// The form typed by hand the route takes, if any: when its session has ended or its token
  /// is out of date, the form is kept for the reviewer to save once back, not dropped.
  let keepsForm: KeptForm.Kind?
  /// Whether a reviewer's Back must give the page as it was sent (a form whose token a second
  /// press must carry again): kept by the browser (`private, no-cache`) rather than stored by
  /// no one (`private, no-store`), as every other page a reviewer is shown.
  let keptOnBack: Bool
  /// For a file route, whether this request has work to do before its file can be served (a
  /// picture to make), decided from its head: it then runs on a worker.
  let needsWork: (@Sendable (CatalogueService, HTTPRequestHead, [String: String]) -> Bool)?
  let handler: @Sendable (Exchange) throws(Failure) -> HTTPResponse

  /// Whether the route writes, or leads a reviewer to a write: anything but a reader's GET,
  /// and the sign-in form (a sign-in writes a session).
  var writes: Bool {
    method != "GET" || access == .reviewer || segments == [.literal("sign-in")]
  }

  init(
    _ method: String, _ pattern: String, access: Access = .everyone, body: BodyKind = .none, file: Bool = false,
    checksOwnForgery: Bool = false, cacheable: Bool = false,
    keepsForm: KeptForm.Kind? = nil, keptOnBack: Bool = false,
    needsWork: (@Sendable (CatalogueService, HTTPRequestHead, [String: String]) -> Bool)? = nil,
    _ handler: @escaping @Sendable (Exchange) throws(Failure) -> HTTPResponse
  ) {
    self.method = method
    self.segments = pattern.split(separator: "/").map { part in
      part.hasPrefix(":") ? .capture(String(part.dropFirst())) : .literal(String(part))
    }
    self.access = access
    self.body = body
    self.isAPI = pattern.hasPrefix("/api/")
    self.isFile = file
    self.checksOwnForgery = checksOwnForgery
    self.isCacheable = cacheable && method == "GET"
    self.keepsForm = keepsForm
    self.keptOnBack = keptOnBack
    self.needsWork = needsWork
    self.handler = handler
  }

  /// The captures when `path` matches the pattern, else nil.
  func captures(_ path: [String]) -> [String: String]? {
    guard path.count == segments.count else { return nil }
    var captured: [String: String] = [:]
    for (segment, part) in zip(segments, path) {
      switch segment {
      case .literal(let text): if text != part { return nil }
      case .capture(let name): captured[name] = part
      }
    }
    return captured
  }
}

/// A table of routes, matched in order.
struct Router: Sendable {
  enum Match {
    case found(Route, [String: String])
    /// The path exists, but not for this method; the methods it has.
    case methodNotAllowed([String])
    case notFound
  }

  let routes: [Route]

  func match(method: String, path: [String]) -> Match {
    // HEAD is GET without the body: libmicrohttpd leaves the body out.
    let method = method == "HEAD" ? "GET" : method
    var allowed: [String] = []
    for route in routes {
      guard let captured = route.captures(path) else { continue }
      if route.method == method { return .found(route, captured) }
      if !allowed.contains(route.method) { allowed.append(route.method) }
    }
    if allowed.isEmpty { return .notFound }
    if allowed.contains("GET") { allowed.append("HEAD") }
    return .methodNotAllowed(allowed)
  }
}

/// A route a request's head matched, with what its path captured: what the plan hands on to
/// the answer.
struct RouteMatch: Sendable {
  let route: Route
  let captures: [String: String]
}
