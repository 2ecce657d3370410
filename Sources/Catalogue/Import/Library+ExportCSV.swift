import Foundation

/// A CSV file another service imports (`catalogue export --format`), so that leaving is as
/// easy as coming: Letterboxd's import format for films, Goodreads' export format (which its
/// import reads) for books.
public enum ServiceCSV: String, Sendable, CaseIterable {
  case letterboxd = "letterboxd-csv"
  case goodreads = "goodreads-csv"

  /// The category of the reviews the service takes.
  public var category: Category { self == .letterboxd ? .movie : .book }

  /// What the service calls the things it takes, for messages.
  public var kinds: String { self == .letterboxd ? "films" : "books" }

  var header: [String] {
    switch self {
    case .letterboxd: return ["Title", "Year", "Rating", "WatchedDate", "Review", "imdbID", "LetterboxdURI"]
    case .goodreads:
      return [
        "Book Id", "Title", "Author", "ISBN", "My Rating", "Date Read", "Date Added", "Bookshelves", "Exclusive Shelf",
        "My Review", "Spoiler",
      ]
    }
  }

  /// The row of `review`: what the service's import reads, the service's own rating and id
  /// where the review was imported from it (or from IMDb, for Letterboxd).
  func row(_ review: Review) -> [String] {
    let date = String(DateText.format(review.created).prefix(10))
    func source(_ name: String) -> ReviewSource? { review.sources.first { $0.source == name } }
    switch self {
    case .letterboxd:
      let (title, year) = Self.splitYear(review.title)
      var rating = review.rating > 0 ? String(review.rating) : ""
      if let kept = source("letterboxd")?.rating, kept.hasSuffix("/5") { rating = String(kept.dropLast(2)) }
      let imdb = source("imdb")?.sourceID ?? ""
      // Only a film's address names the film: a review's short link (boxd.it) does not.
      let uri = review.sources.first { $0.sourceID.contains("letterboxd.com/film/") }?.sourceID ?? ""
      return [title, year, rating, date, Self.plain(review.body), imdb, uri]
    case .goodreads:
      let (title, author) = Self.splitAuthor(review)
      let isbn = source("storygraph").map(\.sourceID).flatMap { Self.isISBN($0) ? $0 : nil } ?? ""
      return [
        source("goodreads")?.sourceID ?? "", title, author, isbn, review.rating > 0 ? String(review.rating) : "0", date,
        date, "read", "read", Self.goodreadsHTML(review.body), review.containsSpoilers ? "true" : "false",
      ]
    }
  }

  /// `Name (1999)` as the name and the year; a title without a year in brackets at its end as
  /// it is.
  static func splitYear(_ title: String) -> (String, String) {
    let scalars = Array(title.unicodeScalars)
    let count = scalars.count
    guard count > 7, scalars[count - 1] == ")", scalars[count - 6] == "(", scalars[count - 7] == " ",
      scalars[(count - 5)..<(count - 1)].allSatisfy({ ("0"..."9").contains($0) })
    else { return (title, "") }
    let name = String(String.UnicodeScalarView(scalars[..<(count - 7)]))
    return (name, String(String.UnicodeScalarView(scalars[(count - 5)..<(count - 1)])))
  }

  /// A book's title and author: `Title by Author` as an import from Goodreads or The StoryGraph
  /// made it; any other title whole, with no author.
  static func splitAuthor(_ review: Review) -> (String, String) {
    let imported = review.sources.contains { $0.source == "goodreads" || $0.source == "storygraph" }
    guard imported, let by = review.title.range(of: " by ", options: .backwards) else { return (review.title, "") }
    return (String(review.title[..<by.lowerBound]), String(review.title[by.upperBound...]))
  }

  static func isISBN(_ text: String) -> Bool {
    (text.count == 10 || text.count == 13) && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "X") }
  }

  /// A body as text for a service that does not read Markdown: its backslash escapes (`\*`,
  /// `\<`) and hard line breaks (a `\` at a line's end) undone, so the words read as written.
  static func plain(_ body: String) -> String {
    guard body.contains("\\") else { return body }
    var result = ""
    var escaped = false
    for character in body {
      if escaped {
        if !(character.isASCII && (character.isPunctuation || character.isSymbol || character == "\n")) {
          result.append("\\")
        }
        result.append(character)
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else {
        result.append(character)
      }
    }
    if escaped { result.append("\\") }
    return result
  }

  /// A body as Goodreads shows review text: HTML line breaks, and each inline spoiler of the
  /// catalogue (`||…||`) as Goodreads' own `<spoiler>` tag, so that it stays hidden there.
  static func goodreadsHTML(_ body: String) -> String {
    var text = plain(body).replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    var result = ""
    var open = false
    while let marker = text.range(of: "||") {
      result += text[..<marker.lowerBound] + (open ? "</spoiler>" : "<spoiler>")
      open.toggle()
      text = String(text[marker.upperBound...])
    }
    result += text + (open ? "</spoiler>" : "")
    return result.replacingOccurrences(of: "\n", with: "<br/>")
  }
}

extension Library {
  /// Every review of `format`'s category (published ones, and drafts with `includeDrafts`) as
  /// the service's CSV, oldest first; with how many reviews of other categories were left out.
  public func exportCSV(_ format: ServiceCSV, includeDrafts: Bool = false) throws(CatalogueError) -> (
    csv: String, written: Int, leftOut: Int
  ) {
    try read { () throws(CatalogueError) -> (String, Int, Int) in
      let showing: ReviewQuery.Showing = includeDrafts ? .all : .published
      let all = try list(ReviewQuery(limit: 0, showing: showing)).total
      let page = try list(
        ReviewQuery(
          category: format.category, sort: .created, reversed: true, limit: ReviewQuery.maximumLimit,
          showing: showing))
      var lines = [CSVWriter.line(format.header)]
      for summary in page.reviews {
        lines.append(CSVWriter.line(format.row(try review(summary.id, publishedOnly: !includeDrafts))))
      }
      return (lines.joined(), page.reviews.count, all - page.reviews.count)
    }
  }
}
