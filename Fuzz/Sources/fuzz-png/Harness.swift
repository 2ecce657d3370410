@_spi(Fuzzing) import ImagePipeline

/// Feeds libFuzzer's input to the PNG path: header, full decode and a thumbnail. Any input
/// must give a result or an `ImageError`, never a crash or a hang; and the project's strip
/// decoder must make of it what libpng makes (the same pixels and warnings, or an error of the
/// same kind), or the harness stops on it.
///
/// libpng refuses a chunk whose CRC is wrong, which would stop almost every mutation at the
/// first chunk; so on odd-sized inputs the harness recomputes each chunk's CRC first, letting
/// mutations reach IHDR, PLTE, tRNS, eXIf and the compressed data. Even-sized inputs go in as
/// they are, so that the CRC checks are fuzzed too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]  // always a PNG signature
  if let start { bytes += UnsafeRawBufferPointer(start: start, count: count).dropFirst(min(8, count)) }
  if count % 2 == 1 { fixCRCs(&bytes) }
  // A small budget keeps one input from allocating much.
  let options = DecodeOptions(pixelBudget: 4_000_000, lenient: count % 4 == 1)
  _ = try? ImagePipeline.readHeader(bytes)
  _ = try? ImagePipeline.decode(bytes, options: options)
  _ = try? ImagePipeline.thumbnail(bytes, spec: ThumbnailSpec(longestEdge: 32), options: options)
  if !ImagePipeline.pngDecodersAgree(bytes, options: options) {
    fatalError("the strip decoder and libpng disagree on this input")
  }
  return 0
}

/// Rewrites the CRC of every whole chunk after the signature.
func fixCRCs(_ bytes: inout [UInt8]) {
  var offset = 8
  while offset + 12 <= bytes.count {
    let length =
      Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    guard length <= bytes.count - offset - 12 else { return }
    let crc = crc32(bytes[(offset + 4)..<(offset + 8 + length)])
    let end = offset + 8 + length
    bytes[end] = UInt8(crc >> 24)
    bytes[end + 1] = UInt8(crc >> 16 & 0xFF)
    bytes[end + 2] = UInt8(crc >> 8 & 0xFF)
    bytes[end + 3] = UInt8(crc & 0xFF)
    offset = end + 4
  }
}

let crcTable: [UInt32] = (0..<256).map { index in
  var value = UInt32(index)
  for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
  return value
}

func crc32(_ data: ArraySlice<UInt8>) -> UInt32 {
  var crc: UInt32 = 0xFFFF_FFFF
  for byte in data { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
  return crc ^ 0xFFFF_FFFF
}
