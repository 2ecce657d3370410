import Catalogue
import HTTP

extension Pages {
  /// `POST /preview` with `body`: the review's text as its page will show it (Markdown through
  /// cmark, raw HTML left out, as `HTML.markdown` renders every review), for the editor's
  /// preview. A fragment, not a page; a reviewer's only, with the session's CSRF token, so that
  /// it is no rendering service for anyone else.
  @Sendable static func preview(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    var headers = HTTPHeaders()
    headers.set("Content-Type", "text/html; charset=utf-8")
    return HTTPResponse(status: 200, headers: headers, body: Array(HTML.markdown(exchange.form["body"] ?? "").utf8))
  }
}
