import Glibc

/// High-quality downscaling: area averaging for the integer part of the reduction, then a
/// separable Lanczos-3 filter for the rest, with alpha premultiplied so that transparent pixels
/// lend no colour to their neighbours.
///
/// The integer part leaves a residual of at least 2 for the filter (as libvips does), so the
/// filter, not the box, decides the quality; the box only makes large reductions cheap.
public enum Resizer {
  /// `image` resized to exactly `width` × `height`.
  public static func resize(_ image: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
    precondition(width > 0 && height > 0, "a resize needs a positive size")
    if width == image.width && height == image.height { return image }
    let scaleX = Double(image.width) / Double(width)
    let scaleY = Double(image.height) / Double(height)
    let boxX = max(1, Int(scaleX / 2))
    let boxY = max(1, Int(scaleY / 2))
    let reduced = BoxReduced(image, boxX: boxX, boxY: boxY)
    let columns = FilterWeights(
      inputCount: reduced.width, outputCount: width, scale: scaleX, box: boxX)
    let rows = FilterWeights(
      inputCount: reduced.height, outputCount: height, scale: scaleY, box: boxY)
    let horizontal = reduced.filterRows(columns)
    let pixels = horizontal.filterColumns(rows, channels: image.channels)
    return PixelBuffer(width: width, height: height, channels: image.channels, pixels: pixels)
  }

  /// The size that fits `width` × `height` into a `longestEdge` square, aspect kept, never
  /// larger than the original.
  public static func fittingSize(width: Int, height: Int, longestEdge: Int) -> (width: Int, height: Int)
  {
    let longest = max(width, height)
    guard longest > longestEdge else { return (width, height) }
    let scale = Double(longestEdge) / Double(longest)
    let fitted = { (side: Int) in max(1, min(longestEdge, Int((Double(side) * scale).rounded()))) }
    return width >= height ? (longestEdge, fitted(height)) : (fitted(width), longestEdge)
  }
}

/// The Lanczos-3 kernel.
@inline(__always)
private func lanczos3(_ x: Double) -> Double {
  let ax = abs(x)
  if ax < 1e-9 { return 1 }
  if ax >= 3 { return 0 }
  let px = Double.pi * x
  return 3 * sin(px) * sin(px / 3) / (px * px)
}

/// For each output sample along one axis: the first input sample it reads and its weights.
/// Every output has `taps` weights (zero-padded), so the inner loops have one shape.
private struct FilterWeights {
  let outputCount: Int
  let taps: Int
  var starts: [Int]
  var weights: [Float]

  /// `scale` is the whole reduction (original / output); `box` the part already done by area
  /// averaging, so positions are computed in the original's coordinates and then mapped to
  /// the box-reduced samples.
  init(inputCount: Int, outputCount: Int, scale: Double, box: Int) {
    self.outputCount = outputCount
    let residual = scale / Double(box)
    let filterScale = max(residual, 1)
    let support = 3 * filterScale
    taps = min(Int((2 * support).rounded(.up)) + 1, inputCount)
    starts = [Int](repeating: 0, count: outputCount)
    weights = [Float](repeating: 0, count: outputCount * taps)
    var raw = [Double](repeating: 0, count: inputCount)
    for output in 0..<outputCount {
      let centre = (Double(output) + 0.5) * residual - 0.5
      let first = Int((centre - support).rounded(.up))
      let last = Int((centre + support).rounded(.down))
      // Samples beyond an edge repeat the edge sample: their weight goes to it.
      let low = min(max(first, 0), inputCount - 1)
      let high = min(max(last, 0), inputCount - 1)
      for index in low...high { raw[index] = 0 }
      var total = 0.0
      for index in first...last {
        let weight = lanczos3((Double(index) - centre) / filterScale)
        raw[min(max(index, 0), inputCount - 1)] += weight
        total += weight
      }
      let start = min(low, inputCount - taps)
      starts[output] = start
      for index in low...high {
        weights[output * taps + (index - start)] = Float(raw[index] / total)
      }
    }
  }
}

/// The image after area averaging, as premultiplied floating-point samples.
private struct BoxReduced {
  let width: Int
  let height: Int
  let channels: Int
  var samples: [Float]

  init(_ image: PixelBuffer, boxX: Int, boxY: Int) {
    channels = image.channels
    width = (image.width + boxX - 1) / boxX
    height = (image.height + boxY - 1) / boxY
    let channels = self.channels
    let outputWidth = width
    let outputHeight = height
    let inputWidth = image.width
    let inputHeight = image.height
    samples = [Float](repeating: 0, count: width * height * channels)
    samples.withUnsafeMutableBufferPointer { output in
      image.pixels.withUnsafeBufferPointer { input in
        var row = [Float](repeating: 0, count: outputWidth * channels)
        row.withUnsafeMutableBufferPointer { sums in
          for oy in 0..<outputHeight {
            let y0 = oy * boxY
            let y1 = min(y0 + boxY, inputHeight)
            for i in 0..<sums.count { sums[i] = 0 }
            var counts = 0
            for y in y0..<y1 {
              let line = y * inputWidth * channels
              for ox in 0..<outputWidth {
                let x0 = ox * boxX
                let x1 = min(x0 + boxX, inputWidth)
                var r: Float = 0
                var g: Float = 0
                var b: Float = 0
                var a: Float = 0
                if channels == 4 {
                  for x in x0..<x1 {
                    let p = line + x * 4
                    let alpha = Float(input[p + 3])
                    r += Float(input[p]) * alpha
                    g += Float(input[p + 1]) * alpha
                    b += Float(input[p + 2]) * alpha
                    a += alpha
                  }
                  let s = ox * 4
                  sums[s] += r / 255
                  sums[s + 1] += g / 255
                  sums[s + 2] += b / 255
                  sums[s + 3] += a
                } else {
                  for x in x0..<x1 {
                    let p = line + x * 3
                    r += Float(input[p])
                    g += Float(input[p + 1])
                    b += Float(input[p + 2])
                  }
                  let s = ox * 3
                  sums[s] += r
                  sums[s + 1] += g
                  sums[s + 2] += b
                }
              }
              counts += 1
            }
            let base = oy * outputWidth * channels
            for ox in 0..<outputWidth {
              let x0 = ox * boxX
              let area = Float(counts * (min(x0 + boxX, inputWidth) - x0))
              let s = ox * channels
              for c in 0..<channels { output[base + s + c] = sums[s + c] / area }
            }
          }
        }
      }
    }
  }

  /// Filters every row horizontally to `weights.outputCount` columns.
  func filterRows(_ weights: FilterWeights) -> Filtered {
    let outputWidth = weights.outputCount
    let taps = weights.taps
    let channels = self.channels
    let inputWidth = width
    var result = [Float](repeating: 0, count: outputWidth * height * channels)
    result.withUnsafeMutableBufferPointer { output in
      samples.withUnsafeBufferPointer { input in
        weights.weights.withUnsafeBufferPointer { w in
          weights.starts.withUnsafeBufferPointer { starts in
            for y in 0..<height {
              let inRow = input.baseAddress! + y * inputWidth * channels
              let outRow = output.baseAddress! + y * outputWidth * channels
              for x in 0..<outputWidth {
                let source = inRow + starts[x] * channels
                let weight = w.baseAddress! + x * taps
                if channels == 3 {
                  var r: Float = 0
                  var g: Float = 0
                  var b: Float = 0
                  for t in 0..<taps {
                    let k = weight[t]
                    let p = source + t * 3
                    r += p[0] * k
                    g += p[1] * k
                    b += p[2] * k
                  }
                  outRow[x * 3] = r
                  outRow[x * 3 + 1] = g
                  outRow[x * 3 + 2] = b
                } else {
                  var r: Float = 0
                  var g: Float = 0
                  var b: Float = 0
                  var a: Float = 0
                  for t in 0..<taps {
                    let k = weight[t]
                    let p = source + t * 4
                    r += p[0] * k
                    g += p[1] * k
                    b += p[2] * k
                    a += p[3] * k
                  }
                  outRow[x * 4] = r
                  outRow[x * 4 + 1] = g
                  outRow[x * 4 + 2] = b
                  outRow[x * 4 + 3] = a
                }
              }
            }
          }
        }
      }
    }
    return Filtered(width: outputWidth, height: height, samples: result)
  }
}

/// Samples filtered horizontally, still premultiplied.
private struct Filtered {
  let width: Int
  let height: Int
  var samples: [Float]

  /// Filters every column vertically to `weights.outputCount` rows and converts to 8 bits,
  /// undoing the premultiplication.
  func filterColumns(_ weights: FilterWeights, channels: Int) -> [UInt8] {
    let rowLength = width * channels
    let outputHeight = weights.outputCount
    let taps = weights.taps
    let count = rowLength * outputHeight
    return [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
      var accumulator = [Float](repeating: 0, count: rowLength)
      accumulator.withUnsafeMutableBufferPointer { sum in
        samples.withUnsafeBufferPointer { input in
          for y in 0..<outputHeight {
            for i in 0..<rowLength { sum[i] = 0 }
            let start = weights.starts[y]
            for t in 0..<taps {
              let k = weights.weights[y * taps + t]
              if k == 0 { continue }
              let row = input.baseAddress! + (start + t) * rowLength
              for i in 0..<rowLength { sum[i] += row[i] * k }
            }
            let out = output.baseAddress! + y * rowLength
            if channels == 3 {
              for i in 0..<rowLength { out[i] = clampToByte(sum[i]) }
            } else {
              var i = 0
              while i < rowLength {
                let alpha = min(max(sum[i + 3], 0), 255)
                if alpha < 0.5 {
                  out[i] = 0
                  out[i + 1] = 0
                  out[i + 2] = 0
                  out[i + 3] = 0
                } else {
                  let unpremultiply = 255 / alpha
                  out[i] = clampToByte(min(sum[i], alpha) * unpremultiply)
                  out[i + 1] = clampToByte(min(sum[i + 1], alpha) * unpremultiply)
                  out[i + 2] = clampToByte(min(sum[i + 2], alpha) * unpremultiply)
                  out[i + 3] = clampToByte(alpha)
                }
                i += 4
              }
            }
          }
        }
      }
      initialized = count
    }
  }
}

@inline(__always)
private func clampToByte(_ value: Float) -> UInt8 {
  if value <= 0 { return 0 }
  if value >= 255 { return 255 }
  return UInt8(value + 0.5)
}
