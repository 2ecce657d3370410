/// What an image's header says, read without decoding its pixels.
public struct ImageHeader: Sendable, Equatable {
  /// How the file stores colour.
  public enum ColorModel: String, Sendable, Equatable, Codable {
    case gray
    case grayAlpha = "gray-alpha"
    case rgb
    case rgba
    case palette
    case ycbcr
    case cmyk
    case ycck
    case unknown
  }

  public var format: ImageFormat
  /// Width as stored, before orientation.
  public var width: Int
  /// Height as stored, before orientation.
  public var height: Int
  public var colorModel: ColorModel
  /// Bits per sample (1, 2, 4, 8 or 16 for PNG; 8 or 12 for JPEG).
  public var bitDepth: Int
  /// Whether the image carries transparency (an alpha channel or a PNG `tRNS` chunk).
  public var hasAlpha: Bool
  /// The EXIF orientation; `.up` when there is none or it is malformed.
  public var orientation: Orientation
  /// A progressive JPEG or an interlaced (Adam7) PNG.
  public var isProgressive: Bool
  /// Whether the file stores its chroma at a lower resolution than its luma (a JPEG in 4:2:0
  /// or 4:2:2, as cameras write photographs).
  public var chromaSubsampled: Bool = false
  /// What the file says about its colours (an ICC profile, PNG's chunks, HEIF's nclx).
  public var color: ColorDescription
  /// Colour information that was present but unusable (a truncated profile, APP2 segments
  /// out of order), one line each: the picture is then treated as untagged.
  public var colorWarnings: [String]

  public init(
    format: ImageFormat, width: Int, height: Int, colorModel: ColorModel, bitDepth: Int,
    hasAlpha: Bool, orientation: Orientation, isProgressive: Bool, color: ColorDescription = .untagged,
    colorWarnings: [String] = []
  ) {
    self.format = format
    self.width = width
    self.height = height
    self.colorModel = colorModel
    self.bitDepth = bitDepth
    self.hasAlpha = hasAlpha
    self.orientation = orientation
    self.isProgressive = isProgressive
    self.color = color
    self.colorWarnings = colorWarnings
  }

  /// Width as shown, after orientation.
  public var uprightWidth: Int { orientation.upright(width: width, height: height).width }
  /// Height as shown, after orientation.
  public var uprightHeight: Int { orientation.upright(width: width, height: height).height }
  public var pixelCount: Int { width * height }
  /// The name of the picture's colour space: "sRGB", "Display P3", "Adobe RGB (1998)", a
  /// profile's own description, or "untagged" (see ``ColorManagement/name(of:)``).
  public var colorSpace: String { ColorManagement.name(of: color) }

  /// Refuses a header whose pixel count is over `budget`, before anything large is allocated.
  func checkBudget(_ budget: Int) throws(ImageError) {
    let (product, overflow) = width.multipliedReportingOverflow(by: height)
    if overflow || product > budget {
      throw .tooManyPixels(width: width, height: height, budget: budget)
    }
  }
}
