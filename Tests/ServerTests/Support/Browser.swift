import HTTPTestSupport
import Foundation
import HTTP
import Testing

/// What a browser does for its user: keeps the cookies the server sets (each sent back on the
/// paths it names), signs in through the form, and posts forms with the session's CSRF token.
final class Browser {
  let server: ServeProcess
  /// The loopback address the browser connects from (127.0.0.1 when nil).
  let source: String?
  /// Cookies as a browser keys them (RFC 6265 section 5.3): by name and path, so that a cookie
  /// cleared on another path than it was set on stays.
  private(set) var jar: [CookieKey: String] = [:]

  struct CookieKey: Hashable {
    var name: String
    var path: String
  }

  init(_ server: ServeProcess, from source: String? = nil) {
    self.server = server
    self.source = source
  }

  /// The cookies by name, with the path each is kept for (the longest, when a name is kept
  /// for several).
  var cookies: [String: (value: String, path: String)] {
    var cookies: [String: (value: String, path: String)] = [:]
    for (key, value) in jar where key.path.count >= (cookies[key.name]?.path.count ?? 0) {
      cookies[key.name] = (value, key.path)
    }
    return cookies
  }

  /// The Cookie header for `target`, or nil: the cookies whose path matches its path, the
  /// longest paths first, as a browser sends them.
  private func cookieHeader(for target: String) -> [(String, String)] {
    let path = String(target.prefix { $0 != "?" })
    let sent = jar.filter { Self.pathMatches(path, $0.key.path) }
      .sorted { ($0.key.path.count, $1.key.name) > ($1.key.path.count, $0.key.name) }
      .map { "\($0.key.name)=\($0.value)" }
    return sent.isEmpty ? [] : [("Cookie", sent.joined(separator: "; "))]
  }

  /// RFC 6265 section 5.1.4: a cookie for `cookiePath` is sent for `path` when it is the same,
  /// or below it.
  static func pathMatches(_ path: String, _ cookiePath: String) -> Bool {
    path == cookiePath
      || (path.hasPrefix(cookiePath) && (cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).hasPrefix("/")))
  }

  /// Takes the cookies a response sets (a `Max-Age=0` one deletes the cookie of its name and
  /// path, and no other).
  private func keep(_ response: Response) {
    for line in response.headers.values("Set-Cookie") {
      let attributes = line.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
      guard let pair = attributes.first, let equals = pair.firstIndex(of: "=") else { continue }
      let name = String(pair[..<equals])
      let value = String(pair[pair.index(after: equals)...])
      let path = attributes.first { $0.hasPrefix("Path=") }.map { String($0.dropFirst(5)) } ?? "/"
      let key = CookieKey(name: name, path: path)
      if attributes.contains("Max-Age=0") || value.isEmpty {
        jar[key] = nil
      } else {
        jar[key] = value
      }
    }
  }

  /// Sets a cookie as if the server had (what a fixation attack plants).
  func plant(_ name: String, _ value: String, path: String = "/") {
    jar[CookieKey(name: name, path: path)] = value
  }

  /// A request with this browser's cookies, on a connection of its own.
  func request(
    _ method: String = "GET", _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
  ) throws -> Response {
    let response = try server.connect(source: source).request(
      method, target, headers: headers + cookieHeader(for: target), body: body)
    keep(response)
    return response
  }

  func get(_ target: String, headers: [(String, String)] = []) throws -> Response {
    try request("GET", target, headers: headers)
  }

  /// Posts a URL-encoded form, with the session's CSRF token added unless `csrf` is false.
  func post(
    _ target: String, _ fields: [(String, String)] = [], csrf: Bool = true, headers: [(String, String)] = []
  ) throws -> Response {
    var fields = fields
    if csrf, let token = try csrfToken() { fields.append(("csrf", token)) }
    return try request(
      "POST", target, headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers,
      body: Array(Self.encode(fields).utf8))
  }

  /// Posts a multipart form (the CSRF token added as its first field unless `csrf` is false).
  func upload(_ target: String, _ form: Multipart, csrf: Bool = true) throws -> Response {
    var form = form
    if csrf, let token = try csrfToken() {
      form.parts.insert(Multipart.Part(name: "csrf", bytes: Array(token.utf8)), at: 0)
    }
    return try request("POST", target, headers: [("Content-Type", form.contentType)], body: form.bytes)
  }

  /// The session's CSRF token as the API gives it, or nil without a session.
  func csrfToken() throws -> String? {
    guard cookies["catalogue_session"] != nil else { return nil }
    let session = try get("/api/session")
    guard session.status == 200 else { return nil }
    return try session.json()["csrfToken"] as? String
  }

  /// Signs in through the form (GET the form for its token, POST it); the POST's answer.
  @discardableResult
  func signIn(_ name: String, _ password: String, next: String = "/") throws -> Response {
    let form = try get("/sign-in")
    try #require(form.status == 200, "GET /sign-in: \(form.status)")
    let token = try #require(Self.signInToken(form.text), "no sign-in form: \(form)")
    return try post(
      "/sign-in", [("name", name), ("password", password), ("next", next), ("csrf", token)], csrf: false)
  }

  /// The value of the hidden input `name` in `html` (after `marker` when given), or nil.
  static func hiddenField(_ name: String, in html: String, after marker: String? = nil) -> String? {
    var html = html[...]
    if let marker {
      guard let found = html.range(of: marker) else { return nil }
      html = html[found.upperBound...]
    }
    guard let start = html.range(of: #"<input type="hidden" name="\#(name)" value=""#) else { return nil }
    let rest = html[start.upperBound...]
    return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
  }

  /// The sign-in form's own token, in a page that shows the form.
  static func signInToken(_ html: String) -> String? {
    hiddenField("csrf", in: html, after: #"<form class="signin""#)
  }

  /// `fields` as `application/x-www-form-urlencoded`.
  static func encode(_ fields: [(String, String)]) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return fields.map {
      "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)"
    }.joined(separator: "&")
  }
}
