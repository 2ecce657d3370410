import Catalogue
import Foundation
import HTTP

/// What a page says of itself in its head, for search engines, feed readers and the sites a
/// link to it is pasted in (chats, social sites): a description, the canonical address, and
/// the OpenGraph and Twitter card tags of a share preview.
///
/// A preview shows only what a reader may see without choosing to: a review's description is
/// its first sentence that holds no spoiler (``ReviewText/summary(_:maximumLength:)``), and of
/// a review whose whole text gives things away, none of its text. Drafts get none of it: their
/// pages are for reviewers only, and say `noindex`. Absolute addresses (`og:url`, `og:image`,
/// the canonical link) need the site's address (``Exchange/site``): without it they are left
/// out rather than guessed from a `Host` anyone can send.
extension Pages {
  /// The longest description, in characters: about what a search result or a preview shows.
  static let descriptionLength = 200

  /// A review page's description: its first spoiler-free sentence, or what it is.
  static func description(of review: Review) -> String {
    let what = "\(review.rating) of 5 stars · \(review.category.displayName)"
    if review.containsSpoilers { return "\(what) · This review contains spoilers." }
    let sentence = ReviewText.summary(review.body, maximumLength: descriptionLength)
    return sentence.isEmpty ? "\(what) review" : sentence
  }

  /// What the share card of `review` shows, for those who cannot see it.
  static func cardDescription(of review: Review) -> String {
    "\(review.title): \(review.rating) of 5 stars, \(review.category.displayName)"
  }

  /// The head of a review's page: description, canonical link, share preview, feeds (the
  /// site's, and its author's when `author` has a page).
  static func reviewHead(_ review: Review, site: PublicURL?, author: ReviewerProfile?) -> [String] {
    guard !review.isDraft else { return [#"<meta name="robots" content="noindex">"#] }
    let description = description(of: review)
    var tags = [
      #"<meta name="description" content="\#(e(description))">"#,
      #"<meta property="og:type" content="article">"#,
      #"<meta property="og:site_name" content="\#(e(siteName))">"#,
      #"<meta property="og:title" content="\#(e(review.title))">"#,
      #"<meta property="og:description" content="\#(e(description))">"#,
      #"<meta property="article:published_time" content="\#(DateText.format(review.published ?? review.created))">"#,
      #"<meta property="article:modified_time" content="\#(DateText.format(review.updated))">"#,
      #"<meta property="article:section" content="\#(e(review.category.displayName))">"#,
      #"<meta name="twitter:title" content="\#(e(review.title))">"#,
      #"<meta name="twitter:description" content="\#(e(description))">"#,
    ]
    if let name = author?.shownName ?? review.createdBy {
      tags.append(#"<meta name="author" content="\#(e(name))">"#)
    }
    if let site, let author {
      tags.append(#"<meta property="article:author" content="\#(e(site.absolute(reviewerPath(author.name))))">"#)
    }
    if let site {
      let page = site.absolute(reviewPath(review.id))
      let card = site.absolute(Files.cardURL(review))
      let alt = cardDescription(of: review)
      tags += [
        #"<link rel="canonical" href="\#(e(page))">"#,
        #"<meta property="og:url" content="\#(e(page))">"#,
        #"<meta property="og:image" content="\#(e(card))">"#,
        #"<meta property="og:image:type" content="image/jpeg">"#,
        #"<meta property="og:image:width" content="1200">"#,
        #"<meta property="og:image:height" content="630">"#,
        #"<meta property="og:image:alt" content="\#(e(alt))">"#,
        #"<meta name="twitter:card" content="summary_large_image">"#,
        #"<meta name="twitter:image" content="\#(e(card))">"#,
        #"<meta name="twitter:image:alt" content="\#(e(alt))">"#,
      ]
    } else {
      tags.append(#"<meta name="twitter:card" content="summary">"#)
    }
    let feeds: [Feeds.Scope] = [.site] + (author.map { [.reviewer(name: $0.name, shown: $0.shownName)] } ?? [])
    return tags + feeds.flatMap(Feeds.links)
  }

  /// The head of a page of the site (the home page, a category, a reviewer's page):
  /// description, canonical link (when `canonical` names the page's own address), share
  /// preview, and the feeds of `feeds`.
  static func siteHead(
    title: String, description: String, canonical: String?, site: PublicURL?, feeds: [Feeds.Scope]
  ) -> [String] {
    var tags = [
      #"<meta name="description" content="\#(e(description))">"#,
      #"<meta property="og:type" content="website">"#,
      #"<meta property="og:site_name" content="\#(e(siteName))">"#,
      #"<meta property="og:title" content="\#(e(title))">"#,
      #"<meta property="og:description" content="\#(e(description))">"#,
      #"<meta name="twitter:card" content="summary">"#,
    ]
    if let site, let canonical {
      tags.append(#"<link rel="canonical" href="\#(e(site.absolute(canonical)))">"#)
      tags.append(#"<meta property="og:url" content="\#(e(site.absolute(canonical)))">"#)
    }
    return tags + feeds.flatMap(Feeds.links)
  }
}
