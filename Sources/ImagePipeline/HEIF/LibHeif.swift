import CHeifShims

/// libheif's C API as ``HEIFCodec`` uses it: the one file that calls it.
///
/// A context, an image handle and a decoded image each live in a final class that releases
/// its C handle in `deinit`; none is `Sendable`. libheif reads the file's bytes in place
/// (`heif_context_read_from_memory_without_copy`), so a context exists only inside
/// ``HEIFContext/reading(_:format:maximumSide:_:)``, for as long as the bytes it borrows, and
/// every handle made from it refuses to work once that body has returned.
final class HEIFContext {
  fileprivate let context: OpaquePointer
  let format: ImageFormat
  fileprivate var open = true

  private init(format: ImageFormat) throws(ImageError) {
    guard let context = cheifshims_context_alloc() else {
      throw .corrupt(format, detail: "libheif could not allocate a context")
    }
    self.context = context
    self.format = format
  }

  deinit { cheifshims_context_free(context) }

  /// Runs `body` with a context reading `bytes`, which must stay valid until it returns.
  ///
  /// `maximumSide` is libheif 1.15's only security limit: it refuses any image whose `ispe`
  /// declares a width or a height above it (`heif_context_set_maximum_image_size_limit`).
  /// The corresponding C function is `heif_context_read_from_memory_without_copy`.
  static func reading<T>(
    _ bytes: UnsafeRawBufferPointer, format: ImageFormat, maximumSide: Int,
    _ body: (HEIFContext) throws(ImageError) -> T
  ) throws(ImageError) -> T {
    guard cheifshims_load() == 0 else {
      let reason = String(cString: cheifshims_load_error())
      throw .decoderMissing(format, detail: "libheif cannot be loaded (\(reason)): install Debian's libheif1")
    }
    let context = try HEIFContext(format: format)
    defer { context.open = false }
    cheifshims_context_set_maximum_image_size_limit(context.context, Int32(clamping: maximumSide))
    // A grid's tiles are decoded in this thread. With worker threads, libheif 1.15 can return
    // an error from one tile while another thread still writes into the context's memory,
    // which is freed as soon as this returns (found by fuzz-heif: a heap overflow from a
    // libheif thread after the context was freed). The catalogue decodes many pictures in
    // parallel anyway, so nothing is lost.
    cheifshims_context_set_max_decoding_threads(context.context, 0)
    try context.check(
      cheifshims_context_read_from_memory_without_copy(context.context, bytes.baseAddress, bytes.count, nil))
    return try body(context)
  }

  /// Converts a `heif_error` into a thrown error, the one place that does.
  fileprivate func check(_ error: heif_error) throws(ImageError) {
    guard error.code != heif_error_Ok else { return }
    // Some of libheif's messages end in a newline: an error is one line.
    let text = error.message.map { String(cString: $0) } ?? ""
    let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
    let message = line.isEmpty ? "libheif gave no reason" : line
    if error.subcode == heif_suberror_End_of_data {
      throw .truncated(format, detail: "the file ends before its image data does (\(message))")
    }
    if error.code == heif_error_Unsupported_feature && error.subcode == heif_suberror_Unsupported_codec {
      let codec = format == .avif ? "AV1 (dav1d or libaom)" : "HEVC (libde265)"
      throw .decoderMissing(
        format, detail: "libheif has no decoder for this picture's compression; it needs a \(codec) plugin (\(message))"
      )
    }
    throw .corrupt(format, detail: message)
  }

  fileprivate func checkOpen() throws(ImageError) {
    guard open else { throw .corrupt(format, detail: "internal error: a HEIF context was used after its input") }
  }

  /// The picture the file shows. The corresponding C function is
  /// `heif_context_get_primary_image_handle`.
  func primaryImage() throws(ImageError) -> HEIFImageHandle {
    try checkOpen()
    var handle: OpaquePointer?
    try check(cheifshims_context_get_primary_image_handle(context, &handle))
    guard let handle else { throw .corrupt(format, detail: "libheif found no primary image") }
    return HEIFImageHandle(handle, context: self, itemID: nil)
  }
}

/// One image of a HEIF file (the primary image or a thumbnail), before decoding.
///
/// Its size is the one libheif decodes to: after the file's `clap`, `irot` and `imir`.
final class HEIFImageHandle {
  private let handle: OpaquePointer
  private let context: HEIFContext
  /// The image's item ID, for a thumbnail (the ID its list gave); `nil` for the primary image,
  /// whose ID is the file's `pitm`.
  let itemID: Int?

  fileprivate init(_ handle: OpaquePointer, context: HEIFContext, itemID: Int?) {
    self.handle = handle
    self.context = context
    self.itemID = itemID
  }

  deinit { cheifshims_image_handle_release(handle) }

  var width: Int { Int(cheifshims_image_handle_get_width(handle)) }
  var height: Int { Int(cheifshims_image_handle_get_height(handle)) }
  /// The corresponding C function is `heif_image_handle_has_alpha_channel`.
  var hasAlpha: Bool { cheifshims_image_handle_has_alpha_channel(handle) != 0 }
  /// Bits per luma sample (8, 10, 12), `nil` when the file does not say.
  var lumaBits: Int? {
    let bits = cheifshims_image_handle_get_luma_bits_per_pixel(handle)
    return bits > 0 ? Int(bits) : nil
  }

  /// What the `colr` box says. An ICC profile larger than `maximumProfileSize` is not read:
  /// `.untagged` and a warning instead. The corresponding C functions are
  /// `heif_image_handle_get_color_profile_type`, `heif_image_handle_get_raw_color_profile` and
  /// `heif_image_handle_get_nclx_color_profile`.
  func colorDescription(maximumProfileSize: Int) throws(ImageError) -> (ColorDescription, [String]) {
    try context.checkOpen()
    switch cheifshims_image_handle_get_color_profile_type(handle) {
    case heif_color_profile_type_prof, heif_color_profile_type_rICC:
      let size = cheifshims_image_handle_get_raw_color_profile_size(handle)
      guard size <= maximumProfileSize else {
        return (.untagged, ["the ICC profile of \(size) bytes is over \(maximumProfileSize) bytes; ignored"])
      }
      var profile = [UInt8](repeating: 0, count: size)
      let error = profile.withUnsafeMutableBytes {
        cheifshims_image_handle_get_raw_color_profile(handle, $0.baseAddress)
      }
      try context.check(error)
      return (.icc(profile), [])
    case heif_color_profile_type_nclx:
      var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
      let error = cheifshims_image_handle_get_nclx_color_profile(handle, &nclx)
      // libheif allocates the profile even when it refuses its code points: free it first.
      defer { if let nclx { cheifshims_nclx_color_profile_free(nclx) } }
      do {
        try context.check(error)
      } catch {
        guard case .corrupt(_, let detail) = error else { throw error }
        return (.untagged, ["the nclx colour box is unusable (\(detail)); the picture is taken as sRGB"])
      }
      guard let value = nclx?.pointee else { return (.untagged, []) }
      return (
        .nclx(
          primaries: Int(value.color_primaries.rawValue), transfer: Int(value.transfer_characteristics.rawValue),
          matrix: Int(value.matrix_coefficients.rawValue), fullRange: value.full_range_flag != 0),
        []
      )
    default:
      return (.untagged, [])
    }
  }

  /// The thumbnails stored for this image. The corresponding C functions are
  /// `heif_image_handle_get_list_of_thumbnail_IDs` and `heif_image_handle_get_thumbnail`.
  func thumbnails() throws(ImageError) -> [HEIFImageHandle] {
    try context.checkOpen()
    let count = cheifshims_image_handle_get_number_of_thumbnails(handle)
    guard count > 0 else { return [] }
    var ids = [heif_item_id](repeating: 0, count: Int(count))
    let listed = cheifshims_image_handle_get_list_of_thumbnail_IDs(handle, &ids, count)
    var thumbnails: [HEIFImageHandle] = []
    for id in ids.prefix(Int(max(listed, 0))) {
      var thumbnail: OpaquePointer?
      try context.check(cheifshims_image_handle_get_thumbnail(handle, id, &thumbnail))
      if let thumbnail { thumbnails.append(HEIFImageHandle(thumbnail, context: context, itemID: Int(id))) }
    }
    return thumbnails
  }

  /// Decodes the image to interleaved RGB, or RGBA (straight alpha) when `alpha`, with the
  /// file's transforms applied, grid images assembled from their tiles. Samples are 8-bit
  /// (libheif reduces 10 and 12 bits, `convert_hdr_to_8bit`), or with `wide` 16-bit
  /// little-endian words holding the image's own bits, unscaled, which
  /// ``HEIFImage/withPlane(_:)`` reports. The corresponding C function is `heif_decode_image`.
  func decode(alpha: Bool, wide: Bool) throws(ImageError) -> HEIFImage {
    try context.checkOpen()
    guard let options = cheifshims_decoding_options_alloc() else {
      throw .corrupt(context.format, detail: "libheif could not allocate decoding options")
    }
    defer { cheifshims_decoding_options_free(options) }
    options.pointee.convert_hdr_to_8bit = wide ? 0 : 1
    var image: OpaquePointer?
    let chroma: heif_chroma
    switch (alpha, wide) {
    case (false, false): chroma = heif_chroma_interleaved_RGB
    case (true, false): chroma = heif_chroma_interleaved_RGBA
    case (false, true): chroma = heif_chroma_interleaved_RRGGBB_LE
    case (true, true): chroma = heif_chroma_interleaved_RRGGBBAA_LE
    }
    try context.check(cheifshims_decode_image(handle, &image, heif_colorspace_RGB, chroma, options))
    guard let image else { throw .corrupt(context.format, detail: "libheif decoded no image") }
    return HEIFImage(image, format: context.format, channels: alpha ? 4 : 3, wide: wide)
  }
}

/// A decoded picture: one interleaved plane, of 8-bit samples or of 16-bit words, that libheif
/// owns.
final class HEIFImage {
  private let image: OpaquePointer
  private let format: ImageFormat
  let channels: Int
  /// Whether the samples are 16-bit words (see ``HEIFImageHandle/decode(alpha:wide:)``).
  let wide: Bool

  fileprivate init(_ image: OpaquePointer, format: ImageFormat, channels: Int, wide: Bool) {
    self.image = image
    self.format = format
    self.channels = channels
    self.wide = wide
  }

  deinit { cheifshims_image_release(image) }

  /// The plane's width and height, as decoded (after the file's transforms). The
  /// corresponding C functions are `heif_image_get_width` and `heif_image_get_height`.
  var size: (width: Int, height: Int) {
    (
      Int(cheifshims_image_get_width(image, heif_channel_interleaved)),
      Int(cheifshims_image_get_height(image, heif_channel_interleaved))
    )
  }

  /// Calls `body` with the plane's first row, its size, its stride in bytes and the bits each
  /// sample holds (8, or up to 16 in a 16-bit word); the pointer is valid only inside `body`.
  /// The corresponding C function is `heif_image_get_plane_readonly`.
  func withPlane<T>(
    _ body: (_ first: UnsafeRawPointer, _ width: Int, _ height: Int, _ stride: Int, _ bits: Int) -> T
  ) throws(ImageError) -> T {
    let width = Int(cheifshims_image_get_width(image, heif_channel_interleaved))
    let height = Int(cheifshims_image_get_height(image, heif_channel_interleaved))
    let bits = Int(cheifshims_image_get_bits_per_pixel_range(image, heif_channel_interleaved))
    let sampleBytes = wide ? 2 : 1
    var stride: Int32 = 0
    guard let first = cheifshims_image_get_plane_readonly(image, heif_channel_interleaved, &stride), width > 0,
      height > 0, wide ? (8...16).contains(bits) : bits == 8, Int(stride) >= width * channels * sampleBytes
    else {
      let kind = wide ? "16-bit" : "8-bit"
      throw .corrupt(format, detail: "libheif decoded no \(kind) interleaved plane (\(width)×\(height), \(bits) bits)")
    }
    return body(UnsafeRawPointer(first), width, height, Int(stride), bits)
  }
}
