/// The pipeline's entry points: what a caller that imports pictures needs.
///
/// Everything takes the file's bytes, recognises the format from them, and throws an
/// ``ImageError`` that says why when the bytes are not a usable picture.
public enum ImagePipeline {
  /// Shrink on load keeps at least this factor between the decoded size and the thumbnail, so
  /// the resampling filter (not the DCT's box) decides the quality.
  static let shrinkOnLoadMargin = 2

  /// The decoder of a format the pipeline supports.
  static func decoder(for format: ImageFormat) throws(ImageError) -> any FormatDecoder.Type {
    switch format {
    case .jpeg: return JPEGCodec.self
    case .png: return PNGCodec.self
    case .webp: return WebPCodec.self
    case .heic, .avif: return HEIFCodec.self
    default: throw .unsupported(format)
    }
  }

  /// What the header says, without decoding pixels.
  public static func readHeader(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
    try decoder(for: Sniffer.supportedFormat(of: bytes)).header(bytes)
  }

  /// How much of a file is read before it is recognised: enough for every format's signature
  /// (a HEIF file's brands are in its first box).
  static let sniffLength = 64 * 1024

  /// The decoder of the picture `input` holds, from its first bytes.
  static func decoder(of input: ByteReader) throws(ImageError) -> (ImageFormat, any FormatDecoder.Type) {
    input.prefetch(atLeast: sniffLength)
    let format = try Sniffer.supportedFormat(of: input.available)
    return (format, try decoder(for: format))
  }

  /// Decodes the picture in its stored orientation.
  ///
  /// With `minimumSize` (stored width and height), the picture is decoded at the smallest size
  /// its format allows that is still at least that large: a JPEG at a DCT scale (1/2, 1/4,
  /// 1/8), every byte of its entropy-coded data still read and checked; a WebP at any factor
  /// (libwebp's scaling). PNG is always decoded at full size. A preview stored in the file is
  /// never used: this is the picture itself.
  ///
  /// The pixels are converted to sRGB from the colours the file describes, unless
  /// `convertingToSRGB` is false (a check that only validates the data need not).
  public static func decode(
    _ bytes: UnsafeRawBufferPointer, minimumSize: (width: Int, height: Int)? = nil,
    options: DecodeOptions = DecodeOptions(), convertingToSRGB: Bool = true
  ) throws(ImageError) -> DecodedImage {
    try decode(
      ByteReader(memory: bytes), minimumSize: minimumSize, options: options, convertingToSRGB: convertingToSRGB)
  }

  /// ``decode(_:minimumSize:options:convertingToSRGB:)`` of a picture read from `source`, front
  /// to back, once.
  public static func decode(
    reading source: any PictureSource, minimumSize: (width: Int, height: Int)? = nil,
    options: DecodeOptions = DecodeOptions(), convertingToSRGB: Bool = true
  ) throws(ImageError) -> DecodedImage {
    try decode(
      ByteReader(source: source), minimumSize: minimumSize, options: options, convertingToSRGB: convertingToSRGB)
  }

  static func decode(
    _ input: ByteReader, minimumSize: (width: Int, height: Int)?, options: DecodeOptions, convertingToSRGB: Bool
  ) throws(ImageError) -> DecodedImage {
    let collector = PixelCollector()
    let report = try decoder(of: input).1.decode(
      input, options: options,
      request: { _ in DecodeRequest(minimum: minimumSize, target: nil, allowsPreview: false) },
      into: collector)
    guard var pixels = collector.buffer() else {
      throw .corrupt(report.header.format, detail: "the decoder delivered no rows")
    }
    var warnings = report.warnings + report.header.colorWarnings
    if convertingToSRGB && !report.rowsAreSRGB {
      warnings += ColorManagement.convertToSRGB(&pixels, from: report.header.color)
    }
    return DecodedImage(
      header: report.header, pixels: pixels, warnings: warnings, scaleDenominator: Int(report.scale.rounded()))
  }

  /// Decodes `bytes` and makes the upright thumbnail `spec` describes: JPEG, or PNG when the
  /// picture has transparency, with no metadata and no profile (it is sRGB).
  ///
  /// JPEG thumbnails keep chroma at full resolution (4:4:4) unless the source is itself a
  /// JPEG with subsampled chroma (``fullChroma(for:)``).
  public static func thumbnail(
    _ bytes: UnsafeRawBufferPointer, spec: ThumbnailSpec = .default,
    options: DecodeOptions = DecodeOptions()
  ) throws(ImageError) -> ProcessedImage {
    try thumbnail(ByteReader(memory: bytes), spec: spec, options: options)
  }

  /// ``thumbnail(_:spec:options:)`` of a picture read from `source`, front to back, once: a
  /// JPEG or a PNG is never held whole, in memory or decoded (a WebP or HEIF file is read
  /// whole first: its decoders need it so). Bytes after the picture's end may be left unread.
  public static func thumbnail(
    reading source: any PictureSource, spec: ThumbnailSpec = .default, options: DecodeOptions = DecodeOptions()
  ) throws(ImageError) -> ProcessedImage {
    try thumbnail(ByteReader(source: source), spec: spec, options: options)
  }

  static func thumbnail(_ input: ByteReader, spec: ThumbnailSpec, options: DecodeOptions) throws(ImageError)
    -> ProcessedImage
  {
    let image = try thumbnailPixels(input, spec: spec, options: options)
    return ProcessedImage(
      header: image.header, thumbnail: try encode(image.pixels, spec: spec, header: image.header),
      warnings: image.warnings)
  }

  /// Decodes `bytes` once and makes the thumbnail `spec` describes together with its
  /// high-density twin (``ThumbnailSpec/highDensity``, twice the longest edge, never larger
  /// than the picture), as a library keeps them: both in one format (JPEG, or PNG when the
  /// picture has transparency), so that one recorded format names both files.
  ///
  /// The 2× thumbnail is made as ``thumbnail(_:spec:options:)`` makes any (the decoder's rows
  /// resized as they come, shrunk on load with the same margin); the 1× one is resized from
  /// its pixels (Lanczos-3, a reduction of 2 at most), so the picture is decoded and resized
  /// once, and the second thumbnail costs a small resize and an encode.
  public static func thumbnails(
    _ bytes: UnsafeRawBufferPointer, spec: ThumbnailSpec = .default, options: DecodeOptions = DecodeOptions()
  ) throws(ImageError) -> ThumbnailPair {
    try thumbnails(ByteReader(memory: bytes), spec: spec, options: options)
  }

  /// ``thumbnails(_:spec:options:)`` of a picture read from `source`, front to back, once, as
  /// ``thumbnail(reading:spec:options:)`` reads it.
  public static func thumbnails(
    reading source: any PictureSource, spec: ThumbnailSpec = .default, options: DecodeOptions = DecodeOptions()
  ) throws(ImageError) -> ThumbnailPair {
    try thumbnails(ByteReader(source: source), spec: spec, options: options)
  }

  static func thumbnails(_ input: ByteReader, spec: ThumbnailSpec, options: DecodeOptions) throws(ImageError)
    -> ThumbnailPair
  {
    let image = try thumbnailPixels(input, spec: spec.highDensity, options: options)
    let size = spec.size(forUprightWidth: image.header.uprightWidth, height: image.header.uprightHeight)
    let standard = Resizer.resize(image.pixels, width: size.width, height: size.height)
    return ThumbnailPair(
      header: image.header, thumbnail: try encode(standard, spec: spec, header: image.header),
      highDensity: try encode(image.pixels, spec: spec, header: image.header), warnings: image.warnings)
  }

  /// A thumbnail's pixels encoded as `spec` says: PNG when they carry alpha, else JPEG.
  private static func encode(_ pixels: PixelBuffer, spec: ThumbnailSpec, header: ImageHeader) throws(ImageError)
    -> Thumbnail
  {
    if pixels.channels == 4 {
      return Thumbnail(
        format: .png, width: pixels.width, height: pixels.height, bytes: try PNGCodec.encode(pixels))
    }
    return Thumbnail(
      format: .jpeg, width: pixels.width, height: pixels.height,
      bytes: try JPEGEncoder.encode(
        pixels, quality: spec.quality, progressive: spec.progressive, fullChroma: fullChroma(for: header)))
  }

  /// The thumbnail's pixels before encoding: upright, resized as `spec` says, RGBA only when
  /// some pixel is not opaque.
  ///
  /// The decoder's rows go straight into the resizer (a JPEG's shrunk on load), so the decoded
  /// picture is never held whole (except where the format's decoder must assemble it, as an
  /// interlaced PNG's passes).
  public static func thumbnailPixels(
    _ bytes: UnsafeRawBufferPointer, spec: ThumbnailSpec = .default,
    options: DecodeOptions = DecodeOptions()
  ) throws(ImageError) -> DecodedImage {
    try thumbnailPixels(ByteReader(memory: bytes), spec: spec, options: options)
  }

  static func thumbnailPixels(_ input: ByteReader, spec: ThumbnailSpec, options: DecodeOptions) throws(ImageError)
    -> DecodedImage
  {
    let (format, decoder) = try decoder(of: input)
    let shrinker = ThumbnailShrinker(spec: spec)
    let report = try decoder.decode(
      input, options: options, request: { shrinker.plan(for: $0) }, into: shrinker)
    guard var pixels = shrinker.finish() else {
      throw .corrupt(format, detail: "the decoder delivered no rows")
    }
    var warnings = report.warnings + report.header.colorWarnings
    if !report.rowsAreSRGB {
      warnings += ColorManagement.convertToSRGB(&pixels, from: report.header.color)
    }
    if pixels.channels == 4 && !pixels.hasTransparency { pixels = pixels.droppingAlpha() }
    return DecodedImage(
      header: report.header, pixels: pixels.oriented(report.header.orientation), warnings: warnings,
      scaleDenominator: Int(report.scale.rounded()))
  }

  /// The thumbnail's size and the part of the picture it shows, both in the stored
  /// orientation (the picture is turned upright last, when it is small).
  static func sizes(_ header: ImageHeader, spec: ThumbnailSpec) -> (
    target: (width: Int, height: Int), source: (width: Int, height: Int)
  ) {
    let upright = spec.size(forUprightWidth: header.uprightWidth, height: header.uprightHeight)
    let target = header.orientation.swapsAxes ? (upright.height, upright.width) : upright
    switch spec.mode {
    case .fit: return (target, (header.width, header.height))
    case .square:
      let side = min(header.width, header.height)
      return (target, (side, side))
    }
  }

  /// Encodes pixels as PNG (RGB or RGBA).
  public static func encodePNG(_ pixels: PixelBuffer) throws(ImageError) -> [UInt8] {
    try PNGCodec.encode(pixels)
  }

  /// Encodes pixels as JPEG (alpha, if any, is dropped), chroma 4:4:4 when `fullChroma`.
  public static func encodeJPEG(
    _ pixels: PixelBuffer, quality: Int = 85, progressive: Bool = false, fullChroma: Bool = false
  ) throws(ImageError) -> [UInt8] {
    try JPEGEncoder.encode(pixels, quality: quality, progressive: progressive, fullChroma: fullChroma)
  }

  /// Whether a thumbnail of a picture with `header` keeps its chroma at full resolution.
  ///
  /// Halving chroma (4:2:0) suits photographs, whose colour changes slowly, and spoils
  /// graphics: the sharp coloured edges of screenshots, posters and drawings smear. A JPEG
  /// that was itself encoded 4:2:0 has lost that chroma already, so its thumbnail is 4:2:0 too
  /// (smaller, and no worse); every other source (PNG, WebP, HEIF, AVIF, a 4:4:4 or gray
  /// JPEG) gets 4:4:4.
  public static func fullChroma(for header: ImageHeader) -> Bool {
    !(header.format == .jpeg && header.chromaSubsampled)
  }
}

extension ImagePipeline {
  public static func readHeader(_ bytes: [UInt8]) throws(ImageError) -> ImageHeader {
    try bytes.withUnsafeBufferPointer { (buffer) throws(ImageError) in
      try readHeader(UnsafeRawBufferPointer(buffer))
    }
  }

  public static func decode(
    _ bytes: [UInt8], minimumSize: (width: Int, height: Int)? = nil,
    options: DecodeOptions = DecodeOptions(), convertingToSRGB: Bool = true
  ) throws(ImageError) -> DecodedImage {
    try bytes.withUnsafeBufferPointer { (buffer) throws(ImageError) in
      try decode(
        UnsafeRawBufferPointer(buffer), minimumSize: minimumSize, options: options, convertingToSRGB: convertingToSRGB)
    }
  }

  public static func thumbnail(
    _ bytes: [UInt8], spec: ThumbnailSpec = .default, options: DecodeOptions = DecodeOptions()
  ) throws(ImageError) -> ProcessedImage {
    try bytes.withUnsafeBufferPointer { (buffer) throws(ImageError) in
      try thumbnail(UnsafeRawBufferPointer(buffer), spec: spec, options: options)
    }
  }

  public static func thumbnails(
    _ bytes: [UInt8], spec: ThumbnailSpec = .default, options: DecodeOptions = DecodeOptions()
  ) throws(ImageError) -> ThumbnailPair {
    try bytes.withUnsafeBufferPointer { (buffer) throws(ImageError) in
      try thumbnails(UnsafeRawBufferPointer(buffer), spec: spec, options: options)
    }
  }

  public static func thumbnailPixels(
    _ bytes: [UInt8], spec: ThumbnailSpec = .default, options: DecodeOptions = DecodeOptions()
  ) throws(ImageError) -> DecodedImage {
    try bytes.withUnsafeBufferPointer { (buffer) throws(ImageError) in
      try thumbnailPixels(UnsafeRawBufferPointer(buffer), spec: spec, options: options)
    }
  }
}

/// An encoded thumbnail, upright.
public struct Thumbnail: Sendable, Equatable {
  /// `.jpeg`, or `.png` when the picture has transparency.
  public var format: ImageFormat
  public var width: Int
  public var height: Int
  public var bytes: [UInt8]
}

/// The result of importing a picture: its facts and its thumbnail.
public struct ProcessedImage: Sendable {
  /// The original's header; `uprightWidth` and `uprightHeight` are the sizes to record.
  public var header: ImageHeader
  public var thumbnail: Thumbnail
  /// Damage the decoder worked around; empty for a clean file.
  public var warnings: [String]
}

/// A picture's facts and its thumbnails for one spec, at 1× and at twice the density, made from
/// one decode (``ImagePipeline/thumbnails(_:spec:options:)``).
public struct ThumbnailPair: Sendable {
  /// The original's header; `uprightWidth` and `uprightHeight` are the sizes to record.
  public var header: ImageHeader
  /// The thumbnail the spec describes.
  public var thumbnail: Thumbnail
  /// The thumbnail of ``ThumbnailSpec/highDensity``, in `thumbnail`'s format.
  public var highDensity: Thumbnail
  /// Damage the decoder worked around; empty for a clean file.
  public var warnings: [String]
}

/// A thumbnail made from a decoder's rows as they come: cropped to the centre square when the
/// spec asks for one, then resized (or kept as they are when already the thumbnail's size).
final class ThumbnailShrinker: RowSink {
  private let spec: ThumbnailSpec
  /// The thumbnail's size and the part of the original it shows (see `ImagePipeline.sizes`),
  /// known once the header is.
  private var target = (width: 0, height: 0)
  private var source = (width: 0, height: 0)
  private var crop = (x: 0, y: 0, width: 0, height: 0)
  private var channels = 3
  private var resizer: RowResizer?
  private var kept: [UInt8] = []
  private var row = 0
  private var begun = false

  init(spec: ThumbnailSpec) { self.spec = spec }

  /// What to ask of the decoder for a picture with `header`: rows at least the margin times
  /// the thumbnail's size.
  func plan(for header: ImageHeader) -> DecodeRequest {
    (target, source) = ImagePipeline.sizes(header, spec: spec)
    let margin = ImagePipeline.shrinkOnLoadMargin
    return DecodeRequest(
      minimum: (
        width: target.width * margin * header.width / max(source.width, 1),
        height: target.height * margin * header.height / max(source.height, 1)
      ),
      target: target, allowsPreview: true)
  }

  /// `width` × `height` are the decoded rows' size, and `scale` how much smaller they are
  /// than the original.
  func begin(width: Int, height: Int, layout: RowLayout, scale: Double) {
    begun = true
    switch spec.mode {
    case .fit: crop = (0, 0, width, height)
    case .square:
      let side = min(width, height)
      crop = ((width - side) / 2, (height - side) / 2, side, side)
    }
    channels = layout.channels
    if target.width == crop.width && target.height == crop.height {
      resizer = nil
      kept.reserveCapacity(crop.width * crop.height * channels)
    } else {
      // What of the original the decoded pixels cover, in decoded pixels (see `Resizer`).
      let extent = (
        width: min(Double(crop.width), Double(source.width) / scale),
        height: min(Double(crop.height), Double(source.height) / scale)
      )
      resizer = RowResizer(
        inputWidth: crop.width, inputHeight: crop.height, channels: channels,
        outputWidth: max(target.width, 1), outputHeight: max(target.height, 1), extent: extent)
    }
  }

  /// Takes the next `count` decoded rows, `stride` bytes apart.
  func take(_ first: UnsafePointer<UInt8>, stride: Int, count: Int) {
    let firstWanted = max(row, crop.y)
    let endWanted = min(row + count, crop.y + crop.height)
    if firstWanted < endWanted {
      let start = first + (firstWanted - row) * stride + crop.x * channels
      if let resizer {
        resizer.take(start, stride: stride, count: endWanted - firstWanted)
      } else {
        for index in 0..<(endWanted - firstWanted) {
          kept.append(contentsOf: UnsafeBufferPointer(start: start + index * stride, count: crop.width * channels))
        }
      }
    }
    row += count
  }

  /// The thumbnail's pixels, in the decoded (stored) orientation; `nil` when no rows came.
  func finish() -> PixelBuffer? {
    guard begun, row > 0 else { return nil }
    if let resizer { return resizer.finish() }
    guard kept.count == crop.width * crop.height * channels else { return nil }
    return PixelBuffer(width: crop.width, height: crop.height, channels: channels, pixels: kept)
  }
}
