/// How the pipeline drives one format's decoder: the header first, then the pixels as rows.
///
/// Each format (JPEG, PNG, WebP, HEIF/AVIF) has one caseless enum that conforms; the pipeline
/// picks it from the sniffed format (``ImagePipeline/decoder(for:)``) and knows nothing else of
/// the library behind it.
protocol FormatDecoder {
  /// What the header says, without decoding pixels: size, colour model, orientation and the
  /// picture's colour description. Given only the first bytes of a file, it may throw
  /// `.truncated`; the caller then reads the whole file and decodes.
  static func header(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader

  /// Decodes the picture in its stored orientation and hands its rows to `sink`.
  ///
  /// The decoder reads the header, checks it against `options.pixelBudget` before any large
  /// allocation, asks `request` what the caller needs, and decodes at the cheapest size that
  /// gives it (shrink on load, scaled decoding, an embedded preview where `request` allows
  /// one). It then calls `sink.begin` once and `sink.take` with every row, top to bottom.
  /// It takes the file's bytes from `input` as it goes (JPEG and PNG a chunk at a time, WebP
  /// and HEIF all at once), and may leave bytes after the picture's end unread.
  static func decode(
    _ input: ByteReader, options: DecodeOptions,
    request: (ImageHeader) -> DecodeRequest, into sink: any RowSink
  ) throws(ImageError) -> DecodeReport
}

extension FormatDecoder {
  /// ``decode(_:options:request:into:)`` of a file in memory.
  static func decode(
    _ bytes: UnsafeRawBufferPointer, options: DecodeOptions,
    request: (ImageHeader) -> DecodeRequest, into sink: any RowSink
  ) throws(ImageError) -> DecodeReport {
    try decode(ByteReader(memory: bytes), options: options, request: request, into: sink)
  }
}

/// The size a caller needs decoded, chosen once the header is known.
struct DecodeRequest {
  /// Decode at full size (or, for formats that cannot scale, as they can).
  static let fullSize = DecodeRequest(minimum: nil, target: nil, allowsPreview: false)

  /// The least size (stored orientation) the decoded rows must cover for the best result: the
  /// thumbnail's size times a margin, so that the resampling filter decides the quality.
  /// `nil`: full size.
  var minimum: (width: Int, height: Int)?
  /// The size the rows are going to be made into (stored orientation), when known.
  var target: (width: Int, height: Int)?
  /// Whether a preview image stored in the file (a HEIF thumbnail) may stand in for the
  /// picture when it is large enough. Never for checks and repairs: they decode the picture.
  var allowsPreview: Bool
}

/// Where decoded rows go.
protocol RowSink: AnyObject {
  /// Called once, before the first row: the decoded rows' size, their layout, and how much
  /// smaller than the stored picture they are (1 at full size, 8 for a JPEG at 1/8; a scaled
  /// WebP may give any factor).
  func begin(width: Int, height: Int, layout: RowLayout, scale: Double)
  /// The next `count` rows, `stride` bytes apart.
  func take(_ first: UnsafePointer<UInt8>, stride: Int, count: Int)
}

/// How decoded samples are laid out in a row.
enum RowLayout: Int, Sendable {
  /// 8-bit R, G, B.
  case rgb = 3
  /// 8-bit R, G, B and straight (not premultiplied) alpha.
  case rgba = 4

  var channels: Int { rawValue }
}

/// What a decode found, beyond its rows.
struct DecodeReport {
  var header: ImageHeader
  /// Damage the decoder worked around, and colour information it could not use.
  var warnings: [String]
  /// How much smaller than the stored picture the rows were (see ``RowSink/begin``).
  var scale: Double
  /// Whether the rows came from a preview stored in the file rather than the picture itself.
  var usedPreview: Bool = false
  /// Whether the decoder converted the rows to sRGB itself (a CMYK JPEG through its profile),
  /// so that the pipeline must not convert them again.
  var rowsAreSRGB: Bool = false
}

/// A sink that keeps every row: the decoded picture, whole.
final class PixelCollector: RowSink {
  private(set) var width = 0
  private(set) var height = 0
  private(set) var layout = RowLayout.rgb
  private var pixels: [UInt8] = []

  func begin(width: Int, height: Int, layout: RowLayout, scale: Double) {
    self.width = width
    self.height = height
    self.layout = layout
    pixels.reserveCapacity(width * height * layout.channels)
  }

  func take(_ first: UnsafePointer<UInt8>, stride: Int, count: Int) {
    let rowBytes = width * layout.channels
    if stride == rowBytes {
      pixels.append(contentsOf: UnsafeBufferPointer(start: first, count: rowBytes * count))
    } else {
      for row in 0..<count {
        pixels.append(contentsOf: UnsafeBufferPointer(start: first + row * stride, count: rowBytes))
      }
    }
  }

  /// The rows taken, as one buffer; `nil` when none came.
  func buffer() -> PixelBuffer? {
    guard width > 0, height > 0, pixels.count == width * height * layout.channels else { return nil }
    return PixelBuffer(width: width, height: height, channels: layout.channels, pixels: pixels)
  }
}
