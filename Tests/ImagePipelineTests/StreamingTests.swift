@testable import ImagePipeline
import Testing
import TestSupport

/// A JPEG's rows go from libjpeg straight into the resizer, a strip at a time: the thumbnail
/// must be exactly the one made from the whole decoded picture.
@Suite("Streaming thumbnails")
struct StreamingTests {
  /// A picture with detail at every scale, so that a misplaced row or column shows.
  static func pattern(width: Int, height: Int, channels: Int) -> PixelBuffer {
    var pixels = [UInt8](repeating: 0, count: width * height * channels)
    var state: UInt32 = 12345
    for index in pixels.indices {
      state = state &* 1_103_515_245 &+ 12345
      pixels[index] = UInt8(truncatingIfNeeded: (state >> 16) ^ UInt32(index / channels % width))
    }
    return PixelBuffer(width: width, height: height, channels: channels, pixels: pixels)
  }

  @Test(arguments: [3, 4])
  func rowsInStripsGiveTheSameResizeAsTheWholePicture(channels: Int) {
    let image = Self.pattern(width: 301, height: 203, channels: channels)
    for (width, height) in [(64, 43), (150, 101), (37, 200), (300, 1), (9, 9)] {
      let whole = Resizer.resize(image, width: width, height: height)
      for strip in [1, 7, 16, 203] {
        let resizer = RowResizer(
          inputWidth: image.width, inputHeight: image.height, channels: channels, outputWidth: width,
          outputHeight: height)
        image.pixels.withUnsafeBufferPointer { pixels in
          var row = 0
          while row < image.height {
            let count = min(strip, image.height - row)
            resizer.take(pixels.baseAddress! + row * image.stride, stride: image.stride, count: count)
            row += count
          }
        }
        #expect(resizer.finish() == whole, "\(width)×\(height) in strips of \(strip)")
      }
    }
  }

  @Test(arguments: [
    "large-1600x1200.jpg", "orientation-6.jpg", "orientation-3.jpg", "progressive.jpg", "cmyk-adobe.jpg",
    "ycck-adobe.jpg", "grayscale.jpg", "restart-markers.jpg", "baseline-444.jpg",
  ])
  func streamedJPEGThumbnailEqualsTheOneFromTheWholePicture(file: String) throws {
    let bytes = try Fixture.imageBytes(file)
    for spec in [
      ThumbnailSpec(longestEdge: 256), ThumbnailSpec(longestEdge: 100), ThumbnailSpec(longestEdge: 40),
      ThumbnailSpec(longestEdge: 1000), ThumbnailSpec(longestEdge: 128, mode: .square),
      ThumbnailSpec(longestEdge: 33, mode: .square),
    ] {
      let streamed = try ImagePipeline.thumbnailPixels(bytes, spec: spec)
      // The reference: decode the whole picture at the same DCT scale, crop, resize, turn.
      let header = try ImagePipeline.readHeader(bytes)
      let (target, source) = ImagePipeline.sizes(header, spec: spec)
      let minimum = (
        width: target.width * ImagePipeline.shrinkOnLoadMargin * header.width / source.width,
        height: target.height * ImagePipeline.shrinkOnLoadMargin * header.height / source.height
      )
      let decoded = try ImagePipeline.decode(bytes, minimumSize: minimum)
      var pixels = decoded.pixels
      if spec.mode == .square { pixels = pixels.centreSquare() }
      let scale = Double(decoded.scaleDenominator)
      let extent = (
        width: min(Double(pixels.width), Double(source.width) / scale),
        height: min(Double(pixels.height), Double(source.height) / scale)
      )
      pixels = Resizer.resize(pixels, width: target.width, height: target.height, extent: extent)
      pixels = pixels.oriented(header.orientation)
      #expect(streamed.scaleDenominator == decoded.scaleDenominator, "\(file) \(spec.name)")
      #expect(streamed.pixels == pixels, "\(file) \(spec.name)")
    }
  }
}
