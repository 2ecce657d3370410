import ImagePipeline

/// Feeds libFuzzer's input to the EXIF reader as a TIFF block, and as the APP1 segment of a
/// minimal JPEG header: it must return an orientation or nothing, never trap or loop.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let input = start.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
  _ = input.withUnsafeBytes { EXIFReader.orientation(tiff: $0) }
  // SOI, APP1 "Exif\0\0" with the input, then a frame header libjpeg can read.
  let length = min(input.count + 8, 0xFFFF)
  var jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]
  jpeg += Array("Exif".utf8) + [0, 0] + input.prefix(length - 8)
  jpeg += [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x10, 0x00, 0x10, 0x01, 0x01, 0x11, 0x00, 0xFF, 0xD9]
  _ = try? ImagePipeline.readHeader(jpeg)
  return 0
}
