@testable import Catalogue
import Foundation
import Testing

/// Relevance stays first: the best match first, as FTS5's own `bm25` ranks them.
@Suite("Ranking by relevance")
struct RelevanceTests {
  /// A library of 300 reviews of words drawn from a small vocabulary, so that searches match
  /// many reviews with many different scores.
  static func library() throws -> TestLibrary {
    let test = try TestLibrary()
    let vocabulary = [
      "river", "stone", "night", "garden", "echo", "lantern", "harbor", "meadow", "北京", "烤鸭",
    ]
    var generator = SplitMix(seed: 7)
    for index in 0..<300 {
      let count = Int.random(in: 3...40, using: &generator)
      let words = (0..<count).map { _ in
        // Earlier words are commoner.
        vocabulary[
          min(
            Int.random(in: 0..<vocabulary.count, using: &generator),
            Int.random(in: 0..<vocabulary.count, using: &generator))]
      }
      try test.library.create(
        draft("Review \(index)", body: words.joined(separator: " ")),
        now: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60))
    }
    return test
  }

  /// The ids in the order FTS5's `bm25` ranks them for `search`, best first (or `reversed`,
  /// worst first), ties in the order the reviews were added.
  static func bm25Order(_ search: String, reversed: Bool = false, in library: Library) throws -> [String] {
    let expression = try SearchQuery.parse(search).expression
    return try library.database.query(
      """
      SELECT r.id FROM reviews_fts JOIN reviews r ON r.seq = reviews_fts.rowid >> \(SearchIndex.lengthBits)
      WHERE reviews_fts MATCH ? ORDER BY bm25(reviews_fts) \(reversed ? "DESC" : "ASC"), reviews_fts.rowid
      """, [.text(expression)]
    ) { $0.text(0) }
  }

  @Test(arguments: ["river", "meadow", "garden echo", "\"night garden\"", "harb*", "烤鸭", "北京 river"])
  func theBestMatchComesFirstAsBM25RanksIt(search: String) throws {
    let test = try Self.library()
    let expected = try Self.bm25Order(search, in: test.library)
    #expect(expected.count > 1, "\(search)")
    let page = try test.library.list(ReviewQuery(search: search, limit: 500))
    #expect(page.reviews.map(\.id) == expected, "\(search)")
    #expect(page.total == expected.count && !page.totalIsEstimate)
    // Reversed: the worst first.
    let reversed = try test.library.list(ReviewQuery(search: search, reversed: true, limit: 500))
    #expect(reversed.reviews.map(\.id) == (try Self.bm25Order(search, reversed: true, in: test.library)))
    // Pages are slices of the whole order.
    let second = try test.library.list(ReviewQuery(search: search, limit: 7, offset: 7))
    #expect(second.reviews.map(\.id) == Array(expected.dropFirst(7).prefix(7)), "\(search)")
  }

  /// A search matching more reviews than are ranked (``SearchQuery/rankingWindow``, 2,000; 5
  /// here) ranks the newest of them, best first, then shows the older ones newest first, and
  /// says that its total is an estimate.
  @Test func aSearchMatchingMoreThanTheWindowRanksItsNewestMatches() throws {
    let test = try Self.library()
    test.library.rankingWindow = 5
    let all = try test.library.list(ReviewQuery(search: "river", sort: .created, limit: 500)).reviews.map(\.id)
    #expect(all.count > 10)
    let window = Array(all.prefix(5))
    let ranked = try Self.bm25Order("river", in: test.library).filter(window.contains)
    let page = try test.library.list(ReviewQuery(search: "river", limit: 500))
    #expect(page.reviews.map(\.id) == ranked + all.dropFirst(5))
    #expect(page.totalIsEstimate)
    #expect(page.total > 5)
    // With a filter, the window is the same newest matches, filtered.
    let filtered = try test.library.list(ReviewQuery(minimumRating: 0, search: "river", limit: 500))
    #expect(filtered == page)
    // Reversed: the older ones oldest first, then the window worst first.
    let reversed = try test.library.list(ReviewQuery(search: "river", reversed: true, limit: 500))
    let worstFirst = try Self.bm25Order("river", reversed: true, in: test.library).filter(window.contains)
    #expect(reversed.reviews.map(\.id) == all.dropFirst(5).reversed() + worstFirst)
  }
}

/// A small, seeded generator: the same library every run.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
