import HTTPTestSupport
import Foundation
import HTTP
import Testing
import TestSupport

/// The security headers are on every answer the built server gives, not only on the pages a
/// route makes: the catch-all 404 and 405, the errors the HTTP layer finds before any route is
/// reached (a malformed path, a body too large by its Content-Length), and the API's JSON.
@Suite("Security headers on every answer", .sharedServer { _ in })
struct SecurityHeaderTests {
  /// Sends a request head alone (its answer comes before any body) and reads the answer.
  static func headOnly(_ server: ServeProcess, _ head: String) throws -> Response {
    let client = try server.connect()
    try client.send(head + "\r\n")
    return try client.readResponse(method: String(head.prefix { $0 != " " }))
  }

  static func answers(_ server: ServeProcess) throws -> [(what: String, status: Int, response: Response)] {
    let picture = Multipart(files: [("a.jpg", try Fixture.bytes(Fixture.image("baseline.jpg")))])
    return [
      ("a page", 200, try server.request("GET", "/")),
      ("an unknown path", 404, try server.request("GET", "/no/such/page")),
      ("a wrong method", 405, try server.request("DELETE", "/")),
      (
        "a form too large by its Content-Length", 413,
        try headOnly(
          server,
          "POST /sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + "Content-Length: 100000000\r\n")
      ),
      ("a malformed path", 400, try server.request("GET", "/reviews/%zz")),
      ("an unknown API path", 404, try server.request("GET", "/api/nothing")),
      ("no such review in the API", 404, try server.request("GET", "/api/reviews/0123456789abcdef")),
      (
        "JSON too large by its Content-Length", 413,
        try headOnly(
          server,
          "POST /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: 100000000\r\n")
      ),
      (
        "an anonymous upload, refused before its body", 401,
        try server.connect().upload("POST", "/api/reviews/0123456789abcdef/images", picture)
      ),
    ]
  }

  @Test func everyAnswerCarriesTheSecurityHeaders() throws {
    let server = try SharedServer.server
    for (what, status, response) in try Self.answers(server) {
      #expect(response.status == status, "\(what): \(response)")
      #expect(response.headers["X-Content-Type-Options"] == "nosniff", "\(what)")
      #expect(response.headers["X-Frame-Options"] == "DENY", "\(what)")
      #expect(response.headers["Referrer-Policy"] == "same-origin", "\(what)")
      let policy = response.headers["Content-Security-Policy"] ?? ""
      #expect(policy.contains("default-src 'none'"), "\(what): \(policy)")
      #expect(policy.contains("frame-ancestors 'none'"), "\(what): \(policy)")
      if response.headers["Content-Type"]?.hasPrefix("text/html") == true {
        // A page gets the pages' own policy: its style sheet and script, nothing else.
        #expect(policy.contains("script-src 'self'"), "\(what): \(policy)")
      } else {
        #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true, "\(what)")
        #expect(!policy.contains("script-src"), "JSON loads nothing: \(what): \(policy)")
      }
    }
  }
}
