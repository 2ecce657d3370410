/// How a library's thumbnails are made: their size, shape and encoding.
public struct ThumbnailSpec: Sendable, Hashable, Codable, CustomStringConvertible {
  /// How the picture fills the thumbnail.
  public enum Mode: String, Sendable, Hashable, Codable {
    /// The whole picture, its longest edge `longestEdge` pixels, aspect kept.
    case fit
    /// The centre square of the picture, `longestEdge` pixels a side (for grids).
    case square
  }

  public static let `default` = ThumbnailSpec()

  /// The longest edge in pixels (the side, for `.square`). Smaller pictures are never enlarged.
  public var longestEdge: Int
  public var mode: Mode
  /// JPEG quality, 1–100.
  public var quality: Int
  /// Whether JPEG thumbnails are progressive.
  public var progressive: Bool

  public init(longestEdge: Int = 256, mode: Mode = .fit, quality: Int = 85, progressive: Bool = false) {
    self.longestEdge = longestEdge
    self.mode = mode
    self.quality = quality
    self.progressive = progressive
  }

  /// Problems with the spec, empty when it is usable.
  public var problems: [String] {
    var problems: [String] = []
    if !(16...4096).contains(longestEdge) {
      problems.append("thumbnail size \(longestEdge) is outside 16–4096")
    }
    if !(1...100).contains(quality) {
      problems.append("thumbnail quality \(quality) is outside 1–100")
    }
    return problems
  }

  /// A short name that differs whenever the thumbnails would: "256-fit-q85",
  /// "128-square-q90-progressive". Thumbnail files carry it in their names.
  public var name: String {
    "\(longestEdge)-\(mode.rawValue)-q\(quality)" + (progressive ? "-progressive" : "")
  }

  public var description: String { name }

  /// The spec a ``name`` stands for, or `nil` when the text is not one.
  public init?(name: String) {
    let parts = name.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3 || (parts.count == 4 && parts[3] == "progressive"),
      let edge = Int(parts[0]), let mode = Mode(rawValue: String(parts[1])),
      parts[2].first == "q", let quality = Int(parts[2].dropFirst())
    else { return nil }
    self.init(longestEdge: edge, mode: mode, quality: quality, progressive: parts.count == 4)
    guard problems.isEmpty, self.name == name else { return nil }
  }

  /// The same thumbnail for screens of twice the density (phones, high-density laptops): the
  /// longest edge doubled, all else alike. Like every thumbnail it never enlarges the picture,
  /// so a picture smaller than the doubled edge gets its own size (the 1× size, when it is
  /// smaller than that too).
  public var highDensity: ThumbnailSpec {
    ThumbnailSpec(longestEdge: longestEdge * 2, mode: mode, quality: quality, progressive: progressive)
  }

  /// The thumbnail's upright size for a picture that is `width` × `height` upright.
  public func size(forUprightWidth width: Int, height: Int) -> (width: Int, height: Int) {
    switch mode {
    case .fit:
      return Resizer.fittingSize(width: width, height: height, longestEdge: longestEdge)
    case .square:
      let side = min(width, height, longestEdge)
      return (side, side)
    }
  }
}
