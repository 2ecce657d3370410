@testable import Catalogue
import Foundation
import Testing
import TestSupport

/// Drafts and the whole-review spoiler warning (schema 9): what a reader's list, search and
/// look-up never show, what the owner sees, and what upgrades, bundles, exports and `check`
/// keep of them.
@Suite struct DraftTests {
  /// A library with two published reviews and a draft in a category no published review uses.
  func library() throws -> (TestLibrary, published: [String], draft: String) {
    let test = try TestLibrary()
    let first = try test.library.create(draft("Arrival", category: "movie", body: "Heptapod linguistics."))
    let second = try test.library.create(draft("Celeste", category: "game", body: "Climbing a mountain."))
    var hidden = draft("Zanzibar Nights", category: "book", body: "Quokkaberry marmalade.")
    hidden.publish = false
    let withheld = try test.library.create(hidden)
    return (test, [first.id, second.id], withheld.id)
  }

  @Test func aDraftIsInNoReadersListSearchCountOrCategory() throws {
    let (test, published, draft) = try library()
    let library = test.library
    let review = try library.review(draft)
    #expect(review.isDraft && review.published == nil)

    let readers = try library.list(ReviewQuery())
    #expect(readers.total == 2)
    #expect(Set(readers.reviews.map(\.id)) == Set(published))
    #expect(try library.list(ReviewQuery(search: "quokkaberry")).total == 0)
    #expect(try library.list(ReviewQuery(search: "zanzibar")).total == 0)
    #expect(try library.list(ReviewQuery(category: .book)).total == 0)
    #expect(try library.list(ReviewQuery(search: "zanzibar", sort: .title)).total == 0)
    #expect(try library.categoriesInUse(publishedOnly: true) == [.movie, .game])

    // The owner's views.
    let all = try library.list(ReviewQuery(showing: .all))
    #expect(all.total == 3)
    #expect(all.reviews.first { $0.id == draft }?.isDraft == true)
    #expect(try library.list(ReviewQuery(showing: .drafts)).reviews.map(\.id) == [draft])
    #expect(try library.list(ReviewQuery(search: "quokkaberry", showing: .all)).reviews.map(\.id) == [draft])
    #expect(try library.list(ReviewQuery(category: .book, showing: .drafts)).total == 1)
    #expect(try library.categoriesInUse() == [.movie, .game, .book])
  }

  @Test func aReaderCannotReachADraftByItsIdOrAPrefix() throws {
    let (test, published, draft) = try library()
    let library = test.library
    for reference in [draft, String(draft.prefix(6)), String(draft.prefix(4))] {
      #expect(throws: CatalogueError.reviewNotFound(reference)) {
        try library.review(reference, publishedOnly: true)
      }
      #expect(try library.review(reference).id == draft)
    }
    #expect(try library.review(published[0], publishedOnly: true).title == "Arrival")
  }

  @Test func aPrefixSharedWithADraftIsNotAmbiguousForAReader() throws {
    let test = try TestLibrary()
    let library = test.library
    // Two reviews under ids that share their first eight digits: one published, one a draft.
    for (id, publish) in [("abcdef0011111111", true), ("abcdef0022222222", false)] {
      try library.write { () throws(CatalogueError) in
        let fields = try draft("Review \(id)").validated()
        _ = try library.insertReview(
          fields, id: id, created: Date(), updated: Date(), published: publish ? Date() : nil)
      }
    }
    #expect(try library.resolve("abcdef00", publishedOnly: true) == "abcdef0011111111")
    #expect(
      throws: CatalogueError.ambiguousReview(prefix: "abcdef00", candidates: ["abcdef0011111111", "abcdef0022222222"])
    ) {
      try library.resolve("abcdef00")
    }
  }

  @Test func publishingAndTakingBackChangeWhoSeesItNotWhatItSays() throws {
    let (test, _, draft) = try library()
    let library = test.library
    let before = try library.review(draft)
    let published = try library.update(
      draft, changes: ReviewChanges(publish: true), now: before.updated.addingTimeInterval(3600))
    #expect(!published.isDraft)
    #expect(published.published == before.updated.addingTimeInterval(3600))
    #expect(published.updated == before.updated, "publishing is not an edit")
    #expect(published.version == before.version)
    #expect(try library.list(ReviewQuery(search: "quokkaberry")).total == 1)
    #expect(try library.categoriesInUse(publishedOnly: true).contains(.book))

    // Publishing again keeps the first time.
    let again = try library.update(draft, changes: ReviewChanges(publish: true), now: Date().addingTimeInterval(7200))
    #expect(again.published == published.published)

    let back = try library.update(draft, changes: ReviewChanges(publish: false))
    #expect(back.isDraft && back.updated == before.updated)
    #expect(try library.list(ReviewQuery(search: "quokkaberry")).total == 0)
    #expect(try library.check().isHealthy)
  }

  @Test func theSpoilerWarningIsAFieldOfTheReviewsVersion() throws {
    let test = try TestLibrary()
    let plain = try test.library.create(draft("Plain"))
    // A review without the warning keeps the version it had before the warning existed: the
    // same five fields, each behind its length.
    var bytes: [UInt8] = []
    for field in [plain.title, plain.body, String(plain.rating), plain.category.rawValue, "0"] {
      bytes += Array("\(field.utf8.count):".utf8) + Array(field.utf8)
    }
    #expect(plain.version == String(SHA256.hex(bytes).prefix(16)))

    let warned = try test.library.update(plain.id, changes: ReviewChanges(containsSpoilers: true))
    #expect(warned.containsSpoilers)
    #expect(warned.version != plain.version)
    #expect(try test.library.list(ReviewQuery()).reviews.first?.containsSpoilers == true)
    // An edit made from the page as it was before the warning is refused, not saved over it.
    #expect(throws: CatalogueError.reviewChanged(id: plain.id, title: "Plain", by: nil)) {
      try test.library.update(plain.id, changes: ReviewChanges(rating: 1), from: plain.version)
    }
    var created = draft("Warned")
    created.containsSpoilers = true
    #expect(try test.library.create(created).containsSpoilers)
  }

  /// Every library written before schema 9 is upgraded: its reviews published when they were
  /// created, none with a warning; a draft and a warning then work in it.
  @Test(arguments: Array(1...8))
  func anEarlierLibraryIsPublishedAsItWas(version: Int) throws {
    let folder = TemporaryFolder()
    try SchemaTests.fixtureLibrary(atVersion: version, in: folder)
    let library = try Library(opening: folder.path)
    #expect(try library.schemaVersion == Schema.current)
    let page = try library.list(ReviewQuery(sort: .title))
    #expect(page.reviews.map(\.title) == ["Grave of the Fireflies", "Outer Wilds"])
    for summary in page.reviews {
      #expect(summary.published == summary.created)
      #expect(!summary.containsSpoilers)
    }
    var hidden = draft("Held back")
    hidden.publish = false
    let made = try library.create(hidden)
    #expect(try library.list(ReviewQuery()).total == 2)
    #expect(try library.list(ReviewQuery(showing: .all)).total == 3)
    _ = try library.update(made.id, changes: ReviewChanges(containsSpoilers: true, publish: true))
    #expect(try library.list(ReviewQuery()).total == 3)
    #expect(try library.check().isHealthy)
  }

  @Test func bundlesKeepTheStateAndTheWarning() throws {
    let (test, published, draft) = try library()
    let warned = try test.library.update(published[0], changes: ReviewChanges(containsSpoilers: true))
    let out = test.folder.file("Out")
    let report = try test.library.export([draft, warned.id, published[1]], to: out)
    func record(_ id: String) throws -> [String: Any] {
      let bundle = try #require(report.bundles.first { $0.id == id })
      let data = try Data(contentsOf: URL(fileURLWithPath: "\(bundle.path)/review.json"))
      return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
    #expect(try record(draft)["format"] as? Int == 3)
    #expect(try record(draft)["draft"] as? Bool == true)
    #expect(try record(draft)["published"] == nil)
    #expect(try record(warned.id)["containsSpoilers"] as? Bool == true)
    #expect(try record(warned.id)["published"] as? String == DateText.format(warned.created))
    // A plain published review is still written in the oldest format, which older builds read.
    #expect(try record(published[1])["format"] as? Int == 1)
    #expect(try record(published[1])["draft"] == nil)

    let other = try TestLibrary()
    for bundle in report.bundles { try BundleTests.importOne(other.library, bundle.path) }
    #expect(try other.library.review(draft).isDraft)
    #expect(try other.library.review(warned.id).containsSpoilers)
    #expect(try other.library.review(warned.id).published == warned.published)
    #expect(try other.library.list(ReviewQuery()).total == 2)
    #expect(try other.library.check().isHealthy)
  }

  @Test func aBundleSayingADraftWasPublishedIsRefused() throws {
    let (test, _, draft) = try library()
    let bundle = try #require(try test.library.export([draft], to: test.folder.file("Out")).bundles.first)
    let path = "\(bundle.path)/review.json"
    var text = try String(contentsOfFile: path, encoding: .utf8)
    text = text.replacingOccurrences(
      of: #""draft" : true"#, with: #""draft" : true, "published" : "2026-01-01T00:00:00.000Z""#)
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    try BundleTests.rewriteChecksums(bundle.path)
    let other = try TestLibrary()
    #expect {
      try BundleTests.importOne(other.library, bundle.path)
    } throws: { error in
      "\(error)".contains("a draft has no published time")
    }
    #expect(try other.library.list(ReviewQuery(showing: .all)).total == 0)
  }

  @Test func theStaticExportLeavesDraftsOutAndPrunesOneTakenBack() throws {
    let (test, published, draft) = try library()
    let out = test.folder.file("Site")
    let first = try test.library.exportAll(to: out)
    #expect(Set(first.bundles.map(\.id)) == Set(published))
    let index = try String(contentsOfFile: "\(out)/index.html", encoding: .utf8)
    #expect(!index.contains("Zanzibar"))

    let withDrafts = try test.library.exportAll(to: test.folder.file("Everything"), includeDrafts: true)
    #expect(withDrafts.bundles.count == 3)

    // Taken back to a draft: the next export removes its bundle, as for a deleted review.
    _ = try test.library.update(published[0], changes: ReviewChanges(publish: false))
    let second = try test.library.exportAll(to: out, force: true)
    #expect(second.bundles.map(\.id) == [published[1]])
    #expect(second.pruned.count == 1)
    #expect(!(try String(contentsOfFile: "\(out)/index.html", encoding: .utf8)).contains("Arrival"))
    _ = draft
  }

  /// A reader's search leaves drafts out however it is answered: ranked whole, ranked in a
  /// window with older matches after it (forward and reversed), or in another order.
  @Test(arguments: [2, 3, 100])
  func aReadersSearchNeverHoldsADraft(window: Int) throws {
    let test = try TestLibrary()
    let library = test.library
    library.rankingWindow = window
    var published: [String] = []
    for index in 0..<9 {
      var made = draft("Review \(index)", body: String(repeating: "common ", count: index + 1))
      // Every third a draft, among the newest and the oldest.
      made.publish = index % 3 != 1
      let id = try library.create(made).id
      if made.publish { published.append(id) }
    }
    for reversed in [false, true] {
      for sort in [nil, ReviewQuery.Sort.title] {
        var seen: [String] = []
        for offset in stride(from: 0, to: 9, by: 2) {
          let page = try library.list(
            ReviewQuery(search: "common", sort: sort, reversed: reversed, limit: 2, offset: offset))
          seen += page.reviews.map(\.id)
          if !page.totalIsEstimate { #expect(page.total == published.count) }
        }
        #expect(seen.count == published.count, "window \(window), \(String(describing: sort)), reversed \(reversed)")
        #expect(Set(seen) == Set(published))
      }
    }
    #expect(try library.list(ReviewQuery(search: "common", showing: .all)).total == 9)
  }

  @Test func aSearchNeverMatchesASpoilersWords() throws {
    let test = try TestLibrary()
    let library = test.library
    let review = try library.create(
      draft("Twist", body: "Before ||zorblat the ghost|| after.\n\n::: spoiler The last act\nQuux dies.\n:::\n"))
    for hidden in ["zorblat", "ghost", "quux", "dies"] {
      #expect(try library.list(ReviewQuery(search: hidden, showing: .all)).total == 0, "\(hidden)")
    }
    // What a reader sees unasked is found: the text around them and a block's label.
    for shown in ["before", "after", "last act", "twist"] {
      #expect(try library.list(ReviewQuery(search: shown)).reviews.map(\.id) == [review.id], "\(shown)")
    }
    // An edit keeps the index in step: the words of a spoiler taken off are found.
    _ = try library.update(review.id, changes: ReviewChanges(body: "Zorblat, openly."))
    #expect(try library.list(ReviewQuery(search: "zorblat")).total == 1)
    #expect(try library.check().isHealthy)
  }

  /// A body with spoilers written before schema 9 (when `||` was text) is indexed again on
  /// the upgrade, without its spoilers' words.
  @Test func anUpgradeTakesTheSpoilersOutOfTheIndex() throws {
    let folder = TemporaryFolder()
    try SchemaTests.fixtureLibrary(atVersion: 8, in: folder)
    do {
      // Written through schema 8's own index triggers, which index every word.
      let database = try Database(path: folder.file(LibraryLayout.database), create: false)
      try Schema.migrate(database, path: folder.path, migrations: Array(Schema.migrations.prefix { $0.version <= 8 }))
      try database.run("UPDATE reviews SET body = 'It ends ||zorblat||.' WHERE title = 'Outer Wilds'")
      #expect(try database.scalar("SELECT count(*) FROM reviews_fts WHERE reviews_fts MATCH 'zorblat'") == .integer(1))
    }
    let library = try Library(opening: folder.path)
    #expect(try library.list(ReviewQuery(search: "zorblat")).total == 0)
    #expect(try library.list(ReviewQuery(search: "ends")).reviews.map(\.title) == ["Outer Wilds"])
    #expect(try library.check().isHealthy)
  }

  @Test func checkNamesAPublicationNoBuildWrites() throws {
    let (test, published, draft) = try library()
    try test.library.database.run("UPDATE reviews SET published = 'yesterday' WHERE id = ?", [.text(published[0])])
    try test.library.database.run(
      "UPDATE reviews SET published = '2026-01-01T00:00:00.000Z' WHERE id = ?", [.text(draft)])
    let report = try test.library.check()
    let findings = report.findings.filter { $0.kind == .invalidReview }
    #expect(findings.count == 2)
    let time = try #require(findings.first { $0.target == published[0] })
    #expect(time.problem == #"published time "yesterday" is not a time"#)
    let stale = try #require(findings.first { $0.target == draft })
    #expect(stale.problem.contains("it is a draft, yet has a published time"))
    #expect(stale.remedy.contains("--draft"))
    // The remedy it names works.
    _ = try test.library.update(draft, changes: ReviewChanges(publish: false))
    #expect(try test.library.check().findings.filter { $0.target == draft }.isEmpty)
  }
}
