public import Foundation

/// A spoiler-free review as the catalogue keeps it.
public struct Review: Sendable, Equatable, Identifiable {
  /// 16 lowercase hexadecimal digits, random; addressed by any unique prefix.
  public var id: String
  public var title: String
  /// The review text: multi-line, Markdown allowed.
  public var body: String
  /// Stars, 0 to 5.
  public var rating: Int
  public var category: Category
  public var favorite: Bool
  public var created: Date
  public var updated: Date
  /// The review's images in order; the cover is marked.
  public var images: [ReviewImage]
  /// The reviewer who created it, or `nil` when it was made from the command line (or
  /// before the library knew reviewers). Kept when the reviewer is removed.
  public var createdBy: String?
  /// The reviewer who last changed it, or `nil` as for ``createdBy``.
  public var updatedBy: String?
  /// Whether the whole review gives away what happens: a reader is asked before its body is
  /// shown, and previews never show its text. (Spoilers within the body are marked in its
  /// Markdown instead: see ``Markdown``.)
  public var containsSpoilers: Bool
  /// When it was published, or `nil` while it is a draft: a draft is for its reviewers only,
  /// and readers never see it, nor learn that it exists.
  public var published: Date?
  /// Where the review was imported from (`catalogue import`), with the rating as the service
  /// wrote it; empty for a review written here.
  public var sources: [ReviewSource]

  public init(
    id: String, title: String, body: String, rating: Int, category: Category, favorite: Bool,
    created: Date, updated: Date, images: [ReviewImage] = [], createdBy: String? = nil, updatedBy: String? = nil,
    containsSpoilers: Bool = false, published: Date?, sources: [ReviewSource] = []
  ) {
    self.id = id
    self.title = title
    self.body = body
    self.rating = rating
    self.category = category
    self.favorite = favorite
    self.created = created
    self.updated = updated
    self.images = images
    self.createdBy = createdBy
    self.updatedBy = updatedBy
    self.containsSpoilers = containsSpoilers
    self.published = published
    self.sources = sources
  }

  /// Whether it is a draft: not published.
  public var isDraft: Bool { published == nil }

  /// The cover image, if the review has images.
  public var cover: ReviewImage? { images.first { $0.isCover } ?? images.first }

  /// The version of the review's text: see ``ReviewDraft/version``.
  public var version: String {
    ReviewDraft(
      title: title, body: body, rating: rating, category: category.rawValue, favorite: favorite,
      containsSpoilers: containsSpoilers
    ).version
  }
}

/// A partial edit: the fields to change, each `nil` to keep (what `PATCH` and `catalogue edit`
/// give). ``Library/update(_:changes:now:)`` applies it in one transaction.
public struct ReviewChanges: Sendable, Equatable {
  public var title: String?
  public var body: String?
  public var rating: Int?
  /// The category as typed: a known kind or a custom label.
  public var category: String?
  public var favorite: Bool?
  /// Whether the whole review gives away what happens (see ``Review/containsSpoilers``).
  public var containsSpoilers: Bool?
  /// `true` publishes a draft (a published review stays as it is, with its time); `false`
  /// takes a review back to a draft. Not one of the fields ``Review/version`` names: it
  /// changes who may read the review, not what it says, and leaves its updated time.
  public var publish: Bool?

  public init(
    title: String? = nil, body: String? = nil, rating: Int? = nil, category: String? = nil, favorite: Bool? = nil,
    containsSpoilers: Bool? = nil, publish: Bool? = nil
  ) {
    self.title = title
    self.body = body
    self.rating = rating
    self.category = category
    self.favorite = favorite
    self.containsSpoilers = containsSpoilers
    self.publish = publish
  }

  /// Whether a category the library has never used is meant as a label of its own: without
  /// it, one that looks like a typo of a category in use ("moive") is refused.
  public var newCategory = false

  /// Whether it changes nothing.
  public var isEmpty: Bool {
    title == nil && body == nil && rating == nil && category == nil && favorite == nil && containsSpoilers == nil
      && publish == nil
  }

  /// `draft` with these changes made.
  func applied(to draft: ReviewDraft) -> ReviewDraft {
    var result = draft
    if let title { result.title = title }
    if let body { result.body = body }
    if let rating { result.rating = rating }
    if let category { result.category = category }
    if let favorite { result.favorite = favorite }
    if let containsSpoilers { result.containsSpoilers = containsSpoilers }
    return result
  }
}

/// A review's fields, validated: what a record holds besides its id, times and images.
public struct ReviewFields: Sendable, Equatable {
  public var title: String
  public var body: String
  /// Stars, 0 to 5.
  public var rating: Int
  public var category: Category
  public var favorite: Bool
  /// See ``Review/containsSpoilers``.
  public var containsSpoilers: Bool
}

/// The fields a reviewer writes; what `create` takes and `edit` changes. (Not a draft in the
/// sense of ``Review/isDraft``: whether a new review is published is ``publish``.)
public struct ReviewDraft: Sendable, Equatable {
  public var title: String
  public var body: String
  public var rating: Int
  /// The category as typed: a known kind or a custom label.
  public var category: String
  public var favorite: Bool
  /// See ``Review/containsSpoilers``.
  public var containsSpoilers: Bool
  /// Whether a new review is published at once (the command line's default); `false` keeps it
  /// a draft (the editor's default). Only ``Library/create(_:now:)`` reads it.
  public var publish: Bool
  /// Whether a category the library has never used is meant as a label of its own: without
  /// it, one that looks like a typo of a category in use ("moive") is refused.
  public var newCategory: Bool

  public init(
    title: String, body: String = "", rating: Int, category: String, favorite: Bool = false,
    containsSpoilers: Bool = false, publish: Bool = true, newCategory: Bool = false
  ) {
    self.title = title
    self.body = body
    self.rating = rating
    self.category = category
    self.favorite = favorite
    self.containsSpoilers = containsSpoilers
    self.publish = publish
    self.newCategory = newCategory
  }

  /// The draft of validated fields (the category as its label).
  public init(_ fields: ReviewFields) {
    self.init(
      title: fields.title, body: fields.body, rating: fields.rating, category: fields.category.rawValue,
      favorite: fields.favorite, containsSpoilers: fields.containsSpoilers)
  }

  /// A name for these fields as they stand (16 hexadecimal digits of a SHA-256 of them): any
  /// change to the title, the body, the stars, the category, the favourite mark or the
  /// spoiler warning changes it. An edit carries the version it was made from (a form, an
  /// `If-Match`), so that one made from a page that another change has overtaken is refused
  /// rather than saved over it. (The warning counts only when set, so that the versions of
  /// reviews without one are those they had before the warning existed.)
  public var version: String {
    var bytes: [UInt8] = []
    for field in [title, body, String(rating), category, favorite ? "1" : "0"] + (containsSpoilers ? ["spoilers"] : [])
    {
      // Each field behind its length: no two sets of fields give the same bytes.
      bytes += Array("\(field.utf8.count):".utf8) + Array(field.utf8)
    }
    return String(SHA256.hex(bytes).prefix(16))
  }

  public static let maximumTitleLength = 300
  public static let maximumBodyBytes = 16 * 1024 * 1024

  /// The draft with white space trimmed and the category parsed, or every problem at once.
  public func validated() throws(CatalogueError) -> ReviewFields {
    var problems: [String] = []
    let title = self.title.trimmingWhitespace()
    // A CR of a CRLF pair is a line ending, not a control character: bodies from Windows
    // editors keep their lines.
    let body = self.body.replacingCRLF().trimmingWhitespace()
    if title.isEmpty {
      problems.append("title is empty")
    } else if title.count > Self.maximumTitleLength {
      problems.append("title is \(title.count) characters long, over \(Self.maximumTitleLength)")
    }
    if let problem = Self.controlCharacter(in: title, field: "title", allowed: []) {
      problems.append(problem)
    }
    if let problem = Self.controlCharacter(in: body, field: "body", allowed: ["\t", "\n"]) {
      problems.append(problem)
    }
    if body.utf8.count > Self.maximumBodyBytes {
      problems.append("body is \(body.utf8.count) bytes, over \(Self.maximumBodyBytes)")
    }
    if !(0...5).contains(rating) {
      problems.append("rating \(rating) is outside 0–5")
    }
    let category = Category(rawValue: self.category)
    if category == nil {
      let shown = self.category.trimmingWhitespace()
      problems.append(
        shown.isEmpty
          ? "category is empty"
          : "category \"\(shown)\" is not a label (letters, digits, spaces, - and _, up to \(Category.maximumLength))"
      )
    }
    guard problems.isEmpty, let category else { throw .invalidReview(problems) }
    return ReviewFields(
      title: title, body: body, rating: rating, category: category, favorite: favorite,
      containsSpoilers: containsSpoilers)
  }
}

extension ReviewDraft {
  /// The problem with the first control character in `text` (NUL, escape, DEL, C1 controls),
  /// other than those `allowed`, naming where it is; `nil` when there is none. Control
  /// characters would reach a reader's terminal raw, and a NUL cuts text short in C.
  static func controlCharacter(in text: String, field: String, allowed: Set<Unicode.Scalar>) -> String? {
    var offset = 0
    var line = 1
    var column = 1
    for scalar in text.unicodeScalars {
      if PathName.escapedBytes.contains(scalar.value) {
        // A byte that is not UTF-8, as the command line carries it (see ``PathName``).
        let byte = String(scalar.value - 0xF700, radix: 16, uppercase: true)
        return "\(field) is not UTF-8 text: byte 0x\(byte) at byte \(offset) starts no character; "
          + "save the text as UTF-8 and try again"
      }
      // The control characters (general category Cc) are exactly U+0000–001F and U+007F–009F:
      // tested by value, as Unicode's tables cost a lookup a character of a 16 MB body.
      if (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)) && !allowed.contains(scalar) {
        let code = String(scalar.value, radix: 16, uppercase: true)
        let name = String(repeating: "0", count: max(0, 4 - code.count)) + code
        let place = allowed.contains("\n") ? "byte \(offset) (line \(line), column \(column))" : "byte \(offset)"
        return "\(field) has a control character U+\(name) at \(place): only "
          + (allowed.isEmpty
            ? "printable characters are allowed" : "tab and newline are allowed among control characters")
      }
      offset += UTF8.width(scalar)
      if scalar == "\n" {
        line += 1
        column = 1
      } else {
        column += 1
      }
    }
    return nil
  }
}

extension String {
  /// The text with each CRLF pair made a plain LF.
  func replacingCRLF() -> String {
    // A CR byte is the test (Foundation's search through the whole body costs more).
    guard utf8.contains(13) else { return self }
    var result = String.UnicodeScalarView()
    var pendingCR = false
    for scalar in unicodeScalars {
      if pendingCR && scalar != "\n" { result.append("\r") }
      pendingCR = scalar == "\r"
      if !pendingCR { result.append(scalar) }
    }
    if pendingCR { result.append("\r") }
    return String(result)
  }
}

/// An image attached to a review.
public struct ReviewImage: Sendable, Equatable {
  /// 1, 2, … in the review's order.
  public var position: Int
  public var image: StoredImage
  public var isCover: Bool
  /// What the review says of the picture: its description and caption (see ``PictureText``).
  public var text: PictureText
  /// The file's name when it was attached (see ``PictureName``); `nil` for pictures attached
  /// before the library kept names.
  public var name: String?

  public init(position: Int, image: StoredImage, isCover: Bool, text: PictureText = PictureText(), name: String? = nil)
  {
    self.position = position
    self.image = image
    self.isCover = isCover
    self.text = text
    self.name = name
  }

  /// The description, or `nil`.
  public var alt: String? { text.alt }
  /// The caption, or `nil`.
  public var caption: String? { text.caption }
}

/// Where an imported review came from: the service, the service's id for the entry, and the
/// rating as the service wrote it (the review keeps it rounded to whole stars; see
/// ``ImportSource``).
public struct ReviewSource: Sendable, Equatable {
  /// `letterboxd`, `goodreads`, `imdb` or `storygraph`.
  public var source: String
  /// The service's id for the entry: a Letterboxd URI, a Goodreads Book Id, an IMDb Const, a
  /// StoryGraph ISBN/UID.
  public var sourceID: String
  /// The rating as the service wrote it (`3.5`, `8`, `4.25`), with its scale: `3.5/5`,
  /// `8/10`; nil for none.
  public var rating: String?
  /// When the import last wrote the review.
  public var imported: Date

  public init(source: String, sourceID: String, rating: String?, imported: Date) {
    self.source = source
    self.sourceID = sourceID
    self.rating = rating
    self.imported = imported
  }
}
