import Foundation
import ImagePipeline
import Testing
import TestSupport

/// Pictures of several megabytes, far past what the import reads at a time: each is read once,
/// hashed, copied and decoded on the way, and what lands in the library is the file the user
/// gave, byte for byte, or nothing at all.
@Suite("Large pictures through attach")
struct LargePictureTests {
  /// 1500 × 1000 pixels of noise: a PNG of about 4.5 MB.
  static func noise() -> PixelBuffer {
    PixelBuffer(width: 1500, height: 1000, channels: 3, pixels: noiseBytes(count: 1500 * 1000 * 3))
  }

  /// The pictures, each written into `folder`: a PNG, and a JPEG followed by 300 KB that are not
  /// part of its picture (as some cameras append a preview after the end-of-image marker).
  static func pictures(in folder: TemporaryFolder) throws -> [String: [UInt8]] {
    let pixels = noise()
    var jpeg = try ImagePipeline.encodeJPEG(pixels, quality: 95)
    jpeg += (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let pictures = ["noise.png": try ImagePipeline.encodePNG(pixels), "noise-trailer.jpg": jpeg]
    for (name, bytes) in pictures {
      try Data(bytes).write(to: URL(fileURLWithPath: folder.file(name)))
    }
    return pictures
  }

  @Test func aLargePictureIsStoredByteForByte() throws {
    let cli = CLI()
    let id = try cli.withReview()
    for (name, bytes) in try Self.pictures(in: cli.folder) {
      #expect(bytes.count > 1_000_000, "\(name)")
      let result = try cli("attach", id, cli.folder.file(name))
      #expect(result.status == 0, "\(name): \(result.error)")
      let show = try cli.json(try cli("show", id, "--json"))
      let images = try #require(show["images"] as? [[String: Any]])
      let original = try #require(images.last?["original"] as? String, "\(name)")
      let stored = try Fixture.bytes(cli.library + "/" + original)
      // Compared as one answer: a failure printing megabytes of both would say no more.
      let same = stored == bytes
      #expect(same, "\(name): the stored original (\(stored.count) bytes) is not the file given")
      #expect(images.last?["bytes"] as? Int == bytes.count, "\(name)")
    }
    // `check` hashes every original again: each is named by, and recorded with, its SHA-256.
    let check = try cli("check")
    #expect(check.status == 0, "\(check.output) \(check.error)")
  }

  /// A picture cut off megabytes in: refused as a truncated file, and the library as it was,
  /// with no copy of the part read left in it (nor a folder made for it).
  @Test func aLargePictureCutOffLeavesTheLibraryAsItWas() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let bytes = try #require(try Self.pictures(in: cli.folder)["noise.png"])
    let cut = cli.folder.file("cut.png")
    try Data(bytes.prefix(3_000_000)).write(to: URL(fileURLWithPath: cut))
    // The first import makes the library's lock file, whatever becomes of its pictures.
    try #require(try cli("attach", id, Fixture.hostile("empty.jpg")).status == 1)
    let before = try HostileImportTests.hashes(cli.library)
    #expect(before["originals"] == nil)
    let result = try cli("attach", id, cut)
    #expect(result.status == 1)
    #expect(
      result.error
        == "error: \(cut): truncated PNG: the file ends before its image data does (was it still being copied?)\n")
    #expect(try HostileImportTests.hashes(cli.library) == before)
  }
}
