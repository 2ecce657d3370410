@testable import Catalogue
import Foundation
import ImagePipeline
import Synchronization
import Testing
import TestSupport

/// Where a library's records are, for tests that must hold for both stores.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
  case sqlite
  case postgresql

  var testDescription: String { rawValue }

  /// A new library in a temporary folder, its records in this store, for `body`; with
  /// PostgreSQL, in a database of its own on the tests' server, dropped after.
  func withLibrary<T>(_ body: (Library, String?) throws -> T) throws -> T {
    let folder = TemporaryFolder()
    let path = "\(folder.path)/Library"
    switch self {
    case .sqlite:
      return try body(try Library.create(at: path), nil)
    case .postgresql:
      return try PostgreSQLCluster.withDatabase { database in
        try body(try Library.create(at: path, database: database.conninfo), database.conninfo)
      }
    }
  }
}

/// What the library promises of its records, held by each record store alike: every test runs
/// on a SQLite library and on a PostgreSQL one, through the library's own operations.
@Suite("Record stores: the same library on SQLite and on PostgreSQL")
struct RecordStoreConformanceTests {
  private static let titles = [
    ("Heat", "A crime story in Los Angeles. Night trains and long shots.", 5, "movie"),
    ("Éclair de génie", "Un film français sur un pâtissier.", 3, "movie"),
    ("東京物語", "小津安二郎の映画。東京都の家族。", 4, "movie"),
    ("the wire", "Baltimore, season one: the pager.", 5, "tv"),
    ("Anathem", "Neal Stephenson's long book of monks and mathematics.", 4, "book"),
  ]

  private static func fill(_ library: Library) throws -> [String: String] {
    var ids: [String: String] = [:]
    var now = Date(timeIntervalSince1970: 1_700_000_000)
    for (title, body, rating, category) in titles {
      now += 60
      ids[title] =
        try library.create(ReviewDraft(title: title, body: body, rating: rating, category: category), now: now).id
    }
    return ids
  }

  @Test(arguments: Backend.allCases)
  func reviewsComeBackAsTheyWereWritten(backend: Backend) throws {
    try backend.withLibrary { library, _ in
      let created = try library.create(
        ReviewDraft(
          title: "Heat ‘95’ — “quoted” 🎬", body: "Line one\n\n||a spoiler|| and \\ back\\slash 'quote'", rating: 5,
          category: "movie", favorite: true, containsSpoilers: true))
      let read = try library.review(created.id)
      #expect(read.title == "Heat ‘95’ — “quoted” 🎬")
      #expect(read.body == "Line one\n\n||a spoiler|| and \\ back\\slash 'quote'")
      #expect(read.rating == 5 && read.favorite && read.containsSpoilers)
      #expect(try library.review(String(created.id.prefix(6))).id == created.id)
      let updated = try library.update(
        created.id, with: ReviewDraft(title: "Heat", body: "Again.", rating: 4, category: "movie"))
      #expect(updated.title == "Heat" && updated.rating == 4)
      #expect(try library.delete(created.id).id == created.id)
      #expect(throws: CatalogueError.reviewNotFound(created.id)) { try library.review(created.id) }
    }
  }

  @Test(arguments: Backend.allCases)
  func listsSortAndFilterAlike(backend: Backend) throws {
    try backend.withLibrary { library, _ in
      _ = try Self.fill(library)
      func titles(_ query: ReviewQuery) throws -> [String] { try library.list(query).reviews.map(\.title) }
      // ASCII letters folded, as SQLite's NOCASE folds them; everything else by its bytes.
      #expect(try titles(ReviewQuery(sort: .title)) == ["Anathem", "Heat", "the wire", "Éclair de génie", "東京物語"])
      #expect(try titles(ReviewQuery(sort: .rating)) == ["Heat", "the wire", "Anathem", "東京物語", "Éclair de génie"])
      #expect(try titles(ReviewQuery(sort: .created)) == ["Anathem", "the wire", "東京物語", "Éclair de génie", "Heat"])
      #expect(try titles(ReviewQuery(sort: .created, reversed: true)).first == "Heat")
      #expect(try titles(ReviewQuery(category: .tv)) == ["the wire"])
      #expect(try titles(ReviewQuery(minimumRating: 5, sort: .title)) == ["Heat", "the wire"])
      let page = try library.list(ReviewQuery(sort: .title, limit: 2, offset: 2))
      #expect(page.total == 5 && page.reviews.map(\.title) == ["the wire", "Éclair de génie"])
      #expect(try library.categoriesInUse().map(\.rawValue) == ["movie", "tv", "book"])
    }
  }

  /// A search finds the same reviews in both stores: accents and case folded, Chinese and
  /// Japanese in pairs, prefixes and phrases, spoilers never.
  @Test(arguments: Backend.allCases)
  func searchesFindTheSameReviews(backend: Backend) throws {
    try backend.withLibrary { library, _ in
      _ = try Self.fill(library)
      _ = try library.create(
        ReviewDraft(title: "Secret", body: "Nothing here. ||The butler did it.||", rating: 2, category: "movie"))
      func found(_ search: String) throws -> [String] {
        try library.list(ReviewQuery(search: search, sort: .title)).reviews.map(\.title)
      }
      #expect(try found("eclair") == ["Éclair de génie"])
      #expect(try found("PÂTISSIER") == ["Éclair de génie"])
      #expect(try found("東京") == ["東京物語"])
      #expect(try found("家族") == ["東京物語"])
      #expect(try found("math*") == ["Anathem"])
      #expect(try found("\"night trains\"") == ["Heat"])
      #expect(try found("\"trains night\"") == [])
      #expect(try found("long") == ["Anathem", "Heat"])
      #expect(try found("butler") == [])
      #expect(try found("the") == ["the wire"])
      let ranked = try library.list(ReviewQuery(search: "wire"))
      #expect(ranked.reviews.map(\.title) == ["the wire"] && ranked.total == 1)
    }
  }

  /// A search by relevance ranks the newest matches of its window, best first, then lists the
  /// older ones newest first, its total estimated: the same shape in both stores (whose scores
  /// differ: BM25 in SQLite, `ts_rank` in PostgreSQL).
  @Test(arguments: Backend.allCases)
  func aSearchPastTheRankingWindowListsTheRestNewestFirst(backend: Backend) throws {
    try backend.withLibrary { library, _ in
      var now = Date(timeIntervalSince1970: 1_700_000_000)
      var ids: [String] = []
      for index in 0..<40 {
        now += 60
        let matches = index % 4 == 0
        let body = matches ? "The lantern " + String(repeating: "word ", count: index) : "Nothing to find here."
        ids.append(
          try library.create(ReviewDraft(title: "Review \(index)", body: body, rating: 3, category: "movie"), now: now)
            .id)
      }
      let matching = stride(from: 0, to: 40, by: 4).map { ids[$0] }
      library.rankingWindow = 3
      let page = try library.list(ReviewQuery(search: "lantern", limit: 20))
      #expect(page.totalIsEstimate && page.total >= 4)
      #expect(Set(page.reviews.prefix(3).map(\.id)) == Set(matching.suffix(3)))
      #expect(page.reviews.dropFirst(3).map(\.id) == Array(matching.dropLast(3).reversed()))
      library.rankingWindow = 100
      let whole = try library.list(ReviewQuery(search: "lantern", limit: 20))
      #expect(!whole.totalIsEstimate && whole.total == 10 && Set(whole.reviews.map(\.id)) == Set(matching))
    }
  }

  /// Drafts stay out of what readers see, in lists, searches and feeds alike.
  @Test(arguments: Backend.allCases)
  func draftsAreNeverListedForReaders(backend: Backend) throws {
    try backend.withLibrary { library, _ in
      _ = try Self.fill(library)
      let draft = try library.create(
        ReviewDraft(title: "Unfinished", body: "Heat again", rating: 1, category: "movie", publish: false))
      #expect(try !library.list().reviews.map(\.id).contains(draft.id))
      #expect(try !library.list(ReviewQuery(search: "heat")).reviews.map(\.id).contains(draft.id))
      #expect(try library.list(ReviewQuery(showing: .drafts)).reviews.map(\.id) == [draft.id])
      #expect(try !library.newestPublished().map(\.id).contains(draft.id))
      #expect(throws: CatalogueError.self) { try library.review(draft.id, publishedOnly: true) }
    }
  }

  /// Pictures: the original and thumbnail on disk, the links in order, one cover, the grid's
  /// card following them.
  @Test(arguments: Backend.allCases)
  func picturesAttachMoveAndDetachAlike(backend: Backend) throws {
    try backend.withLibrary { library, _ in
      let review = try library.create(ReviewDraft(title: "With pictures", rating: 4, category: "movie"))
      _ = try library.attach(files: ["baseline.jpg", "rgb-8.png"].map(Fixture.image), to: review.id)
      var read = try library.review(review.id)
      #expect(read.images.count == 2)
      #expect(read.images.first?.isCover == true)
      try expectNoDanglingRecords(library)
      _ = try library.setCover(review.id, image: "2")
      _ = try library.describe(review.id, image: "2", alt: "A red door", caption: nil)
      let card = try #require(library.list().reviews.first)
      #expect(
        card.imageCount == 2 && card.cover?.sha256 == read.images[1].image.sha256 && card.coverAlt == "A red door")
      _ = try library.move(review.id, image: "2", to: 1)
      read = try library.review(review.id)
      #expect(read.images.map(\.isCover) == [true, false])
      _ = try library.detach(review.id, image: "1")
      #expect(try library.list().reviews.first?.imageCount == 1)
      #expect(try library.check().isHealthy)
    }
  }

  /// Reviewers' names are theirs in any case; sessions and tokens follow the name as stored.
  @Test(arguments: Backend.allCases)
  func reviewersSessionsAndTokensAlike(backend: Backend) throws {
    try backend.withLibrary { library, _ in
      try library.setPasswordCost(.minimum)
      try library.addReviewer("Ada", password: "correct horse battery")
      #expect(throws: CatalogueError.self) { try library.addReviewer("ADA", password: "another good one") }
      #expect(try library.verifyPassword(name: "ada", password: "correct horse battery") == "Ada")
      let grant = try library.startSession(for: "aDa")
      #expect(grant.reviewer == "Ada")
      #expect(try library.session(secret: grant.secret)?.grant.reviewer == "Ada")
      let token = try library.newToken(for: "ADA")
      #expect(try library.reviewer(forToken: token) == "Ada")
      #expect(try library.reviewers().map(\.name) == ["Ada"])
      try library.removeReviewer("ada")
      #expect(try library.session(secret: grant.secret) == nil)
      #expect(try library.reviewer(forToken: token) == nil)
    }
  }

  /// Settings written by one instance are seen by another at its next look, through the
  /// change token.
  @Test(arguments: Backend.allCases)
  func anotherInstanceSeesAChangedSetting(backend: Backend) throws {
    try backend.withLibrary { library, database in
      let other = try Library(opening: library.path, database: database)
      #expect(try !other.refreshIfChanged())
      try library.setPixelBudget(12_000_000)
      #expect(try other.refreshIfChanged())
      #expect(other.decodeOptions.pixelBudget == 12_000_000)
    }
  }

  /// Four writers at once, each adding reviews: every write lands, none twice.
  @Test(arguments: Backend.allCases)
  func fourWritersAtOnceLoseNothing(backend: Backend) throws {
    try backend.withLibrary { library, database in
      let failures = Mutex<[String]>([])
      let path = library.path
      DispatchQueue.concurrentPerform(iterations: 4) { writer in
        do {
          let mine = try Library(opening: path, database: database)
          for index in 0..<10 {
            _ = try mine.create(ReviewDraft(title: "Writer \(writer) review \(index)", rating: 3, category: "movie"))
          }
        } catch {
          failures.withLock { $0.append("\(error)") }
        }
      }
      #expect(failures.withLock { $0 } == [])
      let all = try library.list(ReviewQuery(limit: 100))
      #expect(all.total == 40 && Set(all.reviews.map(\.title)).count == 40)
    }
  }

  /// The search index edited out of step (by hand, as a user might) is found by check and
  /// rebuilt by repair.
  @Test(arguments: Backend.allCases)
  func checkFindsAndRepairsASearchIndexOutOfStep(backend: Backend) throws {
    try backend.withLibrary { library, _ in
      _ = try Self.fill(library)
      #expect(try library.check().isHealthy)
      switch backend {
      case .sqlite:
        // As the sqlite3 shell would: a connection without the catalogue's triggers.
        let shell = try Database(path: "\(library.path)/\(LibraryLayout.database)", create: false)
        try shell.execute("UPDATE reviews SET title = 'Cold' WHERE title = 'Heat'")
      case .postgresql:
        let records = try #require(library.records as? PostgreSQLRecords)
        _ = try records.connection.execute("UPDATE reviews SET title = 'Cold' WHERE title = 'Heat'")
      }
      let report = try library.check()
      #expect(report.findings.map(\.kind) == [.searchIndexOutOfStep])
      let outcome = try library.checkAndRepair(repair: true)
      #expect(outcome.isHealthy)
      #expect(try library.list(ReviewQuery(search: "cold")).reviews.map(\.title) == ["Cold"])
    }
  }
}
