import Foundation
import ImagePipeline
import Testing
import TestSupport

/// The colours of the quadrants picture: four solid quadrants of a 120 × 80 picture.
enum Quadrants {
  static let red: [UInt8] = [255, 0, 0]
  static let green: [UInt8] = [0, 255, 0]
  static let blue: [UInt8] = [0, 0, 255]
  static let yellow: [UInt8] = [255, 255, 0]

  /// Top-left, top-right, bottom-left, bottom-right of the upright picture.
  static let corners = [red, green, blue, yellow]

  /// The centre of each quadrant of an upright `width` × `height` picture, in corner order.
  static func centres(width: Int, height: Int) -> [(x: Int, y: Int)] {
    [
      (width / 4, height / 4), (width * 3 / 4, height / 4),
      (width / 4, height * 3 / 4), (width * 3 / 4, height * 3 / 4),
    ]
  }
}

/// Whether every channel of `actual` is within `tolerance` of `expected`.
func close(_ actual: [UInt8], _ expected: [UInt8], tolerance: Int) -> Bool {
  actual.count == expected.count
    && zip(actual, expected).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
}

/// Checks that the four quadrant centres of an upright picture have the quadrants' colours.
func expectQuadrants(
  _ pixels: PixelBuffer, tolerance: Int = 12, _ comment: Comment? = nil,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  for (index, centre) in Quadrants.centres(width: pixels.width, height: pixels.height).enumerated() {
    let colour = Array(pixels[centre.x, centre.y].prefix(3))
    #expect(
      close(colour, Quadrants.corners[index], tolerance: tolerance),
      "quadrant \(index) at \(centre) is \(colour), expected \(Quadrants.corners[index]) \(comment.map { "— \($0)" } ?? "")",
      sourceLocation: sourceLocation)
  }
}
