/// Decoded 8-bit pixels: RGB (3 channels) or RGBA (4 channels, straight alpha), rows packed.
public struct PixelBuffer: Sendable, Equatable {
  public var width: Int
  public var height: Int
  /// 3 for RGB, 4 for RGBA.
  public var channels: Int
  /// `height` rows of `width * channels` bytes.
  public var pixels: [UInt8]

  public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
    precondition(channels == 3 || channels == 4, "a pixel buffer is RGB or RGBA")
    precondition(pixels.count == width * height * channels, "pixel count does not match the size")
    self.width = width
    self.height = height
    self.channels = channels
    self.pixels = pixels
  }

  public var hasAlphaChannel: Bool { channels == 4 }

  /// Bytes from one row to the next.
  public var stride: Int { width * channels }

  /// The channels of the pixel at (`x`, `y`): [r, g, b] or [r, g, b, a].
  public subscript(x: Int, y: Int) -> [UInt8] {
    let start = (y * width + x) * channels
    return Array(pixels[start..<start + channels])
  }

  /// Whether any pixel is less than fully opaque.
  public var hasTransparency: Bool {
    guard channels == 4 else { return false }
    return pixels.withUnsafeBufferPointer { bytes in
      var index = 3
      while index < bytes.count {
        if bytes[index] != 255 { return true }
        index += 4
      }
      return false
    }
  }

  /// The same picture without its alpha channel (which the caller knows to be opaque).
  public func droppingAlpha() -> PixelBuffer {
    guard channels == 4 else { return self }
    let count = width * height
    let rgb = [UInt8](unsafeUninitializedCapacity: count * 3) { output, initialized in
      pixels.withUnsafeBufferPointer { input in
        for index in 0..<count {
          output[index * 3] = input[index * 4]
          output[index * 3 + 1] = input[index * 4 + 1]
          output[index * 3 + 2] = input[index * 4 + 2]
        }
      }
      initialized = count * 3
    }
    return PixelBuffer(width: width, height: height, channels: 3, pixels: rgb)
  }

  /// The largest square at the centre of the picture.
  public func centreSquare() -> PixelBuffer {
    let side = min(width, height)
    return cropped(x: (width - side) / 2, y: (height - side) / 2, width: side, height: side)
  }

  /// The rectangle at (`x`, `y`) of `width` × `height`, which must lie inside the picture.
  public func cropped(x: Int, y: Int, width newWidth: Int, height newHeight: Int) -> PixelBuffer {
    precondition(x >= 0 && y >= 0 && x + newWidth <= width && y + newHeight <= height)
    if newWidth == width && newHeight == height { return self }
    var result = [UInt8]()
    result.reserveCapacity(newWidth * newHeight * channels)
    for row in y..<(y + newHeight) {
      let start = (row * width + x) * channels
      result.append(contentsOf: pixels[start..<start + newWidth * channels])
    }
    return PixelBuffer(width: newWidth, height: newHeight, channels: channels, pixels: result)
  }
}
