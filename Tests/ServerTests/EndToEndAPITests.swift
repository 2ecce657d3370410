import HTTPTestSupport
import Foundation
import HTTP
import ImagePipeline
import Testing
import TestSupport

/// The JSON API through the built server, as a script uses it: every endpoint, the shapes of
/// the command line's `--json` plus the pictures' URLs, and a status that says what went wrong.
@Suite("The JSON API")
struct EndToEndAPITests {
  @Test func theListAndAReviewHaveTheCommandLinesShapesWithURLs() throws {
    let site = try LiveSite { library in
      try library.addReview(
        "Arrival", rating: 5, body: "Circles.",
        pictures: [Fixture.image("baseline.jpg"), Fixture.image("webp-lossy.webp")])
      try library.addReview("Dune", rating: 2, category: "book", body: "Sand.")
    }
    let queries: [(api: String, cli: [String])] = [
      ("", []),
      ("?category=book", ["--category", "book"]),
      ("?sort=title&limit=1&offset=1", ["--sort", "title", "--limit", "1", "--offset", "1"]),
      ("?min-rating=3&search=circles", ["--min-rating", "3", "--search", "circles"]),
      ("?sort=rating&reverse=1", ["--sort", "rating", "--reverse"]),
    ]
    for (query, arguments) in queries {
      let answer = try site.request("GET", "/api/reviews" + query)
      #expect(answer.status == 200, "\(query)")
      #expect(answer.headers["Content-Type"] == "application/json; charset=utf-8")
      let api = try answer.json()
      let cli = try site.library.run(["--json", "list"] + arguments).json()
      #expect(JSONValue.canonical(JSONValue.removingURLs(api)) == JSONValue.canonical(cli), "\(query)")
    }

    let all = try site.request("GET", "/api/reviews").json()
    let reviews = try #require(all["reviews"] as? [[String: Any]])
    let arrival = try #require(reviews.first { $0["title"] as? String == "Arrival" })
    let cover = try #require(arrival["cover"] as? [String: Any])
    let sha256 = try #require(cover["sha256"] as? String)
    let urls = try #require(cover["urls"] as? [String: String])
    #expect(urls["original"] == "/originals/\(sha256).jpg")
    #expect(urls["thumbnail"] == "/thumbnails/\(sha256)-256-fit-q85.jpg")
    #expect(urls["display"] == "/display/\(sha256)-1600-fit-q85-progressive")
    // Arrival's cover (baseline.jpg, 120 by 80) is no larger than its thumbnail: nothing at 2×.
    #expect(urls["thumbnail2x"] == nil && urls["display2x"] == nil)
    #expect(reviews.first { $0["title"] as? String == "Dune" }?["cover"] is NSNull)

    let id = try #require(arrival["id"] as? String)
    let shown = try site.request("GET", "/api/reviews/\(id)")
    #expect(shown.status == 200)
    let review = try shown.json()
    #expect(JSONValue.canonical(JSONValue.removingURLs(review)) == JSONValue.canonical(try site.library.show(id)))
    let images = try #require(review["images"] as? [[String: Any]])
    #expect(images.count == 2)
    for (image, fixture) in zip(images, ["baseline.jpg", "webp-lossy.webp"]) {
      let urls = try #require(image["urls"] as? [String: String])
      for (kind, url) in urls {
        let file = try site.request("GET", url)
        #expect(file.status == 200, "\(kind) of \(fixture): \(url)")
        if kind == "original" { #expect(file.body == (try Fixture.bytes(Fixture.image(fixture)))) }
      }
    }
  }

  @Test func aReviewIsCreatedEditedAndDeletedThroughTheAPI() throws {
    let site = try LiveSite()
    let created = try site.json(
      "POST", "/api/reviews",
      ["title": "Solaris", "body": "An ocean that thinks.", "rating": 4, "category": "movie", "favorite": true])
    #expect(created.status == 201, "\(created.text)")
    let review = try created.json()
    let id = try #require(review["id"] as? String)
    #expect(created.headers["Location"] == "/api/reviews/\(id)")
    #expect(review["createdBy"] as? String == LiveSite.reviewer)
    #expect(review["favorite"] as? Bool == true)
    let fetched = try site.request("GET", "/api/reviews/\(id)").json()
    #expect(JSONValue.canonical(fetched) == JSONValue.canonical(review))
    #expect(JSONValue.canonical(try site.library.show(id)) == JSONValue.canonical(review))

    // A label the library has not used is refused as the command line refuses it, unless
    // asked for.
    let typo = try site.json("POST", "/api/reviews", ["title": "Stalker", "rating": 5, "category": "moive"])
    #expect(typo.status == 400)
    let cli = try site.library.run("add", "--title", "Stalker", "--rating", "5", "--category", "moive")
    #expect(cli.status != 0)
    // The same rule, said in each front end's own terms: no command-line flag in the API's.
    #expect(cli.error.contains("--new-category"))
    #expect(
      typo.errorMessage
        == #"category moive is new to this library: did you mean movie? (send "newCategory": true to add moive as a label of its own)"#
    )
    let labelled = try site.json(
      "POST", "/api/reviews", ["title": "Stalker", "rating": 5, "category": "documentary", "newCategory": true])
    #expect(labelled.status == 201)
    #expect(try labelled.json()["category"] as? String == "documentary")

    let edited = try site.json("PATCH", "/api/reviews/\(id)", ["title": "Solaris (1972)", "rating": 5])
    #expect(edited.status == 200)
    let after = try edited.json()
    #expect(after["title"] as? String == "Solaris (1972)")
    #expect(after["rating"] as? Int == 5)
    #expect(after["body"] as? String == "An ocean that thinks.")
    #expect(after["updatedBy"] as? String == LiveSite.reviewer)
    #expect(try site.library.show(id)["title"] as? String == "Solaris (1972)")

    // An edit made from what a GET gave carries its ETag: once the review changed, it is refused.
    let seen = try #require(try site.request("GET", "/api/reviews/\(id)").headers["ETag"])
    #expect(edited.headers["ETag"] == seen)
    #expect(try site.library.run("edit", id, "--rating", "3").status == 0)
    let stale = try site.json("PATCH", "/api/reviews/\(id)", ["title": "Solaris"], headers: [("If-Match", seen)])
    #expect(stale.status == 412, "\(stale)")
    #expect(stale.errorMessage?.contains("was changed by") == false, "changed from the command line: by no one named")
    #expect(stale.errorMessage?.contains("since this edit began") == true)
    #expect(try site.library.show(id)["title"] as? String == "Solaris (1972)")
    let current = try #require(try site.request("GET", "/api/reviews/\(id)").headers["ETag"])
    #expect(current != seen)
    let fresh = try site.json("PATCH", "/api/reviews/\(id)", ["title": "Solaris"], headers: [("If-Match", current)])
    #expect(fresh.status == 200)

    let removed = try site.request("DELETE", "/api/reviews/\(id)", signed: true)
    #expect(removed.status == 200)
    let gone = try #require(try removed.json()["removed"] as? [String: Any])
    #expect(gone["id"] as? String == id)
    // The shape of `catalogue remove --json`.
    let other = try site.library.addReview("Other")
    let cliRemoved = try #require(
      try site.library.run("--json", "remove", other, "--yes").json()["removed"] as? [String: Any])
    #expect(Set(gone.keys) == Set(cliRemoved.keys))
    #expect(gone["title"] as? String == "Solaris")
    let missing = try site.request("GET", "/api/reviews/\(id)")
    #expect(missing.status == 404)
    #expect(missing.errorMessage == "no review \(id): it may have been removed, or the address is mistyped")
    // An id that could be none is as missing: 404, in the same words.
    let malformed = try site.request("GET", "/api/reviews/zz", headers: [site.bearer])
    #expect(malformed.status == 404)
    #expect(malformed.errorMessage == "no review zz: it may have been removed, or the address is mistyped")
    #expect(try site.library.run("show", id).status == 1)
  }

  @Test func picturesAreAttachedReplacedMovedMadeCoverAndDetached() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Arrival") }
    let attached = try site.upload(
      "POST", "/api/reviews/\(id)/images",
      [(Fixture.image("baseline.jpg"), "poster.jpg"), (Fixture.image("webp-lossy.webp"), "still.webp")])
    #expect(attached.status == 201, "\(attached.text)")
    let report = try attached.json()
    #expect((report["attached"] as? [Any])?.count == 2)
    #expect((report["failures"] as? [Any])?.isEmpty == true)
    #expect((report["warnings"] as? [Any])?.isEmpty == true)
    // The shape of `catalogue attach --json`, each picture with its URLs besides.
    let cli = try site.library.run("--json", "attach", id, Fixture.image("grayscale.jpg")).json()
    #expect(Set(report.keys) == Set(cli.keys))
    let apiPicture = try #require((report["attached"] as? [[String: Any]])?.first)
    let cliPicture = try #require((cli["attached"] as? [[String: Any]])?.first)
    #expect(Set(apiPicture.keys) == Set(cliPicture.keys).union(["urls"]))
    #expect(try site.library.run("detach", id, "3").status == 0)
    let first = try #require(((report["review"] as? [String: Any])?["images"] as? [[String: Any]])?.first)
    let oldSHA = try #require(first["sha256"] as? String)
    #expect(site.library.files(in: "originals").contains { $0.hasSuffix("/\(oldSHA).jpg") })

    let replaced = try site.upload(
      "PUT", "/api/reviews/\(id)/images/1", [(Fixture.image("progressive.jpg"), "new.jpg")])
    #expect(replaced.status == 200, "\(replaced.text)")
    let newFirst = try #require((try replaced.json()["images"] as? [[String: Any]])?.first)
    #expect(newFirst["sha256"] as? String != oldSHA)
    #expect(newFirst["position"] as? Int == 1)
    // The file no record needs any more is gone.
    #expect(!site.library.files(in: "originals").contains { $0.hasSuffix("/\(oldSHA).jpg") })

    let moved = try site.json("PATCH", "/api/reviews/\(id)/images/2", ["position": 1])
    #expect(moved.status == 200, "\(moved.text)")
    #expect((try moved.json()["images"] as? [[String: Any]])?.map { $0["format"] as? String } == ["webp", "jpeg"])

    let covered = try site.json("PUT", "/api/reviews/\(id)/cover", ["image": "2"])
    #expect(covered.status == 200, "\(covered.text)")
    #expect((try covered.json()["images"] as? [[String: Any]])?.map { $0["cover"] as? Bool } == [false, true])

    let detached = try site.request("DELETE", "/api/reviews/\(id)/images/1", signed: true)
    #expect(detached.status == 200, "\(detached.text)")
    let last = try detached.json()
    #expect((last["images"] as? [[String: Any]])?.map { $0["format"] as? String } == ["jpeg"])
    #expect(JSONValue.canonical(JSONValue.removingURLs(last)) == JSONValue.canonical(try site.library.show(id)))
    let check = try site.library.run("check")
    #expect(check.status == 0, "\(check.output)\(check.error)")
  }

  @Test func aSessionIsOpenedAndClosedThroughTheAPI() throws {
    let site = try LiveSite()
    let wrong = try site.json(
      "POST", "/api/session", ["name": LiveSite.reviewer, "password": "not the password"], signed: false)
    #expect(wrong.status == 401)
    #expect(wrong.errorMessage == "wrong name or password")
    #expect(wrong.setCookie("catalogue_session") == nil)

    let opened = try site.json(
      "POST", "/api/session", ["name": LiveSite.reviewer, "password": LiveSite.password], signed: false)
    #expect(opened.status == 200)
    let session = try opened.json()
    #expect(session["reviewer"] as? String == LiveSite.reviewer)
    let csrf = try #require(session["csrfToken"] as? String)
    #expect(csrf.count == 64)
    let expires = try #require(session["expires"] as? String)
    #expect(expires > ISO8601DateFormatter().string(from: Date()))
    let cookie = try #require(opened.cookie("catalogue_session"))
    let attributes = try #require(opened.setCookie("catalogue_session")).split(separator: ";").map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    #expect(attributes.contains("HttpOnly"))
    #expect(attributes.contains("SameSite=Lax"))
    #expect(attributes.contains("Path=/"))
    #expect(!attributes.contains("Secure"), "plain HTTP without a proxy in front")

    let withCookie = ("Cookie", "catalogue_session=\(cookie)")
    let current = try site.request("GET", "/api/session", headers: [withCookie])
    #expect(current.status == 200)
    #expect(try current.json()["csrfToken"] as? String == csrf)
    #expect(try site.request("GET", "/api/session").status == 401)

    let created = try site.json(
      "POST", "/api/reviews", ["title": "Solaris", "rating": 4, "category": "movie"],
      headers: [withCookie, ("X-CSRF-Token", csrf)], signed: false)
    #expect(created.status == 201, "\(created.text)")
    #expect(try created.json()["createdBy"] as? String == LiveSite.reviewer)

    let closed = try site.request("DELETE", "/api/session", headers: [withCookie, ("X-CSRF-Token", csrf)])
    #expect(closed.status == 204)
    #expect(closed.setCookie("catalogue_session")?.contains("Max-Age=0") == true)
    #expect(try site.request("GET", "/api/session", headers: [withCookie]).status == 401)
  }

  // MARK: Statuses

  @Test func aBadRequestIs400WithTheReason() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Arrival") }
    let cases: [(method: String, target: String, body: String?, error: String)] = [
      ("POST", "/api/reviews", "{", "the body is not valid JSON"),
      ("POST", "/api/reviews", "[1]", "the body must be a JSON object"),
      (
        "POST", "/api/reviews", #"{"title":"A","rating":3,"category":"movie","colour":"red"}"#,
        "unknown field colour: give body, category, containsSpoilers, draft, favorite, newCategory, rating, title"
      ),
      ("POST", "/api/reviews", #"{"title":"A"}"#, "a new review needs rating, category"),
      (
        "POST", "/api/reviews", #"{"title":"A","rating":9,"category":"movie"}"#,
        "invalid review: rating 9 is outside 0–5"
      ),
      ("POST", "/api/reviews", #"{"title":"A","rating":"five","category":"movie"}"#, "rating must be a whole number"),
      (
        "PATCH", "/api/reviews/\(id)", "{}",
        "nothing to change: give title, body, rating, category, favorite, containsSpoilers or draft"
      ),
      ("GET", "/api/reviews?limit=900", nil, "limit must be a whole number from 0 to 500, not 900"),
      ("GET", "/api/reviews?sort=colour", nil, "sort must be title, rating, created, updated or relevance, not colour"),
      (
        "GET", "/api/reviews?colour=red", nil,
        "unknown parameter colour: give by, category, favorites, limit, min-rating, offset, reverse, search, show, sort"
      ),
    ]
    for (method, target, body, error) in cases {
      let headers: [(String, String)] =
        body == nil ? [site.bearer] : [site.bearer, ("Content-Type", "application/json")]
      let answer = try site.request(method, target, headers: headers, body: body.map { Array($0.utf8) })
      #expect(answer.status == 400, "\(method) \(target) \(body ?? "")")
      #expect(answer.errorMessage == error, "\(method) \(target) \(body ?? "")")
    }
  }

  @Test func statusesForCredentialsMissingRecordsMethodsAndConflicts() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Arrival", pictures: [Fixture.image("baseline.jpg")]) }
    // 401: no credentials, or a token that is no one's.
    let anonymous = try site.json(
      "POST", "/api/reviews", ["title": "A", "rating": 3, "category": "movie"], signed: false)
    #expect(anonymous.status == 401)
    #expect(anonymous.errorMessage == "sign in first: this needs a reviewer's session or API token")
    #expect(anonymous.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
    let forged = try site.json(
      "POST", "/api/reviews", ["title": "A", "rating": 3, "category": "movie"],
      headers: [("Authorization", "Bearer cat_0000000000000000000000000000000000000000000")], signed: false)
    #expect(forged.status == 401)
    #expect(
      forged.errorMessage
        == "the API token is not valid (revoked, or mistyped): `catalogue user token NAME` makes a new one")
    // 404: no such review, no such picture, no such path.
    #expect(try site.request("GET", "/api/reviews/0000000000000000").status == 404)
    let noPicture = try site.request("DELETE", "/api/reviews/\(id)/images/7", signed: true)
    #expect(noPicture.status == 404, "\(noPicture.text)")
    let nowhere = try site.request("GET", "/api/nothing")
    #expect(nowhere.status == 404)
    #expect(nowhere.errorMessage == "nothing at /api/nothing")
    // 405 with the methods the path has.
    let wrongMethod = try site.request("DELETE", "/api/reviews", signed: true)
    #expect(wrongMethod.status == 405)
    #expect(wrongMethod.headers["Allow"] == "GET, POST, HEAD")
    #expect(wrongMethod.errorMessage == "DELETE is not allowed here; use GET, POST, HEAD")
    let put = try site.request("PUT", "/api/reviews/\(id)", signed: true)
    #expect(put.status == 405)
    #expect(put.headers["Allow"] == "GET, PATCH, DELETE, HEAD")
    // 409: the picture is there already, in the command line's words.
    let again = try site.upload("POST", "/api/reviews/\(id)/images", [(Fixture.image("baseline.jpg"), "again.jpg")])
    #expect(again.status == 409)
    let cli = try site.library.run("attach", id, Fixture.image("baseline.jpg"))
    #expect(cli.error == "error: \(again.errorMessage ?? "")\n")
    #expect((try again.json()["failures"] as? [[String: Any]])?.first?["file"] as? String == "again.jpg")
  }

  @Test func whatIsNotAPictureOrNotJSONIs415() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Arrival") }
    let notJSON = try site.request(
      "POST", "/api/reviews", headers: [("Content-Type", "text/plain")],
      body: Array(#"{"title":"A","rating":3,"category":"movie"}"#.utf8), signed: true)
    #expect(notJSON.status == 415)
    #expect(notJSON.errorMessage == "send JSON with Content-Type: application/json")
    let notMultipart = try site.json("POST", "/api/reviews/\(id)/images", ["file": "x"])
    #expect(notMultipart.status == 415)
    #expect(notMultipart.errorMessage == "send pictures as multipart/form-data, each in a part named file")
    let notAPicture = try site.upload("POST", "/api/reviews/\(id)/images", [(Fixture.hostile("text.jpg"), "notes.jpg")])
    #expect(notAPicture.status == 415)
    #expect(
      notAPicture.errorMessage
        == "notes.jpg: not an image: the data is not JPEG, PNG, WebP, HEIC or AVIF (nor any other known image format)")
    let gif = try site.upload("POST", "/api/reviews/\(id)/images", [(Fixture.hostile("picture.gif"), "anim.gif")])
    #expect(gif.status == 415)
    #expect(gif.errorMessage == "anim.gif: GIF is not supported yet: convert it to JPEG or PNG first")
    #expect(site.library.files(in: "originals").isEmpty)
  }

  /// Uploads of several megabytes, far past what an import reads at a time: each original
  /// served back is the file sent, byte for byte (a JPEG's bytes after its end included), `check`
  /// finds the library healthy, and a picture cut off megabytes in changes nothing.
  @Test func largeUploadsAreStoredByteForByteAndACutOneChangesNothing() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Arrival") }
    let folder = TemporaryFolder()
    let pixels = PixelBuffer(width: 1500, height: 1000, channels: 3, pixels: noiseBytes(count: 1500 * 1000 * 3))
    let png = try ImagePipeline.encodePNG(pixels)
    let jpeg = try ImagePipeline.encodeJPEG(pixels, quality: 95) + (0..<300_000).map { UInt8(truncatingIfNeeded: $0) }
    for (name, bytes) in [("noise.png", png), ("noise-trailer.jpg", jpeg)] {
      try Data(bytes).write(to: URL(fileURLWithPath: folder.file(name)))
      let answer = try site.upload("POST", "/api/reviews/\(id)/images", [(folder.file(name), name)])
      #expect(answer.status == 201, "\(name): \(answer.text)")
      let picture = try #require((try answer.json()["attached"] as? [[String: Any]])?.first, "\(name)")
      let url = try #require((picture["urls"] as? [String: String])?["original"], "\(name)")
      let original = try site.request("GET", url)
      // Compared as one answer: a failure printing megabytes of both would say no more.
      let same = original.body == bytes
      #expect(same, "\(name): the original served (\(original.body.count) bytes) is not the file sent")
    }
    let check = try site.library.run("check")
    #expect(check.status == 0, "\(check.output) \(check.error)")

    try Data(png.prefix(3_000_000)).write(to: URL(fileURLWithPath: folder.file("cut.png")))
    let before = try site.library.snapshot()
    let cut = try site.upload("POST", "/api/reviews/\(id)/images", [(folder.file("cut.png"), "cut.png")])
    #expect(cut.status == 400, "\(cut.text)")
    #expect(
      cut.errorMessage
        == "cut.png: truncated PNG: the file ends before its image data does (was it still being copied?)")
    try site.library.expectUnchanged(since: before)
  }

  @Test func aPictureOverTheLibrarysCapIs413InTheCommandLinesWords() throws {
    var id = ""
    let site = try LiveSite { library in
      id = try library.addReview("Arrival")
      try library.setting("file_size_cap", "50000")
    }
    let path = Fixture.image("large-1600x1200.jpg")
    let before = try site.library.snapshot()
    let answer = try site.upload("POST", "/api/reviews/\(id)/images", [(path, "poster.jpg")])
    #expect(answer.status == 413)
    try site.library.expectUnchanged(since: before)
    let cli = try site.library.run("attach", id, path)
    #expect(cli.status == 1)
    // "error: PATH: 76 KB is over the largest file this library takes (50 KB); …"
    let reason = cli.error.dropFirst("error: \(path): ".count).prefix { $0 != ";" }
    #expect(answer.errorMessage?.hasPrefix("poster.jpg: \(reason)") == true, "\(answer.text) vs \(cli.error)")
  }
}
