import ImagePipeline
import Testing
import TestSupport

@Suite("Thumbnails at 1× and 2×")
struct HighDensityTests {
  @Test(arguments: ["large-1600x1200.jpg", "large-1600x1200.png"])
  func twiceTheLongestEdgeFromOneDecode(file: String) throws {
    let pair = try ImagePipeline.thumbnails(try Fixture.imageBytes(file))
    #expect(pair.thumbnail.width == 256 && pair.thumbnail.height == 192)
    #expect(pair.highDensity.width == 512 && pair.highDensity.height == 384)
    #expect(pair.thumbnail.format == .jpeg && pair.highDensity.format == .jpeg)
    let small = try ImagePipeline.decode(pair.thumbnail.bytes).pixels
    let large = try ImagePipeline.decode(pair.highDensity.bytes).pixels
    #expect(small.width == 256 && small.height == 192 && large.width == 512 && large.height == 384)
    expectLargePatches(small, scale: 256.0 / 1600.0)
    expectLargePatches(large, scale: 512.0 / 1600.0)
    #expect(pair.header.uprightWidth == 1600 && pair.header.uprightHeight == 1200)
  }

  /// A picture smaller than the doubled edge is never enlarged: its 2× thumbnail is its own size.
  @Test func aSmallPictureKeepsItsSize() throws {
    let between = try ImagePipeline.thumbnails(
      try Fixture.imageBytes("large-1600x1200.jpg"), spec: ThumbnailSpec(longestEdge: 1000))
    #expect(between.thumbnail.width == 1000 && between.thumbnail.height == 750)
    #expect(between.highDensity.width == 1600 && between.highDensity.height == 1200)
    let small = try ImagePipeline.thumbnails(try Fixture.imageBytes("baseline.jpg"))
    #expect(small.thumbnail.width == 120 && small.thumbnail.height == 80)
    #expect(small.highDensity.width == 120 && small.highDensity.height == 80)
    let header = try ImagePipeline.readHeader(small.highDensity.bytes)
    #expect(header.width == 120 && header.height == 80)
  }

  @Test func squareAndUprightAlike() throws {
    let square = try ImagePipeline.thumbnails(
      try Fixture.imageBytes("large-1600x1200.jpg"), spec: ThumbnailSpec(longestEdge: 100, mode: .square))
    #expect(square.thumbnail.width == 100 && square.thumbnail.height == 100)
    #expect(square.highDensity.width == 200 && square.highDensity.height == 200)
    // Stored 80 × 120 with orientation 6: both upright, 120 × 80, fitted to 32 and 64.
    let turned = try ImagePipeline.thumbnails(
      try Fixture.imageBytes("orientation-6.jpg"), spec: ThumbnailSpec(longestEdge: 32))
    #expect(turned.thumbnail.width == 32 && turned.thumbnail.height == 21)
    #expect(turned.highDensity.width == 64 && turned.highDensity.height == 43)
    expectQuadrants(try ImagePipeline.decode(turned.highDensity.bytes).pixels, tolerance: 24)
  }

  /// One format for both, so that the one format a record keeps names both files.
  @Test func transparencyMakesBothPNG() throws {
    let pair = try ImagePipeline.thumbnails(try Fixture.imageBytes("rgba-8.png"), spec: ThumbnailSpec(longestEdge: 16))
    #expect(pair.thumbnail.format == .png && pair.highDensity.format == .png)
    #expect(pair.thumbnail.width == 16 && pair.highDensity.width == 32)
    let pixels = try ImagePipeline.decode(pair.highDensity.bytes).pixels
    #expect(pixels.channels == 4)
  }

  @Test func theSpecOfTwiceTheDensity() {
    let spec = ThumbnailSpec(longestEdge: 300, mode: .square, quality: 70, progressive: true)
    #expect(spec.highDensity == ThumbnailSpec(longestEdge: 600, mode: .square, quality: 70, progressive: true))
    #expect(ThumbnailSpec.default.highDensity.name == "512-fit-q85")
  }
}
