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

  /// Decodes the picture `input` holds from its first byte (one ``reads(_:)`` accepted),
  /// handing its rows as 8-bit RGB, or RGBA for the colour types with alpha, to `rows` a strip
  /// at a time, once `begin` has been told the size and which. Returns the warnings, worded as
  /// libpng words them. `reachedEnd` says whether the file ends with its IEND chunk (it reads
  /// the rest of the file): a file whose image data runs out is cut off, or corrupt.
  static func decode(
    _ bytes: ByteReader, summary: PNGChunks.Summary, reachedEnd: () -> Bool,
    begin: (_ width: Int, _ height: Int, _ alpha: Bool) -> Void,
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

    let assembly = UnsafeMutableRawBufferPointer.allocate(byteCount: IDATReader.pieceSize, alignment: 1)
    defer { assembly.deallocate() }
    var input = IDATReader(bytes: bytes, width: width, height: height, channels: channels, assembly: assembly)
    var stream = z_stream()
    guard czlib_inflate_init(&stream) == Z_OK else { throw .corrupt(.png, detail: "zlib could not start") }
    defer { inflateEnd(&stream) }

    begin(width, height, channels == 2 || channels == 4)
    var done = 0
    var ended = false
    while done < height {
      let count = min(strip, height - done)
      ended = try inflate(
        &stream, into: buffer + filtered, count: count * filtered, from: &input, reachedEnd: reachedEnd)
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
      if stream.avail_in > 0 || input.unread > 0 { warnings.append("IDAT: Extra compressed data") }
    } else {
      try finish(&stream, from: &input, warnings: &warnings)
    }
    // As libpng ends its image data: the rest of the last chunk passed over, its CRC checked.
    try input.finishChunk()
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
        if stream.avail_in > 0 || input.unread > 0 { warnings.append("IDAT: Extra compressed data") }
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
    reachedEnd: () -> Bool
  ) throws(ImageError) -> Bool {
    stream.next_out = target
    stream.avail_out = uInt(count)
    while stream.avail_out > 0 {
      if stream.avail_in == 0 {
        guard try feed(&stream, from: &input) else {
          if input.ranOut || !reachedEnd() {
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

/// The `IDAT` chunks of a PNG in order, read as they come: every chunk up to them is checked
/// against its CRC, and each `IDAT` chunk's data is handed out in pieces, its CRC checked once
/// its last piece has been used, as libpng checks it.
private struct IDATReader {
  let bytes: ByteReader
  private var started = false
  private var finished = false
  /// Whether the walk stopped because the file ended inside a chunk.
  private(set) var ranOut = false
  /// What libpng warns about the chunks, in its words, each once.
  var warnings: [String] = []
  /// The data of the current `IDAT` chunk not yet handed out.
  private(set) var unread = 0
  /// Whether an `IDAT` chunk is being read (its CRC still to check).
  private var inChunk = false
  /// The CRC of the current `IDAT` chunk so far.
  private var crc: uLong = 0
  /// Whether the chunk header to read next is the file's first (IHDR's place).
  private var first = true
  /// Where a piece of image data is put together when the file's reads split it
  /// (``pieceSize`` bytes, the caller's).
  private let assembly: UnsafeMutableRawBufferPointer

  /// How much image data zlib is given at a time: what libpng reads into its buffer
  /// (`PNG_IDAT_READ_SIZE`), counted from each chunk's start. What zlib makes of the end of the
  /// stream depends on where its input stops (after the last row, libpng calls it once and
  /// stops if nothing came out), so both decoders cut the data in the same places, however the
  /// file's reads cut it.
  static let pieceSize = 8192

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

  /// `bytes` from the file's first byte.
  init(bytes: ByteReader, width: Int, height: Int, channels: Int, assembly: UnsafeMutableRawBufferPointer) {
    precondition(assembly.count >= Self.pieceSize)
    self.bytes = bytes
    self.assembly = assembly
    let maximum = Int(Int32.max)
    let rowFactor = width * channels + 1
    var limit = height > Int(UInt32.max) / rowFactor ? maximum : height * rowFactor
    limit += 6 + 5 * (limit / min(rowFactor, 32_566) + 1)
    idatLimit = max(Self.chunkLimit, min(limit, maximum))
    bytes.skip(PNGChunks.signatureLength)
  }

  /// The next piece of `IDAT` data, or `nil` when the run of `IDAT` chunks has ended. A piece
  /// is valid until the next call.
  mutating func next() throws(ImageError) -> UnsafeRawBufferPointer? {
    guard !finished else { return nil }
    while true {
      if inChunk {
        if unread > 0 {
          let wanted = min(unread, Self.pieceSize)
          guard var piece = bytes.next(upTo: wanted) else { return stop(ranOut: true) }
          if piece.count < wanted {
            // The read ended inside the piece: the rest is read after it, in `assembly`.
            assembly.baseAddress!.copyMemory(from: piece.baseAddress!, byteCount: piece.count)
            let rest = UnsafeMutableRawBufferPointer(rebasing: assembly[piece.count..<wanted])
            let count = piece.count + bytes.read(into: rest)
            piece = UnsafeRawBufferPointer(rebasing: assembly[0..<count])
          }
          crc = crc32(crc, piece.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(piece.count))
          unread -= piece.count
          return piece
        }
        try endChunk(type: Self.idat, name: "IDAT")
        if finished { return nil }
        continue
      }
      var header = (UInt32(0), UInt32(0))
      let got = withUnsafeMutableBytes(of: &header) { bytes.read(into: $0) }
      guard got == 8 else { return stop(ranOut: true) }
      let length = Int(UInt32(bigEndian: header.0))
      let type = UInt32(bigEndian: header.1)
      // libpng's checks of every chunk header it reads, in its order: the type's four bytes
      // are letters, the length fits in 31 bits, and a length past its limit is a warning.
      let letters = withUnsafeBytes(of: header.1) { Array($0) }
      guard letters.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
        throw .corrupt(.png, detail: "a chunk's type is not four letters")
      }
      let name = String(decoding: letters, as: UTF8.self)
      guard length <= Int(Int32.max) else { throw .corrupt(.png, detail: "\(name): chunk data is too large") }
      if length > (type == Self.idat ? idatLimit : Self.chunkLimit) {
        warn("\(name): chunk data is too large")
      }
      // libpng refuses a second IHDR ("out of place"), whatever follows.
      if type == Self.ihdr && !first {
        throw .corrupt(.png, detail: "IHDR: out of place")
      }
      first = false
      if type != Self.idat && (started || type == Self.iend) { return stop(ranOut: false) }
      crc = crc32(0, nil, 0)
      crc = withUnsafeBytes(of: header.1) { crc32(crc, $0.baseAddress?.assumingMemoryBound(to: Bytef.self), 4) }
      unread = length
      if type == Self.idat {
        started = true
        inChunk = true
        continue
      }
      // A chunk before the image data: passed over, its CRC checked.
      while unread > 0 {
        guard let piece = bytes.next(upTo: unread) else { return stop(ranOut: true) }
        crc = crc32(crc, piece.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(piece.count))
        unread -= piece.count
      }
      try endChunk(type: type, name: name)
      if finished { return nil }
    }
  }

  /// Passes over what is left of the current `IDAT` chunk's data and checks its CRC: after the
  /// picture's last row, as libpng finishes its image data (and fails, when the file ends
  /// inside the chunk).
  mutating func finishChunk() throws(ImageError) {
    guard inChunk && !finished else { return }
    while unread > 0, let piece = bytes.next(upTo: unread) {
      crc = crc32(crc, piece.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(piece.count))
      unread -= piece.count
    }
    if unread == 0 { try endChunk(type: Self.idat, name: "IDAT") }
    if ranOut || unread > 0 { throw .truncated(.png, detail: "the file ends before its image data does") }
  }

  /// Reads a chunk's CRC, its data read: as libpng, a critical chunk with a wrong CRC is
  /// refused, an ancillary one is a warning.
  private mutating func endChunk(type: UInt32, name: String) throws(ImageError) {
    inChunk = false
    var stored = UInt32(0)
    guard withUnsafeMutableBytes(of: &stored, { bytes.read(into: $0) }) == 4 else {
      _ = stop(ranOut: true)
      return
    }
    if UInt32(truncatingIfNeeded: crc) != UInt32(bigEndian: stored) {
      guard type & 0x2000_0000 != 0 else { throw .corrupt(.png, detail: "\(name): CRC error") }
      warn("\(name): CRC error")
    }
  }

  private mutating func stop(ranOut: Bool) -> UnsafeRawBufferPointer? {
    self.ranOut = self.ranOut || ranOut
    finished = true
    inChunk = false
    return nil
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
