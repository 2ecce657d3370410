/// Recognises an image format from its first bytes, never from a file name.
public enum Sniffer {
  /// The format whose signature starts `bytes`, or `nil` when none does.
  public static func format(of bytes: UnsafeRawBufferPointer) -> ImageFormat? {
    func starts(with signature: [UInt8], at offset: Int = 0) -> Bool {
      guard bytes.count >= offset + signature.count else { return false }
      for (index, byte) in signature.enumerated() where bytes[offset + index] != byte {
        return false
      }
      return true
    }
    if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
    if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
    if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return .gif }
    if starts(with: Array("RIFF".utf8)) && starts(with: Array("WEBP".utf8), at: 8) { return .webp }
    if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
      return .tiff
    }
    if starts(with: [0xFF, 0x0A])
      || starts(with: [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
    {
      return .jpegXL
    }
    if starts(with: Array("ftyp".utf8), at: 4), bytes.count >= 12 {
      let brand = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[8..<12]), as: UTF8.self)
      switch brand {
      case "avif", "avis": return .avif
      case "heic", "heix", "hevc", "hevx", "heim", "heis": return .heic
      default:
        // A generic major brand (mif1, msf1, or another): the compatible brands tell.
        let end = min(bytes.count, Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3]))
        let brands = stride(from: 16, to: end - 3, by: 4).map {
          String(decoding: UnsafeRawBufferPointer(rebasing: bytes[$0..<$0 + 4]), as: UTF8.self)
        }
        if brands.contains(where: { $0 == "avif" || $0 == "avis" }) { return .avif }
        if brand == "mif1" || brand == "msf1" || brands.contains(where: { $0.hasPrefix("he") || $0.hasPrefix("mif") }) {
          return .heic
        }
      }
    }
    // BMP last: "BM" is short, so also ask for a plausible header size.
    if starts(with: [0x42, 0x4D]), bytes.count >= 18 {
      let headerSize = Int(bytes[14]) | Int(bytes[15]) << 8
      if [12, 40, 52, 56, 64, 108, 124].contains(headerSize) { return .bmp }
    }
    return nil
  }

  /// The format of `bytes` when the pipeline can decode it, else the error that says why not.
  static func supportedFormat(of bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageFormat {
    guard !bytes.isEmpty else { throw .empty }
    guard let format = format(of: bytes) else { throw .notAnImage }
    guard format.isSupported else { throw .unsupported(format) }
    return format
  }
}
