import Catalogue
import Foundation
import HTTP
import ImagePipeline
import Testing
import TestSupport

@testable import Server

@Suite("Share cards over HTTP")
struct CardRouteTests {
  @Test func aPublishedReviewsCardIsAJPEGWithItsKeyAsETag() throws {
    let site = try Site()
    let library = try site.openLibrary()
    let review = try library.create(
      ReviewDraft(title: "Arrival", rating: 5, category: "movie"), attaching: [Fixture.image("baseline.jpg")])
    let response = site.ask("GET", "/cards/\(review.id).jpg")
    #expect(response.status == 200)
    #expect(response.headers["Content-Type"] == "image/jpeg")
    #expect(response.headers["Cache-Control"] == "public, max-age=3600")
    #expect(response.headers["ETag"] == "\"\(ShareCard.key(for: review))\"")
    #expect(response.headers["Content-Security-Policy"] == "default-src 'none'; sandbox")
    guard case .file = response.body else {
      Issue.record("the card is not sent from its file")
      return
    }
    let kept = try library.files.read(ShareCard.name(for: review))
    #expect(try ImagePipeline.readHeader(kept).width == 1200)
    // Asked again with the ETag: nothing to send.
    let again = site.ask(
      "GET", Files.cardURL(review), headers: [("If-None-Match", "\"\(ShareCard.key(for: review))\"")])
    #expect(again.status == 304)
    #expect(Files.cardURL(review) == "/cards/\(review.id).jpg?v=\(ShareCard.key(for: review).prefix(12))")
  }

  @Test func aCardIsFoundOnAWorkerNotOnTheConnectionsThread() throws {
    let site = try Site()
    let review = try site.openLibrary().create(ReviewDraft(title: "Arrival", rating: 5, category: "movie"))
    guard
      case .read(_, let onWorker, _, _) = site.service.plan(
        for: HTTPRequestHead(method: "GET", target: "/cards/\(review.id).jpg"))
    else {
      Issue.record("a card is answered without reading the library")
      return
    }
    #expect(onWorker)
  }

  @Test func aChangedReviewGivesANewCardAtTheSameAddress() throws {
    let site = try Site()
    let library = try site.openLibrary()
    let review = try library.create(ReviewDraft(title: "Arrival", rating: 5, category: "movie"))
    let first = site.ask("GET", "/cards/\(review.id).jpg").headers["ETag"]
    let edited = try library.update(review.id, changes: ReviewChanges(title: "Arrival (2016)"))
    let second = site.ask("GET", "/cards/\(review.id).jpg")
    #expect(second.status == 200)
    #expect(second.headers["ETag"] == "\"\(ShareCard.key(for: edited))\"")
    #expect(second.headers["ETag"] != first)
    #expect(Files.cardURL(edited) != Files.cardURL(review))
  }

  @Test func aDraftAPrefixAndAnUnknownIdAreTheSame404() throws {
    let site = try Site()
    let library = try site.openLibrary()
    let draft = try library.create(ReviewDraft(title: "Secret", rating: 3, category: "book", publish: false))
    let published = try library.create(ReviewDraft(title: "Open", rating: 3, category: "book"))
    let unknown = site.ask("GET", "/cards/0123456789abcdef.jpg")
    #expect(unknown.status == 404)
    let asked = [
      "/cards/\(draft.id).jpg", "/cards/\(published.id.prefix(8)).jpg", "/cards/\(published.id)",
      "/cards/\(published.id.uppercased()).jpg", "/cards/\(published.id).png", "/cards/..%2Fcatalogue.sqlite",
    ]
    for target in asked {
      let response = site.ask("GET", target)
      #expect(response.status == 404, "\(target)")
      // The same page as an id no review has, but for the name asked.
      let name = String(target.dropFirst("/cards/".count)).removingPercentEncoding ?? ""
      #expect(
        response.text.replacingOccurrences(of: name, with: "X")
          == unknown.text.replacingOccurrences(of: "0123456789abcdef.jpg", with: "X"), "\(target)")
    }
    // Nothing was drawn for the draft.
    #expect(library.files.size(of: ShareCard.name(for: draft)) == nil)
  }
}
