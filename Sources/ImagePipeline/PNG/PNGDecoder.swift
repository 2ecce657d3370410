import CPNGShims

/// A libpng reader on its row API, reading a file as libpng asks for it.
///
/// Every call goes through the C entry points of `CPNGShims`, which catch libpng's fatal errors
/// with `setjmp` in their own frames and bound what any chunk can make libpng allocate. A
/// non-interlaced picture is handed over a few rows at a time and never held whole; an
/// interlaced one is assembled pass by pass in one buffer first. Not `Sendable`: one decoder,
/// one thread, and it exists only inside ``reading(_:_:)``, for as long as the input it borrows.
final class PNGDecoder {
  private let handle: OpaquePointer

  private init(_ input: ByteReader) throws(ImageError) {
    let read: cpngshims_read_fn = { context, target, length in
      let input = Unmanaged<ByteReader>.fromOpaque(context!).takeUnretainedValue()
      return input.read(into: UnsafeMutableRawBufferPointer(start: target, count: length))
    }
    guard let handle = cpngshims_decoder_create(read, Unmanaged.passUnretained(input).toOpaque()) else {
      throw .corrupt(.png, detail: "libpng could not allocate a decoder")
    }
    self.handle = handle
  }

  deinit { cpngshims_decoder_destroy(handle) }

  /// Runs `body` with a decoder reading `input`, which must outlive it.
  static func reading<T>(_ input: ByteReader, _ body: (PNGDecoder) throws(ImageError) -> T)
    throws(ImageError) -> T
  {
    try body(try PNGDecoder(input))
  }

  /// Converts a C status into a thrown error, the one place that does.
  private func check(_ status: Int32) throws(ImageError) {
    guard status < 0 else { return }
    if cpngshims_decoder_bad_checksum(handle) != 0 { throw .corrupt(.png, detail: PNGCodec.badChecksum) }
    let message = String(cString: cpngshims_decoder_message(handle))
    if cpngshims_decoder_ran_out(handle) != 0 {
      throw .truncated(.png, detail: "the file ends before its image data does (\(message))")
    }
    throw .corrupt(.png, detail: message)
  }

  /// Decodes the picture to 8-bit RGB, or RGBA when it has transparency, handing rows to
  /// `rows` after `begin` has been told the size and which. The corresponding C functions are
  /// `png_read_info`, `png_read_update_info` and `png_read_row`.
  func decode(
    begin: (_ width: Int, _ height: Int, _ alpha: Bool) -> Void,
    rows: (_ first: UnsafePointer<UInt8>, _ stride: Int, _ count: Int) -> Void
  ) throws(ImageError) {
    var rgba: Int32 = 0
    var width: Int32 = 0
    var height: Int32 = 0
    var passes: Int32 = 0
    try check(cpngshims_decoder_start(handle, &rgba, &width, &height, &passes))
    let alpha = rgba != 0
    begin(Int(width), Int(height), alpha)
    let stride = Int(width) * (alpha ? 4 : 3)
    if passes > 1 {
      // Each pass adds its pixels to rows of the whole picture: it is assembled first.
      let count = stride * Int(height)
      let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
      defer { buffer.deallocate() }
      buffer.initialize(repeating: 0, count: count)
      for _ in 0..<passes {
        try check(cpngshims_decoder_read_rows(handle, buffer, stride, height))
      }
      rows(buffer, stride, Int(height))
      return
    }
    let strip = 16
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * strip)
    defer { buffer.deallocate() }
    var delivered: Int32 = 0
    while delivered < height {
      let count = min(Int32(strip), height - delivered)
      try check(cpngshims_decoder_read_rows(handle, buffer, stride, count))
      rows(buffer, stride, Int(count))
      delivered += count
    }
  }

  /// The distinct warnings libpng raised so far.
  var warnings: [String] {
    (0..<cpngshims_decoder_warning_count(handle)).map {
      String(cString: cpngshims_decoder_warning(handle, $0))
    }
  }
}
