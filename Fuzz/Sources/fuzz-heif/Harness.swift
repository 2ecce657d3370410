import ImagePipeline

/// Feeds libFuzzer's input to the HEIC/AVIF path: header, full decode and a thumbnail (which
/// may take the stored preview). Any input must give a result or an `ImageError`, never a
/// crash or a hang.
///
/// Inputs that do not start with an ftyp box the sniffer takes for HEIF would stop at the
/// sniffer; so an input whose first byte is odd gets an `ftyp` box of brand `heic` or `avif`
/// put in front of its remaining bytes, letting mutations reach the meta box and the coded data.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start, count > 0 else { return 0 }
  let input = UnsafeRawBufferPointer(start: start, count: count)
  var bytes = [UInt8](input)
  if input[0] & 1 == 1 {
    let brand = input[0] & 2 == 0 ? "heic" : "avif"
    bytes =
      [0, 0, 0, 0x18] + Array("ftyp".utf8) + Array(brand.utf8) + [0, 0, 0, 0] + Array("mif1".utf8)
      + Array(brand.utf8) + input.dropFirst()
  }
  // A small budget keeps one input from allocating much.
  let options = DecodeOptions(pixelBudget: 4_000_000)
  _ = try? ImagePipeline.readHeader(bytes)
  _ = try? ImagePipeline.decode(bytes, options: options)
  _ = try? ImagePipeline.thumbnail(bytes, spec: ThumbnailSpec(longestEdge: 32), options: options)
  return 0
}
