/// Why an image could not be read, decoded or encoded.
///
/// The pipeline works on bytes and knows no file names: a caller that read the bytes from a
/// file puts its name in front of ``description`` ("holiday.jpg: truncated JPEG: …").
public enum ImageError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The input has no bytes at all.
  case empty
  /// The bytes are not an image format the pipeline recognises.
  case notAnImage
  /// A recognised format the pipeline does not decode (GIF, HEIC, TIFF, …).
  case unsupported(ImageFormat)
  /// The data ends before the image does: typically a file still being copied.
  case truncated(ImageFormat, detail: String)
  /// The data is damaged; `detail` is the decoder's own message.
  case corrupt(ImageFormat, detail: String)
  /// The header declares more pixels than the pixel budget allows; refused before decoding.
  case tooManyPixels(width: Int, height: Int, budget: Int)
  /// An encoder failed; `detail` is the library's message.
  case encodingFailed(ImageFormat, detail: String)
  /// The file may be sound, but this machine lacks what decodes it (libheif, or the plugin of
  /// its compression); `detail` says what to install.
  case decoderMissing(ImageFormat, detail: String)

  public var description: String {
    switch self {
    case .empty:
      return "empty file: there is nothing to decode"
    case .notAnImage:
      return "not an image: the data is not JPEG, PNG, WebP, HEIC or AVIF (nor any other known image format)"
    case .unsupported(let format):
      return "\(format.name) is not supported yet: convert it to JPEG or PNG first"
    case .truncated(let format, let detail):
      return "truncated \(format.name): \(detail) (was it still being copied?)"
    case .corrupt(let format, let detail):
      return "corrupt \(format.name): \(detail)"
    case .tooManyPixels(let width, let height, let budget):
      return
        "too many pixels: \(width)×\(height) is \(Self.megapixels(width * height)) megapixels, "
        + "over the budget of \(Self.megapixels(budget)) megapixels"
    case .encodingFailed(let format, let detail):
      return "cannot encode \(format.name): \(detail)"
    case .decoderMissing(let format, let detail):
      return "cannot decode \(format.name) on this machine: \(detail)"
    }
  }

  private static func megapixels(_ pixels: Int) -> String {
    let tenths = (pixels + 50_000) / 100_000
    return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
  }
}
