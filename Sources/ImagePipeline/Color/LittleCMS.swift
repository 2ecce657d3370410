import CLCMS2

/// LittleCMS's profiles and transforms, the only file that calls it.
///
/// Every handle lives in a final class that frees it in `deinit`. Profiles are read from
/// memory the caller owns only for the duration of the call (LittleCMS copies what it keeps).
enum LittleCMS {
  /// One context for the whole process, with no error logger: failures come back as `nil`
  /// handles, which the callers turn into warnings.
  nonisolated(unsafe) static let context: cmsContext? = {
    let context = cmsCreateContext(nil, nil)
    cmsSetLogErrorHandlerTHR(context, nil)
    return context
  }()

  /// An open ICC profile. Not `Sendable`: used by one thread, then dropped.
  final class Profile {
    fileprivate let handle: cmsHPROFILE

    fileprivate init(_ handle: cmsHPROFILE) { self.handle = handle }

    deinit { cmsCloseProfile(handle) }

    /// The profile in `bytes`, or `nil` when LittleCMS cannot read it. The corresponding C
    /// function is `cmsOpenProfileFromMemTHR`.
    convenience init?(bytes: [UInt8]) {
      guard
        let handle = bytes.withUnsafeBytes({ raw in
          cmsOpenProfileFromMemTHR(LittleCMS.context, raw.baseAddress, cmsUInt32Number(raw.count))
        })
      else { return nil }
      self.init(handle)
    }

    /// LittleCMS's own sRGB profile.
    static func sRGB() -> Profile? {
      cmsCreate_sRGBProfileTHR(LittleCMS.context).map(Profile.init)
    }

    /// A matrix-shaper RGB profile from a white point, primaries (CIE xy) and one transfer
    /// curve for all three channels. The corresponding C function is `cmsCreateRGBProfileTHR`.
    static func rgb(
      white: (x: Double, y: Double), red: (x: Double, y: Double), green: (x: Double, y: Double),
      blue: (x: Double, y: Double), curve: ToneCurve
    ) -> Profile? {
      var whitePoint = cmsCIExyY(x: white.x, y: white.y, Y: 1)
      var primaries = cmsCIExyYTRIPLE(
        Red: cmsCIExyY(x: red.x, y: red.y, Y: 1), Green: cmsCIExyY(x: green.x, y: green.y, Y: 1),
        Blue: cmsCIExyY(x: blue.x, y: blue.y, Y: 1))
      var curves: [OpaquePointer?] = [curve.handle, curve.handle, curve.handle]
      return curves.withUnsafeMutableBufferPointer { curves in
        cmsCreateRGBProfileTHR(LittleCMS.context, &whitePoint, &primaries, curves.baseAddress)
      }.map(Profile.init)
    }

    /// The profile's data colour space.
    var colorSpace: ColorSpaceSignature {
      switch cmsGetColorSpace(handle) {
      case cmsSigRgbData: return .rgb
      case cmsSigGrayData: return .gray
      case cmsSigCmykData: return .cmyk
      default: return .other
      }
    }

    /// Whether the profile can be used as a source: an input, display, colour-space or output
    /// profile (not a device link, abstract or named-colour profile).
    var isUsableAsSource: Bool {
      switch cmsGetDeviceClass(handle) {
      case cmsSigInputClass, cmsSigDisplayClass, cmsSigColorSpaceClass, cmsSigOutputClass: return true
      default: return false
      }
    }

    /// The profile's description tag (`desc`), in English where it has a choice.
    var description: String? {
      var buffer = [CChar](repeating: 0, count: 256)
      let length = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &buffer, 256)
      guard length > 1 else { return nil }
      return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// The red, green and blue colorants (`rXYZ`, `gXYZ`, `bXYZ`, adapted to D50), when the
    /// profile is a matrix shaper.
    var colorants: [(x: Double, y: Double, z: Double)]? {
      guard cmsIsMatrixShaper(handle) != 0 else { return nil }
      var result: [(x: Double, y: Double, z: Double)] = []
      for tag in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag] {
        guard let raw = cmsReadTag(handle, tag) else { return nil }
        let xyz = raw.assumingMemoryBound(to: cmsCIEXYZ.self).pointee
        result.append((xyz.X, xyz.Y, xyz.Z))
      }
      return result
    }

    /// The red channel's transfer curve evaluated at `value` (0…1), for matrix shapers.
    func redCurve(at value: Float) -> Float? {
      guard cmsIsMatrixShaper(handle) != 0, let raw = cmsReadTag(handle, cmsSigRedTRCTag) else { return nil }
      return cmsEvalToneCurveFloat(OpaquePointer(raw), value)
    }
  }

  enum ColorSpaceSignature {
    case rgb, gray, cmyk, other
  }

  /// A transfer curve. The corresponding C function is `cmsBuildParametricToneCurve`.
  final class ToneCurve {
    fileprivate let handle: OpaquePointer

    private init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { cmsFreeToneCurve(handle) }

    /// A pure power curve: encoded values decode as value^`gamma`.
    static func gamma(_ gamma: Double) -> ToneCurve? {
      cmsBuildGamma(LittleCMS.context, gamma).map(ToneCurve.init)
    }

    /// ICC parametric curve type 4: (a·x + b)^g above d, c·x below (sRGB, BT.709).
    static func parametric(g: Double, a: Double, b: Double, c: Double, d: Double) -> ToneCurve? {
      var parameters = [g, a, b, c, d]
      return cmsBuildParametricToneCurve(LittleCMS.context, 4, &parameters).map(ToneCurve.init)
    }
  }

  /// Pixel layouts a transform reads and writes.
  enum PixelFormat {
    case rgb, rgba, grayInRGB, grayInRGBA, cmyk, cmykInverted

    var value: cmsUInt32Number {
      switch self {
      case .rgb: return clcms2_type_rgb_8()
      case .rgba: return clcms2_type_rgba_8()
      case .grayInRGB: return clcms2_type_gray_in_rgb_8()
      case .grayInRGBA: return clcms2_type_gray_in_rgba_8()
      case .cmyk: return clcms2_type_cmyk_8()
      case .cmykInverted: return clcms2_type_cmyk_8_rev()
      }
    }
  }

  /// A transform from one profile to another. Built with `cmsFLAGS_NOCACHE`, so that one
  /// transform may run on many threads at once (LittleCMS's one-pixel cache is the only state
  /// `cmsDoTransform` changes); hence `@unchecked Sendable`.
  final class Transform: @unchecked Sendable {
    private let handle: cmsHTRANSFORM

    private init(_ handle: cmsHTRANSFORM) { self.handle = handle }

    deinit { cmsDeleteTransform(handle) }

    /// Relative colorimetric with black-point compensation (see ``ColorManagement``). The
    /// corresponding C function is `cmsCreateTransformTHR`.
    static func make(from source: Profile, _ input: PixelFormat, to target: Profile, _ output: PixelFormat)
      -> Transform?
    {
      let flags = cmsUInt32Number(cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOCACHE)
      return cmsCreateTransformTHR(
        LittleCMS.context, source.handle, input.value, target.handle, output.value,
        cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), flags
      ).map(Transform.init)
    }

    /// Transforms `count` pixels from `input` to `output` (which may be the same memory when
    /// both formats have the same size). The corresponding C function is `cmsDoTransform`.
    func apply(_ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, count: Int) {
      cmsDoTransform(handle, input, output, cmsUInt32Number(count))
    }
  }
}
