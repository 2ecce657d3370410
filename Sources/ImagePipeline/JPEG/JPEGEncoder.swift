import CJPEGShims

/// Encodes pixels as JPEG through libjpeg-turbo.
enum JPEGEncoder {
  /// JFIF bytes of `image` (its alpha, if any, is ignored: callers drop it first), with
  /// optimised Huffman tables and no metadata; chroma 4:4:4 when `fullChroma`, else 4:2:0.
  /// The corresponding C function is `jpeg_write_scanlines`.
  static func encode(_ image: PixelBuffer, quality: Int, progressive: Bool, fullChroma: Bool) throws(ImageError)
    -> [UInt8]
  {
    let rgb = image.channels == 3 ? image : image.droppingAlpha()
    var output: UnsafeMutablePointer<UInt8>? = nil
    var size: UInt = 0
    var message = [CChar](repeating: 0, count: Int(CJPEGSHIMS_MESSAGE_LENGTH))
    let status = rgb.pixels.withUnsafeBufferPointer { pixels in
      message.withUnsafeMutableBufferPointer { text in
        cjpegshims_encode(
          pixels.baseAddress, Int32(rgb.width), Int32(rgb.height), rgb.stride, 3,
          Int32(min(max(quality, 1), 100)), progressive ? 1 : 0, fullChroma ? 1 : 0, &output, &size,
          text.baseAddress)
      }
    }
    guard status == 0, let output else {
      let detail = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
      throw .encodingFailed(.jpeg, detail: detail)
    }
    defer { cjpegshims_free(output) }
    return Array(UnsafeBufferPointer(start: output, count: Int(size)))
  }
}
