/// Walks the marker segments of a JPEG file up to its first scan, for the EXIF block and the
/// ICC profile.
///
/// libjpeg reads the frame header itself; this walk exists because the orientation and the
/// profile live in APP1 and APP2 segments that libjpeg only hands over when asked to keep
/// markers in memory, and a bounded walk over a few segment headers costs nothing. It takes the
/// file's bytes as they are read (``Walker``), beside libjpeg, so that the file need not be in
/// memory at once.
enum JPEGMarkers {
  /// What the segments before the first scan hold.
  struct Found {
    /// The TIFF block of the first APP1 "Exif" segment (as much of it as the file holds).
    var exif: [UInt8]?
    /// The APP2 "ICC_PROFILE" segments, in the file's order.
    var iccSegments: [ICCSegment] = []
  }

  /// One APP2 segment of an ICC profile.
  struct ICCSegment {
    var sequence: Int
    var count: Int
    /// The length of its part of the profile, as the segment declares it.
    var length: Int
    /// Whether the file ends before that part does.
    var cutOff = false
    /// The part, kept while the parts declared so far add up to no more than
    /// ``ColorManagement/profileLimit`` (past it the profile is refused whatever they hold).
    var data: [UInt8] = []
  }

  static let iccSignature: [UInt8] = Array("ICC_PROFILE".utf8) + [0]
  static let exifSignature: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]

  /// Every segment of interest before the first scan of the file `bytes`.
  static func walk(_ bytes: UnsafeRawBufferPointer) -> Found {
    let walker = Walker()
    walker.consume(bytes)
    return walker.finish()
  }

  /// The walk over a file's bytes fed in order, in pieces of any size, each looked at once:
  /// only the EXIF block and the profile's parts are kept, every other byte passed over.
  final class Walker {
    /// Whether the walk reached the first scan (or a byte it cannot walk past): it looks at
    /// nothing after.
    private(set) var done = false
    private var found = Found()
    /// The bytes of the SOI marker still to pass over.
    private var soi = 2
    /// The next marker's bytes read so far: the walk decides with four in hand (a marker and
    /// the length that follows it), as the file's end allows.
    private var head: [UInt8] = []
    /// The segment whose payload is being read.
    private var segment: Segment?
    /// The profile's length as its segments declare it so far.
    private var profileLength = 0

    private struct Segment {
      var marker: UInt8
      /// Payload bytes still to come.
      var remaining: Int
      /// The first payload bytes, until the segment's kind is known.
      var prefix: [UInt8] = []
      var kind = Kind.undecided
    }

    private enum Kind {
      case undecided
      case skipped
      case exif
      /// The index of the segment in `found.iccSegments`, and whether its data is kept.
      case icc(Int, kept: Bool)
    }

    func consume(_ bytes: UnsafeRawBufferPointer) {
      var offset = 0
      while offset < bytes.count && !done {
        if soi > 0 {
          let count = min(soi, bytes.count - offset)
          soi -= count
          offset += count
        } else if segment != nil {
          offset += payload(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        } else {
          head.append(bytes[offset])
          offset += 1
          if head.count == 4 { marker() }
        }
      }
    }

    /// What was found; the file ends where the bytes given so far do.
    func finish() -> Found {
      if case .icc(let index, _) = segment?.kind { found.iccSegments[index].cutOff = true }
      return found
    }

    /// The four bytes at the walk's position: a fill byte, a marker without a length, the
    /// end of the walk, or a segment's marker and length.
    private func marker() {
      guard head[0] == 0xFF else { return stop() }
      let code = head[1]
      if code == 0xFF {  // fill byte
        head.removeFirst()
        return
      }
      // Markers without a length: TEM, RSTn, SOI, EOI.
      if code == 0x01 || (0xD0...0xD9).contains(code) {
        if code == 0xD9 { return stop() }
        head.removeFirst(2)
        return
      }
      if code == 0xDA { return stop() }  // start of scan: nothing of interest after it
      let length = Int(head[2]) << 8 | Int(head[3])
      guard length >= 2 else { return stop() }
      head.removeAll(keepingCapacity: true)
      segment = Segment(marker: code, remaining: length - 2)
      if length == 2 { segment = nil }
    }

    private func stop() {
      done = true
      segment = nil
    }

    /// Takes what `bytes` holds of the current segment's payload; how many bytes that was.
    private func payload(_ bytes: UnsafeRawBufferPointer) -> Int {
      guard var current = segment else { return 0 }
      var used = 0
      if case .undecided = current.kind {
        let needed =
          current.marker == 0xE1 && found.exif == nil
          ? exifSignature.count : current.marker == 0xE2 ? iccSignature.count + 2 : 0
        if needed > current.remaining || needed == 0 {
          current.kind = .skipped
        } else {
          let count = min(needed - current.prefix.count, bytes.count)
          current.prefix += bytes[0..<count]
          used = count
          current.remaining -= count
          if current.prefix.count == needed { current.kind = kind(of: current) }
        }
      }
      let count = min(current.remaining, bytes.count - used)
      let piece = bytes[used..<(used + count)]
      switch current.kind {
      case .exif: found.exif?.append(contentsOf: piece)
      case .icc(let index, kept: true): found.iccSegments[index].data.append(contentsOf: piece)
      default: break
      }
      current.remaining -= count
      used += count
      segment = current.remaining == 0 ? nil : current
      return used
    }

    /// The kind of a segment whose first payload bytes are in hand.
    private func kind(of segment: Segment) -> Kind {
      let prefix = segment.prefix
      if segment.marker == 0xE1 && prefix == exifSignature {
        found.exif = []
        return .exif
      }
      if segment.marker == 0xE2 && prefix.starts(with: iccSignature) {
        let numbers = iccSignature.count
        profileLength += segment.remaining
        let kept = profileLength <= ColorManagement.profileLimit
        found.iccSegments.append(
          ICCSegment(sequence: Int(prefix[numbers]), count: Int(prefix[numbers + 1]), length: segment.remaining))
        return .icc(found.iccSegments.count - 1, kept: kept)
      }
      return .skipped
    }
  }

  /// The orientation recorded in the file's EXIF block, `.up` without one.
  static func orientation(found: Found) -> Orientation {
    guard let exif = found.exif else { return .up }
    return exif.withUnsafeBytes { EXIFReader.orientation(tiff: $0) } ?? .up
  }

  /// The embedded ICC profile, reassembled from its APP2 segments in sequence order, and what
  /// was wrong when the segments do not make one profile (a segment missing, repeated or
  /// cut off, counts that disagree, more than ``ColorManagement/profileLimit`` bytes): the
  /// picture is then untagged.
  static func profile(found: Found) -> (ColorDescription, [String]) {
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
    } else if segments.contains(where: \.cutOff) {
      problem = "the file ends inside it"
    } else if segments.reduce(0, { $0 + $1.length }) > ColorManagement.profileLimit {
      problem = "it is larger than \(ColorManagement.profileLimit) bytes"
    } else {
      problem = nil
    }
    if let problem {
      return (.untagged, ["the embedded ICC profile is unusable (\(problem)): colours are shown as sRGB"])
    }
    var profile: [UInt8] = []
    for segment in segments.sorted(by: { $0.sequence < $1.sequence }) { profile += segment.data }
    return (.icc(profile), [])
  }
}
