/// Walks the marker segments of a JPEG file up to its first scan, to find the EXIF block.
///
/// libjpeg reads the frame header itself; this walk exists because the orientation lives in an
/// APP1 segment that libjpeg only hands over when asked to keep markers in memory, and a
/// bounded walk over a few segment headers costs nothing.
enum JPEGMarkers {
  /// The TIFF block of the first APP1 "Exif" segment, as a range of `bytes`.
  static func exifRange(in bytes: UnsafeRawBufferPointer) -> Range<Int>? {
    var offset = 2  // after SOI
    while offset + 4 <= bytes.count {
      guard bytes[offset] == 0xFF else { return nil }
      let marker = bytes[offset + 1]
      if marker == 0xFF {  // fill byte
        offset += 1
        continue
      }
      // Markers without a length: TEM, RSTn, SOI, EOI.
      if marker == 0x01 || (0xD0...0xD9).contains(marker) {
        if marker == 0xD9 { return nil }
        offset += 2
        continue
      }
      if marker == 0xDA { return nil }  // start of scan: no EXIF before it
      let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
      guard length >= 2 else { return nil }
      let payload = (offset + 4)..<min(offset + 2 + length, bytes.count)
      if marker == 0xE1, payload.count >= 6,
        bytes[payload.lowerBound] == 0x45, bytes[payload.lowerBound + 1] == 0x78,
        bytes[payload.lowerBound + 2] == 0x69, bytes[payload.lowerBound + 3] == 0x66,
        bytes[payload.lowerBound + 4] == 0, bytes[payload.lowerBound + 5] == 0
      {
        return (payload.lowerBound + 6)..<payload.upperBound
      }
      offset += 2 + length
    }
    return nil
  }

  /// The orientation recorded in the file's EXIF block, `.up` without one.
  static func orientation(in bytes: UnsafeRawBufferPointer) -> Orientation {
    guard let range = exifRange(in: bytes) else { return .up }
    return EXIFReader.orientation(tiff: UnsafeRawBufferPointer(rebasing: bytes[range])) ?? .up
  }
}
