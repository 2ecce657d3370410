import Catalogue
import Foundation
import HTTP
import Testing

@testable import Server

@Suite("Routing")
struct RoutingTests {
  let router = Router(routes: Routes.all)

  func match(_ method: String, _ path: String) -> Router.Match {
    router.match(method: method, path: path.split(separator: "/").map(String.init))
  }

  @Test func everyPatternCapturesItsSegments() throws {
    guard case .found(let route, let captures) = match("POST", "/reviews/0123abcd/images/2/cover") else {
      Issue.record("no route for a cover change")
      return
    }
    #expect(route.access == .reviewer)
    #expect(captures == ["id": "0123abcd", "image": "2"])
  }

  @Test func headIsAnsweredAsGet() throws {
    guard case .found(let route, _) = match("HEAD", "/thumbnails/x") else {
      Issue.record("HEAD did not match the thumbnail route")
      return
    }
    #expect(route.method == "GET")
    #expect(route.isFile)
  }

  @Test func aKnownPathWithAnotherMethodSaysWhichAreAllowed() {
    guard case .methodNotAllowed(let allowed) = match("DELETE", "/reviews/0123abcd") else {
      Issue.record("DELETE on a page was not refused as a wrong method")
      return
    }
    #expect(allowed == ["GET", "HEAD"])
  }

  @Test(arguments: ["/nothing", "/reviews", "/reviews/a/b/c/d/e/f", "/api/reviews/x/images/1/2"])
  func anUnknownPathIsNotFound(_ path: String) {
    guard case .notFound = match("GET", path) else {
      Issue.record("\(path) matched a route")
      return
    }
  }

  /// Only files are served on the connections' threads without a look at the library: every
  /// other route reads or writes it, and runs on a worker unless the page cache answers it.
  /// (A share card is a file, but its name comes from the review's record: always a worker.)
  @Test func onlyFileRoutesSkipTheLibrary() {
    for route in Routes.all {
      let path = route.segments.map { segment -> String in
        switch segment {
        case .literal(let text): return text
        case .capture(let name): return ":" + name
        }
      }
      #expect(
        route.isFile
          == ["originals", "thumbnails", "display", "cards", "assets", "favicon.ico"].contains(path.first ?? ""),
        "\(route.method) /\(path.joined(separator: "/"))")
      #expect(route.needsWork == nil || route.isFile, "\(route.method) /\(path.joined(separator: "/"))")
    }
  }

  @Test func everyWriteButSigningInAndOutNeedsAReviewer() {
    for route in Routes.all where route.method != "GET" {
      let path = route.segments.map { segment -> String in
        switch segment {
        case .literal(let text): return text
        case .capture(let name): return ":" + name
        }
      }.joined(separator: "/")
      let open = ["sign-in", "sign-out", "api/session"].contains(path)
      #expect((route.access == .everyone) == open, "\(route.method) /\(path)")
    }
  }
}

@Suite("Home page filters")
struct HomeFilterTests {
  @Test func aQueryBecomesTheLibrarysQuery() throws {
    let filters = try HomeFilters(
      QueryParameters(parsing: "q=time+travel&category=movie&min=4&favorites=1&sort=title-desc&view=list&page=3"))
    let query = filters.reviewQuery(pageSize: 50, reviewer: false)
    #expect(query.search == "time travel")
    #expect(query.category?.rawValue == "movie")
    #expect(query.minimumRating == 4)
    #expect(query.favoritesOnly)
    #expect(query.sort == .title)
    #expect(query.reversed)
    #expect(query.offset == 100)
    #expect(query.limit == 50)
    #expect(filters.view == .list)
    #expect(query.showing == .published)
  }

  @Test func newestFirstUnlessSearching() throws {
    #expect(try HomeFilters(QueryParameters(parsing: "")).reviewQuery(pageSize: 10, reviewer: false).sort == .created)
    #expect(
      try HomeFilters(QueryParameters(parsing: "q=wick")).reviewQuery(pageSize: 10, reviewer: false).sort == .relevance)
  }

  /// A reader's query is of published reviews whatever the address asks; a reviewer's shows
  /// drafts too unless narrowed.
  @Test func onlyAReviewersQueryShowsDrafts() throws {
    let cases: [(String, reader: ReviewQuery.Showing, reviewer: ReviewQuery.Showing)] = [
      ("", .published, .all), ("show=all", .published, .all), ("show=drafts", .published, .drafts),
      ("show=published", .published, .published),
    ]
    for (text, reader, reviewer) in cases {
      let filters = try HomeFilters(QueryParameters(parsing: text))
      #expect(filters.reviewQuery(pageSize: 10, reviewer: false).showing == reader, "\(text)")
      #expect(filters.reviewQuery(pageSize: 10, reviewer: true).showing == reviewer, "\(text)")
    }
    #expect(try HomeFilters(QueryParameters(parsing: "show=drafts&page=2")).link(page: 1) == "/?show=drafts")
    #expect(try HomeFilters(QueryParameters(parsing: "show=all")).link() == "/", "all is the default")
  }

  @Test(arguments: [
    ("min=9", "minimum stars must be a whole number from 0 to 5, not 9"),
    ("page=0", "page must be a number from 1, not 0"),
    ("view=table", "view must be grid or list, not table"),
    ("sort=relevance", "sort relevance needs a search"),
    ("category=%3Cb%3E", "category <b> is not a category label"),
    ("show=everything", "show must be published, drafts or all, not everything"),
  ])
  func aValueThatCannotBeOneSaysWhy(_ text: String, _ message: String) {
    #expect(throws: Failure(400, message)) { try HomeFilters(QueryParameters(parsing: text)) }
  }

  @Test func linksKeepTheFiltersAndChangeOnlyWhatIsAsked() throws {
    let filters = try HomeFilters(QueryParameters(parsing: "q=a%26b&min=3&page=2"))
    #expect(filters.link(page: 3) == "/?q=a%26b&min=3&page=3")
    #expect(filters.link(view: .list, page: 1) == "/?q=a%26b&min=3&view=list")
  }
}

@Suite("Small parts")
struct PartsTests {
  @Test(arguments: [
    ("/reviews/abc", "/reviews/abc"), ("/", "/"), ("//evil.example", nil), ("/\\evil.example", nil),
    ("https://evil.example/", nil), ("/a\nb", nil), ("relative", nil),
  ])
  func aSignInOnlyEverSendsAReaderToThisServer(_ next: String, _ expected: String?) {
    #expect(Pages.safeNext(next) == expected)
  }

  @Test(arguments: [
    (nil, "upload"), ("IMG_0001.HEIC", "IMG_0001.HEIC"), ("C:\\Users\\me\\Pictures\\cat.jpg", "cat.jpg"),
    ("../../etc/passwd", "passwd"), ("a\u{1B}[31mb.jpg", "a[31mb.jpg"), ("   ", "upload"),
  ])
  func anUploadsNameIsFitForAMessage(_ sent: String?, _ shown: String) {
    #expect(Exchange.uploadName(sent) == shown)
  }

  @Test func csrfTokensDifferBySessionAndAreStable() {
    let first = CSRF.token(forSession: "secret-one")
    #expect(first == CSRF.token(forSession: "secret-one"))
    #expect(first != CSRF.token(forSession: "secret-two"))
    #expect(!first.contains("secret"))
    #expect(CSRF.matches(first, first))
    #expect(!CSRF.matches(nil, first))
    #expect(!CSRF.matches(String(first.dropLast()), first))
  }

  @Test func cookiesAreHttpOnlyAndSecureOnlyOverHTTPS() {
    let plain = Cookie.make("name", "value", maxAge: 60, secure: false)
    #expect(plain == "name=value; Path=/; Max-Age=60; HttpOnly; SameSite=Lax")
    #expect(Cookie.make("name", "value", maxAge: 60, secure: true).hasSuffix("; Secure"))
    #expect(Cookie.expired("name", secure: false).contains("Max-Age=0"))
  }
}

/// Whoever asks over HTTP hears the library's errors in words for them: no command to run, no
/// command-line flag, no path of the server's.
@Suite("Errors in a browser's words")
struct FailureWordingTests {
  static let errors: [CatalogueError] = [
    .reviewNotFound("abcd"), .badReviewReference("xyz!"), .ambiguousReview(prefix: "ab", candidates: ["ab1", "ab2"]),
    .imageNotFound(review: "abcd", reference: "3"), .badImageReference("x"),
    .unknownCategory("moive", suggestion: "movie"), .invalidQuery("a search cannot hold a NUL character"),
    .imageAlreadyAttached(review: "abcd", sha256: String(repeating: "a", count: 64), position: 2),
    .duplicatePicture(file: "a.jpg", sha256: String(repeating: "b", count: 64), position: 1),
    .fileTooLarge(path: "big.jpg", bytes: 300 << 20, cap: 200 << 20), .notText(path: "body.md"),
    .invalidReview(["title is empty"]), .reviewChanged(id: "abcd", title: "T", by: "ada"),
    .database(RecordStoreFailure(kind: .busy, code: "5", message: "database is locked")), .interrupted,
  ]

  @Test(arguments: errors)
  func aLibraryErrorSaysNothingOfTheCommandLine(_ error: CatalogueError) {
    let failure = Failure(error)
    #expect(failure.status < 500 || failure.status == 503, "\(error)")
    for command in ["init", "list", "check", "upgrade", "user", "show", "add", "command"] {
      #expect(!failure.message.contains("catalogue \(command)"), "\(failure.message)")
    }
    #expect(!failure.message.contains(" --"), "\(failure.message)")
    #expect(!failure.message.contains("`"), "\(failure.message)")
  }
}
