import Glibc
import Synchronization

/// Colour management: everything the pipeline derives from a picture is sRGB.
///
/// A picture's ``ColorDescription`` (an embedded ICC profile, PNG's colour chunks, HEIF's
/// nclx) becomes a LittleCMS transform to sRGB, applied to the thumbnail once it is small
/// (as libvips does: converting 65 thousand pixels instead of 20 million costs nothing, and
/// resizing in the source's encoding rather than sRGB's differs by less than JPEG's own
/// rounding). Untagged pictures are sRGB. Originals are never changed.
///
/// The rendering intent is relative colorimetric with black-point compensation, as browsers
/// use for pictures: every colour sRGB can show keeps its exact value, only colours outside
/// sRGB's gamut are clipped to its edge, and black-point compensation keeps the shadows of
/// print (CMYK) profiles, whose black is not zero, from being crushed or washed out. Perceptual
/// rendering would compress every colour of a wide-gamut picture to make room for the few
/// outside sRGB, and matrix-shaper profiles (every camera and phone RGB profile) have no
/// perceptual table anyway.
///
/// A profile that is unusable (damaged, truncated, over ``profileLimit``, of a colour space the
/// pixels are not in) is ignored with a warning on that picture: it never refuses a picture.
/// Transforms are built once per distinct description and reused, from every thread.
public enum ColorManagement {
  /// The largest embedded profile taken; a larger one is ignored with a warning.
  public static let profileLimit = 4 * 1024 * 1024

  /// The name of the colour space a description stands for, for records and messages:
  /// "sRGB", "Display P3", "Adobe RGB (1998)", "ProPhoto RGB", "Rec. 2020", the profile's
  /// own description for others, "untagged" when nothing is said.
  public static func name(of description: ColorDescription) -> String {
    resolved(description, channels: 3).name
  }

  /// `pixels` (RGB or RGBA, in the colours `description` gives) converted to sRGB in place;
  /// gives the warnings of a description that could not be used.
  static func convertToSRGB(_ pixels: inout PixelBuffer, from description: ColorDescription) -> [String] {
    if case .untagged = description { return [] }
    let resolution = resolved(description, channels: pixels.channels)
    if let transform = resolution.transform {
      let count = pixels.width * pixels.height
      pixels.pixels.withUnsafeMutableBytes { raw in
        transform.apply(raw.baseAddress!, raw.baseAddress!, count: count)
      }
    }
    return resolution.warning.map { [$0] } ?? []
  }

  /// A transform from CMYK samples (as libjpeg gives them, `inverted` for Adobe files) in
  /// `profile`'s colours to sRGB RGB, or `nil` with the warning that says why not.
  static func cmykTransform(profile: [UInt8], inverted: Bool) -> (LittleCMS.Transform?, String?) {
    let key = Key(kind: inverted ? "cmyk-inverted" : "cmyk", bytes: profile, channels: 4)
    return cached(key) {
      let source: LittleCMS.Profile
      switch open(profile, otherwise: "colours are approximate") {
      case .success(let opened): source = opened
      case .failure(let problem): return Resolution(name: "CMYK", warning: problem.text)
      }
      let name = source.description.map(sanitised) ?? "CMYK"
      guard source.colorSpace == .cmyk else {
        return Resolution(
          name: name, warning: "the embedded ICC profile is not a CMYK profile: colours are approximate")
      }
      guard let target = LittleCMS.Profile.sRGB(),
        let transform = LittleCMS.Transform.make(from: source, inverted ? .cmykInverted : .cmyk, to: target, .rgb)
      else {
        return Resolution(name: name, warning: "LittleCMS cannot convert from the embedded CMYK profile")
      }
      return Resolution(name: name, transform: transform)
    }.pair
  }

  // MARK: - Resolving a description

  /// What a description comes to: a name, the transform to sRGB (none when the pixels are
  /// sRGB already or nothing usable was said), and why it could not be used.
  struct Resolution: Sendable {
    var name: String
    var transform: LittleCMS.Transform?
    var warning: String?

    var pair: (LittleCMS.Transform?, String?) { (transform, warning) }
  }

  /// What distinguishes one cached resolution from another.
  private struct Key: Hashable {
    var kind: String
    var bytes: [UInt8]
    var channels: Int
  }

  private static let cache = Mutex<[Key: Resolution]>([:])
  /// Enough for every distinct profile of a photo library's import; past it the cache starts
  /// over rather than grow without bound.
  private static let cacheLimit = 64

  private static func cached(_ key: Key, make: () -> Resolution) -> Resolution {
    if let found = cache.withLock({ $0[key] }) { return found }
    let made = make()
    cache.withLock { entries in
      if entries.count >= cacheLimit { entries.removeAll() }
      entries[key] = made
    }
    return made
  }

  static func resolved(_ description: ColorDescription, channels: Int) -> Resolution {
    switch description {
    case .untagged:
      return Resolution(name: "untagged")
    case .icc(let bytes):
      return cached(Key(kind: "icc", bytes: bytes, channels: channels)) { resolveICC(bytes, channels: channels) }
    case .png(let intent, let gamma, let chromaticities):
      if intent != nil { return Resolution(name: "sRGB") }
      let text = "\(gamma ?? 0) \(chromaticities.map { "\($0)" } ?? "")"
      return cached(Key(kind: "png \(text)", bytes: [], channels: channels)) {
        resolvePNG(gamma: gamma, chromaticities: chromaticities, channels: channels)
      }
    case .nclx(let primaries, let transfer, _, _):
      return cached(Key(kind: "nclx \(primaries) \(transfer)", bytes: [], channels: channels)) {
        resolveNCLX(primaries: primaries, transfer: transfer, channels: channels)
      }
    }
  }

  /// Why an embedded profile cannot be used, as a warning's words.
  struct ProfileProblem: Swift.Error {
    var text: String
  }

  /// The profile in `bytes`, or why it cannot be used (then `otherwise` says what happens to
  /// the picture's colours): over the size limit, a header that does not add up, or bytes
  /// LittleCMS cannot read as a source profile.
  static func open(_ bytes: [UInt8], otherwise: String) -> Result<LittleCMS.Profile, ProfileProblem> {
    if bytes.count > profileLimit {
      return .failure(
        ProfileProblem(
          text: "the embedded ICC profile is \(bytes.count) bytes, over the limit of \(profileLimit): \(otherwise)"))
    }
    func damaged(_ problem: String) -> Result<LittleCMS.Profile, ProfileProblem> {
      .failure(ProfileProblem(text: "the embedded ICC profile is damaged (\(problem)): \(otherwise)"))
    }
    if let problem = headerProblem(bytes) { return damaged(problem) }
    guard let profile = LittleCMS.Profile(bytes: bytes) else { return damaged("LittleCMS cannot read it") }
    guard profile.isUsableAsSource else { return damaged("it is not a device profile") }
    return .success(profile)
  }

  /// Why a profile's bytes cannot be a whole profile, judged from its header alone: LittleCMS
  /// reads tags lazily and would open a profile cut off after its tag table.
  static func headerProblem(_ bytes: [UInt8]) -> String? {
    guard bytes.count >= 132 else { return "it has \(bytes.count) bytes, fewer than an ICC header" }
    let declared = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
    if declared > bytes.count { return "it declares \(declared) bytes but holds \(bytes.count)" }
    if declared < 132 { return "it declares a size of \(declared) bytes" }
    return nil
  }

  private static func resolveICC(_ bytes: [UInt8], channels: Int) -> Resolution {
    let source: LittleCMS.Profile
    switch open(bytes, otherwise: "colours are shown as sRGB") {
    case .success(let opened): source = opened
    case .failure(let problem): return Resolution(name: "untagged", warning: problem.text)
    }
    let name = knownName(of: source) ?? source.description.map(sanitised) ?? "ICC profile"
    let input: LittleCMS.PixelFormat
    switch source.colorSpace {
    case .rgb:
      if isSRGB(source) { return Resolution(name: "sRGB") }
      input = channels == 4 ? .rgba : .rgb
    case .gray:
      input = channels == 4 ? .grayInRGBA : .grayInRGB
    case .cmyk, .other:
      return Resolution(
        name: name,
        warning: "the embedded ICC profile (\(name)) does not describe RGB pixels: colours are shown as sRGB")
    }
    return transform(from: source, input, name: name, channels: channels)
  }

  private static func resolvePNG(gamma: Double?, chromaticities: ColorDescription.Chromaticities?, channels: Int)
    -> Resolution
  {
    let primaries = chromaticities ?? KnownSpace.sRGB.chromaticities
    guard let gamma, gamma > 0.01, gamma < 10 else {
      if chromaticities == nil || KnownSpace.named(primaries) == .sRGB { return Resolution(name: "sRGB") }
      return build(primaries, curve: KnownCurve.sRGB.make(), name: spaceName(primaries), channels: channels)
    }
    let decoding = 1 / gamma
    let name = spaceName(primaries)
    if abs(decoding - 2.2) < 0.02 && KnownSpace.named(primaries) == .sRGB {
      // gAMA 45455 beside sRGB's chromaticities is how PNG writers say "sRGB".
      return Resolution(name: "sRGB")
    }
    let described = abs(decoding - 2.2) < 0.02 ? name : "\(name), gamma \(String(format2: decoding))"
    return build(primaries, curve: LittleCMS.ToneCurve.gamma(decoding), name: described, channels: channels)
  }

  private static func resolveNCLX(primaries code: Int, transfer: Int, channels: Int) -> Resolution {
    var warnings: [String] = []
    let space: KnownSpace
    if let known = nclxSpace(code) {
      space = known
    } else {
      space = .sRGB
      warnings.append("nclx colour primaries \(code) are not supported: colours are shown as sRGB")
    }
    let curve: KnownCurve
    switch transfer {
    case 13, 2: curve = .sRGB
    case 1, 6, 14, 15: curve = .bt709
    case 4: curve = .gamma22
    case 5: curve = .gamma28
    case 8: curve = .linear
    case 16, 18:
      // HEIF and AVIF decoders tone-map these themselves (``ToneMapping``): reached only by
      // rows that were not.
      curve = .sRGB
      warnings.append(
        "an HDR picture (nclx transfer \(transfer == 16 ? "PQ" : "HLG")) is shown without tone mapping")
    default:
      curve = .sRGB
      warnings.append("nclx transfer characteristics \(transfer) are not supported: shown as sRGB's")
    }
    var resolution: Resolution
    if space == .sRGB && curve == .sRGB {
      resolution = Resolution(name: "sRGB")
    } else {
      resolution = build(space.chromaticities, curve: curve.make(), name: space.name, channels: channels)
    }
    if !warnings.isEmpty { resolution.warning = warnings.joined(separator: "; ") }
    return resolution
  }

  /// The space an nclx colour primaries code point (ITU-T H.273) names, when it is one of
  /// the known ones. Code 2 is "unspecified", taken as sRGB's.
  static func nclxSpace(_ code: Int) -> KnownSpace? {
    switch code {
    case 1, 2: return .sRGB
    case 9: return .rec2020
    case 11: return .dciP3
    case 12: return .displayP3
    case 5: return .bt601PAL
    case 6, 7: return .bt601NTSC
    default: return nil
    }
  }

  private static func build(
    _ primaries: ColorDescription.Chromaticities, curve: LittleCMS.ToneCurve?, name: String, channels: Int
  ) -> Resolution {
    guard let curve,
      let source = LittleCMS.Profile.rgb(
        white: primaries.white, red: primaries.red, green: primaries.green, blue: primaries.blue, curve: curve)
    else {
      return Resolution(name: name, warning: "LittleCMS cannot make a profile of \(name): colours are shown as sRGB")
    }
    return transform(from: source, channels == 4 ? .rgba : .rgb, name: name, channels: channels)
  }

  private static func transform(
    from source: LittleCMS.Profile, _ input: LittleCMS.PixelFormat, name: String, channels: Int
  ) -> Resolution {
    guard let target = LittleCMS.Profile.sRGB(),
      let transform = LittleCMS.Transform.make(from: source, input, to: target, channels == 4 ? .rgba : .rgb)
    else {
      return Resolution(name: name, warning: "LittleCMS cannot convert from \(name): colours are shown as sRGB")
    }
    return Resolution(name: name, transform: transform)
  }

  // MARK: - Known colour spaces

  /// The RGB spaces pictures are tagged with, recognised by their primaries.
  enum KnownSpace: CaseIterable {
    case sRGB, displayP3, dciP3, adobeRGB, proPhoto, rec2020, bt601PAL, bt601NTSC

    var name: String {
      switch self {
      case .sRGB: return "sRGB"
      case .displayP3: return "Display P3"
      case .dciP3: return "DCI-P3"
      case .adobeRGB: return "Adobe RGB (1998)"
      case .proPhoto: return "ProPhoto RGB"
      case .rec2020: return "Rec. 2020"
      case .bt601PAL: return "Rec. 601 (PAL)"
      case .bt601NTSC: return "Rec. 601 (NTSC)"
      }
    }

    var chromaticities: ColorDescription.Chromaticities {
      let d65 = (x: 0.3127, y: 0.3290)
      switch self {
      case .sRGB:
        return .init(white: d65, red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06))
      case .displayP3:
        return .init(white: d65, red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060))
      case .dciP3:
        return .init(white: (0.314, 0.351), red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060))
      case .adobeRGB:
        return .init(white: d65, red: (0.64, 0.33), green: (0.21, 0.71), blue: (0.15, 0.06))
      case .proPhoto:
        return .init(
          white: (0.3457, 0.3585), red: (0.7347, 0.2653), green: (0.1596, 0.8404), blue: (0.0366, 0.0001))
      case .rec2020:
        return .init(white: d65, red: (0.708, 0.292), green: (0.170, 0.797), blue: (0.131, 0.046))
      case .bt601PAL:
        return .init(white: d65, red: (0.64, 0.33), green: (0.29, 0.60), blue: (0.15, 0.06))
      case .bt601NTSC:
        return .init(white: d65, red: (0.630, 0.340), green: (0.310, 0.595), blue: (0.155, 0.070))
      }
    }

    /// The known space whose primaries and white are within 0.005 of `chromaticities`.
    static func named(_ chromaticities: ColorDescription.Chromaticities) -> KnownSpace? {
      func near(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Bool {
        abs(a.x - b.x) < 0.005 && abs(a.y - b.y) < 0.005
      }
      return allCases.first { known in
        let c = known.chromaticities
        return near(c.white, chromaticities.white) && near(c.red, chromaticities.red)
          && near(c.green, chromaticities.green) && near(c.blue, chromaticities.blue)
      }
    }

    /// The D50-adapted colorants of this space's profile, as an ICC profile stores them.
    var colorants: [(x: Double, y: Double, z: Double)] {
      let c = chromaticities
      guard let curve = LittleCMS.ToneCurve.gamma(1),
        let profile = LittleCMS.Profile.rgb(white: c.white, red: c.red, green: c.green, blue: c.blue, curve: curve)
      else { return [] }
      return profile.colorants ?? []
    }
  }

  /// The colorants of every known space, computed once.
  private static let knownColorants: [(KnownSpace, [(x: Double, y: Double, z: Double)])] = KnownSpace.allCases
    .map { ($0, $0.colorants) }

  private static func spaceName(_ chromaticities: ColorDescription.Chromaticities) -> String {
    KnownSpace.named(chromaticities)?.name ?? "custom primaries"
  }

  /// The known space a matrix-shaper profile's colorants match, if any.
  private static func knownName(of profile: LittleCMS.Profile) -> String? {
    guard profile.colorSpace == .rgb, let colorants = profile.colorants else { return nil }
    for (space, known) in knownColorants where known.count == 3 {
      let close = zip(colorants, known).allSatisfy {
        abs($0.x - $1.x) < 0.003 && abs($0.y - $1.y) < 0.003 && abs($0.z - $1.z) < 0.003
      }
      if close { return space.name }
    }
    return nil
  }

  /// Whether a profile is sRGB in all but name: sRGB's colorants and its transfer curve.
  private static func isSRGB(_ profile: LittleCMS.Profile) -> Bool {
    guard knownName(of: profile) == KnownSpace.sRGB.name else { return false }
    for step in 1...9 {
      let value = Float(step) / 10
      guard let decoded = profile.redCurve(at: value) else { return false }
      let expected = value <= 0.04045 ? value / 12.92 : Float(pow(Double((value + 0.055) / 1.055), 2.4))
      if abs(decoded - expected) > 0.002 { return false }
    }
    return true
  }

  /// Transfer curves named by H.273 and PNG.
  enum KnownCurve {
    case sRGB, bt709, gamma22, gamma28, linear

    func make() -> LittleCMS.ToneCurve? {
      switch self {
      case .sRGB: return .parametric(g: 2.4, a: 1 / 1.055, b: 0.055 / 1.055, c: 1 / 12.92, d: 0.04045)
      case .bt709: return .parametric(g: 1 / 0.45, a: 1 / 1.099, b: 0.099 / 1.099, c: 1 / 4.5, d: 0.081)
      case .gamma22: return .gamma(2.2)
      case .gamma28: return .gamma(2.8)
      case .linear: return .gamma(1)
      }
    }
  }

  /// A profile's description as a record may hold it: printable ASCII, at most 64 characters.
  private static func sanitised(_ text: String) -> String {
    let printable = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.map(Character.init))
    let trimmed = printable.trimmingSpaces()
    return trimmed.isEmpty ? "ICC profile" : String(trimmed.prefix(64))
  }
}

extension String {
  /// `value` with two decimals, without Foundation.
  fileprivate init(format2 value: Double) {
    let hundredths = Int((value * 100).rounded())
    let fraction = abs(hundredths % 100)
    self = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
  }

  fileprivate func trimmingSpaces() -> String {
    var scalars = Substring(self)
    while scalars.first == " " { scalars.removeFirst() }
    while scalars.last == " " { scalars.removeLast() }
    return String(scalars)
  }
}
