import Foundation

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
    // A label already as stored (lowercase ASCII, trimmed), which is what the records hold and
    // every card of a page reads back, is its own normal form: no Unicode tables to consult.
    let bytes = label.utf8
    if (1...Self.maximumLength).contains(bytes.count), bytes.first != 32, bytes.last != 32,
      bytes.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == 32 || $0 == 45 || $0 == 95 })
    {
      rawValue = label
      return
    }
    // Composed (NFC) first: "café" typed with a combining accent (as macOS file names and
    // some keyboards give it) is the same label as the one typed with "é", in the records too.
    let normalised = label.precomposedStringWithCanonicalMapping.trimmingWhitespace().lowercased()
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

extension Category {
  /// The label among `labels` that `self` is most likely a typo of: within two edits
  /// (insertions, deletions, substitutions, swaps of neighbours), one for labels of three
  /// letters or fewer; `nil` when none is that close, or `self` is one of them.
  public func nearMiss(among labels: [Category]) -> Category? {
    guard !labels.contains(self) else { return nil }
    let word = Array(rawValue.unicodeScalars)
    var best: (label: Category, distance: Int)?
    for label in labels {
      let other = Array(label.rawValue.unicodeScalars)
      let limit = min(word.count, other.count) <= 3 ? 1 : 2
      let distance = Self.editDistance(word, other)
      if distance <= limit && distance < word.count && distance < (best?.distance ?? Int.max) {
        best = (label, distance)
      }
    }
    return best?.label
  }

  /// The optimal-string-alignment distance: Levenshtein plus swaps of neighbours ("moive").
  static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
        if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
          table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
        }
      }
    }
    return table[a.count][b.count]
  }
}
