/// A list query as someone typed it — the command line's options, the API's parameters, the
/// home page's filters — each value as text, `nil` when it was not given. ``ReviewQuery``
/// reads it by the one set of rules every front end shares.
public struct ReviewQueryInput: Sendable, Equatable {
  public var category: String?
  public var minimumRating: String?
  /// A flag: empty, `1`, `true`, `yes` or `on` for yes; `0`, `false`, `no` or `off` for no.
  public var favorites: String?
  public var search: String?
  public var sort: String?
  /// A flag, as `favorites`.
  public var reverse: String?
  public var limit: String?
  public var offset: String?
  /// A reviewer's name: only what they wrote.
  public var by: String?

  public init(
    category: String? = nil, minimumRating: String? = nil, favorites: String? = nil, search: String? = nil,
    sort: String? = nil, reverse: String? = nil, limit: String? = nil, offset: String? = nil, by: String? = nil
  ) {
    self.by = by
    self.category = category
    self.minimumRating = minimumRating
    self.favorites = favorites
    self.search = search
    self.sort = sort
    self.reverse = reverse
    self.limit = limit
    self.offset = offset
  }
}

extension ReviewQuery {
  /// What a front end calls each parameter, for the messages that name one.
  public struct Names: Sendable {
    public var category: String
    public var minimumRating: String
    public var favorites: String
    public var search: String
    public var sort: String
    public var reverse: String
    public var limit: String
    public var offset: String
    public var by: String

    public init(
      category: String, minimumRating: String, favorites: String, search: String, sort: String, reverse: String,
      limit: String, offset: String, by: String = "by"
    ) {
      self.by = by
      self.category = category
      self.minimumRating = minimumRating
      self.favorites = favorites
      self.search = search
      self.sort = sort
      self.reverse = reverse
      self.limit = limit
      self.offset = offset
    }

    /// The API's query parameters (and the library's own words).
    public static let parameters = Names(
      category: "category", minimumRating: "min-rating", favorites: "favorites", search: "search", sort: "sort",
      reverse: "reverse", limit: "limit", offset: "offset")
    /// The command line's options.
    public static let options = Names(
      category: "--category", minimumRating: "--min-rating", favorites: "--favorites", search: "--search",
      sort: "--sort", reverse: "--reverse", limit: "--limit", offset: "--offset", by: "--by")
  }

  /// The most reviews one query may ask for.
  public static let maximumLimit = 100_000
  /// The furthest a query may skip.
  public static let maximumOffset = Int(Int32.max)

  /// The query `input` says, or `.invalidQuery` naming the first value that cannot be one (by
  /// its name in `names`) and why. A front end may ask for fewer reviews at once than the
  /// library allows (`maximumLimit`).
  public init(_ input: ReviewQueryInput, names: Names, maximumLimit: Int = ReviewQuery.maximumLimit)
    throws(CatalogueError)
  {
    self.init()
    if let label = input.category {
      guard let category = Category(rawValue: label) else {
        throw .invalidQuery("\(names.category) \(label) is not a category label")
      }
      self.category = category
    }
    minimumRating = try Self.number(input.minimumRating, names.minimumRating, in: 0...5)
    favoritesOnly = try Self.flag(input.favorites, names.favorites)
    search = input.search
    if let key = input.sort {
      guard let sort = Sort(rawValue: key) else {
        let keys = Sort.allCases.map(\.rawValue)
        throw .invalidQuery(
          "\(names.sort) must be \(keys.dropLast().joined(separator: ", ")) or \(keys.last ?? ""), not \(key)")
      }
      self.sort = sort
    }
    author = input.by
    reversed = try Self.flag(input.reverse, names.reverse)
    limit = try Self.number(input.limit, names.limit, in: 0...maximumLimit) ?? limit
    offset = try Self.number(input.offset, names.offset, in: 0...Self.maximumOffset) ?? 0
    try validate(names: names, maximumLimit: maximumLimit)
  }

  /// The rules every query follows, however it was made: ``Library/list(_:)`` asks them too.
  public func validate(names: Names = .parameters, maximumLimit: Int = ReviewQuery.maximumLimit)
    throws(CatalogueError)
  {
    func outside(_ name: String, _ value: Int, _ range: ClosedRange<Int>) -> CatalogueError {
      .invalidQuery("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(value)")
    }
    if !(0...maximumLimit).contains(limit) { throw outside(names.limit, limit, 0...maximumLimit) }
    if !(0...Self.maximumOffset).contains(offset) { throw outside(names.offset, offset, 0...Self.maximumOffset) }
    if let rating = minimumRating, !(0...5).contains(rating) { throw outside(names.minimumRating, rating, 0...5) }
    // A name no reviewer can have is a mistake (a display name given for the name, say), not
    // a reviewer with no reviews.
    if let author, let problem = Library.nameProblem(author) {
      throw .invalidQuery(
        author.isEmpty
          ? "\(names.by) needs a reviewer's name" : "\(names.by) \(author) is not a reviewer's name: \(problem)")
    }
    if sort == .relevance && (search ?? "").isEmpty {
      throw .invalidQuery("\(names.sort) relevance needs \(names.search)")
    }
  }

  private static func number(_ text: String?, _ name: String, in range: ClosedRange<Int>) throws(CatalogueError)
    -> Int?
  {
    guard let text else { return nil }
    guard let value = Int(text), range.contains(value) else {
      throw .invalidQuery("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(text)")
    }
    return value
  }

  private static func flag(_ text: String?, _ name: String) throws(CatalogueError) -> Bool {
    guard let text else { return false }
    switch text.lowercased() {
    case "", "1", "true", "yes", "on": return true
    case "0", "false", "no", "off": return false
    default: throw .invalidQuery("\(name) must be true or false, not \(text)")
    }
  }
}
