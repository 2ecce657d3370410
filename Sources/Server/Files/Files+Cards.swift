import Catalogue
import HTTP
import ImagePipeline

/// Reviews' share cards over HTTP: the picture a link to a review shows in a chat or a feed
/// (the page's `og:image`).
extension Files {
  /// How long a browser or a proxy may keep a card without asking again. Its address names
  /// the review, not what the card shows, so it cannot be immutable: a changed title gives the
  /// same address a new card (and ``cardURL(_:)`` a new `?v=`).
  static let cardCaching = "public, max-age=3600"

  /// `/cards/<id>.jpg`: the share card of the published review `id` (its full id), made on
  /// first request and kept in the library's `cards/` (see ``Library/shareCard(for:)``), then
  /// sent from the file like a thumbnail, `ETag` the card's key. A prefix, an unknown id and a
  /// draft are each the same 404, so that no one learns a draft exists; the query (`?v=`) is
  /// not read. Runs on a worker: the card's name comes from the review's record, which the
  /// connections' threads never read. A library that can only be read draws the card for each
  /// request and keeps it nowhere.
  @Sendable static func card(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let name = exchange.capture("name")
    let id = name.hasSuffix(".jpg") ? String(name.dropLast(4)) : ""
    guard id.utf8.count == 16, id.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
      throw Failure.notFound("no card \(name)")
    }
    let readOnly = exchange.service.readOnlyReason != nil
    let found = try exchange.library {
      (library) throws(CatalogueError) -> (key: String, path: String?, bytes: [UInt8]?)? in
      let review: Review
      do throws(CatalogueError) {
        review = try library.review(id, publishedOnly: true)
      } catch {
        if case .reviewNotFound = error { return nil }
        throw error
      }
      guard review.id == id else { return nil }
      if readOnly { return (ShareCard.key(for: review), nil, try library.derivedShareCard(for: review)) }
      return (ShareCard.key(for: review), try library.shareCard(for: review), nil)
    }
    guard let found else { throw Failure.notFound("no card \(name)") }
    var headers = HTTPHeaders()
    headers.set("Content-Security-Policy", "default-src 'none'; sandbox")
    if let bytes = found.bytes {
      headers.set("Content-Type", contentType(.jpeg))
      // Made afresh each time: not to be kept as if it were the file the library would store.
      headers.set("Cache-Control", "no-cache")
      headers.set("ETag", "\"\(found.key)\"")
      return HTTPResponse(status: 200, headers: headers, body: bytes)
    }
    guard let path = found.path, let file = try? OpenFile.open(path, beneath: exchange.service.folder) else {
      throw Failure.notFound("no card \(name)")
    }
    headers.set("Cache-Control", cardCaching)
    return FileResponder.respond(
      to: exchange.head, file: file, contentType: contentType(.jpeg), etag: "\"\(found.key)\"", headers: headers)
  }

  /// Where the server serves `review`'s share card, for a page's `og:image`: its id's address,
  /// with the first 12 digits of the card's key as `?v=`, so that a page naming a changed card
  /// names a new address, which no cache holds yet. Pure: no file is read.
  static func cardURL(_ review: Review) -> String {
    "/cards/\(review.id).jpg?v=\(ShareCard.key(for: review).prefix(12))"
  }
}
