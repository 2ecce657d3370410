/// An image format recognised from the bytes of a file.
///
/// JPEG, PNG, WebP, HEIC and AVIF are decoded; the others are recognised so that a refusal can name them.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, Codable {
  case jpeg
  case png
  case gif
  case webp
  case heic
  case avif
  case tiff
  case bmp
  case jpegXL = "jxl"

  /// The name people know the format by, as used in messages.
  public var name: String {
    switch self {
    case .jpeg: return "JPEG"
    case .png: return "PNG"
    case .gif: return "GIF"
    case .webp: return "WebP"
    case .heic: return "HEIC"
    case .avif: return "AVIF"
    case .tiff: return "TIFF"
    case .bmp: return "BMP"
    case .jpegXL: return "JPEG XL"
    }
  }

  /// Whether the pipeline decodes this format.
  public var isSupported: Bool { [.jpeg, .png, .webp, .heic, .avif].contains(self) }

  /// The formats the pipeline decodes, as records name them: "jpeg, png, webp, heic, avif".
  public static var decodedNames: String { allCases.filter(\.isSupported).map(\.rawValue).joined(separator: ", ") }

  /// The file name extension used when storing a file of this format.
  public var fileExtension: String {
    switch self {
    case .jpeg: return "jpg"
    case .tiff: return "tif"
    default: return rawValue
    }
  }
}
