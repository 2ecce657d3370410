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
    let resizer = RowResizer(
      inputWidth: image.width, inputHeight: image.height, channels: image.channels,
      outputWidth: width, outputHeight: height, extent: extent)
    image.pixels.withUnsafeBufferPointer { pixels in
      resizer.take(pixels.baseAddress!, stride: image.stride, count: image.height)
    }
    return resizer.finish()
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
struct FilterWeights {
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

extension FilterWeights {
  /// The most outputs whose windows hold one same input sample: how many a scatter keeps open.
  func mostOpenOutputs(inputCount: Int) -> Int {
    var most = 1
    var first = 0  // the first output whose window has not ended
    var last = 0  // one past the last output whose window has begun
    for input in 0..<inputCount {
      while last < outputCount && starts[last] <= input { last += 1 }
      while first < last && starts[first] + taps - 1 < input { first += 1 }
      most = max(most, last - first)
    }
    return most
  }
}

/// Downscaling that takes the picture one row at a time, so that a decoder can hand over its
/// rows as it makes them and the whole picture is never held: the box sums of one band of
/// rows, one box-reduced row, one filtered row and the output rows still being summed are all
/// it keeps. Each tap is one vector multiply-add on premultiplied `SIMD4<Float>` samples.
///
/// The vertical filter is applied by scattering: each filtered row is added, with its weight,
/// to every output row whose window holds it, in the same order as a gather would, and an
/// output row is converted to bytes as soon as its window's last row has been added.
final class RowResizer {
  typealias Sample = SIMD4<Float>

  let inputWidth: Int
  let inputHeight: Int
  let channels: Int
  let outputWidth: Int
  let outputHeight: Int
  private let boxX: Int
  private let boxY: Int
  private let reducedWidth: Int
  private let columns: FilterWeights
  private let rows: FilterWeights
  /// How many output rows can be open (summing) at once: the ring's size.
  private let ringCount: Int

  /// The band's column sums: plain for RGB, alpha-weighted for RGBA.
  private let plainSums: UnsafeMutablePointer<UInt32>
  private let weightedSums: UnsafeMutablePointer<Int>
  private let reduced: UnsafeMutablePointer<Sample>
  private let filtered: UnsafeMutablePointer<Sample>
  private let ring: UnsafeMutablePointer<Sample>
  private var output: [UInt8]

  /// Input rows taken so far.
  private(set) var rowsTaken = 0
  /// Rows summed into the current band.
  private var bandRows = 0
  /// The index of the next box-reduced row.
  private var reducedRow = 0
  /// The first output row not yet converted to bytes.
  private var nextOutput = 0

  /// `extent` is how much of the picture the input holds, in its own pixels (see
  /// `Resizer.resize`).
  init(
    inputWidth: Int, inputHeight: Int, channels: Int, outputWidth: Int, outputHeight: Int,
    extent: (width: Double, height: Double)? = nil
  ) {
    precondition(channels == 3 || channels == 4, "a resize takes RGB or RGBA")
    precondition(inputWidth > 0 && inputHeight > 0, "a resize needs a picture")
    precondition(outputWidth > 0 && outputHeight > 0, "a resize needs a positive size")
    self.inputWidth = inputWidth
    self.inputHeight = inputHeight
    self.channels = channels
    self.outputWidth = outputWidth
    self.outputHeight = outputHeight
    let scaleX = (extent?.width ?? Double(inputWidth)) / Double(outputWidth)
    let scaleY = (extent?.height ?? Double(inputHeight)) / Double(outputHeight)
    boxX = max(1, Int(scaleX / 2))
    boxY = max(1, Int(scaleY / 2))
    reducedWidth = (inputWidth + boxX - 1) / boxX
    let reducedHeight = (inputHeight + boxY - 1) / boxY
    columns = FilterWeights(inputCount: reducedWidth, outputCount: outputWidth, scale: scaleX, box: boxX)
    rows = FilterWeights(inputCount: reducedHeight, outputCount: outputHeight, scale: scaleY, box: boxY)
    ringCount = rows.mostOpenOutputs(inputCount: reducedHeight)
    let rowLength = inputWidth * channels
    plainSums = .allocate(capacity: channels == 3 ? rowLength : 0)
    weightedSums = .allocate(capacity: channels == 4 ? rowLength : 0)
    reduced = .allocate(capacity: reducedWidth)
    filtered = .allocate(capacity: outputWidth)
    ring = .allocate(capacity: ringCount * outputWidth)
    output = [UInt8](repeating: 0, count: outputWidth * outputHeight * channels)
  }

  deinit {
    plainSums.deallocate()
    weightedSums.deallocate()
    reduced.deallocate()
    filtered.deallocate()
    ring.deallocate()
  }

  /// Whether every input row has been taken.
  var isComplete: Bool { rowsTaken == inputHeight }

  /// Takes `count` rows of `inputWidth` pixels, `stride` bytes apart, continuing from the last.
  func take(_ first: UnsafePointer<UInt8>, stride: Int, count: Int) {
    precondition(rowsTaken + count <= inputHeight, "more rows than the picture has")
    for index in 0..<count { take(row: first + index * stride) }
  }

  /// The resized picture; every row must have been taken.
  func finish() -> PixelBuffer {
    precondition(isComplete && nextOutput == outputHeight, "a resize finished before its last row")
    return PixelBuffer(width: outputWidth, height: outputHeight, channels: channels, pixels: output)
  }

  private func take(row line: UnsafePointer<UInt8>) {
    rowsTaken += 1
    if boxX == 1 && boxY == 1 {
      if channels == 3 {
        for x in 0..<inputWidth {
          let p = line + x * 3
          reduced[x] = Sample(Float(p[0]), Float(p[1]), Float(p[2]), 255)
        }
      } else {
        for x in 0..<inputWidth {
          let p = line + x * 4
          let alpha = Float(p[3])
          let scale = alpha * (1 / 255)
          reduced[x] = Sample(Float(p[0]) * scale, Float(p[1]) * scale, Float(p[2]) * scale, alpha)
        }
      }
      reducedRowDone()
      return
    }
    // The columns of a band of `boxY` rows are summed, a plain vectorisable pass over the
    // bytes in order; when the band is complete its sums are grouped `boxX` at a time.
    // Premultiplied sums (255 · 255 a pixel) take 64 bits; plain ones fit in 32.
    let rowLength = inputWidth * channels
    if channels == 3 {
      if bandRows == 0 { plainSums.update(repeating: 0, count: rowLength) }
      for i in 0..<rowLength { plainSums[i] &+= UInt32(line[i]) }
    } else {
      if bandRows == 0 { weightedSums.update(repeating: 0, count: rowLength) }
      var i = 0
      while i < rowLength {
        let alpha = Int(line[i + 3])
        weightedSums[i] &+= Int(line[i]) &* alpha
        weightedSums[i + 1] &+= Int(line[i + 1]) &* alpha
        weightedSums[i + 2] &+= Int(line[i + 2]) &* alpha
        weightedSums[i + 3] &+= alpha
        i += 4
      }
    }
    bandRows += 1
    guard bandRows == boxY || rowsTaken == inputHeight else { return }
    for ox in 0..<reducedWidth {
      let x0 = ox * boxX
      let x1 = min(x0 + boxX, inputWidth)
      let area = Float(bandRows * (x1 - x0))
      if channels == 3 {
        var r: UInt32 = 0
        var g: UInt32 = 0
        var b: UInt32 = 0
        for x in x0..<x1 {
          r &+= plainSums[x * 3]
          g &+= plainSums[x * 3 + 1]
          b &+= plainSums[x * 3 + 2]
        }
        reduced[ox] = Sample(Float(r) / area, Float(g) / area, Float(b) / area, 255)
      } else {
        var sum = SIMD4<Int>()
        for x in x0..<x1 {
          sum &+= SIMD4(weightedSums[x * 4], weightedSums[x * 4 + 1], weightedSums[x * 4 + 2], weightedSums[x * 4 + 3])
        }
        reduced[ox] = Sample(Float(sum.x) / 255, Float(sum.y) / 255, Float(sum.z) / 255, Float(sum.w)) / area
      }
    }
    bandRows = 0
    reducedRowDone()
  }

  /// Filters the box-reduced row horizontally, adds it to the output rows that read it, and
  /// converts those it completes.
  private func reducedRowDone() {
    let r = reducedRow
    reducedRow += 1
    let taps = columns.taps
    columns.weights.withUnsafeBufferPointer { weights in
      columns.starts.withUnsafeBufferPointer { starts in
        for x in 0..<outputWidth {
          let source = reduced + starts[x]
          let weight = weights.baseAddress! + x * taps
          var sum = Sample()
          for t in 0..<taps { sum += source[t] * weight[t] }
          filtered[x] = sum
        }
      }
    }
    let rowTaps = rows.taps
    rows.weights.withUnsafeBufferPointer { weights in
      rows.starts.withUnsafeBufferPointer { starts in
        var y = nextOutput
        while y < outputHeight && starts[y] <= r {
          let t = r - starts[y]
          let k = weights[y * rowTaps + t]
          let sums = ring + (y % ringCount) * outputWidth
          if t == 0 {
            for i in 0..<outputWidth { sums[i] = Sample() }
          }
          if k != 0 {
            for i in 0..<outputWidth { sums[i] += filtered[i] * k }
          }
          y += 1
        }
        while nextOutput < outputHeight && starts[nextOutput] + rowTaps - 1 <= r {
          emit(nextOutput)
          nextOutput += 1
        }
      }
    }
  }

  /// Converts the finished output row `y` to 8-bit pixels with the premultiplication undone.
  private func emit(_ y: Int) {
    let sums = ring + (y % ringCount) * outputWidth
    output.withUnsafeMutableBufferPointer { bytes in
      let out = bytes.baseAddress! + y * outputWidth * channels
      for i in 0..<outputWidth {
        let pixel = Self.bytes(unpremultiplying: sums[i])
        let target = out + i * channels
        target[0] = pixel.r
        target[1] = pixel.g
        target[2] = pixel.b
        if channels == 4 { target[3] = pixel.a }
      }
    }
  }

  /// The 8-bit straight-alpha pixel for a premultiplied sample, clamped (Lanczos rings).
  @inline(__always)
  private static func bytes(unpremultiplying sample: Sample) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
    let alpha = min(max(sample.w, 0), 255)
    if alpha < 0.5 { return (0, 0, 0, 0) }
    // Scalar clamps: the generic `SIMD.clamped` is not inlined here and cost more than the rest.
    var colour = Sample(
      min(max(sample.x, 0), alpha), min(max(sample.y, 0), alpha), min(max(sample.z, 0), alpha), 0)
    if alpha < 254.5 { colour *= 255 / alpha }
    colour += 0.5
    return (UInt8(colour.x), UInt8(colour.y), UInt8(colour.z), UInt8(alpha + 0.5))
  }
}
