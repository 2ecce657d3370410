@testable import Catalogue
import Foundation
import Testing
import TestSupport

@Suite("Who wrote what")
struct AuthorTests {
  @Test func everyWriteThatUpdatesAReviewRecordsItsAuthor() throws {
    let test = try TestLibrary()
    let library = test.library
    library.author = "alice"
    let created = try library.create(draft("Arrival"))
    #expect(created.createdBy == "alice" && created.updatedBy == "alice")

    // Each write that marks the review updated names who made it.
    let writes: [(String, () throws -> Review)] = [
      ("update", { try library.update(created.id, changes: ReviewChanges(rating: 3)) }),
      ("update with a draft", { try library.update(created.id, with: draft("Arrival", rating: 2)) }),
      (
        "attach",
        {
          try library.attach(files: ["baseline.jpg", "rgb-8.png"].map(Fixture.image), to: created.id).review
        }
      ),
      ("cover", { try library.setCover(created.id, image: "2") }),
      ("move", { try library.move(created.id, image: "2", to: 1) }),
      ("replace", { try library.replace(created.id, image: "1", with: Fixture.image("progressive.jpg")).review }),
      ("detach", { try library.detach(created.id, image: "1") }),
    ]
    for (index, (name, write)) in writes.enumerated() {
      let author = index % 2 == 0 ? "bob" : "carol"
      library.author = author
      let review = try write()
      #expect(review.createdBy == "alice", "\(name)")
      #expect(review.updatedBy == author, "\(name)")
      #expect(try library.review(created.id).updatedBy == author, "\(name)")
    }
    // The list shows them too.
    let summary = try #require(try library.list().reviews.first)
    #expect(summary.createdBy == "alice" && summary.updatedBy == "bob")
    // The command line writes as nobody: the last change was no reviewer's.
    library.author = nil
    let byCommandLine = try library.update(created.id, changes: ReviewChanges(favorite: true))
    #expect(byCommandLine.createdBy == "alice" && byCommandLine.updatedBy == nil)
  }

  @Test func anUploadRecordsItsAuthor() throws {
    let test = try TestLibrary()
    test.library.author = "alice"
    let (review, warnings) = try test.library.create(
      draft("With a picture"), attaching: [Fixture.image("baseline.jpg")], named: ["poster.jpg"])
    #expect(warnings.isEmpty)
    #expect(review.createdBy == "alice" && review.updatedBy == "alice" && review.images.count == 1)
    let reviews = try test.library.create([draft("One"), draft("Two")])
    for id in reviews { #expect(try test.library.review(id).createdBy == "alice") }
  }

  @Test func updateChangesOnlyWhatItIsGiven() throws {
    let test = try TestLibrary()
    let earlier = Date(timeIntervalSince1970: 1_800_000_000)
    let review = try test.library.create(
      draft("Arrival", rating: 4, category: "movie", body: "First.", favorite: false), now: earlier)
    let later = earlier.addingTimeInterval(60)
    let rated = try test.library.update(review.id, changes: ReviewChanges(rating: 5), now: later)
    #expect(rated.rating == 5 && rated.title == "Arrival" && rated.body == "First." && rated.category == .movie)
    #expect(rated.updated == later && rated.created == earlier)
    let retitled = try test.library.update(
      String(review.id.prefix(6)), changes: ReviewChanges(title: "  Arrival (2016)  ", body: "Second.\r\n"), now: later)
    #expect(retitled.title == "Arrival (2016)" && retitled.body == "Second." && retitled.rating == 5)
    let moved = try test.library.update(review.id, changes: ReviewChanges(category: "Book", favorite: true))
    #expect(moved.category == Category(rawValue: "book") && moved.favorite && moved.title == "Arrival (2016)")
    // Nothing to change: nothing written, not even the time.
    let same = try test.library.update(review.id, changes: ReviewChanges(), now: later.addingTimeInterval(60))
    #expect(ReviewChanges().isEmpty && !ReviewChanges(favorite: false).isEmpty)
    #expect(same.updated == moved.updated)
    // Invalid changes are refused whole, with every problem.
    #expect(throws: CatalogueError.invalidReview(["title is empty", "rating 9 is outside 0–5"])) {
      try test.library.update(review.id, changes: ReviewChanges(title: " ", rating: 9))
    }
    #expect(try test.library.review(review.id) == moved)
    #expect(throws: CatalogueError.reviewNotFound("abcd")) {
      try test.library.update("abcd", changes: ReviewChanges(rating: 1))
    }
  }

  @Test func aChangeMadeBetweenAnotherReadAndWriteIsKept() throws {
    // The server reads a review for a form; the command line changes its rating meanwhile; the
    // form's change of title must not put the old rating back.
    let test = try TestLibrary()
    let review = try test.library.create(draft("Arrival", rating: 4))
    let other = try Library(opening: test.path)
    _ = try other.update(review.id, changes: ReviewChanges(rating: 1))
    let edited = try test.library.update(review.id, changes: ReviewChanges(title: "Arrival (2016)"))
    #expect(edited.title == "Arrival (2016)" && edited.rating == 1)
  }
}
