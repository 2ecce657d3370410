/// The EXIF orientation of a picture: how its stored pixels must be turned to appear upright.
///
/// Raw values are those of the EXIF `Orientation` tag (0x0112).
public enum Orientation: Int, Sendable, Hashable, CaseIterable, Codable {
  /// Stored upright.
  case up = 1
  /// Mirrored left to right.
  case upMirrored = 2
  /// Turned half a turn.
  case down = 3
  /// Mirrored top to bottom.
  case downMirrored = 4
  /// Mirrored along the top-left to bottom-right diagonal (transposed).
  case leftMirrored = 5
  /// Must be turned a quarter turn clockwise to be upright.
  case right = 6
  /// Mirrored along the top-right to bottom-left diagonal (transversed).
  case rightMirrored = 7
  /// Must be turned a quarter turn anticlockwise to be upright.
  case left = 8

  /// Whether the upright picture has width and height exchanged.
  public var swapsAxes: Bool { rawValue >= 5 }

  /// The upright size of a picture stored as `width` × `height`.
  public func upright(width: Int, height: Int) -> (width: Int, height: Int) {
    swapsAxes ? (height, width) : (width, height)
  }

  /// The stored pixel shown at upright position (`x`, `y`) of a picture stored `width` × `height`.
  @inline(__always)
  func storedPosition(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
    switch self {
    case .up: return (x, y)
    case .upMirrored: return (width - 1 - x, y)
    case .down: return (width - 1 - x, height - 1 - y)
    case .downMirrored: return (x, height - 1 - y)
    case .leftMirrored: return (y, x)
    case .right: return (y, height - 1 - x)
    case .rightMirrored: return (width - 1 - y, height - 1 - x)
    case .left: return (width - 1 - y, x)
    }
  }
}

extension PixelBuffer {
  /// This picture turned upright, given the orientation it is stored in.
  public func oriented(_ orientation: Orientation) -> PixelBuffer {
    guard orientation != .up else { return self }
    let (uprightWidth, uprightHeight) = orientation.upright(width: width, height: height)
    let channels = self.channels
    let sourceWidth = width
    let sourceHeight = height
    let result = [UInt8](unsafeUninitializedCapacity: pixels.count) { output, count in
      pixels.withUnsafeBufferPointer { input in
        var target = 0
        for y in 0..<uprightHeight {
          for x in 0..<uprightWidth {
            let (sx, sy) = orientation.storedPosition(
              x: x, y: y, width: sourceWidth, height: sourceHeight)
            let source = (sy * sourceWidth + sx) * channels
            for c in 0..<channels { output[target + c] = input[source + c] }
            target += channels
          }
        }
      }
      count = pixels.count
    }
    return PixelBuffer(width: uprightWidth, height: uprightHeight, channels: channels, pixels: result)
  }
}
