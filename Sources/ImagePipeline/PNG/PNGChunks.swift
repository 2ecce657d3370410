/// Reads a PNG's header from its chunks: IHDR, and whether `tRNS` and `eXIf` are present.
///
/// Chunk lengths come from the file, so every step is checked against the data's end; CRCs are
/// left to libpng, which checks them when it decodes.
enum PNGChunks {
  /// What the chunk walk found.
  struct Summary {
    var width: Int
    var height: Int
    var bitDepth: Int
    var colorType: Int
    var interlaced: Bool
    var hasTransparencyChunk: Bool
    var orientation: Orientation
    /// Whether an IEND chunk was reached; a walk that ran out of data first is a cut-off file.
    var reachedEnd: Bool
  }

  static let signatureLength = 8

  static func read(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> Summary {
    func u32(_ offset: Int) -> Int {
      Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
        | Int(bytes[offset + 3])
    }
    func type(_ offset: Int) -> String {
      String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 4]), as: UTF8.self)
    }
    let ihdr = signatureLength
    guard bytes.count >= ihdr + 8 + 13 + 4 else {
      throw .truncated(.png, detail: "the file ends inside its IHDR header")
    }
    guard type(ihdr + 4) == "IHDR", u32(ihdr) == 13 else {
      throw .corrupt(.png, detail: "the first chunk is not a valid IHDR")
    }
    let data = ihdr + 8
    var summary = Summary(
      width: u32(data), height: u32(data + 4), bitDepth: Int(bytes[data + 8]),
      colorType: Int(bytes[data + 9]), interlaced: bytes[data + 12] == 1,
      hasTransparencyChunk: false, orientation: .up, reachedEnd: false)
    guard summary.width > 0, summary.height > 0, summary.width <= Int(Int32.max),
      summary.height <= Int(Int32.max)
    else {
      throw .corrupt(.png, detail: "IHDR declares an image of \(summary.width)×\(summary.height)")
    }
    var offset = ihdr
    while offset + 12 <= bytes.count {
      let length = u32(offset)
      let name = type(offset + 4)
      let end = offset + 12 + length
      guard length <= Int(Int32.max), end <= bytes.count else { break }
      switch name {
      case "tRNS":
        summary.hasTransparencyChunk = true
      case "eXIf":
        let tiff = UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<(offset + 8 + length)])
        summary.orientation = EXIFReader.orientation(tiff: tiff) ?? .up
      case "IEND":
        summary.reachedEnd = true
        return summary
      default:
        break
      }
      offset = end
    }
    return summary
  }

  static func header(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
    try header(read(bytes))
  }

  static func header(_ summary: Summary) throws(ImageError) -> ImageHeader {
    let model: ImageHeader.ColorModel
    switch summary.colorType {
    case 0: model = .gray
    case 2: model = .rgb
    case 3: model = .palette
    case 4: model = .grayAlpha
    case 6: model = .rgba
    default:
      throw .corrupt(.png, detail: "IHDR declares an unknown colour type \(summary.colorType)")
    }
    return ImageHeader(
      format: .png, width: summary.width, height: summary.height, colorModel: model,
      bitDepth: summary.bitDepth,
      hasAlpha: summary.colorType == 4 || summary.colorType == 6 || summary.hasTransparencyChunk,
      orientation: summary.orientation, isProgressive: summary.interlaced)
  }
}
