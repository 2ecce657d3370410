/// WebP as the pipeline drives it: the RIFF container read by ``WebPContainer``, the pixels
/// decoded by libwebp (``LibWebP``), scaled on load to any size the caller needs.
///
/// Lossy (VP8), lossless (VP8L) and lossy with an alpha chunk all decode, to RGB or, when the
/// picture has alpha, to straight (not premultiplied) RGBA. A lossless picture whose headers
/// say nothing of alpha is decoded with it, and is RGBA when a pixel is not opaque (a palette's
/// alpha): the report's header then says so. A still picture is decoded in one call into
/// libwebp's output buffer of the decoded size, then handed to the sink in strips.
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
    // A lossless picture decodes with alpha whatever its headers say: the VP8L alpha bit is a
    // hint (the specification says a decoder must not depend on it), the VP8X flag is set by
    // writers only for an ALPH chunk, and a palette's entries carry alpha of their own. So
    // when neither says so, the decoded pixels tell.
    let probing = !header.hasAlpha && summary.isLossless
    var reported = header
    try LibWebP.StillDecoder.reading(
      bytes, layout: header.hasAlpha || probing ? .rgba : .rgb, scaledTo: scaled, bitstream: bitstream
    ) { (decoder) throws(ImageError) in
      try decoder.decode { first, width, height, stride in
        if probing && !hasTransparency(first, width: width, height: height, stride: stride) {
          sink.begin(width: width, height: height, layout: .rgb, scale: scale)
          takeOpaque(first, width: width, height: height, stride: stride, into: sink)
          return
        }
        if probing {
          reported.hasAlpha = true
          reported.colorModel = .rgba
        }
        sink.begin(width: width, height: height, layout: reported.hasAlpha ? .rgba : .rgb, scale: scale)
        var row = 0
        while row < height {
          let count = min(64, height - row)
          sink.take(first + row * stride, stride: stride, count: count)
          row += count
        }
      }
    }
    return DecodeReport(header: reported, warnings: [], scale: scale)
  }

  /// Whether any of the RGBA rows at `first` has a pixel that is not opaque.
  private static func hasTransparency(_ first: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) -> Bool {
    for row in 0..<height {
      let pixels = first + row * stride
      for index in 0..<width where pixels[index * 4 + 3] != 255 { return true }
    }
    return false
  }

  /// Hands opaque RGBA rows to `sink` as the RGB rows an opaque picture gives, a strip at a time.
  private static func takeOpaque(
    _ first: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, into sink: any RowSink
  ) {
    let strip = 16
    let rgb = UnsafeMutablePointer<UInt8>.allocate(capacity: width * 3 * strip)
    defer { rgb.deallocate() }
    var row = 0
    while row < height {
      let count = min(strip, height - row)
      for line in 0..<count {
        let source = first + (row + line) * stride
        let target = rgb + line * width * 3
        for index in 0..<width { (target + index * 3).update(from: source + index * 4, count: 3) }
      }
      sink.take(rgb, stride: width * 3, count: count)
      row += count
    }
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
        // An opaque animation: RGB rows, as a still picture gives.
        takeOpaque(canvas, width: header.width, height: header.height, stride: stride, into: sink)
      }
      let warnings =
        decoder.frameCount > 1 ? ["animated WebP: only the first of \(decoder.frameCount) frames is shown"] : []
      return DecodeReport(header: header, warnings: warnings, scale: 1)
    }
  }
}
