/// Reads a PNG's header from its chunks: IHDR, whether `tRNS` is present, the orientation in
/// `eXIf`, and the colour chunks (`iCCP`, `sRGB`, `gAMA`, `cHRM`).
///
/// Chunk lengths come from the file, so every step is checked against the data's end; CRCs are
/// left to the decoders (libpng, or `PNGStripDecoder`), which check them as they read. The IHDR
/// fields are checked here, for both.
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
    /// The range of the `iCCP` chunk's data, the `sRGB` chunk's intent, `gAMA`'s value and
    /// `cHRM`'s, as the file gives them (the first of each; they belong before the image data).
    var iccp: Range<Int>?
    var sRGBIntent: Int?
    var gamma: Double?
    var chromaticities: ColorDescription.Chromaticities?
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
    // What libpng's png_check_IHDR refuses ("Invalid IHDR data"), refused here for both decoders.
    let depths: [Int: [Int]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
    guard depths[summary.colorType]?.contains(summary.bitDepth) == true else {
      throw .corrupt(
        .png, detail: "IHDR declares colour type \(summary.colorType) at \(summary.bitDepth) bits, not a PNG kind")
    }
    guard bytes[data + 10] == 0, bytes[data + 11] == 0, bytes[data + 12] <= 1 else {
      throw .corrupt(
        .png,
        detail:
          "IHDR declares compression method \(bytes[data + 10]), filter method \(bytes[data + 11]), "
          + "interlace method \(bytes[data + 12]): PNG has 0, 0 and 0 or 1")
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
      case "iCCP" where summary.iccp == nil:
        summary.iccp = (offset + 8)..<(offset + 8 + length)
      case "sRGB" where length == 1 && summary.sRGBIntent == nil:
        summary.sRGBIntent = Int(bytes[offset + 8])
      case "gAMA" where length == 4 && summary.gamma == nil:
        let value = u32(offset + 8)
        if value > 0 { summary.gamma = Double(value) / 100_000 }
      case "cHRM" where length == 32 && summary.chromaticities == nil:
        let value = { (index: Int) in Double(u32(offset + 8 + index * 4)) / 100_000 }
        summary.chromaticities = .init(
          white: (value(0), value(1)), red: (value(2), value(3)), green: (value(4), value(5)),
          blue: (value(6), value(7)))
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
    try header(read(bytes), bytes)
  }

  /// What the colour chunks say, in PNG's order of precedence: an `iCCP` profile, then `sRGB`,
  /// then `cHRM` and `gAMA`. A profile that does not inflate, or inflates past the limit, is
  /// ignored with a warning (and the other chunks are used).
  static func color(_ summary: Summary, _ bytes: UnsafeRawBufferPointer) -> (ColorDescription, [String]) {
    var warnings: [String] = []
    if let range = summary.iccp {
      let data = UnsafeRawBufferPointer(rebasing: bytes[range])
      // A profile name of 1–79 bytes, a NUL, the compression method (0: zlib), the stream.
      if let nul = data.prefix(80).firstIndex(of: 0), nul >= 1, nul + 1 < data.count, data[nul + 1] == 0 {
        let stream = UnsafeRawBufferPointer(rebasing: data[(nul + 2)...])
        // The profile's first four bytes give its size: nothing more than that is inflated,
        // so a few bytes that inflate to gigabytes cost nothing.
        let declared: Int
        switch Inflate.prefix(stream, count: 4) {
        case .success(let head) where head.count == 4: declared = head.reduce(0) { $0 << 8 | Int($1) }
        case .success: declared = -1
        case .failure(.damaged(let reason)):
          warnings.append("the iCCP profile does not inflate (\(reason)): it is ignored")
          declared = -2
        case .failure(.tooLarge): declared = -1
        }
        if declared == -1 {
          warnings.append("the iCCP profile does not inflate (the data ends early): it is ignored")
        } else if declared > ColorManagement.profileLimit {
          warnings.append(
            "the iCCP profile declares \(declared) bytes, more than the limit of \(ColorManagement.profileLimit): "
              + "it is ignored")
        } else if declared >= 0 && declared < 132 {
          warnings.append("the iCCP profile declares a size of \(declared) bytes, less than its header: it is ignored")
        } else if declared >= 0 {
          switch Inflate.inflate(stream, limit: declared) {
          case .success(let profile): return (.icc(profile), [])
          case .failure(.tooLarge):
            warnings.append("the iCCP profile inflates to more than the \(declared) bytes it declares: it is ignored")
          case .failure(.damaged(let reason)):
            warnings.append("the iCCP profile does not inflate (\(reason)): it is ignored")
          }
        }
      } else {
        warnings.append("the iCCP chunk is malformed: it is ignored")
      }
    }
    if summary.sRGBIntent != nil || summary.gamma != nil || summary.chromaticities != nil {
      return (
        .png(sRGBIntent: summary.sRGBIntent, gamma: summary.gamma, chromaticities: summary.chromaticities), warnings
      )
    }
    return (.untagged, warnings)
  }

  static func header(_ summary: Summary, _ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
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
    let color = self.color(summary, bytes)
    return ImageHeader(
      format: .png, width: summary.width, height: summary.height, colorModel: model,
      bitDepth: summary.bitDepth,
      hasAlpha: summary.colorType == 4 || summary.colorType == 6 || summary.hasTransparencyChunk,
      orientation: summary.orientation, isProgressive: summary.interlaced, color: color.0, colorWarnings: color.1)
  }
}
