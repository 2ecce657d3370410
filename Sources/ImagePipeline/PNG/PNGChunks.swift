/// Reads a PNG's header from its chunks: IHDR, whether `tRNS` is present, the orientation in
/// `eXIf`, and the colour chunks (`iCCP`, `sRGB`, `gAMA`, `cHRM`).
///
/// Chunk lengths come from the file, so every step is checked against the data's end; CRCs are
/// left to the decoders (libpng, or `PNGStripDecoder`), which check them as they read. The IHDR
/// fields are checked here, for both. The walk (``Walker``) takes the file's bytes as they are
/// read, beside the decoder, so that the file need not be in memory at once: it keeps only the
/// chunks it reads, and passes over the image data.
enum PNGChunks {
  /// What the chunk walk found.
  struct Summary {
    var width: Int
    var height: Int
    var bitDepth: Int
    var colorType: Int
    var interlaced: Bool
    var hasTransparencyChunk = false
    var orientation = Orientation.up
    /// The `iCCP` chunk's data, the `sRGB` chunk's intent, `gAMA`'s value and `cHRM`'s, as the
    /// file gives them: the first of each, before the image data (where PNG puts them; libpng
    /// ignores them after).
    var iccp: [UInt8]?
    var sRGBIntent: Int?
    var gamma: Double?
    var chromaticities: ColorDescription.Chromaticities?
    /// Whether an IEND chunk was reached; a walk that ran out of data first is a cut-off file.
    var reachedEnd = false
    /// Whether every chunk before the image data was walked: the first `IDAT` chunk was reached,
    /// or the walk ended before one. Until then, transparency and colour may be still to come.
    var knowsChunksBeforeImageData = false
  }

  static let signatureLength = 8
  /// The signature and the IHDR chunk: what ``ihdr(_:)`` needs.
  static let headLength = signatureLength + 8 + 13 + 4

  /// The summary of the whole file `bytes`.
  static func read(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> Summary {
    let summary = try ihdr(bytes)
    let walker = Walker()
    walker.consume(bytes)
    return walker.summary(of: summary, atEnd: true)
  }

  /// The IHDR chunk's fields, from the file's first ``headLength`` bytes (fewer: the file ends
  /// inside them), checked as libpng checks them.
  static func ihdr(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> Summary {
    func u32(_ offset: Int) -> Int {
      Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
        | Int(bytes[offset + 3])
    }
    let ihdr = signatureLength
    guard bytes.count >= headLength else {
      throw .truncated(.png, detail: "the file ends inside its IHDR header")
    }
    guard bytes[(ihdr + 4)..<(ihdr + 8)].elementsEqual("IHDR".utf8), u32(ihdr) == 13 else {
      throw .corrupt(.png, detail: "the first chunk is not a valid IHDR")
    }
    let data = ihdr + 8
    let summary = Summary(
      width: u32(data), height: u32(data + 4), bitDepth: Int(bytes[data + 8]),
      colorType: Int(bytes[data + 9]), interlaced: bytes[data + 12] == 1)
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
    return summary
  }

  /// The walk over a file's chunks, fed the file's bytes in order, in pieces of any size, each
  /// looked at once. A chunk counts once it is whole (its CRC's four bytes included): a file
  /// that ends inside one ends the walk there.
  final class Walker {
    /// The most of an `iCCP` chunk kept: the zlib stream of the largest profile taken
    /// (``ColorManagement/profileLimit``) fits, even stored uncompressed, with its name. A
    /// longer chunk is cut there, and a profile it holds past that does not inflate.
    static let iccpLimit = ColorManagement.profileLimit + 4096
    /// The most of an `eXIf` chunk kept: the orientation is in the first directory, near its
    /// start, and no chunk may make the decoders allocate more (libpng's own limit).
    static let exifLimit = 1 << 20

    /// Whether the walk has seen the header of the first `IDAT` chunk.
    private(set) var reachedImageData = false
    /// Whether the walk has ended: at IEND, or at a chunk it cannot walk past.
    private(set) var stopped = false
    /// What the walk found beyond the IHDR, in a summary whose IHDR fields ``summary(of:atEnd:)``
    /// fills in.
    private var found = Summary(width: 0, height: 0, bitDepth: 0, colorType: 0, interlaced: false)
    /// The signature's bytes still to pass over.
    private var signature = PNGChunks.signatureLength
    /// The next chunk's length and type, or its CRC, as far as read.
    private var pending: [UInt8] = []
    private var chunk: Chunk?

    private struct Chunk {
      var type: String
      /// Data bytes still to come.
      var remaining: Int
      /// The data kept, for a chunk the walk reads (the first `limit` bytes of it).
      var data: [UInt8]?
      var limit = 0
    }

    func consume(_ bytes: UnsafeRawBufferPointer) {
      var offset = 0
      while offset < bytes.count && !stopped {
        if signature > 0 {
          let count = min(signature, bytes.count - offset)
          signature -= count
          offset += count
        } else if var current = chunk, current.remaining > 0 {
          let count = min(current.remaining, bytes.count - offset)
          if let kept = current.data?.count, kept < current.limit {
            current.data! += bytes[offset..<(offset + min(count, current.limit - kept))]
          }
          current.remaining -= count
          chunk = current
          offset += count
        } else {
          let count = min((chunk == nil ? 8 : 4) - pending.count, bytes.count - offset)
          pending += bytes[offset..<(offset + count)]
          offset += count
          if chunk == nil && pending.count == 8 {
            begin()
          } else if let current = chunk, pending.count == 4 {
            pending.removeAll(keepingCapacity: true)
            chunk = nil
            end(current)
          }
        }
      }
    }

    /// `ihdr` with what the walk found; `atEnd`: the file ends where the bytes given so far do.
    func summary(of ihdr: Summary, atEnd: Bool) -> Summary {
      var summary = found
      summary.width = ihdr.width
      summary.height = ihdr.height
      summary.bitDepth = ihdr.bitDepth
      summary.colorType = ihdr.colorType
      summary.interlaced = ihdr.interlaced
      summary.knowsChunksBeforeImageData = reachedImageData || stopped || atEnd
      return summary
    }

    /// A chunk's length and type are in `pending`.
    private func begin() {
      let length = pending[0..<4].reduce(0) { $0 << 8 | Int($1) }
      let type = String(decoding: pending[4..<8], as: UTF8.self)
      pending.removeAll(keepingCapacity: true)
      guard length <= Int(Int32.max) else {
        stopped = true
        return
      }
      if type == "IDAT" { reachedImageData = true }
      let early = !reachedImageData
      var current = Chunk(type: type, remaining: length)
      switch type {
      case "iCCP" where early && found.iccp == nil: current.limit = Self.iccpLimit
      case "sRGB" where early && length == 1 && found.sRGBIntent == nil: current.limit = 1
      case "gAMA" where early && length == 4 && found.gamma == nil: current.limit = 4
      case "cHRM" where early && length == 32 && found.chromaticities == nil: current.limit = 32
      case "eXIf": current.limit = Self.exifLimit
      default: break
      }
      if current.limit > 0 { current.data = [] }
      chunk = current
    }

    /// A whole chunk, its CRC read.
    private func end(_ chunk: Chunk) {
      let data = chunk.data ?? []
      func u32(_ offset: Int) -> Int { data[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) } }
      switch chunk.type {
      case "tRNS" where !reachedImageData:
        found.hasTransparencyChunk = true
      case "iCCP" where chunk.data != nil:
        found.iccp = data
      case "sRGB" where chunk.data != nil:
        found.sRGBIntent = Int(data[0])
      case "gAMA" where chunk.data != nil:
        let value = u32(0)
        if value > 0 { found.gamma = Double(value) / 100_000 }
      case "cHRM" where chunk.data != nil:
        let value = { (index: Int) in Double(u32(index * 4)) / 100_000 }
        found.chromaticities = .init(
          white: (value(0), value(1)), red: (value(2), value(3)), green: (value(4), value(5)),
          blue: (value(6), value(7)))
      case "eXIf":
        found.orientation = data.withUnsafeBytes { EXIFReader.orientation(tiff: $0) } ?? .up
      case "IEND":
        found.reachedEnd = true
        stopped = true
      default:
        break
      }
    }
  }

  static func header(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
    try header(read(bytes))
  }

  /// What the colour chunks say, in PNG's order of precedence: an `iCCP` profile, then `sRGB`,
  /// then `cHRM` and `gAMA`. A profile that does not inflate, or inflates past the limit, is
  /// ignored with a warning (and the other chunks are used).
  static func color(_ summary: Summary) -> (ColorDescription, [String]) {
    if let iccp = summary.iccp {
      return iccp.withUnsafeBytes { color(summary, iccp: $0) }
    }
    return color(summary, iccp: nil)
  }

  private static func color(_ summary: Summary, iccp: UnsafeRawBufferPointer?) -> (ColorDescription, [String]) {
    var warnings: [String] = []
    if let data = iccp {
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
    let color = self.color(summary)
    return ImageHeader(
      format: .png, width: summary.width, height: summary.height, colorModel: model,
      bitDepth: summary.bitDepth,
      hasAlpha: summary.colorType == 4 || summary.colorType == 6 || summary.hasTransparencyChunk,
      orientation: summary.orientation, isProgressive: summary.interlaced, color: color.0, colorWarnings: color.1)
  }
}
