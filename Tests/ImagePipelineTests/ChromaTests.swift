import Foundation
@testable import ImagePipeline
import Testing
import TestSupport

/// PSNR in dB between two pictures of the same size, over R, G and B.
func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
  precondition(a.width == b.width && a.height == b.height)
  var total = 0.0
  for y in 0..<a.height {
    for x in 0..<a.width {
      for (p, q) in zip(a[x, y].prefix(3), b[x, y].prefix(3)) {
        let difference = Double(p) - Double(q)
        total += difference * difference
      }
    }
  }
  let mse = total / Double(a.width * a.height * 3)
  return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
}

@Suite("Thumbnail chroma: 4:4:4 where 4:2:0 spoils the picture")
struct ChromaTests {
  /// A drawing-like picture: 3-pixel stripes of saturated red, blue and green on white, the
  /// edges that 4:2:0 smears. Small enough to be its own thumbnail.
  static func graphic() -> PixelBuffer {
    let (width, height) = (192, 128)
    let colours: [[UInt8]] = [[230, 20, 30], [255, 255, 255], [20, 40, 220], [255, 255, 255], [20, 170, 40]]
    var pixels: [UInt8] = []
    for _ in 0..<height {
      for x in 0..<width { pixels += colours[(x / 3) % colours.count] }
    }
    return PixelBuffer(width: width, height: height, channels: 3, pixels: pixels)
  }

  @Test func aGraphicFromAPNGKeepsItsColouredEdges() throws {
    let source = Self.graphic()
    let png = try ImagePipeline.encodePNG(source)
    let thumbnail = try ImagePipeline.thumbnail(png).thumbnail
    #expect(thumbnail.format == .jpeg)
    let header = try ImagePipeline.readHeader(thumbnail.bytes)
    #expect(!header.chromaSubsampled)
    let decoded = try ImagePipeline.decode(thumbnail.bytes).pixels
    let score = psnr(decoded, source)
    #expect(score > 36, "4:4:4 thumbnail at \(score) dB")
    // The same pixels at 4:2:0 lose the edges: the reason for the rule.
    let halved = try ImagePipeline.encodeJPEG(source, quality: 85, fullChroma: false)
    let halvedScore = psnr(try ImagePipeline.decode(halved).pixels, source)
    #expect(halvedScore < 27, "4:2:0 at \(halvedScore) dB")
  }

  @Test(arguments: [("baseline.jpg", true), ("baseline-444.jpg", false), ("grayscale.jpg", false)])
  func aJPEGsThumbnailFollowsItsSourcesChroma(file: String, subsampled: Bool) throws {
    let source = try ImagePipeline.readHeader(try Fixture.imageBytes(file))
    #expect(source.chromaSubsampled == subsampled)
    let thumbnail = try ImagePipeline.thumbnail(try Fixture.imageBytes(file)).thumbnail
    #expect(try ImagePipeline.readHeader(thumbnail.bytes).chromaSubsampled == subsampled)
  }

  @Test func pngWebPAndHEIFSourcesAreNeverSubsampled() throws {
    for format in [ImageFormat.png, .webp, .heic, .avif] {
      let header = ImageHeader(
        format: format, width: 10, height: 10, colorModel: .rgb, bitDepth: 8, hasAlpha: false, orientation: .up,
        isProgressive: false)
      #expect(ImagePipeline.fullChroma(for: header))
    }
  }
}
