import Foundation

/// Folder names for exported bundles, made from untrusted titles: "shazam-dcs-best-movie-yet-3f2a91".
///
/// A slug holds only lowercase ASCII letters, digits and `-`; its words come from the title
/// (accents dropped, a few letters spelled out), at most ``maximumWordsLength`` characters of
/// them, then `-` and the start of the review's id. So it never holds `/`, `..` or a control
/// character, never starts with `.`, and is never a name file systems reserve (`con`, `nul`,
/// `com1`, …): the id's digits always follow.
enum Slug {
  /// The longest the words part may be; the id suffix comes on top.
  static let maximumWordsLength = 48
  /// How many digits of the id a slug ends with, unless two slugs would otherwise be equal.
  static let suffixLength = 6
  /// The words part of a title that has no letters or digits at all.
  static let fallback = "review"

  /// The slug for one review.
  static func make(title: String, id: String, suffixLength: Int = suffixLength) -> String {
    "\(words(title))-\(id.prefix(suffixLength))"
  }

  /// Slugs for several reviews, different from one another: where two would be equal (the same
  /// words and the same first digits of their ids), they take more digits of their ids.
  static func make(_ reviews: [(title: String, id: String)]) -> [String] {
    var lengths = reviews.map { _ in suffixLength }
    while true {
      let slugs = zip(reviews, lengths).map {
        make(title: $0.0.title, id: $0.0.id, suffixLength: $0.1)
      }
      var seen: [String: [Int]] = [:]
      for (index, slug) in slugs.enumerated() { seen[slug, default: []].append(index) }
      let clashes = seen.values.filter { $0.count > 1 }.flatMap { $0 }
      // Ids are unique and 16 digits long: at full length no two slugs can clash.
      let growing = clashes.filter { lengths[$0] < 16 }
      if growing.isEmpty { return slugs }
      for index in growing { lengths[index] = min(16, lengths[index] + 2) }
    }
  }

  /// The title's words, lowercase ASCII, joined by `-`, cut at a word boundary.
  static func words(_ title: String) -> String {
    var text = ""
    var pendingSeparator = false
    // Compatibility decomposition splits "é" into "e" and an accent, "ﬁ" into "fi", and
    // full-width letters into plain ones; the marks are then dropped.
    for scalar in title.decomposedStringWithCompatibilityMapping.unicodeScalars {
      if let spelled = spelledOut[scalar] {
        if pendingSeparator && !text.isEmpty { text += "-" }
        pendingSeparator = false
        text += spelled
        continue
      }
      switch scalar.value {
      case 0x30...0x39, 0x61...0x7A:
        if pendingSeparator && !text.isEmpty { text += "-" }
        pendingSeparator = false
        text.unicodeScalars.append(scalar)
      case 0x41...0x5A:
        if pendingSeparator && !text.isEmpty { text += "-" }
        pendingSeparator = false
        text.unicodeScalars.append(Unicode.Scalar(scalar.value + 0x20)!)
      default:
        // Apostrophes join ("DC's" is "dcs"); accents vanish; anything else separates words.
        if apostrophes.contains(scalar) { continue }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .format: continue
        default: pendingSeparator = true
        }
      }
    }
    if text.utf8.count > maximumWordsLength {
      let cut = text.prefix(maximumWordsLength + 1)
      if let space = cut.lastIndex(of: "-"),
        cut.distance(from: cut.startIndex, to: space) >= maximumWordsLength / 2
      {
        text = String(cut[..<space])
      } else {
        text = String(text.prefix(maximumWordsLength))
      }
      while text.hasSuffix("-") { text.removeLast() }
    }
    return text.isEmpty ? fallback : text
  }

  private static let apostrophes: Set<Unicode.Scalar> = ["'", "\u{2019}", "\u{02BC}", "`"]

  /// Letters that do not decompose into ASCII, spelled as their languages do in plain text.
  private static let spelledOut: [Unicode.Scalar: String] = [
    "ß": "ss", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ø": "o", "Ø": "o", "ł": "l", "Ł": "l",
    "đ": "d", "Đ": "d", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th", "ı": "i",
  ]
}
