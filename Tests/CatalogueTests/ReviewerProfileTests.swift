@testable import Catalogue
import Foundation
import Testing
import TestSupport

/// Reviewers' profiles (schema 10) and a list of one reviewer's reviews: what a reader is
/// shown of them, and what the rules refuse.
@Suite("Reviewers' profiles and their reviews")
struct ReviewerProfileTests {
  /// A library where Alice wrote two published reviews and a draft, Bob one review, and the
  /// command line one (no author).
  func library() throws -> TestLibrary {
    let test = try TestLibrary()
    let library = test.library
    try library.setPasswordCost(.minimum)
    try library.addReviewer("Alice", password: "correct horse")
    try library.addReviewer("bob", password: "battery staple")
    library.author = "Alice"
    try library.create(draft("Arrival", category: "movie", body: "Heptapod linguistics."))
    try library.create(draft("Celeste", category: "game", body: "Climbing a mountain."))
    var hidden = draft("Zanzibar Nights", category: "movie", body: "Quokkaberry marmalade.")
    hidden.publish = false
    try library.create(hidden)
    library.author = "bob"
    try library.create(draft("Dune", category: "movie", body: "Spice and sand."))
    library.author = nil
    try library.create(draft("Eraserhead", category: "movie", body: "Heptapod dreams."))
    return test
  }

  @Test func aListByAReviewerMatchesTheirNameInAnyCaseWithEveryOtherFilter() throws {
    let test = try library()
    let library = test.library
    for name in ["Alice", "alice", "ALICE"] {
      let page = try library.list(ReviewQuery(sort: .title, author: name))
      #expect(page.reviews.map(\.title) == ["Arrival", "Celeste"], "\(name)")
      #expect(page.total == 2)
    }
    #expect(try library.list(ReviewQuery(sort: .title, showing: .all, author: "alice")).total == 3)
    #expect(
      try library.list(ReviewQuery(showing: .drafts, author: "alice")).reviews.map(\.title) == ["Zanzibar Nights"])
    #expect(try library.list(ReviewQuery(category: .movie, author: "alice")).reviews.map(\.title) == ["Arrival"])
    #expect(try library.list(ReviewQuery(search: "heptapod", author: "alice")).reviews.map(\.title) == ["Arrival"])
    #expect(
      try library.list(ReviewQuery(search: "heptapod", sort: .title, author: "ALICE")).reviews.map(\.title)
        == ["Arrival"])
    #expect(try library.list(ReviewQuery(search: "quokkaberry", author: "alice")).total == 0)
    #expect(try library.list(ReviewQuery(search: "quokkaberry", showing: .all, author: "alice")).total == 1)
    #expect(try library.list(ReviewQuery(author: "bob")).reviews.map(\.title) == ["Dune"])
    #expect(try library.list(ReviewQuery(author: "carol")).total == 0)
    // Newest first by default, as a reviewer's page shows them.
    #expect(
      try library.list(ReviewQuery(sort: .created, author: "alice")).reviews.map(\.title) == ["Celeste", "Arrival"])
  }

  /// Counts are remembered per query while the library stays as it is: each reviewer's is
  /// their own, on one connection.
  @Test func eachReviewerIsCountedOnTheirOwn() throws {
    let test = try library()
    let library = test.library
    #expect(try library.list(ReviewQuery(limit: 1, author: "alice")).total == 2)
    #expect(try library.list(ReviewQuery(limit: 1, author: "bob")).total == 1)
    #expect(try library.list(ReviewQuery(limit: 1)).total == 4)
    #expect(try library.list(ReviewQuery(limit: 1, author: "alice")).total == 2)
  }

  @Test func aNameNoReviewerCanHaveIsAMistakeInTheQuery() throws {
    let test = try library()
    #expect(throws: CatalogueError.invalidQuery("--by needs a reviewer's name")) {
      try ReviewQuery(ReviewQueryInput(by: ""), names: .options)
    }
    #expect(
      throws: CatalogueError.invalidQuery(
        "by Alice Liddell is not a reviewer's name: use only ASCII letters, digits, '.', '_' and '-'")
    ) {
      try test.library.list(ReviewQuery(author: "Alice Liddell"))
    }
    #expect(try ReviewQuery(ReviewQueryInput(by: "alice"), names: .parameters).author == "alice")
  }

  @Test func aProfileSaysWhoTheyAreAndHowManyReviewsAReaderSees() throws {
    let test = try library()
    let library = test.library
    #expect(
      try library.reviewerProfile(named: "ALICE")
        == ReviewerProfile(name: "Alice", reviews: 2, hasAccount: true))
    #expect(try library.reviewerProfile(named: "alice", publishedOnly: false)?.reviews == 3)
    #expect(try library.reviewerProfile(named: "carol") == nil)
    #expect(try library.reviewerProfile(named: "not a name") == nil)

    // A reviewer with nothing published is no one to a reader.
    try library.addReviewer("carol", password: "correct horse")
    library.author = "carol"
    var unpublished = draft("Solaris")
    unpublished.publish = false
    try library.create(unpublished)
    #expect(try library.reviewerProfile(named: "carol") == nil)
    #expect(try library.reviewerProfile(named: "carol", publishedOnly: false)?.reviews == 1)

    // A reviewer removed since keeps a profile of their name, as their reviews keep it.
    try library.removeReviewer("bob")
    #expect(try library.reviewerProfile(named: "BOB") == ReviewerProfile(name: "bob", reviews: 1, hasAccount: false))
  }

  @Test func editingAProfileKeepsWhatIsNotGivenAndClearsWhatIsEmpty() throws {
    let test = try library()
    let library = test.library
    let edited = try library.editReviewer("alice", displayName: "  Alice Liddell ", bio: "Reads.\r\n\r\nWrites.\n")
    #expect(edited.name == "Alice" && edited.displayName == "Alice Liddell" && edited.bio == "Reads.\n\nWrites.")
    #expect(edited.shownName == "Alice Liddell")
    #expect(try library.editReviewer("Alice", displayName: nil, bio: nil) == edited)
    let renamed = try library.editReviewer("Alice", displayName: "Alice L.", bio: nil)
    #expect(renamed.displayName == "Alice L." && renamed.bio == "Reads.\n\nWrites.")
    let cleared = try library.editReviewer("Alice", displayName: "", bio: " ")
    #expect(cleared.displayName == nil && cleared.bio == nil && cleared.shownName == "Alice")
    #expect(try library.reviewers().first { $0.name == "Alice" }?.displayName == nil)
    try library.editReviewer("Alice", displayName: "Alice Liddell", bio: nil)
    #expect(try library.reviewers().first { $0.name == "Alice" }?.displayName == "Alice Liddell")
    #expect(try library.reviewer(named: "alice")?.displayName == "Alice Liddell")
  }

  @Test func aProfileThatCannotBeIsRefusedWithEveryProblemAndNothingChanges() throws {
    let test = try library()
    let library = test.library
    try library.editReviewer("alice", displayName: "Alice", bio: "Reads.")
    let before = try library.reviewerProfile(named: "alice", publishedOnly: false)
    let cases: [(String?, String?, CatalogueError)] = [
      (
        String(repeating: "é", count: 101), nil,
        .badReviewerProfile(
          "Alice", problems: ["the display name is 101 characters long, over 100: give a shorter one"])
      ),
      (
        "Alice\u{7}", String(repeating: "x", count: 1_001),
        .badReviewerProfile(
          "Alice",
          problems: [
            "the display name has a control character U+0007 at byte 5: only printable characters are allowed",
            "the bio is 1001 characters long, over 1000: give a shorter one",
          ])
      ),
      (
        "\u{202E}ecilA", nil,
        .badReviewerProfile(
          "Alice", problems: ["the display name has a direction mark U+202E: only printable characters are allowed"])
      ),
      (
        nil, "Line one\u{1B}[31m",
        .badReviewerProfile(
          "Alice",
          problems: [
            "the bio has a control character U+001B at byte 8 (line 1, column 9): "
              + "only tab and newline are allowed among control characters"
          ])
      ),
    ]
    for (shown, bio, error) in cases {
      #expect(throws: error) { try library.editReviewer("alice", displayName: shown, bio: bio) }
    }
    #expect(throws: CatalogueError.reviewerNotFound("carol")) {
      try library.editReviewer("carol", displayName: "Carol", bio: nil)
    }
    #expect(try library.reviewerProfile(named: "alice", publishedOnly: false) == before)
    #expect(
      CatalogueError.badReviewerProfile("Alice", problems: ["the bio is 1001 characters long, over 1000"])
        .description
        == "cannot change the profile of reviewer Alice: the bio is 1001 characters long, over 1000 (nothing was changed)"
    )
    // The longest allowed, counted as SQLite counts characters (its checks agree).
    let longest = String(repeating: "👍🏽", count: 50)
    #expect(
      try library.editReviewer("alice", displayName: longest, bio: String(repeating: "ä", count: 1_000))
        .displayName == longest)
  }

  /// A display name written by hand that the rules refuse is a finding of `check`, with the
  /// command that gives it again.
  @Test func checkNamesAProfileWrittenByHand() throws {
    let test = try library()
    try test.library.database.run("UPDATE users SET display_name = 'Al\u{1B}ice' WHERE name = 'Alice'")
    let finding = try #require(try test.library.check().findings.first { $0.kind == .invalidReviewer })
    #expect(finding.target == "Alice")
    #expect(finding.problem.contains("the display name has a control character U+001B"))
    #expect(finding.remedy == "give them again with `catalogue user edit Alice --display-name TEXT --bio TEXT`")
  }

  /// A library of schema 9 gains profiles: its reviewers have none, their reviews are listed
  /// by them, from the new index, and a profile can be given.
  @Test func aSchemaNineLibraryGainsProfiles() throws {
    let folder = TemporaryFolder()
    try SchemaTests.fixtureLibrary(atVersion: 9, in: folder)
    do {
      let database = try Database(path: folder.file(LibraryLayout.database), create: false)
      try database.run(
        "INSERT INTO users (name, password_hash, created, password_changed) VALUES ('Alice', ?, ?, ?)",
        [
          .text("$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"), .text("2025-01-01T00:00:00.000Z"),
          .text("2025-01-01T00:00:00.000Z"),
        ])
      try database.run("UPDATE reviews SET created_by = 'alice' WHERE title = 'Outer Wilds'")
    }
    let library = try Library(opening: folder.path)
    #expect(library.openedSchemaVersion == 9)
    #expect(try library.schemaVersion == Schema.current)
    #expect(try library.reviewerProfile(named: "ALICE") == ReviewerProfile(name: "Alice", reviews: 1, hasAccount: true))
    #expect(try library.list(ReviewQuery(author: "Alice")).reviews.map(\.title) == ["Outer Wilds"])
    let plan = try library.database.query(
      "EXPLAIN QUERY PLAN SELECT r.seq FROM reviews r WHERE r.created_by = ? COLLATE NOCASE AND +r.draft = 0"
        + " ORDER BY r.created DESC, r.seq DESC LIMIT 50", [.text("alice")]
    ) { $0.text(3) }
    #expect(plan == ["SEARCH r USING COVERING INDEX reviews_created_by (created_by=?)"], "\(plan)")
    try library.editReviewer("alice", displayName: "Alice Liddell", bio: "Reads.")
    #expect(try library.reviewerProfile(named: "alice")?.displayName == "Alice Liddell")
    // The schema's own checks hold even for a writer that skips the rules.
    #expect(throws: (any Error).self) {
      try library.database.run("UPDATE users SET display_name = '' WHERE name = 'Alice'")
    }
    #expect(throws: (any Error).self) {
      try library.database.run(
        "UPDATE users SET bio = ? WHERE name = 'Alice'", [.text(String(repeating: "x", count: 1_001))])
    }
    #expect(try library.check().isHealthy)
  }
}
