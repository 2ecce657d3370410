@testable import Catalogue
import Foundation
import Testing
import TestSupport

@Suite("Listing, filtering, searching")
struct ListTests {
  /// Seven reviews with known fields, created a minute apart.
  static func sample() throws -> TestLibrary {
    let test = try TestLibrary()
    let rows: [(String, Int, String, Bool, String)] = [
      ("DC's best movie yet: Shazam!", 5, "movie", true, "A boy becomes a superhero and the film is funny."),
      ("The Biggest Error in Avengers Endgame!", 4, "movie", false, "Time travel rules are bent."),
      ("John Wick 3 and the Endless Action!", 4, "movie", false, "Endless action, precise choreography."),
      ("Black Ops 4 Where are the Changes?", 2, "game", false, "The battle royale mode is new."),
      ("Morgan's Reviews the Best App Ever", 5, "app", true, "An app for writing reviews."),
      ("Computer Science the best subject", 5, "education", false, "Algorithms and data structures."),
      ("SuperStore the soon to be superstar show", 4, "tv", false, "A workplace comedy in a superstore."),
    ]
    for (index, row) in rows.enumerated() {
      try test.library.create(
        ReviewDraft(title: row.0, body: row.4, rating: row.1, category: row.2, favorite: row.3),
        now: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60))
    }
    return test
  }

  func titles(_ page: ReviewPage) -> [String] { page.reviews.map(\.title) }

  @Test func newestFirstByDefault() throws {
    let test = try Self.sample()
    let page = try test.library.list()
    #expect(page.total == 7)
    #expect(page.reviews.first?.title == "SuperStore the soon to be superstar show")
    #expect(page.reviews.last?.title == "DC's best movie yet: Shazam!")
  }

  @Test func filters() throws {
    let test = try Self.sample()
    #expect(try test.library.list(ReviewQuery(category: .movie)).total == 3)
    #expect(try test.library.list(ReviewQuery(minimumRating: 5)).total == 3)
    #expect(
      titles(try test.library.list(ReviewQuery(favoritesOnly: true, sort: .title))) == [
        "DC's best movie yet: Shazam!", "Morgan's Reviews the Best App Ever",
      ])
    #expect(try test.library.list(ReviewQuery(category: .movie, minimumRating: 5)).total == 1)
    #expect(throws: CatalogueError.invalidQuery("min-rating must be a whole number from 0 to 5, not 6")) {
      try test.library.list(ReviewQuery(minimumRating: 6))
    }
  }

  /// A connection remembers the counts and the categories its pages ask again and again (see
  /// `SQLiteRecords`), and never gives one from before a change: its own, another
  /// connection's, or SQL run outside a transaction.
  @Test func countsAndCategoriesFollowEveryChange() throws {
    let test = try Self.sample()
    let reader = try Library(opening: test.path, upgrading: false)
    #expect(try reader.list().total == 7)
    #expect(try reader.list(ReviewQuery(category: .book)).total == 0)
    #expect(try !reader.categoriesInUse().contains(.book))

    // Another connection (as another process, the command line beside a server) adds a book.
    let other = try Library(opening: test.path, upgrading: false)
    let book = try other.create(draft("Piranesi", rating: 5, category: "book"))
    #expect(try reader.list().total == 8)
    #expect(try reader.list(ReviewQuery(category: .book)).total == 1)
    #expect(try reader.categoriesInUse().contains(.book))

    // The connection's own change.
    #expect(try reader.list(ReviewQuery(minimumRating: 5)).total == 4)
    try reader.update(book.id, changes: ReviewChanges(rating: 1))
    #expect(try reader.list(ReviewQuery(minimumRating: 5)).total == 3)
    _ = try reader.delete(book.id)
    #expect(try reader.list().total == 7)
    #expect(try !reader.categoriesInUse().contains(.book))

    // SQL on the connection outside any transaction (what a repair may run).
    try reader.database.execute("UPDATE reviews SET rating = 5 WHERE category = 'tv'")
    #expect(try reader.list(ReviewQuery(minimumRating: 5)).total == 4)
  }

  /// Covers' image records are remembered by a connection (a grid shows the same pictures
  /// page after page) only while nothing changed: another connection's change to a record, or
  /// the connection's own, shows at the next page.
  @Test func coversFollowEveryChangeToTheirImageRecords() throws {
    let test = try Self.sample()
    let first = try #require(try test.library.list().reviews.first)
    _ = try test.library.attach(files: [Fixture.image("baseline.jpg")], to: first.id)
    let reader = try Library(opening: test.path, upgrading: false)
    let covered = try #require(try reader.list().reviews.first { $0.cover != nil })
    let sha256 = try #require(covered.cover?.sha256)
    let width = try #require(covered.cover?.thumbnailWidth)
    func shownWidth() throws -> Int? {
      try reader.list().reviews.first { $0.id == covered.id }?.cover?.thumbnailWidth
    }
    #expect(try reader.storedImage(sha256: sha256)?.thumbnailWidth == width)

    // Another connection (as `check --repair` beside a server) changes the record.
    let other = try Library(opening: test.path, upgrading: false)
    try other.database.execute("UPDATE images SET thumbnail_width = \(width - 1) WHERE sha256 = '\(sha256)'")
    #expect(try reader.storedImage(sha256: sha256)?.thumbnailWidth == width - 1)
    #expect(try shownWidth() == width - 1)

    // The connection's own SQL, outside any transaction.
    try reader.database.execute("UPDATE images SET thumbnail_width = \(width - 2) WHERE sha256 = '\(sha256)'")
    #expect(try reader.storedImage(sha256: sha256)?.thumbnailWidth == width - 2)
    #expect(try shownWidth() == width - 2)
  }

  /// One set of rules reads a list query typed for any front end: only the names in the
  /// messages, and how many reviews a front end gives at once, differ.
  @Test func aTypedQueryIsReadByOneSetOfRules() throws {
    var input = ReviewQueryInput()
    input.category = "TV"
    input.minimumRating = "4"
    input.favorites = "on"
    input.search = "dune"
    input.sort = "relevance"
    input.limit = "20"
    input.offset = "40"
    let query = try ReviewQuery(input, names: .parameters)
    #expect(
      query
        == ReviewQuery(
          category: .tv, minimumRating: 4, favoritesOnly: true, search: "dune", sort: .relevance, limit: 20, offset: 40)
    )
    let bad: [(ReviewQueryInput, String, String)] = [
      (ReviewQueryInput(minimumRating: "9"), "--min-rating must be a whole number from 0 to 5, not 9", "min-rating"),
      (ReviewQueryInput(limit: "-1"), "--limit must be a whole number from 0 to 100000, not -1", "limit"),
      (
        ReviewQueryInput(sort: "stars"), "--sort must be title, rating, created, updated or relevance, not stars",
        "sort"
      ),
      (ReviewQueryInput(sort: "relevance"), "--sort relevance needs --search", "sort"),
      (ReviewQueryInput(favorites: "maybe"), "--favorites must be true or false, not maybe", "favorites"),
      (ReviewQueryInput(category: ""), "--category  is not a category label", "category"),
    ]
    for (input, message, parameter) in bad {
      #expect(throws: CatalogueError.invalidQuery(message)) { try ReviewQuery(input, names: .options) }
      let plain = message.replacingOccurrences(of: "--", with: "")
      #expect(throws: CatalogueError.invalidQuery(plain), "\(parameter)") { try ReviewQuery(input, names: .parameters) }
    }
    // A front end may give fewer at once than the library allows.
    #expect(throws: CatalogueError.invalidQuery("limit must be a whole number from 0 to 500, not 900")) {
      try ReviewQuery(ReviewQueryInput(limit: "900"), names: .parameters, maximumLimit: 500)
    }
    #expect(try ReviewQuery(ReviewQueryInput(limit: "900"), names: .parameters).limit == 900)
  }

  @Test func sorting() throws {
    let test = try Self.sample()
    let byTitle = titles(try test.library.list(ReviewQuery(sort: .title)))
    #expect(byTitle.first == "Black Ops 4 Where are the Changes?")
    #expect(byTitle.last == "The Biggest Error in Avengers Endgame!")
    #expect(titles(try test.library.list(ReviewQuery(sort: .title, reversed: true))) == byTitle.reversed())
    let byRating = try test.library.list(ReviewQuery(sort: .rating)).reviews.map(\.rating)
    #expect(byRating == [5, 5, 5, 4, 4, 4, 2])
    let oldest = try test.library.list(ReviewQuery(sort: .created, reversed: true))
    #expect(oldest.reviews.first?.title == "DC's best movie yet: Shazam!")
  }

  @Test func paging() throws {
    let test = try Self.sample()
    let all = titles(try test.library.list(ReviewQuery(sort: .title)))
    let first = try test.library.list(ReviewQuery(sort: .title, limit: 3))
    let second = try test.library.list(ReviewQuery(sort: .title, limit: 3, offset: 3))
    let third = try test.library.list(ReviewQuery(sort: .title, limit: 3, offset: 6))
    #expect(first.total == 7 && second.total == 7)
    #expect(titles(first) + titles(second) + titles(third) == all)
    #expect(third.reviews.count == 1)
  }

  @Test func fullTextSearch() throws {
    let test = try Self.sample()
    // Words, in any order, title or body.
    #expect(
      titles(try test.library.list(ReviewQuery(search: "action endless"))) == ["John Wick 3 and the Endless Action!"])
    // Prefixes.
    #expect(try test.library.list(ReviewQuery(search: "super*")).total == 2)
    // Phrases.
    #expect(
      titles(try test.library.list(ReviewQuery(search: "\"battle royale\""))) == ["Black Ops 4 Where are the Changes?"])
    #expect(try test.library.list(ReviewQuery(search: "\"royale battle\"")).total == 0)
    // Case and diacritics do not matter.
    #expect(try test.library.list(ReviewQuery(search: "ÁLGORITHMS")).total == 1)
    // Text the FTS5 grammar would choke on is taken as words.
    #expect(try test.library.list(ReviewQuery(search: "shazam! ( \"")).total == 1)
    #expect(try test.library.list(ReviewQuery(search: "shazam NEAR")).total == 0)
    #expect(throws: CatalogueError.invalidQuery("search \"!!!\" has no words to look for: give letters or digits")) {
      try test.library.list(ReviewQuery(search: "!!!"))
    }
    // Combined with filters.
    #expect(try test.library.list(ReviewQuery(category: .tv, search: "super*")).total == 1)
  }

  /// A search is refused, whole and in words that say the limit, past 32 words (a phrase's
  /// words counted), past 1,000 characters, or with a prefix shorter than 3 letters or digits;
  /// at the limits it is answered.
  @Test func aSearchIsBoundedInWordsLengthAndPrefixes() throws {
    let test = try Self.sample()
    func refused(_ search: String) -> String? {
      do {
        _ = try test.library.list(ReviewQuery(search: search))
        return nil
      } catch {
        guard case .invalidQuery(let problem) = error else { return "\(error)" }
        return problem
      }
    }
    let words = (1...40).map { "word\($0)" }
    #expect(refused(words.prefix(32).joined(separator: " ")) == nil)
    #expect(
      refused(words.prefix(33).joined(separator: " "))
        == "a search of 33 words is too many: at most 32 are looked for; leave some out")
    #expect(
      refused(Array(repeating: "time OR", count: 1000).joined(separator: " "))
        == "a search of 2000 words is too many: at most 32 are looked for; leave some out")
    // A phrase's words count, and so do the parts of a word the index splits.
    #expect(
      refused("\"" + words.prefix(30).joined(separator: " ") + "\" rock-and-roll")
        == "a search of 33 words is too many: at most 32 are looked for; leave some out")
    let long = String(repeating: "x", count: 1001)
    #expect(refused(long) == "a search of 1001 characters is too long: at most 1000 are taken; shorten it")
    #expect(refused(String(long.dropFirst())) == nil)
    #expect(
      refused("time a*")
        == "search term \"a*\" is too short a prefix: give at least 3 letters or digits before the *")
    #expect(
      refused("su*") == "search term \"su*\" is too short a prefix: give at least 3 letters or digits before the *")
    #expect(
      refused("x-y*") == "search term \"x-y*\" is too short a prefix: give at least 3 letters or digits before the *")
    #expect(try test.library.list(ReviewQuery(search: "sup*")).total == 2)
  }

  /// What is left within those bounds is bounded in SQLite's own work: past the steps allowed,
  /// the search is refused as too broad, and the connection goes on.
  @Test func aSearchTooCostlyToRankIsRefusedAsTooBroad() throws {
    let test = try Self.sample()
    let records = try #require(test.library.records as? SQLiteRecords)
    let search = try SearchQuery.parse("the")
    #expect(throws: CatalogueError.invalidQuery(SearchQuery.tooBroad)) {
      try records.page(
        ReviewQuery(search: "the", sort: .relevance), match: search.expression, maximumSteps: 1,
        rankingWindow: SearchQuery.rankingWindow)
    }
    #expect(
      try records.page(
        ReviewQuery(search: "the"), match: search.expression, maximumSteps: 1000,
        rankingWindow: SearchQuery.rankingWindow
      ).total
        == 7)
    // A search of more words may take fewer steps: scoring each review costs more.
    #expect(search.maximumSteps == 2_000_000)
    #expect(try SearchQuery.parse("one two \"three four five\"").maximumSteps == 1_000_000)
    #expect(try SearchQuery.parse(String(repeating: "word ", count: 32)).maximumSteps == 228_571)
    // The limit is lifted afterwards: a long statement runs to its end.
    let counted = try test.library.database.scalar(
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT count(*) FROM c")
    #expect(counted == .integer(100_000))
    #expect(throws: DatabaseError.self) {
      try test.library.database.limitingSteps(to: 10_000) { () throws(DatabaseError) in
        try test.library.database.scalar(
          "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT count(*) FROM c")
      }
    }
  }

  /// FTS5 reads a NUL as the end of its query and fails on what is left ("unterminated
  /// string"): the search is refused for what it is before SQLite sees it.
  @Test func aSearchWithANULIsRefused() throws {
    let test = try Self.sample()
    for search in ["a\0b", "\"time\0travel\"", "super*\0"] {
      #expect(throws: CatalogueError.invalidQuery("a search cannot hold a NUL character (U+0000): leave it out")) {
        try test.library.list(ReviewQuery(search: search))
      }
    }
  }

  @Test func searchAloneAndSearchWithAFilterAgree() throws {
    // A search alone is answered from the index alone; with a filter (one that keeps every
    // review here) it goes through the reviews: the two must give the same page.
    let test = try Self.sample()
    for search in ["the", "super*", "best", "\"the best\""] {
      for reversed in [false, true] {
        let alone = try test.library.list(ReviewQuery(search: search, reversed: reversed))
        let filtered = try test.library.list(ReviewQuery(minimumRating: 0, search: search, reversed: reversed))
        #expect(alone == filtered, "\(search)")
        #expect(alone.total > 0, "\(search)")
      }
    }
    let paged = try test.library.list(ReviewQuery(search: "the", limit: 2, offset: 1))
    let whole = try test.library.list(ReviewQuery(search: "the"))
    #expect(paged.reviews == Array(whole.reviews[1..<3]))
  }

  @Test func searchFollowsEditsAndDeletes() throws {
    let test = try Self.sample()
    let wick = try test.library.list(ReviewQuery(search: "wick")).reviews[0]
    try test.library.update(
      wick.id, with: ReviewDraft(title: "Parabellum", body: "Dogs.", rating: 4, category: "movie"))
    #expect(try test.library.list(ReviewQuery(search: "wick")).total == 0)
    #expect(try test.library.list(ReviewQuery(search: "parabellum")).total == 1)
    try test.library.delete(wick.id)
    #expect(try test.library.list(ReviewQuery(search: "parabellum")).total == 0)
    #expect(try test.library.database.scalar("INSERT INTO reviews_fts(reviews_fts) VALUES('integrity-check')") == nil)
  }

  /// Every filter with every order, forward and reversed, on pages of a library of 240
  /// reviews, against the same list worked out here: whatever index SQLite takes (the filtered
  /// orders each have one), the rows and their order are the same.
  @Test func everyFilterInEveryOrderGivesTheRowsItShould() throws {
    let test = try TestLibrary()
    let categories = ["movie", "game", "book"]
    var generator = SystemRandomNumberGenerator()
    var drafts: [ReviewDraft] = []
    for index in 0..<240 {
      // Titles repeat, so that ties in an order are broken the one way.
      drafts.append(
        ReviewDraft(
          title: "\(["alpha", "Beta", "gamma", "Delta"][index % 4]) \(index % 37)",
          rating: Int.random(in: 0...5, using: &generator),
          category: categories[index % 3], favorite: Bool.random(using: &generator)))
    }
    let ids = try test.library.create(drafts, now: Date(timeIntervalSince1970: 1_700_000_000))
    // Distinct times: reviews made one after another, some changed since.
    for (index, id) in ids.enumerated() where index % 5 == 0 {
      try test.library.update(
        id, changes: ReviewChanges(body: "Changed."), now: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)))
    }
    let all = try test.library.list(ReviewQuery(limit: 1_000)).reviews
    #expect(all.count == 240)
    func expected(_ query: ReviewQuery) -> [String] {
      var rows = all.filter { review in
        (query.category == nil || review.category == query.category)
          && (query.minimumRating.map { review.rating >= $0 } ?? true) && (!query.favoritesOnly || review.favorite)
      }
      let seq = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
      func less(_ a: ReviewSummary, _ b: ReviewSummary) -> Bool {
        let (sa, sb) = (seq[a.id]!, seq[b.id]!)
        switch query.sort ?? .updated {
        case .title:
          let (ta, tb) = (a.title.lowercased(), b.title.lowercased())
          return ta != tb ? ta < tb : sa < sb
        case .rating:
          if a.rating != b.rating { return a.rating > b.rating }
          let (ta, tb) = (a.title.lowercased(), b.title.lowercased())
          return ta != tb ? ta < tb : sa < sb
        case .created: return a.created != b.created ? a.created > b.created : sa > sb
        case .updated, .relevance: return a.updated != b.updated ? a.updated > b.updated : sa > sb
        }
      }
      rows.sort(by: less)
      if query.reversed { rows.reverse() }
      return Array(rows.dropFirst(query.offset).prefix(query.limit)).map(\.id)
    }
    for sort in [ReviewQuery.Sort.title, .rating, .created, .updated] {
      for reversed in [false, true] {
        for category in [nil, Category.game] {
          for minimum in [nil, 3] {
            for favorites in [false, true] {
              for offset in [0, 17] {
                let query = ReviewQuery(
                  category: category, minimumRating: minimum, favoritesOnly: favorites, sort: sort, reversed: reversed,
                  limit: 20, offset: offset)
                let page = try test.library.list(query)
                #expect(page.reviews.map(\.id) == expected(query), "\(query)")
                #expect(
                  page.total
                    == expected(
                      ReviewQuery(category: category, minimumRating: minimum, favoritesOnly: favorites, limit: 1_000)
                    ).count)
              }
            }
          }
        }
      }
    }
  }
}
