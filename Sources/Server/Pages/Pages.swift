import Catalogue
import Foundation
import HTTP

/// The server's pages: HTML built from the export pages' parts (``HTML``), every value
/// escaped where it is written, no inline script or style, so that the content security
/// policy can forbid both.
enum Pages {
  /// `connect-src 'self'`: the script uploads dropped pictures to this server, and nowhere else.
  static let contentSecurityPolicy =
    "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; "
    + "form-action 'self'; "
    + "frame-ancestors 'none'; base-uri 'none'"

  /// Escapes text for an element or a quoted attribute.
  static func e(_ text: String) -> String { HTML.escape(text) }

  // MARK: The document

  /// What the site calls itself: in the bar at the top, feeds, share previews and cards.
  static let siteName = "Reviews"

  /// A whole page: the bar at the top (home, search, who is signed in), then `main`. `head`
  /// is what else the page says of itself (its description, share preview, feeds).
  static func document(
    title: String, identity: Identity?, main: [String], status: Int = 200, search: String = "",
    head: [String] = []
  ) -> HTTPResponse {
    var lines = [
      "<!DOCTYPE html>",
      #"<html lang="en">"#,
      "<head>",
      #"<meta charset="utf-8">"#,
      #"<meta name="viewport" content="width=device-width, initial-scale=1">"#,
      "<title>\(e(title))</title>",
    ]
    lines += head
    lines += [
      #"<link rel="stylesheet" href="/assets/\#(Assets.style.name)">"#,
      // Not deferred: it sets the theme chosen in this browser before anything is drawn.
      #"<script src="/assets/\#(Assets.script.name)"></script>"#,
      "</head>",
      "<body>",
      // The first thing a keyboard reaches: past the bar, straight to what the page is for.
      ##"<a class="skip" href="#main">Skip to the content</a>"##,
      #"<header class="site">"#,
      #"<a class="home" href="/">\#(siteName)</a>"#,
      #"<form class="search" action="/" method="get" role="search">"#
        + #"<input type="search" name="q" value="\#(e(search))" placeholder="Search reviews" aria-label="Search reviews">"#
        + "<button>Search</button></form>",
      #"<nav class="account">"#,
    ]
    if let identity {
      lines.append(#"<a href="/new">New review</a>"#)
      lines.append(#"<span class="signed-in">Signed in as <strong>\#(e(identity.reviewer))</strong></span>"#)
      lines.append(
        #"<form method="post" action="/sign-out">\#(csrfField(identity))<button class="link-button">Sign out</button></form>"#
      )
    } else {
      lines.append(#"<a href="/sign-in">Sign in</a>"#)
    }
    lines += ["</nav>", "</header>", #"<main id="main" tabindex="-1">"#]
    lines += main
    lines += ["</main>", "</body>", "</html>", ""]
    var headers = HTTPHeaders()
    headers.set("Content-Type", "text/html; charset=utf-8")
    if identity == nil { headers.set("Cache-Control", "no-cache") }
    return HTTPResponse(status: status, headers: headers, body: Array(lines.joined(separator: "\n").utf8))
  }

  /// `303 See Other` to `location` (a path of this server).
  static func redirect(to location: String, headers extra: [(String, String)] = []) -> HTTPResponse {
    var headers = HTTPHeaders()
    headers.set("Location", location)
    headers.set("Content-Type", "text/html; charset=utf-8")
    for (name, value) in extra { headers.add(name, value) }
    return HTTPResponse(
      status: 303, headers: headers, body: Array(#"<!DOCTYPE html><p><a href="\#(e(location))">Continue</a></p>"#.utf8))
  }

  /// A page that says what went wrong, with the status.
  static func error(_ failure: Failure, identity: Identity?) -> HTTPResponse {
    var response = document(
      title: title(of: failure.status), identity: identity,
      main: [
        "<h1>\(e(title(of: failure.status)))</h1>",
        #"<p class="problem">\#(e(failure.message))</p>"#,
        #"<p><a href="/">Back to the reviews</a></p>"#,
      ], status: failure.status)
    for (name, value) in failure.headers { response.headers.set(name, value) }
    response.logNote = failure.detail
    return response
  }

  static func title(of status: Int) -> String {
    switch status {
    case 400: return "That did not work"
    case 401: return "Sign in first"
    case 403: return "Not allowed"
    case 404: return "Not found"
    case 405: return "Not allowed here"
    case 409: return "Already there"
    case 413: return "Too large"
    case 415: return "Not a picture the catalogue takes"
    case 429: return "Too many tries"
    case 503: return "Busy"
    default: return "Something went wrong"
    }
  }

  // MARK: Parts

  /// The hidden field with the session's CSRF token, for every form a reviewer posts.
  static func csrfField(_ identity: Identity?) -> String {
    guard let token = identity?.csrfToken else { return "" }
    return hidden(CSRF.field, token)
  }

  static func hidden(_ name: String, _ value: String) -> String {
    #"<input type="hidden" name="\#(e(name))" value="\#(e(value))">"#
  }

  /// `303 See Other` to `location`, with `notice` for the page there to say once.
  static func redirect(to location: String, notice: Notice, _ exchange: Exchange) -> HTTPResponse {
    redirect(
      to: location,
      headers: [
        ("Set-Cookie", Cookie.make(CookieName.notice, notice.cookieValue, maxAge: 300, secure: exchange.isSecure))
      ]
    )
  }

  /// The notice the redirect to this page carried, or nothing: what was done, where the focus
  /// goes (a screen reader says it), with what did not work beside it.
  static func notice(_ exchange: Exchange) -> [String] {
    guard let notice = exchange.notice else { return [] }
    var lines = [#"<div class="notice" role="status" tabindex="-1" autofocus><p>\#(e(notice.said))</p>"#]
    if !notice.details.isEmpty { lines.append("<ul>" + notice.details.map { "<li>\(e($0))</li>" }.joined() + "</ul>") }
    lines.append("</div>")
    if !notice.problems.isEmpty {
      lines.append(
        #"<div class="problem" role="alert"><ul>"# + notice.problems.map { "<li>\(e($0))</li>" }.joined()
          + "</ul></div>")
    }
    return lines
  }

  /// A list of problems in a box, or nothing. With `focus`, the box takes the focus when the
  /// page opens (no field of the form is the one at fault).
  static func problems(_ messages: [String], focus: Bool = false) -> [String] {
    guard !messages.isEmpty else { return [] }
    let open = #"<div class="problem" id="problems" role="alert" tabindex="-1"\#(focus ? " autofocus" : "")>"#
    if messages.count == 1 { return [open + e(messages[0]) + "</div>"] }
    return [open + "<ul>"] + messages.map { "<li>\(e($0))</li>" } + ["</ul></div>"]
  }

  /// The messages of a failure: each refused picture on its own line.
  static func messages(of error: CatalogueError) -> [String] {
    switch error {
    case .picturesRefused(let failures, _):
      return [error.description] + failures.map { $0.error.description }
    case .unknownCategory(let label, let suggestion):
      return [
        Failure.newCategoryQuestion(label, suggestion)
          + " To add \(label) as a category of its own, tick “A new category of my own”."
      ]
    default:
      return [error.description]
    }
  }

  // MARK: URLs

  /// `text` percent-encoded for a query value.
  static func percentEncode(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~/")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
  }

  /// `next` when it is a path of this server ("/…", not "//host" or "/\\host"), else nil: a
  /// sign-in never sends a reader to another site.
  static func safeNext(_ next: String) -> String? {
    guard next.hasPrefix("/"), !next.hasPrefix("//"), !next.hasPrefix("/\\"),
      !next.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\\" })
    else { return nil }
    return next
  }

  /// A query string from pairs, the empty values left out.
  static func query(_ pairs: [(String, String?)]) -> String {
    let kept = pairs.compactMap { name, value in value.flatMap { $0.isEmpty ? nil : "\(name)=\(percentEncode($0))" } }
    return kept.isEmpty ? "" : "?" + kept.joined(separator: "&")
  }

  /// The page of a review.
  static func reviewPath(_ id: String) -> String { "/reviews/\(id)" }
}
