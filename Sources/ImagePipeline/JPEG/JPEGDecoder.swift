import CJPEGShims

/// A libjpeg-turbo decompressor reading from memory.
///
/// Every call goes through the C entry points of `CJPEGShims`, which catch libjpeg's fatal
/// errors with `setjmp` in their own frames. Not `Sendable`: one decoder, one thread.
///
/// libjpeg keeps the pointer its memory source was given for every later call, so a decoder
/// exists only inside ``reading(_:_:)``, for as long as the bytes it borrows: after the body
/// returns, any use of a decoder that escaped it fails instead of reading freed memory.
final class JPEGDecoder {
  private let handle: OpaquePointer
  private let bytes: UnsafeRawBufferPointer
  private var open = true

  private init(_ bytes: UnsafeRawBufferPointer) throws(ImageError) {
    guard let handle = cjpegshims_decoder_create() else {
      throw .corrupt(.jpeg, detail: "libjpeg could not allocate a decoder")
    }
    self.handle = handle
    self.bytes = bytes
  }

  deinit { cjpegshims_decoder_destroy(handle) }

  /// Runs `body` with a decoder reading `bytes`, which must stay valid until it returns.
  static func reading<T>(_ bytes: UnsafeRawBufferPointer, _ body: (JPEGDecoder) throws(ImageError) -> T)
    throws(ImageError) -> T
  {
    let decoder = try JPEGDecoder(bytes)
    defer { decoder.open = false }
    return try body(decoder)
  }

  private func checkOpen() throws(ImageError) {
    guard open else { throw .corrupt(.jpeg, detail: "internal error: a JPEG decoder was used after its input") }
  }

  /// Converts a C status into a thrown error, the one place that does.
  private func check(_ status: Int32) throws(ImageError) {
    guard status < 0 else { return }
    let message = String(cString: cjpegshims_decoder_message(handle))
    if cjpegshims_decoder_hit_end_of_data(handle) != 0 {
      throw .truncated(.jpeg, detail: "the file ends before its image data does (\(message))")
    }
    throw .corrupt(.jpeg, detail: message)
  }

  /// Reads the headers. The corresponding C function is `jpeg_read_header`.
  func readHeader() throws(ImageError) -> ImageHeader {
    try checkOpen()
    var frame = cjpegshims_header()
    let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    try check(cjpegshims_decoder_read_header(handle, base, UInt(bytes.count), &frame))
    let model: ImageHeader.ColorModel
    switch frame.color {
    case CJPEGSHIMS_COLOR_GRAYSCALE: model = .gray
    case CJPEGSHIMS_COLOR_RGB: model = .rgb
    case CJPEGSHIMS_COLOR_YCBCR: model = .ycbcr
    case CJPEGSHIMS_COLOR_CMYK: model = .cmyk
    case CJPEGSHIMS_COLOR_YCCK: model = .ycck
    default: model = .unknown
    }
    return ImageHeader(
      format: .jpeg, width: Int(frame.width), height: Int(frame.height), colorModel: model,
      bitDepth: Int(frame.precision), hasAlpha: false,
      orientation: JPEGMarkers.orientation(in: bytes), isProgressive: frame.progressive != 0)
  }

  /// Decodes the whole image to RGB at DCT scale 1/`scaleDenominator` (1, 2, 4 or 8).
  /// The corresponding C functions are `jpeg_start_decompress`, `jpeg_read_scanlines` and
  /// `jpeg_finish_decompress`.
  func decode(scaleDenominator: Int, lenient: Bool) throws(ImageError) -> (PixelBuffer, [String]) {
    try checkOpen()
    var width: Int32 = 0
    var height: Int32 = 0
    try check(cjpegshims_decoder_start(handle, Int32(scaleDenominator), &width, &height))
    let stride = Int(width) * 3
    let count = stride * Int(height)
    var status: Int32 = 0
    let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      status = cjpegshims_decoder_read_rows(handle, buffer.baseAddress, stride, height)
      // Rows libjpeg did not deliver (only after an error) must not be left uninitialised.
      let delivered = status > 0 ? Int(status) * stride : 0
      if delivered < count {
        (buffer.baseAddress! + delivered).initialize(repeating: 0, count: count - delivered)
      }
      initialized = count
    }
    try check(status)
    if status < height {
      throw .corrupt(.jpeg, detail: "libjpeg delivered \(status) of \(height) rows")
    }
    try check(cjpegshims_decoder_finish(handle))
    if cjpegshims_decoder_hit_end_of_data(handle) != 0 && !lenient {
      throw .truncated(.jpeg, detail: "the file ends before its image data does")
    }
    return (PixelBuffer(width: Int(width), height: Int(height), channels: 3, pixels: pixels), warnings)
  }

  /// The distinct warnings libjpeg raised so far.
  var warnings: [String] {
    (0..<cjpegshims_decoder_kept_warnings(handle)).map {
      String(cString: cjpegshims_decoder_warning(handle, $0))
    }
  }
}
