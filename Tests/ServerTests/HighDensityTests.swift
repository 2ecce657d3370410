import Catalogue
import Foundation
import HTTP
import ImagePipeline
import Testing
import TestSupport

@testable import Server

/// Pictures offered at 1× and 2× (`srcset`), and the 2× files served as the 1× ones are.
@Suite("High-density pictures")
struct HighDensityTests {
  /// A 2400 × 1200 JPEG (a gradient), larger than the display rendition, in `folder`.
  static func widePicture(in folder: TemporaryFolder) throws -> String {
    let (width, height) = (2400, 1200)
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
      for x in 0..<width {
        let index = (y * width + x) * 3
        pixels[index] = UInt8(x * 255 / width)
        pixels[index + 1] = UInt8(y * 255 / height)
        pixels[index + 2] = 128
      }
    }
    let bytes = try ImagePipeline.encodeJPEG(PixelBuffer(width: width, height: height, channels: 3, pixels: pixels))
    let path = folder.file("wide.jpg")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func theGridAndTheListOfferThe2xThumbnail() throws {
    let site = try Site()
    let library = try site.openLibrary()
    let large = try library.create(
      ReviewDraft(title: "Large", rating: 4, category: "movie"), attaching: [Fixture.image("large-1600x1200.jpg")])
    _ = try library.create(
      ReviewDraft(title: "Small", rating: 3, category: "movie"), attaching: [Fixture.image("baseline.jpg")])
    let sha256 = try #require(large.images.first?.image.sha256)
    let expected =
      #"<img src="/thumbnails/\#(sha256)-256-fit-q85.jpg" srcset="/thumbnails/\#(sha256)-256-fit-q85.jpg 1x, "#
      + #"/thumbnails/\#(sha256)-256-fit-q85@2x.jpg 2x" width="256" height="192" alt="""#
    for page in ["/", "/?view=list"] {
      let response = site.ask("GET", page)
      #expect(response.status == 200)
      #expect(response.text.contains(expected), "\(page): \(response.text)")
      // A 120 × 80 picture has nothing sharper than its thumbnail: no srcset, one file asked.
      #expect(response.text.components(separatedBy: "srcset=").count == 2, "\(page)")
      #expect(response.text.contains(#"-256-fit-q85.jpg" width="120" height="80" alt="""#), "\(page)")
    }
  }

  @Test func theReviewPageOffersThe2xDisplayRenditionOfALargePicture() throws {
    let site = try Site()
    let path = try Self.widePicture(in: site.folder)
    let review = try site.openLibrary().create(
      ReviewDraft(title: "Wide", rating: 4, category: "movie"),
      attaching: [path, Fixture.image("large-1600x1200.jpg")])
    let (wide, exact) = (review.images[0].image, review.images[1].image)
    let page = site.ask("GET", "/reviews/\(review.id)")
    #expect(page.status == 200)
    let display = "/display/\(wide.sha256)-1600-fit-q85-progressive"
    #expect(
      page.text.contains(
        #"<img src="\#(display)" srcset="\#(display) 1x, \#(display)@2x 2x" width="1600" height="800""#),
      "\(page.text)")
    // 1600 × 1200 is the 1× rendition's size already: nothing sharper to offer.
    #expect(
      page.text.contains(
        #"<img src="/display/\#(exact.sha256)-1600-fit-q85-progressive" width="1600" height="1200""#),
      "\(page.text)")

    let head = HTTPRequestHead(method: "GET", target: display + "@2x")
    #expect(site.service.plan(for: head) == .worker)
    let response = site.ask("GET", display + "@2x")
    #expect(response.status == 200)
    #expect(response.headers["Content-Type"] == "image/jpeg")
    #expect(response.headers["ETag"] == "\"\(wide.sha256)-1600-fit-q85-progressive@2x\"")
    #expect(response.headers["Cache-Control"] == "public, max-age=31536000, immutable")
    #expect(site.service.plan(for: head) == .inline)
    let stored = try #require(Files.existingDisplay(wide.sha256, highDensity: true, root: site.libraryPath + "/"))
    #expect(stored.hasSuffix("-1600-fit-q85-progressive@2x.jpg"))
    // 3200 asked of a 2400 × 1200 original: its own size, never enlarged.
    let header = try ImagePipeline.readHeader(try Fixture.bytes(site.libraryPath + "/" + stored))
    #expect(header.width == 2400 && header.height == 1200)
    #expect(Files.existingDisplay(wide.sha256, highDensity: false, root: site.libraryPath + "/") == nil)
    #expect(try site.openLibrary().check().isHealthy)
  }

  @Test func theAPIGivesThe2xAddressesThePagesOffer() throws {
    let site = try Site()
    let review = try site.openLibrary().create(
      ReviewDraft(title: "Wide", rating: 4, category: "movie"),
      attaching: [
        try Self.widePicture(in: site.folder), Fixture.image("large-1600x1200.jpg"), Fixture.image("baseline.jpg"),
      ])
    let shown = try site.ask("GET", "/api/reviews/\(review.id)").object()
    let images = try #require(shown["images"] as? [[String: Any]])
    let urls = try images.map { try #require($0["urls"] as? [String: String]) }
    let hashes = review.images.map(\.image.sha256)
    #expect(urls.count == 3)
    // 2400 × 1200: larger than both renditions.
    #expect(urls[0]["thumbnail2x"] == "/thumbnails/\(hashes[0])-256-fit-q85@2x.jpg")
    #expect(urls[0]["display2x"] == "/display/\(hashes[0])-1600-fit-q85-progressive@2x")
    // 1600 × 1200: larger than the thumbnail, the display rendition's size already.
    #expect(urls[1]["thumbnail2x"] == "/thumbnails/\(hashes[1])-256-fit-q85@2x.jpg")
    #expect(urls[1]["display2x"] == nil)
    // 120 × 80: nothing sharper at all.
    #expect(urls[2]["thumbnail2x"] == nil && urls[2]["display2x"] == nil)
    for (index, addresses) in urls.enumerated() {
      for (key, url) in addresses where key != "original" {
        let answer = site.ask("GET", url)
        #expect(answer.status == 200, "\(key) of picture \(index + 1)")
        #expect(answer.headers["Content-Type"] == "image/jpeg", "\(key) of picture \(index + 1)")
      }
    }
    // The list's cover carries them too.
    let list = try site.ask("GET", "/api/reviews").object()
    let cover = try #require((list["reviews"] as? [[String: Any]])?.first?["cover"] as? [String: Any])
    #expect((cover["urls"] as? [String: String]) == urls[0])
  }

  @Test func the2xThumbnailIsServedAndMadeAgainWhenMissing() throws {
    let site = try Site()
    let review = try site.openLibrary().create(
      ReviewDraft(title: "Clear", rating: 4, category: "movie"), attaching: [Fixture.image("rgba-8.png")])
    let image = try #require(review.images.first?.image)
    let url = "/thumbnails/\(image.sha256)-256-fit-q85@2x.png"
    let response = site.ask("GET", url)
    #expect(response.status == 200)
    #expect(response.headers["Content-Type"] == "image/png")
    #expect(response.headers["ETag"] == "\"\(image.sha256)-256-fit-q85@2x\"")
    #expect(response.headers["Cache-Control"] == "public, max-age=31536000, immutable")
    #expect(site.ask("GET", url, headers: [("If-None-Match", "\"\(image.sha256)-256-fit-q85@2x\"")]).status == 304)

    let file = site.libraryPath + "/" + image.highDensityThumbnail
    let bytes = try Fixture.bytes(file)
    try FileManager.default.removeItem(atPath: file)
    let head = HTTPRequestHead(method: "GET", target: url)
    #expect(site.service.plan(for: head) == .worker)
    let again = site.ask("GET", url)
    #expect(again.status == 200)
    #expect(again.headers["Content-Type"] == "image/png")
    #expect(try Fixture.bytes(file) == bytes)
    #expect(site.service.plan(for: head) == .inline)

    // Names the store never writes, and 2× files of another spec, are not there.
    for name in [
      "\(image.sha256)-256-fit-q85@3x.png", "\(image.sha256)-256-fit-q85@2x@2x.png",
      "\(image.sha256)@2x-256-fit-q85.png",
      "\(image.sha256)-128-fit-q85@2x.png",
    ] {
      #expect(site.ask("GET", "/thumbnails/\(name)").status == 404, "\(name)")
    }
    #expect(site.ask("GET", "/display/\(image.sha256)-1600-fit-q85-progressive@3x").status == 404)
  }
}
