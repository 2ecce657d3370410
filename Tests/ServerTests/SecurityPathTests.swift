import HTTPTestSupport
import Foundation
import HTTP
import Testing
import TestSupport

/// Path traversal on every route that takes a name or an id: encoded dots and slashes, double
/// encoding, NUL bytes, absolute paths, backslashes, very long names, uppercase hashes. Never a
/// byte of a file outside the stores, never a 500, and the library untouched.
@Suite("No name reaches outside the stores", .sharedServer(prepare: PathLibrary.fill))
struct SecurityPathTests {
  /// What must never appear in an answer: the records' file, the system's password file.
  static let secrets: [[UInt8]] = [Array("SQLite format 3".utf8), Array("root:x:0:0".utf8)]

  /// The names tried in place of a picture's name or a review's id; `SHA` stands for the
  /// stored picture's hash.
  static let names: [String] = [
    "..", ".", "%2e%2e", "%2E%2E", ".%2e", "%2e.", "...",
    "..%2F..%2Fcatalogue.sqlite", "..%2f..%2fcatalogue.sqlite", "%2e%2e%2f%2e%2e%2fcatalogue.sqlite",
    "%252e%252e%252fcatalogue.sqlite", "%252e%252e%252f%252e%252e%252fetc%252fpasswd",
    "..%5c..%5ccatalogue.sqlite", "..%5C..%5C..%5Cetc%5Cpasswd",
    "%00", "SHA.jpg%00", "SHA.jpg%00.png", "SHA%00.jpg", "%00..%2F..%2Fcatalogue.sqlite",
    "%2Fetc%2Fpasswd", "%2F..%2F..%2Fetc%2Fpasswd", "%2Fproc%2Fself%2Fenviron",
    "catalogue.sqlite", "catalogue.sqlite-wal", "catalogue.lock",
    "SHAUPPER.jpg", "SHA.JPG", "SHA.jpeg", "SHA", "SHA.", ".SHA.jpg", "SHA.jpg.", "SHA0.jpg",
    "SHA.jpg%2F..%2F..%2Fcatalogue.sqlite", "SHA.jpg%3F", "SHA.jpg%23",
    "ab%2FSHA.jpg", "SHA-256-fit-q85.jpg%2F..%2F..%2F..%2Fcatalogue.sqlite", "SHA-1-fit-q1.jpg",
    "SHA-1600-fit-q85-progressive%2F..%2F..%2Fcatalogue.sqlite",
    "%C0%AE%C0%AE", "%C0%AE%C0%AE%C0%AFcatalogue.sqlite", "%E2%80%A5", "%EF%BC%8E%EF%BC%8E%EF%BC%8Fetc",
    "%FF%FE", "%", "%2", "%zz",
    String(repeating: "a", count: 5000), String(repeating: "..%2F", count: 1000) + "etc%2Fpasswd",
  ]

  /// Routes that take a name or an id, as `X` in the path.
  static let routes = [
    "/originals/X", "/thumbnails/X", "/display/X", "/assets/X", "/reviews/X", "/reviews/X/edit",
    "/reviews/X/delete", "/api/reviews/X", "/api/reviews/ID/images/X",
  ]

  /// The hash of the review's first picture and the review's id.
  static func stored(_ server: ServeProcess) throws -> (sha256: String, id: String) {
    let id = try server.library.id(of: "Arrival")
    let images = try #require(try server.library.show(id)["images"] as? [[String: Any]])
    return (try #require(images.first?["sha256"] as? String), id)
  }

  /// Checks what a reader must never get: a 5xx, a file's bytes, a picture.
  static func expectRefused(_ answer: Response, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
      (300..<500).contains(answer.status) && answer.status != 304, "\(what): \(answer)", sourceLocation: sourceLocation)
    for secret in secrets {
      #expect(!contains(answer.body, secret), "\(what) gave a file's bytes", sourceLocation: sourceLocation)
    }
    #expect(answer.headers["Content-Type"]?.hasPrefix("image/") != true, "\(what)", sourceLocation: sourceLocation)
  }

  static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
    guard bytes.count >= needle.count else { return false }
    return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
  }

  @Test(arguments: routes)
  func everyHostileNameIsRefused(route: String) throws {
    let server = try SharedServer.server
    let (sha256, id) = try Self.stored(server)
    let before = try server.library.snapshot()
    let client = try server.connect()
    for name in Self.names {
      let segment = name.replacingOccurrences(of: "SHAUPPER", with: sha256.uppercased())
        .replacingOccurrences(of: "SHA", with: sha256)
      let target = route.replacingOccurrences(of: "ID", with: id).replacingOccurrences(of: "X", with: segment)
      let answer: Response
      do {
        answer = try client.request("GET", target)
      } catch {
        // The server may close a connection after a request it could not parse: try once more
        // on a fresh one, where the answer must come.
        answer = try server.connect().request("GET", target)
      }
      Self.expectRefused(answer, "GET \(target.prefix(120))")
    }
    try server.library.expectUnchanged(since: before)
  }

  static let rawTargets = [
    "/originals/SHA.jpg/../../catalogue.sqlite", "/originals/../catalogue.sqlite", "/originals/../../../../etc/passwd",
    "/thumbnails/../catalogue.sqlite", "/display/../../catalogue.sqlite", "/assets/../../catalogue.sqlite",
    "/originals//etc/passwd", "//etc/passwd", "/./catalogue.sqlite", "/catalogue.sqlite", "/originals/",
    "/originals/ab/SHA.jpg", "/originals/./SHA.jpg/..", "/originals\\..\\catalogue.sqlite",
    "/originals/..\\..\\catalogue.sqlite", "/reviews/../../catalogue.sqlite", "/api/reviews/../../catalogue.sqlite",
    "../catalogue.sqlite", "catalogue.sqlite", "*", "http://127.0.0.1/catalogue.sqlite",
    "http://127.0.0.1/originals/../catalogue.sqlite", "/%2e%2e/%2e%2e/etc/passwd", "/..%2fcatalogue.sqlite",
  ]

  /// Whole request targets, sent byte for byte as written (no client would normalise them).
  @Test func rawTargetsNeverLeaveTheStores() throws {
    let server = try SharedServer.server
    let (sha256, _) = try Self.stored(server)
    let before = try server.library.snapshot()
    for raw in Self.rawTargets {
      let target = raw.replacingOccurrences(of: "SHA", with: sha256)
      let client = try server.connect()
      try client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
      let answer = try client.readResponse()
      Self.expectRefused(answer, "GET \(target)")
    }
    try server.library.expectUnchanged(since: before)
  }

  /// A head too long for the server's buffers is refused whole, not cut and served.
  @Test func aVeryLongNameIsRefusedWithoutAnError() throws {
    let server = try SharedServer.server
    for length in [20_000, 100_000] {
      let client = try server.connect()
      try client.send(
        "GET /originals/\(String(repeating: "a", count: length)).jpg HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
      )
      if let answer = try? client.readResponse() {
        Self.expectRefused(answer, "a name of \(length) characters")
      } else {
        // Closed without an answer is a refusal too; the server goes on.
        #expect(try server.request("GET", "/api/reviews").status == 200)
      }
    }
  }

  @Test func theRealNamesStillWork() throws {
    let server = try SharedServer.server
    let (sha256, id) = try Self.stored(server)
    #expect(try server.request("GET", "/originals/\(sha256).jpg").status == 200)
    #expect(try server.request("GET", "/thumbnails/\(sha256)-256-fit-q85.jpg").status == 200)
    #expect(try server.request("GET", "/reviews/\(id)").status == 200)
    #expect(try server.request("GET", "/api/reviews/\(id)").status == 200)
  }
}

/// The same names on the routes that write, with a reviewer's credentials: refused, nothing
/// changed. (The bare hash is left out: it is a real reference to the picture.)
@Suite("No name reaches outside the stores when writing")
struct SecurityWritePathTests {
  @Test func hostileNamesOnWriteRoutesChangeNothing() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Arrival", pictures: [Fixture.image("baseline.jpg")]) }
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    let images = try #require(try site.library.show(id)["images"] as? [[String: Any]])
    let sha256 = try #require(images.first?["sha256"] as? String)
    _ = try browser.csrfToken()
    let before = try site.library.snapshot()
    let names = SecurityPathTests.names.filter { $0 != "SHA" }.map {
      $0.replacingOccurrences(of: "SHAUPPER", with: sha256.uppercased()).replacingOccurrences(of: "SHA", with: sha256)
    }
    for name in names {
      let api: [(String, String, [String: Any]?)] = [
        ("DELETE", "/api/reviews/\(id)/images/\(name)", nil),
        ("PATCH", "/api/reviews/\(id)/images/\(name)", ["position": 1]),
        ("PUT", "/api/reviews/\(name)/cover", ["image": "1"]),
        ("PATCH", "/api/reviews/\(name)", ["title": "Changed"]),
        ("DELETE", "/api/reviews/\(name)", nil),
      ]
      for (method, target, object) in api {
        let answer =
          try object.map { try site.json(method, target, $0) } ?? site.request(method, target, signed: true)
        SecurityPathTests.expectRefused(answer, "\(method) \(target.prefix(120))")
      }
      for action in ["cover", "detach"] {
        let answer = try browser.post("/reviews/\(id)/images/\(name)/\(action)")
        SecurityPathTests.expectRefused(answer, "POST …/images/\(name.prefix(80))/\(action)")
      }
      let deleted = try browser.post("/reviews/\(name)/delete")
      SecurityPathTests.expectRefused(deleted, "POST /reviews/\(name.prefix(80))/delete")
    }
    try site.library.expectUnchanged(since: before)
    #expect(try site.library.count("review_images") == 1)
  }
}

/// The path suite's library: one review with a JPEG and a HEIC.
enum PathLibrary {
  @Sendable static func fill(_ library: TestLibrary) throws {
    try library.addReview("Arrival", pictures: [Fixture.image("baseline.jpg"), Fixture.image("heic-8bit.heic")])
  }
}
