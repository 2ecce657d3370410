import Foundation
@testable import ImagePipeline
import Testing
import TestSupport

/// The strip decoder must give exactly what libpng gives: the same bytes for every picture it
/// takes, and a refusal of the same kind for every file libpng refuses.
@Suite("PNG strip decoder")
struct PNGStripDecoderTests {
  /// What a decoder made of `bytes`: the pixels, or the kind of error.
  enum Outcome: Equatable {
    case pixels(width: Int, height: Int, channels: Int, [UInt8], warnings: [String])
    case truncated
    case corrupt
    case other(String)
  }

  /// With `pieces`, the file is read in pieces of those sizes in turn, not from memory.
  static func outcome(_ bytes: [UInt8], libpngOnly: Bool, lenient: Bool = false, pieces: [Int]? = nil) -> Outcome {
    let collector = PixelCollector()
    let options = DecodeOptions(lenient: lenient)
    let result = bytes.withUnsafeBytes { raw in
      Result { () throws(ImageError) in
        let input =
          pieces.map { ByteReader(source: PieceByPieceTests.Pieces(bytes, sizes: $0)) } ?? ByteReader(memory: raw)
        return try PNGCodec.decode(
          input, options: options, request: { _ in .fullSize }, into: collector, libpngOnly: libpngOnly)
      }
    }
    let warnings: [String]
    switch result {
    case .success(let report): warnings = report.warnings
    case .failure(.truncated): return .truncated
    case .failure(.corrupt): return .corrupt
    case .failure(let error): return .other("\(error)")
    }
    guard let buffer = collector.buffer() else { return .other("no rows") }
    return .pixels(
      width: buffer.width, height: buffer.height, channels: buffer.channels, buffer.pixels, warnings: warnings)
  }

  /// `nil` when the two outcomes are the same, else what differs in a line (not the pixels).
  static func difference(_ ours: Outcome, _ libpng: Outcome) -> String? {
    guard ours != libpng else { return nil }
    if case .pixels(let w1, let h1, let c1, let p1, let warnings1) = ours,
      case .pixels(let w2, let h2, let c2, let p2, let warnings2) = libpng, (w1, h1, c1) == (w2, h2, c2)
    {
      if p1 == p2 { return "warnings \(warnings1) against libpng's \(warnings2)" }
      let first = p1.indices.first { $0 >= p2.count || p1[$0] != p2[$0] } ?? p1.count
      let value = { (pixels: [UInt8]) in pixels[safe: first].map(String.init) ?? "none" }
      return "sample \(first) (row \(first / c1 / w1)) differs: \(value(p1)) against libpng's \(value(p2))"
    }
    func brief(_ outcome: Outcome) -> String {
      if case .pixels(let width, let height, let channels, _, _) = outcome { return "\(width)×\(height)×\(channels)" }
      return "\(outcome)"
    }
    return "\(brief(ours)) against libpng's \(brief(libpng))"
  }

  // MARK: Files made here

  /// A PNG of `width`×`height` 8-bit pixels of `colorType` whose filtered rows are `rows`
  /// (filter byte first): any bytes are valid filtered data, so random rows with every filter
  /// type exercise every path of the unfiltering. The zlib stream uses stored blocks, split
  /// into `IDAT` chunks at `splits`; with `wrongChecksum`, its Adler-32 is not the data's.
  static func png(
    width: Int, height: Int, colorType: UInt8, rows: [UInt8], idatSizes: [Int] = [], extraChunk: [UInt8]? = nil,
    wrongChecksum: Bool = false
  ) -> [UInt8] {
    var zlib: [UInt8] = [0x78, 0x01]
    var offset = 0
    repeat {
      let count = min(65_535, rows.count - offset)
      let final: UInt8 = offset + count == rows.count ? 1 : 0
      zlib += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8(~count >> 8 & 0xFF)]
      zlib += rows[offset..<(offset + count)]
      offset += count
    } while offset < rows.count
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in rows {
      a = (a + UInt32(byte)) % 65_521
      b = (b + a) % 65_521
    }
    zlib += bigEndian(b << 16 | a ^ (wrongChecksum ? 0xFFFF_FFFF : 0))

    var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    file += chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, colorType, 0, 0, 0])
    if let extraChunk { file += extraChunk }
    var start = 0
    for size in idatSizes where start < zlib.count {
      let end = min(zlib.count, start + size)
      file += chunk("IDAT", Array(zlib[start..<end]))
      start = end
    }
    if start < zlib.count { file += chunk("IDAT", Array(zlib[start...])) }
    file += chunk("IEND", [])
    return file
  }

  static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
  }

  static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let typed = Array(type.utf8) + data
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in typed {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }
    return bigEndian(UInt32(data.count)) + typed + bigEndian(crc ^ 0xFFFF_FFFF)
  }

  /// Random filtered rows, the filter type of each row chosen by `filter`.
  static func rows(width: Int, height: Int, channels: Int, seed: UInt64, filter: (Int) -> UInt8) -> [UInt8] {
    var state = seed
    var bytes: [UInt8] = []
    for row in 0..<height {
      bytes.append(filter(row))
      for _ in 0..<(width * channels) {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes.append(UInt8(truncatingIfNeeded: state >> 56))
      }
    }
    return bytes
  }

  @Test(arguments: [(UInt8(0), 1), (UInt8(2), 3), (UInt8(4), 2), (UInt8(6), 4)])
  func everyFilterOfEveryColourTypeDecodesAsLibpngDecodesIt(colorType: UInt8, channels: Int) {
    for (width, height) in [(1, 1), (1, 9), (2, 5), (3, 7), (5, 11), (17, 6), (64, 20), (257, 3), (1000, 70)] {
      for filter in 0...5 {
        // 0–4: every row the same filter; 5: the filters in turn, as adaptive encoders mix them.
        let rows = Self.rows(width: width, height: height, channels: channels, seed: UInt64(width * 31 + filter)) {
          filter == 5 ? UInt8($0 % 5) : UInt8(filter)
        }
        let file = Self.png(width: width, height: height, colorType: colorType, rows: rows, idatSizes: [7, 0, 100])
        let ours = Self.outcome(file, libpngOnly: false)
        guard case .pixels = ours else {
          Issue.record("\(width)×\(height) type \(colorType) filter \(filter): \(ours)")
          continue
        }
        let difference = Self.difference(ours, Self.outcome(file, libpngOnly: true))
        #expect(difference == nil, "\(width)×\(height) type \(colorType) filter \(filter)")
      }
    }
  }

  @Test func theStripDecoderTakesTheCommonKindsAndLeavesTheRestToLibpng() throws {
    let rows = Self.rows(width: 4, height: 4, channels: 3, seed: 1) { _ in 4 }
    let plain = Self.png(width: 4, height: 4, colorType: 2, rows: rows)
    #expect(PNGStripDecoder.reads(try plain.withUnsafeBytes { try PNGChunks.read($0) }))
    for name in ["palette-8.png", "rgb-16.png", "interlaced.png", "rgb-trns.png", "gray-4.png"] {
      let bytes = try Fixture.imageBytes(name)
      #expect(!PNGStripDecoder.reads(try bytes.withUnsafeBytes { try PNGChunks.read($0) }), "\(name)")
    }
  }

  @Test func everyPNGFixtureDecodesAsLibpngDecodesIt() throws {
    let folders = ["images", "hostile", "fuzz/png"].map { Fixture.root.appendingPathComponent($0) }
    var compared = 0
    for folder in folders {
      for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".png") {
        let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
        for lenient in [false, true] {
          let difference = Self.difference(
            Self.outcome(bytes, libpngOnly: false, lenient: lenient),
            Self.outcome(bytes, libpngOnly: true, lenient: lenient))
          #expect(difference == nil, "\(name), lenient \(lenient)")
        }
        compared += 1
      }
    }
    #expect(compared > 40)
  }

  // MARK: Damage

  static let sample: (rows: [UInt8], file: [UInt8]) = {
    let rows = Self.rows(width: 40, height: 30, channels: 4, seed: 9) { UInt8($0 % 5) }
    return (rows, Self.png(width: 40, height: 30, colorType: 6, rows: rows, idatSizes: [500, 500]))
  }()

  @Test func aBadFilterTypeIsRefusedAsLibpngRefusesIt() {
    var rows = Self.sample.rows
    rows[(40 * 4 + 1) * 12] = 5
    let file = Self.png(width: 40, height: 30, colorType: 6, rows: rows)
    #expect(Self.outcome(file, libpngOnly: false) == .corrupt)
    #expect(Self.outcome(file, libpngOnly: true) == .corrupt)
  }

  /// libpng refuses a chunk type that is not four letters, and takes (skipping it) a long
  /// ancillary chunk: so does the strip decoder.
  @Test func chunkHeadersAreCheckedAsLibpngChecksThem() {
    let rows = Self.rows(width: 8, height: 8, channels: 3, seed: 3) { _ in 1 }
    let misnamed = Self.png(width: 8, height: 8, colorType: 2, rows: rows, extraChunk: Self.chunk("t3Xt", [1, 2]))
    #expect(Self.outcome(misnamed, libpngOnly: false) == .corrupt)
    #expect(Self.outcome(misnamed, libpngOnly: true) == .corrupt)
    let long = Self.png(
      width: 8, height: 8, colorType: 2, rows: rows,
      extraChunk: Self.chunk("tEXt", [UInt8](repeating: 0x41, count: 3 << 20)))
    let ours = Self.outcome(long, libpngOnly: false)
    guard case .pixels = ours else {
      Issue.record("\(ours)")
      return
    }
    #expect(Self.difference(ours, Self.outcome(long, libpngOnly: true)) == nil)
  }

  @Test func aWrongIDATCRCIsRefused() {
    var file = Self.sample.file
    // The first IDAT's CRC: signature, IHDR (25 bytes), then the chunk's 8 + 500 bytes.
    file[8 + 25 + 8 + 500] ^= 0xFF
    #expect(Self.outcome(file, libpngOnly: false) == .corrupt)
    #expect(Self.outcome(file, libpngOnly: true) == .corrupt)
  }

  /// libpng checks the zlib stream's Adler-32 and refuses a file whose checksum is wrong, every
  /// chunk CRC right; so does the strip decoder, with the same words, wherever the chunks split
  /// the checksum.
  @Test func aWrongZlibChecksumIsRefusedByBothDecoders() {
    let rows = Self.sample.rows
    let zlibSize = 2 + 5 + rows.count + 4
    for sizes in [[], [500, 500], [zlibSize - 2], [zlibSize - 4]] {
      let file = Self.png(width: 40, height: 30, colorType: 6, rows: rows, idatSizes: sizes, wrongChecksum: true)
      for libpngOnly in [false, true] {
        let collector = PixelCollector()
        #expect(throws: ImageError.corrupt(.png, detail: "its compressed image data is damaged (zlib checksum)")) {
          try file.withUnsafeBytes { raw in
            try PNGCodec.decode(
              raw, options: DecodeOptions(lenient: true), request: { _ in .fullSize }, into: collector,
              libpngOnly: libpngOnly)
          }
        }
      }
    }
  }

  @Test func aFileCutInsideItsImageDataIsTruncatedBothWays() {
    let file = Self.sample.file
    for cut in [8 + 25 + 100, 8 + 25 + 600, file.count - 20] {
      let part = Array(file[0..<cut])
      #expect(Self.outcome(part, libpngOnly: false) == .truncated, "cut at \(cut)")
      #expect(Self.outcome(part, libpngOnly: true) == .truncated, "cut at \(cut)")
    }
  }

  @Test func tooLittleImageDataBeforeIENDIsCorrupt() {
    let rows = Array(Self.sample.rows.prefix(Self.sample.rows.count - 161))
    let file = Self.png(width: 40, height: 30, colorType: 6, rows: rows)
    #expect(Self.outcome(file, libpngOnly: false) == .corrupt)
    #expect(Self.outcome(file, libpngOnly: true) == .corrupt)
  }

  /// Every row is there, but the zlib stream stops without its last block and checksum.
  @Test func aStreamThatDoesNotEndAfterTheLastRowIsTreatedAsLibpngTreatsIt() {
    let file = Self.sample.file
    var zlib: [UInt8] = [0x78, 0x01]
    let rows = Self.sample.rows
    zlib += [
      0, UInt8(rows.count & 0xFF), UInt8(rows.count >> 8), UInt8(~rows.count & 0xFF), UInt8(~rows.count >> 8 & 0xFF),
    ]
    zlib += rows
    let ihdr = Array(file[8..<(8 + 25)])
    let unterminated = Array(file[0..<8]) + ihdr + Self.chunk("IDAT", zlib) + Self.chunk("IEND", [])
    let ours = Self.outcome(unterminated, libpngOnly: false)
    #expect(Self.difference(ours, Self.outcome(unterminated, libpngOnly: true)) == nil, "\(ours)")
  }

  @Test func dataAfterTheLastRowIsIgnoredAsLibpngIgnoresIt() {
    let rows = Self.sample.rows + [UInt8](repeating: 7, count: 300)
    let file = Self.png(width: 40, height: 30, colorType: 6, rows: rows)
    let ours = Self.outcome(file, libpngOnly: false)
    guard case .pixels = ours else {
      Issue.record("\(ours)")
      return
    }
    #expect(Self.difference(ours, Self.outcome(file, libpngOnly: true)) == nil)
  }
}

extension Array {
  fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
