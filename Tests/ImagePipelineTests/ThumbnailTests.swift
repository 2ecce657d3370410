import ImagePipeline
import Testing
import TestSupport

@Suite("Thumbnails")
struct ThumbnailTests {
  @Test(arguments: ["large-1600x1200.jpg", "large-1600x1200.png"])
  func longestEdgeIs256AndAspectIsKept(file: String) throws {
    let processed = try ImagePipeline.thumbnail(try Fixture.imageBytes(file))
    #expect(processed.thumbnail.format == .jpeg)
    #expect(processed.thumbnail.width == 256 && processed.thumbnail.height == 192)
    let pixels = try ImagePipeline.decode(processed.thumbnail.bytes).pixels
    #expect(pixels.width == 256 && pixels.height == 192)
    expectLargePatches(pixels, scale: 256.0 / 1600.0)
  }

  @Test func otherSizesAndAspects() throws {
    let bytes = try Fixture.imageBytes("large-1600x1200.jpg")
    for (edge, width, height) in [(100, 100, 75), (500, 500, 375), (64, 64, 48), (1000, 1000, 750)] {
      let thumbnail = try ImagePipeline.thumbnail(bytes, spec: ThumbnailSpec(longestEdge: edge)).thumbnail
      #expect(thumbnail.width == width && thumbnail.height == height, "edge \(edge)")
      let header = try ImagePipeline.readHeader(thumbnail.bytes)
      #expect(header.width == width && header.height == height)
    }
  }

  @Test func squareModeCropsTheCentre() throws {
    let spec = ThumbnailSpec(longestEdge: 128, mode: .square)
    let thumbnail = try ImagePipeline.thumbnail(try Fixture.imageBytes("large-1600x1200.jpg"), spec: spec).thumbnail
    #expect(thumbnail.width == 128 && thumbnail.height == 128)
    let square = try ImagePipeline.thumbnail(
      try Fixture.imageBytes("orientation-6.jpg"), spec: ThumbnailSpec(longestEdge: 40, mode: .square)
    ).thumbnail
    #expect(square.width == 40 && square.height == 40)
    // The centre square of the upright quadrants keeps the left/right split in the middle.
    let pixels = try ImagePipeline.decode(square.bytes).pixels
    #expect(close(pixels[5, 5], Quadrants.red, tolerance: 24))
    #expect(close(pixels[34, 34], Quadrants.yellow, tolerance: 24))
  }

  @Test func smallPicturesAreNeverEnlarged() throws {
    let processed = try ImagePipeline.thumbnail(try Fixture.imageBytes("baseline.jpg"))
    #expect(processed.thumbnail.width == 120 && processed.thumbnail.height == 80)
    let square = try ImagePipeline.thumbnail(
      try Fixture.imageBytes("baseline.jpg"), spec: ThumbnailSpec(longestEdge: 256, mode: .square))
    #expect(square.thumbnail.width == 80 && square.thumbnail.height == 80)
  }

  @Test func transparencyMakesAPNGThumbnail() throws {
    let processed = try ImagePipeline.thumbnail(
      try Fixture.imageBytes("palette-trns.png"), spec: ThumbnailSpec(longestEdge: 60))
    #expect(processed.thumbnail.format == .png)
    #expect(processed.thumbnail.width == 60 && processed.thumbnail.height == 40)
    let pixels = try ImagePipeline.decode(processed.thumbnail.bytes).pixels
    #expect(pixels.channels == 4)
    #expect(pixels[45, 30][3] == 0)
    #expect(pixels[15, 10] == Quadrants.red + [255])
  }

  @Test func opaqueAlphaChannelMakesAJPEGThumbnail() throws {
    // An RGBA picture whose alpha is 255 everywhere needs no PNG.
    let opaque = PixelBuffer(width: 64, height: 64, channels: 4, pixels: [UInt8](repeating: 255, count: 64 * 64 * 4))
    let bytes = try ImagePipeline.encodePNG(opaque)
    let processed = try ImagePipeline.thumbnail(bytes, spec: ThumbnailSpec(longestEdge: 32))
    #expect(processed.thumbnail.format == .jpeg)
  }

  @Test func headerFactsAreReported() throws {
    let processed = try ImagePipeline.thumbnail(try Fixture.imageBytes("orientation-8.jpg"))
    #expect(processed.header.format == .jpeg)
    #expect(processed.header.orientation == .left)
    #expect(processed.header.uprightWidth == 120 && processed.header.uprightHeight == 80)
    #expect(processed.warnings.isEmpty)
  }

  @Test func specNames() {
    #expect(ThumbnailSpec.default.name == "256-fit-q85")
    #expect(
      ThumbnailSpec(longestEdge: 128, mode: .square, quality: 90, progressive: true).name
        == "128-square-q90-progressive")
    #expect(
      ThumbnailSpec(name: "128-square-q90-progressive")
        == ThumbnailSpec(longestEdge: 128, mode: .square, quality: 90, progressive: true))
    #expect(ThumbnailSpec(name: "256-fit-q85") == .default)
    #expect(ThumbnailSpec(name: "256-fit") == nil)
    #expect(ThumbnailSpec(name: "9-fit-q85") == nil)
    #expect(ThumbnailSpec(longestEdge: 5000, quality: 0).problems.count == 2)
  }
}

/// The large picture's solid patches (Fixtures/README.md): 200 px squares, 100 px in from each
/// corner, red, green, blue, yellow from top-left to bottom-right.
func expectLargePatches(_ pixels: PixelBuffer, scale: Double, sourceLocation: SourceLocation = #_sourceLocation) {
  let centres = [(200.0, 200.0), (1400.0, 200.0), (200.0, 1000.0), (1400.0, 1000.0)]
  for (index, centre) in centres.enumerated() {
    let x = Int(centre.0 * scale)
    let y = Int(centre.1 * scale)
    let colour = Array(pixels[x, y].prefix(3))
    #expect(
      close(colour, Quadrants.corners[index], tolerance: 16), "patch \(index) is \(colour)",
      sourceLocation: sourceLocation)
  }
}
