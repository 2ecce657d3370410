@testable import ImagePipeline
import Testing
import TestSupport

/// 10-bit HEIF grids as cameras write them (Fixtures/README.md, "10-bit grids"): PQ and HLG
/// pictures tone-mapped to sRGB, an SDR one rounded to 8 bits, each scored against the
/// reference `Fixtures/tools/make_hdr.py` computes in float64 from the same scene.
@Suite("10-bit HEIF grids, HDR and SDR")
struct HDRTests {
  /// Each picture and the reference it is scored against (`hdr-reference-KIND.png`).
  static let pictures = [
    ("heic-grid-10bit-pq.heic", "pq"), ("heic-grid-10bit-hlg.heic", "hlg"), ("heic-grid-10bit-srgb.heic", "srgb"),
    ("avif-10bit-pq.avif", "pq"),
  ]

  /// The centres of the first row of patches (y 56–103): 18 % grey, reference white (203
  /// cd/m²), 500 and 1000 cd/m² white, BT.709 red, green and blue at reference white, skin.
  static let patches = (0..<8).map { (x: 24 + 46 * $0, y: 80) }

  /// The picture decoded, and its thumbnail, against the reference (and the reference's own
  /// thumbnail, made by the same resizer): PSNR of at least 30 dB.
  @Test(arguments: pictures)
  func matchesTheReference(file: String, kind: String) throws {
    let bytes = try Fixture.imageBytes(file)
    let reference = try Fixture.imageBytes("hdr-reference-\(kind).png")
    let image = try ImagePipeline.decode(bytes)
    #expect((image.header.width, image.header.height, image.header.bitDepth) == (368, 248, 10))
    #expect(image.warnings.isEmpty, "\(image.warnings)")
    let expected = try ImagePipeline.decode(reference).pixels
    #expect((image.pixels.width, image.pixels.height) == (expected.width, expected.height))
    let whole = psnr(image.pixels, expected)
    #expect(whole >= 30, "\(file): \(whole) dB")
    let thumbnail = try ImagePipeline.thumbnailPixels(bytes)
    let expectedThumbnail = try ImagePipeline.thumbnailPixels(reference)
    #expect((thumbnail.pixels.width, thumbnail.pixels.height) == (256, 173))
    let small = psnr(thumbnail.pixels, expectedThumbnail.pixels)
    #expect(small >= 30, "\(file) thumbnail: \(small) dB")
    #expect(try ImagePipeline.thumbnail(bytes).thumbnail.format == .jpeg)
  }

  /// Highlights are tone-mapped, not clipped: reference white (203 cd/m²) comes out under
  /// sRGB white (229, BT.2390's roll-off starting at half of it), 500 cd/m² well above it and
  /// 1000 cd/m² above that, at white; 18 % grey keeps its SDR value (118: the curve changes
  /// nothing below its knee); BT.709's primaries at reference white are as bright as white;
  /// the grey ramp to 1000 cd/m² never turns back. Each patch as in the reference: within 6,
  /// or 16 for the primaries, whose near-zero components the sRGB curve's steep foot magnifies.
  @Test(arguments: pictures.filter { $0.1 != "srgb" })
  func highlightsAreToneMappedNotClipped(file: String, kind: String) throws {
    let image = try ImagePipeline.decode(try Fixture.imageBytes(file)).pixels
    let reference = try ImagePipeline.decode(try Fixture.imageBytes("hdr-reference-\(kind).png")).pixels
    let grey = Self.patches.prefix(4).map { Int(image[$0.x, $0.y][1]) }
    #expect((112...124).contains(grey[0]), "18 % grey: \(grey)")
    #expect((222...236).contains(grey[1]), "reference white: \(grey)")
    #expect(grey[2] >= grey[1] + 20 && grey[3] > grey[2] && grey[3] >= 254, "500 and 1000 cd/m²: \(grey)")
    for (index, patch) in Self.patches.enumerated() {
      let (found, expected) = (Array(image[patch.x, patch.y]), Array(reference[patch.x, patch.y]))
      let tolerance = (4...6).contains(index) ? 16 : 6
      #expect(close(found, expected, tolerance: tolerance), "\(file) at \(patch): \(found), expected \(expected)")
    }
    let primaries = (0..<3).map { Int(image[Self.patches[4 + $0].x, Self.patches[4 + $0].y][$0]) }
    #expect(primaries.allSatisfy { abs($0 - grey[1]) <= 3 }, "red, green, blue \(primaries), white \(grey[1])")
    let ramp = stride(from: 0, to: 368, by: 8).map { Int(image[$0, 24][1]) }
    #expect(zip(ramp, ramp.dropFirst()).allSatisfy { $1 >= $0 - 2 }, "\(ramp)")
    #expect(ramp.first! <= 2 && ramp.last! >= 250, "\(ramp)")
  }

  /// A stored thumbnail coded as the picture is (PQ, the same colour box) stands in for it and
  /// is tone-mapped the same way.
  @Test func aPreviewOfTheSameColoursStandsInAndIsToneMapped() throws {
    let bytes = try Fixture.imageBytes("heic-grid-10bit-pq-preview.heic")
    let reference = try Fixture.imageBytes("hdr-reference-pq.png")
    let spec = ThumbnailSpec(longestEdge: 92)
    let thumbnail = try ImagePipeline.thumbnailPixels(bytes, spec: spec)
    #expect(thumbnail.scaleDenominator == 2)
    let score = psnr(thumbnail.pixels, try ImagePipeline.thumbnailPixels(reference, spec: spec).pixels)
    #expect(score >= 30, "\(score) dB")
  }

  /// A stored thumbnail without the colour box of an HDR picture may be SDR or PQ: nothing
  /// tells, so the picture is decoded and tone-mapped instead.
  @Test func anUntaggedPreviewDoesNotStandInForAnHDRPicture() throws {
    let bytes = try Fixture.imageBytes("heic-grid-10bit-pq-preview-untagged.heic")
    let reference = try Fixture.imageBytes("hdr-reference-pq.png")
    let spec = ThumbnailSpec(longestEdge: 92)
    let thumbnail = try ImagePipeline.thumbnailPixels(bytes, spec: spec)
    #expect(thumbnail.scaleDenominator == 1)
    let score = psnr(thumbnail.pixels, try ImagePipeline.thumbnailPixels(reference, spec: spec).pixels)
    #expect(score >= 30, "\(score) dB")
  }

  /// The curves against BT.2100's and BT.2390's own figures.
  @Test func theCurvesAreBT2100s() {
    // PQ: signal 0.5 is 92.2 cd/m², 0.75 is 983.4; reference white 203 cd/m² is 0.5807.
    #expect(abs(ToneMapping.pqDisplayLight(0.5) - 92.25) < 0.05)
    #expect(abs(ToneMapping.pqDisplayLight(0.75) - 983.4) < 0.5)
    #expect(abs(ToneMapping.pqSignal(203) - 0.5807) < 0.0005)
    // HLG: signal 0.5 is scene light 1/12; 75 % (reference white, BT.2408) is 0.2650.
    #expect(abs(ToneMapping.hlgSceneLight(0.5) - 1.0 / 12) < 1e-9)
    #expect(abs(ToneMapping.hlgSceneLight(0.75) - 0.2650) < 0.0005)
    // The EETF keeps light below its knee, ends at reference white, and never turns back.
    #expect(ToneMapping.eetf(50) == 50)
    #expect(ToneMapping.eetf(1000) == 203 && ToneMapping.eetf(4000) == 203)
    let curve = stride(from: 0.0, through: 1000, by: 5).map(ToneMapping.eetf)
    #expect(zip(curve, curve.dropFirst()).allSatisfy { $1 >= $0 })
  }

  /// Colours outside BT.709 keep their hue: desaturated towards their luminance, not clipped
  /// component by component (which would turn BT.2020's orange yellow).
  @Test func gamutMappingKeepsHue() {
    var (r, g, b): (Float, Float, Float) = (1.6, 0.3, -0.05)
    ToneMapping.mapIntoGamut(&r, &g, &b)
    #expect(r == 1 && g > 0.3 && b >= 0 && b < g, "\(r) \(g) \(b)")
    // Red stays the largest, blue the smallest, and the ratio of the differences (the hue)
    // is that of the colour desaturated: (g − b) / (r − b) as before, within rounding.
    let before = (0.3 - -0.05) / (1.6 - -0.05)
    #expect(abs(Double((g - b) / (r - b)) - before) < 0.01)
  }
}
