import ImagePipeline
import Testing
import TestSupport

@Suite("EXIF orientation makes every thumbnail upright")
struct OrientationTests {
  @Test(arguments: 1...8)
  func thumbnailIsUpright(value: Int) throws {
    let processed = try ImagePipeline.thumbnail(try Fixture.imageBytes("orientation-\(value).jpg"))
    #expect(processed.header.orientation.rawValue == value)
    #expect(processed.thumbnail.width == 120 && processed.thumbnail.height == 80)
    let pixels = try ImagePipeline.decode(processed.thumbnail.bytes).pixels
    #expect(pixels.width == 120 && pixels.height == 80)
    expectQuadrants(pixels, tolerance: 16, "orientation \(value)")
  }

  @Test(arguments: 1...8)
  func orientingStoredPixelsGivesTheUprightPicture(value: Int) throws {
    let decoded = try ImagePipeline.decode(try Fixture.imageBytes("orientation-\(value).jpg"))
    let upright = decoded.pixels.oriented(decoded.header.orientation)
    #expect(upright.width == 120 && upright.height == 80)
    expectQuadrants(upright, tolerance: 16, "orientation \(value)")
  }

  @Test(arguments: ["orientation-6-intel.jpg", "orientation-3-intel.jpg", "orientation-6.png"])
  func otherContainersAndByteOrders(file: String) throws {
    let processed = try ImagePipeline.thumbnail(try Fixture.imageBytes(file))
    let pixels = try ImagePipeline.decode(processed.thumbnail.bytes).pixels
    #expect(pixels.width == 120 && pixels.height == 80)
    expectQuadrants(pixels, tolerance: 16, "\(file)")
  }

  @Test func thumbnailCarriesNoEXIF() throws {
    let processed = try ImagePipeline.thumbnail(try Fixture.imageBytes("orientation-6.jpg"))
    let header = try ImagePipeline.readHeader(processed.thumbnail.bytes)
    #expect(header.orientation == .up)
    let exif: [UInt8] = Array("Exif".utf8)
    let bytes = processed.thumbnail.bytes
    let hasExif = (0..<(bytes.count - exif.count)).contains { Array(bytes[$0..<$0 + exif.count]) == exif }
    #expect(!hasExif)
  }

  @Test func everyOrientationOfAnAsymmetricBuffer() {
    // A 3 × 2 picture with distinct values shows exactly where each pixel goes.
    let stored = PixelBuffer(
      width: 3, height: 2, channels: 3, pixels: (0..<6).flatMap { [UInt8($0), 0, 0] })
    func values(_ image: PixelBuffer) -> [UInt8] {
      stride(from: 0, to: image.pixels.count, by: 3).map { image.pixels[$0] }
    }
    // Stored rows: [0 1 2] [3 4 5].
    #expect(values(stored.oriented(.up)) == [0, 1, 2, 3, 4, 5])
    #expect(values(stored.oriented(.upMirrored)) == [2, 1, 0, 5, 4, 3])
    #expect(values(stored.oriented(.down)) == [5, 4, 3, 2, 1, 0])
    #expect(values(stored.oriented(.downMirrored)) == [3, 4, 5, 0, 1, 2])
    #expect(values(stored.oriented(.leftMirrored)) == [0, 3, 1, 4, 2, 5])
    #expect(values(stored.oriented(.right)) == [3, 0, 4, 1, 5, 2])
    #expect(values(stored.oriented(.rightMirrored)) == [5, 2, 4, 1, 3, 0])
    #expect(values(stored.oriented(.left)) == [2, 5, 1, 4, 0, 3])
    #expect(stored.oriented(.right).width == 2 && stored.oriented(.right).height == 3)
  }
}
