/// How forgiving and how large a decode may be.
public struct DecodeOptions: Sendable, Equatable {
  /// The default pixel budget: 100 megapixels.
  public static let defaultPixelBudget = 100_000_000

  /// The most pixels (width × height, as the header declares them) the decoder will take on.
  /// Checked from the header, before any large allocation.
  public var pixelBudget: Int
  /// Accept a file that ends before its image data does (libjpeg pads the rest with grey) and
  /// report it as a warning. Off by default: such a file is usually still being copied.
  public var lenient: Bool

  public init(pixelBudget: Int = DecodeOptions.defaultPixelBudget, lenient: Bool = false) {
    self.pixelBudget = pixelBudget
    self.lenient = lenient
  }
}

/// Pixels decoded from a file, as stored (not yet oriented), with what the decoder warned of.
public struct DecodedImage: Sendable {
  public var header: ImageHeader
  /// The pixels, at full size or at the reduced size asked for; in stored orientation.
  public var pixels: PixelBuffer
  /// Damage the decoder worked around ("Corrupt JPEG data: …"); empty for a clean file.
  public var warnings: [String]
  /// How much smaller than the stored picture the pixels were decoded: 1 for full size, else a
  /// JPEG's DCT scale (2, 4 or 8) or a scaled WebP's factor, rounded.
  public var scaleDenominator: Int = 1
}
