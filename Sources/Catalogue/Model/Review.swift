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

  public init(
    id: String, title: String, body: String, rating: Int, category: Category, favorite: Bool,
    created: Date, updated: Date, images: [ReviewImage] = []
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
  }

  /// The cover image, if the review has images.
  public var cover: ReviewImage? { images.first { $0.isCover } ?? images.first }
}

/// The fields a reviewer writes; what `create` takes and `edit` changes.
public struct ReviewDraft: Sendable, Equatable {
  public var title: String
  public var body: String
  public var rating: Int
  /// The category as typed: a known kind or a custom label.
  public var category: String
  public var favorite: Bool

  public init(title: String, body: String = "", rating: Int, category: String, favorite: Bool = false) {
    self.title = title
    self.body = body
    self.rating = rating
    self.category = category
    self.favorite = favorite
  }

  public static let maximumTitleLength = 300
  public static let maximumBodyBytes = 16 * 1024 * 1024

  /// The draft with white space trimmed and the category parsed, or every problem at once.
  public func validated() throws(CatalogueError) -> (
    title: String, body: String, rating: Int, category: Category, favorite: Bool
  ) {
    var problems: [String] = []
    let title = self.title.trimmingWhitespace()
    let body = self.body.trimmingWhitespace()
    if title.isEmpty {
      problems.append("title is empty")
    } else if title.count > Self.maximumTitleLength {
      problems.append("title is \(title.count) characters long, over \(Self.maximumTitleLength)")
    }
    if title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
      problems.append("title contains control characters")
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
    return (title, body, rating, category, favorite)
  }
}

/// An image attached to a review.
public struct ReviewImage: Sendable, Equatable {
  /// 1, 2, … in the review's order.
  public var position: Int
  public var image: StoredImage
  public var isCover: Bool

  public init(position: Int, image: StoredImage, isCover: Bool) {
    self.position = position
    self.image = image
    self.isCover = isCover
  }
}
