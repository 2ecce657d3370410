import Dispatch
import Foundation
@testable import ImagePipeline
import Synchronization
import Testing
import TestSupport

/// The sRGB values LittleCMS gives for each tagged fixture's patch, written by
/// Fixtures/tools/make_colour.py with the fixtures (make-profiles.c --expect).
enum ColourExpectations {
  static let values: [String: [Double]] = {
    let url = Fixture.root.appendingPathComponent("images/colour-expected.txt")
    let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    var values: [String: [Double]] = [:]
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: " ")
      guard parts.count == 4 else { continue }
      values[String(parts[0])] = parts[1...].compactMap { Double($0) }
    }
    return values
  }()
}

/// CIE76 ΔE between two 8-bit sRGB colours (through XYZ under D65 to CIELAB).
func deltaE(_ a: [Double], _ b: [Double]) -> Double {
  func lab(_ rgb: [Double]) -> [Double] {
    let linear = rgb.map { value -> Double in
      let v = value / 255
      return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }
    let x = 0.4124 * linear[0] + 0.3576 * linear[1] + 0.1805 * linear[2]
    let y = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    let z = 0.0193 * linear[0] + 0.1192 * linear[1] + 0.9505 * linear[2]
    func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
    let (fx, fy, fz) = (f(x / 0.95047), f(y), f(z / 1.08883))
    return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)]
  }
  let (la, lb) = (lab(a), lab(b))
  return sqrt(zip(la, lb).map { ($0 - $1) * ($0 - $1) }.reduce(0, +))
}

/// The colour at the centre of a picture, as doubles.
func centre(_ pixels: PixelBuffer) -> [Double] {
  pixels[pixels.width / 2, pixels.height / 2].prefix(3).map(Double.init)
}

@Suite("Colour management: thumbnails are sRGB")
struct ColorTests {
  static let tagged = [
    "colour-p3.jpg", "colour-adobe-rgb.jpg", "colour-prophoto.jpg", "colour-gray-linear.jpg", "colour-cmyk.jpg",
    "colour-p3.png", "colour-chrm-gama.png", "colour-p3.webp", "colour-p3.heic", "colour-p3.avif",
    "colour-p3-nclx.avif",
  ]

  @Test(arguments: tagged)
  func aTaggedPatchComesOutAsLittleCMSsSRGBValue(file: String) throws {
    let expected = try #require(ColourExpectations.values[file], "no expected value for \(file)")
    let image = try ImagePipeline.thumbnailPixels(try Fixture.imageBytes(file))
    let actual = centre(image.pixels)
    #expect(deltaE(actual, expected) < 2, "\(file): \(actual) against LittleCMS's \(expected)")
    #expect(image.warnings.isEmpty)
  }

  @Test func theSameTestFailsForAP3PictureReadAsIfUntagged() throws {
    // The proof that the test above can fail: the same pixels without their profile, and the
    // tagged file decoded without conversion, both miss LittleCMS's value by far.
    let expected = try #require(ColourExpectations.values["colour-p3.jpg"])
    let untagged = try ImagePipeline.thumbnailPixels(try Fixture.imageBytes("colour-p3-untagged.jpg"))
    #expect(deltaE(centre(untagged.pixels), expected) > 10)
    let unconverted = try ImagePipeline.decode(try Fixture.imageBytes("colour-p3.jpg"), convertingToSRGB: false)
    #expect(deltaE(centre(unconverted.pixels), expected) > 10)
    // Converted, the full decode agrees with the thumbnail.
    let converted = try ImagePipeline.decode(try Fixture.imageBytes("colour-p3.jpg"))
    #expect(deltaE(centre(converted.pixels), expected) < 2)
  }

  @Test(arguments: [
    ("colour-p3.jpg", "Display P3"), ("colour-adobe-rgb.jpg", "Adobe RGB (1998)"),
    ("colour-prophoto.jpg", "ProPhoto RGB"), ("colour-gray-linear.jpg", "Gray, linear"),
    ("colour-cmyk.jpg", "Simple CMYK (fixture)"), ("colour-p3.png", "Display P3"),
    ("colour-chrm-gama.png", "Adobe RGB (1998)"), ("colour-srgb-chunk.png", "sRGB"),
    ("colour-p3.webp", "Display P3"), ("colour-p3.heic", "Display P3"), ("colour-p3.avif", "Display P3"),
    ("colour-p3-nclx.avif", "Display P3"), ("avif-nclx.avif", "sRGB"),
    ("colour-p3-untagged.jpg", "untagged"), ("baseline.jpg", "untagged"), ("rgb-8.png", "untagged"),
  ])
  func everyPictureNamesItsColourSpace(file: String, name: String) throws {
    #expect(try ImagePipeline.readHeader(try Fixture.imageBytes(file)).colorSpace == name)
  }

  @Test func anSRGBChunkLeavesTheSamplesAsTheyAre() throws {
    let image = try ImagePipeline.thumbnailPixels(try Fixture.imageBytes("colour-srgb-chunk.png"))
    #expect(centre(image.pixels) == [220, 60, 40])
  }

  @Test func aProfileInTwoSegmentsIsReassembledWhole() throws {
    let header = try ImagePipeline.readHeader(try Fixture.imageBytes("colour-prophoto.jpg"))
    guard case .icc(let profile) = header.color else {
      Issue.record("no profile")
      return
    }
    let file = Fixture.root.appendingPathComponent("profiles/prophoto-large.icc")
    #expect(profile == [UInt8](try Data(contentsOf: file)))
  }

  @Test func segmentsOutOfOrderAreTakenInSequenceOrder() throws {
    let expected = try #require(ColourExpectations.values["colour-prophoto.jpg"])
    let image = try ImagePipeline.thumbnailPixels(try Fixture.hostileBytes("icc-segments-out-of-order.jpg"))
    #expect(deltaE(centre(image.pixels), expected) < 2)
    #expect(image.warnings.isEmpty)
  }

  @Test(arguments: [
    (
      "icc-segment-missing.jpg",
      "the embedded ICC profile is unusable (1 of its 2 APP2 segments are missing): colours are shown as sRGB"
    ),
    (
      "icc-segment-repeated.jpg",
      "the embedded ICC profile is unusable (an APP2 segment is repeated): colours are shown as sRGB"
    ),
    ("icc-garbage.jpg", "the embedded ICC profile is damaged (LittleCMS cannot read it): colours are shown as sRGB"),
    (
      "icc-truncated.jpg",
      "the embedded ICC profile is damaged (it declares 8816 bytes but holds 4408): colours are shown as sRGB"
    ),
    (
      "icc-declared-huge.jpg",
      "the embedded ICC profile is damaged (it declares 52428800 bytes but holds 8816): colours are shown as sRGB"
    ),
    ("iccp-truncated.png", "the iCCP profile does not inflate (the data ends early): it is ignored"),
  ])
  func aBrokenProfileIsIgnoredWithAWarningAndThePictureKept(file: String, warning: String) throws {
    let bytes = try Fixture.hostileBytes(file)
    let processed = try ImagePipeline.thumbnail(bytes)
    #expect(processed.warnings == [warning])
    // The pixels are the file's own, shown as sRGB.
    let image = try ImagePipeline.thumbnailPixels(bytes)
    let unconverted = try ImagePipeline.decode(bytes, convertingToSRGB: false)
    #expect(centre(image.pixels) == centre(unconverted.pixels))
  }

  @Test func aProfileOverFourMebibytesIsIgnored() throws {
    // 70 APP2 segments of 65,000 bytes: 4.5 MB, made here rather than committed.
    var bytes = try Fixture.imageBytes("colour-p3-untagged.jpg")
    var segments: [UInt8] = []
    for sequence in 1...70 {
      let payload = Array("ICC_PROFILE".utf8) + [0, UInt8(sequence), 70] + [UInt8](repeating: 7, count: 65_000)
      segments += [0xFF, 0xE2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }
    bytes.insert(contentsOf: segments, at: 2)
    let header = try ImagePipeline.readHeader(bytes)
    #expect(header.color == .untagged)
    #expect(
      header.colorWarnings == [
        "the embedded ICC profile is unusable (it is larger than 4194304 bytes): colours are shown as sRGB"
      ])
    #expect(try ImagePipeline.thumbnail(bytes).thumbnail.width == 64)
  }

  @Test func aTransformIsBuiltOncePerProfile() throws {
    let header = try ImagePipeline.readHeader(try Fixture.imageBytes("colour-adobe-rgb.jpg"))
    let first = ColorManagement.resolved(header.color, channels: 3).transform
    let second = ColorManagement.resolved(header.color, channels: 3).transform
    #expect(first != nil)
    #expect(first === second)
  }

  @Test func oneTransformServesManyThreadsAtOnce() throws {
    let bytes = try Fixture.imageBytes("colour-p3.jpg")
    let reference = try ImagePipeline.thumbnailPixels(bytes).pixels
    let differing = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: 32) { _ in
      if (try? ImagePipeline.thumbnailPixels(bytes).pixels) != reference { differing.add(1, ordering: .relaxed) }
    }
    #expect(differing.load(ordering: .relaxed) == 0)
  }

  @Test(arguments: [
    (ColorDescription.nclx(primaries: 1, transfer: 13, matrix: 6, fullRange: true), "sRGB"),
    (.nclx(primaries: 12, transfer: 13, matrix: 6, fullRange: true), "Display P3"),
    (.nclx(primaries: 9, transfer: 14, matrix: 9, fullRange: false), "Rec. 2020"),
    (.png(sRGBIntent: nil, gamma: 1.0, chromaticities: nil), "sRGB, gamma 1.00"),
    (.png(sRGBIntent: 0, gamma: nil, chromaticities: nil), "sRGB"),
  ])
  func descriptionsWithoutAProfileAreNamed(description: ColorDescription, name: String) {
    #expect(ColorManagement.name(of: description) == name)
  }

  @Test func aDisplayP3NCLXMatchesTheDisplayP3Profile() throws {
    // nclx 12/13 is Display P3: the same patch converts as through the ICC profile.
    let expected = try #require(ColourExpectations.values["colour-p3.jpg"])
    var pixels = PixelBuffer(width: 1, height: 1, channels: 3, pixels: [220, 60, 40])
    let warnings = ColorManagement.convertToSRGB(
      &pixels, from: .nclx(primaries: 12, transfer: 13, matrix: 6, fullRange: true))
    #expect(warnings.isEmpty)
    #expect(deltaE(centre(pixels), expected) < 1)
  }

  @Test func anHDRTransferIsAWarning() {
    var pixels = PixelBuffer(width: 1, height: 1, channels: 3, pixels: [100, 100, 100])
    let warnings = ColorManagement.convertToSRGB(
      &pixels, from: .nclx(primaries: 9, transfer: 16, matrix: 9, fullRange: false))
    #expect(warnings == ["an HDR picture (nclx transfer PQ) is shown without tone mapping"])
  }

  @Test func alphaIsKeptThroughTheTransform() throws {
    var pixels = PixelBuffer(width: 2, height: 1, channels: 4, pixels: [220, 60, 40, 10, 220, 60, 40, 200])
    let header = try ImagePipeline.readHeader(try Fixture.imageBytes("colour-p3.jpg"))
    _ = ColorManagement.convertToSRGB(&pixels, from: header.color)
    #expect(pixels.pixels[3] == 10 && pixels.pixels[7] == 200)
    let expected = try #require(ColourExpectations.values["colour-p3.jpg"])
    #expect(deltaE(pixels.pixels[0..<3].map(Double.init), expected) < 1)
  }
}
