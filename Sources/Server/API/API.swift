import Catalogue
import Foundation
import HTTP

/// The JSON API: the command line's `--json` shapes, with the URLs of each picture, and the
/// library's own messages in `{"error": …}` with the status that fits.
enum API {
  // MARK: Reading

  /// `GET /api/reviews`: a page, with the filters and paging of `catalogue list` as query
  /// parameters (`category`, `min-rating`, `favorites`, `search`, `sort`, `reverse`, `limit`,
  /// `offset`, and `by`: a reviewer's name), and `show`: which reviews, `published`, `drafts`
  /// or `all`.
  ///
  /// Without credentials only published reviews are listed (and counted): `show=published` is
  /// the default and the only choice, `drafts` and `all` are refused with 401, as for any
  /// reviewer's route. With a reviewer's token or session, `show` defaults to `all`, and each
  /// review says whether it is a `draft`.
  @Sendable static func list(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let query = try listQuery(exchange.head.query, reviewer: exchange.identity != nil)
    let page = try exchange.library { (library) throws(CatalogueError) in try library.list(query) }
    return json(text: JSONShape.Page(page, urls: Files.urls).compactJSON)
  }

  /// The library's query that `parameters` say; for a reader (`reviewer` false), of published
  /// reviews only.
  static func listQuery(_ parameters: QueryParameters, reviewer: Bool) throws(Failure) -> ReviewQuery {
    let known: Set<String> = [
      "category", "min-rating", "favorites", "search", "sort", "reverse", "limit", "offset", "show", "by",
    ]
    if let unknown = parameters.pairs.first(where: { !known.contains($0.name) }) {
      throw Failure.badRequest(
        "unknown parameter \(unknown.name): give \(known.sorted().joined(separator: ", "))")
    }
    var input = ReviewQueryInput()
    input.category = parameters["category"]
    input.minimumRating = parameters["min-rating"]
    input.favorites = parameters["favorites"]
    input.search = parameters["search"]
    input.sort = parameters["sort"]
    input.reverse = parameters["reverse"]
    input.limit = parameters["limit"]
    input.offset = parameters["offset"]
    input.by = parameters["by"]
    var showing = reviewer ? ReviewQuery.Showing.all : .published
    if let text = parameters["show"] {
      guard let asked = ReviewQuery.Showing(rawValue: text) else {
        throw Failure.badRequest("show must be published, drafts or all, not \(text)")
      }
      if !reviewer && asked != .published {
        var failure = Failure.signInNeeded
        failure.message = "show=\(text) lists drafts, which only reviewers see: sign in, or send an API token"
        throw failure
      }
      showing = asked
    }
    do {
      // A page of JSON holds at most 500 reviews; the rules are the library's.
      var query = try ReviewQuery(input, names: .parameters, maximumLimit: 500)
      query.showing = showing
      return query
    } catch {
      throw Failure(error)
    }
  }

  /// `GET /api/reviews/ID`: the review as `catalogue show --json` prints it, with URLs. A
  /// draft is for reviewers only: without credentials its id is 404, with the words of an id
  /// no review has.
  @Sendable static func show(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let reference = exchange.capture("id")
    let publishedOnly = exchange.identity == nil
    let review = try exchange.library { (library) throws(CatalogueError) in
      try library.review(reference, publishedOnly: publishedOnly)
    }
    var response = try json(JSONShape.Review(review, urls: Files.urls))
    response.headers.set("ETag", #""\#(review.version)""#)
    return response
  }

  /// `GET /api/reviewers/NAME`: `{name, displayName, bio, reviews}`, the name as stored
  /// (it matches in any case), `displayName` and `bio` null for none, and how many reviews
  /// they wrote: published ones for a reader, to whom a reviewer who has published nothing is
  /// 404, as a name no one has.
  @Sendable static func reviewer(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let name = exchange.capture("name")
    let publishedOnly = exchange.identity == nil
    let profile = try exchange.library { (library) throws(CatalogueError) in
      try library.reviewerProfile(named: name, publishedOnly: publishedOnly)
    }
    guard let profile else { throw Failure.notFound("no reviewer \(name): the address may be mistyped") }
    return try json(JSONShape.ReviewerProfile(profile))
  }

  /// `PATCH /api/reviewers/NAME` with `displayName` and `bio` (a string sets one, `""` or
  /// `null` clears it, a field left out stays): the reviewer's own profile only (403 for
  /// another's), checked whole before anything changes. Answers as the GET does, drafts
  /// counted.
  @Sendable static func editReviewer(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let object = try body(exchange, allowed: ["displayName", "bio"])
    let shown = try clearable(object, "displayName")
    let bio = try clearable(object, "bio")
    guard shown != nil || bio != nil else { throw Failure.badRequest("nothing to change: give displayName or bio") }
    let name = exchange.capture("name")
    let signedIn = exchange.identity?.reviewer
    let profile = try exchange.library { (library) throws(CatalogueError) -> ReviewerProfile? in
      guard let account = try library.reviewer(named: name) else { throw .reviewerNotFound(name) }
      guard account.name == signedIn else { return nil }
      return try library.editReviewer(account.name, displayName: shown, bio: bio)
    }
    guard let profile else { throw Failure(403, "a reviewer may change only their own profile, not \(name)'s") }
    return try json(JSONShape.ReviewerProfile(profile))
  }

  /// The version an `If-Match` header names (a strong or weak entity tag), or nil for none or
  /// `*` (any version).
  static func expectedVersion(_ head: HTTPRequestHead) -> String? {
    guard var tag = head.headers["If-Match"]?.trimmingCharacters(in: .whitespaces), tag != "*" else { return nil }
    if tag.hasPrefix("W/") { tag.removeFirst(2) }
    return tag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
  }

  // MARK: Writing

  static let reviewKeys: Set<String> = [
    "title", "body", "rating", "category", "favorite", "newCategory", "containsSpoilers", "draft",
  ]

  /// `POST /api/reviews` with `title`, `body`, `rating`, `category`, `favorite` (and
  /// `newCategory: true` for a label the library has not used), `containsSpoilers` (the whole
  /// review gives away what happens: readers are asked before its body) and `draft` (`true`
  /// keeps it from readers until it is published): 201 with the review. Published unless
  /// `draft` says otherwise, as before drafts existed: scripts rely on it.
  @Sendable static func create(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let object = try body(exchange, allowed: reviewKeys)
    var missing: [String] = []
    for key in ["title", "rating", "category"] where object[key] == nil { missing.append(key) }
    if !missing.isEmpty { throw Failure.badRequest("a new review needs \(missing.joined(separator: ", "))") }
    let changes = try reviewChanges(object)
    let draft = ReviewDraft(
      title: changes.title ?? "", body: changes.body ?? "", rating: changes.rating ?? 0,
      category: changes.category ?? "", favorite: changes.favorite ?? false,
      containsSpoilers: changes.containsSpoilers ?? false, publish: changes.publish ?? true,
      newCategory: changes.newCategory)
    let review = try exchange.library { (library) throws(CatalogueError) in try library.create(draft) }
    var response = try json(JSONShape.Review(review, urls: Files.urls), status: 201)
    response.headers.set("Location", "/api/reviews/\(review.id)")
    return response
  }

  /// `PATCH /api/reviews/ID`: changes the fields given, in one transaction. `draft: false`
  /// publishes a draft (now; its updated time stays), `draft: true` takes a review back to a
  /// draft; `containsSpoilers` sets or clears the whole-review warning.
  @Sendable static func edit(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let object = try body(exchange, allowed: reviewKeys)
    let changes = try reviewChanges(object)
    guard !changes.isEmpty else {
      throw Failure.badRequest(
        "nothing to change: give title, body, rating, category, favorite, containsSpoilers or draft")
    }
    let reference = exchange.capture("id")
    // With `If-Match` (the `ETag` a GET gave), an edit of a review changed since is refused.
    let version = expectedVersion(exchange.head)
    let review: Review
    do {
      review = try exchange.library { (library) throws(CatalogueError) in
        try library.update(reference, changes: changes, from: version)
      }
    } catch  where error.status == 409 && version != nil {
      throw Failure(412, error.message + " (its ETag has changed: GET it again)")
    }
    var response = try json(JSONShape.Review(review, urls: Files.urls))
    response.headers.set("ETag", #""\#(review.version)""#)
    return response
  }

  /// `DELETE /api/reviews/ID`: `{"removed": review}`, as `catalogue remove --json` prints.
  @Sendable static func remove(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let reference = exchange.capture("id")
    let removed = try exchange.library { (library) throws(CatalogueError) in try library.delete(reference) }
    return try json(["removed": JSONShape.Review(removed, urls: nil)])
  }

  /// `POST /api/reviews/ID/images`, multipart with parts named `file`: attaches them as
  /// `catalogue attach` does and answers with its shape. When none could be used, the first
  /// one's failure is the answer's status (415 not a picture, 413 too large, 409 attached
  /// already). Fields `alt` and `caption` describe the picture, when there is one.
  @Sendable static func attach(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let uploads = try files(exchange)
    let text = PictureText(alt: exchange.form["alt"], caption: exchange.form["caption"])
    if !text.isEmpty && uploads.count != 1 {
      throw Failure.badRequest(
        "alt and caption describe one picture, and \(uploads.count) were sent: send them one at a time, "
          + "or describe each after with PATCH /api/reviews/ID/images/N")
    }
    let reference = exchange.capture("id")
    let report = try exchange.library { (library) throws(CatalogueError) in
      try library.attach(
        files: uploads.map(\.file.path), named: uploads.map(\.filename), to: reference, text: text, jobs: importJobs)
    }
    if report.attached.isEmpty, let first = report.failures.first {
      return error(first.error.description, status: Failure.status(of: first.error), failures: report.failures)
    }
    return try json(JSONShape.Attach(report, urls: Files.urls), status: report.attached.isEmpty ? 200 : 201)
  }

  /// `PUT /api/reviews/ID/images/N`, multipart with one part named `file`: replaces picture N.
  @Sendable static func replace(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let uploads = try files(exchange)
    guard uploads.count == 1, let upload = uploads.first else {
      throw Failure.badRequest("a replacement is one picture: give one part named file")
    }
    let reference = exchange.capture("id")
    let image = exchange.capture("image")
    let result = try exchange.library { (library) throws(CatalogueError) in
      try library.replace(reference, image: image, with: upload.file.path, named: upload.filename)
    }
    return try json(JSONShape.Review(result.review, urls: Files.urls))
  }

  /// `PATCH /api/reviews/ID/images/N` with `{"position": M}` (moves picture N to M), `alt`
  /// and `caption` (a string sets one, `""` or `null` clears it), any of them. The text is
  /// checked before anything changes.
  @Sendable static func move(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let object = try body(exchange, allowed: ["position", "alt", "caption"])
    let position = try int(object, "position")
    let alt = try clearable(object, "alt")
    let caption = try clearable(object, "caption")
    guard position != nil || alt != nil || caption != nil else {
      throw Failure.badRequest("nothing to change: give position, alt or caption")
    }
    let reference = exchange.capture("id")
    let image = exchange.capture("image")
    let review = try exchange.library { (library) throws(CatalogueError) -> Review in
      var review = try library.review(reference)
      // Named by its hash from here: a move changes its position.
      let picture = try library.image(image, of: review.id).image.sha256
      if alt != nil || caption != nil {
        _ = try PictureText(alt: alt, caption: caption).validated(for: "picture \(image) of review \(review.id)")
      }
      if let position { review = try library.move(review.id, image: picture, to: position) }
      if alt != nil || caption != nil {
        review = try library.describe(review.id, image: picture, alt: alt, caption: caption)
      }
      return review
    }
    return try json(JSONShape.Review(review, urls: Files.urls))
  }

  /// A text field that `null` clears: absent is `nil`, `null` is `""`.
  static func clearable(_ object: [String: JSONValue], _ key: String) throws(Failure) -> String? {
    if case .null? = object[key] { return "" }
    return try string(object, key)
  }

  /// `DELETE /api/reviews/ID/images/N`: detaches picture N (a position or a hash prefix).
  @Sendable static func detach(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let reference = exchange.capture("id")
    let image = exchange.capture("image")
    let review = try exchange.library { (library) throws(CatalogueError) in try library.detach(reference, image: image)
    }
    return try json(JSONShape.Review(review, urls: Files.urls))
  }

  /// `PUT /api/reviews/ID/cover` with `{"image": "2"}` (a position or a hash prefix).
  @Sendable static func cover(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let object = try body(exchange, allowed: ["image"])
    let image: String
    switch object["image"] {
    case .number(let number)? where Int(exactly: number) != nil: image = String(Int(number))
    case .string(let text)?: image = text
    default: throw Failure.badRequest("give the cover as image: a position (1, 2, …) or a prefix of its hash")
    }
    let reference = exchange.capture("id")
    let review = try exchange.library { (library) throws(CatalogueError) in
      try library.setCover(reference, image: image)
    }
    return try json(JSONShape.Review(review, urls: Files.urls))
  }

  // MARK: Sessions

  /// `GET /api/session`: who is signed in, and the CSRF token for cookie-authenticated writes.
  @Sendable static func currentSession(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    guard let identity = exchange.identity else { throw Failure(401, "not signed in") }
    return try json(session(identity, expires: nil))
  }

  /// `POST /api/session` with `{"name", "password"}`: signs in and sets the session cookie.
  @Sendable static func signIn(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let service = exchange.service
    try service.checkSameOrigin(exchange.head)
    let object = try body(exchange, allowed: ["name", "password"])
    guard case .string(let name)? = object["name"], case .string(let password)? = object["password"] else {
      throw Failure.badRequest("give name and password, as strings")
    }
    switch service.signIn(name: name, password: password, head: exchange.head) {
    case .throttled(let seconds, let message):
      throw Failure(429, message, headers: ["Retry-After": String(seconds)])
    case .refused(let message):
      throw Failure(401, message)
    case .failed(let failure):
      throw failure
    case .signedIn(let grant):
      let identity = Identity(reviewer: grant.reviewer, credential: .session(grant, renewed: false))
      var response = try json(session(identity, expires: grant.expires))
      response.headers.add(
        "Set-Cookie",
        Cookie.session(grant, policy: service.options.sessionPolicy, secure: exchange.isSecure, now: Date()))
      return response
    }
  }

  /// `DELETE /api/session`: signs out (ends the session) and clears the cookie.
  @Sendable static func signOut(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    if case .session(let grant, _)? = exchange.identity?.credential {
      try exchange.library { (library) throws(CatalogueError) in try library.endSession(secret: grant.secret) }
    }
    var headers = HTTPHeaders()
    headers.add("Set-Cookie", Cookie.expired(CookieName.session, secure: exchange.isSecure))
    return HTTPResponse(status: 204, headers: headers)
  }

  struct SessionJSON: Encodable {
    let reviewer: String
    let csrfToken: String?
    let expires: String?
  }

  static func session(_ identity: Identity, expires: Date?) -> SessionJSON {
    var until = expires
    if until == nil, case .session(let grant, _) = identity.credential { until = grant.expires }
    return SessionJSON(reviewer: identity.reviewer, csrfToken: identity.csrfToken, expires: until.map(DateText.format))
  }

  // MARK: Bodies

  /// The request's JSON object, with no key but `allowed`.
  static func body(_ exchange: Exchange, allowed: Set<String>) throws(Failure) -> [String: JSONValue] {
    let type = exchange.head.headers["Content-Type"]?.lowercased() ?? ""
    guard type.hasPrefix("application/json") else {
      throw Failure(415, "send JSON with Content-Type: application/json")
    }
    guard let parsed = JSONValue.parse(exchange.request.body) else {
      throw Failure.badRequest("the body is not valid JSON")
    }
    guard case .object(let object) = parsed else { throw Failure.badRequest("the body must be a JSON object") }
    if let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
      throw Failure.badRequest("unknown field \(unknown): give \(allowed.sorted().joined(separator: ", "))")
    }
    return object
  }

  /// The changes a review's JSON asks for; `draft` is the opposite of publishing.
  static func reviewChanges(_ object: [String: JSONValue]) throws(Failure) -> ReviewChanges {
    var changes = ReviewChanges(
      title: try string(object, "title"), body: try string(object, "body"), rating: try int(object, "rating"),
      category: try string(object, "category"), favorite: try bool(object, "favorite"),
      containsSpoilers: try bool(object, "containsSpoilers"), publish: try bool(object, "draft").map { !$0 })
    changes.newCategory = try bool(object, "newCategory") ?? false
    return changes
  }

  /// A field that must be a string when given (null or absent: nil).
  static func string(_ object: [String: JSONValue], _ key: String) throws(Failure) -> String? {
    switch object[key] {
    case nil, .null?: return nil
    case .string(let text)?: return text
    default: throw Failure.badRequest("\(key) must be a string")
    }
  }

  /// A field that must be a whole number when given.
  static func int(_ object: [String: JSONValue], _ key: String) throws(Failure) -> Int? {
    switch object[key] {
    case nil, .null?: return nil
    case .number(let number)?:
      guard let whole = Int(exactly: number) else { throw Failure.badRequest("\(key) must be a whole number") }
      return whole
    default: throw Failure.badRequest("\(key) must be a whole number")
    }
  }

  /// A field that must be true or false when given.
  static func bool(_ object: [String: JSONValue], _ key: String) throws(Failure) -> Bool? {
    switch object[key] {
    case nil, .null?: return nil
    case .bool(let value)?: return value
    default: throw Failure.badRequest("\(key) must be true or false")
    }
  }

  /// The uploaded files, refused when the body was not multipart or held none.
  static func files(_ exchange: Exchange) throws(Failure) -> [(file: UploadedFile, filename: String)] {
    let type = exchange.head.headers["Content-Type"]?.lowercased() ?? ""
    guard type.hasPrefix("multipart/form-data") else {
      throw Failure(415, "send pictures as multipart/form-data, each in a part named file")
    }
    let uploads = exchange.files(named: "file")
    guard !uploads.isEmpty else { throw Failure.badRequest("no picture: give one or more parts named file") }
    return uploads
  }

  // MARK: Answers

  static func json(_ value: some Encodable, status: Int = 200) throws(Failure) -> HTTPResponse {
    let text: String
    do {
      text = try JSONShape.encodeCompact(value)
    } catch {
      throw Failure(500, error.description)
    }
    return json(text: text, status: status)
  }

  /// An answer of JSON `text` already written.
  static func json(text: String, status: Int = 200) -> HTTPResponse {
    var headers = HTTPHeaders()
    headers.set("Content-Type", "application/json; charset=utf-8")
    headers.set("Cache-Control", "no-store")
    return HTTPResponse(status: status, headers: headers, body: Array((text + "\n").utf8))
  }

  /// `{"error": message}`, with more beside it when given (the failures of an upload).
  /// A failure of the server's own says only that, its words going to the request log.
  static func error(_ message: String, status: Int, failures: [ImportFailure] = []) -> HTTPResponse {
    struct ErrorJSON: Encodable {
      let error: String
      let failures: [JSONShape.Failure]?
    }
    let failure = Failure(status, message)
    let value = ErrorJSON(
      error: failure.message,
      failures: failures.isEmpty
        ? nil : failures.map { JSONShape.Failure(file: $0.source, error: $0.error.description) })
    var response = (try? json(value, status: status)) ?? HTTPResponse(status: status)
    response.logNote = failure.detail
    return response
  }
}
