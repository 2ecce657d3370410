import HTTPTestSupport
import Foundation
import HTTP
import ImagePipeline
import Testing
import TestSupport

/// What a reader sees of a library through the built server: the grid and the list of covers
/// with their filters, search and pages, a review page with display renditions, and the
/// originals byte for byte. One server and library for the whole suite: nothing here writes.
@Suite("A reader browses the catalogue", .sharedServer(prepare: ReaderLibrary.fill))
struct EndToEndReaderTests {
  var server: ServeProcess { get throws { try SharedServer.server } }

  // MARK: The grid and the list

  @Test func theGridPagesThroughEveryReview() throws {
    let server = try server
    let first = try server.request("GET", "/")
    #expect(first.status == 200)
    #expect(first.headers["Content-Type"] == "text/html; charset=utf-8")
    #expect(first.headers["Content-Security-Policy"]?.contains("default-src 'none'") == true)
    #expect(first.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
    #expect(first.headers["X-Content-Type-Options"] == "nosniff")
    #expect(PageText.classText("count", in: first.text) == "1–50 of 51 reviews")
    let firstTitles = PageText.cardTitles(first.text)
    #expect(firstTitles.count == 50)
    #expect(PageText.attributes("href", startingWith: "/?page=", in: first.text) == ["/?page=2"])
    #expect(!first.text.contains(#"rel="prev""#))

    let second = try server.request("GET", "/?page=2")
    #expect(second.status == 200)
    #expect(PageText.classText("count", in: second.text) == "51–51 of 51 reviews")
    let secondTitles = PageText.cardTitles(second.text)
    #expect(secondTitles.count == 1)
    #expect(second.text.contains(#"<a rel="prev" href="/">"#))
    #expect(!second.text.contains(#"rel="next""#))
    #expect((firstTitles + secondTitles).sorted() == ReaderLibrary.titles.sorted())

    // Every cover of both pages is a thumbnail that a browser can show.
    let thumbnails =
      PageText.attributes("src", startingWith: "/thumbnails/", in: first.text)
      + PageText.attributes("src", startingWith: "/thumbnails/", in: second.text)
    #expect(thumbnails.count == 2, "Arrival's and Celeste's covers: \(thumbnails)")
    for thumbnail in thumbnails {
      let answer = try server.request("GET", thumbnail)
      #expect(answer.status == 200, "\(thumbnail)")
      #expect(answer.headers["Content-Type"] == "image/jpeg", "\(thumbnail)")
      let header = try ImagePipeline.readHeader(answer.body)
      #expect(max(header.width, header.height) <= 256, "\(thumbnail)")
    }
  }

  @Test func theListViewShowsARowPerReview() throws {
    let server = try server
    let page = try server.request("GET", "/?view=list")
    #expect(page.status == 200)
    #expect(page.text.contains(#"<table class="list">"#))
    #expect(page.text.contains(#"<a href="/?view=list" aria-current="page">List</a>"#))
    let titles = PageText.listTitles(page.text)
    #expect(titles.count == 50)
    #expect(titles.first == "Filler 48", "newest first")
    #expect(
      PageText.attributes("href", startingWith: "/?view=list&amp;page=", in: page.text) == ["/?view=list&amp;page=2"])
    let last = try server.request("GET", "/?view=list&page=2")
    #expect(PageText.listTitles(last.text) == ["Arrival"], "the oldest comes last")
  }

  /// A link to a page that is no longer there (reviews were deleted since) is not found, and
  /// says where the last page is.
  /// Every link of the grid has a name a screen reader can say, or is hidden from it and from
  /// the tab order: a cover repeats its title's link, and alone it would be an empty name.
  @Test func everyLinkOfTheGridHasANameOrIsHidden() throws {
    let page = try server.request("GET", "/")
    let links: [String] = page.text.components(separatedBy: "<a ").dropFirst().map { String($0) }
    #expect(links.count > 40)
    for link in links {
      let tag = String(link.prefix { $0 != ">" })
      let afterTag = link.dropFirst(tag.count + 1)
      let text = afterTag.components(separatedBy: "</a>").first ?? ""
      let hasText = !text.replacingOccurrences(of: #"<[^>]*>"#, with: "", options: .regularExpression)
        .trimmingCharacters(in: .whitespaces).isEmpty
      let hidden = tag.contains(#"aria-hidden="true""#) && tag.contains(#"tabindex="-1""#)
      #expect(hasText || tag.contains("aria-label=") || hidden, "\(tag)")
    }
  }

  /// Every colour the style sheet gives text reads against its background at 4.5:1 at least
  /// (WCAG 2.2 AA for body text), in the light look and in the dark one: the stars and the Cover
  /// badge were amber at 2.58:1. Colours are custom properties, set for the light look on
  /// `:root`, for the dark one where the system asks for it and where the reader chose it; a
  /// rule without a background of its own is read against the page and against the panels
  /// (`--surface`). The outlines of fields and buttons and the focus ring reach 3:1.
  @Test func theStyleSheetsTextColoursPassAA() throws {
    let page = try server.request("GET", "/")
    let href = try #require(PageText.attributes("href", startingWith: "/assets/style", in: page.text).first)
    let css = try server.request("GET", href).text
    func luminance(_ hex: String) -> Double {
      var digits = Array(hex.dropFirst())
      if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
      let channels = stride(from: 0, to: 6, by: 2).map { Double(Int(String(digits[$0...$0 + 1]), radix: 16)!) / 255 }
      let linear = channels.map { $0 <= 0.04045 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
      return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    }
    func ratio(_ first: String, _ second: String) -> Double {
      let (a, b) = (luminance(first), luminance(second))
      return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }
    /// The custom properties of the block that starts with `selector`.
    func properties(after selector: String) throws -> [String: String] {
      let start = try #require(css.range(of: selector + " {"), "no \(selector) block")
      let block = css[start.upperBound...].prefix { $0 != "}" }
      var found: [String: String] = [:]
      for match in block.matches(of: /--([a-z-]+):\s*(#[0-9a-fA-F]{3,6})\b/) {
        found[String(match.1)] = String(match.2)
      }
      return found
    }
    let light = try properties(after: ":root")
    let dark = try properties(after: ":root[data-theme=dark]")
    #expect(light.count >= 10 && dark.keys.sorted() == light.keys.sorted(), "\(light.keys) \(dark.keys)")
    #expect(try properties(after: "@media (prefers-color-scheme: dark) { :root") == dark, "the system's dark look")
    #expect(try properties(after: ":root[data-theme=light]") == light, "the light look chosen on a dark system")
    func value(_ property: String, in rule: String, _ colours: [String: String]) -> String? {
      guard
        let match = rule.firstMatch(
          of: try! Regex(#"(^|[ ;{])\#(property):\s*(#[0-9a-fA-F]{3,6}\b|var\(--([a-z-]+)\))"#))
      else { return nil }
      let found = String(match.output[2].substring ?? "")
      guard let name = match.output[3].substring else { return found }
      return colours[String(name)]
    }
    for (look, colours) in [("light", light), ("dark", dark)] {
      var checked = 0
      for rule in css.components(separatedBy: "}") where !rule.contains("--bg:") {
        guard let color = value("color", in: rule, colours) else { continue }
        let backgrounds = value("background", in: rule, colours).map { [$0] } ?? [colours["bg"]!, colours["surface"]!]
        for background in backgrounds {
          let contrast = ratio(color, background)
          #expect(
            contrast >= 4.5,
            "\(look): \(rule.trimmingCharacters(in: .whitespacesAndNewlines)) on \(background): \(contrast)")
        }
        checked += 1
      }
      #expect(checked > 20, "\(look): \(checked) rules")
      for part in ["edge", "link"] {
        for background in ["bg", "surface"] {
          let contrast = ratio(colours[part]!, colours[background]!)
          #expect(contrast >= 3, "\(look): --\(part) on --\(background) is \(contrast):1, not 3:1")
        }
      }
      #expect(ratio(colours["on-accent"]!, colours["accent"]!) >= 4.5, "\(look): text on the green")
    }
  }

  /// Headings go down one level at a time on every page a reader sees, from one `h1`: a screen
  /// reader's outline has no holes (the grid's cards were `h3` under the page's `h1`).
  @Test func headingsNeverSkipALevel() throws {
    let grid = try server.request("GET", "/")
    let review = try #require(PageText.attributes("href", startingWith: "/reviews/", in: grid.text).first)
    for path in ["/", "/?view=list", "/?q=nothingatall", "/sign-in", review, "/reviews/0123456789abcdef"] {
      let page = try server.request("GET", path)
      let levels = page.text.components(separatedBy: "<h").dropFirst().compactMap { $0.first?.wholeNumberValue }
      #expect(levels.first == 1, "\(path): \(levels)")
      #expect(levels.filter { $0 == 1 }.count == 1, "\(path): \(levels)")
      for (previous, next) in zip(levels, levels.dropFirst()) {
        #expect(next <= previous + 1, "\(path): \(levels)")
      }
    }
  }

  /// Every page begins with a link past the bar at the top, to the page's content: the first
  /// thing the tab key reaches (WCAG's bypass blocks).
  @Test(arguments: ["/", "/?view=list&q=the", "/sign-in", "/reviews/0123456789abcdef"])
  func everyPageBeginsWithALinkToItsContent(_ path: String) throws {
    let page = try server.request("GET", path)
    let body = try #require(page.text.components(separatedBy: "<body>").last)
    let first = try #require(body.components(separatedBy: "<a ").dropFirst().first)
    #expect(first.hasPrefix(##"class="skip" href="#main">Skip to the content</a>"##), "\(path)")
    #expect(page.text.contains(#"<main id="main" tabindex="-1">"#), "\(path)")
  }

  /// A review's address with an id that could be none is a page that is not there (404), as
  /// one whose review is gone, in words for a reader, not for the command line.
  @Test(arguments: ["/reviews/xyz", "/reviews/zzzzzzzzzzzzzzzz", "/reviews/0123456789abcdef"])
  func aReviewThatIsNotThereIs404(_ path: String) throws {
    let site = try LiveSite()
    let answer = try site.request("GET", path)
    #expect(answer.status == 404)
    let text = String(decoding: answer.body, as: UTF8.self)
    #expect(text.contains("it may have been removed, or the address is mistyped"))
    #expect(!text.contains("catalogue list"))
  }

  @Test func aPagePastTheLastLeadsBack() throws {
    let server = try server
    let page = try server.request("GET", "/?page=9")
    #expect(page.status == 404)
    #expect(PageText.cardTitles(page.text).isEmpty)
    #expect(page.text.contains(#"href="/?page=2""#), "no way back to the last page")
    #expect(!page.text.contains("No review matches"), "51 reviews, and no filter")
    let filtered = try server.request("GET", "/?view=list&category=tv&page=3")
    #expect(filtered.status == 404)
    #expect(filtered.text.contains(#"href="/?category=tv&amp;view=list""#), "the last page of the same filters")
  }

  static let filters: [(query: String, titles: [String])] = [
    ("category=game", ["Celeste"]),
    ("min=4", ["Celeste", "Arrival"]),
    ("favorites=1", ["Arrival"]),
    ("q=sandworm", ["Dune"]),
    ("q=mountain&category=game", ["Celeste"]),
    ("category=book&min=1", ["Dune"]),
    ("min=2&sort=title", ["Arrival", "Celeste", "Dune"]),
    ("min=2&sort=title-desc", ["Dune", "Celeste", "Arrival"]),
    ("min=2&sort=rating-asc", ["Dune", "Celeste", "Arrival"]),
    ("min=2&sort=oldest", ["Arrival", "Celeste", "Dune"]),
    ("min=5&category=game", []),
  ]

  @Test(arguments: filters)
  func filtersAndSearchNarrowTheReviews(query: String, titles: [String]) throws {
    let page = try server.request("GET", "/?view=list&" + query)
    #expect(page.status == 200, "\(query)")
    #expect(PageText.listTitles(page.text) == titles, "\(query)")
    if titles.isEmpty {
      #expect(
        page.text.contains(
          #"<p class="empty" role="status">No review matches these filters. Clear them to "#
            + #"<a href="/?view=list">show every review</a>.</p>"#), "\(query)")
    }
    // The grid agrees with the list.
    let grid = try server.request("GET", "/?" + query)
    #expect(PageText.cardTitles(grid.text) == titles, "\(query)")
  }

  /// A search that finds nothing says so once, and offers to clear the search (and the other
  /// filters, when there are some), keeping the view.
  @Test func anEmptySearchSaysSoOnceAndOffersToClearIt() throws {
    let page = try server.request("GET", "/?view=list&q=nothingatall")
    #expect(page.status == 200)
    #expect(
      page.text.contains(
        #"<p class="empty" role="status">No review matches “nothingatall”. "#
          + #"<a href="/?view=list">Clear the search</a>.</p>"#))
    #expect(!page.text.contains(#"<p class="count">"#), "said once")
    let narrowed = try server.request("GET", "/?q=nothingatall&category=game&sort=relevance")
    #expect(
      narrowed.text.contains(
        #"No review matches “nothingatall”. <a href="/?category=game">Clear the search</a>, "#
          + #"or <a href="/">show every review</a>.</p>"#))
  }

  static let badFilters: [(query: String, reason: String)] = [
    ("min=9", "minimum stars must be a whole number from 0 to 5, not 9"),
    ("category=%20", "category   is not a category label"),
    ("favorites=maybe", "favorites must be true or false, not maybe"),
    (
      "sort=sideways",
      "sort must be one of newest, oldest, title, title-desc, rating, rating-asc, updated, relevance, not sideways"
    ),
    ("view=table", "view must be grid or list, not table"),
    ("page=0", "page must be a number from 1, not 0"),
    ("page=x", "page must be a number from 1, not x"),
    ("sort=relevance", "sort relevance needs a search"),
  ]

  @Test(arguments: badFilters)
  func aBadFilterSaysWhy(query: String, reason: String) throws {
    let page = try server.request("GET", "/?" + query)
    #expect(page.status == 400, "\(query)")
    #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
    #expect(page.text.contains(PageText.escape(reason)), "\(query): \(page.text)")
  }

  // MARK: A review

  @Test func aReviewPageShowsEveryPictureThroughItsDisplayRendition() throws {
    let server = try server
    let id = try server.library.id(of: "Arrival")
    let review = try server.library.show(id)
    let images = try #require(review["images"] as? [[String: Any]])
    try #require(images.count == ReaderLibrary.arrivalPictures.count)
    let page = try server.request("GET", "/reviews/\(id)")
    #expect(page.status == 200)
    #expect(page.text.contains("<h1>Arrival</h1>"))
    #expect(page.text.contains("<p>A linguist learns to think in circles.</p>"))
    let shown = PageText.attributes("src", startingWith: "/display/", in: page.text)
    // No original goes into an <img>: a browser may not show its format (HEIC).
    #expect(PageText.attributes("src", startingWith: "/originals/", in: page.text).isEmpty)
    #expect(Set(shown) == Set(images.map { "/display/\($0["sha256"] as? String ?? "")-1600-fit-q85-progressive" }))

    for (image, source) in zip(images, ReaderLibrary.arrivalPictures) {
      let sha256 = try #require(image["sha256"] as? String)
      let width = try #require(image["width"] as? Int)
      let height = try #require(image["height"] as? Int)
      let url = "/display/\(sha256)-1600-fit-q85-progressive"
      let answer = try server.request("GET", url)
      try #require(answer.status == 200, "\(source): \(answer.status) \(answer.text.prefix(200))")
      #expect(answer.headers["Cache-Control"] == "public, max-age=31536000, immutable")
      #expect(answer.headers["ETag"] == "\"\(sha256)-1600-fit-q85-progressive\"")
      let decoded = try ImagePipeline.decode(answer.body)
      let transparent = source.hasSuffix("rgba-8.png")
      #expect(decoded.header.format == (transparent ? .png : .jpeg), "\(source)")
      #expect(answer.headers["Content-Type"] == (transparent ? "image/png" : "image/jpeg"), "\(source)")
      if !transparent { #expect(decoded.header.isProgressive, "\(source)") }
      // Upright, never enlarged, the longest edge at most 1600.
      let scale = min(1, 1600 / Double(max(width, height)))
      #expect(decoded.header.orientation == .up, "\(source)")
      #expect(decoded.pixels.width == Int((Double(width) * scale).rounded()), "\(source)")
      #expect(decoded.pixels.height == Int((Double(height) * scale).rounded()), "\(source)")
      #expect(max(decoded.pixels.width, decoded.pixels.height) <= 1600, "\(source)")
      // The same picture: the original, decoded and turned upright, looks the same (where it
      // is opaque).
      if scale == 1 && !transparent {
        let original = try ImagePipeline.decode(Fixture.bytes(source))
        let upright = original.pixels.oriented(original.header.orientation)
        #expect(Self.meanDifference(upright, decoded.pixels) < 6, "\(source) does not look like its original")
      }
      // Made once, then served from the file.
      let again = try server.request("GET", url)
      #expect(again.body == answer.body, "\(source)")
      #expect(
        server.library.files(in: "thumbnails").contains {
          $0.hasSuffix("/\(sha256)-1600-fit-q85-progressive.\(transparent ? "png" : "jpg")")
        })
    }
  }

  /// Readers asking at once for a rendition not made yet all get the same picture, made once.
  @Test func aDisplayRenditionAskedForByManyAtOnceIsMadeOnce() throws {
    let server = try server
    let images = try #require(
      try server.library.show(try server.library.id(of: "Celeste"))["images"] as? [[String: Any]])
    let sha256 = try #require(images.first?["sha256"] as? String)
    let url = "/display/\(sha256)-1600-fit-q85-progressive"
    let port = server.port
    let answers = Outcomes()
    DispatchQueue.concurrentPerform(iterations: 6) { _ in
      let answer = try? HTTPClient(port: port).request("GET", url)
      answers.add(
        url, ok: answer?.status == 200, text: answer.map { Data($0.body).base64EncodedString() } ?? "")
    }
    #expect(answers.failures.isEmpty)
    #expect(Set(answers.all.map(\.text)).count == 1, "every reader got the same bytes")
    #expect(server.library.files(in: "thumbnails").filter { $0.contains(sha256 + "-1600") }.count == 1)
  }

  @Test func aPrefixOfAnIdRedirectsToTheReview() throws {
    let server = try server
    let id = try server.library.id(of: "Dune")
    let redirect = try server.request("GET", "/reviews/\(id.prefix(6))")
    #expect(redirect.status == 303)
    #expect(redirect.headers["Location"] == "/reviews/\(id)")
    let missing = try server.request("GET", "/reviews/0000000000000000")
    #expect(missing.status == 404)
    #expect(missing.text.contains("<h1>Not found</h1>"))
  }

  // MARK: Originals

  @Test func anOriginalDownloadsByteForByteWithItsETag() throws {
    let server = try server
    let images = try #require(
      try server.library.show(try server.library.id(of: "Arrival"))["images"] as? [[String: Any]])
    let sha256 = try #require(images[0]["sha256"] as? String)
    let bytes = try Fixture.bytes(ReaderLibrary.arrivalPictures[0])
    let url = "/originals/\(sha256).jpg"

    let whole = try server.request("GET", url)
    #expect(whole.status == 200)
    #expect(whole.body == bytes)
    #expect(whole.headers["Content-Type"] == "image/jpeg")
    #expect(whole.headers["ETag"] == "\"\(sha256)\"")
    #expect(whole.headers["Cache-Control"] == "public, max-age=31536000, immutable")
    #expect(whole.headers["Content-Disposition"]?.hasPrefix("inline") == true)
    #expect(whole.headers["Content-Security-Policy"] == "default-src 'none'; sandbox")

    let download = try server.request("GET", url + "?download")
    #expect(download.body == bytes)
    #expect(download.headers["Content-Disposition"]?.hasPrefix("attachment") == true)

    let cached = try server.request("GET", url, headers: [("If-None-Match", "\"\(sha256)\"")])
    #expect(cached.status == 304)
    #expect(cached.body.isEmpty)
    #expect(cached.headers["ETag"] == "\"\(sha256)\"")

    let range = try server.request("GET", url, headers: [("Range", "bytes=100-599")])
    #expect(range.status == 206)
    #expect(range.headers["Content-Range"] == "bytes 100-599/\(bytes.count)")
    #expect(range.body == Array(bytes[100..<600]))
    let suffix = try server.request("GET", url, headers: [("Range", "bytes=-100")])
    #expect(suffix.status == 206)
    #expect(suffix.body == Array(bytes.suffix(100)))
    let beyond = try server.request("GET", url, headers: [("Range", "bytes=\(bytes.count + 10)-")])
    #expect(beyond.status == 416)

    let head = try server.connect().request("HEAD", url)
    #expect(head.status == 200)
    #expect(head.headers["Content-Length"] == String(bytes.count))
    #expect(head.body.isEmpty)
  }

  @Test func aHEICOriginalComesAsADownload() throws {
    let server = try server
    let images = try #require(
      try server.library.show(try server.library.id(of: "Arrival"))["images"] as? [[String: Any]])
    let sha256 = try #require(images[1]["sha256"] as? String)
    let answer = try server.request("GET", "/originals/\(sha256).heic")
    #expect(answer.status == 200)
    #expect(answer.body == (try Fixture.bytes(ReaderLibrary.arrivalPictures[1])))
    #expect(answer.headers["Content-Type"] == "image/heic")
    #expect(answer.headers["Content-Disposition"]?.hasPrefix("attachment") == true)
  }

  @Test func aThumbnailIsCachedByItsName() throws {
    let server = try server
    let page = try server.request("GET", "/?category=game")
    let thumbnail = try #require(PageText.attributes("src", startingWith: "/thumbnails/", in: page.text).first)
    let name = String(thumbnail.dropFirst("/thumbnails/".count).dropLast(".jpg".count))
    let answer = try server.request("GET", thumbnail)
    #expect(answer.status == 200)
    #expect(answer.headers["ETag"] == "\"\(name)\"")
    #expect(answer.headers["Cache-Control"] == "public, max-age=31536000, immutable")
    let cached = try server.request("GET", thumbnail, headers: [("If-None-Match", "\"\(name)\"")])
    #expect(cached.status == 304)
    #expect(cached.body.isEmpty)
  }

  /// The mean absolute difference of two pictures' RGB samples, 0 to 255.
  static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
    guard a.width == b.width, a.height == b.height else { return .infinity }
    var total = 0
    for y in 0..<a.height {
      for x in 0..<a.width {
        let (p, q) = (a[x, y], b[x, y])
        for channel in 0..<3 { total += abs(Int(p[min(channel, p.count - 1)]) - Int(q[min(channel, q.count - 1)])) }
      }
    }
    return Double(total) / Double(a.width * a.height * 3)
  }
}

/// The reader suite's library: three reviews with pictures of every kind, and enough others
/// to fill a second page.
enum ReaderLibrary {
  /// Arrival's pictures in order: a JPEG, a HEIC, an EXIF-rotated JPEG, a picture wider than
  /// a display rendition (made at fill time), a transparent PNG.
  static let arrivalPictures = [
    Fixture.image("baseline.jpg"), Fixture.image("heic-8bit.heic"), Fixture.image("orientation-6.jpg"),
    large.path, Fixture.image("rgba-8.png"),
  ]

  static let fillers = (1...48).map { "Filler \($0 < 10 ? "0" : "")\($0)" }
  static let titles = ["Arrival", "Celeste", "Dune"] + fillers

  /// A 3200×200 JPEG, encoded by the pipeline: wider than a display rendition, and a strip so
  /// that a debug build makes its rendition quickly.
  static let large: (folder: TemporaryFolder, path: String) = {
    let folder = TemporaryFolder()
    let (width, height) = (3200, 200)
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
      for x in 0..<width {
        let offset = (y * width + x) * 3
        pixels[offset] = UInt8(x * 255 / width)
        pixels[offset + 1] = UInt8(y * 255 / height)
        pixels[offset + 2] = UInt8((x / 50 + y / 50) % 2 * 200)
      }
    }
    let path = folder.file("strip-3200x200.jpg")
    let bytes =
      (try? ImagePipeline.encodeJPEG(PixelBuffer(width: width, height: height, channels: 3, pixels: pixels))) ?? []
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    return (folder, path)
  }()

  @Sendable static func fill(_ library: TestLibrary) throws {
    try library.addReview(
      "Arrival", rating: 5, category: "movie", body: "A linguist learns to think in circles.", favorite: true,
      pictures: arrivalPictures)
    try library.addReview(
      "Celeste", rating: 4, category: "game", body: "A climb up a mountain.",
      pictures: [Fixture.image("webp-lossy.webp")])
    try library.addReview("Dune", rating: 2, category: "book", body: "The sandworm rises.")
    for title in fillers { try library.addReview(title, rating: 1, category: "tv", body: "Nothing to add.") }
  }
}
