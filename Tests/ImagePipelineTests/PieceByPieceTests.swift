import Foundation
@testable import ImagePipeline
import Testing
import TestSupport

/// A picture read from a ``PictureSource`` a few bytes at a time decodes exactly as the same
/// file in memory: the same thumbnail, header and warnings, or the same error, whatever sizes
/// the reads come in (a JPEG's segments, a PNG's chunks, an IDAT's CRC split across them).
@Suite("Pictures read piece by piece")
struct PieceByPieceTests {
  /// A file handed out in reads of the sizes given, in turn.
  final class Pieces: PictureSource {
    let bytes: [UInt8]
    let sizes: [Int]
    private(set) var offset = 0
    private var call = 0

    init(_ bytes: [UInt8], sizes: [Int]) {
      self.bytes = bytes
      self.sizes = sizes
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
      let count = min(sizes[call % sizes.count], buffer.count, bytes.count - offset)
      call += 1
      bytes.withUnsafeBytes { source in
        buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: count)
      }
      offset += count
      return count
    }
  }

  /// The committed fixtures of `folder`, with their names.
  static func fixtures(in folder: String) -> [(name: String, bytes: [UInt8])] {
    let url = Fixture.root.appendingPathComponent(folder)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
    return names.sorted().compactMap { name in
      guard !name.hasSuffix(".txt"), let data = try? Data(contentsOf: url.appendingPathComponent(name)) else {
        return nil
      }
      return ("\(folder)/\(name)", [UInt8](data))
    }
  }

  static let folders = ["images", "hostile", "fuzz/png", "fuzz/heif"]

  /// What the pipeline made of a picture: the thumbnail and what it said, or the error.
  enum Outcome: Equatable {
    case thumbnail(Thumbnail, ImageHeader, [String])
    case refused(ImageError)

    init(_ make: () throws(ImageError) -> ProcessedImage) {
      do {
        let processed = try make()
        self = .thumbnail(processed.thumbnail, processed.header, processed.warnings)
      } catch {
        self = .refused(error)
      }
    }
  }

  @Test(arguments: folders)
  func everyFixtureMakesTheSameThumbnailReadInPieces(folder: String) throws {
    for (name, bytes) in Self.fixtures(in: folder) {
      // Leniently too when refused: a picture that ends early is decoded as far as it goes.
      var options = DecodeOptions()
      while true {
        let whole = Outcome { () throws(ImageError) in try ImagePipeline.thumbnail(bytes, options: options) }
        // A few bytes at a time for the small files (most are): every boundary falls everywhere.
        for sizes in (bytes.count < 16_384 ? [[1], [3, 7, 1]] : []) + [[4099], [65_537, 2]] {
          let source = Pieces(bytes, sizes: sizes)
          let pieces = Outcome { () throws(ImageError) in
            try ImagePipeline.thumbnail(reading: source, options: options)
          }
          #expect(pieces == whole, "\(name), lenient \(options.lenient), reads of \(sizes)")
        }
        guard case .refused = whole, !options.lenient else { break }
        options.lenient = true
      }
    }
  }

  /// The two PNG decoders agree on every PNG fixture read in pieces, as they do in memory.
  @Test(arguments: [[1], [5, 8, 13], [4099]])
  func bothPNGDecodersAgreeReadingInPieces(sizes: [Int]) throws {
    for (name, bytes) in Self.folders.flatMap(Self.fixtures(in:)) where name.hasSuffix(".png") {
      for lenient in [false, true] {
        let outcomes = [false, true].map { libpngOnly in
          PNGStripDecoderTests.outcome(bytes, libpngOnly: libpngOnly, lenient: lenient, pieces: sizes)
        }
        #expect(
          PNGStripDecoderTests.difference(outcomes[0], outcomes[1]) == nil,
          "\(name), lenient \(lenient), reads of \(sizes)")
        let inMemory = PNGStripDecoderTests.outcome(bytes, libpngOnly: false, lenient: lenient)
        #expect(
          PNGStripDecoderTests.difference(outcomes[0], inMemory) == nil,
          "\(name), lenient \(lenient): read in pieces against in memory")
      }
    }
  }

  /// A source that stops early (a read failed) is to the pipeline a file that ends there.
  @Test func aSourceThatStopsIsAFileCutThere() throws {
    let bytes = try Fixture.imageBytes("large-1600x1200.png")
    let source = Pieces(Array(bytes.prefix(bytes.count / 2)), sizes: [4096])
    #expect {
      try ImagePipeline.thumbnail(reading: source)
    } throws: { error in
      guard case .truncated(.png, _) = error as? ImageError else { return false }
      return true
    }
  }
}
