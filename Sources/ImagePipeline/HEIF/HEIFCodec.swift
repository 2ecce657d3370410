/// HEIC and AVIF as the pipeline drives them: libheif (HEVC through libde265, AV1 through
/// dav1d) through ``HEIFContext``, reading the file in place.
///
/// libheif applies the file's transforms when it decodes, in the order `ipma` lists them (MIAF
/// requires `clap`, then `irot`, then `imir`), so the header reports the size after them as the
/// stored size, with orientation `.up`. An
/// EXIF orientation stored inside a HEIF file is not applied: the file's transform properties
/// are what HEIF readers show, and a camera that writes both describes one turn, not two.
///
/// Grid (tiled) images are assembled by libheif; the pixel budget covers both the picture and
/// the sum of what its tiles declare. Auxiliary images (alpha planes, depth maps) are not
/// pictures of their own: alpha becomes the fourth channel, depth is never decoded.
enum HEIFCodec: FormatDecoder {
  /// An ICC profile larger than this is ignored (reported as a colour warning).
  static let maximumProfileSize = 4 << 20

  /// A stored thumbnail stands in for the picture when both its sides are at least
  /// `previewMargin` times the thumbnail's: as soon as it is as large as the thumbnail, as
  /// libvips takes it.
  ///
  /// Measured on four Debian photos (dragonfly, picosdeeuropa, analogpattern, ladybird)
  /// resized to 4032 × 3024 and encoded with `heif-enc -q 90 --thumb 320`; thumbnails made
  /// with and without the preview, scored against ImageMagick's Lanczos resize of the source
  /// (`Benchmarks/psnr.py`), mean PSNR in dB:
  ///
  /// | thumbnail | picture | heif-enc's preview | a Lanczos-made 320 px preview |
  /// |---|---|---|---|
  /// | 128 (preview 2.5×) | 48.1 | 31.7 | 48.4 |
  /// | 160 (preview 2×) | 48.6 | 30.2 | 47.4 |
  /// | 256 (preview 1.25×) | 49.7 | 27.3 | 41.9 |
  /// | 512 (preview too small) | 50.8 | 25.2 | — |
  ///
  /// A well-made preview (as phones store: the camera scales it with a filter) matches the
  /// picture from 2× on and scores 41.9 dB at 1.25×, which no eye tells from the picture at
  /// 256 px; it costs a tenth to a thirtieth of the time (on the 45-photo benchmark set with
  /// 320 px previews, 575 MP/s against 18 MP/s on one core, 4.0 times vipsthumbnail's speed at
  /// its quality). heif-enc's own previews are aliased (nearest-neighbour scaling) and lose at
  /// any size; nothing in the file tells them apart, and every reader that takes previews shows
  /// them so. A margin of 2 was tried first: it kept 8 dB on well-made previews at 256 px, but
  /// decoded every phone picture in full for the list's thumbnails, 30 times slower.
  /// `check`, repairs and every size larger than the preview decode the picture.
  static let previewMargin = 1

  static func header(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
    let format = format(of: bytes)
    try checkStructure(HEIFBoxes.read(bytes), format: format)
    return try HEIFContext.reading(bytes, format: format, maximumSide: Int(Int32.max)) {
      (context) throws(ImageError) in
      try header(of: context.primaryImage(), format: format)
    }
  }

  /// Decodes the primary image, or its stored thumbnail when `request` allows a preview and
  /// the thumbnail is large enough (``previewMargin``), handing the whole plane to `sink`.
  static func decode(
    _ input: ByteReader, options: DecodeOptions,
    request: (ImageHeader) -> DecodeRequest, into sink: any RowSink
  ) throws(ImageError) -> DecodeReport {
    // Boxes point anywhere in the file, and libheif reads from memory.
    let bytes = input.readAll()
    let format = format(of: bytes)
    let boxes = HEIFBoxes.read(bytes)
    try checkStructure(boxes, format: format)
    // No side can be longer than the budget: libheif refuses those before allocating anything.
    return try HEIFContext.reading(bytes, format: format, maximumSide: options.pixelBudget) {
      (context) throws(ImageError) in
      let primary = try context.primaryImage()
      let header = try header(of: primary, format: format)
      try header.checkBudget(options.pixelBudget)
      // libheif decodes the coded picture whole before cropping it to its clean aperture.
      if let coded = boxes.primaryDeclaredSize {
        try ImageHeader(
          format: format, width: coded.width, height: coded.height, colorModel: .ycbcr, bitDepth: 8,
          hasAlpha: false, orientation: .up, isProgressive: false
        ).checkBudget(options.pixelBudget)
      }
      if let tiles = boxes.tiles, tiles.pixels > options.pixelBudget {
        throw .tooManyPixels(
          width: tiles.width, height: tiles.pixels / max(tiles.width, 1), budget: options.pixelBudget)
      }
      // Before any pixel is decoded: libheif would decode the coded size, not the budgeted one.
      if let mismatch = boxes.sizeMismatch { throw .corrupt(format, detail: mismatch.detail) }
      let wanted = request(header)
      var source = primary
      var usedPreview = false
      if wanted.allowsPreview, boxes.primarySizeConfirmed, let minimum = wanted.minimum,
        let preview = try primary.thumbnails().max(by: { $0.width * $0.height < $1.width * $1.height }),
        usesPreview(width: preview.width, height: preview.height, minimum: minimum),
        showsTheSamePicture(preview, primary, color: header.color, boxes: boxes)
      {
        try ImageHeader(
          format: format, width: preview.width, height: preview.height, colorModel: .ycbcr, bitDepth: 8,
          hasAlpha: false, orientation: .up, isProgressive: false
        ).checkBudget(options.pixelBudget)
        source = preview
        usedPreview = true
      }
      // An HDR picture is decoded to 16 bits and tone-mapped to sRGB here (see WideRows).
      let image = try source.decode(alpha: source.hasAlpha, wide: header.color.isHDR)
      let (width, height) = image.size
      // What the boxes could not tell (an AV1 image's coded size) the decode does: the size
      // the header reports is what gets recorded, and what `check` must find again.
      if !usedPreview && (width, height) != (header.width, header.height) {
        throw .corrupt(
          format,
          detail:
            "the picture's size box (ispe) says \(header.width)×\(header.height) but it decodes to \(width)×\(height)"
        )
      }
      var warnings: [String] = []
      let scale = try image.withPlane { first, width, height, stride, bits in
        let scale = usedPreview ? Double(header.width) / Double(width) : 1
        sink.begin(width: width, height: height, layout: image.channels == 4 ? .rgba : .rgb, scale: scale)
        // The table is made for the bits the plane holds (libheif keeps the coded ones).
        if image.wide, let (toneMapping, warning) = ToneMapping.forPicture(header.color, bits: bits) {
          if let warning { warnings.append(warning) }
          WideRows.deliver(
            first, width: width, height: height, stride: stride, channels: image.channels, toneMapping: toneMapping,
            to: sink)
        } else {
          sink.take(first.assumingMemoryBound(to: UInt8.self), stride: stride, count: height)
        }
        return scale
      }
      return DecodeReport(
        header: header, warnings: warnings, scale: scale, usedPreview: usedPreview, rowsAreSRGB: image.wide)
    }
  }

  /// Whether a preview of `width` × `height` is `previewMargin` times the thumbnail's size,
  /// given `minimum` (the thumbnail's size times the shrink-on-load margin, see
  /// ``DecodeRequest/minimum``).
  static func usesPreview(width: Int, height: Int, minimum: (width: Int, height: Int)) -> Bool {
    let margin = ImagePipeline.shrinkOnLoadMargin
    return width * margin >= minimum.width * previewMargin && height * margin >= minimum.height * previewMargin
  }

  /// Whether a thumbnail shows the picture: it has the picture's transforms (the same turns
  /// and mirrorings, and the same part kept by its clean aperture), its proportions (within
  /// 2 %, as rounding allows), its transparency and its colours (`color`, the picture's).
  ///
  /// Each image has transforms of its own, which libheif applies to it. A thumbnail without the
  /// picture's is a picture of the coded samples, as a writer made it before the turn, the
  /// mirroring or the crop: a half turn or a mirroring keeps the proportions, and so does a
  /// crop of the same proportions, so only the boxes tell. A thumbnail made from the picture as
  /// shown (upright and cropped, with no transforms of its own) is not taken either: the
  /// picture is decoded, slower but right.
  private static func showsTheSamePicture(
    _ preview: HEIFImageHandle, _ primary: HEIFImageHandle, color: ColorDescription, boxes: HEIFBoxes.Summary
  ) -> Bool {
    guard preview.width > 0, preview.height > 0, primary.width > 0, primary.height > 0,
      let id = preview.itemID, boxes.transformsMatchThePrimary(id)
    else { return false }
    let ratio = Double(preview.width * primary.height) / Double(preview.height * primary.width)
    guard abs(ratio - 1) <= 0.02 && (preview.hasAlpha || !primary.hasAlpha) else { return false }
    // The preview's pixels are converted as the picture's colours say: they must be its too.
    // An untagged preview of an SDR picture is still taken as in the picture's colours (a
    // writer may tag only the picture); one of an HDR picture may be SDR or HDR, and only
    // tone mapping the picture is sure.
    let colors = (try? preview.colorDescription(maximumProfileSize: maximumProfileSize).0) ?? .untagged
    return colors == color || (colors == .untagged && !color.isHDR)
  }

  /// `.avif` or `.heic`, as the sniffer tells them apart.
  private static func format(of bytes: UnsafeRawBufferPointer) -> ImageFormat {
    Sniffer.format(of: bytes) == .avif ? .avif : .heic
  }

  /// Refuses a file that ends before its `meta` box does, which is where everything but the
  /// coded pixels lives: given only the first bytes of a file, the caller then reads it all.
  private static func checkStructure(_ boxes: HEIFBoxes.Summary, format: ImageFormat) throws(ImageError) {
    if !boxes.hasWholeMeta && boxes.endsEarly {
      throw .truncated(format, detail: "the file ends before its meta box does")
    }
    if boxes.derivationLoops {
      throw .corrupt(format, detail: "the primary image is made of tiles that include itself (a dimg loop)")
    }
  }

  private static func header(of primary: HEIFImageHandle, format: ImageFormat) throws(ImageError) -> ImageHeader {
    // libheif takes the size from the ispe box and decodes whatever the coded data holds.
    guard primary.width > 0, primary.height > 0 else {
      throw .corrupt(
        format, detail: "the picture's size box (ispe) says \(primary.width)×\(primary.height), which no picture is")
    }
    let (color, warnings) = try primary.colorDescription(maximumProfileSize: maximumProfileSize)
    return ImageHeader(
      format: format, width: primary.width, height: primary.height, colorModel: .ycbcr,
      bitDepth: primary.lumaBits ?? 8, hasAlpha: primary.hasAlpha, orientation: .up, isProgressive: false,
      color: color, colorWarnings: warnings)
  }
}
