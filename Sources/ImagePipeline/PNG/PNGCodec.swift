import CLibPNG

/// Decodes and encodes PNG through libpng's simplified API (`png_image_*`), which catches
/// libpng's errors itself and converts every colour type and bit depth, palette and `tRNS`
/// included, to 8-bit sRGB, honouring `gAMA` and `sRGB`.
enum PNGCodec {
  /// Reads the header from the chunks, without decoding pixels.
  static func header(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
    try PNGChunks.header(bytes)
  }

  /// Decodes the whole image: RGBA when it has transparency, else RGB.
  /// The corresponding C functions are `png_image_begin_read_from_memory` and
  /// `png_image_finish_read`.
  static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions) throws(ImageError)
    -> DecodedImage
  {
    let summary = try PNGChunks.read(bytes)
    let header = try PNGChunks.header(summary)
    try header.checkBudget(options.pixelBudget)

    var image = png_image()
    image.version = clibpng_image_version()
    defer { png_image_free(&image) }
    func failure(_ image: png_image) -> ImageError {
      let message = Self.message(of: image)
      if !summary.reachedEnd {
        return .truncated(.png, detail: "the file ends before its image data does (\(message))")
      }
      if message.contains("Too much image data") || message.contains("Extra compressed data") {
        return .corrupt(.png, detail: "the compressed data inflates beyond the declared size")
      }
      return .corrupt(.png, detail: message)
    }
    guard png_image_begin_read_from_memory(&image, bytes.baseAddress, bytes.count) != 0 else {
      throw failure(image)
    }
    // The simplified API read IHDR itself; both views must agree before the buffer is sized.
    guard Int(image.width) == header.width, Int(image.height) == header.height else {
      throw .corrupt(.png, detail: "IHDR could not be read consistently")
    }
    let channels = header.hasAlpha ? 4 : 3
    image.format = header.hasAlpha ? clibpng_format_rgba() : clibpng_format_rgb()
    // Without gAMA or sRGB, libpng takes 16-bit samples as linear light; every other reader
    // (and every writer we know) means them as sRGB, like 8-bit ones.
    image.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
    let stride = header.width * channels
    let count = stride * header.height
    var status: Int32 = 0
    let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      // libpng fills every row on success; on failure the buffer is zeroed and thrown away.
      status = png_image_finish_read(&image, nil, buffer.baseAddress, Int32(stride), nil)
      if status == 0 { buffer.baseAddress!.initialize(repeating: 0, count: count) }
      initialized = count
    }
    guard status != 0 else { throw failure(image) }
    var warnings: [String] = []
    if image.warning_or_error & UInt32(PNG_IMAGE_WARNING) != 0 {
      let message = Self.message(of: image)
      if message.contains("Too much image data") || message.contains("Extra compressed data") {
        throw .corrupt(.png, detail: "the compressed data inflates beyond the declared size")
      }
      warnings.append(message)
    }
    if !summary.reachedEnd {
      if !options.lenient {
        throw .truncated(.png, detail: "the file ends before its IEND chunk")
      }
      warnings.append("the file ends before its IEND chunk")
    }
    return DecodedImage(
      header: header,
      pixels: PixelBuffer(width: header.width, height: header.height, channels: channels, pixels: pixels),
      warnings: warnings)
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
