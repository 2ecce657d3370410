/// Decoded rows of 16-bit samples (libheif's output for an HDR picture: 10 or 12 bits in each
/// word) tone-mapped into the pipeline's 8-bit sRGB rows (``ToneMapping``), a strip at a time.
///
/// An HDR picture is decoded to 16 bits because its 8-bit samples would not do: PQ gives a
/// tenth of its code values to the light below reference white, so 8 of its bits leave about
/// 150 steps for all of SDR's range, and tone mapping spreads them further. SDR pictures of 10
/// or 12 bits keep libheif's own reduction to 8 bits, which scores as well here (50.0 dB
/// against 50.1 on `heic-grid-10bit-srgb.heic`) at half the memory.
enum WideRows {
  /// Rows converted per strip.
  static let strip = 32

  /// Hands the `height` rows at `first`, `stride` bytes apart, of `width` pixels of `channels`
  /// 16-bit little-endian samples, to `sink` as 8-bit sRGB rows (after its `begin`, which the
  /// caller has made).
  static func deliver(
    _ first: UnsafeRawPointer, width: Int, height: Int, stride: Int, channels: Int, toneMapping: ToneMapping,
    to sink: any RowSink
  ) {
    let rowBytes = width * channels
    let output = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * strip)
    defer { output.deallocate() }
    var row = 0
    while row < height {
      let count = min(strip, height - row)
      for index in 0..<count {
        let source = (first + (row + index) * stride).assumingMemoryBound(to: UInt16.self)
        toneMapping.convert(source, count: width, channels: channels, into: output + index * rowBytes)
      }
      sink.take(output, stride: rowBytes, count: count)
      row += count
    }
  }
}
