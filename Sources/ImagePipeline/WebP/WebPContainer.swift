/// Reads a WebP's header from its RIFF container: the VP8X canvas or the VP8/VP8L bitstream
/// header, alpha, animation, and the `EXIF` and `ICCP` chunks.
///
/// Every length comes from the file, so every step is checked against the data's end and the
/// RIFF's end; no chunk is copied except an ICC profile of at most
/// ``maximumProfileSize`` bytes. The pixel data is left to libwebp.
enum WebPContainer {
  /// What the chunk walk found.
  struct Summary {
    var width: Int
    var height: Int
    var hasAlpha: Bool
    /// The first image chunk is VP8L (or, for an animation, unknown: `false`).
    var isLossless: Bool
    var isAnimated: Bool
    /// The size the VP8 or VP8L bitstream declares, when the file is a still picture that has
    /// one; for a VP8X file it must match the canvas.
    var bitstreamSize: (width: Int, height: Int)?
    var orientation: Orientation
    var color: ColorDescription
    var colorWarnings: [String]

    var header: ImageHeader {
      ImageHeader(
        format: .webp, width: width, height: height, colorModel: hasAlpha ? .rgba : .rgb, bitDepth: 8,
        hasAlpha: hasAlpha, orientation: orientation, isProgressive: false, color: color,
        colorWarnings: colorWarnings)
    }
  }

  /// The largest ICC profile taken from an `ICCP` chunk; a larger one is ignored (untagged).
  static let maximumProfileSize = 4 << 20

  /// The VP8X flags this reader uses.
  private static let iccFlag: UInt8 = 0x20
  private static let alphaFlag: UInt8 = 0x10
  private static let exifFlag: UInt8 = 0x08
  private static let animationFlag: UInt8 = 0x02

  /// Walks the chunks of `bytes`.
  ///
  /// With `whole`, `bytes` is the entire file: a RIFF or a chunk that runs past its end is
  /// `.truncated`. Without, `bytes` may be the first part of a file, and only what the header
  /// needs must be there: the first chunk (and, for VP8X, the `ICCP` and `EXIF` chunks its
  /// flags announce and the image chunk's first bytes).
  static func read(_ bytes: UnsafeRawBufferPointer, whole: Bool) throws(ImageError) -> Summary {
    func u8(_ offset: Int) -> Int { Int(bytes[offset]) }
    func u16(_ offset: Int) -> Int { u8(offset) | u8(offset + 1) << 8 }
    func u24(_ offset: Int) -> Int { u16(offset) | u8(offset + 2) << 16 }
    func u32(_ offset: Int) -> Int { u16(offset) | u16(offset + 2) << 16 }
    func name(_ offset: Int) -> String {
      String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 4]), as: UTF8.self)
    }

    guard bytes.count >= 12 else { throw .truncated(.webp, detail: "the file ends inside its RIFF header") }
    guard name(0) == "RIFF", name(8) == "WEBP" else {
      throw .corrupt(.webp, detail: "the file does not start with a RIFF header of type WEBP")
    }
    let riffEnd = 8 + u32(4)
    guard riffEnd >= 20 else {
      throw .corrupt(.webp, detail: "the RIFF header declares \(riffEnd - 8) bytes, too few for any chunk")
    }
    let end = min(riffEnd, bytes.count)

    var flags: UInt8?
    var animated = false
    var canvas: (width: Int, height: Int)?
    var bitstream: (width: Int, height: Int, alpha: Bool, lossless: Bool)?
    var hasAlphaChunk = false
    var exif: Range<Int>?
    var iccp: Range<Int>?
    /// The chunk (or chunk header) the data ends inside, when it does.
    var cutInside: (name: String, have: Int, declared: Int)?

    var offset = 12
    var first = true
    while offset < end {
      // Fewer than 8 bytes left in the RIFF are no chunk: ignored, as libwebp does.
      guard offset + 8 <= riffEnd else { break }
      guard offset + 8 <= end else {
        cutInside = ("chunk header", end - offset, 8)
        break
      }
      let chunk = name(offset)
      let length = u32(offset + 4)
      let start = offset + 8
      guard start + length <= riffEnd else {
        throw .corrupt(
          .webp, detail: "the \(label(chunk)) chunk declares \(length) bytes, past the end of the RIFF container")
      }
      let available = min(start + length, end) - start
      if available < length { cutInside = ("\(label(chunk)) chunk", available, length) }
      if first {
        first = false
        guard chunk == "VP8 " || chunk == "VP8L" || chunk == "VP8X" else {
          throw .corrupt(.webp, detail: "the first chunk is \(label(chunk)), not VP8, VP8L or VP8X")
        }
      }
      switch chunk {
      case "VP8X" where flags == nil:
        guard length >= 10 else {
          throw .corrupt(.webp, detail: "the VP8X chunk has \(length) bytes, fewer than its 10")
        }
        guard available >= 10 else { throw .truncated(.webp, detail: "the file ends inside its VP8X chunk") }
        flags = bytes[start]
        animated = bytes[start] & animationFlag != 0
        canvas = (u24(start + 4) + 1, u24(start + 7) + 1)
      case "VP8 " where bitstream == nil && !animated:
        guard available >= 10 else { throw .truncated(.webp, detail: "the file ends inside its VP8 header") }
        let tag = u24(start)
        guard tag & 1 == 0, u8(start + 3) == 0x9D, u8(start + 4) == 0x01, u8(start + 5) == 0x2A else {
          throw .corrupt(.webp, detail: "the VP8 bitstream does not start with a key frame")
        }
        bitstream = (u16(start + 6) & 0x3FFF, u16(start + 8) & 0x3FFF, false, false)
      case "VP8L" where bitstream == nil && !animated:
        guard available >= 5 else { throw .truncated(.webp, detail: "the file ends inside its VP8L header") }
        let bits = u32(start + 1)
        guard u8(start) == 0x2F, bits >> 29 == 0 else {
          throw .corrupt(.webp, detail: "the VP8L bitstream has no valid signature and version")
        }
        bitstream = ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1, bits >> 28 & 1 == 1, true)
      case "ALPH":
        hasAlphaChunk = true
      case "ICCP" where iccp == nil && flags != nil:
        iccp = start..<(start + length)
      case "EXIF" where exif == nil && flags != nil:
        exif = start..<(start + length)
      default:
        break
      }
      if cutInside != nil { break }
      offset = start + length + (length & 1)
    }
    let complete = cutInside == nil && riffEnd <= bytes.count

    if whole && !complete {
      if let cutInside {
        throw .truncated(
          .webp,
          detail: "the file ends inside its \(cutInside.name) (\(cutInside.have) of \(cutInside.declared) bytes)")
      }
      throw .truncated(
        .webp, detail: "the RIFF header declares \(riffEnd - 8) bytes, the file holds \(bytes.count - 8)")
    }

    guard let flags, let canvas else {
      // The simple format: the first chunk is the picture.
      guard let bitstream else { throw .truncated(.webp, detail: "the file ends inside its first chunk header") }
      guard bitstream.width > 0, bitstream.height > 0 else {
        throw .corrupt(.webp, detail: "the VP8 bitstream declares an image of \(bitstream.width)×\(bitstream.height)")
      }
      return Summary(
        width: bitstream.width, height: bitstream.height, hasAlpha: bitstream.alpha,
        isLossless: bitstream.lossless, isAnimated: false, bitstreamSize: (bitstream.width, bitstream.height),
        orientation: .up, color: .untagged, colorWarnings: [])
    }

    let isAnimated = animated
    // A chunk the flags announce, or the picture itself, may lie beyond the bytes given.
    if !complete {
      if flags & iccFlag != 0 && iccp.map({ $0.upperBound > bytes.count }) != false {
        throw .truncated(.webp, detail: "the file ends before its ICCP chunk does")
      }
      if flags & exifFlag != 0 && exif.map({ $0.upperBound > bytes.count }) != false {
        throw .truncated(.webp, detail: "the file ends before its EXIF chunk does")
      }
      if !isAnimated && bitstream == nil {
        throw .truncated(.webp, detail: "the file ends before its image chunk")
      }
    } else if !isAnimated && bitstream == nil {
      throw .corrupt(.webp, detail: "there is no VP8 or VP8L image chunk")
    }

    var summary = Summary(
      width: canvas.width, height: canvas.height,
      hasAlpha: flags & alphaFlag != 0 || hasAlphaChunk || bitstream?.alpha == true,
      isLossless: bitstream?.lossless ?? false, isAnimated: isAnimated,
      bitstreamSize: bitstream.map { ($0.width, $0.height) }, orientation: .up, color: .untagged,
      colorWarnings: [])
    if let exif, exif.upperBound <= bytes.count {
      var block = UnsafeRawBufferPointer(rebasing: bytes[exif])
      // Some writers keep JPEG's "Exif\0\0" in front of the TIFF block.
      if block.starts(with: Array("Exif\0\0".utf8)) { block = UnsafeRawBufferPointer(rebasing: block.dropFirst(6)) }
      summary.orientation = EXIFReader.orientation(tiff: block) ?? .up
    }
    if let iccp, iccp.upperBound <= bytes.count {
      if iccp.count > maximumProfileSize {
        summary.colorWarnings.append(
          "the ICC profile is \(iccp.count) bytes, more than the \(maximumProfileSize >> 20) MiB a profile may have: "
            + "the picture is treated as untagged")
      } else if iccp.isEmpty {
        summary.colorWarnings.append("the ICCP chunk is empty: the picture is treated as untagged")
      } else {
        summary.color = .icc(Array(UnsafeRawBufferPointer(rebasing: bytes[iccp])))
      }
    } else if flags & iccFlag != 0 {
      summary.colorWarnings.append(
        "the VP8X header announces an ICC profile, but there is no ICCP chunk: the picture is treated as untagged")
    }
    return summary
  }

  /// A chunk's name as messages show it: "VP8 " without its padding space.
  private static func label(_ name: String) -> String {
    var name = name
    while name.hasSuffix(" ") { name.removeLast() }
    return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } ? name : "unnamed"
  }
}
