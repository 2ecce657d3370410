import CLibWebP

/// libwebp's decoders, as the pipeline uses them: every call into libwebp is in this file.
///
/// Each handle lives in a final class that frees it in `deinit` and exists only inside a
/// `reading` closure, for as long as the bytes it borrows. Not `Sendable`: one decoder, one
/// thread.
enum LibWebP {
  /// Converts a libwebp status into a thrown error, the one place that does. `bitstream` names
  /// the image data ("VP8", "VP8L") in the message.
  static func check(_ status: VP8StatusCode, bitstream: String) throws(ImageError) {
    switch status {
    case VP8_STATUS_OK:
      return
    case VP8_STATUS_NOT_ENOUGH_DATA, VP8_STATUS_SUSPENDED:
      throw .truncated(.webp, detail: "the file ends before its \(bitstream) image data does")
    case VP8_STATUS_BITSTREAM_ERROR:
      throw .corrupt(.webp, detail: "the \(bitstream) image data is damaged")
    case VP8_STATUS_UNSUPPORTED_FEATURE:
      throw .corrupt(.webp, detail: "the \(bitstream) image data uses a feature libwebp does not support")
    case VP8_STATUS_OUT_OF_MEMORY:
      throw .corrupt(.webp, detail: "libwebp ran out of memory")
    case VP8_STATUS_INVALID_PARAM:
      throw .corrupt(.webp, detail: "libwebp refused the decoding parameters")
    default:
      throw .corrupt(.webp, detail: "libwebp failed with status \(status.rawValue)")
    }
  }

  /// libwebp's decoder of a still picture, given the whole file at once. The corresponding C
  /// function is `WebPDecode`.
  ///
  /// libwebp decodes into one output buffer of the decoded size (the scaled size, when scaling),
  /// whether it is fed the file at once or a piece at a time, so the picture is decoded in one
  /// call: its incremental decoder would only add the cost of saving its state at every
  /// macroblock.
  final class StillDecoder {
    /// libwebp keeps pointers to the options and the output buffer: they live here, not moved.
    private let config: UnsafeMutablePointer<WebPDecoderConfig>
    private let bytes: UnsafeRawBufferPointer
    private let bitstream: String

    private init(
      _ bytes: UnsafeRawBufferPointer, layout: RowLayout, scaledTo size: (width: Int, height: Int)?,
      bitstream: String
    ) throws(ImageError) {
      let config = UnsafeMutablePointer<WebPDecoderConfig>.allocate(capacity: 1)
      guard WebPInitDecoderConfig(config) != 0 else {
        config.deallocate()
        throw .corrupt(.webp, detail: "libwebp's library does not match its headers")
      }
      config.pointee.output.colorspace = layout == .rgba ? MODE_RGBA : MODE_RGB
      config.pointee.options.use_threads = 0
      if let size {
        config.pointee.options.use_scaling = 1
        config.pointee.options.scaled_width = Int32(size.width)
        config.pointee.options.scaled_height = Int32(size.height)
      }
      self.config = config
      self.bytes = bytes
      self.bitstream = bitstream
    }

    deinit {
      WebPFreeDecBuffer(&config.pointee.output)
      config.deallocate()
    }

    /// Runs `body` with a decoder of `bytes` (a whole WebP file), which must stay valid until it
    /// returns. Rows come as 8-bit `layout`, at `size` when given (libwebp's scaling), else at
    /// full size.
    static func reading<T>(
      _ bytes: UnsafeRawBufferPointer, layout: RowLayout, scaledTo size: (width: Int, height: Int)?,
      bitstream: String, _ body: (StillDecoder) throws(ImageError) -> T
    ) throws(ImageError) -> T {
      try body(try StillDecoder(bytes, layout: layout, scaledTo: size, bitstream: bitstream))
    }

    /// Decodes the picture and calls `body` with its first row, its size and its stride; the
    /// pointer is valid only inside `body`.
    func decode<T>(
      _ body: (_ first: UnsafePointer<UInt8>, _ width: Int, _ height: Int, _ stride: Int) throws(ImageError) -> T
    ) throws(ImageError) -> T {
      guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else {
        throw .truncated(.webp, detail: "the file is empty")
      }
      try LibWebP.check(WebPDecode(base, bytes.count, config), bitstream: bitstream)
      let output = config.pointee.output
      let width = Int(output.width)
      let height = Int(output.height)
      let stride = Int(output.u.RGBA.stride)
      guard width > 0, height > 0, let pixels = output.u.RGBA.rgba else {
        throw .corrupt(.webp, detail: "libwebp decoded no rows")
      }
      return try body(pixels, width, height, stride)
    }
  }

  /// libwebp's animation decoder, used for the first frame only: it composes the frame on the
  /// canvas as 8-bit RGBA at full size (it cannot scale). The corresponding C functions are
  /// `WebPAnimDecoderNew`, `WebPAnimDecoderGetInfo` and `WebPAnimDecoderGetNext`.
  final class AnimationDecoder {
    private let handle: OpaquePointer
    /// The canvas's size and how many frames the animation has.
    let width: Int
    let height: Int
    let frameCount: Int

    private init(_ bytes: UnsafeRawBufferPointer) throws(ImageError) {
      var data = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: bytes.count)
      var options = WebPAnimDecoderOptions()
      guard WebPAnimDecoderOptionsInit(&options) != 0 else {
        throw .corrupt(.webp, detail: "libwebp's library does not match its headers")
      }
      options.color_mode = MODE_RGBA
      options.use_threads = 0
      guard let handle = WebPAnimDecoderNew(&data, &options) else {
        throw .corrupt(.webp, detail: "libwebp cannot read the animation: its frames are damaged")
      }
      self.handle = handle
      var info = WebPAnimInfo()
      guard WebPAnimDecoderGetInfo(handle, &info) != 0 else {
        WebPAnimDecoderDelete(handle)
        throw .corrupt(.webp, detail: "libwebp cannot read the animation's canvas")
      }
      width = Int(info.canvas_width)
      height = Int(info.canvas_height)
      frameCount = Int(info.frame_count)
    }

    deinit { WebPAnimDecoderDelete(handle) }

    /// Runs `body` with a decoder of `bytes` (a whole animated WebP), which must stay valid
    /// until it returns.
    static func reading<T>(_ bytes: UnsafeRawBufferPointer, _ body: (AnimationDecoder) throws(ImageError) -> T)
      throws(ImageError) -> T
    {
      try body(try AnimationDecoder(bytes))
    }

    /// Decodes the first frame and hands `body` the canvas: `height` rows of `width` RGBA
    /// pixels, valid only while `body` runs.
    func firstFrame<T>(_ body: (UnsafePointer<UInt8>) throws(ImageError) -> T) throws(ImageError) -> T {
      var canvas: UnsafeMutablePointer<UInt8>?
      var timestamp: Int32 = 0
      guard WebPAnimDecoderGetNext(handle, &canvas, &timestamp) != 0, let canvas else {
        throw .corrupt(.webp, detail: "the animation's first frame is damaged")
      }
      return try body(canvas)
    }
  }
}
