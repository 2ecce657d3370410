import ImagePipeline
import Testing
import TestSupport

@Suite("Hostile and damaged input")
struct HostileInputTests {
  @Test(arguments: ["truncated-baseline.jpg", "truncated-progressive.jpg", "truncated-header.jpg"])
  func truncatedJPEGIsRefused(file: String) throws {
    let bytes = try Fixture.hostileBytes(file)
    do {
      _ = try ImagePipeline.thumbnail(bytes)
      Issue.record("\(file) was accepted")
    } catch {
      guard case .truncated(.jpeg, _) = error else {
        Issue.record("\(file): expected truncated, got \(error)")
        return
      }
      #expect(error.description.hasPrefix("truncated JPEG: the file ends before"))
      #expect(error.description.hasSuffix("(was it still being copied?)"))
    }
  }

  @Test(arguments: ["truncated-baseline.jpg", "truncated-progressive.jpg"])
  func lenientDecodingAcceptsATruncatedJPEG(file: String) throws {
    let processed = try ImagePipeline.thumbnail(try Fixture.hostileBytes(file), options: DecodeOptions(lenient: true))
    #expect(processed.thumbnail.width == 256)
    #expect(processed.warnings.contains { $0.contains("Premature end of JPEG file") })
  }

  @Test(arguments: ["truncated-idat.png", "truncated-header.png", "no-iend.png"])
  func truncatedPNGIsRefused(file: String) throws {
    #expect {
      try ImagePipeline.thumbnail(try Fixture.hostileBytes(file))
    } throws: { error in
      guard case .truncated(.png, _) = error as? ImageError else { return false }
      return true
    }
  }

  @Test func pngWithABadCRCIsRefused() throws {
    #expect {
      try ImagePipeline.thumbnail(try Fixture.hostileBytes("bad-crc.png"))
    } throws: { error in
      guard case .corrupt(.png, let detail) = error as? ImageError else { return false }
      return detail.contains("CRC")
    }
  }

  /// Every chunk CRC right, the zlib stream's Adler-32 wrong: refused by the strip decoder (an
  /// 8-bit RGB picture) and by libpng (an interlaced palette picture) alike, even leniently.
  @Test(arguments: ["bad-adler32.png", "bad-adler32-interlaced-palette.png"])
  func pngWithAWrongZlibChecksumIsRefused(file: String) throws {
    let bytes = try Fixture.hostileBytes(file)
    for options in [DecodeOptions(), DecodeOptions(lenient: true)] {
      #expect(throws: ImageError.corrupt(.png, detail: "its compressed image data is damaged (zlib checksum)")) {
        try ImagePipeline.thumbnail(bytes, options: options)
      }
    }
  }

  @Test func badCRCInAnAncillaryChunkIsOnlyAWarning() throws {
    let processed = try ImagePipeline.thumbnail(try Fixture.hostileBytes("bad-crc-ancillary.png"))
    #expect(processed.thumbnail.width > 0)
  }

  @Test(arguments: [
    ("huge-dimensions.jpg", 30000, 30000), ("huge-dimensions.png", 20000, 20000),
  ])
  func tooManyPixelsIsRefusedFromTheHeader(file: String, width: Int, height: Int) throws {
    let bytes = try Fixture.hostileBytes(file)
    #expect(throws: ImageError.tooManyPixels(width: width, height: height, budget: 100_000_000)) {
      try ImagePipeline.thumbnail(bytes)
    }
    #expect(throws: ImageError.tooManyPixels(width: width, height: height, budget: 100_000_000)) {
      try ImagePipeline.decode(bytes)
    }
  }

  @Test func pixelBudgetIsConfigurable() throws {
    let bytes = try Fixture.imageBytes("large-1600x1200.jpg")
    let options = DecodeOptions(pixelBudget: 1_000_000)
    #expect(throws: ImageError.tooManyPixels(width: 1600, height: 1200, budget: 1_000_000)) {
      try ImagePipeline.thumbnail(bytes, options: options)
    }
    #expect(
      ImageError.tooManyPixels(width: 1600, height: 1200, budget: 1_000_000).description
        == "too many pixels: 1600×1200 is 1.9 megapixels, over the budget of 1 megapixels")
    _ = try ImagePipeline.thumbnail(bytes, options: DecodeOptions(pixelBudget: 1600 * 1200))
  }

  @Test func decompressionBombCostsNoMoreThanItsPicture() throws {
    // The IDAT stream inflates to 64 MiB; the picture needs 10,100 bytes. The row reader stops
    // inflating when the picture is complete, and says there was more.
    let processed = try ImagePipeline.thumbnail(try Fixture.hostileBytes("decompression-bomb.png"))
    #expect(processed.thumbnail.width == 100 && processed.thumbnail.height == 100)
    #expect(processed.warnings == ["IDAT: Too much image data"])
  }

  @Test(arguments: ["tEXt", "zTXt", "iTXt", "sPLT", "pCAL", "sCAL"])
  func aChunkDeclaringAGigabyteIsATruncatedFile(chunk: String) throws {
    #expect {
      try ImagePipeline.thumbnail(try Fixture.hostileBytes("declared-huge-\(chunk).png"))
    } throws: { error in
      guard case .truncated(.png, let detail) = error as? ImageError else { return false }
      return detail.hasPrefix("the file ends before its image data does")
    }
  }

  @Test(arguments: ["ztxt-bomb.png", "itxt-bomb.png"])
  func inflatingChunksAreNeverInflated(file: String) throws {
    // Text that inflates to 64 MiB, in an otherwise sound picture: the chunks are skipped
    // unread and the picture decodes as rgb-8.png does.
    let decoded = try ImagePipeline.decode(try Fixture.hostileBytes(file))
    #expect(decoded.warnings.isEmpty)
    #expect(decoded.pixels == (try ImagePipeline.decode(try Fixture.imageBytes("rgb-8.png"))).pixels)
  }

  @Test func aProfileThatInflatesPastTheLimitIsIgnoredWithAWarning() throws {
    // An iCCP chunk that inflates to 64 MiB of zeros: its first four bytes declare a size of
    // 0, so inflating stops there, the profile is ignored, and the picture decodes as
    // rgb-8.png does.
    let decoded = try ImagePipeline.decode(try Fixture.hostileBytes("iccp-bomb.png"))
    #expect(
      decoded.warnings == ["the iCCP profile declares a size of 0 bytes, less than its header: it is ignored"])
    #expect(decoded.header.color == .untagged)
    #expect(decoded.pixels == (try ImagePipeline.decode(try Fixture.imageBytes("rgb-8.png"))).pixels)
  }

  @Test(arguments: ["garbage-in-scan.jpg", "extraneous-bytes.jpg"])
  func recoverableJPEGDamageIsAWarning(file: String) throws {
    let processed = try ImagePipeline.thumbnail(try Fixture.hostileBytes(file))
    #expect(!processed.warnings.isEmpty)
    #expect(processed.thumbnail.width > 0)
    #expect(processed.warnings.allSatisfy { !$0.contains("Premature end") })
  }

  @Test func aMissingDecoderIsNotCalledDamage() {
    // A sound HEIC on a machine without libheif (or without its HEVC plugin) is not "corrupt":
    // the message says what the machine lacks.
    let error = ImageError.decoderMissing(.heic, detail: "libheif cannot be loaded (x): install Debian's libheif1")
    #expect(
      error.description == "cannot decode HEIC on this machine: libheif cannot be loaded (x): install Debian's libheif1"
    )
  }
}
