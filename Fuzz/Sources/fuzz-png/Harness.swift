import ImagePipeline

/// Feeds libFuzzer's input to the PNG path: header, full decode, shrink-on-load decode and a
/// thumbnail. Any input must give a result or an `ImageError`, never a crash or a hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]  // always a PNG signature
  if let start { bytes += UnsafeRawBufferPointer(start: start, count: count).dropFirst(min(8, count)) }
  // A small budget keeps one input from allocating much.
  let options = DecodeOptions(pixelBudget: 4_000_000, lenient: count % 2 == 0)
  _ = try? ImagePipeline.readHeader(bytes)
  _ = try? ImagePipeline.decode(bytes, minimumSize: (16, 16), options: options)
  _ = try? ImagePipeline.thumbnail(bytes, spec: ThumbnailSpec(longestEdge: 32), options: options)
  return 0
}
