public import Catalogue
import Foundation
public import HTTP
import ImagePipeline

/// How the server behaves, beyond the HTTP layer's own limits.
public struct ServerOptions: Sendable {
  /// Honour `X-Forwarded-Proto` and `X-Forwarded-For` from a reverse proxy in front: cookies
  /// are then `Secure` when the proxy took HTTPS, and sign-ins are throttled by the client's
  /// address rather than the proxy's. Only for a server that no one reaches but through the
  /// proxy.
  public var trustProxy = false
  public var sessionPolicy = SessionPolicy.standard
  /// The most bytes one upload request may carry (all its pictures together).
  public var maximumUploadBytes = 1 << 30
  /// The most bytes of a form or JSON body: a review's body may hold 16 MiB of text.
  public var maximumFormBytes = ReviewDraft.maximumBodyBytes + (1 << 20)
  /// Where uploads are streamed before they are imported.
  public var uploadFolder: String
  /// Reviews a page of the grid shows.
  public var pageSize = 50
  /// How many bytes of readers' pages are kept until the library changes (0: none).
  public var pageCacheBytes = 3 << 20
  /// The address readers reach the site at (`--public-url`), which every absolute URL is built
  /// from; without it, the library's setting, else (with ``trustProxy`` only) the request's
  /// host, else none (see ``CatalogueService/site(for:)``).
  public var publicURL: PublicURL?

  public init(uploadFolder: String) {
    self.uploadFolder = uploadFolder
  }
}

/// The catalogue over HTTP: pages for readers and reviewers, the JSON API, and the library's
/// pictures. Handlers are plain functions over the library (see ``Routes``); this type
/// decides where each request runs, who is asking, and turns failures into answers.
public final class CatalogueService: HTTPService {
  let options: ServerOptions
  let pool: LibraryPool
  let router: Router
  /// Readers' pages until the library changes.
  let pages: PageCache
  let signInGuard = SignInGuard()
  let signInTokens = SignInTokens()
  /// New-review forms already sent, and forms kept for reviewers whose session ended.
  let forms: FormMemory

  /// The library folder.
  public var libraryPath: String { pool.path }
  /// Why the library could be opened only to read (a read-only or full disk), when it could:
  /// the server then serves readers only, and refuses every write and sign-in at once.
  public var readOnlyReason: ReadOnlyReason? { pool.readOnlyReason }
  /// The library folder held open: pictures are opened beneath it, through no symlink.
  let folder: Folder

  /// Opens the library (bringing an older schema up to date) and makes the upload folder.
  /// `database` names the library's PostgreSQL database when its folder does not.
  public init(libraryPath: String, database: String? = nil, options: ServerOptions) throws(CatalogueError) {
    self.options = options
    let pages = PageCache(maximumBytes: options.pageCacheBytes)
    self.pages = pages
    self.pool = try LibraryPool(path: libraryPath, database: database) { pages.invalidate() }
    do {
      self.folder = try Folder(path: pool.path)
    } catch {
      throw .io(operation: .open, path: pool.path, code: error.code)
    }
    self.router = Router(routes: Routes.all)
    self.forms = FormMemory(folder: options.uploadFolder)
  }

  // MARK: HTTPService

  public func plan(for head: HTTPRequestHead) -> RequestPlan {
    guard let path = head.pathSegments else {
      return .respond(errorResponse(status: 400, message: "the request's path is malformed", head: head))
    }
    let route: Route
    let captures: [String: String]
    switch router.match(method: head.method, path: path) {
    case .found(let found, let captured):
      (route, captures) = (found, captured)
    case .notFound, .methodNotAllowed:
      // Answered at once, whatever body came with it.
      return .respond(respond(to: HTTPRequest(head: head, body: [], parts: [])))
    }
    // A library that can only be read: readers are served; whatever writes (signing in
    // included, and the reviewers' forms) is refused before a byte of its body is read.
    if let reason = readOnlyReason, route.writes {
      return .respond(answer(Failure.readOnly(reason), route: route, head: head, identity: nil))
    }
    let hasCredentials = Self.credentials(in: head) != nil
    // An upload from someone who cannot write is refused before a byte of it is read.
    if route.access == .reviewer && !hasCredentials && route.body != .none {
      return .respond(answer(Failure.signInNeeded, route: route, head: head, identity: nil))
    }
    var limit: BodyLimit
    switch route.body {
    case .none:
      limit = .none
    case .json:
      limit = BodyLimit(maximumBytes: options.maximumFormBytes)
    case .form, .upload:
      limit = BodyLimit(
        maximumBytes: route.body == .upload ? options.maximumUploadBytes : options.maximumFormBytes,
        multipart: MultipartLimit(
          maximumParts: 200, maximumFileBytes: maximumFileBytes, maximumFieldBytes: options.maximumFormBytes,
          temporaryFolder: options.uploadFolder))
    }
    // Without credentials a body is a sign-in, a few hundred bytes: held to far less than a
    // reviewer's upload, so that strangers cannot hold connections with bodies.
    if !hasCredentials && route.body != .none {
      limit.maximumBytes = min(limit.maximumBytes, Self.anonymousBodyBytes)
      if let fields = limit.multipart?.maximumFieldBytes {
        limit.multipart?.maximumFieldBytes = min(fields, Self.anonymousBodyBytes)
      }
      limit.pace = Self.anonymousPace
    }
    // Whatever reads or writes the library runs on a worker, off the connections' threads,
    // which keep serving files and the readers' pages the cache holds: a write may wait for a
    // lock, a search may take a hundred milliseconds on a large library, a new connection opens
    // the database. (Workers run at a lower priority, so thumbnails keep their pace; uploads,
    // decoded whole and thumbnailed, lower still, so that readers' pages made afresh keep theirs.)
    let worker = route.isFile ? route.needsWork?(self, head, captures) == true : !isKeptPage(route, head)
    return .read(
      limit, onWorker: worker, planned: RouteMatch(route: route, captures: captures), background: route.body == .upload)
  }

  public func respond(to request: HTTPRequest) -> HTTPResponse {
    // The route the plan matched, carried here: each request's route is matched once.
    if let match = request.planned as? RouteMatch {
      return serve(match.route, captures: match.captures, request: request)
    }
    let head = request.head
    guard let path = head.pathSegments else {
      return errorResponse(status: 400, message: "the request's path is malformed", head: head)
    }
    switch router.match(method: head.method, path: path) {
    case .notFound:
      return errorResponse(status: 404, message: "nothing at \(head.path)", head: head)
    case .methodNotAllowed(let allowed):
      var response = errorResponse(
        status: 405, message: "\(head.method) is not allowed here; use \(allowed.joined(separator: ", "))", head: head)
      response.headers.set("Allow", allowed.joined(separator: ", "))
      return response
    case .found(let route, let captures):
      return serve(route, captures: captures, request: request)
    }
  }

  public func errorResponse(status: Int, message: String, head: HTTPRequestHead?) -> HTTPResponse {
    let isAPI = head.map { $0.path.hasPrefix("/api/") || $0.path == "/api" } ?? false
    let failure = Failure(status, message)
    return isAPI ? Self.json(failure) : Pages.error(failure, identity: nil)
  }

  /// A picture over the library's file-size cap, in the words `catalogue attach` uses, naming
  /// the file as it was uploaded.
  public func oversizedPartResponse(_ part: OversizedPart, message: String, head: HTTPRequestHead) -> HTTPResponse {
    let name = Exchange.uploadName(part.filename)
    let error = CatalogueError.fileTooLarge(path: name, bytes: part.bytes, cap: part.limit)
    guard head.path.hasPrefix("/api/") else { return Pages.error(Failure(error), identity: nil) }
    return API.error(
      error.description, status: 413, failures: [ImportFailure(source: name, error: error)])
  }

  // MARK: Serving a route

  private func serve(_ route: Route, captures: [String: String], request: HTTPRequest) -> HTTPResponse {
    var passage = Passage(route: route, captures: captures, request: request, form: form(of: request, route: route))
    do {
      return try run(&passage, from: 0)
    } catch {
      // The first step answers every failure; this is its own.
      return answer(error, route: route, head: request.head, identity: passage.identity)
    }
  }

  /// The form fields of `request`, for a route that takes a form.
  private func form(of request: HTTPRequest, route: Route) -> FormFields {
    route.body == .form || route.body == .upload ? FormFields(request) : FormFields()
  }

  /// The answer to a failure: JSON for the API; for pages, the sign-in page when signing in is
  /// what is missing, else an error page.
  func answer(_ failure: Failure, route: Route, head: HTTPRequestHead, identity: Identity?) -> HTTPResponse {
    if route.isAPI { return Self.json(failure) }
    if failure.status == 401 {
      // Back to where the reader was: the page itself for a GET, the page a form was on for a
      // POST (its Referer, when it is ours), so that a session that ran out costs one sign-in.
      var next = head.method == "GET" || head.method == "HEAD" ? head.target : "/"
      if head.method == "POST", let referer = head.headers["Referer"], let local = Self.localPath(ofURL: referer) {
        next = local
      }
      return signInFirst(head, next: next)
    }
    return Pages.error(failure, identity: identity)
  }

  /// To the sign-in page, and to `next` after it; an ended session's cookie is deleted, and
  /// the page says that it ended.
  func signInFirst(_ head: HTTPRequestHead, next: String) -> HTTPResponse {
    let expired = head.cookies[CookieName.session] != nil
    var response = Pages.redirect(to: "/sign-in?next=\(Pages.percentEncode(next))\(expired ? "&expired=1" : "")")
    if expired { response.headers.add("Set-Cookie", Cookie.expired(CookieName.session, secure: isSecure(head))) }
    return response
  }

  /// Security headers on every answer, whoever made it: a route, the catch-all 404 and 405, an
  /// error the HTTP layer found (400, 413), a plan's answer. Pages get their policy; anything
  /// else that names none of its own (JSON, redirects, empty answers) gets one that loads
  /// nothing and may not be framed, so that an answer opened as a document in a browser can do
  /// nothing either; pictures keep the sandbox they are served with.
  public func prepareForSending(_ response: inout HTTPResponse, head: HTTPRequestHead?) {
    response.headers.set("X-Content-Type-Options", "nosniff")
    response.headers.set("X-Frame-Options", "DENY")
    // On a redirect too: it decides what the next request tells the site it goes to.
    response.headers.set("Referrer-Policy", "same-origin")
    if response.headers["Content-Type"]?.hasPrefix("text/html") == true {
      response.headers.set("Content-Security-Policy", Pages.contentSecurityPolicy)
    } else if response.headers["Content-Security-Policy"] == nil {
      response.headers.set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
    }
  }

  // MARK: Who is asking

  enum Credentials {
    case bearer(String)
    case session(String)
  }

  /// The credentials a request carries: a bearer token first, else the session cookie.
  static func credentials(in head: HTTPRequestHead) -> Credentials? {
    if let authorization = head.headers["Authorization"] {
      let parts = authorization.split(separator: " ", maxSplits: 1)
      if parts.count == 2, parts[0].lowercased() == "bearer" {
        return .bearer(parts[1].trimmingCharacters(in: .whitespaces))
      }
    }
    if let secret = head.cookies[CookieName.session], !secret.isEmpty { return .session(secret) }
    return nil
  }

  /// The reviewer the request's credentials name, or nil. A bearer token that names no one is
  /// refused outright (a script should hear that its token is wrong); a session cookie that
  /// names no live session is just a reader.
  func authenticate(_ head: HTTPRequestHead) throws(Failure) -> Identity? {
    // No one is signed in to a library that can only be read (a session's use is a write).
    guard readOnlyReason == nil, let credentials = Self.credentials(in: head) else { return nil }
    switch credentials {
    case .bearer(let token):
      let reviewer = try library(author: nil) { (library) throws(CatalogueError) in
        try library.reviewer(forToken: token)
      }
      guard let reviewer else {
        throw Failure(
          401, "the API token is not valid (revoked, or mistyped): `catalogue user token NAME` makes a new one",
          headers: ["WWW-Authenticate": #"Bearer realm="catalogue", error="invalid_token""#])
      }
      return Identity(reviewer: reviewer, credential: .token)
    case .session(let secret):
      let found = try library(author: nil) { (library) throws(CatalogueError) in
        try library.session(secret: secret, policy: options.sessionPolicy)
      }
      guard let found else { return nil }
      return Identity(reviewer: found.grant.reviewer, credential: .session(found.grant, renewed: found.renewed))
    }
  }

  /// Refuses a request its asker may not make: a reviewer's route without a reviewer, or a
  /// write by a browser session that does not carry the session's CSRF token, or that comes
  /// from another site.
  func authorize(_ route: Route, head: HTTPRequestHead, form: FormFields, identity: Identity?) throws(Failure) {
    if route.access == .reviewer && identity == nil { throw Failure.signInNeeded }
    guard !["GET", "HEAD", "OPTIONS"].contains(head.method), !route.checksOwnForgery, let identity,
      let expected = identity.csrfToken
    else { return }
    try checkSameOrigin(head)
    let given = route.isAPI ? head.headers[CSRF.header] : (head.headers[CSRF.header] ?? form[CSRF.field])
    guard CSRF.matches(given, expected) else {
      var failure = Failure(
        403,
        route.isAPI
          ? "a write with a session cookie needs the session's CSRF token in the \(CSRF.header) header (POST /api/session and GET /api/session give it)"
          : "this form is out of date (it does not carry your session's token): reload the page and try again")
      failure.formOutOfDate = !route.isAPI
      throw failure
    }
  }

  /// Refuses a write a browser says another site started (`Origin` or `Sec-Fetch-Site`).
  func checkSameOrigin(_ head: HTTPRequestHead) throws(Failure) {
    if let site = head.headers["Sec-Fetch-Site"], site == "cross-site" {
      throw Failure(403, "a write from another site is refused")
    }
    if let origin = head.headers["Origin"], origin != "null", let own = ownOrigin(head) {
      if origin.lowercased() != own.lowercased() {
        throw Failure(403, "a write from another site (\(origin)) is refused")
      }
    }
  }

  /// Whether the browser says the request comes from a page of this site (`Sec-Fetch-Site`,
  /// or an `Origin` that is this site's): only such a form is kept when it cannot be saved, so
  /// that no other site can fill a reviewer's form for them to save.
  func comesFromOwnPage(_ head: HTTPRequestHead) -> Bool {
    if let site = head.headers["Sec-Fetch-Site"] { return site == "same-origin" }
    guard let origin = head.headers["Origin"], let own = ownOrigin(head) else { return false }
    return origin.lowercased() == own.lowercased()
  }

  /// This site's origin as the request reached it (its `Host`, over HTTPS through a proxy we
  /// trust to say so), or nil without a `Host`.
  func ownOrigin(_ head: HTTPRequestHead) -> String? {
    head.headers["Host"].map { (isSecure(head) ? "https://" : "http://") + $0 }
  }

  /// Whether the request came over HTTPS (through a proxy we trust to say so).
  func isSecure(_ head: HTTPRequestHead) -> Bool {
    options.trustProxy && head.headers["X-Forwarded-Proto"]?.lowercased() == "https"
  }

  /// The address the pages' absolute URLs are built from: `--public-url`, else the library's
  /// `public_url` setting, else, behind a trusted proxy, the host the request was sent to (the
  /// proxy's `X-Forwarded-Host`, or `Host`) and the scheme it came over. Without any of them,
  /// nil: a page then leaves out what needs one (`og:image`, the canonical link), since a
  /// `Host` that anyone can send must not name the site in what the cache keeps and shares.
  func site(for head: HTTPRequestHead) -> PublicURL? {
    if let url = options.publicURL ?? pool.publicURL { return url }
    guard options.trustProxy else { return nil }
    // The last of a list, as for `X-Forwarded-For`: what the proxy next to the server saw.
    let forwarded = head.headers["X-Forwarded-Host"]?.split(separator: ",").last.map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    guard let host = forwarded ?? head.headers["Host"] else { return nil }
    return PublicURL(scheme: isSecure(head) ? "https" : "http", host: host)
  }

  /// What the readers' page cache keeps `head`'s page under: its target, and the host it was
  /// asked of when the page's absolute URLs come from the request (see ``site(for:)``).
  func pageKey(_ head: HTTPRequestHead) -> String {
    guard options.trustProxy, options.publicURL == nil, pool.publicURL == nil else { return head.target }
    return head.target + "\n" + (site(for: head)?.description ?? "")
  }

  /// The client's address: the proxy's last hop when a trusted proxy says whom it served.
  func clientAddress(_ head: HTTPRequestHead) -> String {
    if options.trustProxy, let forwarded = head.headers["X-Forwarded-For"],
      let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
    {
      return last
    }
    return head.remoteAddress
  }

  // MARK: The library

  /// Closes the library's connections: for a server that has stopped (see
  /// ``LibraryPool/close()``).
  public func close() { pool.close() }

  /// Runs `body` with a library of the pool, its errors as failures.
  func library<T>(author: String?, _ body: (Library) throws(CatalogueError) -> T) throws(Failure) -> T {
    do {
      return try pool.with(author: author, body)
    } catch {
      throw Failure(error)
    }
  }

  /// Has a connection of the pool look whether the library changed (which moves the page
  /// cache's generation on when it did).
  func lookForChanges() throws(Failure) {
    do {
      try pool.look()
    } catch {
      throw Failure(error)
    }
  }

  /// Whether the cache holds the page `head` asks, for anyone to see: answered on the
  /// connection's thread, which only asks SQLite whether the library changed (its change
  /// counter, in the write-ahead log's shared-memory index) before sending it.
  func isKeptPage(_ route: Route, _ head: HTTPRequestHead) -> Bool {
    route.isCacheable && Self.credentials(in: head) == nil && head.cookies[CookieName.notice] == nil
      && options.pageCacheBytes > 0 && pages.page(pageKey(head), generation: pages.generation) != nil
  }

  /// The most bytes of a body sent without credentials (a sign-in form or its JSON).
  static let anonymousBodyBytes = 64 << 10
  /// How slowly a body sent without credentials may come: whole within 10 seconds, its length
  /// announced (a chunked one is refused with 411, so that it is never read at all).
  static let anonymousPace = BodyPace(minimumBytesPerSecond: 1024, window: 10, deadline: 10, requiresLength: true)

  /// The largest picture file an upload may hold: the library's own cap, as a connection of the
  /// pool last read it (a cap changed since is in force at the import, which refuses the file
  /// with the reason).
  var maximumFileBytes: Int { pool.fileSizeCap }

  // MARK: Helpers

  /// `url`'s path and query when it names a page of this server (a Referer), else nil.
  static func localPath(ofURL url: String) -> String? {
    guard let schemeEnd = url.range(of: "://") else { return nil }
    let rest = url[schemeEnd.upperBound...]
    guard let slash = rest.firstIndex(of: "/") else { return "/" }
    return Pages.safeNext(String(rest[slash...]))
  }

  /// A failure as the API's JSON: `{"error": "..."}`.
  static func json(_ failure: Failure) -> HTTPResponse {
    var response = API.error(failure.message, status: failure.status)
    for (name, value) in failure.headers { response.headers.set(name, value) }
    response.logNote = failure.detail
    return response
  }
}
