/// Walks the marker segments of a JPEG file up to its first scan, for the EXIF block and the
/// ICC profile.
///
/// libjpeg reads the frame header itself; this walk exists because the orientation and the
/// profile live in APP1 and APP2 segments that libjpeg only hands over when asked to keep
/// markers in memory, and a bounded walk over a few segment headers costs nothing.
enum JPEGMarkers {
  /// What the segments before the first scan hold.
  struct Found {
    /// The TIFF block of the first APP1 "Exif" segment, as a range of the bytes.
    var exif: Range<Int>?
    /// The APP2 "ICC_PROFILE" segments: sequence number, count, and the range of their data.
    var iccSegments: [(sequence: Int, count: Int, data: Range<Int>)] = []
  }

  static let iccSignature: [UInt8] = Array("ICC_PROFILE".utf8) + [0]

  /// Every segment of interest before the first scan.
  static func walk(_ bytes: UnsafeRawBufferPointer) -> Found {
    var found = Found()
    var offset = 2  // after SOI
    while offset + 4 <= bytes.count {
      guard bytes[offset] == 0xFF else { return found }
      let marker = bytes[offset + 1]
      if marker == 0xFF {  // fill byte
        offset += 1
        continue
      }
      // Markers without a length: TEM, RSTn, SOI, EOI.
      if marker == 0x01 || (0xD0...0xD9).contains(marker) {
        if marker == 0xD9 { return found }
        offset += 2
        continue
      }
      if marker == 0xDA { return found }  // start of scan: nothing of interest after it
      let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
      guard length >= 2 else { return found }
      let payload = (offset + 4)..<min(offset + 2 + length, bytes.count)
      if marker == 0xE1, found.exif == nil, starts(bytes, payload, with: [0x45, 0x78, 0x69, 0x66, 0, 0]) {
        found.exif = (payload.lowerBound + 6)..<payload.upperBound
      }
      if marker == 0xE2, payload.count >= iccSignature.count + 2, starts(bytes, payload, with: iccSignature) {
        let numbers = payload.lowerBound + iccSignature.count
        // The declared end, which lies past the data when the file is cut off inside it.
        found.iccSegments.append((Int(bytes[numbers]), Int(bytes[numbers + 1]), (numbers + 2)..<(offset + 2 + length)))
      }
      offset += 2 + length
    }
    return found
  }

  private static func starts(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, with prefix: [UInt8]) -> Bool {
    guard range.count >= prefix.count else { return false }
    return prefix.indices.allSatisfy { bytes[range.lowerBound + $0] == prefix[$0] }
  }

  /// The orientation recorded in the file's EXIF block, `.up` without one.
  static func orientation(in bytes: UnsafeRawBufferPointer, found: Found) -> Orientation {
    guard let range = found.exif else { return .up }
    return EXIFReader.orientation(tiff: UnsafeRawBufferPointer(rebasing: bytes[range])) ?? .up
  }

  /// The embedded ICC profile, reassembled from its APP2 segments in sequence order, and what
  /// was wrong when the segments do not make one profile (a segment missing, repeated or
  /// cut off, counts that disagree, more than ``ColorManagement/profileLimit`` bytes): the
  /// picture is then untagged.
  static func profile(in bytes: UnsafeRawBufferPointer, found: Found) -> (ColorDescription, [String]) {
    let segments = found.iccSegments
    guard let first = segments.first else { return (.untagged, []) }
    let count = first.count
    let problem: String?
    let sequences = segments.map(\.sequence).sorted()
    if count == 0 || segments.contains(where: { $0.count != count }) {
      problem = "its APP2 segments disagree on how many there are"
    } else if Set(sequences).count != sequences.count {
      problem = "an APP2 segment is repeated"
    } else if sequences != Array(1...count) {
      problem = "\(count - Set(sequences).intersection(1...count).count) of its \(count) APP2 segments are missing"
    } else if segments.contains(where: { $0.data.upperBound > bytes.count }) {
      problem = "the file ends inside it"
    } else if segments.reduce(0, { $0 + $1.data.count }) > ColorManagement.profileLimit {
      problem = "it is larger than \(ColorManagement.profileLimit) bytes"
    } else {
      problem = nil
    }
    if let problem {
      return (.untagged, ["the embedded ICC profile is unusable (\(problem)): colours are shown as sRGB"])
    }
    var profile: [UInt8] = []
    for segment in segments.sorted(by: { $0.sequence < $1.sequence }) {
      profile.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[segment.data]))
    }
    return (.icc(profile), [])
  }
}
