import Glibc

/// HDR pictures (ITU-R BT.2100: PQ or HLG) made into SDR sRGB, for thumbnails and renditions.
///
/// What the samples mean decides everything, so the conversion follows BT.2100 and BT.2408:
///
/// 1. **Display light.** PQ's samples are absolute (SMPTE ST 2084's EOTF, in cd/m²). HLG's are
///    scene light: its inverse OETF, then the OOTF of its nominal 1000 cd/m² display (system
///    gamma 1.2 on the luminance). Both are then measured against HDR reference white, 203 cd/m²
///    (BT.2408): what a camera exposes as white, and what an SDR screen shows as white.
/// 2. **Primaries**: from the picture's (BT.2020 for BT.2100) to BT.709's, in linear light.
/// 3. **Tone mapping**, BT.2390's EETF: in PQ, from a source peak of 1000 cd/m² (BT.2408's usual
///    mastering peak, and HLG's nominal display) to a target peak of reference white. Below its
///    knee (about half of reference white) it changes nothing, so shadows, skin and mid-tones
///    keep their exact SDR values; above it a Hermite spline brings everything up to the peak
///    smoothly under white, so that 500 and 1000 cd/m² stay apart rather than clip together
///    (what a Reinhard curve would do too, but at the cost of dimming every mid-tone). It is
///    applied to each pixel's largest component and R, G and B are scaled alike: the hue and
///    the saturation stay, no component can pass white, and a BT.709 colour at reference white
///    comes out as bright as white does. Light above the source peak is the peak.
/// 4. **Gamut mapping.** A colour outside BT.709 (a component below zero) is desaturated
///    towards its own luminance, just enough that no component is negative. Clipping each
///    component instead would shift hues (a saturated BT.2020 orange turns yellow, a cyan green).
/// 5. **The sRGB curve**, rounded to 8 bits.
///
/// The steps are tables where they can be: a sample's light (one entry per code), the tone
/// curve's gain and HLG's OOTF gain (by the square root of the light, interpolated) and the
/// sRGB curve (by 1/65535 of linear light), so a pixel costs lookups and a 3 × 3 matrix, with
/// no division and no `powf`.
/// `Fixtures/tools/make_hdr.py` computes the same conversion in float64 for the tests' references.
struct ToneMapping: Sendable {
  /// HDR reference white in cd/m² (ITU-R BT.2408): the light that becomes sRGB white's level.
  static let referenceWhite: Double = 203
  /// The light the curve maps to the target peak (BT.2408's usual mastering peak; HLG's
  /// nominal display).
  static let sourcePeak: Double = 1000

  /// The two HDR transfer functions of BT.2100.
  enum Transfer: Sendable {
    /// SMPTE ST 2084 (H.273 transfer characteristics 16).
    case pq
    /// ARIB STD-B67 hybrid log-gamma (H.273 transfer characteristics 18).
    case hlg
  }

  /// The tone mapping an HDR picture's colour description asks for, with a warning when its
  /// primaries are not known (then BT.2020's, BT.2100's own, are taken); `nil` for an SDR one.
  static func forPicture(_ color: ColorDescription, bits: Int) -> (ToneMapping, warning: String?)? {
    guard case .nclx(let code, let transferCode, _, _) = color else { return nil }
    let transfer: Transfer
    switch transferCode {
    case 16: transfer = .pq
    case 18: transfer = .hlg
    default: return nil
    }
    let space = ColorManagement.nclxSpace(code)
    let primaries = (space ?? .rec2020).chromaticities
    let warning = space == nil ? "nclx colour primaries \(code) are not supported: taken as BT.2020's" : nil
    return (ToneMapping(transfer: transfer, primaries: primaries, bits: bits), warning)
  }

  let transfer: Transfer
  /// Each sample code's light: display light over reference white for PQ, scene light (0–1)
  /// for HLG.
  private let light: [Float]
  /// The picture's linear RGB to BT.709's, row by row.
  private let matrix: [Float]
  /// BT.709 luminance weights, and the picture's own (for HLG's OOTF).
  private static let bt709Luma: (Float, Float, Float) = (0.2126, 0.7152, 0.0722)
  private let sourceLuma: (Float, Float, Float)

  /// A converter for samples of `bits` bits (8 to 16) in `primaries`' colours, coded by
  /// `transfer`.
  init(transfer: Transfer, primaries: ColorDescription.Chromaticities, bits: Int) {
    self.transfer = transfer
    let top = (1 << bits) - 1
    light = (0...top).map { code in
      let signal = Double(code) / Double(top)
      switch transfer {
      case .pq: return Float(Self.pqDisplayLight(signal) / Self.referenceWhite)
      case .hlg: return Float(Self.hlgSceneLight(signal))
      }
    }
    let source = Matrix3.rgbToXYZ(primaries)
    let target = Matrix3.rgbToXYZ(ColorManagement.KnownSpace.sRGB.chromaticities)
    let adapted = Matrix3.bradford(from: primaries.white, to: ColorManagement.KnownSpace.sRGB.chromaticities.white)
    matrix = (target.inverse * adapted * source).values.map(Float.init)
    // The luminance row of the picture's RGB to XYZ (its white's Y is 1).
    sourceLuma = (Float(source.values[3]), Float(source.values[4]), Float(source.values[5]))
  }

  /// Converts `count` pixels of 16-bit little-endian samples of the converter's bits
  /// (`channels` 3 or 4; alpha, straight, only rescaled) into 8-bit sRGB.
  func convert(
    _ source: UnsafePointer<UInt16>, count: Int, channels: Int, into output: UnsafeMutablePointer<UInt8>
  ) {
    let tables = Self.tables
    let top = light.count - 1
    let knee = Self.knee
    let hlg = transfer == .hlg
    let luma = sourceLuma
    light.withUnsafeBufferPointer { light in
      matrix.withUnsafeBufferPointer { m in
        tables.gain.withUnsafeBufferPointer { gain in
          tables.ootf.withUnsafeBufferPointer { ootf in
            tables.encode.withUnsafeBufferPointer { encode in
              for index in 0..<count {
                let pixel = source + index * channels
                var r = light[min(Int(UInt16(littleEndian: pixel[0])), top)]
                var g = light[min(Int(UInt16(littleEndian: pixel[1])), top)]
                var b = light[min(Int(UInt16(littleEndian: pixel[2])), top)]
                if hlg {
                  // BT.2100's OOTF: 1000 cd/m² × Ys^0.2 × E, over reference white.
                  let scale = Self.lookUp(ootf, max(luma.0 * r + luma.1 * g + luma.2 * b, 0), top: 1)
                  r *= scale
                  g *= scale
                  b *= scale
                }
                var red = m[0] * r + m[1] * g + m[2] * b
                var green = m[3] * r + m[4] * g + m[5] * b
                var blue = m[6] * r + m[7] * g + m[8] * b
                let largest = max(red, green, blue)
                if largest > knee {
                  // Past the table (PQ's 10000 cd/m² made more by the primaries), the curve
                  // is at its peak: reference white.
                  let scale = largest < Self.curveTop ? Self.lookUp(gain, largest, top: Self.curveTop) : 1 / largest
                  red *= scale
                  green *= scale
                  blue *= scale
                }
                Self.mapIntoGamut(&red, &green, &blue)
                let out = output + index * channels
                out[0] = encode[Int(red * 65535 + 0.5)]
                out[1] = encode[Int(green * 65535 + 0.5)]
                out[2] = encode[Int(blue * 65535 + 0.5)]
                if channels == 4 {
                  // Alpha is not light: only brought to 8 bits, rounded.
                  let alpha = Int(UInt16(littleEndian: pixel[3]))
                  out[3] = UInt8(min((alpha * 255 + top / 2) / top, 255))
                }
              }
            }
          }
        }
      }
    }
  }

  // MARK: - The curves

  /// SMPTE ST 2084's EOTF: a PQ signal (0–1) to display light, cd/m².
  static func pqDisplayLight(_ signal: Double) -> Double {
    let (m1, m2) = (2610.0 / 16384, 2523.0 / 4096 * 128)
    let (c1, c2, c3) = (3424.0 / 4096, 2413.0 / 4096 * 32, 2392.0 / 4096 * 32)
    let p = pow(min(max(signal, 0), 1), 1 / m2)
    return 10000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
  }

  /// The inverse of ``pqDisplayLight(_:)``.
  static func pqSignal(_ light: Double) -> Double {
    let (m1, m2) = (2610.0 / 16384, 2523.0 / 4096 * 128)
    let (c1, c2, c3) = (3424.0 / 4096, 2413.0 / 4096 * 32, 2392.0 / 4096 * 32)
    let y = pow(min(max(light / 10000, 0), 1), m1)
    return pow((c1 + c2 * y) / (1 + c3 * y), m2)
  }

  /// HLG's inverse OETF (BT.2100): a signal (0–1) to scene light (0–1).
  static func hlgSceneLight(_ signal: Double) -> Double {
    let a = 0.17883277
    let b = 1 - 4 * a
    let c = 0.5 - a * log(4 * a)
    let e = min(max(signal, 0), 1)
    return e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12
  }

  /// BT.2390's EETF from [0, ``sourcePeak``] to [0, ``referenceWhite``], in cd/m².
  static func eetf(_ light: Double) -> Double {
    let source = pqSignal(sourcePeak)
    let e1 = pqSignal(light) / source
    let maxLuminance = pqSignal(referenceWhite) / source
    let knee = 1.5 * maxLuminance - 0.5
    guard e1 > knee else { return light }
    guard e1 < 1 else { return referenceWhite }
    let t = (e1 - knee) / (1 - knee)
    let (t2, t3) = (t * t, t * t * t)
    let e2 = (2 * t3 - 3 * t2 + 1) * knee + (t3 - 2 * t2 + t) * (1 - knee) + (-2 * t3 + 3 * t2) * maxLuminance
    return pqDisplayLight(e2 * source)
  }

  /// Where the EETF starts to bend, over reference white (below it, light is kept).
  static let knee: Float = {
    let source = pqSignal(sourcePeak)
    let knee = 1.5 * pqSignal(referenceWhite) / source - 0.5
    return Float(pqDisplayLight(knee * source) / referenceWhite)
  }()

  /// The tables every converter shares, each by the square root of what it is looked up by:
  /// the tone curve's gain (its light over the light given, over reference white up to PQ's
  /// 10000 cd/m²), HLG's OOTF gain (by the scene luminance, 0–1), and the sRGB curve by
  /// 1/65535 of linear light.
  private struct Tables: Sendable {
    let gain: [Float]
    let ootf: [Float]
    let encode: [UInt8]
  }

  private static let steps = 4096
  private static let curveTop = Float(10000 / referenceWhite)

  private static let tables: Tables = {
    let gain = (0...steps).map { step -> Float in
      let root = Double(step) / Double(steps)
      let light = root * root * Double(curveTop) * referenceWhite
      return step == 0 ? 1 : Float(eetf(light) / light)
    }
    let ootf = (0...steps).map { step -> Float in
      let luminance = pow(Double(step) / Double(steps), 2)
      return Float(sourcePeak / referenceWhite * pow(luminance, 0.2))
    }
    let encode = (0...65535).map { step -> UInt8 in
      let linear = Double(step) / 65535
      let encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
      return UInt8((encoded * 255).rounded())
    }
    return Tables(gain: gain, ootf: ootf, encode: encode)
  }()

  /// `table` (made by the square root of what it is looked up by, from 0 to `top`) at `value`,
  /// interpolated between its entries.
  @inline(__always)
  private static func lookUp(_ table: UnsafeBufferPointer<Float>, _ value: Float, top: Float) -> Float {
    let position = (min(value, top) * (1 / top)).squareRoot() * Float(steps)
    let index = min(Int(position), steps - 1)
    let fraction = position - Float(index)
    return table[index] + (table[index + 1] - table[index]) * fraction
  }

  /// Desaturates a linear BT.709 colour towards its luminance until it is within [0, 1]: first
  /// so that no component is negative, then so that none is above white.
  @inline(__always)
  static func mapIntoGamut(_ r: inout Float, _ g: inout Float, _ b: inout Float) {
    let luminance = min(max(bt709Luma.0 * r + bt709Luma.1 * g + bt709Luma.2 * b, 0), 1)
    let lowest = min(r, g, b)
    if lowest < 0 {
      let keep = luminance > 0 ? luminance / (luminance - lowest) : 0
      r = luminance + keep * (r - luminance)
      g = luminance + keep * (g - luminance)
      b = luminance + keep * (b - luminance)
    }
    let highest = max(r, g, b)
    if highest > 1 {
      let keep = luminance < 1 ? (1 - luminance) / (highest - luminance) : 0
      r = luminance + keep * (r - luminance)
      g = luminance + keep * (g - luminance)
      b = luminance + keep * (b - luminance)
    }
    r = min(max(r, 0), 1)
    g = min(max(g, 0), 1)
    b = min(max(b, 0), 1)
  }
}

/// A 3 × 3 matrix, rows first: the little linear algebra the primaries need.
struct Matrix3: Sendable {
  var values: [Double]

  static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
    var values = [Double](repeating: 0, count: 9)
    for row in 0..<3 {
      for column in 0..<3 {
        values[row * 3 + column] = (0..<3).reduce(0) { $0 + a.values[row * 3 + $1] * b.values[$1 * 3 + column] }
      }
    }
    return Matrix3(values: values)
  }

  static func * (m: Matrix3, v: (Double, Double, Double)) -> (Double, Double, Double) {
    let x = m.values
    return (
      x[0] * v.0 + x[1] * v.1 + x[2] * v.2, x[3] * v.0 + x[4] * v.1 + x[5] * v.2, x[6] * v.0 + x[7] * v.1 + x[8] * v.2
    )
  }

  var inverse: Matrix3 {
    let m = values
    let c0 = m[4] * m[8] - m[5] * m[7]
    let c1 = m[5] * m[6] - m[3] * m[8]
    let c2 = m[3] * m[7] - m[4] * m[6]
    let determinant = m[0] * c0 + m[1] * c1 + m[2] * c2
    let adjugate = [
      c0, m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
      c1, m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
      c2, m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
    ]
    return Matrix3(values: adjugate.map { $0 / determinant })
  }

  /// The XYZ of a white point's chromaticity, Y = 1.
  static func xyz(_ point: (x: Double, y: Double)) -> (Double, Double, Double) {
    (point.x / point.y, 1, (1 - point.x - point.y) / point.y)
  }

  /// Linear RGB in `space`'s primaries to CIE XYZ, its white at Y = 1.
  static func rgbToXYZ(_ space: ColorDescription.Chromaticities) -> Matrix3 {
    let (r, g, b) = (xyz(space.red), xyz(space.green), xyz(space.blue))
    let primaries = Matrix3(values: [r.0, g.0, b.0, r.1, g.1, b.1, r.2, g.2, b.2])
    let scale = primaries.inverse * xyz(space.white)
    return Matrix3(values: [
      r.0 * scale.0, g.0 * scale.1, b.0 * scale.2, r.1 * scale.0, g.1 * scale.1, b.1 * scale.2,
      r.2 * scale.0, g.2 * scale.1, b.2 * scale.2,
    ])
  }

  /// The Bradford chromatic adaptation of XYZ from one white to another (identity when they
  /// are the same).
  static func bradford(from source: (x: Double, y: Double), to target: (x: Double, y: Double)) -> Matrix3 {
    let cone = Matrix3(values: [0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296])
    let s = cone * xyz(source)
    let t = cone * xyz(target)
    let gains = Matrix3(values: [t.0 / s.0, 0, 0, 0, t.1 / s.1, 0, 0, 0, t.2 / s.2])
    return cone.inverse * gains * cone
  }
}
