import Catalogue
import Foundation
import HTTP
import HTTPTestSupport
import ImagePipeline
import Testing
import TestSupport

@testable import Server

/// What lets readers follow and share the site: Atom and JSON feeds read by a real feed reader,
/// share previews (OpenGraph, Twitter cards, canonical links), `robots.txt` and the sitemap, and
/// the public address they are all built from.
@Suite("Feeds and share previews")
struct EndToEndReachTests {
  static let site = "https://reviews.example"
  /// Words only a spoiler, a warned review's body, or a draft holds: in no feed, preview or
  /// sitemap.
  static let hidden = ["vault", "butler", "conservatory", "secret plans", "marmalade"]

  /// A site at `site` with a review with a cover, one with an inline spoiler, one whose whole
  /// text is a spoiler (by the reviewer), and a draft; the ids by title.
  static func reachableSite(arguments: [String] = ["--public-url", site]) throws -> (LiveSite, [String: String]) {
    let site = try LiveSite(arguments: arguments) { library in
      try library.addReview(
        "Arrival", rating: 4, category: "movie", body: "A quiet film about language. Slow, but rewarding.",
        pictures: [Fixture.image("baseline.jpg")])
      try library.addReview(
        "Heist", rating: 3, category: "movie", body: "A fine caper. ||The vault was empty|| all along.")
      try library.addReview("Dune", rating: 5, category: "book", body: "Sand, everywhere.")
    }
    let clue = try site.json(
      "POST", "/api/reviews",
      [
        "title": "Clue", "rating": 4, "category": "movie", "containsSpoilers": true,
        "body": "The butler did it, in the conservatory.",
      ])
    try #require(clue.status == 201, "\(clue)")
    let draft = try site.json(
      "POST", "/api/reviews",
      [
        "title": "Secret plans", "rating": 2, "category": "movie", "draft": true,
        "body": "Marmalade everywhere.",
      ])
    try #require(draft.status == 201, "\(draft)")
    var ids: [String: String] = [:]
    for title in ["Arrival", "Heist", "Dune"] { ids[title] = try site.library.id(of: title) }
    ids["Clue"] = try #require(try clue.json()["id"] as? String)
    ids["Secret plans"] = try #require(try draft.json()["id"] as? String)
    return (site, ids)
  }

  /// What `Tests/Feeds/feedcheck.py` found at `target`: feedparser's reading of an Atom feed, or
  /// the JSON Feed 1.1 specification's checks.
  static func readFeed(_ site: LiveSite, _ target: String, etag: String? = nil) throws -> [String: Any] {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Feeds/feedcheck.py").path
    let run = try BrowserTests.run(
      "/usr/bin/python3", [script, "http://127.0.0.1:\(site.port)\(target)"] + (etag.map { [$0] } ?? []), timeout: 60)
    try #require(run.status == 0, "feedcheck.py \(target): \(run.output)")
    let data = Data(run.output.utf8)
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(run.output)")
  }

  static func entries(_ feed: [String: Any]) -> [[String: Any]] { feed["entries"] as? [[String: Any]] ?? [] }

  /// The `content` of the `<meta>` tag with `attribute="name"` in `html`, or nil.
  static func meta(_ name: String, in html: String, attribute: String = "property") -> String? {
    guard let start = html.range(of: #"<meta \#(attribute)="\#(name)" content=""#) else { return nil }
    let rest = html[start.upperBound...]
    return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
  }

  // MARK: Feeds

  /// A feed reader finds the newest published reviews in both feeds, their titles with stars,
  /// absolute links, the cover as an enclosure, and not one word of a spoiler, of a warned
  /// review's text, or of a draft.
  @Test func feedsHoldPublishedReviewsWithoutTheirSpoilers() throws {
    let (site, ids) = try Self.reachableSite()
    for (target, version) in [("/feed.atom", "atom10"), ("/feed.json", "json11")] {
      let feed = try Self.readFeed(site, target)
      #expect(feed["status"] as? Int == 200)
      #expect(feed["version"] as? String == version, "\(target)")
      #expect(feed["bozo"] as? Bool == false, "\(target): \(feed["problems"] ?? "")")
      #expect(feed["title"] as? String == "Reviews")
      #expect(feed["link"] as? String == Self.site + "/")
      let entries = Self.entries(feed)
      #expect(
        entries.compactMap { $0["title"] as? String }.sorted() == [
          "Arrival ★★★★☆", "Clue ★★★★☆", "Dune ★★★★★", "Heist ★★★☆☆",
        ])
      let text = JSONValue.canonical(feed).lowercased()
      for word in Self.hidden { #expect(!text.contains(word), "\(target) holds “\(word)”") }
      #expect(!text.contains(try #require(ids["Secret plans"])), "\(target) names the draft")
      for entry in entries {
        let title = (entry["title"] as? String ?? "").split(separator: " ").first.map(String.init) ?? ""
        let id = try #require(ids[title])
        #expect(entry["link"] as? String == "\(Self.site)/reviews/\(id)")
        #expect(entry["id"] as? String == "\(Self.site)/reviews/\(id)")
        #expect((entry["published"] as? String)?.hasPrefix("20") == true)
        let content = entry["content"] as? String ?? ""
        switch title {
        case "Arrival":
          let enclosure = try #require((entry["enclosures"] as? [String])?.first)
          #expect(enclosure.hasPrefix(Self.site + "/display/"))
          #expect(content.contains(#"src="\#(enclosure)""#))
          #expect(content.contains("A quiet film about language. Slow, but rewarding."))
          #expect(entry["summary"] as? String == "A quiet film about language.")
          // The enclosure is a picture the server gives.
          let picture = try site.request("GET", String(enclosure.dropFirst(Self.site.count)))
          #expect(picture.status == 200 && picture.headers["Content-Type"] == "image/jpeg")
        case "Heist":
          #expect(content.contains("[spoiler hidden]"))
          #expect(content.contains("A fine caper."))
          #expect(entry["summary"] as? String == "A fine caper.")
        case "Clue":
          #expect(content.contains("This review contains spoilers."))
          #expect(content.contains(#"<a href="\#(Self.site)/reviews/\#(id)">Read it on the site</a>"#))
          #expect(entry["author"] as? String == LiveSite.reviewer)
          #expect((entry["enclosures"] as? [String])?.isEmpty ?? true)
        default:
          #expect((entry["tags"] as? [String]) == [version == "atom10" ? "book" : "Book"])
        }
      }
    }
  }

  /// A feed reader that holds the feed gets `304 Not Modified`, from the page cache or made
  /// afresh, until a review changes; then the new feed, under a new `ETag`.
  @Test func anUnchangedFeedIsNotSentAgain() throws {
    let (site, ids) = try Self.reachableSite()
    for target in ["/feed.atom", "/feed.json", "/categories/movie/feed.atom", "/sitemap.xml"] {
      let first = try site.request("GET", target)
      let etag = try #require(first.headers["ETag"], "\(target)")
      #expect(first.headers["Cache-Control"] == "no-cache")
      let again = try site.request("GET", target, headers: [("If-None-Match", etag)])
      #expect(again.status == 304, "\(target)")
      #expect(again.body.isEmpty && again.headers["ETag"] == etag)
      // A weak match, and one in a list, are matches too.
      #expect(try site.request("GET", target, headers: [("If-None-Match", #""x", W/\#(etag)"#)]).status == 304)
      #expect(try site.request("GET", target, headers: [("If-None-Match", #""other""#)]).status == 200)
    }
    let feed = try Self.readFeed(site, "/feed.atom")
    let etag = try #require(feed["etag"] as? String)
    #expect(try Self.readFeed(site, "/feed.atom", etag: etag)["status"] as? Int == 304)
    let edited = try site.json("PATCH", "/api/reviews/\(try #require(ids["Dune"]))", ["title": "Dune Messiah"])
    #expect(edited.status == 200)
    let changed = try Self.readFeed(site, "/feed.atom", etag: etag)
    #expect(changed["status"] as? Int == 200)
    #expect(changed["etag"] as? String != etag)
    #expect(Self.entries(changed).contains { $0["title"] as? String == "Dune Messiah ★★★★★" })
  }

  /// A feed is in the order reviews were published: a draft written before the others and
  /// published after them is the newest entry, in the site's feed, its category's and its
  /// reviewer's.
  @Test func aDraftPublishedLastIsTheNewestEntry() throws {
    let site = try LiveSite()
    let slow = try site.json(
      "POST", "/api/reviews", ["title": "Slow burn", "rating": 4, "category": "book", "body": "Long.", "draft": true])
    let id = try #require(try slow.json()["id"] as? String)
    for title in ["First", "Second"] {
      #expect(
        try site.json("POST", "/api/reviews", ["title": title, "rating": 3, "category": "book", "body": "x"]).status
          == 201)
    }
    func titles(_ target: String) throws -> [String] {
      Self.entries(try Self.readFeed(site, target)).compactMap {
        ($0["title"] as? String)?.components(separatedBy: " ★").first
      }
    }
    #expect(try titles("/feed.atom") == ["Second", "First"])
    #expect(try site.json("PATCH", "/api/reviews/\(id)", ["draft": false]).status == 200)
    for target in [
      "/feed.atom", "/feed.json", "/categories/book/feed.atom", "/reviewers/\(LiveSite.reviewer)/feed.json",
    ] {
      #expect(try titles(target) == ["Slow burn", "Second", "First"], "\(target)")
    }
    let entry = try #require(Self.entries(try Self.readFeed(site, "/feed.atom")).first)
    #expect(
      (entry["published"] as? String ?? "")
        > (Self.entries(try Self.readFeed(site, "/feed.atom"))[1]["published"] as? String ?? ""))
  }

  /// A category's feed holds its reviews only; a known category without reviews has an empty
  /// feed, a label no published review uses has none.
  @Test func eachCategoryHasItsFeed() throws {
    let (site, _) = try Self.reachableSite()
    let movies = try Self.readFeed(site, "/categories/movie/feed.json")
    #expect(movies["bozo"] as? Bool == false, "\(movies["problems"] ?? "")")
    #expect(movies["title"] as? String == "Reviews: Movie")
    #expect(Self.entries(movies).count == 3)
    let books = try Self.readFeed(site, "/categories/book/feed.atom")
    #expect(books["bozo"] as? Bool == false)
    #expect(Self.entries(books).compactMap { $0["title"] as? String } == ["Dune ★★★★★"])
    #expect(books["link"] as? String == Self.site + "/?category=book")
    let games = try Self.readFeed(site, "/categories/game/feed.atom")
    #expect(games["bozo"] as? Bool == false && Self.entries(games).isEmpty)

    let made = try site.json(
      "POST", "/api/reviews",
      ["title": "Catan", "rating": 4, "category": "board games", "newCategory": true, "body": "Sheep."])
    #expect(made.status == 201)
    let custom = try Self.readFeed(site, "/categories/board%20games/feed.atom")
    #expect(Self.entries(custom).compactMap { $0["title"] as? String } == ["Catan ★★★★☆"])
    let hidden = try site.json(
      "POST", "/api/reviews",
      ["title": "Hush", "rating": 4, "category": "whispers", "newCategory": true, "body": "Shh.", "draft": true])
    #expect(hidden.status == 201)
    for target in ["/categories/whispers/feed.atom", "/categories/nothing/feed.json", "/categories/Movie/feed.atom"] {
      #expect(try site.request("GET", target).status == 404, "\(target)")
    }
    // Pages announce their feeds.
    let home = try site.request("GET", "/?category=book").text
    #expect(
      home.contains(#"<link rel="alternate" type="application/atom+xml" title="Reviews (Atom)" href="/feed.atom">"#))
    #expect(
      home.contains(
        #"<link rel="alternate" type="application/feed+json" title="Reviews: Book (JSON Feed)" href="/categories/book/feed.json">"#
      ))
  }

  /// A reviewer's feed holds what they published, under the name their pages show, each entry
  /// naming them with their page; another case of the name is sent on, a name with nothing
  /// published is not found.
  @Test func eachReviewerHasAFeed() throws {
    let (site, ids) = try Self.reachableSite()
    let edited = try site.library.run("user", "edit", LiveSite.reviewer, "--display-name", "Alice Liddell")
    try #require(edited.status == 0, "\(edited.error)")
    let path = "/reviewers/\(LiveSite.reviewer)"
    for format in ["atom", "json"] {
      let feed = try Self.readFeed(site, "\(path)/feed.\(format)")
      #expect(feed["bozo"] as? Bool == false, "\(feed["problems"] ?? "")")
      #expect(feed["title"] as? String == "Reviews by Alice Liddell")
      #expect(feed["link"] as? String == Self.site + path)
      let entries = Self.entries(feed)
      #expect(entries.compactMap { $0["title"] as? String } == ["Clue ★★★★☆"], "not the draft, nor others' reviews")
      #expect(entries.first?["author"] as? String == "Alice Liddell")
      let moved = try site.request("GET", "/reviewers/ALICE/feed.\(format)")
      #expect(moved.status == 303 && moved.headers["Location"] == "\(path)/feed.\(format)")
      #expect(try site.request("GET", "/reviewers/nobody/feed.\(format)").status == 404)
    }
    let atom = try site.request("GET", "\(path)/feed.atom").text
    #expect(atom.contains("<author><name>Alice Liddell</name><uri>\(Self.site)\(path)</uri></author>"))

    // The review names its author, their page and their feed; their page its own.
    let clue = try site.request("GET", "/reviews/\(try #require(ids["Clue"]))").text
    #expect(Self.meta("author", in: clue, attribute: "name") == "Alice Liddell")
    #expect(Self.meta("article:author", in: clue) == Self.site + path)
    #expect(clue.contains(#"title="Reviews by Alice Liddell (Atom)" href="\#(path)/feed.atom">"#))
    let page = try site.request("GET", path).text
    #expect(page.contains(#"<link rel="canonical" href="\#(Self.site)\#(path)">"#))
    #expect(Self.meta("og:title", in: page) == "Reviews by Alice Liddell")
    #expect(page.contains(#"<p class="feeds">Follow the reviews of Alice Liddell: <a href="\#(path)/feed.atom""#))
    let bio = try site.library.run("user", "edit", LiveSite.reviewer, "--bio", "I watch films. Mostly at night.")
    try #require(bio.status == 0, "\(bio.error)")
    #expect(Self.meta("description", in: try site.request("GET", path).text, attribute: "name") == "I watch films.")
  }

  // MARK: Share previews

  /// A review's page carries the tags a chat or a social site reads for its preview, every
  /// address absolute, the description its first sentence without spoilers; of a warned review
  /// none of its text; a draft's page none of it, and `noindex`.
  @Test func reviewPagesCarryASharePreview() throws {
    let (site, ids) = try Self.reachableSite()
    let arrival = try #require(ids["Arrival"])
    let page = try site.request("GET", "/reviews/\(arrival)").text
    let url = "\(Self.site)/reviews/\(arrival)"
    #expect(page.contains(#"<link rel="canonical" href="\#(url)">"#))
    #expect(Self.meta("og:type", in: page) == "article")
    #expect(Self.meta("og:title", in: page) == "Arrival")
    #expect(Self.meta("og:url", in: page) == url)
    #expect(Self.meta("og:site_name", in: page) == "Reviews")
    #expect(Self.meta("og:description", in: page) == "A quiet film about language.")
    #expect(Self.meta("description", in: page, attribute: "name") == "A quiet film about language.")
    let card = try #require(Self.meta("og:image", in: page))
    #expect(card.hasPrefix("\(Self.site)/cards/\(arrival).jpg?v="))
    // The preview's picture is there, a 1200×630 JPEG, as the tags say.
    let picture = try site.request("GET", String(card.dropFirst(Self.site.count)))
    #expect(picture.status == 200 && picture.headers["Content-Type"] == "image/jpeg")
    let header = try ImagePipeline.readHeader(picture.body)
    #expect(header.width == 1200 && header.height == 630)
    #expect(Self.meta("og:image:width", in: page) == "1200")
    #expect(Self.meta("og:image:height", in: page) == "630")
    #expect(Self.meta("og:image:alt", in: page) == "Arrival: 4 of 5 stars, Movie")
    #expect(Self.meta("twitter:card", in: page, attribute: "name") == "summary_large_image")
    #expect(Self.meta("twitter:image", in: page, attribute: "name") == Self.meta("og:image", in: page))
    #expect(Self.meta("article:published_time", in: page)?.hasPrefix("20") == true)

    let heist = try site.request("GET", "/reviews/\(try #require(ids["Heist"]))").text
    #expect(Self.meta("og:description", in: heist) == "A fine caper.")
    let clue = try site.request("GET", "/reviews/\(try #require(ids["Clue"]))").text
    #expect(Self.meta("og:description", in: clue) == "4 of 5 stars · Movie · This review contains spoilers.")
    #expect(Self.meta("author", in: clue, attribute: "name") == LiveSite.reviewer)
    #expect(Self.meta("article:author", in: clue) == "\(Self.site)/reviewers/\(LiveSite.reviewer)")
    for (name, html) in [("Heist", heist), ("Clue", clue)] {
      let head = try #require(html.components(separatedBy: "</head>").first).lowercased()
      for word in Self.hidden { #expect(!head.contains(word), "\(name)'s head holds “\(word)”") }
    }

    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    let draft = try browser.get("/reviews/\(try #require(ids["Secret plans"]))").text
    #expect(draft.contains(#"<meta name="robots" content="noindex">"#))
    #expect(!draft.contains("og:") && !draft.contains("canonical"))
  }

  /// Without a public address, nothing absolute is written (no `og:image`, no canonical link,
  /// no sitemap): a `Host` header is anyone's to send. Behind a trusted proxy, the host it
  /// forwarded is taken when it is a host, and pages made for one host are never given for
  /// another.
  @Test func absoluteAddressesNeedAnAddressTheServerCanTrust() throws {
    let (plain, ids) = try Self.reachableSite(arguments: [])
    let path = "/reviews/\(try #require(ids["Arrival"]))"
    let page = try plain.request("GET", path, headers: [("Host", "evil.example")]).text
    #expect(Self.meta("og:title", in: page) == "Arrival")
    #expect(Self.meta("og:image", in: page) == nil && !page.contains("canonical") && !page.contains("evil.example"))
    #expect(Self.meta("twitter:card", in: page, attribute: "name") == "summary")
    let sitemap = try plain.request("GET", "/sitemap.xml")
    #expect(sitemap.status == 404)
    #expect(sitemap.text.contains("start it with --public-url URL, or set one with"))
    let robots = try plain.request("GET", "/robots.txt")
    #expect(robots.status == 200 && robots.text.hasPrefix("User-agent: *\n") && !robots.text.contains("Sitemap"))
    // Feeds still work, their links paths a reader resolves against the feed's address.
    let feed = try Self.readFeed(plain, "/feed.atom")
    #expect(feed["bozo"] as? Bool == false)
    #expect(
      Self.entries(feed).first { $0["title"] as? String == "Arrival ★★★★☆" }?["id"] as? String
        == "urn:catalogue:review:\(try #require(ids["Arrival"]))")

    let (proxied, proxiedIDs) = try Self.reachableSite(arguments: ["--trust-proxy"])
    let proxiedPath = "/reviews/\(try #require(proxiedIDs["Arrival"]))"
    let first = try proxied.request(
      "GET", proxiedPath,
      headers: [("Host", "127.0.0.1"), ("X-Forwarded-Host", "one.example"), ("X-Forwarded-Proto", "https")]
    ).text
    #expect(Self.meta("og:image", in: first)?.hasPrefix("https://one.example/cards/") == true)
    let second = try proxied.request("GET", proxiedPath, headers: [("Host", "two.example:8080")]).text
    #expect(Self.meta("og:url", in: second) == "http://two.example:8080\(proxiedPath)")
    let forged = try proxied.request("GET", proxiedPath, headers: [("Host", #"x"><script>alert(1)</script>"#)]).text
    #expect(Self.meta("og:image", in: forged) == nil && !forged.contains("<script>alert"))
  }

  /// The library's setting is the address when `serve` is given none, and a change to it made
  /// while the server runs is in force at the next request.
  @Test func theLibrarySettingIsTheAddress() throws {
    let site = try LiveSite { library in
      try library.addReview("Arrival", body: "Circles.")
      let set = try library.run("config", "public-url", "https://first.example/")
      try #require(set.status == 0, "\(set.error)")
    }
    let id = try site.library.id(of: "Arrival")
    #expect(
      Self.meta("og:url", in: try site.request("GET", "/reviews/\(id)").text) == "https://first.example/reviews/\(id)")
    #expect(try site.library.run("config", "public-url", "https://second.example").status == 0)
    #expect(
      Self.meta("og:url", in: try site.request("GET", "/reviews/\(id)").text) == "https://second.example/reviews/\(id)")
    #expect(try site.request("GET", "/robots.txt").text.hasSuffix("\nSitemap: https://second.example/sitemap.xml\n"))
    #expect(try site.library.run("config", "--unset", "public-url").status == 0)
    #expect(Self.meta("og:url", in: try site.request("GET", "/reviews/\(id)").text) == nil)
  }

  // MARK: Search engines

  /// The sitemap lists the home page, the categories in use and every published review with
  /// the time it changed; never a draft. `robots.txt` names it and keeps crawlers out of the
  /// reviewers' pages.
  @Test func theSitemapListsWhatReadersCanReach() throws {
    let (site, ids) = try Self.reachableSite()
    let answer = try site.request("GET", "/sitemap.xml")
    #expect(answer.status == 200)
    #expect(answer.headers["Content-Type"] == "application/xml; charset=utf-8")
    let xml = answer.text
    #expect(xml.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"))
    let parsed = try BrowserTests.run(
      "/usr/bin/python3",
      [
        "-c",
        "import sys, xml.etree.ElementTree as E; r = E.fromstring(sys.argv[1].encode()); "
          + "print(' '.join(e.text for e in r.iter('{http://www.sitemaps.org/schemas/sitemap/0.9}loc')))",
        xml,
      ], timeout: 30)
    #expect(parsed.status == 0, "\(parsed.output)")
    var expected = [
      "\(Self.site)/", "\(Self.site)/?category=movie", "\(Self.site)/?category=book",
      "\(Self.site)/reviewers/\(LiveSite.reviewer)",
    ]
    for title in ["Arrival", "Heist", "Dune", "Clue"] {
      expected.append("\(Self.site)/reviews/\(try #require(ids[title]))")
    }
    #expect(Set(parsed.output.split(whereSeparator: \.isWhitespace).map(String.init)) == Set(expected))
    #expect(!xml.contains(try #require(ids["Secret plans"])))
    #expect(xml.components(separatedBy: "<lastmod>").count == 5)

    let robots = try site.request("GET", "/robots.txt")
    #expect(robots.headers["Content-Type"] == "text/plain; charset=utf-8")
    for line in ["Disallow: /new", "Disallow: /sign-in", "Disallow: /api/", "Sitemap: \(Self.site)/sitemap.xml"] {
      #expect(robots.text.contains(line + "\n"), "\(line)")
    }
    #expect(try site.request("GET", "/sitemap.xml?page=2").status == 404)
    #expect(try site.request("GET", "/sitemap.xml?page=x").status == 400)
  }

  /// Past the most addresses one file holds, `sitemap.xml` is an index of files, each listing
  /// its share, the first with the home page and the categories.
  @Test func aLargeSitemapIsAnIndexOfFiles() throws {
    let site = try PublicURL(parsing: Self.site)
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let index = Pages.sitemapXML(site: site, total: 5, page: nil, categories: [], reviews: [], size: 2)
    #expect(index.contains("<sitemapindex"))
    #expect(
      index.components(separatedBy: "<sitemap><loc>").dropFirst().map { $0.prefix(while: { $0 != "<" }) } == [
        "\(Self.site)/sitemap.xml?page=1", "\(Self.site)/sitemap.xml?page=2", "\(Self.site)/sitemap.xml?page=3",
      ])
    let last = Pages.sitemapXML(
      site: site, total: 5, page: 3, categories: [.movie], reviews: [("0123456789abcdef", date)], size: 2)
    #expect(last.contains("<urlset") && !last.contains("?category=movie"))
    #expect(
      last.contains("<loc>\(Self.site)/reviews/0123456789abcdef</loc><lastmod>2023-11-14T22:13:20.000Z</lastmod>"))
    let first = Pages.sitemapXML(site: site, total: 5, page: 1, categories: [.movie], reviews: [], size: 2)
    #expect(first.contains("<loc>\(Self.site)/?category=movie</loc>") && first.contains("<loc>\(Self.site)/</loc>"))
  }
}
