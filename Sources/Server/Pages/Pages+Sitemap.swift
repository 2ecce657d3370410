import Catalogue
import Foundation
import HTTP

/// `robots.txt` and `sitemap.xml`: what search engines may crawl, and every page a reader
/// can reach by address (the home page, each category in use, each published review). Drafts
/// are never listed.
extension Pages {
  /// The most addresses one sitemap file lists: a larger library's `sitemap.xml` is an index
  /// of files of this many (`/sitemap.xml?page=N`), well under the protocol's 50,000 and 50 MB.
  static let sitemapSize = 10_000

  /// `/robots.txt`: everything readers see may be crawled; the reviewers' pages, sign-in and
  /// the API are not for search engines. Names the sitemap when the site's address is known.
  @Sendable static func robots(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    var lines = [
      "User-agent: *",
      "Disallow: /new",
      "Disallow: /sign-in",
      "Disallow: /preview",
      "Disallow: /api/",
      "Disallow: /*/edit",
      "Disallow: /*/delete",
    ]
    if let site = exchange.site { lines += ["", "Sitemap: \(site.absolute("/sitemap.xml"))"] }
    var headers = HTTPHeaders()
    headers.set("Content-Type", "text/plain; charset=utf-8")
    headers.set("Cache-Control", "no-cache")
    let body = Array((lines.joined(separator: "\n") + "\n").utf8)
    headers.set("ETag", Feeds.etag(of: body))
    return HTTPResponse(status: 200, headers: headers, body: body)
  }

  /// `/sitemap.xml`: the home page, each category published reviews use, each reviewer's page
  /// (of those who published), and each published review with the time it last changed, oldest first (so that a file's addresses stay put
  /// as reviews are added). Past ``sitemapSize`` addresses, an index of files of that many,
  /// `?page=N` each. A sitemap must list absolute addresses: without the site's address it is
  /// not found, and says how to give one.
  @Sendable static func sitemap(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    guard let site = exchange.site else {
      throw Failure.notFound(
        "the sitemap lists absolute addresses, and this server does not know its own: "
          + "start it with --public-url URL, or set one with `catalogue config public-url URL`")
    }
    var page: Int?
    if let text = exchange.head.query["page"] {
      guard let number = Int(text), number >= 1 else {
        throw Failure.badRequest("page must be a number from 1, not \(text)")
      }
      page = number
    }
    let size = sitemapSize
    let (total, categories, reviewers, reviews) = try exchange.library {
      (library) throws(CatalogueError) -> (Int, [Category], [String], [ReviewSummary]) in
      let total = try library.list(ReviewQuery(limit: 0)).total
      let categories = try library.categoriesInUse(publishedOnly: true)
      let reviewers = try library.reviewerProfiles(publishedOnly: true).map(\.name)
      // One file at most is read: the whole list when it fits, else the page asked for.
      guard page != nil || total <= size else { return (total, categories, reviewers, []) }
      let query = ReviewQuery(sort: .created, reversed: true, limit: size, offset: ((page ?? 1) - 1) * size)
      return (total, categories, reviewers, try library.list(query).reviews)
    }
    if let page, page > max(1, (total + size - 1) / size) {
      throw Failure.notFound("the sitemap has no file \(page)")
    }
    let body = Array(
      sitemapXML(
        site: site, total: total, page: page, categories: categories, reviewers: reviewers,
        reviews: reviews.map { ($0.id, $0.updated) },
        size: size
      ).utf8)
    var headers = HTTPHeaders()
    headers.set("Content-Type", "application/xml; charset=utf-8")
    headers.set("Cache-Control", "no-cache")
    headers.set("ETag", Feeds.etag(of: body))
    return HTTPResponse(status: 200, headers: headers, body: body)
  }

  /// The sitemap's file `page` (nil: `sitemap.xml` itself) of a site with `total` published
  /// reviews, `reviews` being those of that file: an index of the files when they do not fit in
  /// one, else the addresses (the home page and the categories in the first).
  static func sitemapXML(
    site: PublicURL, total: Int, page: Int?, categories: [Category], reviewers: [String] = [],
    reviews: [(id: String, updated: Date)],
    size: Int
  ) -> String {
    var lines = [#"<?xml version="1.0" encoding="UTF-8"?>"#]
    if page == nil && total > size {
      lines.append(#"<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#)
      for number in 1...((total + size - 1) / size) {
        lines.append("<sitemap><loc>\(e(site.absolute("/sitemap.xml?page=\(number)")))</loc></sitemap>")
      }
      lines.append("</sitemapindex>")
    } else {
      lines.append(#"<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#)
      if (page ?? 1) == 1 {
        lines.append("<url><loc>\(e(site.absolute("/")))</loc></url>")
        for category in categories {
          lines.append(
            "<url><loc>\(e(site.absolute("/?category=" + Files.queryEncoded(category.rawValue))))</loc></url>")
        }
        for name in reviewers { lines.append("<url><loc>\(e(site.absolute(reviewerPath(name))))</loc></url>") }
      }
      for review in reviews {
        lines.append(
          "<url><loc>\(e(site.absolute(reviewPath(review.id))))</loc>"
            + "<lastmod>\(DateText.format(review.updated))</lastmod></url>")
      }
      lines.append("</urlset>")
    }
    lines.append("")
    return lines.joined(separator: "\n")
  }
}
