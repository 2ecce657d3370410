import CLibPNG

/// Decodes PNG: 8-bit grey, grey with alpha, RGB and RGBA that are not interlaced and have no
/// `tRNS` chunk (what photographs and screenshots are) through ``PNGStripDecoder``; every other
/// kind through libpng's row API (``PNGDecoder``), which converts every colour type and bit
/// depth, palette and `tRNS` included. Both give 8-bit RGB(A) samples as stored (the colour
/// chunks go into the header's ``ColorDescription``). Encodes through libpng's simplified API
/// (`png_image_write_to_memory`).
enum PNGCodec: FormatDecoder {
  /// Why a PNG whose zlib stream ends with a wrong Adler-32 checksum is refused, whichever
  /// decoder found it: its chunk CRCs may all be right (they were computed over the damage).
  static let badChecksum = "its compressed image data is damaged (zlib checksum)"

  /// Reads the header from the chunks, without decoding pixels.
  static func header(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
    try PNGChunks.header(bytes)
  }

  /// How far the chunks before the image data are read ahead, to choose the decoder: a file
  /// whose image data starts later (megabytes of text or profile first) goes to libpng, which
  /// takes any PNG, so that those chunks are never held in memory.
  static let lookahead = 1 << 20

  /// Decodes the picture at full size (PNG has no reduced-size decoding), handing its rows
  /// (RGBA when it has transparency, else RGB) to `sink`. A file cut off before its `IEND` is
  /// refused unless `options` are lenient.
  static func decode(
    _ input: ByteReader, options: DecodeOptions,
    request: (ImageHeader) -> DecodeRequest, into sink: any RowSink
  ) throws(ImageError) -> DecodeReport {
    try decode(input, options: options, request: request, into: sink, libpngOnly: false)
  }

  /// `decode`, with `libpngOnly` sending every PNG through libpng: tests and the fuzz harness
  /// compare the two decoders with it.
  static func decode(
    _ bytes: UnsafeRawBufferPointer, options: DecodeOptions,
    request: (ImageHeader) -> DecodeRequest, into sink: any RowSink, libpngOnly: Bool
  ) throws(ImageError) -> DecodeReport {
    try decode(ByteReader(memory: bytes), options: options, request: request, into: sink, libpngOnly: libpngOnly)
  }

  static func decode(
    _ input: ByteReader, options: DecodeOptions,
    request: (ImageHeader) -> DecodeRequest, into sink: any RowSink, libpngOnly: Bool
  ) throws(ImageError) -> DecodeReport {
    // The chunk walk sees every byte the decoder reads, and those after it (see `finalSummary`).
    let walker = PNGChunks.Walker()
    input.observe { walker.consume($0) }
    input.prefetch(atLeast: PNGChunks.headLength)
    let ihdr = try PNGChunks.ihdr(input.available)
    // Refused from IHDR alone, before anything more is read.
    try PNGChunks.header(ihdr).checkBudget(options.pixelBudget)
    // The chunks before the image data (colour, transparency, orientation) are read ahead, and
    // read again by the decoder from memory.
    input.prefetch { !walker.reachedImageData && !walker.stopped && input.available.count < lookahead }
    let early = walker.summary(of: ihdr, atEnd: input.atEnd)
    let header = try PNGChunks.header(early)
    _ = request(header)
    /// What follows the picture, once the rest of the file is read: whether it ends with IEND,
    /// and an orientation given after the image data.
    var final: PNGChunks.Summary?
    func finalSummary() -> PNGChunks.Summary {
      if let final { return final }
      input.drain()
      final = walker.summary(of: ihdr, atEnd: true)
      return final!
    }
    var warnings: [String] = []
    let begin = { (width: Int, height: Int, alpha: Bool) in
      sink.begin(width: width, height: height, layout: alpha ? .rgba : .rgb, scale: 1)
    }
    let rows = { (first: UnsafePointer<UInt8>, stride: Int, count: Int) in
      sink.take(first, stride: stride, count: count)
    }
    do {
      if !libpngOnly && early.knowsChunksBeforeImageData && PNGStripDecoder.reads(early) {
        warnings = try PNGStripDecoder.decode(
          input, summary: early, reachedEnd: { finalSummary().reachedEnd }, begin: begin, rows: rows)
      } else {
        try PNGDecoder.reading(input) { (decoder) throws(ImageError) in
          defer { warnings = decoder.warnings }
          try decoder.decode(begin: begin, rows: rows)
        }
      }
    } catch {
      // The chunk walk knows whether the file was cut off, whatever the decoder made of it.
      if !finalSummary().reachedEnd, case .corrupt(_, let detail) = error {
        throw .truncated(.png, detail: "the file ends before its image data does (\(detail))")
      }
      throw error
    }
    let summary = finalSummary()
    if !summary.reachedEnd {
      if !options.lenient {
        throw .truncated(.png, detail: "the file ends before its IEND chunk")
      }
      warnings.append("the file ends before its IEND chunk")
    }
    var decoded = header
    decoded.orientation = summary.orientation
    return DecodeReport(header: decoded, warnings: warnings, scale: 1)
  }

  /// PNG bytes of `image` (RGB or RGBA, 8-bit). The corresponding C function is
  /// `png_image_write_to_memory`.
  static func encode(_ image: PixelBuffer) throws(ImageError) -> [UInt8] {
    var control = png_image()
    control.version = clibpng_image_version()
    control.width = UInt32(image.width)
    control.height = UInt32(image.height)
    control.format = image.channels == 4 ? clibpng_format_rgba() : clibpng_format_rgb()
    defer { png_image_free(&control) }
    return try image.pixels.withUnsafeBufferPointer { (pixels) throws(ImageError) -> [UInt8] in
      var size = 0
      guard
        png_image_write_to_memory(
          &control, nil, &size, 0, pixels.baseAddress, Int32(image.stride), nil) != 0
      else {
        throw .encodingFailed(.png, detail: message(of: control))
      }
      var output = [UInt8](repeating: 0, count: size)
      let written = output.withUnsafeMutableBytes { buffer in
        png_image_write_to_memory(
          &control, buffer.baseAddress, &size, 0, pixels.baseAddress, Int32(image.stride), nil)
      }
      guard written != 0 else { throw .encodingFailed(.png, detail: message(of: control)) }
      output.removeLast(output.count - size)
      return output
    }
  }

  /// libpng's message, which the simplified API keeps in a fixed 64-byte field.
  private static func message(of image: png_image) -> String {
    withUnsafeBytes(of: image.message) { raw in
      let text = raw.prefix { $0 != 0 }
      return text.isEmpty ? "libpng gave no reason" : String(decoding: text, as: UTF8.self)
    }
  }
}
