import Catalogue
import Foundation
import HTTP
import ImagePipeline

/// The site's feeds, for feed readers: Atom (RFC 4287) and JSON Feed 1.1, for the whole site,
/// each category and each reviewer, of the ``size`` reviews published last, newest first.
///
/// What a feed carries is what a preview may: a review's body with each spoiler replaced by a
/// notice that holds none of its words (``ReviewText/htmlHidingSpoilers(_:)``), and of a review
/// whose whole text gives things away (``Review/containsSpoilers``) no text at all, only a line
/// that says so and the link to it. Drafts are never in a feed: the list is a reader's.
///
/// Links are absolute when the site's address is known (``Exchange/site``), else paths, which a
/// feed reader resolves against the feed's own address. An entry's id is its page's absolute
/// address, or `urn:catalogue:review:ID` without one. Feeds are readers' pages: kept by the
/// page cache until the library changes, with an `ETag`, so a reader polling an unchanged feed
/// gets `304 Not Modified`.
enum Feeds {
  enum Format {
    case atom, json

    var fileExtension: String { self == .atom ? "atom" : "json" }
    var contentType: String {
      self == .atom ? "application/atom+xml; charset=utf-8" : "application/feed+json; charset=utf-8"
    }
    var name: String { self == .atom ? "Atom" : "JSON Feed" }
  }

  /// Which reviews a feed follows.
  enum Scope {
    case site
    case category(Category)
    /// A reviewer's reviews: their name as stored, and the name their pages show.
    case reviewer(name: String, shown: String)

    /// The page the feed follows.
    var page: String {
      switch self {
      case .site: return "/"
      case .category(let category): return "/" + Pages.query([("category", category.rawValue)])
      case .reviewer(let name, _): return Pages.reviewerPath(name)
      }
    }

    func path(_ format: Format) -> String {
      switch self {
      case .site: return "/feed.\(format.fileExtension)"
      case .category(let category):
        return "/categories/\(Feeds.segment(category.rawValue))/feed.\(format.fileExtension)"
      case .reviewer(let name, _): return Pages.reviewerPath(name) + "/feed.\(format.fileExtension)"
      }
    }

    var title: String {
      switch self {
      case .site: return Pages.siteName
      case .category(let category): return "\(Pages.siteName): \(category.displayName)"
      case .reviewer(_, let shown): return "\(Pages.siteName) by \(shown)"
      }
    }

    var subtitle: String {
      switch self {
      case .site: return "The newest reviews"
      case .category(let category): return "The newest reviews in \(category.displayName)"
      case .reviewer(_, let shown): return "The newest reviews by \(shown)"
      }
    }
  }

  /// The newest reviews a feed holds.
  static let size = 50

  @Sendable static func siteAtom(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    try feed(exchange, scope: .site, format: .atom)
  }

  @Sendable static func siteJSON(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    try feed(exchange, scope: .site, format: .json)
  }

  @Sendable static func categoryAtom(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    try feed(exchange, scope: categoryScope(exchange), format: .atom)
  }

  @Sendable static func categoryJSON(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    try feed(exchange, scope: categoryScope(exchange), format: .json)
  }

  @Sendable static func reviewerAtom(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    try reviewerFeed(exchange, format: .atom)
  }

  @Sendable static func reviewerJSON(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    try reviewerFeed(exchange, format: .json)
  }

  /// A reviewer's feed: not found, in the words of their page, for a name with no published
  /// review; another case of the name is sent on to the stored one's.
  static func reviewerFeed(_ exchange: Exchange, format: Format) throws(Failure) -> HTTPResponse {
    let name = exchange.capture("name")
    let profile = try exchange.library { (library) throws(CatalogueError) in
      try library.reviewerProfile(named: name, publishedOnly: true)
    }
    guard let profile else {
      throw Failure.notFound(
        "no reviewer \(name) here: the address may be mistyped, or they have published nothing yet")
    }
    let scope = Scope.reviewer(name: profile.name, shown: profile.shownName)
    guard profile.name == name else { return Pages.redirect(to: scope.path(format)) }
    return try feed(exchange, scope: scope, format: format)
  }

  /// The category a feed's address names: one of the known kinds, or a label that published
  /// reviews use. Anything else is not found, as a page that does not exist.
  static func categoryScope(_ exchange: Exchange) throws(Failure) -> Scope {
    let label = exchange.capture("category")
    guard let category = Category(rawValue: label), category.rawValue == label else {
      throw Failure.notFound("there is no category \(label)")
    }
    if !category.isKnown {
      let used = try exchange.library { (library) throws(CatalogueError) in
        try library.categoriesInUse(publishedOnly: true)
      }
      guard used.contains(category) else { throw Failure.notFound("there is no category \(label)") }
    }
    return .category(category)
  }

  /// The `<link rel="alternate">` lines that announce `scope`'s feeds in a page's head.
  static func links(_ scope: Scope) -> [String] {
    [Format.atom, .json].map { format in
      let type = format == .atom ? "application/atom+xml" : "application/feed+json"
      return #"<link rel="alternate" type="\#(type)" title="\#(Pages.e(scope.title)) (\#(format.name))" "#
        + #"href="\#(Pages.e(scope.path(format)))">"#
    }
  }

  /// The line at the foot of a page that offers `scope`'s feeds to a reader.
  static func follow(_ scope: Scope) -> String {
    let what =
      switch scope {
      case .site: "these reviews"
      case .category(let category): "the reviews in \(Pages.e(category.displayName))"
      case .reviewer(_, let shown): "the reviews of \(Pages.e(shown))"
      }
    return
      #"<p class="feeds">Follow \#(what): <a href="\#(Pages.e(scope.path(.atom)))" type="application/atom+xml">Atom feed</a> · "#
      + #"<a href="\#(Pages.e(scope.path(.json)))" type="application/feed+json">JSON Feed</a></p>"#
  }

  static func feed(_ exchange: Exchange, scope: Scope, format: Format) throws(Failure) -> HTTPResponse {
    var category: Category?
    var author: String?
    switch scope {
    case .site: break
    case .category(let chosen): category = chosen
    case .reviewer(let name, _): author = name
    }
    let (reviews, authors) = try exchange.library {
      (library) throws(CatalogueError) -> ([Review], [String: ReviewerProfile]) in
      let reviews = try library.newestPublished(category: category, author: author, limit: size)
      var authors: [String: ReviewerProfile] = [:]
      for name in Set(reviews.compactMap(\.createdBy)) {
        authors[name] = try library.reviewerProfile(named: name, publishedOnly: true)
      }
      return (reviews, authors)
    }
    let feed = Feed(scope: scope, format: format, site: exchange.site, reviews: reviews, authors: authors)
    let body = Array((format == .atom ? feed.atom() : feed.json()).utf8)
    var headers = HTTPHeaders()
    headers.set("Content-Type", format.contentType)
    headers.set("Cache-Control", "no-cache")
    headers.set("ETag", etag(of: body))
    return HTTPResponse(status: 200, headers: headers, body: body)
  }

  /// A strong validator for `body`: 64 bits of FNV-1a, enough to tell a changed feed.
  static func etag(of body: [UInt8]) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in body { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    let hex = String(hash, radix: 16)
    return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
  }

  /// `text` percent-encoded as one path segment: every byte but ASCII letters, digits and
  /// `-._~`.
  static func segment(_ text: String) -> String { Files.queryEncoded(text) }
}

/// One feed, written as Atom or JSON Feed.
struct Feed {
  let scope: Feeds.Scope
  let format: Feeds.Format
  let site: PublicURL?
  let reviews: [Review]
  /// The profiles of the reviews' authors, by the name each review keeps.
  let authors: [String: ReviewerProfile]

  /// Who wrote `review`, as their pages name them, with their page's address.
  func author(_ review: Review) -> (name: String, url: String?)? {
    guard let name = review.createdBy else { return nil }
    guard let profile = authors[name] else { return (name, nil) }
    return (profile.shownName, url(Pages.reviewerPath(profile.name)))
  }

  /// `path` on the site: absolute when its address is known.
  func url(_ path: String) -> String { site?.absolute(path) ?? path }

  /// Who a feed is by: the reviewer of a reviewer's feed, else the site.
  var feedAuthor: String {
    if case .reviewer(_, let shown) = scope { return shown }
    return Pages.siteName
  }

  func entryID(_ review: Review) -> String {
    site?.absolute(Pages.reviewPath(review.id)) ?? "urn:catalogue:review:\(review.id)"
  }

  /// The newest change of any review in the feed (the epoch for an empty feed: a feed's
  /// `updated` must not move while nothing in it does).
  var updated: Date {
    reviews.map { max($0.updated, $0.published ?? $0.updated) }.max() ?? Date(timeIntervalSince1970: 0)
  }

  static func stars(_ rating: Int) -> String {
    let filled = min(max(rating, 0), 5)
    return String(repeating: "★", count: filled) + String(repeating: "☆", count: 5 - filled)
  }

  func title(_ review: Review) -> String { "\(review.title) \(Self.stars(review.rating))" }

  /// The cover's display rendition (a JPEG or PNG any reader shows), when there is a cover.
  func cover(_ review: Review) -> (url: String, type: String, alt: String)? {
    guard let item = review.images.first(where: \.isCover) ?? review.images.first else { return nil }
    // The rendition is in the thumbnails' format: PNG for a picture with transparency.
    let type = item.image.thumbnailFormat == .png ? "image/png" : "image/jpeg"
    return (url(Files.displayURL(item.image)), type, item.text.alt ?? "")
  }

  /// The line a reader sees in a list of entries.
  func summary(_ review: Review) -> String {
    if review.containsSpoilers { return "This review contains spoilers: read it on the site." }
    let line = ReviewText.summary(review.body)
    return line.isEmpty ? "\(review.rating) of 5 stars, \(review.category.displayName)" : line
  }

  /// The entry's HTML: the cover, then the body with its spoilers replaced by notices; of a
  /// review that gives things away, a line that says so instead of the body.
  func content(_ review: Review) -> String {
    var html = ""
    if let cover = cover(review) {
      html += #"<p><img src="\#(HTML.escape(cover.url))" alt="\#(HTML.escape(cover.alt))"></p>"# + "\n"
    }
    let page = HTML.escape(url(Pages.reviewPath(review.id)))
    if review.containsSpoilers {
      html += #"<p><strong>This review contains spoilers.</strong> <a href="\#(page)">Read it on the site</a>.</p>"#
    } else {
      html += ReviewText.htmlHidingSpoilers(review.body)
    }
    return html
  }

  // MARK: Atom

  func atom() -> String {
    var lines = [
      #"<?xml version="1.0" encoding="utf-8"?>"#,
      #"<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">"#,
      "<title>\(xml(scope.title))</title>",
      "<subtitle>\(xml(scope.subtitle))</subtitle>",
      "<id>\(xml(site?.absolute(scope.path(.atom)) ?? "urn:catalogue:feed:\(scope.path(.atom))"))</id>",
      #"<link rel="self" type="application/atom+xml" href="\#(xml(url(scope.path(.atom))))"/>"#,
      #"<link rel="alternate" type="text/html" href="\#(xml(url(scope.page)))"/>"#,
      "<updated>\(DateText.format(updated))</updated>",
      "<author><name>\(xml(feedAuthor))</name></author>",
      "<generator>catalogue</generator>",
    ]
    for review in reviews {
      lines.append("<entry>")
      lines.append("<id>\(xml(entryID(review)))</id>")
      lines.append(#"<title type="text">\#(xml(title(review)))</title>"#)
      lines.append(#"<link rel="alternate" type="text/html" href="\#(xml(url(Pages.reviewPath(review.id))))"/>"#)
      lines.append("<published>\(DateText.format(review.published ?? review.created))</published>")
      lines.append("<updated>\(DateText.format(max(review.updated, review.published ?? review.updated)))</updated>")
      if let author = author(review) {
        lines.append(
          "<author><name>\(xml(author.name))</name>" + (author.url.map { "<uri>\(xml($0))</uri>" } ?? "") + "</author>")
      }
      lines.append(
        #"<category term="\#(xml(review.category.rawValue))" label="\#(xml(review.category.displayName))"/>"#)
      lines.append(#"<summary type="text">\#(xml(summary(review)))</summary>"#)
      lines.append(#"<content type="html">\#(xml(content(review)))</content>"#)
      if let cover = cover(review) {
        lines.append(#"<link rel="enclosure" type="\#(cover.type)" href="\#(xml(cover.url))"/>"#)
      }
      lines.append("</entry>")
    }
    lines += ["</feed>", ""]
    return lines.joined(separator: "\n")
  }

  /// `text` for XML: the five characters escaped, and what XML 1.0 cannot hold at all
  /// (control characters other than tab and line breaks, U+FFFE, U+FFFF) left out.
  func xml(_ text: String) -> String {
    let allowed = text.unicodeScalars.allSatisfy(Self.allowedInXML)
    let kept = allowed ? text : String(String.UnicodeScalarView(text.unicodeScalars.filter(Self.allowedInXML)))
    return HTML.escape(kept)
  }

  static func allowedInXML(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x9, 0xA, 0xD: return true
    case 0..<0x20, 0xFFFE, 0xFFFF: return false
    default: return true
    }
  }

  // MARK: JSON Feed

  private struct JSONFeed: Encodable {
    struct Author: Encodable {
      var name: String
      var url: String?
    }

    struct Attachment: Encodable {
      var url: String
      var mime_type: String
    }

    struct Item: Encodable {
      var id: String
      var url: String
      var title: String
      var content_html: String
      var summary: String
      var image: String?
      var date_published: String
      var date_modified: String
      var authors: [Author]?
      var tags: [String]
      var attachments: [Attachment]?
    }

    var version = "https://jsonfeed.org/version/1.1"
    var title: String
    var description: String
    var home_page_url: String
    var feed_url: String
    var language = "en"
    var authors: [Author]
    var items: [Item]
  }

  func json() -> String {
    let items = reviews.map { review in
      let cover = cover(review)
      return JSONFeed.Item(
        id: entryID(review), url: url(Pages.reviewPath(review.id)), title: title(review),
        content_html: content(review), summary: summary(review), image: cover?.url,
        date_published: DateText.format(review.published ?? review.created),
        date_modified: DateText.format(max(review.updated, review.published ?? review.updated)),
        authors: author(review).map { [JSONFeed.Author(name: $0.name, url: $0.url)] },
        tags: [review.category.displayName],
        attachments: cover.map { [JSONFeed.Attachment(url: $0.url, mime_type: $0.type)] })
    }
    let feed = JSONFeed(
      title: scope.title, description: scope.subtitle, home_page_url: url(scope.page),
      feed_url: url(scope.path(.json)), authors: [JSONFeed.Author(name: feedAuthor)], items: items)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
    guard let data = try? encoder.encode(feed) else { return "{}" }
    return String(decoding: data, as: UTF8.self) + "\n"
  }
}
