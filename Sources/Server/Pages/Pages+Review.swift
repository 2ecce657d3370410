import Catalogue
import Foundation
import HTTP

extension Pages {
  /// `/reviews/ID`: the review as the export's page shows it, its pictures as display
  /// renditions linking to the originals. A unique prefix of the id redirects to the full one.
  ///
  /// A reader never finds a draft: its id, or a prefix of it, is not found, with the page and
  /// the words of an id no review has. A signed-in reviewer sees a draft with a notice that
  /// only reviewers can see it and a button to publish it; and with `?preview=reader` any
  /// review exactly as a reader would see it (no reviewer's links or notices, the header of
  /// someone not signed in), under a banner that says it is a preview.
  @Sendable static func review(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let reference = exchange.capture("id")
    let identity = exchange.identity
    let preview = exchange.head.query["preview"]
    if let preview, preview != "reader" {
      throw Failure.badRequest("preview must be reader (the page as readers see it), not \(preview)")
    }
    // A reviewer previewing is shown the reader's page; a reader asking for a preview is
    // shown theirs, which it is.
    let previewing = identity != nil && preview != nil
    let reviewer = previewing ? nil : identity
    let (review, profiles) = try exchange.library {
      (library) throws(CatalogueError) -> (Review, [String: ReviewerProfile]) in
      let review = try library.review(reference, publishedOnly: identity == nil)
      // Who wrote and changed it, as their pages show them to whoever asks.
      var profiles: [String: ReviewerProfile] = [:]
      for name in [review.createdBy, review.updatedBy].compactMap({ $0 }) where profiles[name] == nil {
        profiles[name] = try library.reviewerProfile(named: name, publishedOnly: reviewer == nil)
      }
      return (review, profiles)
    }
    if review.id != reference {
      return redirect(to: reviewPath(review.id) + (preview == nil ? "" : "?preview=reader"))
    }
    var extra: [String] = []
    if let author = review.createdBy {
      // Each name links to its page, where there is one for whoever asks.
      func named(_ name: String) -> String {
        guard let profile = profiles[name] else { return e(name) }
        return #"<a href="\#(e(reviewerPath(profile.name)))">\#(e(profile.shownName))</a>"#
      }
      var line = "By \(named(author))"
      if let editor = review.updatedBy, editor != author { line += "; last changed by \(named(editor))" }
      extra.append(#"<p class="dates">\#(line)</p>"#)
    }
    let path = reviewPath(review.id)
    if reviewer != nil {
      extra.append(
        #"<p class="actions"><a class="button" href="\#(path)/edit">Edit<span class="visually-hidden"> this review</span></a> "#
          + #"<a class="button" href="\#(path)/delete">Delete<span class="visually-hidden"> this review</span></a> "#
          + #"<a class="button" href="\#(path)?preview=reader">Preview as a reader</a></p>"#
      )
    }
    var main: [String] = []
    if previewing {
      let when = review.isDraft ? "readers will see this review once it is published" : "this is what readers see"
      main.append(
        #"<p class="preview-banner" role="note"><strong>Preview:</strong> \#(when). "#
          + #"<a href="\#(path)">Back to the reviewer’s view</a></p>"#)
    } else {
      main += notice(exchange)
      if reviewer != nil && review.isDraft { main += draftNotice(review, identity: reviewer) }
    }
    var footer: String?
    if !review.images.isEmpty {
      let downloads = review.images.map { item in
        #"<a href="\#(e(Files.downloadURL(item)))" \#(downloadAttribute(item)) "#
          + #"aria-label="Download original of picture \#(item.position)">\#(item.position)</a>"#
      }
      // Given to the article, so that a spoiler warning asks before these too: they lead to
      // every picture of the review.
      footer =
        #"<p class="download">Originals (\#(review.images.count == 1 ? "1 picture" : "\(review.images.count) pictures"), byte for byte): "#
        + downloads.joined(separator: " · ") + "</p>"
    }
    main += HTML.article(
      review, pictures: review.images.map(picture),
      coverIndex: review.images.firstIndex { $0.isCover } ?? (review.images.isEmpty ? nil : 0),
      extra: extra.isEmpty ? nil : extra.joined(separator: "\n"), footer: footer, lazy: true)
    return document(
      title: review.title, identity: reviewer, main: main,
      head: reviewHead(review, site: exchange.site, author: review.createdBy.flatMap { profiles[$0] }))
  }

  /// What a draft's page says to its reviewers first: that readers cannot see it, with the
  /// button that publishes it.
  static func draftNotice(_ review: Review, identity: Identity?) -> [String] {
    let path = reviewPath(review.id)
    return [
      #"<div class="draft-notice" role="note">"#,
      "<p><strong>Draft:</strong> only reviewers can see this review.</p>",
      #"<form method="post" action="\#(path)/publish">\#(csrfField(identity))"#
        + #"<button class="primary">Publish<span class="visually-hidden"> this review</span></button></form>"#,
      "</div>",
    ]
  }

  /// A picture on a review page: its display rendition (and the 2× one for high-density
  /// screens, when the original is larger), linking to the original (a download named after
  /// its file, for a format browsers do not show), with what the review says of it.
  static func picture(_ item: ReviewImage) -> HTML.Picture {
    let image = item.image
    let size = Files.displaySize(image)
    let shows = HTML.browsersShow(image.format)
    return HTML.Picture(
      original: shows ? Files.originalURL(image) : Files.downloadURL(item), format: image.format,
      shown: Files.displayURL(image), width: size.width, height: size.height, text: item.text,
      downloadName: item.name.map { Files.downloadFilename($0, format: image.format) },
      highDensity: Files.highDensityDisplayURL(image))
  }

  /// The `download` attribute of a link to a picture's original: with the name it is saved
  /// under, when the picture has one.
  static func downloadAttribute(_ item: ReviewImage) -> String {
    guard let name = item.name else { return "download" }
    return #"download="\#(e(Files.downloadFilename(name, format: item.image.format)))""#
  }
}
