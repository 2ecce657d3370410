import ImagePipeline

/// Feeds libFuzzer's input to the WebP path: header, full decode, a scaled decode and a
/// thumbnail. Any input must give a result or an `ImageError`, never a crash or a hang.
///
/// A RIFF size that does not match the data stops almost every mutation at the container; so
/// on odd-sized inputs the harness writes the honest size first, letting mutations reach the
/// chunks and the bitstreams. Even-sized inputs go in as they are, so that the size checks are
/// fuzzed too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  var bytes = Array("RIFF\0\0\0\0WEBP".utf8)  // always a WebP signature
  if let start { bytes += UnsafeRawBufferPointer(start: start, count: count).dropFirst(min(12, count)) }
  let size = bytes.count - 8
  if count % 2 == 1 || count < 12 {
    bytes[4] = UInt8(size & 0xFF)
    bytes[5] = UInt8(size >> 8 & 0xFF)
    bytes[6] = UInt8(size >> 16 & 0xFF)
    bytes[7] = UInt8(size >> 24 & 0xFF)
  } else if let start {
    for index in 4..<8 { bytes[index] = start.load(fromByteOffset: index, as: UInt8.self) }
  }
  // A small budget keeps one input from allocating much.
  let options = DecodeOptions(pixelBudget: 4_000_000, lenient: count % 4 == 1)
  _ = try? ImagePipeline.readHeader(bytes)
  _ = try? ImagePipeline.readHeader(Array(bytes.prefix(bytes.count / 2)))
  _ = try? ImagePipeline.decode(bytes, options: options)
  _ = try? ImagePipeline.decode(bytes, minimumSize: (17, 9), options: options)
  _ = try? ImagePipeline.thumbnail(bytes, spec: ThumbnailSpec(longestEdge: 32), options: options)
  return 0
}
