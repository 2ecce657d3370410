/// What a file says about the colours of its samples, as its header stores it.
///
/// The decoders only report it; ``ColorManagement`` turns it into a transform to sRGB for
/// everything derived. Originals are never changed.
public enum ColorDescription: Sendable, Equatable {
  /// Nothing said: the samples are taken to be sRGB.
  case untagged
  /// An embedded ICC profile, its bytes as stored (JPEG APP2 reassembled, PNG iCCP inflated,
  /// WebP ICCP, HEIF `colr` of type `prof`/`rICC`).
  case icc([UInt8])
  /// PNG's own colour chunks, when there is no iCCP: `sRGB` (its rendering intent), `gAMA`
  /// (the file gamma, e.g. 0.45455) and `cHRM` (white point and primaries as CIE xy).
  case png(sRGBIntent: Int?, gamma: Double?, chromaticities: Chromaticities?)
  /// HEIF/AVIF `colr` of type `nclx`: the ITU-T H.273 code points.
  case nclx(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool)

  /// Whether the samples are HDR: nclx transfer characteristics PQ (16) or HLG (18), which
  /// ``ToneMapping`` brings to SDR.
  public var isHDR: Bool {
    guard case .nclx(_, let transfer, _, _) = self else { return false }
    return transfer == 16 || transfer == 18
  }

  /// CIE xy chromaticities of a white point and three primaries.
  public struct Chromaticities: Sendable, Equatable {
    public var white: (x: Double, y: Double)
    public var red: (x: Double, y: Double)
    public var green: (x: Double, y: Double)
    public var blue: (x: Double, y: Double)

    public init(
      white: (x: Double, y: Double), red: (x: Double, y: Double), green: (x: Double, y: Double),
      blue: (x: Double, y: Double)
    ) {
      self.white = white
      self.red = red
      self.green = green
      self.blue = blue
    }

    public static func == (lhs: Chromaticities, rhs: Chromaticities) -> Bool {
      lhs.white == rhs.white && lhs.red == rhs.red && lhs.green == rhs.green && lhs.blue == rhs.blue
    }
  }
}
