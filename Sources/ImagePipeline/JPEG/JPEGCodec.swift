/// JPEG as the pipeline drives it: libjpeg-turbo through ``JPEGDecoder``, shrinking on load at
/// 1/2, 1/4 or 1/8 when the caller needs less than full size.
enum JPEGCodec: FormatDecoder {
  static func header(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
    try JPEGDecoder.reading(bytes) { (decoder) throws(ImageError) in try decoder.readHeader() }
  }

  static func decode(
    _ bytes: UnsafeRawBufferPointer, options: DecodeOptions,
    request: (ImageHeader) -> DecodeRequest, into sink: any RowSink
  ) throws(ImageError) -> DecodeReport {
    try JPEGDecoder.reading(bytes) { (decoder) throws(ImageError) in
      let header = try decoder.readHeader()
      try header.checkBudget(options.pixelBudget)
      let denominator =
        request(header).minimum.map {
          scaleDenominator(width: header.width, height: header.height, atLeast: $0)
        } ?? 1
      try decoder.decode(scaleDenominator: denominator, lenient: options.lenient) { width, height in
        sink.begin(width: width, height: height, layout: .rgb, scale: Double(denominator))
      } rows: { first, stride, count in
        sink.take(first, stride: stride, count: count)
      }
      return DecodeReport(header: header, warnings: decoder.warnings, scale: Double(denominator))
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
