@testable import Catalogue
import Foundation
import ImagePipeline
import Testing
import TestSupport

@Suite("Images in the library")
struct ImageTests {
  @Test func attachStoresTheOriginalByteForByteAndAThumbnail() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    let file = Fixture.image("large-1600x1200.jpg")
    let report = try test.library.attach(files: [file], to: review.id)
    #expect(report.failures.isEmpty)
    let image = try #require(report.review.images.first)
    let bytes = try Fixture.bytes(file)
    #expect(image.position == 1 && image.isCover)
    #expect(image.image.sha256 == SHA256.hex(bytes))
    #expect(image.image.original == "originals/\(image.image.sha256.prefix(2))/\(image.image.sha256).jpg")
    #expect(image.image.thumbnail == "thumbnails/\(image.image.sha256.prefix(2))/\(image.image.sha256)-256-fit-q85.jpg")
    #expect(try test.library.files.read(image.image.original) == bytes)
    let thumbnail = try ImagePipeline.readHeader(try test.library.files.read(image.image.thumbnail))
    #expect(thumbnail.width == 256 && thumbnail.height == 192)
    #expect(image.image.width == 1600 && image.image.height == 1200 && image.image.bytes == bytes.count)
    #expect(try test.library.unreferencedFiles().isEmpty)
  }

  @Test func uprightSizesAreRecorded() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    let report = try test.library.attach(files: [Fixture.image("orientation-6.jpg")], to: review.id)
    let image = try #require(report.attached.first).image
    #expect(image.width == 120 && image.height == 80 && image.orientation == .right)
  }

  @Test func aPictureIsStoredOnceWhateverUsesIt() throws {
    let test = try TestLibrary()
    let first = try test.library.create(draft("First"))
    let second = try test.library.create(draft("Second"))
    let file = Fixture.image("baseline.jpg")
    _ = try test.library.attach(files: [file], to: first.id)
    _ = try test.library.attach(files: [file], to: second.id)
    #expect(try test.library.files.files(under: "originals").count == 1)
    #expect(try test.library.database.scalar("SELECT count(*) FROM images") == .integer(1))
    // The same picture twice on one review is refused, and named.
    let again = try test.library.attach(files: [file], to: first.id)
    #expect(again.attached.isEmpty)
    #expect(
      again.failures.first?.error
        == .imageAlreadyAttached(review: first.id, sha256: SHA256.hex(try Fixture.bytes(file)), position: 1))
  }

  @Test func orderAndCover() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    let files = ["baseline.jpg", "progressive.jpg", "rgb-8.png"].map(Fixture.image)
    let report = try test.library.attach(files: files, to: review.id)
    #expect(report.review.images.map(\.position) == [1, 2, 3])
    #expect(report.review.images.map(\.isCover) == [true, false, false])
    let hashes = report.review.images.map(\.image.sha256)
    // A chosen cover.
    let other = try test.library.create(draft("Other"))
    let chosen = try test.library.attach(files: files, to: other.id, cover: files[2])
    #expect(chosen.review.images.map(\.isCover) == [false, false, true])
    // Attaching more keeps the cover.
    let more = try test.library.attach(files: [Fixture.image("grayscale.jpg")], to: review.id)
    #expect(more.review.images.map(\.isCover) == [true, false, false, false])
    // Cover by position, then by hash prefix.
    var updated = try test.library.setCover(review.id, image: "3")
    #expect(updated.images.map(\.isCover) == [false, false, true, false])
    updated = try test.library.setCover(review.id, image: String(hashes[1].prefix(8)))
    #expect(updated.cover?.image.sha256 == hashes[1])
    // Move the cover to the front: it stays the cover, the others keep their order.
    updated = try test.library.move(review.id, image: "2", to: 1)
    #expect(updated.images.map(\.image.sha256).prefix(3) == [hashes[1], hashes[0], hashes[2]])
    #expect(updated.images[0].isCover)
  }

  @Test func replaceKeepsPositionAndCover() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    _ = try test.library.attach(files: ["baseline.jpg", "progressive.jpg"].map(Fixture.image), to: review.id)
    let replaced = try test.library.replace(review.id, image: "1", with: Fixture.image("rgb-8.png")).review
    #expect(replaced.images[0].image.format == .png)
    #expect(replaced.images[0].isCover)
    #expect(replaced.images[1].image.sha256 == SHA256.hex(try Fixture.bytes(Fixture.image("progressive.jpg"))))
    // The old original and its thumbnail went with the commit: nothing is left unreferenced.
    let old = SHA256.hex(try Fixture.bytes(Fixture.image("baseline.jpg")))
    #expect(try test.library.unreferencedFiles() == [])
    #expect(test.library.files.size(of: "originals/\(old.prefix(2))/\(old).jpg") == nil)
    #expect(test.library.files.size(of: "thumbnails/\(old.prefix(2))/\(old)-256-fit-q85.jpg") == nil)
    // The same picture again changes nothing: not the record, not its update time.
    let again = try test.library.replace(
      review.id, image: "1", with: Fixture.image("rgb-8.png"), now: Date(timeIntervalSinceNow: 3600))
    #expect(!again.changed)
    #expect(again.review == replaced)
  }

  @Test func detachRenumbersAndPassesTheCoverOn() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    let report = try test.library.attach(
      files: ["baseline.jpg", "progressive.jpg", "rgb-8.png"].map(Fixture.image), to: review.id)
    let hashes = report.review.images.map(\.image.sha256)
    let detached = try test.library.detach(review.id, image: "1")
    #expect(detached.images.map(\.image.sha256) == [hashes[1], hashes[2]])
    #expect(detached.images.map(\.position) == [1, 2])
    #expect(detached.images[0].isCover)
    #expect(throws: CatalogueError.imageNotFound(review: review.id, reference: "5")) {
      try test.library.detach(review.id, image: "5")
    }
    #expect(throws: CatalogueError.imageNotFound(review: review.id, reference: "ffffffff")) {
      try test.library.detach(review.id, image: "ffffffff")
    }
  }

  @Test func unreferencedFilesAreListedAndMovedAside() throws {
    let test = try TestLibrary()
    let keep = try test.library.create(draft("Keep"))
    let drop = try test.library.create(draft("Drop"))
    _ = try test.library.attach(files: [Fixture.image("baseline.jpg")], to: keep.id)
    _ = try test.library.attach(files: [Fixture.image("baseline.jpg"), Fixture.image("rgb-8.png")], to: drop.id)
    let droppedImage = try test.library.review(drop.id).images[1].image
    try test.library.delete(drop.id)
    // baseline.jpg is still used by "Keep"; rgb-8.png's files went with the delete.
    #expect(try test.library.unreferencedFiles() == [])
    #expect(test.library.files.size(of: droppedImage.original) == nil)
    // Files a crash left (SIGKILL between the commit and the cleanup) are unreferenced.
    try test.library.files.write(try Fixture.bytes(Fixture.image("rgb-8.png")), to: droppedImage.original)
    try test.library.files.write([1, 2, 3], to: droppedImage.thumbnail)
    let unreferenced = try test.library.unreferencedFiles()
    #expect(unreferenced == [droppedImage.original, droppedImage.thumbnail])
    let keptOriginal = try test.library.review(keep.id).images[0].image.original
    let before = try test.library.files.read(keptOriginal)
    // A file of the user's among the thumbnails is not deleted: it goes to lost+found too.
    try test.library.files.write(Array("mine".utf8), to: "thumbnails/ab/notes.txt")
    let removed = try test.library.removeUnreferencedFiles(now: Date(timeIntervalSince1970: 0))
    #expect(
      try test.library.files.read("lost+found/1970-01-01T00-00-00.000Z/thumbnails/ab/notes.txt") == Array("mine".utf8))
    #expect(
      removed == (unreferenced + ["thumbnails/ab/notes.txt"]).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    #expect(try test.library.unreferencedFiles().isEmpty)
    #expect(try test.library.files.read(keptOriginal) == before)
    // The original went to lost+found, not away; the thumbnail was deleted.
    let lost = try test.library.files.files(under: "lost+found")
    #expect(lost.count == 2 && lost[0].hasSuffix(".png") && lost[0].contains("originals/"))
    try expectNoDanglingRecords(test.library)
  }

  @Test(arguments: [
    "empty.jpg", "text.jpg", "truncated-baseline.jpg", "huge-dimensions.png", "heic-truncated.heic", "bad-crc.png",
  ])
  func aRejectedImportLeavesTheLibraryAsItWas(file: String) throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    _ = try test.library.attach(files: [Fixture.image("baseline.jpg")], to: review.id)
    let before = try snapshot(test.path)
    let report = try test.library.attach(files: [Fixture.hostile(file)], to: review.id)
    #expect(report.attached.isEmpty)
    let failure = try #require(report.failures.first)
    #expect(failure.source == Fixture.hostile(file))
    #expect(failure.error.description.hasPrefix(Fixture.hostile(file) + ": "))
    // The lock file may be created, but nothing else changes.
    #expect(
      try snapshot(test.path).filter { $0.key != "catalogue.lock" } == before.filter { $0.key != "catalogue.lock" })
  }

  @Test func goodFilesAreAttachedAndBadOnesReported() throws {
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    let files = [
      Fixture.image("baseline.jpg"), Fixture.hostile("text.jpg"), Fixture.image("rgb-8.png"), "/nonexistent/photo.jpg",
    ]
    let report = try test.library.attach(files: files, to: review.id)
    #expect(report.attached.count == 2)
    #expect(report.failures.map(\.source) == [Fixture.hostile("text.jpg"), "/nonexistent/photo.jpg"])
    #expect(report.failures[1].error.description == "cannot read /nonexistent/photo.jpg: No such file or directory")
  }
}
