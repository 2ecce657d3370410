import CPNGShims

/// A libpng reader on its row API, reading from memory.
///
/// Every call goes through the C entry points of `CPNGShims`, which catch libpng's fatal errors
/// with `setjmp` in their own frames and bound what any chunk can make libpng allocate. A
/// non-interlaced picture is handed over a few rows at a time and never held whole; an
/// interlaced one is assembled pass by pass in one buffer first. Not `Sendable`: one decoder,
/// one thread, and it exists only inside ``reading(_:_:)``, for as long as the bytes it borrows.
final class PNGDecoder {
  private let handle: OpaquePointer

  private init(_ bytes: UnsafeRawBufferPointer) throws(ImageError) {
    guard
      let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
      let handle = cpngshims_decoder_create(base, bytes.count)
    else {
      throw .corrupt(.png, detail: "libpng could not allocate a decoder")
    }
    self.handle = handle
  }

  deinit { cpngshims_decoder_destroy(handle) }

  /// Runs `body` with a decoder reading `bytes`, which must stay valid until it returns.
  static func reading<T>(_ bytes: UnsafeRawBufferPointer, _ body: (PNGDecoder) throws(ImageError) -> T)
    throws(ImageError) -> T
  {
    try body(try PNGDecoder(bytes))
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

  /// Decodes the picture to 8-bit RGB, or RGBA when `alpha`, handing rows to `rows` after
  /// `begin` has been told the size. The corresponding C functions are `png_read_info`,
  /// `png_read_update_info` and `png_read_row`.
  func decode(
    alpha: Bool, begin: (_ width: Int, _ height: Int) -> Void,
    rows: (_ first: UnsafePointer<UInt8>, _ stride: Int, _ count: Int) -> Void
  ) throws(ImageError) {
    var width: Int32 = 0
    var height: Int32 = 0
    var passes: Int32 = 0
    try check(cpngshims_decoder_start(handle, alpha ? 1 : 0, &width, &height, &passes))
    begin(Int(width), Int(height))
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
