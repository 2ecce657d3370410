@testable import ImagePipeline
import Testing
import TestSupport

@Suite("Decoding JPEG and PNG")
struct DecodingTests {
  @Test(arguments: [
    "baseline.jpg", "baseline-444.jpg", "progressive.jpg", "restart-markers.jpg",
    "cmyk-adobe.jpg", "ycck-adobe.jpg",
  ])
  func jpegColours(file: String) throws {
    let decoded = try ImagePipeline.decode(try Fixture.imageBytes(file))
    #expect(decoded.pixels.width == 120 && decoded.pixels.height == 80)
    #expect(decoded.pixels.channels == 3)
    #expect(decoded.warnings.isEmpty)
    expectQuadrants(decoded.pixels, tolerance: 16, "\(file)")
  }

  @Test func grayscaleJPEGExpandsToRGB() throws {
    let pixels = try ImagePipeline.decode(try Fixture.imageBytes("grayscale.jpg")).pixels
    let levels: [UInt8] = [0, 85, 170, 255]
    for (index, centre) in Quadrants.centres(width: 120, height: 80).enumerated() {
      let level = levels[index]
      #expect(close(pixels[centre.x, centre.y], [level, level, level], tolerance: 4))
    }
  }

  @Test(arguments: [
    "rgb-8.png", "rgb-16.png", "palette-2.png", "palette-4.png", "palette-8.png", "interlaced.png",
    "srgb.png",
  ])
  func opaquePNGColours(file: String) throws {
    let decoded = try ImagePipeline.decode(try Fixture.imageBytes(file))
    #expect(decoded.pixels.channels == 3)
    expectQuadrants(decoded.pixels, tolerance: 1, "\(file)")
  }

  @Test(arguments: ["rgba-8.png", "rgba-16.png", "interlaced-rgba-16.png"])
  func pngAlphaIsKept(file: String) throws {
    let pixels = try ImagePipeline.decode(try Fixture.imageBytes(file)).pixels
    #expect(pixels.channels == 4)
    expectQuadrants(pixels, tolerance: 1, "\(file)")
    #expect(pixels[30, 20][3] == 255)
    #expect(abs(Int(pixels[90, 60][3]) - 128) <= 1)
  }

  @Test(arguments: ["palette-trns.png", "rgb-trns.png", "gray-trns.png"])
  func transparencyChunkBecomesAlpha(file: String) throws {
    let pixels = try ImagePipeline.decode(try Fixture.imageBytes(file)).pixels
    #expect(pixels.channels == 4)
    #expect(pixels[30, 20][3] == 255)
    #expect(pixels[90, 60][3] == 0)
  }

  @Test(arguments: [("gray-2.png", 3), ("gray-4.png", 15), ("gray-8.png", 255), ("gray-16.png", 65535)])
  func grayLevelsScaleToEightBits(file: String, maximum: Int) throws {
    let pixels = try ImagePipeline.decode(try Fixture.imageBytes(file)).pixels
    let expected: [UInt8] = [0, 85, 170, 255]
    for (index, centre) in Quadrants.centres(width: 120, height: 80).enumerated() {
      let level = expected[index]
      #expect(close(pixels[centre.x, centre.y], [level, level, level], tolerance: 1), "\(file)")
    }
  }

  @Test func oneBitGray() throws {
    let pixels = try ImagePipeline.decode(try Fixture.imageBytes("gray-1.png")).pixels
    #expect(pixels[30, 20] == [0, 0, 0])
    #expect(pixels[90, 20] == [255, 255, 255])
    #expect(pixels[30, 60] == [255, 255, 255])
    #expect(pixels[90, 60] == [0, 0, 0])
  }

  @Test func oneBitPalette() throws {
    let pixels = try ImagePipeline.decode(try Fixture.imageBytes("palette-1.png")).pixels
    #expect(pixels[30, 40] == Quadrants.red)
    #expect(pixels[90, 40] == Quadrants.blue)
  }

  @Test(arguments: ["gray-alpha-8.png", "gray-alpha-16.png"])
  func grayWithAlpha(file: String) throws {
    let pixels = try ImagePipeline.decode(try Fixture.imageBytes(file)).pixels
    #expect(pixels.channels == 4)
    #expect(pixels[30, 20] == [0, 0, 0, 255])
    #expect(abs(Int(pixels[90, 60][3]) - 128) <= 1)
  }

  /// Every Adam7 picture decodes exactly like its non-interlaced twin, 16-bit ones included.
  @Test(arguments: [
    ("interlaced.png", "rgb-8.png"), ("interlaced-rgba-16.png", "rgba-16.png"),
    ("interlaced-gray-1.png", "gray-1.png"), ("interlaced-gray-4.png", "gray-4.png"),
    ("interlaced-gray-16.png", "gray-16.png"), ("interlaced-gray-alpha-16.png", "gray-alpha-16.png"),
    ("interlaced-palette-4.png", "palette-4.png"), ("interlaced-palette-trns.png", "palette-trns.png"),
    ("interlaced-rgb-16.png", "rgb-16.png"), ("interlaced-rgb-trns.png", "rgb-trns.png"),
  ])
  func interlacedPNGsDecodeLikeTheirTwins(interlaced: String, twin: String) throws {
    let pixels = try ImagePipeline.decode(try Fixture.imageBytes(interlaced)).pixels
    #expect(pixels == (try ImagePipeline.decode(try Fixture.imageBytes(twin))).pixels)
    let thumbnail = try ImagePipeline.thumbnailPixels(
      try Fixture.imageBytes(interlaced), spec: ThumbnailSpec(longestEdge: 60))
    #expect(
      thumbnail.pixels
        == (try ImagePipeline.thumbnailPixels(try Fixture.imageBytes(twin), spec: ThumbnailSpec(longestEdge: 60)))
        .pixels)
  }

  @Test func gammaChunkIsHonoured() throws {
    // A gAMA of 1.0 (linear) with a stored 128: in sRGB that is about 188.
    let decoded = try ImagePipeline.decode(try Fixture.imageBytes("gamma-1.0.png"))
    let grey = GammaFixture.patchCentre
    let value = Int(decoded.pixels[grey.x, grey.y][0])
    #expect(abs(value - GammaFixture.expected) <= 3, "gamma patch decoded as \(value)")
  }

  @Test func largeJPEGAndPNGAgree() throws {
    let jpeg = try ImagePipeline.decode(try Fixture.imageBytes("large-1600x1200.jpg")).pixels
    let png = try ImagePipeline.decode(try Fixture.imageBytes("large-1600x1200.png")).pixels
    #expect(jpeg.width == png.width && jpeg.height == png.height)
    #expect(meanAbsoluteDifference(jpeg, png) < 3)
  }

  @Test(arguments: [2, 4, 8])
  func shrinkOnLoadAgreesWithFullDecode(denominator: Int) throws {
    let bytes = try Fixture.imageBytes("large-1600x1200.jpg")
    let full = try ImagePipeline.decode(bytes).pixels
    let scaled = try ImagePipeline.decode(
      bytes, minimumSize: (1600 / denominator, 1200 / denominator)
    ).pixels
    #expect(scaled.width == 1600 / denominator && scaled.height == 1200 / denominator)
    let reference = boxAverage(full, factor: denominator)
    let difference = meanAbsoluteDifference(scaled, reference)
    #expect(difference < 2, "mean difference \(difference) at 1/\(denominator)")
  }

  @Test func shrinkOnLoadPicksTheSmallestScaleThatCovers() throws {
    let bytes = try Fixture.imageBytes("large-1600x1200.jpg")
    #expect(try ImagePipeline.decode(bytes, minimumSize: (200, 150)).pixels.width == 200)
    #expect(try ImagePipeline.decode(bytes, minimumSize: (201, 150)).pixels.width == 400)
    #expect(try ImagePipeline.decode(bytes, minimumSize: (800, 10)).pixels.width == 800)
    #expect(try ImagePipeline.decode(bytes, minimumSize: (801, 10)).pixels.width == 1600)
  }

  @Test func pngRoundTripIsLossless() throws {
    let original = try ImagePipeline.decode(try Fixture.imageBytes("rgba-8.png")).pixels
    let again = try ImagePipeline.decode(try ImagePipeline.encodePNG(original)).pixels
    #expect(again == original)
  }

  @Test func jpegEncodingKeepsColours() throws {
    let original = try ImagePipeline.decode(try Fixture.imageBytes("rgb-8.png")).pixels
    let bytes = try ImagePipeline.encodeJPEG(original, quality: 90)
    let header = try ImagePipeline.readHeader(bytes)
    #expect(header.format == .jpeg && header.width == 120)
    expectQuadrants(try ImagePipeline.decode(bytes).pixels, tolerance: 16)
  }
}

/// Where the gamma fixture keeps its mid-grey patch and what sRGB value it stands for.
enum GammaFixture {
  static let patchCentre = (x: 60, y: 40)
  /// Linear 128/255 through the sRGB curve is 187.9 (a pure 2.2 power would give 186.4).
  static let expected = 188
}

func meanAbsoluteDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
  precondition(a.width == b.width && a.height == b.height && a.channels == b.channels)
  var total = 0
  for index in a.pixels.indices { total += abs(Int(a.pixels[index]) - Int(b.pixels[index])) }
  return Double(total) / Double(a.pixels.count)
}

/// Averages `factor` × `factor` blocks, as a DCT-scaled decode does in effect.
func boxAverage(_ image: PixelBuffer, factor: Int) -> PixelBuffer {
  let width = image.width / factor
  let height = image.height / factor
  var pixels = [UInt8](repeating: 0, count: width * height * image.channels)
  for y in 0..<height {
    for x in 0..<width {
      for c in 0..<image.channels {
        var sum = 0
        for dy in 0..<factor {
          for dx in 0..<factor {
            sum += Int(image.pixels[((y * factor + dy) * image.width + x * factor + dx) * image.channels + c])
          }
        }
        pixels[(y * width + x) * image.channels + c] = UInt8((sum + factor * factor / 2) / (factor * factor))
      }
    }
  }
  return PixelBuffer(width: width, height: height, channels: image.channels, pixels: pixels)
}

@Suite("The JPEG decoder's input")
struct JPEGDecoderLifetimeTests {
  @Test func aDecoderThatOutlivesItsInputRefusesToRead() throws {
    let bytes = try Fixture.imageBytes("baseline.jpg")
    var escaped: JPEGDecoder?
    let header = try bytes.withUnsafeBufferPointer { buffer throws(ImageError) in
      try JPEGDecoder.reading(UnsafeRawBufferPointer(buffer)) { (decoder) throws(ImageError) in
        escaped = decoder
        return try decoder.readHeader()
      }
    }
    #expect(header.width > 0)
    let error = ImageError.corrupt(.jpeg, detail: "internal error: a JPEG decoder was used after its input")
    #expect(throws: error) {
      try escaped?.decode(scaleDenominator: 1, lenient: false) { _, _ in
      } rows: { _, _, _ in
      }
    }
    #expect(throws: error) { try escaped?.readHeader() }
  }
}
