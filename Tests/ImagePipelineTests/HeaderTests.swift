import ImagePipeline
import Testing
import TestSupport

@Suite("Reading headers without decoding")
struct HeaderTests {
  @Test func baselineJPEG() throws {
    let header = try ImagePipeline.readHeader(try Fixture.imageBytes("baseline.jpg"))
    #expect(header.format == .jpeg)
    #expect(header.width == 120 && header.height == 80)
    #expect(header.colorModel == .ycbcr)
    #expect(header.bitDepth == 8)
    #expect(!header.hasAlpha)
    #expect(header.orientation == .up)
    #expect(!header.isProgressive)
  }

  @Test(arguments: [
    ("progressive.jpg", ImageHeader.ColorModel.ycbcr, true),
    ("grayscale.jpg", .gray, false),
    ("cmyk-adobe.jpg", .cmyk, false),
    ("ycck-adobe.jpg", .ycck, false),
  ])
  func jpegColourModels(file: String, model: ImageHeader.ColorModel, progressive: Bool) throws {
    let header = try ImagePipeline.readHeader(try Fixture.imageBytes(file))
    #expect(header.colorModel == model)
    #expect(header.isProgressive == progressive)
    #expect(header.width == 120 && header.height == 80)
  }

  @Test(arguments: [
    ("rgb-8.png", ImageHeader.ColorModel.rgb, 8, false, false),
    ("rgb-16.png", .rgb, 16, false, false),
    ("rgba-8.png", .rgba, 8, true, false),
    ("rgba-16.png", .rgba, 16, true, false),
    ("gray-1.png", .gray, 1, false, false),
    ("gray-2.png", .gray, 2, false, false),
    ("gray-4.png", .gray, 4, false, false),
    ("gray-8.png", .gray, 8, false, false),
    ("gray-16.png", .gray, 16, false, false),
    ("gray-alpha-8.png", .grayAlpha, 8, true, false),
    ("gray-alpha-16.png", .grayAlpha, 16, true, false),
    ("palette-1.png", .palette, 1, false, false),
    ("palette-2.png", .palette, 2, false, false),
    ("palette-4.png", .palette, 4, false, false),
    ("palette-8.png", .palette, 8, false, false),
    ("palette-trns.png", .palette, 8, true, false),
    ("rgb-trns.png", .rgb, 8, true, false),
    ("gray-trns.png", .gray, 8, true, false),
    ("interlaced.png", .rgb, 8, false, true),
    ("interlaced-rgba-16.png", .rgba, 16, true, true),
  ])
  func pngColourTypes(
    file: String, model: ImageHeader.ColorModel, depth: Int, alpha: Bool, interlaced: Bool
  ) throws {
    let header = try ImagePipeline.readHeader(try Fixture.imageBytes(file))
    #expect(header.format == .png)
    #expect(header.colorModel == model)
    #expect(header.bitDepth == depth)
    #expect(header.hasAlpha == alpha)
    #expect(header.isProgressive == interlaced)
    #expect(header.width == 120 && header.height == 80)
  }

  @Test(arguments: 1...8)
  func exifOrientation(value: Int) throws {
    let header = try ImagePipeline.readHeader(try Fixture.imageBytes("orientation-\(value).jpg"))
    #expect(header.orientation.rawValue == value)
    #expect(header.uprightWidth == 120 && header.uprightHeight == 80)
    #expect(header.width == (value >= 5 ? 80 : 120))
  }

  @Test(arguments: ["orientation-6-intel.jpg", "orientation-3-intel.jpg"])
  func littleEndianEXIF(file: String) throws {
    let header = try ImagePipeline.readHeader(try Fixture.imageBytes(file))
    #expect(header.orientation.rawValue == (file.contains("-6-") ? 6 : 3))
  }

  @Test func pngEXIFChunk() throws {
    let header = try ImagePipeline.readHeader(try Fixture.imageBytes("orientation-6.png"))
    #expect(header.orientation == .right)
    #expect(header.uprightWidth == 120 && header.uprightHeight == 80)
  }

  @Test(arguments: [
    "exif-ifd-loop.jpg", "exif-offset-out-of-bounds.jpg", "exif-count-huge.jpg",
    "exif-truncated.jpg", "exif-orientation-9.jpg", "exif-bad-byte-order.jpg",
  ])
  func malformedEXIFMeansUprightAndStillDecodes(file: String) throws {
    let bytes = try Fixture.hostileBytes(file)
    let header = try ImagePipeline.readHeader(bytes)
    #expect(header.orientation == .up)
    let processed = try ImagePipeline.thumbnail(bytes)
    #expect(processed.thumbnail.width == 120 && processed.thumbnail.height == 80)
    expectQuadrants(try ImagePipeline.decode(processed.thumbnail.bytes).pixels)
  }
}
