/// Reads the orientation from an EXIF (TIFF-structured) block.
///
/// The block comes from the outside world, so parsing is bounded: only IFD0 is read (where EXIF
/// keeps the orientation), no offset is followed beyond it, and anything malformed simply yields
/// `nil`, which callers treat as upright. It never traps and never loops.
public enum EXIFReader {
  /// The orientation tag.
  static let orientationTag: UInt16 = 0x0112

  /// The orientation recorded in `tiff` (the bytes after "Exif\0\0" in a JPEG APP1 segment, or
  /// a PNG `eXIf` chunk), or `nil` when there is none or the block is malformed.
  public static func orientation(tiff: UnsafeRawBufferPointer) -> Orientation? {
    guard tiff.count >= 8 else { return nil }
    let bigEndian: Bool
    switch (tiff[0], tiff[1]) {
    case (0x49, 0x49): bigEndian = false
    case (0x4D, 0x4D): bigEndian = true
    default: return nil
    }
    func u16(_ offset: Int) -> UInt16? {
      guard offset >= 0, offset + 2 <= tiff.count else { return nil }
      let a = UInt16(tiff[offset])
      let b = UInt16(tiff[offset + 1])
      return bigEndian ? a << 8 | b : b << 8 | a
    }
    func u32(_ offset: Int) -> UInt32? {
      guard let high = u16(bigEndian ? offset : offset + 2),
        let low = u16(bigEndian ? offset + 2 : offset)
      else { return nil }
      return UInt32(high) << 16 | UInt32(low)
    }
    guard u16(2) == 42, let ifdOffset = u32(4), ifdOffset >= 8, Int(ifdOffset) < tiff.count,
      let entryCount = u16(Int(ifdOffset))
    else { return nil }
    let firstEntry = Int(ifdOffset) + 2
    // Entries past the end of the block are not there, whatever the count says.
    let entries = min(Int(entryCount), (tiff.count - firstEntry) / 12)
    for index in 0..<max(entries, 0) {
      let entry = firstEntry + index * 12
      guard u16(entry) == orientationTag else { continue }
      // SHORT (3), count 1: the value sits in the first two bytes of the value field.
      guard u16(entry + 2) == 3, u32(entry + 4) == 1, let value = u16(entry + 8) else {
        return nil
      }
      return Orientation(rawValue: Int(value))
    }
    return nil
  }
}
