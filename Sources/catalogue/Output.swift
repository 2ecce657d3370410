import Catalogue
import Foundation
import ImagePipeline

/// How records look for people: tables and cards. (JSON for scripts is `JSONShape`, which the
/// server's API shares.)
enum Output {
  // MARK: People

  /// "★★★★☆" for 4.
  static func stars(_ rating: Int) -> String {
    let filled = min(max(rating, 0), 5)
    return String(repeating: "★", count: filled) + String(repeating: "☆", count: 5 - filled)
  }

  /// The id as lists show it: enough digits to be unique in practice, as git shortens.
  static func shortID(_ id: String) -> String { String(id.prefix(8)) }

  static func table(_ page: ReviewPage, width: Int?, idLength: Int = 8) -> String {
    guard !page.reviews.isEmpty else {
      return page.total == 0
        ? "No reviews." : "No reviews on this page (there are \(page.totalIsEstimate ? "about " : "")\(page.total))."
    }
    let header = ["ID", "RATING", "CATEGORY", "IMAGES", "TITLE"]
    var rows = page.reviews.map { review in
      [
        String(review.id.prefix(idLength)), stars(review.rating),
        review.category.displayName + (review.favorite ? " ♥" : ""),
        String(review.imageCount), marks(draft: review.isDraft, spoilers: review.containsSpoilers) + review.title,
      ]
    }
    rows.insert(header, at: 0)
    let widths = (0..<4).map { column in rows.map { displayWidth($0[column]) }.max() ?? 0 }
    var lines = rows.map { row -> String in
      var line = ""
      for column in 0..<4 {
        let cell = row[column]
        let padding = String(repeating: " ", count: widths[column] - displayWidth(cell))
        line += (column == 3 ? padding + cell : cell + padding) + "  "
      }
      // On a terminal the title is shortened to what is left of the line (at least a few
      // columns, so that even a narrow terminal shows the start of every title).
      if let width {
        return line + shortened(row[4], toWidth: max(width - displayWidth(line), 12))
      }
      return line + row[4]
    }
    let first = page.offset + 1
    let last = page.offset + page.reviews.count
    if page.total > page.reviews.count {
      var footer = "\(first)–\(last) of \(page.totalIsEstimate ? "about " : "")\(page.total) reviews"
      if last < page.total { footer += " (--offset \(last) for more)" }
      lines.append(footer)
    } else {
      lines.append(page.total == 1 ? "1 review" : "\(page.total) reviews")
    }
    return lines.joined(separator: "\n")
  }

  /// What a list puts before a title: "[draft] " for a draft (readers do not see it), and
  /// "[spoilers] " for a review that gives away what happens.
  static func marks(draft: Bool, spoilers: Bool) -> String {
    (draft ? "[draft] " : "") + (spoilers ? "[spoilers] " : "")
  }

  /// `text` cut to `width` terminal columns, with "…" when it was longer.
  static func shortened(_ text: String, toWidth width: Int) -> String {
    guard displayWidth(text) > width else { return text }
    var result = ""
    var used = 0
    for character in text {
      let columns = displayWidth(character)
      if used + columns > width - 1 { break }
      result.append(character)
      used += columns
    }
    return result + "…"
  }

  /// How many terminal columns `text` takes: two for wide East Asian characters and emoji,
  /// none for combining marks, one otherwise.
  static func displayWidth(_ text: String) -> Int { text.reduce(0) { $0 + displayWidth($1) } }

  static func displayWidth(_ character: Character) -> Int {
    guard let scalar = character.unicodeScalars.first else { return 0 }
    if scalar.properties.generalCategory == .control { return 0 }
    if scalar.properties.isEmojiPresentation { return 2 }
    switch scalar.value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
      0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
      0xFFE0...0xFFE6, 0x20000...0x3FFFD:
      return 2
    default:
      return 1
    }
  }

  /// A review for people: its facts, its text (spoilers masked unless `spoilers`: see
  /// ``Markdown``; none at all for a review that contains spoilers as a whole), its pictures.
  static func card(_ review: Review, spoilers: Bool = false) -> String {
    var lines = [review.title]
    var facts = "\(stars(review.rating))  \(review.category.displayName)"
    if review.favorite { facts += "  ♥ favourite" }
    if review.containsSpoilers { facts += "  contains spoilers" }
    lines.append(facts)
    lines.append("id \(review.id) · created \(humanDate(review.created)) · updated \(humanDate(review.updated))")
    if let published = review.published {
      if DateText.format(published) != DateText.format(review.created) {
        lines.append("published \(humanDate(published))")
      }
    } else {
      lines.append("draft: readers do not see it (catalogue edit \(shortID(review.id)) --publish publishes it)")
    }
    for source in review.sources {
      let service = ImportSource(rawValue: source.source)?.displayName ?? source.source
      let rated = source.rating.map { ", rated \($0) there" } ?? ""
      lines.append("imported from \(service): \(Shown.terminal(source.sourceID))\(rated)")
    }
    if !review.body.isEmpty {
      lines.append("")
      if spoilers {
        lines.append(review.body)
      } else if review.containsSpoilers {
        let words = ReviewText.wordCount(review.body)
        lines.append(
          "[this review contains spoilers: \(words == 1 ? "1 word" : "\(words) words") hidden; "
            + "catalogue show \(shortID(review.id)) --spoilers shows them]")
      } else {
        lines.append(ReviewText.masked(review.body))
      }
    }
    lines.append("")
    if review.images.isEmpty {
      lines.append("No images.")
    } else {
      lines.append(review.images.count == 1 ? "1 image:" : "\(review.images.count) images:")
      for image in review.images {
        lines.append("  " + imageLine(image))
        lines += described(image).map { "     " + $0 }
      }
    }
    return lines.joined(separator: "\n")
  }

  static func imageLine(_ image: ReviewImage) -> String {
    let stored = image.image
    return "\(image.position)\(image.isCover ? "*" : " ") \(stored.sha256.prefix(12))  "
      + "\(stored.width)×\(stored.height) \(stored.format.name)\(colour(stored)) \(byteCount(stored.bytes))  "
      + stored.original
  }

  /// What the review says of a picture and its file's name, a line each (a caption's further
  /// lines indented under its first); nothing for what it does not have.
  static func described(_ image: ReviewImage) -> [String] {
    var lines: [String] = []
    if let name = image.name { lines.append("name: \(name)") }
    if let alt = image.alt { lines.append("description: \(alt)") }
    if let caption = image.caption {
      let parts = caption.split(separator: "\n", omittingEmptySubsequences: false)
      lines.append("caption: \(parts[0])")
      lines += parts.dropFirst().map { "         \($0)" }
    }
    return lines
  }

  /// The colour space after the format, for pictures that have one worth saying: untagged
  /// (the common case, taken as sRGB) and unrecorded ones say nothing.
  static func colour(_ stored: StoredImage) -> String {
    guard let space = stored.colorSpace, space != "untagged" else { return "" }
    return " \(space)"
  }

  static func humanDate(_ date: Date) -> String {
    let text = DateText.format(date)
    return String(text.prefix(16)).replacingOccurrences(of: "T", with: " ") + " UTC"
  }

  static func byteCount(_ bytes: Int) -> String {
    if bytes < 1024 { return "\(bytes) B" }
    if bytes < 1024 * 1024 { return "\((bytes + 512) / 1024) KB" }
    return String(format: "%.1f MB", Double(bytes) / 1_048_576)
  }
}
