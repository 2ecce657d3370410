import CPNGShims
import CZlib

/// PNG's commonest kind decoded without libpng: 8-bit grey, grey with alpha, RGB and RGBA, not
/// interlaced, without a `tRNS` chunk. Every other kind goes through ``PNGDecoder`` (libpng).
///
/// Why a decoder of our own for these: libpng undoes the row filters byte by byte, with a
/// branch per byte in the Paeth filter that photographs make unpredictable (Debian builds it
/// without its SSE2 filters), and it inflates one row per call. That is about 40% of the time
/// a photograph's PNG takes to thumbnail. Here the filters are undone a pixel at a time in SSE2
/// lanes, without branches (`cpngshims_unfilter`, in C), and zlib inflates a strip of rows per
/// call.
///
/// It reads what libpng reads and refuses what libpng refuses, with libpng's warnings: the
/// `IDAT` chunks must follow one another; a wrong CRC refuses a critical chunk and is a warning
/// on an ancillary one; a row's filter type must be 0–4; the zlib stream must hold every row
/// and end there (what follows the last row is inflated into a small scratch buffer to find
/// the end, with libpng's warnings: see `finish`), and end with the Adler-32 checksum of what
/// it inflated to, as libpng checks it. Tests decode every fixture both ways and compare
/// pixels, errors and warnings.
enum PNGStripDecoder {
  /// Whether the picture `summary` describes is one this decoder reads.
  static func reads(_ summary: PNGChunks.Summary) -> Bool {
    summary.bitDepth == 8 && [0, 2, 4, 6].contains(summary.colorType) && !summary.interlaced
      && !summary.hasTransparencyChunk
  }

  /// Decodes the picture of `bytes` (which ``reads(_:)`` accepted), handing its rows as 8-bit
  /// RGB, or RGBA for the colour types with alpha, to `rows` a strip at a time, once `begin`
  /// has been told the size. Returns the warnings, worded as libpng words them.
  static func decode(
    _ bytes: UnsafeRawBufferPointer, summary: PNGChunks.Summary, begin: (_ width: Int, _ height: Int) -> Void,
    rows: (_ first: UnsafePointer<UInt8>, _ stride: Int, _ count: Int) -> Void
  ) throws(ImageError) -> [String] {
    let channels = [0: 1, 2: 3, 4: 2, 6: 4][summary.colorType] ?? 3
    let width = summary.width
    let height = summary.height
    let rowBytes = width * channels
    let filtered = rowBytes + 1
    // Strips of about 64 KiB of filtered rows; slot 0 holds the row above the strip.
    let strip = max(1, min(height, 65_536 / filtered))
    let capacity = (strip + 1) * filtered
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    defer { buffer.deallocate() }
    buffer.initialize(repeating: 0, count: capacity)
    // Grey and grey with alpha are widened to RGB(A) for the sink.
    let outputChannels = channels < 3 ? channels + 2 : channels
    let widened: UnsafeMutablePointer<UInt8>? =
      channels < 3 ? .allocate(capacity: strip * width * outputChannels) : nil
    defer { widened?.deallocate() }

    var input = IDATReader(bytes: bytes, width: width, height: height, channels: channels)
    var stream = z_stream()
    guard czlib_inflate_init(&stream) == Z_OK else { throw .corrupt(.png, detail: "zlib could not start") }
    defer { inflateEnd(&stream) }

    begin(width, height)
    var done = 0
    var ended = false
    while done < height {
      let count = min(strip, height - done)
      ended = try inflate(&stream, into: buffer + filtered, count: count * filtered, from: &input, summary: summary)
      for index in 1...count {
        let row = buffer + index * filtered
        try unfilter(row, above: row - filtered + 1, rowBytes: rowBytes, channels: channels, row: done + index - 1)
      }
      if let widened {
        widen(buffer + filtered + 1, stride: filtered, count: count, width: width, channels: channels, into: widened)
        rows(widened, width * outputChannels, count)
      } else {
        rows(buffer + filtered + 1, filtered, count)
      }
      (buffer + 1).update(from: buffer + count * filtered + 1, count: rowBytes)
      done += count
    }
    var warnings: [String] = []
    if ended {
      // The stream ended with the last row, and more data follows it in the chunk.
      if stream.avail_in > 0 { warnings.append("IDAT: Extra compressed data") }
    } else {
      try finish(&stream, from: &input, warnings: &warnings)
    }
    return input.warnings + warnings
  }

  /// After the last row, what libpng does (`png_read_IDAT_data` with no output): the rest of
  /// the zlib stream is inflated into a 1 KiB scratch buffer, kept nowhere, until it ends. Data
  /// that runs on is a warning ("Too much image data"), and so are bytes after the stream's end
  /// ("Extra compressed data") and damage after the last row (zlib's message); a stream that
  /// runs out of `IDAT` chunks first is refused, as libpng refuses it. The time this takes is
  /// bounded by the file's size (deflate expands at most about 1032 to 1), the memory by 1 KiB.
  private static func finish(
    _ stream: inout z_stream, from input: inout IDATReader, warnings: inout [String]
  ) throws(ImageError) {
    let scratchSize = 1024
    let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: scratchSize)
    defer { scratch.deallocate() }
    var extra = 0
    while true {
      if stream.avail_in == 0 {
        guard try feed(&stream, from: &input) else {
          throw .corrupt(.png, detail: "the image data does not end where its last row does")
        }
        continue
      }
      stream.next_out = scratch
      stream.avail_out = uInt(scratchSize)
      let status = CZlib.inflate(&stream, Z_NO_FLUSH)
      extra += scratchSize - Int(stream.avail_out)
      if status == Z_STREAM_END {
        if stream.avail_in > 0 { warnings.append("IDAT: Extra compressed data") }
        break
      }
      guard status == Z_OK else {
        // Damage after the last row is libpng's warning, but not a wrong checksum: the rows
        // are not what was written.
        if isBadChecksum(stream, status) { throw .corrupt(.png, detail: PNGCodec.badChecksum) }
        warnings.append("IDAT: \(zlibMessage(stream, status))")
        return
      }
      // As libpng: done if the first call gave nothing; once output came, on to the stream's end.
      if extra == 0 { break }
    }
    if extra > 0 { warnings.append("IDAT: Too much image data") }
  }

  /// Gives zlib the next `IDAT` chunk's data; `false` when the run of `IDAT` chunks has ended.
  private static func feed(_ stream: inout z_stream, from input: inout IDATReader) throws(ImageError) -> Bool {
    guard let chunk = try input.next() else { return false }
    stream.next_in = UnsafeMutablePointer(mutating: chunk.baseAddress?.assumingMemoryBound(to: Bytef.self))
    stream.avail_in = uInt(chunk.count)
    return true
  }

  /// Whether zlib failed because the stream's Adler-32 is not that of the data inflated.
  private static func isBadChecksum(_ stream: z_stream, _ status: Int32) -> Bool {
    status == Z_DATA_ERROR && stream.msg.map { String(cString: $0) } == "incorrect data check"
  }

  /// zlib's message for a failed call, or libpng's wording when zlib gives none.
  private static func zlibMessage(_ stream: z_stream, _ status: Int32) -> String {
    if let message = stream.msg { return String(cString: message) }
    switch status {
    case Z_NEED_DICT: return "missing LZ dictionary"
    case Z_MEM_ERROR: return "insufficient memory"
    case Z_BUF_ERROR: return "truncated"
    default: return "unexpected zlib return code"
    }
  }

  /// Inflates exactly `count` bytes into `target`, feeding zlib the `IDAT` chunks as it needs
  /// them; whether the zlib stream ended with them.
  private static func inflate(
    _ stream: inout z_stream, into target: UnsafeMutablePointer<UInt8>, count: Int, from input: inout IDATReader,
    summary: PNGChunks.Summary
  ) throws(ImageError) -> Bool {
    stream.next_out = target
    stream.avail_out = uInt(count)
    while stream.avail_out > 0 {
      if stream.avail_in == 0 {
        guard try feed(&stream, from: &input) else {
          if !summary.reachedEnd || input.ranOut {
            throw .truncated(.png, detail: "the file ends before its image data does")
          }
          throw .corrupt(.png, detail: "the image data ends before the last row")
        }
        continue
      }
      let status = CZlib.inflate(&stream, Z_NO_FLUSH)
      switch status {
      case Z_OK, Z_BUF_ERROR:
        continue
      case Z_STREAM_END where stream.avail_out > 0:
        throw .corrupt(.png, detail: "the image data ends before the last row")
      case Z_STREAM_END:
        return true
      default:
        if isBadChecksum(stream, status) { throw .corrupt(.png, detail: PNGCodec.badChecksum) }
        throw .corrupt(.png, detail: "the image data is damaged (\(zlibMessage(stream, status)))")
      }
    }
    return false
  }

  /// Undoes the filter of one row in place: `row` is the filter type byte and `rowBytes`
  /// filtered bytes; `above` is the row above, already unfiltered (zeros for the first).
  static func unfilter(
    _ row: UnsafeMutablePointer<UInt8>, above: UnsafePointer<UInt8>, rowBytes: Int, channels: Int, row index: Int
  ) throws(ImageError) {
    guard cpngshims_unfilter(Int32(row.pointee), row + 1, above, rowBytes, Int32(channels)) == 0 else {
      throw .corrupt(.png, detail: "row \(index + 1) has filter type \(row.pointee), not 0–4")
    }
  }

  /// Grey rows as RGB, grey with alpha as RGBA.
  private static func widen(
    _ first: UnsafePointer<UInt8>, stride: Int, count: Int, width: Int, channels: Int,
    into target: UnsafeMutablePointer<UInt8>
  ) {
    var out = target
    for index in 0..<count {
      let row = first + index * stride
      for pixel in 0..<width {
        let grey = row[pixel * channels]
        out[0] = grey
        out[1] = grey
        out[2] = grey
        if channels == 2 {
          out[3] = row[pixel * 2 + 1]
          out += 4
        } else {
          out += 3
        }
      }
    }
  }
}

/// The `IDAT` chunks of a PNG in order; every chunk up to them is checked against its CRC.
private struct IDATReader {
  let bytes: UnsafeRawBufferPointer
  private var offset = PNGChunks.signatureLength
  private var started = false
  private var finished = false
  /// Whether the walk stopped because the file ended inside a chunk.
  private(set) var ranOut = false
  /// What libpng warns about the chunks, in its words, each once.
  var warnings: [String] = []

  private mutating func warn(_ message: String) {
    if !warnings.contains(message) { warnings.append(message) }
  }

  /// The chunk types, as big-endian numbers.
  private static let idat: UInt32 = 0x4944_4154
  private static let iend: UInt32 = 0x4945_4E44
  private static let ihdr: UInt32 = 0x4948_4452

  /// Past these lengths libpng warns "chunk data is too large" (`png_check_chunk_length`):
  /// what one chunk may make it allocate (the decoders' shared limit), and for `IDAT` at least
  /// what the picture's rows could need compressed.
  private static let chunkLimit = Int(CPNGSHIMS_CHUNK_MALLOC_MAX)
  private let idatLimit: Int

  init(bytes: UnsafeRawBufferPointer, width: Int, height: Int, channels: Int) {
    self.bytes = bytes
    let maximum = Int(Int32.max)
    let rowFactor = width * channels + 1
    var limit = height > Int(UInt32.max) / rowFactor ? maximum : height * rowFactor
    limit += 6 + 5 * (limit / min(rowFactor, 32_566) + 1)
    idatLimit = max(Self.chunkLimit, min(limit, maximum))
  }

  /// The next `IDAT` chunk's data, or `nil` when the run of `IDAT` chunks has ended.
  mutating func next() throws(ImageError) -> UnsafeRawBufferPointer? {
    guard !finished else { return nil }
    while true {
      guard offset + 8 <= bytes.count else {
        ranOut = true
        finished = true
        return nil
      }
      let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).bigEndian)
      let type = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).bigEndian
      // libpng's checks of every chunk header it reads, in its order: the type's four bytes
      // are letters, the length fits in 31 bits, and a length past its limit is a warning.
      let typeBytes = UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 8)])
      guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
        throw .corrupt(.png, detail: "a chunk's type is not four letters")
      }
      var name: String { String(decoding: typeBytes, as: UTF8.self) }
      guard length <= Int(Int32.max) else { throw .corrupt(.png, detail: "\(name): chunk data is too large") }
      if length > (type == Self.idat ? idatLimit : Self.chunkLimit) {
        warn("\(name): chunk data is too large")
      }
      guard length <= bytes.count - offset - 12 else {
        ranOut = true
        finished = true
        return nil
      }
      let start = offset
      offset += 12 + length
      // libpng refuses a second IHDR ("out of place"), whatever follows.
      if type == Self.ihdr && start != PNGChunks.signatureLength {
        throw .corrupt(.png, detail: "IHDR: out of place")
      }
      if type != Self.idat && (started || type == Self.iend) {
        finished = true
        return nil
      }
      // As libpng: a critical chunk with a wrong CRC is refused, an ancillary one is a warning.
      let stored = bytes.loadUnaligned(fromByteOffset: start + 8 + length, as: UInt32.self).bigEndian
      let typed = UnsafeRawBufferPointer(rebasing: bytes[(start + 4)..<(start + 8 + length)])
      let computed = crc32(0, typed.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(typed.count))
      if UInt32(truncatingIfNeeded: computed) != stored {
        guard type & 0x2000_0000 != 0 else { throw .corrupt(.png, detail: "\(name): CRC error") }
        warn("\(name): CRC error")
      }
      if type != Self.idat { continue }
      started = true
      return UnsafeRawBufferPointer(rebasing: bytes[(start + 8)..<(start + 8 + length)])
    }
  }
}

extension ImagePipeline {
  /// Whether the strip decoder and libpng make the same of `bytes` (a PNG, or anything):
  /// the same pixels and warnings, or errors of the same kind. For the fuzz harness, which
  /// stops on the first input where they differ.
  @_spi(Fuzzing) public static func pngDecodersAgree(_ bytes: [UInt8], options: DecodeOptions) -> Bool {
    func outcome(libpngOnly: Bool) -> (pixels: [UInt8]?, warnings: [String], error: String?) {
      let collector = PixelCollector()
      let result = bytes.withUnsafeBytes { raw in
        Result { () throws(ImageError) in
          try PNGCodec.decode(
            raw, options: options, request: { _ in .fullSize }, into: collector, libpngOnly: libpngOnly)
        }
      }
      switch result {
      case .success(let report): return (collector.buffer()?.pixels, report.warnings, nil)
      case .failure(.truncated): return (nil, [], "truncated")
      case .failure(.corrupt): return (nil, [], "corrupt")
      case .failure(let error): return (nil, [], "\(error)")
      }
    }
    let ours = outcome(libpngOnly: false)
    let libpng = outcome(libpngOnly: true)
    return ours.pixels == libpng.pixels && ours.warnings == libpng.warnings && ours.error == libpng.error
  }
}
