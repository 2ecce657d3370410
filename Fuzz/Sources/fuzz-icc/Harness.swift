import ImagePipeline

/// Feeds libFuzzer's input to colour management as an embedded ICC profile: spliced into a
/// small JPEG as APP2 ICC_PROFILE segments (as a camera writes them), then named and used for
/// a thumbnail, which builds and runs LittleCMS's transform. Any input must give a picture (a
/// broken profile is a warning) and never a crash or a hang.
///
/// The pipeline refuses a profile whose header declares more bytes than it holds before
/// LittleCMS sees it; so on odd-sized inputs the harness writes the true size into the first
/// four bytes, letting mutations reach the tag table and the tags.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  var profile = start.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
  if count % 2 == 1 && count >= 4 {
    profile[0] = UInt8(count >> 24 & 0xFF)
    profile[1] = UInt8(count >> 16 & 0xFF)
    profile[2] = UInt8(count >> 8 & 0xFF)
    profile[3] = UInt8(count & 0xFF)
  }
  var jpeg = picture
  var segments: [UInt8] = []
  let pieces = stride(from: 0, to: max(profile.count, 1), by: 65_000).map {
    Array(profile[$0..<min($0 + 65_000, profile.count)])
  }
  for (index, piece) in pieces.enumerated() {
    let payload = Array("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(pieces.count)] + piece
    segments += [0xFF, 0xE2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
  }
  jpeg.insert(contentsOf: segments, at: 2)
  if let found = try? ImagePipeline.readHeader(jpeg) { _ = found.colorSpace }
  guard let made = try? ImagePipeline.thumbnailPixels(jpeg, spec: ThumbnailSpec(longestEdge: 16)) else {
    fatalError("a JPEG that decodes without its profile was refused with one")
  }
  precondition(made.pixels.width == 16)
  return 0
}

/// A 32 × 24 picture of four colours, encoded once.
let picture: [UInt8] = {
  var pixels: [UInt8] = []
  for y in 0..<24 {
    for x in 0..<32 {
      pixels += x < 16 ? (y < 12 ? [255, 0, 0] : [0, 0, 255]) : (y < 12 ? [0, 255, 0] : [40, 40, 40])
    }
  }
  guard let bytes = try? ImagePipeline.encodeJPEG(PixelBuffer(width: 32, height: 24, channels: 3, pixels: pixels))
  else { fatalError("cannot encode the fuzzing picture") }
  return bytes
}()
