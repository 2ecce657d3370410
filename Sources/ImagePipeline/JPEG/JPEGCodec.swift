/// JPEG as the pipeline drives it: libjpeg-turbo through ``JPEGDecoder``, shrinking on load at
/// 1/2, 1/4 or 1/8 when the caller needs less than full size.
enum JPEGCodec: FormatDecoder {
  static func header(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
    try JPEGDecoder.reading(bytes) { (decoder) throws(ImageError) in try decoder.readHeader() }
  }

  static func decode(
    _ input: ByteReader, options: DecodeOptions,
    request: (ImageHeader) -> DecodeRequest, into sink: any RowSink
  ) throws(ImageError) -> DecodeReport {
    try JPEGDecoder.reading(input) { (decoder) throws(ImageError) in
      let header = try decoder.readHeader()
      try header.checkBudget(options.pixelBudget)
      let denominator =
        request(header).minimum.map {
          scaleDenominator(width: header.width, height: header.height, atLeast: $0)
        } ?? 1
      // A CMYK file with a profile: its samples go through the profile, a strip at a time.
      var cmyk: CMYKConverter?
      var colorWarnings: [String] = []
      if header.colorModel == .cmyk || header.colorModel == .ycck, case .icc(let profile) = header.color {
        let (transform, warning) = ColorManagement.cmykTransform(profile: profile, inverted: decoder.invertedCMYK)
        cmyk = transform.map { CMYKConverter(transform: $0, sink: sink) }
        if let warning { colorWarnings.append(warning) }
      }
      let target: any RowSink = cmyk ?? sink
      try decoder.decode(scaleDenominator: denominator, lenient: options.lenient, rawCMYK: cmyk != nil) {
        width, height in
        target.begin(width: width, height: height, layout: .rgb, scale: Double(denominator))
      } rows: { first, stride, count in
        target.take(first, stride: stride, count: count)
      }
      return DecodeReport(
        header: header, warnings: decoder.warnings + colorWarnings, scale: Double(denominator),
        rowsAreSRGB: cmyk != nil)
    }
  }

  /// The largest DCT scale denominator (8, 4, 2, 1) whose output still covers `size`.
  static func scaleDenominator(width: Int, height: Int, atLeast size: (width: Int, height: Int)) -> Int {
    for denominator in [8, 4, 2] {
      let scaledWidth = (width + denominator - 1) / denominator
      let scaledHeight = (height + denominator - 1) / denominator
      if scaledWidth >= size.width && scaledHeight >= size.height { return denominator }
    }
    return 1
  }
}

/// Converts CMYK rows to sRGB through a profile's transform on their way to a sink.
private final class CMYKConverter: RowSink {
  private let transform: LittleCMS.Transform
  private let sink: any RowSink
  private var width = 0
  private var buffer: [UInt8] = []

  init(transform: LittleCMS.Transform, sink: any RowSink) {
    self.transform = transform
    self.sink = sink
  }

  func begin(width: Int, height: Int, layout: RowLayout, scale: Double) {
    self.width = width
    sink.begin(width: width, height: height, layout: .rgb, scale: scale)
  }

  func take(_ first: UnsafePointer<UInt8>, stride: Int, count: Int) {
    let rowBytes = width * 3
    if buffer.count < rowBytes * count { buffer = [UInt8](repeating: 0, count: rowBytes * count) }
    buffer.withUnsafeMutableBytes { output in
      for row in 0..<count {
        transform.apply(first + row * stride, output.baseAddress! + row * rowBytes, count: width)
      }
      sink.take(output.baseAddress!.assumingMemoryBound(to: UInt8.self), stride: rowBytes, count: count)
    }
  }
}
