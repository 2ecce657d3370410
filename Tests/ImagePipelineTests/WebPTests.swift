@testable import ImagePipeline
import Testing
import TestSupport

/// WebP through libwebp: the fixtures of `Fixtures/tools/make_webp.sh` (see Fixtures/README.md).
@Suite("WebP")
struct WebPTests {
  // MARK: - Pixels

  @Test(arguments: [
    ("webp-lossy.webp", 12), ("webp-lossless.webp", 0), ("webp-icc.webp", 12), ("webp-orientation-3.webp", 12),
  ])
  func stillPicturesDecodeToTheirColours(file: String, tolerance: Int) throws {
    let decoded = try ImagePipeline.decode(try Fixture.imageBytes(file))
    #expect(decoded.pixels.width == 120 && decoded.pixels.height == 80)
    #expect(decoded.pixels.channels == 3)
    #expect(decoded.warnings.isEmpty)
    #expect(decoded.scaleDenominator == 1)
    // orientation-3 is stored upside down; the others upright.
    let pixels = file.contains("orientation") ? decoded.pixels.oriented(.down) : decoded.pixels
    expectQuadrants(pixels, tolerance: tolerance, "\(file)")
  }

  @Test func theFormerlyUnsupportedFixtureNowDecodes() throws {
    // hostile/picture.webp (ImageMagick, lossless) was the "WebP is not supported" fixture.
    let decoded = try ImagePipeline.decode(try Fixture.hostileBytes("picture.webp"))
    #expect(decoded.header.format == .webp)
    expectQuadrants(decoded.pixels, tolerance: 0)
  }

  @Test func losslessAlphaIsExactAndStraight() throws {
    let decoded = try ImagePipeline.decode(try Fixture.imageBytes("webp-lossless-alpha.webp"))
    #expect(decoded.pixels.channels == 4)
    let centres = Quadrants.centres(width: 120, height: 80)
    // Straight alpha: the colours are whole under alpha 192, 128 and 0 (cwebp -exact).
    for (index, alpha) in [255, 192, 128, 0].enumerated() {
      let pixel = decoded.pixels[centres[index].x, centres[index].y]
      #expect(pixel == Quadrants.corners[index] + [UInt8(alpha)], "quadrant \(index)")
    }
  }

  @Test func lossyAlphaKeepsItsAlphaValues() throws {
    let decoded = try ImagePipeline.decode(try Fixture.imageBytes("webp-lossy-alpha.webp"))
    #expect(decoded.header.hasAlpha && decoded.header.colorModel == .rgba)
    #expect(decoded.pixels.channels == 4)
    let centres = Quadrants.centres(width: 120, height: 80)
    for (index, alpha) in [255, 192, 128, 0].enumerated() {
      let pixel = decoded.pixels[centres[index].x, centres[index].y]
      #expect(pixel[3] == UInt8(alpha), "quadrant \(index) alpha is \(pixel[3])")
      // Where it shows at all, the colour is the quadrant's, not darkened by premultiplying.
      if alpha > 0 {
        #expect(close(Array(pixel.prefix(3)), Quadrants.corners[index], tolerance: 12), "quadrant \(index): \(pixel)")
      }
    }
  }

  @Test func transparentWebPMakesAPNGThumbnail() throws {
    let processed = try ImagePipeline.thumbnail(try Fixture.imageBytes("webp-lossless-alpha.webp"))
    #expect(processed.thumbnail.format == .png)
    #expect(processed.thumbnail.width == 120 && processed.thumbnail.height == 80)
    let pixels = try ImagePipeline.decode(processed.thumbnail.bytes).pixels
    #expect(pixels[90, 60][3] == 0)
    #expect(pixels[30, 20] == Quadrants.red + [255])
  }

  /// A lossless WebP transparent through its palette only (the palette's entries have alpha
  /// 255, 170, 85 and 0), with the VP8L alpha hint set as cwebp writes it, cleared, and cleared
  /// in a VP8X container whose alpha flag is clear too: the pixels tell, and the thumbnail is a
  /// PNG with the palette's alpha.
  @Test(arguments: [
    "webp-lossless-palette-alpha.webp", "webp-lossless-palette-alpha-no-hint.webp",
    "webp-lossless-palette-alpha-vp8x-no-flag.webp",
  ])
  func transparencyThroughThePaletteIsKept(file: String) throws {
    let bytes = try Fixture.imageBytes(file)
    let decoded = try ImagePipeline.decode(bytes)
    #expect(decoded.header.hasAlpha && decoded.header.colorModel == .rgba)
    try #require(decoded.pixels.channels == 4, "\(file) decodes without alpha")
    let centres = Quadrants.centres(width: 120, height: 80)
    for (index, alpha) in [255, 170, 85, 0].enumerated() {
      let pixel = decoded.pixels[centres[index].x, centres[index].y]
      #expect(pixel[3] == UInt8(alpha), "\(file) quadrant \(index): \(pixel)")
      if alpha > 0 {
        #expect(Array(pixel.prefix(3)) == Quadrants.corners[index], "\(file) quadrant \(index): \(pixel)")
      }
    }
    let processed = try ImagePipeline.thumbnail(bytes)
    #expect(processed.header.hasAlpha)
    #expect((processed.thumbnail.format, processed.thumbnail.width, processed.thumbnail.height) == (.png, 120, 80))
    let thumbnail = try ImagePipeline.decode(processed.thumbnail.bytes).pixels
    try #require(thumbnail.channels == 4, "\(file): an opaque thumbnail")
    #expect(centres.map { thumbnail[$0.x, $0.y][3] } == [255, 170, 85, 0])
    // Scaled on load (libwebp's scaling keeps the alpha too).
    let small = try ImagePipeline.thumbnailPixels(bytes, spec: ThumbnailSpec(longestEdge: 30)).pixels
    try #require(small.channels == 4, "\(file): an opaque scaled thumbnail")
    #expect(small[22, 15][3] == 0 && small[7, 5][3] == 255)
  }

  /// The header read without decoding says what the headers say; only the decode can tell.
  @Test func theHeaderAloneSaysWhatTheHeadersSay() throws {
    #expect(try ImagePipeline.readHeader(try Fixture.imageBytes("webp-lossless-palette-alpha.webp")).hasAlpha)
    #expect(
      !(try ImagePipeline.readHeader(try Fixture.imageBytes("webp-lossless-palette-alpha-no-hint.webp")).hasAlpha))
  }

  /// An opaque lossless picture, decoded with alpha to find out, still comes out RGB: a JPEG
  /// thumbnail, as before.
  @Test func anOpaqueLosslessPictureStaysRGB() throws {
    let bytes = try Fixture.imageBytes("webp-lossless.webp")
    let decoded = try ImagePipeline.decode(bytes)
    #expect(!decoded.header.hasAlpha && decoded.pixels.channels == 3)
    expectQuadrants(decoded.pixels, tolerance: 0)
    #expect(try ImagePipeline.thumbnail(bytes).thumbnail.format == .jpeg)
    let small = try ImagePipeline.thumbnailPixels(bytes, spec: ThumbnailSpec(longestEdge: 30)).pixels
    #expect(small.channels == 3)
    expectQuadrants(small, tolerance: 8)
  }

  // MARK: - Headers

  @Test(arguments: [
    ("webp-lossy.webp", 120, 80, false, Orientation.up),
    ("webp-lossless.webp", 120, 80, false, .up),
    ("webp-lossy-alpha.webp", 120, 80, true, .up),
    ("webp-lossless-alpha.webp", 120, 80, true, .up),
    ("webp-large-1600x1200.webp", 1600, 1200, false, .up),
    ("webp-orientation-6.webp", 80, 120, false, .right),
    ("webp-orientation-3.webp", 120, 80, false, .down),
    ("webp-icc.webp", 120, 80, false, .up),
    ("webp-animated.webp", 120, 80, false, .up),
  ])
  func headersSayWhatTheFileIs(file: String, width: Int, height: Int, alpha: Bool, orientation: Orientation) throws {
    let bytes = try Fixture.imageBytes(file)
    let header = try ImagePipeline.readHeader(bytes)
    #expect(header.format == .webp)
    #expect(header.width == width && header.height == height, "\(file)")
    #expect(header.hasAlpha == alpha, "\(file)")
    #expect(header.colorModel == (alpha ? .rgba : .rgb), "\(file)")
    #expect(header.bitDepth == 8 && !header.isProgressive)
    #expect(header.orientation == orientation, "\(file)")
    #expect(header.colorWarnings.isEmpty, "\(file)")
    // The decode reports the same header.
    #expect(try ImagePipeline.decode(bytes).header == header, "\(file)")
  }

  @Test func theICCProfileReachesTheHeaderUnchanged() throws {
    let bytes = try Fixture.imageBytes("webp-icc.webp")
    guard case .icc(let profile) = try ImagePipeline.readHeader(bytes).color else {
      Issue.record("no ICC profile")
      return
    }
    // The ICCP chunk's payload, found here by its own offset: VP8X (12 + 18), then ICCP.
    #expect(Array(bytes[30..<34]) == Array("ICCP".utf8))
    let length = Int(bytes[34]) | Int(bytes[35]) << 8 | Int(bytes[36]) << 16 | Int(bytes[37]) << 24
    #expect(profile == Array(bytes[38..<(38 + length)]))
    // It is the profile itself: its header's size field and signature.
    #expect(profile.count == Int(profile[0]) << 24 | Int(profile[1]) << 16 | Int(profile[2]) << 8 | Int(profile[3]))
    #expect(Array(profile[36..<40]) == Array("acsp".utf8))
    // The untagged pictures say nothing.
    #expect(try ImagePipeline.readHeader(try Fixture.imageBytes("webp-lossy.webp")).color == .untagged)
  }

  @Test func aGarbageProfileIsReportedAsItIs() throws {
    // Odd-sized (301 bytes, one byte of padding): the image chunk after it is still found.
    let bytes = try Fixture.hostileBytes("webp-iccp-garbage.webp")
    let decoded = try ImagePipeline.decode(bytes)
    #expect(decoded.header.color == .icc(Array(bytes[38..<339])))
    expectQuadrants(decoded.pixels)
  }

  @Test func aFlagWithoutAProfileIsUntaggedWithAWarning() throws {
    let decoded = try ImagePipeline.decode(try Fixture.hostileBytes("webp-icc-flag-without-chunk.webp"))
    #expect(decoded.header.color == .untagged)
    #expect(
      decoded.header.colorWarnings == [
        "the VP8X header announces an ICC profile, but there is no ICCP chunk: the picture is treated as untagged"
      ])
    expectQuadrants(decoded.pixels)
  }

  @Test func aProfileOver4MiBIsIgnoredWithAWarning() throws {
    let vp8 = try Self.chunk("VP8 ", of: Fixture.imageBytes("webp-lossy.webp"))
    let profile = [UInt8](repeating: 7, count: (4 << 20) + 1)
    let bytes = Self.riff(Self.vp8x(flags: 0x20, 120, 80) + Self.chunk("ICCP", profile) + vp8)
    let decoded = try ImagePipeline.decode(bytes)
    #expect(decoded.header.color == .untagged)
    #expect(
      decoded.header.colorWarnings == [
        "the ICC profile is 4194305 bytes, more than the 4 MiB a profile may have: the picture is treated as untagged"
      ])
    expectQuadrants(decoded.pixels)
    // Exactly 4 MiB is still a profile.
    let most = Self.riff(Self.vp8x(flags: 0x20, 120, 80) + Self.chunk("ICCP", Array(profile.dropLast())) + vp8)
    #expect(try ImagePipeline.readHeader(most).color == .icc(Array(profile.dropLast())))
  }

  @Test func exifWithAndWithoutItsJPEGPrefixBothGiveTheOrientation() throws {
    // orientation-6 holds a bare TIFF block, orientation-3 "Exif\0\0" and then the block.
    let six = try Fixture.imageBytes("webp-orientation-6.webp")
    let three = try Fixture.imageBytes("webp-orientation-3.webp")
    #expect(Array(six.suffix(26).prefix(2)) == Array("MM".utf8))
    #expect(Array(three.suffix(32).prefix(8)) == Array("Exif\0\0II".utf8))
    #expect(try ImagePipeline.readHeader(six).orientation == .right)
    #expect(try ImagePipeline.readHeader(three).orientation == .down)
    // A malformed block is upright, never an error.
    let vp8 = try Self.chunk("VP8 ", of: Fixture.imageBytes("webp-lossy.webp"))
    let bad = Self.riff(Self.vp8x(flags: 0x08, 120, 80) + vp8 + Self.chunk("EXIF", Array("Exif\0\0MM\0*".utf8)))
    #expect(try ImagePipeline.readHeader(bad).orientation == .up)
  }

  // MARK: - The first bytes of a file

  @Test func theHeaderNeedsOnlyTheChunksBeforeThePicture() throws {
    // Cut inside the image data: the header is all there.
    for file in ["webp-large-1600x1200.webp", "webp-icc.webp", "webp-lossless.webp", "webp-lossy-alpha.webp"] {
      let bytes = try Fixture.imageBytes(file)
      let whole = try ImagePipeline.readHeader(bytes)
      #expect(try ImagePipeline.readHeader(Array(bytes.prefix(bytes.count - 20))) == whole, "\(file)")
    }
    let large = try Fixture.imageBytes("webp-large-1600x1200.webp")
    #expect(try ImagePipeline.readHeader(Array(large.prefix(30))).width == 1600)
  }

  @Test func theHeaderIsTruncatedWhenAnAnnouncedChunkIsNotThere() throws {
    let exif = try Fixture.imageBytes("webp-orientation-6.webp")  // EXIF comes after the picture
    #expect(throws: ImageError.truncated(.webp, detail: "the file ends before its EXIF chunk does")) {
      try ImagePipeline.readHeader(Array(exif.prefix(exif.count - 30)))
    }
    let icc = try Fixture.imageBytes("webp-icc.webp")  // ICCP comes before it
    #expect(throws: ImageError.truncated(.webp, detail: "the file ends before its ICCP chunk does")) {
      try ImagePipeline.readHeader(Array(icc.prefix(1000)))
    }
    #expect(throws: ImageError.truncated(.webp, detail: "the file ends inside its VP8 header")) {
      try ImagePipeline.readHeader(Array(try Fixture.imageBytes("webp-lossy.webp").prefix(25)))
    }
  }

  @Test(arguments: [
    "webp-lossy.webp", "webp-lossless.webp", "webp-lossy-alpha.webp", "webp-orientation-6.webp",
    "webp-animated.webp", "webp-icc.webp",
  ])
  func everyShorterPrefixIsRefusedAsTruncated(file: String) throws {
    let bytes = try Fixture.imageBytes(file)
    for length in stride(from: 12, to: bytes.count, by: max(1, bytes.count / 200)) {
      #expect("\(file) cut to \(length) bytes") {
        try ImagePipeline.decode(Array(bytes.prefix(length)))
      } throws: { error in
        guard case .truncated(.webp, _) = error as? ImageError else { return false }
        return true
      }
    }
  }

  // MARK: - Scaled decoding

  @Test func largePicturesAreScaledOnLoad() throws {
    let bytes = try Fixture.imageBytes("webp-large-1600x1200.webp")
    let full = try ImagePipeline.decode(bytes)
    #expect(full.pixels.width == 1600 && full.pixels.height == 1200 && full.scaleDenominator == 1)
    expectLargePatches(full.pixels, scale: 1)
    // The least size that covers 400×300: a quarter, exactly.
    let quarter = try ImagePipeline.decode(bytes, minimumSize: (400, 300))
    #expect(quarter.pixels.width == 400 && quarter.pixels.height == 300)
    #expect(quarter.scaleDenominator == 4)
    expectLargePatches(quarter.pixels, scale: 0.25)
    // Any factor, the aspect kept (301.5 rounds to 302), never below the minimum in either axis.
    let odd = try ImagePipeline.decode(bytes, minimumSize: (10, 301))
    #expect(odd.pixels.width == 402 && odd.pixels.height == 302)
  }

  @Test func thumbnailsUseScaledDecoding() throws {
    let bytes = try Fixture.imageBytes("webp-large-1600x1200.webp")
    let sink = RecordingSink()
    let shrinker = ThumbnailShrinker(spec: .default)
    try bytes.withUnsafeBytes { buffer in
      _ = try WebPCodec.decode(
        buffer, options: DecodeOptions(), request: { shrinker.plan(for: $0) }, into: sink)
    }
    // 256 × 192 with the margin of 2: rows of 512 × 384, 1600 / 512 = 3.125 times smaller.
    #expect(sink.size?.width == 512 && sink.size?.height == 384)
    #expect(sink.scale == 3.125)
    #expect(sink.rows == 384)
    let thumbnail = try ImagePipeline.thumbnailPixels(bytes)
    #expect(thumbnail.pixels.width == 256 && thumbnail.pixels.height == 192)
    #expect(thumbnail.scaleDenominator == 3)
    expectLargePatches(thumbnail.pixels, scale: 256.0 / 1600.0)
  }

  @Test func rowsFlowInStripsAsLibWebPFinishesThem() throws {
    let bytes = try Fixture.imageBytes("webp-large-1600x1200.webp")
    let sink = RecordingSink()
    try bytes.withUnsafeBytes { buffer in
      _ = try WebPCodec.decode(buffer, options: DecodeOptions(), request: { _ in .fullSize }, into: sink)
    }
    #expect(sink.rows == 1200)
    #expect(sink.takes > 1, "every row came in one call")
  }

  @Test func theScaledSizeIsTheLeastThatCoversTheMinimum() {
    #expect(WebPCodec.scaledSize(width: 1600, height: 1200, atLeast: (512, 384))! == (512, 384))
    #expect(WebPCodec.scaledSize(width: 1600, height: 1200, atLeast: (100, 300))! == (400, 300))
    #expect(WebPCodec.scaledSize(width: 1000, height: 10, atLeast: (3, 5))! == (500, 5))
    #expect(WebPCodec.scaledSize(width: 10, height: 1000, atLeast: (1, 1))! == (1, 100))
    #expect(WebPCodec.scaledSize(width: 1600, height: 1200, atLeast: (1600, 1)) == nil)
    #expect(WebPCodec.scaledSize(width: 1600, height: 1200, atLeast: (1599, 1200)) == nil)
    #expect(WebPCodec.scaledSize(width: 1600, height: 1200, atLeast: nil) == nil)
    #expect(WebPCodec.scaledSize(width: 1600, height: 1200, atLeast: (.max, .max)) == nil)
    #expect(WebPCodec.scaledSize(width: 1600, height: 1200, atLeast: (-5, .min))! == (2, 2))
  }

  // MARK: - Orientation

  @Test(arguments: ["webp-orientation-6.webp", "webp-orientation-3.webp"])
  func thumbnailsAreUpright(file: String) throws {
    let image = try ImagePipeline.thumbnailPixels(try Fixture.imageBytes(file))
    #expect(image.pixels.width == 120 && image.pixels.height == 80)
    expectQuadrants(image.pixels, "\(file)")
    let processed = try ImagePipeline.thumbnail(try Fixture.imageBytes(file))
    #expect(processed.header.uprightWidth == 120 && processed.header.uprightHeight == 80)
  }

  // MARK: - Animation

  @Test func anAnimationShowsItsFirstFrameAndSaysSo() throws {
    let bytes = try Fixture.imageBytes("webp-animated.webp")
    let decoded = try ImagePipeline.decode(bytes)
    #expect(decoded.pixels.width == 120 && decoded.pixels.height == 80 && decoded.pixels.channels == 3)
    expectQuadrants(decoded.pixels, tolerance: 0)
    #expect(decoded.warnings == ["animated WebP: only the first of 3 frames is shown"])
    let processed = try ImagePipeline.thumbnail(bytes)
    #expect(processed.thumbnail.format == .jpeg && processed.thumbnail.width == 120)
    #expect(processed.warnings == ["animated WebP: only the first of 3 frames is shown"])
  }

  // MARK: - Hostile input

  static let refusals: [(file: String, error: ImageError)] = [
    ("webp-truncated-lossy.webp", .truncated(.webp, detail: "the file ends inside its VP8 chunk (2555 of 5130 bytes)")),
    (
      "webp-truncated-lossless.webp",
      .truncated(.webp, detail: "the file ends inside its VP8L chunk (12719 of 25458 bytes)")
    ),
    (
      "webp-riff-size-past-end.webp",
      .truncated(.webp, detail: "the RIFF header declares 4274 bytes, the file holds 178")
    ),
    ("webp-garbage-after-header.webp", .corrupt(.webp, detail: "the VP8L image data is damaged")),
    ("webp-huge-canvas.webp", .tooManyPixels(width: 100000, height: 100000, budget: 100_000_000)),
    (
      "webp-iccp-declared-huge.webp",
      .corrupt(.webp, detail: "the ICCP chunk declares 2147483632 bytes, past the end of the RIFF container")
    ),
  ]

  @Test(arguments: refusals)
  func hostileFilesAreRefusedWithTheReason(file: String, error: ImageError) throws {
    let bytes = try Fixture.hostileBytes(file)
    #expect(throws: error) { try ImagePipeline.decode(bytes) }
    #expect(throws: error) { try ImagePipeline.thumbnail(bytes) }
  }

  @Test func aHugeCanvasIsRefusedBeforeLibWebPSeesIt() throws {
    let bytes = try Fixture.hostileBytes("webp-huge-canvas.webp")
    let header = try ImagePipeline.readHeader(bytes)
    #expect(header.width == 100000 && header.height == 100000)
    // With no budget to stop it, the canvas and the picture in it disagree.
    #expect(throws: ImageError.corrupt(.webp, detail: "the VP8X canvas is 100000×100000, its VP8 image 120×80")) {
      try ImagePipeline.decode(bytes, options: DecodeOptions(pixelBudget: .max))
    }
  }

  @Test func truncatedFilesAreRefusedEvenWhenLenient() throws {
    for file in ["webp-truncated-lossy.webp", "webp-truncated-lossless.webp"] {
      #expect(throws: ImageError.self) {
        try ImagePipeline.decode(try Fixture.hostileBytes(file), options: DecodeOptions(lenient: true))
      }
    }
  }

  @Test func truncatedImageDataWithinAnHonestContainerIsTruncated() throws {
    // The VP8 chunk and the RIFF shortened to match: only libwebp can tell the data is short.
    let lossy = try Fixture.hostileBytes("webp-truncated-lossy.webp")
    let vp8 = Array(lossy[20...])
    let bytes = Self.riff(Self.chunk("VP8 ", vp8))
    #expect(throws: ImageError.truncated(.webp, detail: "the file ends before its VP8 image data does")) {
      try ImagePipeline.decode(bytes)
    }
  }

  // MARK: - Helpers

  /// A RIFF/WEBP file around `body`, its size honest.
  static func riff(_ body: [UInt8]) -> [UInt8] {
    Array("RIFF".utf8) + le32(body.count + 4) + Array("WEBP".utf8) + body
  }

  /// A chunk, padded to an even length.
  static func chunk(_ name: String, _ payload: [UInt8]) -> [UInt8] {
    Array(name.utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
  }

  /// The whole chunk `name` (header, payload, padding) of a simple or VP8X file.
  static func chunk(_ name: String, of file: [UInt8]) throws -> [UInt8] {
    var offset = 12
    while offset + 8 <= file.count {
      let length =
        Int(file[offset + 4]) | Int(file[offset + 5]) << 8 | Int(file[offset + 6]) << 16 | Int(file[offset + 7]) << 24
      let end = offset + 8 + length + length % 2
      if Array(file[offset..<offset + 4]) == Array(name.utf8) { return Array(file[offset..<end]) }
      offset = end
    }
    throw ImageError.corrupt(.webp, detail: "no \(name) chunk in the fixture")
  }

  static func vp8x(flags: UInt8, _ width: Int, _ height: Int) -> [UInt8] {
    chunk("VP8X", [flags, 0, 0, 0] + Array(le32(width - 1).prefix(3)) + Array(le32(height - 1).prefix(3)))
  }

  static func le32(_ value: Int) -> [UInt8] {
    [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]
  }
}

/// A sink that records what the decoder handed over, without keeping the rows.
final class RecordingSink: RowSink {
  private(set) var size: (width: Int, height: Int)?
  private(set) var scale = 0.0
  private(set) var rows = 0
  private(set) var takes = 0

  func begin(width: Int, height: Int, layout: RowLayout, scale: Double) {
    size = (width, height)
    self.scale = scale
  }

  func take(_ first: UnsafePointer<UInt8>, stride: Int, count: Int) {
    rows += count
    takes += 1
  }
}
