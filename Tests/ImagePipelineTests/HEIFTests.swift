@testable import ImagePipeline
import Testing
import TestSupport

/// HEIC and AVIF through libheif (see Fixtures/README.md, "HEIF"): what a user would notice.
@Suite("HEIC and AVIF")
struct HEIFTests {
  /// Every valid fixture shows the upright quadrants: transforms (irot, imir) applied once by
  /// libheif, an EXIF orientation inside the file never applied again, 10- and 12-bit samples
  /// brought to 8 bits, nclx matrices honoured, grid tiles assembled.
  @Test(arguments: [
    "heic-8bit.heic", "heic-10bit.heic", "heic-exif-orientation-6.heic", "avif-8bit.avif", "avif-10bit.avif",
    "avif-12bit.avif", "avif-irot-1.avif", "avif-imir-0.avif", "avif-imir-1.avif", "avif-exif-orientation-6.avif",
    "avif-irot-exif-6.avif", "avif-icc.avif", "avif-nclx.avif", "avif-grid-2x2.avif",
  ])
  func decodesTheUprightQuadrants(file: String) throws {
    let bytes = try Fixture.imageBytes(file)
    let (width, height) = file.contains("grid") ? (256, 128) : (120, 80)
    let image = try ImagePipeline.decode(bytes)
    #expect(image.header.orientation == .up)
    #expect((image.header.width, image.header.height) == (width, height))
    #expect((image.pixels.width, image.pixels.height, image.pixels.channels) == (width, height, 3))
    expectQuadrants(image.pixels, tolerance: 4, "\(file)")
    // The thumbnail path orients by the header: still upright, still once.
    let thumbnail = try ImagePipeline.thumbnailPixels(bytes, spec: ThumbnailSpec(longestEdge: 60))
    #expect((thumbnail.pixels.width, thumbnail.pixels.height) == (60, 60 * height / width))
    expectQuadrants(thumbnail.pixels, tolerance: 4, "\(file) thumbnail")
  }

  /// The files that `make-fixtures.sh` writes with ImageMagick, once refused as unsupported.
  /// (A thumbnail never enlarges: 120 × 80 stays 120 × 80.)
  @Test(arguments: [("picture.heic", ImageFormat.heic), ("picture.avif", .avif)])
  func imageMagicksFilesDecode(file: String, format: ImageFormat) throws {
    let image = try ImagePipeline.decode(try Fixture.hostileBytes(file))
    #expect(image.header.format == format)
    expectQuadrants(image.pixels, tolerance: 4, "\(file)")
    let thumbnail = try ImagePipeline.thumbnail(try Fixture.hostileBytes(file))
    #expect((thumbnail.thumbnail.format, thumbnail.thumbnail.width, thumbnail.thumbnail.height) == (.jpeg, 120, 80))
  }

  @Test(arguments: [
    ("heic-8bit.heic", ImageFormat.heic, 8), ("heic-10bit.heic", .heic, 10), ("avif-8bit.avif", .avif, 8),
    ("avif-10bit.avif", .avif, 10), ("avif-12bit.avif", .avif, 12),
  ])
  func headerReportsFormatAndLumaBits(file: String, format: ImageFormat, bits: Int) throws {
    let header = try ImagePipeline.readHeader(try Fixture.imageBytes(file))
    #expect(header.format == format)
    #expect(header.bitDepth == bits)
    #expect((header.width, header.height, header.hasAlpha, header.orientation) == (120, 80, false, .up))
    #expect(header.colorModel == .ycbcr)
  }

  /// irot turns 80 × 120 stored samples into a 120 × 80 picture: the header says 120 × 80, `.up`.
  @Test func headerSizeIsAfterTheFilesTransforms() throws {
    let header = try ImagePipeline.readHeader(try Fixture.imageBytes("avif-irot-1.avif"))
    #expect((header.width, header.height, header.orientation) == (120, 80, .up))
    // EXIF says 6 (turn 90°) but the file's pixels are shown as stored.
    let exif = try ImagePipeline.readHeader(try Fixture.imageBytes("heic-exif-orientation-6.heic"))
    #expect((exif.width, exif.height, exif.orientation, exif.uprightWidth) == (120, 80, .up, 120))
  }

  @Test func colourDescriptions() throws {
    // heif-enc writes no colr box.
    #expect(try ImagePipeline.readHeader(try Fixture.imageBytes("heic-8bit.heic")).color == .untagged)
    // avifenc writes nclx: BT.709 primaries, sRGB transfer, BT.601 matrix unless told.
    #expect(
      try ImagePipeline.readHeader(try Fixture.imageBytes("avif-8bit.avif")).color
        == .nclx(primaries: 1, transfer: 13, matrix: 6, fullRange: true))
    #expect(
      try ImagePipeline.readHeader(try Fixture.imageBytes("avif-nclx.avif")).color
        == .nclx(primaries: 1, transfer: 13, matrix: 1, fullRange: true))
    let icc = try ImagePipeline.readHeader(try Fixture.imageBytes("avif-icc.avif"))
    guard case .icc(let profile) = icc.color else {
      Issue.record("expected an ICC profile, got \(icc.color)")
      return
    }
    // compatibleWithAdobeRGB1998.icc (icc-profiles-free): 580 bytes, its size in its header.
    #expect(profile.count == 580)
    #expect(Array(profile.prefix(4)) == [0, 0, 0x02, 0x44])
    #expect(String(decoding: profile[36..<40], as: UTF8.self) == "acsp")
    #expect(icc.colorWarnings.isEmpty)
  }

  @Test(
    .timeLimit(.minutes(1)),
    arguments: ["heic-alpha.heic", "avif-alpha.avif"])
  func alphaIsStraightAndKept(file: String) throws {
    let image = try ImagePipeline.decode(try Fixture.imageBytes(file))
    #expect(image.header.hasAlpha)
    #expect(image.pixels.channels == 4)
    let centres = Quadrants.centres(width: 120, height: 80)
    let alphas = centres.map { image.pixels[$0.x, $0.y][3] }
    #expect(close(alphas, [255, 170, 85, 0], tolerance: 2), "\(alphas)")
    // Straight alpha: the colours of the translucent quadrants are not darkened.
    for index in 0..<3 {
      let colour = Array(image.pixels[centres[index].x, centres[index].y].prefix(3))
      #expect(close(colour, Quadrants.corners[index], tolerance: 4), "quadrant \(index): \(colour)")
    }
    #expect(try ImagePipeline.thumbnail(try Fixture.imageBytes(file)).thumbnail.format == .png)
  }

  // MARK: - The stored thumbnail (preview)

  /// `heic-thumbnail.heic`: 480 × 320, with a 120 × 80 thumbnail.
  private func decodeThumbnailFixture(minimum: (width: Int, height: Int)?, allowsPreview: Bool) throws -> (
    DecodeReport, PixelBuffer
  ) {
    let bytes = try Fixture.imageBytes("heic-thumbnail.heic")
    let collector = PixelCollector()
    let report = try bytes.withUnsafeBytes { (raw) throws(ImageError) in
      try HEIFCodec.decode(
        raw, options: DecodeOptions(),
        request: { _ in DecodeRequest(minimum: minimum, target: nil, allowsPreview: allowsPreview) },
        into: collector)
    }
    return (report, try #require(collector.buffer()))
  }

  /// `minimum` is the thumbnail's size times the shrink-on-load margin (2): 240 × 160 asks for a
  /// 120 × 80 thumbnail, which the 120 × 80 preview covers.
  @Test func previewStandsInWhenItCoversTheThumbnail() throws {
    let (report, pixels) = try decodeThumbnailFixture(minimum: (240, 160), allowsPreview: true)
    #expect(report.usedPreview)
    #expect(report.scale == 4)
    #expect((report.header.width, report.header.height) == (480, 320))
    #expect((pixels.width, pixels.height) == (120, 80))
    expectQuadrants(pixels, tolerance: 4)
  }

  /// A thumbnail one pixel wider than the preview: the picture is decoded.
  @Test func previewSmallerThanTheThumbnailIsNotUsed() throws {
    let (report, pixels) = try decodeThumbnailFixture(minimum: (242, 160), allowsPreview: true)
    #expect(!report.usedPreview)
    #expect(report.scale == 1)
    #expect((pixels.width, pixels.height) == (480, 320))
  }

  @Test func checksNeverUseThePreview() throws {
    let (report, pixels) = try decodeThumbnailFixture(minimum: (1, 1), allowsPreview: false)
    #expect(!report.usedPreview)
    #expect((pixels.width, pixels.height) == (480, 320))
    // The public decode is the check's path: the picture itself, whatever the size asked.
    let image = try ImagePipeline.decode(try Fixture.imageBytes("heic-thumbnail.heic"), minimumSize: (10, 10))
    #expect((image.pixels.width, image.pixels.height, image.scaleDenominator) == (480, 320, 1))
  }

  /// Through the thumbnail path: the stored 120 × 80 preview makes a 120-pixel thumbnail (and
  /// any smaller); a 121-pixel one is made from the picture.
  @Test func thumbnailsUseThePreviewByTheRule() throws {
    let bytes = try Fixture.imageBytes("heic-thumbnail.heic")
    let small = try ImagePipeline.thumbnailPixels(bytes, spec: ThumbnailSpec(longestEdge: 60))
    #expect(small.scaleDenominator == 4)
    #expect((small.pixels.width, small.pixels.height) == (60, 40))
    expectQuadrants(small.pixels, tolerance: 4)
    let same = try ImagePipeline.thumbnailPixels(bytes, spec: ThumbnailSpec(longestEdge: 120))
    #expect(same.scaleDenominator == 4)
    #expect((same.pixels.width, same.pixels.height) == (120, 80))
    let larger = try ImagePipeline.thumbnailPixels(bytes, spec: ThumbnailSpec(longestEdge: 121))
    #expect(larger.scaleDenominator == 1)
    expectQuadrants(larger.pixels, tolerance: 4)
  }

  /// A transparent picture whose stored thumbnail is opaque: the preview would lose the
  /// transparency, so the picture is decoded however small the thumbnail.
  @Test func anOpaquePreviewDoesNotStandInForATransparentPicture() throws {
    let bytes = try Fixture.imageBytes("heic-thumbnail-no-alpha.heic")
    let processed = try ImagePipeline.thumbnailPixels(bytes, spec: ThumbnailSpec(longestEdge: 32))
    #expect(processed.scaleDenominator == 1)
    #expect(processed.pixels.channels == 4)
    #expect(try ImagePipeline.thumbnail(bytes, spec: ThumbnailSpec(longestEdge: 32)).thumbnail.format == .png)
  }

  // MARK: - Clean aperture, rotation and mirroring

  /// Every rotation (`irot` 0, 90, 180, 270) with no mirroring and with either axis (`imir`),
  /// after an off-centre clean aperture (`clap`), in HEIC and AVIF (Fixtures/README.md).
  static let transformed: [String] = ["heic", "avif"].flatMap { format in
    [0, 90, 180, 270].flatMap { angle in
      ["", "-imir0", "-imir1"].map { "\(format)-clap-irot\(angle)\($0).\(format)" }
    }
  }

  /// What libheif shows (heif-convert, Fixtures/tools/verify.sh): the quadrants, 120 × 80, to
  /// their corners, with none of the grey frame the aperture leaves out; in the header, the
  /// decoded picture and the thumbnail.
  @Test(arguments: transformed)
  func cropTurnAndMirrorShowWhatLibheifShows(file: String) throws {
    let bytes = try Fixture.imageBytes(file)
    let header = try ImagePipeline.readHeader(bytes)
    #expect((header.width, header.height, header.orientation) == (120, 80, .up))
    let image = try ImagePipeline.decode(bytes)
    #expect((image.pixels.width, image.pixels.height) == (120, 80))
    expectQuadrantsToTheCorners(image.pixels, inset: 3, tolerance: 8, "\(file)")
    let thumbnail = try ImagePipeline.thumbnailPixels(bytes, spec: ThumbnailSpec(longestEdge: 60))
    #expect((thumbnail.pixels.width, thumbnail.pixels.height) == (60, 40))
    expectQuadrantsToTheCorners(thumbnail.pixels, inset: 2, tolerance: 12, "\(file) thumbnail")
  }

  /// A stored thumbnail without the picture's transforms shows the coded samples: framed in
  /// grey, turned and mirrored, in the picture's proportions (72 × 48 for 120 × 80). It must
  /// not stand in, however small the thumbnail asked for: the picture is decoded.
  @Test func aPreviewWithoutThePicturesTransformsDoesNotStandIn() throws {
    let bytes = try Fixture.imageBytes("heic-clap-irot180-imir1-preview-untransformed.heic")
    let thumbnail = try ImagePipeline.thumbnailPixels(bytes, spec: ThumbnailSpec(longestEdge: 30))
    #expect(thumbnail.scaleDenominator == 1)
    #expect((thumbnail.pixels.width, thumbnail.pixels.height) == (30, 20))
    expectQuadrantsToTheCorners(thumbnail.pixels, inset: 1, tolerance: 16)
  }

  /// A stored thumbnail with the picture's transforms (its aperture halved with it) shows the
  /// picture, and stands in for it by the usual rule.
  @Test func aPreviewWithThePicturesTransformsStandsIn() throws {
    let bytes = try Fixture.imageBytes("heic-clap-irot90-imir0-preview.heic")
    let thumbnail = try ImagePipeline.thumbnailPixels(bytes, spec: ThumbnailSpec(longestEdge: 30))
    #expect(thumbnail.scaleDenominator == 2)
    #expect((thumbnail.pixels.width, thumbnail.pixels.height) == (30, 20))
    expectQuadrantsToTheCorners(thumbnail.pixels, inset: 1, tolerance: 16)
    // Too small for a 61-pixel thumbnail: the picture.
    let larger = try ImagePipeline.thumbnailPixels(bytes, spec: ThumbnailSpec(longestEdge: 61))
    #expect(larger.scaleDenominator == 1)
    expectQuadrantsToTheCorners(larger.pixels, inset: 2, tolerance: 12)
  }

  /// The boxes' reading of the transforms, which decides the preview.
  @Test func theBoxesTellEachImagesTransforms() throws {
    let plain = try Fixture.imageBytes("heic-clap-irot180-imir1-preview-untransformed.heic").withUnsafeBytes {
      HEIFBoxes.read($0)
    }
    let primary = try #require(plain.primary)
    let steps = try #require(plain.transforms[primary])
    #expect(steps.count == 3)
    // 120 × 80 of 144 × 96, its centre 4 right of and 4 above the picture's: from (16, 4).
    let aperture = HEIFBoxes.Transform.crop(left: 16.0 / 144, top: 4.0 / 96, width: 120.0 / 144, height: 80.0 / 96)
    #expect(steps[0].matches(aperture))
    #expect(steps[1].matches(.rotation(2)) && steps[2].matches(.mirror(1)))
    let thumbnails = plain.transforms.keys.filter { $0 != primary }
    #expect(thumbnails.isEmpty)
    #expect(!plain.transformsMatchThePrimary(primary + 1))

    let same = try Fixture.imageBytes("heic-clap-irot90-imir0-preview.heic").withUnsafeBytes { HEIFBoxes.read($0) }
    let others = same.transforms.keys.filter { $0 != same.primary }
    #expect(others.count == 1)
    #expect(others.allSatisfy { same.transformsMatchThePrimary($0) })
  }

  /// libheif decodes the whole coded picture before cropping it to its aperture: the pixel
  /// budget covers the coded size (144 × 96 here), not only the 120 × 80 shown.
  @Test func theBudgetCoversTheCodedPictureACleanApertureCrops() throws {
    let bytes = try Fixture.imageBytes("heic-clap-irot0.heic")
    let budget = DecodeOptions(pixelBudget: 12_000)
    #expect(throws: ImageError.tooManyPixels(width: 144, height: 96, budget: 12_000)) {
      try ImagePipeline.decode(bytes, options: budget)
    }
    #expect(throws: ImageError.tooManyPixels(width: 144, height: 96, budget: 12_000)) {
      try ImagePipeline.thumbnail(bytes, options: budget)
    }
    #expect(try ImagePipeline.decode(bytes, options: DecodeOptions(pixelBudget: 144 * 96)).pixels.width == 120)
  }

  /// The quadrants at their centres and `inset` pixels from each corner.
  private func expectQuadrantsToTheCorners(
    _ pixels: PixelBuffer, inset: Int, tolerance: Int, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    expectQuadrants(pixels, tolerance: tolerance, comment, sourceLocation: sourceLocation)
    let right = pixels.width - 1 - inset
    let bottom = pixels.height - 1 - inset
    let corners: [(x: Int, y: Int)] = [(inset, inset), (right, inset), (inset, bottom), (right, bottom)]
    for (index, corner) in corners.enumerated() {
      let colour = Array(pixels[corner.x, corner.y].prefix(3))
      let expected = Quadrants.corners[index]
      let note = comment.map { " — \($0)" } ?? ""
      #expect(
        close(colour, expected, tolerance: tolerance),
        "corner \(index) at \(corner) is \(colour), expected \(expected)\(note)", sourceLocation: sourceLocation)
    }
  }

  // MARK: - Hostile input

  @Test(
    .timeLimit(.minutes(1)),
    arguments: [
      ("heic-truncated-header.heic", ImageError.truncated(.heic, detail: "the file ends before its meta box does")),
      ("avif-truncated.avif", .truncated(.avif, detail: "the file ends before its meta box does")),
      (
        "heic-truncated.heic",
        .truncated(
          .heic,
          detail: "the file ends before its image data does (Invalid input: Unexpected end of file: Extent in iloc box "
            + "references data outside of file bounds (points to file position 358))")
      ),
      ("heic-garbage-after-ftyp.heic", .corrupt(.heic, detail: "Invalid input: No 'meta' box")),
      ("heic-damaged-meta.heic", .corrupt(.heic, detail: "Invalid input: No 'meta' box")),
      ("heic-huge-dimensions.heic", .tooManyPixels(width: 100_000, height: 100_000, budget: 100_000_000)),
      // Four tiles of 20000 × 20000 (reported as if stacked) behind a 256 × 128 grid.
      ("avif-grid-huge-tiles.avif", .tooManyPixels(width: 20_000, height: 80_000, budget: 100_000_000)),
      // libheif 1.15 alone takes minutes on it (the time limit fails the test without the check).
      (
        "avif-grid-loop.avif",
        .corrupt(.avif, detail: "the primary image is made of tiles that include itself (a dimg loop)")
      ),
    ] + sizeBoxLies)
  func hostileFilesAreRefusedWithTheirCause(file: String, error: ImageError) throws {
    let bytes = try Fixture.hostileBytes(file)
    #expect(throws: error) { try ImagePipeline.thumbnail(bytes) }
    #expect(throws: error) { try ImagePipeline.decode(bytes) }
  }

  /// Files whose size box (`ispe`) is not the size of their coded picture, which libheif 1.15
  /// decodes whatever the box says (Fixtures/README.md): the size the header gives would be
  /// recorded, and `check` would find another.
  static let sizeBoxLies: [(String, ImageError)] = [
    ("heic-ispe-zero.heic", .corrupt(.heic, detail: "the picture's size box (ispe) says 0×0, which no picture is")),
    ("avif-ispe-zero.avif", .corrupt(.avif, detail: "the picture's size box (ispe) says 0×0, which no picture is")),
    (
      "heic-ispe-larger.heic",
      .corrupt(.heic, detail: "the picture's size box (ispe) says 240×160 but its coded picture is 120×80")
    ),
    (
      "heic-ispe-smaller.heic",
      .corrupt(.heic, detail: "the picture's size box (ispe) says 60×40 but its coded picture is 120×80")
    ),
    // The AV1 sequence header is not in the boxes: the decode tells.
    (
      "avif-ispe-larger.avif",
      .corrupt(.avif, detail: "the picture's size box (ispe) says 240×160 but it decodes to 120×80")
    ),
    (
      "avif-grid-ispe-larger.avif",
      .corrupt(.avif, detail: "the picture's size box (ispe) says 512×256 but its coded picture is 256×128")
    ),
    (
      "heic-thumbnail-ispe-larger.heic",
      .corrupt(.heic, detail: "the picture's size box (ispe) says 960×640 but its coded picture is 480×320")
    ),
  ]

  /// A size box that lies makes the header lie too, and the header is read without decoding
  /// (for the pixel budget); what the decode refuses is never recorded.
  @Test func theHeaderOfAnUnverifiedSizeIsOnlyWhatTheBoxSays() throws {
    let header = try ImagePipeline.readHeader(try Fixture.hostileBytes("heic-ispe-larger.heic"))
    #expect((header.width, header.height) == (240, 160))
    #expect(throws: ImageError.corrupt(.heic, detail: "the picture's size box (ispe) says 0×0, which no picture is")) {
      try ImagePipeline.readHeader(try Fixture.hostileBytes("heic-ispe-zero.heic"))
    }
  }

  /// A stored thumbnail whose own size box is right does not vouch for a picture whose box
  /// lies: with a thumbnail small enough for the preview, the picture is still refused.
  @Test func aPreviewDoesNotStandInForAPictureWhoseSizeIsWrong() throws {
    let bytes = try Fixture.hostileBytes("heic-thumbnail-ispe-larger.heic")
    #expect(throws: ImageError.self) { try ImagePipeline.thumbnail(bytes, spec: ThumbnailSpec(longestEdge: 60)) }
  }

  /// heif-enc codes an odd size as a larger hidden picture shown through a 1 × 1 grid whose
  /// descriptor (in the idat box) gives the size: read from the boxes, it agrees with `ispe`.
  @Test func anOddSizeFromAGridInIdatDecodes() throws {
    let bytes = try Fixture.imageBytes("heic-odd-size.heic")
    let image = try ImagePipeline.decode(bytes)
    #expect((image.header.width, image.header.height) == (121, 81))
    #expect((image.pixels.width, image.pixels.height) == (121, 81))
    let summary = bytes.withUnsafeBytes { HEIFBoxes.read($0) }
    #expect(summary.primarySizeConfirmed)
    #expect(summary.sizeMismatch == nil)
  }

  /// The boxes confirm the sizes of the HEIC fixtures with stored thumbnails (their primary
  /// images are HEVC), so the preview is still taken for them.
  @Test(arguments: ["heic-thumbnail.heic", "heic-8bit.heic", "avif-grid-2x2.avif"])
  func theBoxesConfirmTheSizeOfSoundFiles(file: String) throws {
    let summary = try Fixture.imageBytes(file).withUnsafeBytes { HEIFBoxes.read($0) }
    #expect(summary.primarySizeConfirmed, "\(file)")
    #expect(summary.sizeMismatch == nil, "\(file)")
  }

  /// An nclx box with an undefined primaries code: untagged, with a colour warning (libheif
  /// 1.15 refuses the box; the profile it had allocated was leaked until the fuzzer found it,
  /// which only AddressSanitizer sees: Fuzz/fuzz-heif on this file).
  @Test func unusableNclxIsAColourWarning() throws {
    let bytes = try Fixture.hostileBytes("avif-nclx-unknown-primaries.avif")
    let header = try ImagePipeline.readHeader(bytes)
    #expect(header.color == .untagged)
    #expect(
      header.colorWarnings == [
        "the nclx colour box is unusable (Invalid input: Unknown NCLX color primaries); the picture is taken as sRGB"
      ])
    let image = try ImagePipeline.decode(bytes)
    expectQuadrants(image.pixels, tolerance: 4)
  }

  /// The header alone is read without decoding, so a declared size over the budget is reported,
  /// not refused: the budget applies when decoding.
  @Test func headerOfAHugeDeclaredPictureIsRead() throws {
    let header = try ImagePipeline.readHeader(try Fixture.hostileBytes("heic-huge-dimensions.heic"))
    #expect((header.width, header.height) == (100_000, 100_000))
    #expect(throws: ImageError.tooManyPixels(width: 120, height: 80, budget: 9_000)) {
      try ImagePipeline.decode(try Fixture.imageBytes("heic-8bit.heic"), options: DecodeOptions(pixelBudget: 9_000))
    }
  }

  /// The library reads the first 64 KiB for the header; a file whose meta box lies beyond them
  /// is `.truncated`, so that the caller reads it whole.
  @Test func headerNeedsTheWholeMetaBox() throws {
    let file = try Fixture.imageBytes("heic-8bit.heic")
    let ftypSize = Int(file[3])
    // ftyp, then a 70000-byte free box, then meta and mdat.
    let padding = 70_000
    var padded = Array(file[..<ftypSize])
    padded += [0, 0x01, 0x11, 0x70] + Array("free".utf8) + [UInt8](repeating: 0, count: padding - 8)
    padded += file[ftypSize...]
    #expect(throws: ImageError.truncated(.heic, detail: "the file ends before its meta box does")) {
      try ImagePipeline.readHeader(Array(padded.prefix(64 * 1024)))
    }
    #expect(try ImagePipeline.readHeader(padded) == ImagePipeline.readHeader(file))
    // Cut inside meta, too.
    #expect(throws: ImageError.truncated(.heic, detail: "the file ends before its meta box does")) {
      try ImagePipeline.readHeader(Array(file.prefix(ftypSize + 40)))
    }
  }

  // MARK: - Sniffing by brand

  /// An ftyp box with `major` and `compatible` brands, and nothing after it.
  private func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
    let size = 16 + 4 * compatible.count
    return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0]
      + compatible.flatMap { Array($0.utf8) }
  }

  @Test func brandsTellHEICFromAVIF() {
    func sniff(_ bytes: [UInt8]) -> ImageFormat? { bytes.withUnsafeBytes { Sniffer.format(of: $0) } }
    for brand in ["heic", "heix", "hevc", "hevx", "heim", "heis"] { #expect(sniff(ftyp(brand, ["mif1"])) == .heic) }
    for brand in ["avif", "avis"] { #expect(sniff(ftyp(brand, ["mif1"])) == .avif) }
    // A generic major brand: the compatible brands decide.
    #expect(sniff(ftyp("mif1", ["mif1", "avif", "miaf"])) == .avif)
    #expect(sniff(ftyp("msf1", ["avis"])) == .avif)
    #expect(sniff(ftyp("mif1", ["mif1", "heic"])) == .heic)
    #expect(sniff(ftyp("mif1", [])) == .heic)
    #expect(sniff(ftyp("MiHE", ["MiHE", "miaf", "heic"])) == .heic)
    // An MP4 is not a picture.
    #expect(sniff(ftyp("isom", ["isom", "iso2", "mp41"])) == nil)
  }
}
