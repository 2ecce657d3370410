import Catalogue
import Foundation
import HTTP

extension Pages {
  /// `/reviews/ID`: the review as the export's page shows it, its pictures as display
  /// renditions linking to the originals. A unique prefix of the id redirects to the full one.
  @Sendable static func review(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let reference = exchange.capture("id")
    let review = try exchange.library { (library) throws(CatalogueError) in try library.review(reference) }
    if review.id != reference { return redirect(to: reviewPath(review.id)) }
    let identity = exchange.identity
    var extra: [String] = []
    if let author = review.createdBy {
      var line = "By \(e(author))"
      if let editor = review.updatedBy, editor != author { line += "; last changed by \(e(editor))" }
      extra.append(#"<p class="dates">\#(line)</p>"#)
    }
    if identity != nil {
      extra.append(
        #"<p class="actions"><a class="button" href="\#(reviewPath(review.id))/edit">Edit<span class="visually-hidden"> this review</span></a> "#
          + #"<a class="button" href="\#(reviewPath(review.id))/delete">Delete<span class="visually-hidden"> this review</span></a></p>"#
      )
    }
    var main = notice(exchange)
    main += HTML.article(
      review, pictures: review.images.map(picture),
      coverIndex: review.images.firstIndex { $0.isCover } ?? (review.images.isEmpty ? nil : 0),
      extra: extra.isEmpty ? nil : extra.joined(separator: "\n"), lazy: true)
    if !review.images.isEmpty {
      let downloads = review.images.map { item in
        #"<a href="\#(e(Files.downloadURL(item)))" \#(downloadAttribute(item)) "#
          + #"aria-label="Download original of picture \#(item.position)">\#(item.position)</a>"#
      }
      main.append(
        #"<p class="download">Originals (\#(review.images.count == 1 ? "1 picture" : "\(review.images.count) pictures"), byte for byte): "#
          + downloads.joined(separator: " · ") + "</p>")
    }
    return document(title: review.title, identity: identity, main: main)
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
