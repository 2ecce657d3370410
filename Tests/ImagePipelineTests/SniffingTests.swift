import ImagePipeline
import Testing
import TestSupport

@Suite("Recognising formats from bytes")
struct SniffingTests {
  @Test(arguments: [
    ("picture.gif", ImageFormat.gif), ("picture-le.tif", .tiff), ("picture-be.tif", .tiff),
    ("picture.bmp", .bmp),
  ])
  func unsupportedFormatsAreRefusedByName(file: String, format: ImageFormat) throws {
    let bytes = try Fixture.hostileBytes(file)
    #expect(throws: ImageError.unsupported(format)) { try ImagePipeline.thumbnail(bytes) }
    let message = ImageError.unsupported(format).description
    #expect(message == "\(format.name) is not supported yet: convert it to JPEG or PNG first")
  }

  @Test func emptyFileIsRefused() throws {
    #expect(throws: ImageError.empty) { try ImagePipeline.thumbnail(try Fixture.hostileBytes("empty.jpg")) }
  }

  @Test(arguments: ["text.jpg", "random.bin"])
  func bytesThatAreNoImageAreRefused(file: String) throws {
    let bytes = try Fixture.hostileBytes(file)
    #expect(throws: ImageError.notAnImage) { try ImagePipeline.thumbnail(bytes) }
  }

  @Test func theNameDoesNotDecide() throws {
    // A PNG named .jpg is a PNG.
    let header = try ImagePipeline.readHeader(try Fixture.imageBytes("rgb-8.png"))
    #expect(header.format == .png)
    let bytes = try Fixture.imageBytes("baseline.jpg")
    #expect(bytes.withUnsafeBytes { Sniffer.format(of: $0) } == .jpeg)
  }
}
