import CJPEGShims

/// A libjpeg-turbo decompressor reading a file a chunk at a time, as libjpeg asks for it.
///
/// Every call goes through the C entry points of `CJPEGShims`, which catch libjpeg's fatal
/// errors with `setjmp` in their own frames. Not `Sendable`: one decoder, one thread.
///
/// libjpeg keeps the pointer to its input for every later call, so a decoder exists only
/// inside ``reading(_:_:)``, for as long as the input it borrows: after the body returns, any
/// use of a decoder that escaped it fails instead of reading freed memory.
final class JPEGDecoder {
  private let handle: OpaquePointer
  private let input: ByteReader
  /// The walk over the segments before the first scan, fed the bytes libjpeg reads.
  private let markers = JPEGMarkers.Walker()
  private var open = true
  /// Whether the file's CMYK samples are inverted (255 = no ink), as Adobe writes them; known
  /// once the header is read.
  private(set) var invertedCMYK = false

  private init(_ input: ByteReader) throws(ImageError) {
    guard let handle = cjpegshims_decoder_create() else {
      throw .corrupt(.jpeg, detail: "libjpeg could not allocate a decoder")
    }
    self.handle = handle
    self.input = input
    input.observe { [markers] in markers.consume($0) }
  }

  deinit { cjpegshims_decoder_destroy(handle) }

  /// Runs `body` with a decoder reading `input` from its start; `input` must not be used
  /// otherwise until it returns.
  static func reading<T>(_ input: ByteReader, _ body: (JPEGDecoder) throws(ImageError) -> T)
    throws(ImageError) -> T
  {
    let decoder = try JPEGDecoder(input)
    defer { decoder.open = false }
    return try body(decoder)
  }

  /// Runs `body` with a decoder reading `bytes`, which must stay valid until it returns.
  static func reading<T>(_ bytes: UnsafeRawBufferPointer, _ body: (JPEGDecoder) throws(ImageError) -> T)
    throws(ImageError) -> T
  {
    try reading(ByteReader(memory: bytes), body)
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
    let context = Unmanaged.passUnretained(input).toOpaque()
    let status = cjpegshims_decoder_read_header(
      handle,
      { context, data in
        // libjpeg has used every byte it was given: the next chunk, in place.
        let input = Unmanaged<ByteReader>.fromOpaque(context!).takeUnretainedValue()
        guard let piece = input.next(upTo: Int.max), let base = piece.baseAddress else { return 0 }
        data!.pointee = base.assumingMemoryBound(to: UInt8.self)
        return piece.count
      }, context, &frame)
    try check(status)
    invertedCMYK = frame.adobe_transform >= 0
    // libjpeg has read up to the first scan, so the walk has seen every segment before it (it
    // sees each chunk as it is read, and reads segments as libjpeg does).
    let found = markers.finish()
    let (color, colorWarnings) = JPEGMarkers.profile(found: found)
    let model: ImageHeader.ColorModel
    switch frame.color {
    case CJPEGSHIMS_COLOR_GRAYSCALE: model = .gray
    case CJPEGSHIMS_COLOR_RGB: model = .rgb
    case CJPEGSHIMS_COLOR_YCBCR: model = .ycbcr
    case CJPEGSHIMS_COLOR_CMYK: model = .cmyk
    case CJPEGSHIMS_COLOR_YCCK: model = .ycck
    default: model = .unknown
    }
    var header = ImageHeader(
      format: .jpeg, width: Int(frame.width), height: Int(frame.height), colorModel: model,
      bitDepth: Int(frame.precision), hasAlpha: false,
      orientation: JPEGMarkers.orientation(found: found), isProgressive: frame.progressive != 0,
      color: color, colorWarnings: colorWarnings)
    header.chromaSubsampled = frame.chroma_subsampled != 0
    return header
  }

  /// Decodes the image to RGB at DCT scale 1/`scaleDenominator` (1, 2, 4 or 8), handing the
  /// rows to `rows` as libjpeg makes them, a few at a time, after `begin` has been told the
  /// decoded size. The picture is never held whole. The corresponding C functions are
  /// `jpeg_start_decompress`, `jpeg_read_scanlines` and `jpeg_finish_decompress`.
  ///
  /// With `rawCMYK`, a CMYK or YCCK file's rows are its CMYK samples, 4 a pixel (inverted when
  /// ``invertedCMYK``), for a colour profile to convert.
  func decode(
    scaleDenominator: Int, lenient: Bool, rawCMYK: Bool = false, begin: (_ width: Int, _ height: Int) -> Void,
    rows: (_ first: UnsafePointer<UInt8>, _ stride: Int, _ count: Int) -> Void
  ) throws(ImageError) {
    try checkOpen()
    var width: Int32 = 0
    var height: Int32 = 0
    try check(cjpegshims_decoder_start(handle, Int32(scaleDenominator), rawCMYK ? 1 : 0, &width, &height))
    begin(Int(width), Int(height))
    let stride = Int(width) * (rawCMYK ? 4 : 3)
    let strip = 16  // as many rows as the C side reads in one call
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * strip)
    defer { buffer.deallocate() }
    var delivered: Int32 = 0
    while delivered < height {
      let status = cjpegshims_decoder_read_rows(handle, buffer, stride, min(Int32(strip), height - delivered))
      try check(status)
      if status == 0 { throw .corrupt(.jpeg, detail: "libjpeg delivered \(delivered) of \(height) rows") }
      rows(buffer, stride, Int(status))
      delivered += status
    }
    try check(cjpegshims_decoder_finish(handle))
    if cjpegshims_decoder_hit_end_of_data(handle) != 0 && !lenient {
      throw .truncated(.jpeg, detail: "the file ends before its image data does")
    }
  }

  /// The distinct warnings libjpeg raised so far.
  var warnings: [String] {
    (0..<cjpegshims_decoder_kept_warnings(handle)).map {
      String(cString: cjpegshims_decoder_warning(handle, $0))
    }
  }
}
