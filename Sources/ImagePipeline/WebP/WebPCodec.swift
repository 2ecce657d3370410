/// WebP as the pipeline drives it: the RIFF container read by ``WebPContainer``, the pixels
/// decoded by libwebp (``LibWebP``), scaled on load to any size the caller needs.
///
/// Lossy (VP8), lossless (VP8L) and lossy with an alpha chunk all decode, to RGB or, when the
/// picture has alpha, to straight (not premultiplied) RGBA. A still picture is decoded in one
/// call into libwebp's output buffer of the decoded size, then handed to the sink in strips.
///
/// An animated WebP decodes as its first frame, composed on the canvas at full size (libwebp's
/// animation decoder does not scale), with the warning "animated WebP: only the first of N
/// frames is shown". A file cut short is refused as `.truncated` whatever `lenient` says:
/// libwebp has no partial picture to offer.
enum WebPCodec: FormatDecoder {
  /// Reads the header from the RIFF chunks, without decoding pixels. Given the first part of a
  /// file, it needs the chunks up to the image chunk's header, and the `ICCP` and `EXIF` chunks
  /// the VP8X header announces (EXIF usually comes last: then it is `.truncated`).
  static func header(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
    try WebPContainer.read(bytes, whole: false).header
  }

  static func decode(
    _ input: ByteReader, options: DecodeOptions,
    request: (ImageHeader) -> DecodeRequest, into sink: any RowSink
  ) throws(ImageError) -> DecodeReport {
    // The container is read from anywhere in the file, and libwebp decodes from memory.
    let bytes = input.readAll()
    let summary = try WebPContainer.read(bytes, whole: true)
    let header = summary.header
    try header.checkBudget(options.pixelBudget)
    let bitstream = summary.isLossless ? "VP8L" : "VP8"
    if let size = summary.bitstreamSize, size.width != header.width || size.height != header.height {
      throw .corrupt(
        .webp,
        detail:
          "the VP8X canvas is \(header.width)×\(header.height), its \(bitstream) image \(size.width)×\(size.height)"
      )
    }
    let minimum = request(header).minimum
    if summary.isAnimated { return try decodeFirstFrame(bytes, header: header, into: sink) }
    let scaled = scaledSize(width: header.width, height: header.height, atLeast: minimum)
    let scale = scaled.map { Double(header.width) / Double($0.width) } ?? 1
    let layout: RowLayout = header.hasAlpha ? .rgba : .rgb
    try LibWebP.StillDecoder.reading(bytes, layout: layout, scaledTo: scaled, bitstream: bitstream) {
      (decoder) throws(ImageError) in
      try decoder.decode(strip: 64) { width, height in
        sink.begin(width: width, height: height, layout: layout, scale: scale)
      } rows: { first, stride, count in
        sink.take(first, stride: stride, count: count)
      }
    }
    return DecodeReport(header: header, warnings: [], scale: scale)
  }

  /// The smallest size, the picture's aspect kept, that is at least `minimum` in both axes;
  /// `nil` (full size) when that is not smaller than the picture.
  static func scaledSize(width: Int, height: Int, atLeast minimum: (width: Int, height: Int)?) -> (
    width: Int, height: Int
  )? {
    guard let minimum, width > 0, height > 0 else { return nil }
    // Clamped and compared first, so that the products below stay within the picture's size.
    let least = (width: max(minimum.width, 1), height: max(minimum.height, 1))
    guard least.width < width, least.height < height else { return nil }
    let scaledWidth = max(least.width, (least.height * width + height - 1) / height)
    let scaledHeight = max((scaledWidth * height + width / 2) / width, least.height)
    guard scaledWidth < width, scaledHeight < height else { return nil }
    return (scaledWidth, scaledHeight)
  }

  /// The first frame of an animation, on its canvas, with a warning when there are more.
  private static func decodeFirstFrame(
    _ bytes: UnsafeRawBufferPointer, header: ImageHeader, into sink: any RowSink
  ) throws(ImageError) -> DecodeReport {
    try LibWebP.AnimationDecoder.reading(bytes) { (decoder) throws(ImageError) in
      guard decoder.width == header.width, decoder.height == header.height else {
        throw .corrupt(.webp, detail: "libwebp reads a canvas of \(decoder.width)×\(decoder.height)")
      }
      let layout: RowLayout = header.hasAlpha ? .rgba : .rgb
      try decoder.firstFrame { (canvas) throws(ImageError) in
        sink.begin(width: header.width, height: header.height, layout: layout, scale: 1)
        let stride = header.width * 4
        if layout == .rgba {
          sink.take(canvas, stride: stride, count: header.height)
          return
        }
        // An opaque animation: RGB rows, as a still picture gives, a strip at a time.
        let strip = 16
        let rgb = UnsafeMutablePointer<UInt8>.allocate(capacity: header.width * 3 * strip)
        defer { rgb.deallocate() }
        var row = 0
        while row < header.height {
          let count = min(strip, header.height - row)
          for index in 0..<(header.width * count) {
            let source = canvas + row * stride + index * 4
            (rgb + index * 3).update(from: source, count: 3)
          }
          sink.take(rgb, stride: header.width * 3, count: count)
          row += count
        }
      }
      let warnings =
        decoder.frameCount > 1 ? ["animated WebP: only the first of \(decoder.frameCount) frames is shown"] : []
      return DecodeReport(header: header, warnings: warnings, scale: 1)
    }
  }
}
