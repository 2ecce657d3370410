/// What kind of thing a review is about: one of the known kinds, or a label of the reviewer's.
public struct Category: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
  public static let movie = Category(known: "movie")
  public static let tv = Category(known: "tv")
  public static let game = Category(known: "game")
  public static let book = Category(known: "book")
  public static let app = Category(known: "app")
  public static let education = Category(known: "education")
  public static let other = Category(known: "other")

  /// The known kinds, in the order lists group them.
  public static let known: [Category] = [.movie, .tv, .game, .book, .app, .education, .other]

  /// The longest custom label.
  public static let maximumLength = 40

  /// The label as stored: lowercase, trimmed.
  public let rawValue: String

  private init(known: String) { rawValue = known }

  /// The category for `label` (case and surrounding spaces ignored), or `nil` when the label
  /// is empty, too long, or holds characters other than letters, digits, spaces, `-` and `_`.
  public init?(rawValue label: String) {
    let normalised = label.trimmingWhitespace().lowercased()
    guard !normalised.isEmpty, normalised.count <= Self.maximumLength,
      normalised.unicodeScalars.allSatisfy({
        $0.properties.isAlphabetic || $0.properties.numericType != nil || " -_".unicodeScalars.contains($0)
      })
    else { return nil }
    rawValue = normalised
  }

  /// Whether this is one of the known kinds rather than a custom label.
  public var isKnown: Bool { Self.known.contains(self) }

  /// How the category reads in a list ("TV", "Movie", or the custom label as written).
  public var displayName: String {
    switch rawValue {
    case "tv": return "TV"
    default: return rawValue.prefix(1).uppercased() + rawValue.dropFirst()
    }
  }

  public var description: String { rawValue }

  public init(from decoder: any Decoder) throws {
    let label = try decoder.singleValueContainer().decode(String.self)
    guard let category = Category(rawValue: label) else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "not a category: \(label)"))
    }
    self = category
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}

extension StringProtocol {
  /// The text without leading and trailing white space (newlines included).
  func trimmingWhitespace() -> String {
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
    let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
    return String(String.UnicodeScalarView(scalars[first...last]))
  }
}
