import Foundation
import Catalogue
import HTTP

/// Who is asking: a signed-in reviewer, through a browser session or an API token.
struct Identity: Sendable {
  enum Credential: Sendable {
    /// A browser session; the cookie is sent again when the session was renewed.
    case session(SessionGrant, renewed: Bool)
    /// `Authorization: Bearer …`: scripts, which need no CSRF token.
    case token
  }

  var reviewer: String
  var credential: Credential

  /// The token every form and cookie-authenticated API write must carry: derived from the
  /// session's secret, so it needs no storage and changes with every sign-in. Nil for tokens.
  var csrfToken: String? {
    guard case .session(let grant, _) = credential else { return nil }
    return CSRF.token(forSession: grant.secret)
  }
}

/// The names of the cookies the server sets.
enum CookieName {
  /// The session: HttpOnly, SameSite=Lax, Secure over HTTPS.
  static let session = "catalogue_session"
  /// The sign-in form's own CSRF token, before there is a session (login CSRF).
  static let signIn = "catalogue_signin"
  /// What the page after a change says once (see ``Notice``).
  static let notice = "catalogue_notice"
}

/// Cross-site request forgery tokens.
enum CSRF {
  /// The form field that carries the token.
  static let field = "csrf"
  /// The header a cookie-authenticated API write carries it in.
  static let header = "X-CSRF-Token"

  /// The token for the session whose secret is `secret`: a hash of it under a label of its own
  /// (the secret itself is never put in a page).
  static func token(forSession secret: String) -> String {
    SHA256.hex(Array("catalogue csrf token\u{0}\(secret)".utf8))
  }

  /// Whether `given` is `expected`, compared in constant time.
  static func matches(_ given: String?, _ expected: String) -> Bool {
    guard let given else { return false }
    return Secrets.equal(given, expected)
  }
}

/// Cookies as the server writes them.
enum Cookie {
  /// The attributes a cookie is always written with, by its name: a browser keys a cookie by
  /// its name, domain and path, so one cleared on another path than it was set on is kept.
  /// Writing both from here keeps them the same.
  private static func attributes(of name: String) -> (path: String, sameSite: String) {
    switch name {
    // Strict, and only on /sign-in: the token is only ever needed by that form, posted from
    // this site.
    case CookieName.signIn: return ("/sign-in", "Strict")
    default: return ("/", "Lax")
    }
  }

  /// A `Set-Cookie` value: the path and SameSite the cookie `name` always has, HttpOnly
  /// always, `Secure` when the request came over HTTPS, and a lifetime in seconds (0 deletes
  /// the cookie).
  static func make(_ name: String, _ value: String, maxAge: Int, secure: Bool) -> String {
    let (path, sameSite) = attributes(of: name)
    var parts = ["\(name)=\(value)", "Path=\(path)", "Max-Age=\(max(0, maxAge))", "HttpOnly", "SameSite=\(sameSite)"]
    if secure { parts.append("Secure") }
    return parts.joined(separator: "; ")
  }

  static func session(_ grant: SessionGrant, policy: SessionPolicy, secure: Bool, now: Date) -> String {
    make(CookieName.session, grant.secret, maxAge: Int(grant.expires.timeIntervalSince(now).rounded()), secure: secure)
  }

  /// The sign-in form's token, for as long as the token is good.
  static func signIn(_ token: String, secure: Bool) -> String {
    make(CookieName.signIn, token, maxAge: SignInTokens.lifetime, secure: secure)
  }

  /// Deletes the cookie `name`, on the path it was set on.
  static func expired(_ name: String, secure: Bool) -> String {
    make(name, "", maxAge: 0, secure: secure)
  }
}
