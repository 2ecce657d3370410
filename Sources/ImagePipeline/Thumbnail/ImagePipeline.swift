/// The pipeline's entry points: what a caller that imports pictures needs.
///
/// Everything takes the file's bytes, recognises the format from them, and throws an
/// ``ImageError`` that says why when the bytes are not a usable JPEG or PNG.
public enum ImagePipeline {
  /// Shrink on load keeps at least this factor between the decoded size and the thumbnail, so
  /// the resampling filter (not the DCT's box) decides the quality.
  static let shrinkOnLoadMargin = 2

  /// What the header says, without decoding pixels.
  public static func readHeader(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
    switch try Sniffer.supportedFormat(of: bytes) {
    case .jpeg: return try JPEGDecoder.reading(bytes) { (decoder) throws(ImageError) in try decoder.readHeader() }
    default: return try PNGCodec.header(bytes)
    }
  }

  /// Decodes the picture in its stored orientation.
  ///
  /// With `minimumSize` (stored width and height), a JPEG is decoded at the smallest DCT scale
  /// (1/2, 1/4, 1/8) whose output is still at least that large ("shrink on load"); every byte
  /// of its entropy-coded data is still read and checked. PNG is always decoded at full size.
  public static func decode(
    _ bytes: UnsafeRawBufferPointer, minimumSize: (width: Int, height: Int)? = nil,
    options: DecodeOptions = DecodeOptions()
  ) throws(ImageError) -> DecodedImage {
    try decode(bytes, options: options) { _ in minimumSize }
  }

  /// Decodes with the minimum size chosen from the header, which is read once.
  static func decode(
    _ bytes: UnsafeRawBufferPointer, options: DecodeOptions,
    minimumSize: (ImageHeader) -> (width: Int, height: Int)?
  ) throws(ImageError) -> DecodedImage {
    switch try Sniffer.supportedFormat(of: bytes) {
    case .jpeg:
      return try JPEGDecoder.reading(bytes) { (decoder) throws(ImageError) in
        let header = try decoder.readHeader()
        try header.checkBudget(options.pixelBudget)
        let denominator = minimumSize(header).map {
          scaleDenominator(width: header.width, height: header.height, atLeast: $0)
        }
        let (pixels, _) = try decoder.decode(
          scaleDenominator: denominator ?? 1, lenient: options.lenient)
        return DecodedImage(
          header: header, pixels: pixels, warnings: decoder.warnings,
          scaleDenominator: denominator ?? 1)
      }
    default:
      return try PNGCodec.decode(bytes, options: options)
    }
  }

  /// Decodes `bytes` and makes the upright thumbnail `spec` describes: JPEG, or PNG when the
  /// picture has transparency, with no metadata.
  public static func thumbnail(
    _ bytes: UnsafeRawBufferPointer, spec: ThumbnailSpec = .default,
    options: DecodeOptions = DecodeOptions()
  ) throws(ImageError) -> ProcessedImage {
    let image = try thumbnailPixels(bytes, spec: spec, options: options)
    let pixels = image.pixels
    let thumbnail: Thumbnail
    if pixels.channels == 4 {
      thumbnail = Thumbnail(
        format: .png, width: pixels.width, height: pixels.height,
        bytes: try PNGCodec.encode(pixels))
    } else {
      thumbnail = Thumbnail(
        format: .jpeg, width: pixels.width, height: pixels.height,
        bytes: try JPEGEncoder.encode(pixels, quality: spec.quality, progressive: spec.progressive))
    }
    return ProcessedImage(header: image.header, thumbnail: thumbnail, warnings: image.warnings)
  }

  /// The thumbnail's pixels before encoding: upright, resized as `spec` says, RGBA only when
  /// some pixel is not opaque.
  ///
  /// The decoder's rows go straight into the resizer (a JPEG's shrunk on load), so the decoded
  /// picture is never held whole (except an interlaced PNG's, which libpng assembles in passes).
  public static func thumbnailPixels(
    _ bytes: UnsafeRawBufferPointer, spec: ThumbnailSpec = .default,
    options: DecodeOptions = DecodeOptions()
  ) throws(ImageError) -> DecodedImage {
    var decoded: DecodedImage
    switch try Sniffer.supportedFormat(of: bytes) {
    case .jpeg:
      decoded = try JPEGDecoder.reading(bytes) { (decoder) throws(ImageError) in
        let header = try decoder.readHeader()
        try header.checkBudget(options.pixelBudget)
        let (target, source) = sizes(header, spec: spec)
        let denominator = scaleDenominator(
          width: header.width, height: header.height,
          atLeast: (
            width: target.width * shrinkOnLoadMargin * header.width / source.width,
            height: target.height * shrinkOnLoadMargin * header.height / source.height
          ))
        var shrinker: ThumbnailShrinker?
        try decoder.decode(scaleDenominator: denominator, lenient: options.lenient) { width, height in
          shrinker = ThumbnailShrinker(
            width: width, height: height, channels: 3, mode: spec.mode, target: target, source: source,
            scale: Double(denominator))
        } rows: { first, stride, count in
          shrinker?.take(first, stride: stride, count: count)
        }
        guard let pixels = shrinker?.finish() else {
          throw .corrupt(.jpeg, detail: "libjpeg delivered no rows")
        }
        return DecodedImage(
          header: header, pixels: pixels, warnings: decoder.warnings, scaleDenominator: denominator)
      }
    default:
      var shrinker: ThumbnailShrinker?
      let (header, warnings) = try PNGCodec.decode(bytes, options: options) { header, width, height, channels in
        let (target, source) = sizes(header, spec: spec)
        shrinker = ThumbnailShrinker(
          width: width, height: height, channels: channels, mode: spec.mode, target: target, source: source,
          scale: 1)
      } rows: { first, stride, count in
        shrinker?.take(first, stride: stride, count: count)
      }
      guard let pixels = shrinker?.finish() else { throw .corrupt(.png, detail: "libpng delivered no rows") }
      decoded = DecodedImage(header: header, pixels: pixels, warnings: warnings)
    }
    var pixels = decoded.pixels
    if pixels.channels == 4 && !pixels.hasTransparency { pixels = pixels.droppingAlpha() }
    decoded.pixels = pixels.oriented(decoded.header.orientation)
    return decoded
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

  /// The largest DCT scale denominator (8, 4, 2, 1) whose output still covers `size`.
  static func scaleDenominator(width: Int, height: Int, atLeast size: (width: Int, height: Int))
    -> Int
  {
    for denominator in [8, 4, 2] {
      let scaledWidth = (width + denominator - 1) / denominator
      let scaledHeight = (height + denominator - 1) / denominator
      if scaledWidth >= size.width && scaledHeight >= size.height { return denominator }
    }
    return 1
  }

  /// Encodes pixels as PNG (RGB or RGBA).
  public static func encodePNG(_ pixels: PixelBuffer) throws(ImageError) -> [UInt8] {
    try PNGCodec.encode(pixels)
  }

  /// Encodes pixels as JPEG (alpha, if any, is dropped).
  public static func encodeJPEG(_ pixels: PixelBuffer, quality: Int = 85, progressive: Bool = false)
    throws(ImageError) -> [UInt8]
  {
    try JPEGEncoder.encode(pixels, quality: quality, progressive: progressive)
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
    options: DecodeOptions = DecodeOptions()
  ) throws(ImageError) -> DecodedImage {
    try bytes.withUnsafeBufferPointer { (buffer) throws(ImageError) in
      try decode(UnsafeRawBufferPointer(buffer), minimumSize: minimumSize, options: options)
    }
  }

  public static func thumbnail(
    _ bytes: [UInt8], spec: ThumbnailSpec = .default, options: DecodeOptions = DecodeOptions()
  ) throws(ImageError) -> ProcessedImage {
    try bytes.withUnsafeBufferPointer { (buffer) throws(ImageError) in
      try thumbnail(UnsafeRawBufferPointer(buffer), spec: spec, options: options)
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

/// A thumbnail made from a decoder's rows as they come: cropped to the centre square when the
/// spec asks for one, then resized (or kept as they are when already the thumbnail's size).
final class ThumbnailShrinker {
  private let crop: (x: Int, y: Int, width: Int, height: Int)
  private let channels: Int
  private let resizer: RowResizer?
  private var kept: [UInt8] = []
  private var row = 0

  /// `width` × `height` are the decoded rows' size; `target` and `source` are the thumbnail's
  /// size and the part of the original it shows (see `ImagePipeline.sizes`), and `scale` how
  /// much smaller the decoded rows are than the original.
  init(
    width: Int, height: Int, channels: Int, mode: ThumbnailSpec.Mode,
    target: (width: Int, height: Int), source: (width: Int, height: Int), scale: Double
  ) {
    switch mode {
    case .fit: crop = (0, 0, width, height)
    case .square:
      let side = min(width, height)
      crop = ((width - side) / 2, (height - side) / 2, side, side)
    }
    self.channels = channels
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
        outputWidth: target.width, outputHeight: target.height, extent: extent)
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

  /// The thumbnail's pixels, in the decoded (stored) orientation.
  func finish() -> PixelBuffer {
    if let resizer { return resizer.finish() }
    return PixelBuffer(width: crop.width, height: crop.height, channels: channels, pixels: kept)
  }
}
