@testable import Catalogue
import Foundation
import Testing

@Suite("Review records")
struct ReviewTests {
  @Test func everyFieldRoundTrips() throws {
    let test = try TestLibrary()
    let body = String(repeating: "Ünïcødé body line with emoji 🎬🍿 and עברית right-to-left.\n", count: 16_000)
    #expect(body.utf8.count > 1_000_000)
    let created = try test.library.create(
      ReviewDraft(title: "Amélie 🎬 — فيلم", body: body, rating: 5, category: "movie", favorite: true),
      now: Date(timeIntervalSince1970: 1_700_000_000.123))
    let reopened = try Library(opening: test.path)
    let review = try reopened.review(created.id)
    #expect(review.title == "Amélie 🎬 — فيلم")
    #expect(review.body == body.trimmingCharacters(in: .whitespacesAndNewlines))
    #expect(review.rating == 5)
    #expect(review.category == .movie)
    #expect(review.favorite)
    #expect(DateText.format(review.created) == "2023-11-14T22:13:20.123Z")
    #expect(review.updated == review.created)
    #expect(review.id.count == 16)
  }

  @Test func whitespaceIsTrimmedAndCategoriesNormalised() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft("  Padded title \n", category: "  TV ", body: "\n\n  text  \n"))
    #expect(review.title == "Padded title")
    #expect(review.body == "text")
    #expect(review.category == .tv)
    let custom = try test.library.create(draft(category: "Board Game"))
    #expect(custom.category.rawValue == "board game")
    #expect(!custom.category.isKnown)
  }

  @Test func validationReportsEveryProblemAtOnce() throws {
    let test = try TestLibrary()
    #expect(throws: CatalogueError.invalidReview(["title is empty", "rating 7 is outside 0–5", "category is empty"])) {
      try test.library.create(draft("   ", rating: 7, category: ""))
    }
    let error = CatalogueError.invalidReview(["title is empty", "rating 7 is outside 0–5"])
    #expect(error.description == "invalid review: title is empty; rating 7 is outside 0–5")
    #expect(throws: CatalogueError.invalidReview(["rating -1 is outside 0–5"])) {
      try test.library.create(draft(rating: -1))
    }
    #expect(try test.library.list().total == 0)
  }

  @Test func editChangesFieldsAndTheUpdatedTime() throws {
    let test = try TestLibrary()
    let original = try test.library.create(draft("Before"), now: Date(timeIntervalSince1970: 1000))
    let edited = try test.library.update(
      String(original.id.prefix(6)), with: draft("After", rating: 2, category: "game"),
      now: Date(timeIntervalSince1970: 2000))
    #expect(edited.id == original.id)
    #expect(edited.title == "After" && edited.rating == 2 && edited.category == .game)
    #expect(edited.created == original.created)
    #expect(edited.updated == Date(timeIntervalSince1970: 2000))
    #expect(throws: CatalogueError.invalidReview(["rating 9 is outside 0–5"])) {
      try test.library.update(original.id, with: draft(rating: 9))
    }
    #expect(try test.library.review(original.id).rating == 2)
  }

  /// An edit carries the version it was made from: one made from a review changed since is
  /// refused, whatever it changes, and the change made meanwhile stays.
  @Test func anEditFromAnOlderVersionIsRefused() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft("Arrival", body: "Heptapods."))
    let seen = review.version
    #expect(seen.count == 16)
    // The same fields, the same version; any field changed, another.
    #expect(try test.library.review(review.id).version == seen)
    let other = try Library(opening: test.path)
    try other.update(review.id, changes: ReviewChanges(body: "Heptapods write in circles."), from: seen)
    #expect(try test.library.review(review.id).version != seen)
    #expect(throws: CatalogueError.reviewChanged(id: review.id, title: "Arrival", by: nil)) {
      try test.library.update(review.id, changes: ReviewChanges(title: "Arrival (2016)"), from: seen)
    }
    // Sent back as it was seen (CRLF as a browser sends a textarea): nothing of the editor's.
    try test.library.update(
      review.id, changes: ReviewChanges(title: "Arrival\r\n", body: "Heptapods.\r\n"), from: seen)
    var now = try test.library.review(review.id)
    #expect(now.title == "Arrival" && now.body == "Heptapods write in circles.")
    // From the version in force, the edit is made.
    try test.library.update(review.id, changes: ReviewChanges(title: "Arrival (2016)"), from: now.version)
    now = try test.library.review(review.id)
    #expect(now.title == "Arrival (2016)")
    #expect(
      String(describing: CatalogueError.reviewChanged(id: "ab", title: "T", by: "bo"))
        == "review ab (“T”) was changed by bo since this edit began: nothing was saved; look at it again and make the change anew"
    )
  }

  /// The new-category rule is the library's: a label it never used that looks like a typo of
  /// one in use is refused by `create` and `update` alike, unless the draft says it is meant.
  @Test func aLabelThatLooksLikeATypoIsRefusedUnlessMeant() throws {
    let test = try TestLibrary()
    let typo = CatalogueError.unknownCategory("moive", suggestion: "movie")
    #expect(throws: typo) { try test.library.create(draft("A", category: "moive")) }
    let meant = try test.library.create(ReviewDraft(title: "A", rating: 3, category: "moive", newCategory: true))
    #expect(meant.category.rawValue == "moive")
    let other = try test.library.create(draft("B", category: "game"))
    #expect(throws: CatalogueError.unknownCategory("gmae", suggestion: "game")) {
      try test.library.update(other.id, changes: ReviewChanges(category: "gmae"))
    }
    // A label in use passes; so does an edit that keeps a review's own label.
    try test.library.update(other.id, changes: ReviewChanges(category: "moive"))
    try test.library.update(meant.id, changes: ReviewChanges(title: "A2", category: "moive"))
    #expect(try test.library.review(meant.id).title == "A2")
    // In a batch, all or nothing.
    let before = try test.library.list().total
    #expect(throws: CatalogueError.unknownCategory("bok", suggestion: "book")) {
      try test.library.create([draft("C", category: "game"), draft("D", category: "bok")])
    }
    #expect(try test.library.list().total == before)
  }

  @Test func deleteRemovesTheRecord() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    try test.library.delete(review.id)
    #expect(throws: CatalogueError.reviewNotFound(review.id)) { try test.library.review(review.id) }
    #expect(try test.library.list().total == 0)
    #expect(throws: CatalogueError.reviewNotFound(review.id)) { try test.library.delete(review.id) }
  }

  @Test func idPrefixesResolveLikeGit() throws {
    let test = try TestLibrary()
    var ids: [String] = []
    for index in 0..<40 { ids.append(try test.library.create(draft("Review \(index)")).id) }
    let id = ids[0]
    #expect(try test.library.resolve(id) == id)
    #expect(try test.library.resolve(id.uppercased()) == id)
    // Some prefix of each id is unique.
    let unique = (4...16).first { length in ids.filter { $0.hasPrefix(id.prefix(length)) }.count == 1 }!
    #expect(try test.library.resolve(String(id.prefix(unique))) == id)
    #expect(throws: CatalogueError.badReviewReference("abc")) { try test.library.resolve("abc") }
    #expect(throws: CatalogueError.badReviewReference("xyz123")) { try test.library.resolve("xyz123") }
    let missing = ids.contains { $0.hasPrefix("0000") } ? "ffff0000" : "0000"
    if !ids.contains(where: { $0.hasPrefix(missing) }) {
      #expect(throws: CatalogueError.reviewNotFound(missing)) { try test.library.resolve(missing) }
    }
  }

  @Test func ambiguousPrefixListsTheCandidates() throws {
    let test = try TestLibrary()
    // Two ids that share a prefix, written directly.
    for (index, id) in ["abcd000000000001", "abcd000000000002"].enumerated() {
      try test.library.database.run(
        "INSERT INTO reviews (id, title, body, rating, category, favorite, created, updated) VALUES (?, ?, '', 3, 'movie', 0, ?, ?)",
        [.text(id), .text("T\(index)"), .text("2026-01-01T00:00:00.000Z"), .text("2026-01-01T00:00:00.000Z")])
    }
    #expect(
      throws: CatalogueError.ambiguousReview(prefix: "abcd", candidates: ["abcd000000000001", "abcd000000000002"])
    ) {
      try test.library.resolve("abcd")
    }
    #expect(try test.library.resolve("abcd000000000002") == "abcd000000000002")
  }
}

@Suite("Finding a review by its id")
struct ReviewLookupTests {
  /// A reader's lookup of one review by its id (or a prefix) reads a few index entries, not
  /// every published review: a budget of SQLite instructions far below what a walk over the
  /// library costs is enough, with drafts in it or not.
  @Test func aReadersLookupReadsTheIdsIndexAlone() throws {
    let test = try TestLibrary()
    let database = test.library.database
    try database.execute(
      """
      WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
      INSERT INTO reviews (id, title, body, rating, category, favorite, created, updated, draft)
      SELECT printf('%016x', i * 7919), 'T' || i, '', 3, 'movie', 0, '2026-01-01T00:00:00.000Z',
        '2026-01-01T00:00:00.000Z', i % 100 = 0 FROM n
      """)
    let id = String(format: "%016x", 2_501 * 7919)
    for publishedOnly in [false, true] {
      let found = try database.limitingSteps(to: 2_000) { () throws(DatabaseError) in
        Result { () throws(CatalogueError) in try test.library.resolve(id, publishedOnly: publishedOnly) }
      }
      #expect(try found.get() == id, "published only: \(publishedOnly)")
    }
  }
}

@Suite("Stored times")
struct DateTextTests {
  @Test(arguments: [
    "2026-02-31T00:00:00.000Z", "2026-02-29T00:00:00Z", "2026-04-31T12:00:00.000Z", "1900-02-29T00:00:00Z",
    "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-32T00:00:00Z", "2026-01-01T24:00:00Z",
  ])
  func impossibleDatesAreRefused(text: String) {
    #expect(DateText.parse(text) == nil)
  }

  @Test(arguments: [
    "2024-02-29T00:00:00.000Z", "2000-02-29T23:59:59Z", "2026-12-31T23:59:59.999Z", "2026-04-30T00:00:00Z",
  ])
  func realDatesRoundTrip(text: String) throws {
    let date = try #require(DateText.parse(text))
    let stored = text.count == 20 ? String(text.dropLast()) + ".000Z" : text
    #expect(DateText.format(date) == stored)
  }
}
