import Glibc

/// High-quality downscaling: area averaging for the integer part of the reduction, then a
/// separable Lanczos-3 filter for the rest, with alpha premultiplied so that transparent pixels
/// lend no colour to their neighbours.
///
/// The integer part leaves a residual of at least 2 for the filter (as libvips does), so the
/// filter, not the box, decides the quality; the box only makes large reductions cheap.
public enum Resizer {
  /// `image` resized to exactly `width` × `height`.
  ///
  /// `extent` is how much of the picture `image` holds, in its own pixels, when that is less
  /// than its size: a JPEG decoded at 1/4 scale from 3837 rows has 960 rows, of which only
  /// 959.25 are picture. Using the true extent keeps the bottom rows from drifting.
  public static func resize(
    _ image: PixelBuffer, width: Int, height: Int, extent: (width: Double, height: Double)? = nil
  ) -> PixelBuffer {
    precondition(width > 0 && height > 0, "a resize needs a positive size")
    if width == image.width && height == image.height { return image }
    let scaleX = (extent?.width ?? Double(image.width)) / Double(width)
    let scaleY = (extent?.height ?? Double(image.height)) / Double(height)
    let boxX = max(1, Int(scaleX / 2))
    let boxY = max(1, Int(scaleY / 2))
    let reduced = Plane(boxReducing: image, boxX: boxX, boxY: boxY)
    let columns = FilterWeights(
      inputCount: reduced.width, outputCount: width, scale: scaleX, box: boxX)
    let rows = FilterWeights(
      inputCount: reduced.height, outputCount: height, scale: scaleY, box: boxY)
    let pixels = reduced.filteringRows(columns).filteringColumns(rows, channels: image.channels)
    return PixelBuffer(width: width, height: height, channels: image.channels, pixels: pixels)
  }

  /// The size that fits `width` × `height` into a `longestEdge` square, aspect kept, never
  /// larger than the original.
  public static func fittingSize(width: Int, height: Int, longestEdge: Int) -> (width: Int, height: Int) {
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
    weights = [Float](repeating: 0, count: outputCount * taps)  // small: one row of weights
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

/// Premultiplied samples, one `SIMD4<Float>` a pixel (RGB images carry alpha 255), so that
/// every filter tap is one vector multiply-add whatever the channel count.
private struct Plane {
  typealias Sample = SIMD4<Float>

  let width: Int
  let height: Int
  var samples: [Sample]

  init(width: Int, height: Int, samples: [Sample]) {
    self.width = width
    self.height = height
    self.samples = samples
  }

  /// `image` averaged over `boxX` × `boxY` blocks (a partial block at the right and bottom
  /// edges averages what it has), premultiplied.
  init(boxReducing image: PixelBuffer, boxX: Int, boxY: Int) {
    let outputWidth = (image.width + boxX - 1) / boxX
    let outputHeight = (image.height + boxY - 1) / boxY
    let inputWidth = image.width
    let inputHeight = image.height
    let channels = image.channels
    let count = outputWidth * outputHeight
    @inline(__always)
    func sample(_ p: UnsafePointer<UInt8>) -> Sample {
      if channels == 3 { return Sample(Float(p[0]), Float(p[1]), Float(p[2]), 255) }
      let alpha = Float(p[3])
      let scale = alpha * (1 / 255)
      return Sample(Float(p[0]) * scale, Float(p[1]) * scale, Float(p[2]) * scale, alpha)
    }
    let samples = [Sample](unsafeUninitializedCapacity: count) { output, initialized in
      image.pixels.withUnsafeBufferPointer { input in
        let source = input.baseAddress!
        let target = output.baseAddress!
        if boxX == 1 && boxY == 1 {
          for index in 0..<count { target[index] = sample(source + index * channels) }
        } else {
          // First the columns of a band of `boxY` rows are summed, a plain vectorisable pass
          // over the bytes in order; then each band's sums are grouped `boxX` at a time.
          // Premultiplied sums (255 · 255 a pixel) take 64 bits; plain ones fit in 32.
          let rowLength = inputWidth * channels
          let columns = UnsafeMutablePointer<UInt32>.allocate(capacity: rowLength)
          let weighted = UnsafeMutablePointer<Int>.allocate(capacity: rowLength)
          defer {
            columns.deallocate()
            weighted.deallocate()
          }
          for oy in 0..<outputHeight {
            let y0 = oy * boxY
            let y1 = min(y0 + boxY, inputHeight)
            if channels == 3 {
              columns.initialize(repeating: 0, count: rowLength)
              for y in y0..<y1 {
                let line = source + y * rowLength
                for i in 0..<rowLength { columns[i] &+= UInt32(line[i]) }
              }
            } else {
              weighted.initialize(repeating: 0, count: rowLength)
              for y in y0..<y1 {
                let line = source + y * rowLength
                var i = 0
                while i < rowLength {
                  let alpha = Int(line[i + 3])
                  weighted[i] &+= Int(line[i]) &* alpha
                  weighted[i + 1] &+= Int(line[i + 1]) &* alpha
                  weighted[i + 2] &+= Int(line[i + 2]) &* alpha
                  weighted[i + 3] &+= alpha
                  i += 4
                }
              }
            }
            let row = target + oy * outputWidth
            let rows = y1 - y0
            for ox in 0..<outputWidth {
              let x0 = ox * boxX
              let x1 = min(x0 + boxX, inputWidth)
              let area = Float(rows * (x1 - x0))
              if channels == 3 {
                var r: UInt32 = 0
                var g: UInt32 = 0
                var b: UInt32 = 0
                for x in x0..<x1 {
                  r &+= columns[x * 3]
                  g &+= columns[x * 3 + 1]
                  b &+= columns[x * 3 + 2]
                }
                row[ox] = Sample(Float(r) / area, Float(g) / area, Float(b) / area, 255)
              } else {
                var sum = SIMD4<Int>()
                for x in x0..<x1 {
                  sum &+= SIMD4(weighted[x * 4], weighted[x * 4 + 1], weighted[x * 4 + 2], weighted[x * 4 + 3])
                }
                row[ox] =
                  Sample(
                    Float(sum.x) / 255, Float(sum.y) / 255, Float(sum.z) / 255, Float(sum.w)) / area
              }
            }
          }
        }
      }
      initialized = count
    }
    self.init(width: outputWidth, height: outputHeight, samples: samples)
  }

  /// Every row filtered horizontally to `weights.outputCount` columns.
  func filteringRows(_ weights: FilterWeights) -> Plane {
    let outputWidth = weights.outputCount
    let taps = weights.taps
    let inputWidth = width
    let count = outputWidth * height
    let result = [Sample](unsafeUninitializedCapacity: count) { output, initialized in
      samples.withUnsafeBufferPointer { input in
        weights.weights.withUnsafeBufferPointer { allWeights in
          weights.starts.withUnsafeBufferPointer { starts in
            for y in 0..<height {
              let inRow = input.baseAddress! + y * inputWidth
              let outRow = output.baseAddress! + y * outputWidth
              for x in 0..<outputWidth {
                let source = inRow + starts[x]
                let weight = allWeights.baseAddress! + x * taps
                var sum = Sample()
                for t in 0..<taps { sum += source[t] * weight[t] }
                outRow[x] = sum
              }
            }
          }
        }
      }
      initialized = count
    }
    return Plane(width: outputWidth, height: height, samples: result)
  }

  /// Every column filtered vertically to `weights.outputCount` rows, converted to 8-bit
  /// pixels of `channels` channels with the premultiplication undone.
  func filteringColumns(_ weights: FilterWeights, channels: Int) -> [UInt8] {
    let outputHeight = weights.outputCount
    let taps = weights.taps
    let rowLength = width
    let count = rowLength * outputHeight * channels
    return [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
      let sums = UnsafeMutablePointer<Sample>.allocate(capacity: rowLength)
      defer { sums.deallocate() }
      samples.withUnsafeBufferPointer { input in
        weights.weights.withUnsafeBufferPointer { allWeights in
          for y in 0..<outputHeight {
            sums.initialize(repeating: Sample(), count: rowLength)
            let start = weights.starts[y]
            for t in 0..<taps {
              let k = allWeights[y * taps + t]
              if k == 0 { continue }
              let row = input.baseAddress! + (start + t) * rowLength
              for i in 0..<rowLength { sums[i] += row[i] * k }
            }
            let out = output.baseAddress! + y * rowLength * channels
            for i in 0..<rowLength {
              let pixel = bytes(unpremultiplying: sums[i])
              let target = out + i * channels
              target[0] = pixel.r
              target[1] = pixel.g
              target[2] = pixel.b
              if channels == 4 { target[3] = pixel.a }
            }
          }
        }
      }
      initialized = count
    }
  }
}

/// The 8-bit straight-alpha pixel for a premultiplied sample, clamped (Lanczos rings).
@inline(__always)
private func bytes(unpremultiplying sample: SIMD4<Float>) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
  let alpha = min(max(sample.w, 0), 255)
  if alpha < 0.5 { return (0, 0, 0, 0) }
  var colour = sample.clamped(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: alpha))
  if alpha < 254.5 { colour *= 255 / alpha }
  colour += 0.5
  return (UInt8(colour.x), UInt8(colour.y), UInt8(colour.z), UInt8(alpha + 0.5))
}
