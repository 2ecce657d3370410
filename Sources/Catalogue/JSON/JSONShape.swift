import Foundation
import ImagePipeline

/// The JSON the catalogue writes for scripts: `--json` on the command line and the server's
/// API give these same shapes. Times are UTC, ISO 8601 with milliseconds; paths are relative
/// to the library folder; keys are sorted.
public enum JSONShape {
  /// Where a picture's files are served, for the API (the command line gives none).
  public struct ImageURLs: Encodable, Sendable, Equatable {
    public var original: String
    public var thumbnail: String
    /// The thumbnail made at twice its size, for screens of twice the density; absent when
    /// the picture is no larger than the thumbnail.
    public var thumbnail2x: String?
    /// The display rendition (longest edge 1600, JPEG or PNG) for the review page.
    public var display: String
    /// The display rendition at twice its size; absent when the picture is no larger than
    /// the display rendition.
    public var display2x: String?

    public init(
      original: String, thumbnail: String, thumbnail2x: String? = nil, display: String, display2x: String? = nil
    ) {
      self.original = original
      self.thumbnail = thumbnail
      self.thumbnail2x = thumbnail2x
      self.display = display
      self.display2x = display2x
    }
  }

  /// A review's picture.
  public struct Image: Encodable, Sendable {
    public var position: Int
    public var sha256: String
    public var format: String
    /// Upright (EXIF orientation applied).
    public var width: Int
    public var height: Int
    public var orientation: Int
    /// "Display P3", "sRGB", "untagged"…; null when recorded before colour management.
    @NullWhenMissing public var colorSpace: String?
    public var bytes: Int
    public var cover: Bool
    public var original: String
    public var thumbnail: String
    /// The review's description of the picture (its alt text); null for none.
    @NullWhenMissing public var alt: String?
    /// The caption shown under it; null for none.
    @NullWhenMissing public var caption: String?
    /// The file's name when it was attached; null for pictures attached before names were kept.
    @NullWhenMissing public var name: String?
    /// Written only when given (the API's; the command line has none).
    public var urls: ImageURLs?

    public init(_ image: ReviewImage, urls: ((StoredImage) -> ImageURLs)? = nil) {
      position = image.position
      sha256 = image.image.sha256
      format = image.image.format.rawValue
      width = image.image.width
      height = image.image.height
      orientation = image.image.orientation.rawValue
      colorSpace = image.image.colorSpace
      bytes = image.image.bytes
      cover = image.isCover
      original = image.image.original
      thumbnail = image.image.thumbnail
      alt = image.alt
      caption = image.caption
      name = image.name
      self.urls = urls?(image.image)
    }
  }

  /// A review with its pictures: what `show --json` prints and `GET /api/reviews/ID` gives.
  public struct Review: Encodable, Sendable {
    public var id: String
    public var title: String
    /// The Markdown as written, spoilers and all.
    public var body: String
    /// The body rendered as the review's page shows it, each spoiler inside a closed
    /// `<details class="spoiler">` (see ``Markdown``).
    public var bodyHTML: String
    /// Whether the whole review gives away what happens: show its body only when asked.
    public var containsSpoilers: Bool
    /// Whether it is a draft, which readers never see.
    public var draft: Bool
    /// When it was published; null for a draft.
    @NullWhenMissing public var published: String?
    public var rating: Int
    public var category: String
    public var favorite: Bool
    public var created: String
    public var updated: String
    /// The reviewer who created it; null from the command line.
    @NullWhenMissing public var createdBy: String?
    /// The reviewer who last changed it; null from the command line.
    @NullWhenMissing public var updatedBy: String?
    public var images: [Image]
    /// Where an imported review came from, with the rating as the service wrote it; left out
    /// for a review written here.
    public var sources: [Source]?

    /// A service an imported review came from.
    public struct Source: Encodable, Sendable {
      public var source: String
      public var id: String
      @NullWhenMissing public var rating: String?
      public var imported: String
    }

    public init(_ review: Catalogue.Review, urls: ((StoredImage) -> ImageURLs)? = nil) {
      id = review.id
      title = review.title
      body = review.body
      bodyHTML = Markdown.html(review.body)
      containsSpoilers = review.containsSpoilers
      draft = review.isDraft
      published = review.published.map(DateText.format)
      rating = review.rating
      category = review.category.rawValue
      favorite = review.favorite
      created = DateText.format(review.created)
      updated = DateText.format(review.updated)
      createdBy = review.createdBy
      updatedBy = review.updatedBy
      images = review.images.map { Image($0, urls: urls) }
      sources =
        review.sources.isEmpty
        ? nil
        : review.sources.map {
          Source(source: $0.source, id: $0.sourceID, rating: $0.rating, imported: DateText.format($0.imported))
        }
    }
  }

  /// One review of a list.
  public struct Summary: Encodable, Sendable {
    /// A list's cover picture.
    public struct Cover: Encodable, Sendable {
      /// The review's description of it (its alt text); null for none.
      @NullWhenMissing public var alt: String?
      public var sha256: String
      public var thumbnail: String
      public var original: String
      /// Written only when given.
      public var urls: ImageURLs?
    }

    public var id: String
    public var title: String
    public var rating: Int
    public var category: String
    public var favorite: Bool
    public var created: String
    public var updated: String
    @NullWhenMissing public var createdBy: String?
    @NullWhenMissing public var updatedBy: String?
    /// See ``Review/containsSpoilers``.
    public var containsSpoilers: Bool
    /// See ``Review/isDraft``.
    public var draft: Bool
    /// When it was published; null for a draft.
    @NullWhenMissing public var published: String?
    public var imageCount: Int
    /// null without images.
    @NullWhenMissing public var cover: Cover?

    public init(_ summary: ReviewSummary, urls: ((StoredImage) -> ImageURLs)? = nil) {
      id = summary.id
      title = summary.title
      rating = summary.rating
      category = summary.category.rawValue
      favorite = summary.favorite
      created = DateText.format(summary.created)
      updated = DateText.format(summary.updated)
      createdBy = summary.createdBy
      updatedBy = summary.updatedBy
      containsSpoilers = summary.containsSpoilers
      draft = summary.isDraft
      published = summary.published.map(DateText.format)
      imageCount = summary.imageCount
      cover = summary.cover.map {
        Cover(
          alt: summary.coverAlt, sha256: $0.sha256, thumbnail: $0.thumbnail, original: $0.original, urls: urls?($0))
      }
    }
  }

  /// A page of a list: `list --json`, `GET /api/reviews`.
  public struct Page: Encodable, Sendable {
    public var total: Int
    /// `true` when `total` is an estimate (a search by relevance matching more reviews than it
    /// ranks); absent otherwise.
    public var totalIsEstimate: Bool?
    public var offset: Int
    public var reviews: [Summary]

    public init(total: Int, totalIsEstimate: Bool = false, offset: Int, reviews: [Summary]) {
      self.total = total
      self.totalIsEstimate = totalIsEstimate ? true : nil
      self.offset = offset
      self.reviews = reviews
    }

    public init(_ page: ReviewPage, urls: ((StoredImage) -> ImageURLs)? = nil) {
      self.init(
        total: page.total, totalIsEstimate: page.totalIsEstimate, offset: page.offset,
        reviews: page.reviews.map { Summary($0, urls: urls) })
    }
  }

  /// A file an import could not take, and why.
  public struct Failure: Encodable, Sendable {
    public var file: String
    public var error: String

    public init(file: String, error: String) {
      self.file = file
      self.error = error
    }

    public init(_ failure: ImportFailure) {
      self.init(file: Shown.bytes(failure.source), error: failure.error.description)
    }
  }

  /// What was worked around in a picture that was taken.
  public struct Warning: Encodable, Sendable {
    public var file: String
    public var warning: String

    public init(file: String, warning: String) {
      self.file = file
      self.warning = warning
    }

    public init(_ warning: ImportWarning) { self.init(file: Shown.bytes(warning.source), warning: warning.message) }
  }

  /// An entry of a folder that was not imported, and why.
  public struct Skipped: Encodable, Sendable {
    public var file: String
    public var reason: String

    public init(file: String, reason: String) {
      self.file = file
      self.reason = reason
    }

    public init(_ skipped: ImportSources.Skipped) { self.init(file: Shown.bytes(skipped.path), reason: skipped.reason) }
  }

  /// What an attach did: `attach --json`, and the API's upload.
  public struct Attach: Encodable, Sendable {
    public var review: Review
    public var attached: [Image]
    public var failures: [Failure]
    public var skipped: [Skipped]
    public var warnings: [Warning]

    public init(review: Review, attached: [Image], failures: [Failure], skipped: [Skipped], warnings: [Warning]) {
      self.review = review
      self.attached = attached
      self.failures = failures
      self.skipped = skipped
      self.warnings = warnings
    }

    public init(
      _ report: AttachReport, skipped: [ImportSources.Skipped] = [], urls: ((StoredImage) -> ImageURLs)? = nil
    ) {
      self.init(
        review: Review(report.review, urls: urls), attached: report.attached.map { Image($0, urls: urls) },
        failures: report.failures.map(Failure.init), skipped: skipped.map(Skipped.init),
        warnings: report.warnings.map(Warning.init))
    }
  }

  /// A reviewer: `user list --json`.
  public struct Reviewer: Encodable, Sendable {
    public var name: String
    public var created: String
    public var passwordChanged: String
    /// Sessions that have not expired.
    public var sessions: Int
    public var tokens: Int
    /// The latest use of a session or token; null when never.
    @NullWhenMissing public var lastSeen: String?
    /// What the pages call them; null: their name.
    @NullWhenMissing public var displayName: String?
    @NullWhenMissing public var bio: String?

    public init(_ reviewer: Catalogue.Reviewer) {
      name = reviewer.name
      created = DateText.format(reviewer.created)
      passwordChanged = DateText.format(reviewer.passwordChanged)
      sessions = reviewer.sessions
      tokens = reviewer.tokens
      lastSeen = reviewer.lastSeen.map(DateText.format)
      displayName = reviewer.displayName
      bio = reviewer.bio
    }
  }

  /// A reviewer's page as data (`GET /api/reviewers/NAME`, `user edit --json`): who they are
  /// and how many reviews they wrote, of those the asker may see.
  public struct ReviewerProfile: Encodable, Sendable {
    public var name: String
    /// What the pages call them; null: their name.
    @NullWhenMissing public var displayName: String?
    @NullWhenMissing public var bio: String?
    public var reviews: Int

    public init(_ profile: Catalogue.ReviewerProfile) {
      name = profile.name
      displayName = profile.displayName
      bio = profile.bio
      reviews = profile.reviews
    }
  }

  /// `value` as JSON for people and scripts: pretty-printed, keys sorted, slashes unescaped,
  /// and every control character escaped (see ``escapingControls(_:)``). An encoding failure
  /// is an error of its own, never an empty object.
  public static func encode(_ value: some Encodable) throws(CatalogueError) -> String {
    try encode(value, formatting: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
  }

  /// The same on one line, for HTTP bodies.
  public static func encodeCompact(_ value: some Encodable) throws(CatalogueError) -> String {
    try encode(value, formatting: [.sortedKeys, .withoutEscapingSlashes])
  }

  private static func encode(_ value: some Encodable, formatting: JSONEncoder.OutputFormatting) throws(CatalogueError)
    -> String
  {
    let encoder = JSONEncoder()
    encoder.outputFormatting = formatting
    let data: Data
    do {
      data = try encoder.encode(value)
    } catch {
      throw .internalFailure("cannot write the result as JSON: \(error)")
    }
    return escapingControls(String(decoding: data, as: UTF8.self))
  }

  /// JSON escapes U+0000–U+001F itself; DEL and the C1 controls (U+0085, U+009B: a CSI on some
  /// terminals) are escaped here too, so that no control character reaches a terminal raw.
  static func escapingControls(_ json: String) -> String {
    // Looked for in the UTF-8 bytes (DEL is 7F, U+0080–U+009F are C2 80 to C2 9F): this runs
    // over every JSON answer, and nearly none holds one.
    var utf8 = json.utf8.makeIterator()
    var found = false
    while !found, let byte = utf8.next() {
      if byte == 0x7F {
        found = true
      } else if byte == 0xC2, let next = utf8.next(), (0x80...0x9F).contains(next) {
        found = true
      }
    }
    guard found else { return json }
    var text = ""
    for scalar in json.unicodeScalars {
      if (0x7F...0x9F).contains(scalar.value) {
        text += "\\u00" + String(scalar.value, radix: 16)
      } else {
        text.unicodeScalars.append(scalar)
      }
    }
    return text
  }
}

/// An optional that JSON writes as `null` instead of leaving its key out, so that the shape of
/// the output stays the same for scripts.
@propertyWrapper
public struct NullWhenMissing<Value: Encodable & Sendable>: Encodable, Sendable {
  public var wrappedValue: Value?

  public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
  }
}
