import CZlib

/// zlib's inflate, bounded: the only file that calls zlib.
enum Inflate {
  /// Why data did not inflate.
  enum Failure: Swift.Error {
    /// The data is not a complete zlib stream; zlib's message.
    case damaged(String)
    /// The data inflates to more than the limit.
    case tooLarge
  }

  /// The zlib stream `data` inflated, refused as soon as it would exceed `limit` bytes (so a
  /// few bytes that inflate to gigabytes cost at most `limit`).
  static func inflate(_ data: UnsafeRawBufferPointer, limit: Int) -> Result<[UInt8], Failure> {
    inflate(data, limit: limit, stoppingAt: nil)
  }

  /// The first `count` bytes the zlib stream `data` inflates to (fewer when it ends sooner),
  /// inflating no more than that.
  static func prefix(_ data: UnsafeRawBufferPointer, count: Int) -> Result<[UInt8], Failure> {
    inflate(data, limit: Int.max, stoppingAt: count)
  }

  private static func inflate(_ data: UnsafeRawBufferPointer, limit: Int, stoppingAt wanted: Int?)
    -> Result<[UInt8], Failure>
  {
    var stream = z_stream()
    guard czlib_inflate_init(&stream) == Z_OK else { return .failure(.damaged("zlib could not start")) }
    defer { inflateEnd(&stream) }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: min(64 * 1024, wanted ?? Int.max))
    stream.next_in = UnsafeMutablePointer(mutating: data.baseAddress?.assumingMemoryBound(to: Bytef.self))
    stream.avail_in = uInt(data.count)
    while true {
      let status = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
        stream.next_out = buffer.baseAddress
        stream.avail_out = uInt(buffer.count)
        return CZlib.inflate(&stream, Z_NO_FLUSH)
      }
      let produced = chunk.count - Int(stream.avail_out)
      if output.count + produced > limit { return .failure(.tooLarge) }
      output.append(contentsOf: chunk[0..<produced])
      if let wanted, output.count >= wanted { return .success(Array(output.prefix(wanted))) }
      switch status {
      case Z_STREAM_END: return .success(output)
      case Z_OK: if stream.avail_in == 0 && produced == 0 { return .failure(.damaged("the data ends early")) }
      case Z_BUF_ERROR: return .failure(.damaged("the data ends early"))
      default: return .failure(.damaged(stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"))
      }
    }
  }
}
