import Foundation
import Testing
import TestSupport

/// Every hostile fixture through `attach`: the exact error, exit status 1, and the library
/// folder byte-for-byte as it was.
@Suite("Hostile input leaves the library as it was")
struct HostileImportTests {
  static let refusals: [(file: String, error: String)] =
    [
      ("empty.jpg", "empty file: there is nothing to decode"),
      ("text.jpg", "not an image: the data is not JPEG, PNG, WebP, HEIC or AVIF (nor any other known image format)"),
      ("random.bin", "not an image: the data is not JPEG, PNG, WebP, HEIC or AVIF (nor any other known image format)"),
      ("picture.gif", "GIF is not supported yet: convert it to JPEG or PNG first"),
      ("picture-le.tif", "TIFF is not supported yet: convert it to JPEG or PNG first"),
      ("picture-be.tif", "TIFF is not supported yet: convert it to JPEG or PNG first"),
      ("picture.bmp", "BMP is not supported yet: convert it to JPEG or PNG first"),
      ("truncated-baseline.jpg", "truncated JPEG: the file ends before its image data does"),
      ("truncated-progressive.jpg", "truncated JPEG: the file ends before its image data does"),
      ("truncated-header.jpg", "truncated JPEG: the file ends before its image data does"),
      ("truncated-idat.png", "truncated PNG: the file ends before its image data does"),
      ("truncated-header.png", "truncated PNG: the file ends inside its IHDR header"),
      ("no-iend.png", "truncated PNG: the file ends before its IEND chunk"),
      ("bad-crc.png", "corrupt PNG: IDAT: CRC error"),
      ("bad-adler32.png", "corrupt PNG: its compressed image data is damaged (zlib checksum)"),
      ("bad-adler32-interlaced-palette.png", "corrupt PNG: its compressed image data is damaged (zlib checksum)"),
      ("huge-dimensions.jpg", "too many pixels: 30000×30000 is 900 megapixels, over the budget of 100 megapixels"),
      ("huge-dimensions.png", "too many pixels: 20000×20000 is 400 megapixels, over the budget of 100 megapixels"),
      ("webp-truncated-lossy.webp", "truncated WebP: the file ends inside its VP8 chunk (2555 of 5130 bytes)"),
      ("webp-truncated-lossless.webp", "truncated WebP: the file ends inside its VP8L chunk (12719 of 25458 bytes)"),
      ("webp-riff-size-past-end.webp", "truncated WebP: the RIFF header declares 4274 bytes, the file holds 178"),
      ("webp-garbage-after-header.webp", "corrupt WebP: the VP8L image data is damaged"),
      (
        "webp-huge-canvas.webp",
        "too many pixels: 100000×100000 is 10000 megapixels, over the budget of 100 megapixels"
      ),
      (
        "webp-iccp-declared-huge.webp",
        "corrupt WebP: the ICCP chunk declares 2147483632 bytes, past the end of the RIFF container"
      ),
      ("heic-truncated.heic", "truncated HEIC: the file ends before its image data does"),
      ("heic-truncated-header.heic", "truncated HEIC: the file ends before its meta box does"),
      ("avif-truncated.avif", "truncated AVIF: the file ends before its meta box does"),
      ("heic-garbage-after-ftyp.heic", "corrupt HEIC: Invalid input: No 'meta' box"),
      ("heic-damaged-meta.heic", "corrupt HEIC: Invalid input: No 'meta' box"),
      (
        "heic-huge-dimensions.heic",
        "too many pixels: 100000×100000 is 10000 megapixels, over the budget of 100 megapixels"
      ),
      ("avif-grid-loop.avif", "corrupt AVIF: the primary image is made of tiles that include itself (a dimg loop)"),
      (
        "avif-grid-huge-tiles.avif",
        "too many pixels: 20000×80000 is 1600 megapixels, over the budget of 100 megapixels"
      ),
      ("heic-ispe-zero.heic", "corrupt HEIC: the picture's size box (ispe) says 0×0, which no picture is"),
      ("avif-ispe-zero.avif", "corrupt AVIF: the picture's size box (ispe) says 0×0, which no picture is"),
      (
        "heic-ispe-larger.heic",
        "corrupt HEIC: the picture's size box (ispe) says 240×160 but its coded picture is 120×80"
      ),
      (
        "heic-ispe-smaller.heic",
        "corrupt HEIC: the picture's size box (ispe) says 60×40 but its coded picture is 120×80"
      ),
      ("avif-ispe-larger.avif", "corrupt AVIF: the picture's size box (ispe) says 240×160 but it decodes to 120×80"),
      (
        "avif-grid-ispe-larger.avif",
        "corrupt AVIF: the picture's size box (ispe) says 512×256 but its coded picture is 256×128"
      ),
      (
        "heic-thumbnail-ispe-larger.heic",
        "corrupt HEIC: the picture's size box (ispe) says 960×640 but its coded picture is 480×320"
      ),
    ]
    + memoryBombs.filter { $0.hasPrefix("declared-huge-") }.map {
      ($0, "truncated PNG: the file ends before its image data does")
    }

  /// Small PNGs whose chunks would make a careless reader allocate or inflate far more than the
  /// picture needs: a chunk declaring 1 GiB in a file of 81 bytes, text and a profile that
  /// inflate to 64 MiB, image data that does.
  static let memoryBombs =
    ["tEXt", "zTXt", "iTXt", "sPLT", "pCAL", "sCAL"].map { "declared-huge-\($0).png" } + [
      "ztxt-bomb.png", "itxt-bomb.png", "iccp-bomb.png", "decompression-bomb.png",
    ]

  /// Every file below `folder` with its bytes (and every folder, as nil).
  static func hashes(_ folder: String) throws -> [String: Data?] {
    var result: [String: Data?] = [:]
    let enumerator = FileManager.default.enumerator(atPath: folder)
    while let relative = enumerator?.nextObject() as? String {
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: folder + "/" + relative, isDirectory: &isFolder)
      result[relative] = isFolder.boolValue ? nil : try Data(contentsOf: URL(fileURLWithPath: folder + "/" + relative))
    }
    return result
  }

  @Test func everyHostileFixtureIsRefusedAndChangesNothing() throws {
    let cli = CLI()
    let id = try cli.withReview()
    try #require(try cli("attach", id, Fixture.image("baseline.jpg")).status == 0)
    // Every hostile fixture is either refused below or known to decode (with warnings).
    let decodable: Set<String> = [
      "garbage-in-scan.jpg", "extraneous-bytes.jpg", "bad-crc-ancillary.png", "exif-ifd-loop.jpg",
      "exif-offset-out-of-bounds.jpg", "exif-count-huge.jpg", "exif-truncated.jpg",
      "exif-orientation-9.jpg", "exif-bad-byte-order.jpg", "ztxt-bomb.png", "itxt-bomb.png", "iccp-bomb.png",
      "decompression-bomb.png", "picture.webp", "webp-iccp-garbage.webp", "webp-icc-flag-without-chunk.webp",
      "picture.heic", "picture.avif", "avif-nclx-unknown-primaries.avif",
      // Broken colour profiles: ignored with a warning, the picture kept (see ColorTests).
      "icc-segments-out-of-order.jpg", "icc-segment-missing.jpg", "icc-segment-repeated.jpg", "icc-garbage.jpg",
      "icc-truncated.jpg", "icc-declared-huge.jpg", "iccp-truncated.png",
    ]
    let all = try FileManager.default.contentsOfDirectory(atPath: Fixture.root.appendingPathComponent("hostile").path)
    #expect(Set(all) == Set(Self.refusals.map(\.file)).union(decodable))
    for (file, error) in Self.refusals {
      let before = try Self.hashes(cli.library)
      let result = try cli("attach", id, Fixture.hostile(file))
      #expect(result.status == 1, "\(file)")
      let lines = result.error.split(separator: "\n").map(String.init)
      #expect(lines.count == 1, "\(file): \(lines)")
      #expect(lines.first?.hasPrefix("error: \(Fixture.hostile(file)): \(error)") == true, "\(file): \(lines)")
      #expect(try Self.hashes(cli.library) == before, "\(file) changed the library")
    }
  }

  /// A HEIC whose size box says 0×0 (libheif decodes its 120×80 picture all the same) was
  /// recorded as 0×0 with a 1×1 thumbnail, and `check` failed from then on. It is refused as
  /// every damaged picture is, and `check` stays healthy; with a thumbnail size that a stored
  /// preview would cover, a picture whose size box lies is refused too.
  @Test(arguments: ["heic-ispe-zero.heic", "heic-thumbnail-ispe-larger.heic"])
  func aPictureWhoseSizeBoxLiesIsRefusedAndCheckStaysHealthy(file: String) throws {
    let cli = CLI()
    let id = try cli.withReview()
    try #require(try cli("attach", id, Fixture.image("heic-8bit.heic")).status == 0)
    // A thumbnail of 60 pixels would be made from heic-thumbnail-ispe-larger.heic's preview.
    try #require(try cli("thumbnails", "--rebuild", "--size", "60").status == 0)
    let before = try Self.hashes(cli.library)
    let result = try cli("attach", id, Fixture.hostile(file))
    #expect(result.status == 1)
    #expect(
      result.error.hasPrefix("error: \(Fixture.hostile(file)): corrupt HEIC: the picture's size box (ispe) says "))
    #expect(result.error.split(separator: "\n").count == 1, "\(result.error)")
    #expect(try Self.hashes(cli.library) == before, "the library changed")
    let check = try cli("check")
    #expect(check.status == 0, "\(check.output) \(check.error)")
  }

  /// No PNG under 1 MB makes `attach` use more than 64 MiB, whatever its chunks declare. The
  /// peak resident size of the command is read by Python's `resource` module, which waits for
  /// it alone.
  @Test(arguments: memoryBombs)
  func aSmallPNGCannotMakeAttachUseMuchMemory(file: String) throws {
    let cli = CLI()
    let id = try cli.withReview()
    let path = Fixture.hostile(file)
    #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? .max < 1_000_000)
    let measure = """
      import resource, subprocess, sys
      done = subprocess.run(sys.argv[1:], capture_output=True)
      print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
      """
    let result = try cli.run(
      ["-c", measure, CLI.executable, "--library", cli.library, "attach", id, path], executable: "/usr/bin/python3")
    let fields = result.output.split(separator: " ").compactMap {
      Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    try #require(fields.count == 2, "\(result.output) \(result.error)")
    let (status, kilobytes) = (fields[0], fields[1])
    #expect(status == (file.hasPrefix("declared-huge-") ? 1 : 0), "\(file): exit \(status)")
    #expect(kilobytes <= 64 * 1024, "\(file): attach peaked at \(kilobytes / 1024) MiB")
  }
}
