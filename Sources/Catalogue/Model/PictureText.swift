/// What a review says of one of its pictures: a description for whoever cannot see it (the
/// `alt` text of a page) and a caption shown under it. Both are optional, and belong to the
/// review's link to the picture: a picture stored once and shared by two reviews is described
/// by each on its own.
public struct PictureText: Sendable, Equatable {
  /// The description, one line of plain text; `nil` for none.
  public var alt: String?
  /// The caption, plain text of one or more lines; `nil` for none.
  public var caption: String?

  public init(alt: String? = nil, caption: String? = nil) {
    self.alt = alt
    self.caption = caption
  }

  /// A description says what a picture shows in a sentence or a short paragraph: screen
  /// readers read it whole, without a way to skip ahead, so it is kept short.
  public static let maximumAltLength = 1_000
  /// A caption may say more (who took it, where, when), still not a second review.
  public static let maximumCaptionLength = 2_000

  /// Whether it says nothing.
  public var isEmpty: Bool { alt == nil && caption == nil }

  /// The text with white space trimmed, CRLF made LF in a caption and empty values made `nil`,
  /// or every problem at once (``CatalogueError/invalidPictureText(_:problems:)``, naming
  /// `what`: "picture 2 of review 3f2a…", "poster.jpg").
  public func validated(for what: String) throws(CatalogueError) -> PictureText {
    let alt = Self.normalized(self.alt, multiline: false)
    let caption = Self.normalized(self.caption, multiline: true)
    let problems = Self.problems(alt: alt, caption: caption)
    guard problems.isEmpty else { throw .invalidPictureText(what, problems: problems) }
    return PictureText(alt: alt, caption: caption)
  }

  /// What is wrong with stored or given text (already trimmed): too long, a control
  /// character, a byte that is not UTF-8. Empty when nothing is.
  static func problems(alt: String?, caption: String?) -> [String] {
    var problems: [String] = []
    if let alt {
      if alt.count > maximumAltLength {
        problems.append("the description is \(alt.count) characters long, over \(maximumAltLength)")
      }
      if let problem = ReviewDraft.controlCharacter(in: alt, field: "the description", allowed: []) {
        problems.append(problem)
      }
    }
    if let caption {
      if caption.count > maximumCaptionLength {
        problems.append("the caption is \(caption.count) characters long, over \(maximumCaptionLength)")
      }
      if let problem = ReviewDraft.controlCharacter(in: caption, field: "the caption", allowed: ["\t", "\n"]) {
        problems.append(problem)
      }
    }
    return problems
  }

  /// `text` trimmed (a caption's CRLF pairs made LF), `nil` when nothing is left.
  static func normalized(_ text: String?, multiline: Bool) -> String? {
    guard let text else { return nil }
    let trimmed = (multiline ? text.replacingCRLF() : text).trimmingWhitespace()
    return trimmed.isEmpty ? nil : trimmed
  }
}

/// The name a picture's file had when it was attached, kept so that a download of the
/// original can be named after it.
public enum PictureName {
  /// The longest name kept, in UTF-8 bytes: what most file systems allow.
  public static let maximumBytes = 255

  /// The name kept for a file attached from `source`: its last path component (after `\`
  /// too when `uploaded`: old browsers send a Windows path), each byte that is not UTF-8 (a
  /// ``PathName`` carrier), control character or direction mark replaced by U+FFFD, trimmed,
  /// and cut to ``maximumBytes`` keeping its extension; `nil` when nothing is left.
  public static func of(_ source: String, uploaded: Bool = false) -> String? {
    let last =
      source.split(whereSeparator: { $0 == "/" || (uploaded && $0 == "\\") }).last.map(String.init) ?? ""
    var scalars = String.UnicodeScalarView()
    for scalar in last.unicodeScalars {
      scalars.append(Shown.isHidden(scalar) ? "\u{FFFD}" : scalar)
    }
    let name = String(scalars).trimmingWhitespace()
    guard !name.isEmpty, name != ".", name != ".." else { return nil }
    return capped(name)
  }

  /// `name` cut to ``maximumBytes`` of UTF-8 at a character's end, its extension (up to 16
  /// bytes) kept.
  public static func capped(_ name: String) -> String {
    guard name.utf8.count > maximumBytes else { return name }
    var suffix = ""
    if let dot = name.lastIndex(of: "."), name.utf8.distance(from: dot, to: name.endIndex) <= 16,
      dot != name.startIndex
    {
      suffix = String(name[dot...])
    }
    var stem = String(name.dropLast(suffix.count))
    while stem.utf8.count + suffix.utf8.count > maximumBytes { stem.removeLast() }
    return stem + suffix
  }

  /// What is wrong with a stored name, or `nil`: check verifies what a hand edit could break.
  static func problem(_ name: String) -> String? {
    if name.utf8.count > maximumBytes { return "the file name is \(name.utf8.count) bytes long, over \(maximumBytes)" }
    if name.contains("/") { return "the file name holds a /" }
    if name.unicodeScalars.contains(where: Shown.isHidden) {
      return "the file name holds a control character or a byte that is not UTF-8"
    }
    return nil
  }
}
