@testable import Catalogue
import Foundation
import Synchronization
import ImagePipeline
import Testing
import TestSupport

@Suite("Check and repair")
struct CheckTests {
  /// A healthy library: two reviews, three pictures (one shared), one of them a PNG with
  /// transparency.
  static func healthy() throws -> (TestLibrary, [Review]) {
    let test = try TestLibrary()
    let first = try test.library.create(draft("First"))
    let second = try test.library.create(draft("Second", category: "game"))
    _ = try test.library.attach(
      files: [Fixture.image("large-1600x1200.jpg"), Fixture.image("palette-trns.png")], to: first.id)
    _ = try test.library.attach(
      files: [Fixture.image("large-1600x1200.jpg"), Fixture.image("orientation-6.jpg")], to: second.id)
    return (test, [try test.library.review(first.id), try test.library.review(second.id)])
  }

  /// Every original a record refers to, with its bytes.
  static func originals(_ library: Library) throws -> [String: [UInt8]] {
    var result: [String: [UInt8]] = [:]
    for record in try library.imageRecords() {
      result[record.originalPath] = try? library.files.read(record.originalPath)
    }
    return result
  }

  func full(_ library: Library, _ relative: String) -> String { library.files.location(of: relative) }

  /// Checks, expects exactly `kinds` on `target`, repairs, and checks again.
  func breakAndRepair(
    _ expected: [(Finding.Kind, String)], repaired: Bool, _ test: TestLibrary,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let library = test.library
    let report = try library.check()
    #expect(
      report.findings.map { "\($0.kind.rawValue) \($0.target)" }.sorted()
        == expected.map { "\($0.0.rawValue) \($0.1)" }.sorted(), sourceLocation: sourceLocation)
    let before = try Self.originals(library)
    let dry = try library.repair(report, dryRun: true)
    #expect(
      try library.check().findings == report.findings, "a dry run changed something", sourceLocation: sourceLocation)
    let repair = try library.repair(report)
    #expect(dry.actions.map(\.finding) == repair.actions.map(\.finding), sourceLocation: sourceLocation)
    let after = try library.check()
    if repaired {
      #expect(after.isHealthy, "still: \(after.findings)", sourceLocation: sourceLocation)
    } else {
      #expect(after.findings.map(\.kind) == report.findings.map(\.kind), sourceLocation: sourceLocation)
      #expect(after.findings.allSatisfy { !$0.repairable }, sourceLocation: sourceLocation)
    }
    // Originals that records refer to are untouched, byte for byte.
    let now = try Self.originals(library)
    for (path, bytes) in before { #expect(now[path] == bytes, "\(path) changed", sourceLocation: sourceLocation) }
  }

  /// The grid's card of each review (how many pictures, the cover, its description), kept on
  /// the review's row, follows every change of its pictures, by the library or by hand.
  @Test func aReviewsCardFollowsEveryChangeOfItsPictures() throws {
    let (test, reviews) = try Self.healthy()
    let library = test.library
    let id = reviews[0].id
    func card() throws -> (count: Int, cover: String?, alt: String?) {
      let summary = try #require(try library.list().reviews.first { $0.id == id })
      return (summary.imageCount, summary.cover?.sha256, summary.coverAlt)
    }
    func expectCard(_ count: Int, _ cover: String?, _ alt: String?, sourceLocation: SourceLocation = #_sourceLocation)
      throws
    {
      let shown = try card()
      #expect(
        shown.count == count && shown.cover == cover && shown.alt == alt, "\(shown)", sourceLocation: sourceLocation)
      let review = try library.review(id)
      #expect(review.images.count == count, sourceLocation: sourceLocation)
      #expect(review.images.first { $0.isCover }?.image.sha256 == cover, sourceLocation: sourceLocation)
      #expect(try library.check().isHealthy, sourceLocation: sourceLocation)
    }
    let (large, palette) = (reviews[0].images[0].image.sha256, reviews[0].images[1].image.sha256)
    try expectCard(2, large, nil)
    try library.describe(id, image: "1", alt: "A gradient", caption: nil)
    try expectCard(2, large, "A gradient")
    try library.setCover(id, image: "2")
    try expectCard(2, palette, nil)
    try library.move(id, image: "2", to: 1)
    try expectCard(2, palette, nil)
    _ = try library.attach(files: [Fixture.image("orientation-6.jpg")], to: id)
    try expectCard(3, palette, nil)
    _ = try library.detach(id, image: palette)
    try expectCard(2, large, "A gradient")
    // By hand, in the sqlite3 shell: the triggers are in the file.
    try library.database.execute("DELETE FROM review_images WHERE review = '\(id)' AND position = 2")
    try expectCard(1, large, "A gradient")
    try library.database.execute("UPDATE review_images SET alt = 'Changed by hand' WHERE review = '\(id)'")
    try expectCard(1, large, "Changed by hand")
    try library.database.execute("DELETE FROM review_images WHERE review = '\(id)'")
    try expectCard(0, nil, nil)
    // The other review's card never moved.
    let other = try #require(try library.list().reviews.first { $0.id == reviews[1].id })
    #expect(other.imageCount == 2 && other.cover?.sha256 == large)
  }

  @Test func aCardOutOfStepIsFoundAndSetAgain() throws {
    let (test, reviews) = try Self.healthy()
    // As a tool that writes the file without the triggers (or a damaged page) could leave it.
    try test.library.database.execute(
      "UPDATE reviews SET image_count = 7, cover_alt = 'stale' WHERE id = '\(reviews[1].id)'")
    #expect(try test.library.list().reviews.first { $0.id == reviews[1].id }?.imageCount == 7)
    try breakAndRepair([(.cardOutOfStep, reviews[1].id)], repaired: true, test)
    let card = try #require(try test.library.list().reviews.first { $0.id == reviews[1].id })
    #expect(card.imageCount == 2 && card.coverAlt == nil)
  }

  @Test func checkAndRepairChecksAgainAfterARealRepairOnly() throws {
    let (test, reviews) = try Self.healthy()
    let library = test.library
    let thumbnail = reviews[0].images[0].image.thumbnail
    try library.files.remove(thumbnail)
    let dry = try library.checkAndRepair(repair: true, dryRun: true)
    #expect(dry.repair?.actions.count == 1 && dry.remaining == nil && !dry.isHealthy)
    #expect(library.files.size(of: thumbnail) == nil)
    let phases = Mutex<[CheckPhase]>([])
    let real = try library.checkAndRepair(repair: true) { phase, progress in
      if progress == nil { phases.withLock { $0.append(phase) } }
    }
    #expect(real.report.findings.map(\.kind) == [.missingThumbnail])
    #expect(real.remaining == [] && real.isHealthy)
    #expect(phases.withLock { $0 } == [.verifying, .repairing, .checkingAgain])
    #expect(library.files.size(of: thumbnail) != nil)
    let healthy = try library.checkAndRepair(repair: true)
    #expect(healthy.repair == nil && healthy.remaining == nil && healthy.isHealthy)
  }

  @Test func aHealthyLibraryIsHealthy() throws {
    let (test, _) = try Self.healthy()
    let report = try test.library.check()
    #expect(report.isHealthy, "\(report.findings)")
    #expect(report.reviews == 2 && report.images == 3)
    #expect(report.bytesRead > 75_000)
    #expect(try test.library.check(quick: true).isHealthy)
  }

  @Test func aFlippedByteInAnOriginal() throws {
    let (test, reviews) = try Self.healthy()
    let original = reviews[0].images[0].image.original
    var bytes = try test.library.files.read(original)
    bytes[bytes.count / 2] ^= 0x40
    try Data(bytes).write(to: URL(fileURLWithPath: full(test.library, original)))
    try breakAndRepair([(.originalHashMismatch, original)], repaired: false, test)
    let finding = try #require(try test.library.check().findings.first)
    #expect(Set(finding.reviews) == Set(reviews.map(\.id)))
    #expect(finding.remedy.contains("catalogue replace"))
    // quick checks sizes only: a flipped byte keeps the size.
    #expect(try test.library.check(quick: true).isHealthy)
  }

  @Test func aTruncatedOriginal() throws {
    let (test, reviews) = try Self.healthy()
    let original = reviews[0].images[1].image.original
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: full(test.library, original)))
    try handle.truncate(atOffset: 50)
    try handle.close()
    try breakAndRepair([(.originalSizeMismatch, original)], repaired: false, test)
    #expect(try test.library.check(quick: true).findings.map(\.kind) == [.originalSizeMismatch])
  }

  @Test func aDeletedOriginal() throws {
    let (test, reviews) = try Self.healthy()
    let original = reviews[1].images[1].image.original
    try FileManager.default.removeItem(atPath: full(test.library, original))
    try breakAndRepair([(.missingOriginal, original)], repaired: false, test)
  }

  @Test func anUndecodableOriginalWithItsRecordedHash() throws {
    // A record whose file is not a picture at all (hash matches: the record was made so).
    let (test, _) = try Self.healthy()
    let bytes = Array("not a picture".utf8)
    let sha = SHA256.hex(bytes)
    try test.library.files.write(bytes, to: LibraryLayout.original(sha256: sha, fileExtension: "jpg"))
    try test.library.database.run(
      "INSERT INTO images VALUES (?, 'jpeg', 10, 10, 1, ?, 'jpeg', 10, 10, '2026-01-01T00:00:00.000Z', 'untagged')",
      [.text(sha), .integer(Int64(bytes.count))])
    let path = LibraryLayout.original(sha256: sha, fileExtension: "jpg")
    let thumbnail = LibraryLayout.thumbnail(sha256: sha, spec: "256-fit-q85", fileExtension: "jpg")
    let highDensity = LibraryLayout.highDensityThumbnail(sha256: sha, spec: "256-fit-q85", fileExtension: "jpg")
    try breakAndRepair(
      [(.originalUndecodable, path), (.missingThumbnail, thumbnail), (.missingThumbnail, highDensity)], repaired: false,
      test)
  }

  @Test func aDeletedThumbnail() throws {
    let (test, reviews) = try Self.healthy()
    let thumbnail = reviews[0].images[1].image.thumbnail
    #expect(thumbnail.hasSuffix(".png"))
    let before = try test.library.files.read(thumbnail)
    try FileManager.default.removeItem(atPath: full(test.library, thumbnail))
    try breakAndRepair([(.missingThumbnail, thumbnail)], repaired: true, test)
    #expect(try test.library.files.read(thumbnail) == before)
  }

  @Test func aThumbnailOfTheWrongSize() throws {
    let (test, reviews) = try Self.healthy()
    let thumbnail = reviews[0].images[0].image.thumbnail
    let wrong = try ImagePipeline.thumbnail(
      try Fixture.bytes(Fixture.image("large-1600x1200.jpg")), spec: ThumbnailSpec(longestEdge: 100))
    try Data(wrong.thumbnail.bytes).write(to: URL(fileURLWithPath: full(test.library, thumbnail)))
    try breakAndRepair([(.staleThumbnail, thumbnail)], repaired: true, test)
    #expect(try ImagePipeline.readHeader(try test.library.files.read(thumbnail)).width == 256)
  }

  @Test func aTemporaryFileAndAnOrphan() throws {
    let (test, _) = try Self.healthy()
    let temporary = "originals/ab/.tmp-0123456789abcdef-x.jpg"
    let orphanBytes = try Fixture.bytes(Fixture.image("baseline.jpg"))
    let orphan = LibraryLayout.original(sha256: SHA256.hex(orphanBytes), fileExtension: "jpg")
    try test.library.files.write([1, 2, 3], to: temporary)
    try test.library.files.write(orphanBytes, to: orphan)
    try breakAndRepair([(.temporaryFile, temporary), (.unreferencedFile, orphan)], repaired: true, test)
    // Both were moved to lost+found, not deleted.
    let lost = try test.library.files.files(under: LibraryLayout.lostAndFound)
    #expect(lost.count == 2)
    #expect(lost.contains { $0.hasSuffix(orphan) })
    #expect(try test.library.files.read(try #require(lost.first { $0.hasSuffix(orphan) })) == orphanBytes)
  }

  @Test func aRatingOfNine() throws {
    let (test, reviews) = try Self.healthy()
    try test.library.database.execute("PRAGMA ignore_check_constraints = ON")
    try test.library.database.run("UPDATE reviews SET rating = 9 WHERE id = ?", [.text(reviews[1].id)])
    try test.library.database.execute("PRAGMA ignore_check_constraints = OFF")
    try breakAndRepair([(.invalidReview, reviews[1].id)], repaired: false, test)
    let finding = try #require(try test.library.check().findings.first)
    #expect(finding.problem == "rating 9 is outside 0–5")
  }

  @Test func aCorruptSearchIndex() throws {
    let (test, reviews) = try Self.healthy()
    // Tell the index a review has different words from the ones it has.
    try test.library.database.run(
      """
      INSERT INTO reviews_fts (reviews_fts, rowid, title, body)
        SELECT 'delete', key, 'wrong words', 'entirely' FROM reviews_search
        WHERE seq = (SELECT seq FROM reviews WHERE id = ?)
      """,
      [.text(reviews[0].id)])
    try breakAndRepair([(.searchIndexOutOfStep, "reviews_fts")], repaired: true, test)
    #expect(try test.library.list(ReviewQuery(search: "first")).total == 1)
  }

  /// The index is kept in step by each catalogue connection's own triggers (they call the
  /// catalogue's functions): an edit made by hand, as the sqlite3 shell would make it, leaves
  /// it out of step, which `check` finds and `check --repair` mends.
  @Test func anEditByHandLeavesTheIndexOutOfStepUntilARepair() throws {
    let (test, reviews) = try Self.healthy()
    do {
      let database = try Database(path: "\(test.path)/\(LibraryLayout.database)", create: false)
      try database.run("UPDATE reviews SET title = '北京烤鸭' WHERE id = ?", [.text(reviews[0].id)])
    }
    #expect(try test.library.list(ReviewQuery(search: "烤鸭")).total == 0)
    try breakAndRepair([(.searchIndexOutOfStep, "reviews_fts")], repaired: true, test)
    #expect(try test.library.list(ReviewQuery(search: "烤鸭")).reviews.map(\.id) == [reviews[0].id])
    #expect(try test.library.list(ReviewQuery(search: "first")).total == 0)
  }

  @Test func aMissingCoverAndGappedPositions() throws {
    let (test, reviews) = try Self.healthy()
    try test.library.database.run("UPDATE review_images SET cover = 0 WHERE review = ?", [.text(reviews[0].id)])
    try test.library.database.run(
      "UPDATE review_images SET position = 5 WHERE review = ? AND position = 2", [.text(reviews[1].id)])
    try breakAndRepair([(.coverMissing, reviews[0].id), (.imagePositions, reviews[1].id)], repaired: true, test)
    #expect(try test.library.review(reviews[0].id).images.map(\.isCover) == [true, false])
    #expect(try test.library.review(reviews[1].id).images.map(\.position) == [1, 2])
    // A repair tells no new story: the reviews' updated times stay.
    #expect(try test.library.review(reviews[0].id).updated == reviews[0].updated)
  }

  @Test func recordFactsThatDisagreeWithTheOriginal() throws {
    let (test, reviews) = try Self.healthy()
    let sha = reviews[1].images[1].image.sha256
    try test.library.database.run("UPDATE images SET width = 999 WHERE sha256 = ?", [.text(sha)])
    // The thumbnails' expected sizes follow the (wrong) record too.
    let image = reviews[1].images[1].image
    try breakAndRepair(
      [
        (.originalFactsMismatch, sha), (.staleThumbnail, image.thumbnail),
        (.staleThumbnail, image.highDensityThumbnail),
      ],
      repaired: true, test)
    #expect(try test.library.review(reviews[1].id).images[1].image.width == 120)
  }

  @Test func aStaleReportRemovesNothingLive() throws {
    let (test, reviews) = try Self.healthy()
    // An orphan is found, then attached before the repair runs.
    let bytes = try Fixture.bytes(Fixture.image("baseline.jpg"))
    let path = LibraryLayout.original(sha256: SHA256.hex(bytes), fileExtension: "jpg")
    try test.library.files.write(bytes, to: path)
    let report = try test.library.check()
    #expect(report.findings.map(\.kind) == [.unreferencedFile])
    _ = try test.library.attach(files: [Fixture.image("baseline.jpg")], to: reviews[0].id)
    let repair = try test.library.repair(report)
    #expect(repair.actions.isEmpty)
    #expect(try test.library.files.read(path) == bytes)
    #expect(try test.library.check().isHealthy)
  }

  @Test func rebuildingThumbnailsToANewSpec() throws {
    let (test, reviews) = try Self.healthy()
    let old = try test.library.files.files(under: LibraryLayout.thumbnails)
    let report = try test.library.rebuildThumbnails(spec: ThumbnailSpec(longestEdge: 64, mode: .square))
    // Three pictures, each with a 1× and a 2× thumbnail of the old spec and of the new.
    #expect(old.count == 6)
    #expect(report.rebuilt == 3 && report.failures.isEmpty && report.removed == 6)
    #expect(test.library.thumbnailSpec.name == "64-square-q85")
    let now = try test.library.files.files(under: LibraryLayout.thumbnails)
    #expect(now.count == 6 && Set(now).isDisjoint(with: old))
    for image in try test.library.review(reviews[0].id).images {
      let header = try ImagePipeline.readHeader(try test.library.files.read(image.image.thumbnail))
      #expect(header.width == 64 && header.height == 64)
      #expect(image.image.highDensityThumbnail.hasSuffix("-64-square-q85@2x." + header.format.fileExtension))
      let twice = try ImagePipeline.readHeader(try test.library.files.read(image.image.highDensityThumbnail))
      // The centre square at twice the side, never larger than the picture's shorter edge.
      let side = min(image.image.width, image.image.height, 128)
      #expect(twice.width == side && twice.height == side && twice.format == header.format)
    }
    #expect(try test.library.check().isHealthy)
    // The spec persists.
    #expect(try Library(opening: test.path).thumbnailSpec.name == "64-square-q85")
  }

  /// An import that made its thumbnails before a rebuild switched the spec (another process,
  /// which read the spec when it opened the library) leaves no thumbnail of the old spec.
  @Test func anImportThatMissedARebuildLeavesNoOldThumbnail() throws {
    let (test, reviews) = try Self.healthy()
    let importer = try Library(opening: test.path)
    _ = try test.library.rebuildThumbnails(spec: ThumbnailSpec(longestEdge: 72))
    _ = try importer.attach(files: [Fixture.image("baseline.jpg")], to: reviews[0].id)
    let thumbnails = try test.library.files.files(under: LibraryLayout.thumbnails)
    #expect(thumbnails.count == 8 && thumbnails.allSatisfy { $0.contains("-72-fit-") }, "\(thumbnails)")
    #expect(thumbnails.filter { $0.contains("-72-fit-q85@2x.") }.count == 4, "\(thumbnails)")
    #expect(try test.library.check().isHealthy)
  }

  @Test func aChangedSpecMakesThumbnailsStale() throws {
    let (test, _) = try Self.healthy()
    try test.library.setThumbnailSpec(ThumbnailSpec(longestEdge: 128))
    let report = try test.library.check()
    // 1× and 2× of each of the three pictures.
    #expect(report.findings.filter { $0.kind == .missingThumbnail }.count == 6)
    #expect(report.findings.filter { $0.kind == .unreferencedFile }.count == 6)
    _ = try test.library.repair(report)
    #expect(try test.library.check().isHealthy)
  }
}
