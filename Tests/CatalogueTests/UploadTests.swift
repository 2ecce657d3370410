@testable import Catalogue
import Foundation
import ImagePipeline
import Testing
import TestSupport

/// Uploads arrive as temporary files under names of the server's making; everything the user
/// reads names the file as they sent it.
@Suite("Uploads are named as the user named them")
struct UploadTests {
  /// A copy of `fixture` under a temporary name, as an upload is saved.
  static func upload(_ fixture: String, in folder: TemporaryFolder) throws -> String {
    let path = folder.file("upload-\(UUID().uuidString).tmp")
    try FileManager.default.copyItem(atPath: fixture, toPath: path)
    return path
  }

  @Test func aHostileUploadIsRefusedUnderItsOwnName() throws {
    let test = try TestLibrary()
    let folder = TemporaryFolder()
    let review = try test.library.create(draft())
    _ = try test.library.attach(files: [Fixture.image("baseline.jpg")], to: review.id)
    let before = try snapshot(test.path + "/originals").merging(snapshot(test.path + "/thumbnails")) { $1 + $0 }
    let temporary = try Self.upload(Fixture.hostile("truncated-baseline.jpg"), in: folder)
    let report = try test.library.attach(files: [temporary], named: ["holiday.jpg"], to: review.id)
    #expect(report.attached.isEmpty)
    #expect(report.failures.map(\.source) == ["holiday.jpg"])
    let message = try #require(report.failures.first?.error.description)
    #expect(
      message == "holiday.jpg: truncated JPEG: the file ends before its image data does (was it still being copied?)")
    #expect(!message.contains(folder.path))
    #expect(try snapshot(test.path + "/originals").merging(snapshot(test.path + "/thumbnails")) { $1 + $0 } == before)
    #expect(try test.library.review(review.id).images.count == 1)
  }

  @Test func aNewReviewWithAHostileUploadIsRefusedUnderItsName() throws {
    let test = try TestLibrary()
    let folder = TemporaryFolder()
    let good = try Self.upload(Fixture.image("baseline.jpg"), in: folder)
    let bad = try Self.upload(Fixture.hostile("text.jpg"), in: folder)
    let error = #expect(throws: CatalogueError.self) {
      try test.library.create(draft(), attaching: [good, bad], named: ["poster.jpg", "holiday.jpg"])
    }
    guard case .picturesRefused(let failures, let total)? = error else {
      Issue.record("expected the pictures refused, not \(String(describing: error))")
      return
    }
    #expect(total == 2 && failures.map(\.source) == ["holiday.jpg"])
    #expect(failures.first?.error.description.hasPrefix("holiday.jpg: not an image") == true)
    #expect(try test.library.list().total == 0)
    #expect(try test.library.files.files(under: "originals").isEmpty)
  }

  @Test func aReplacementUploadIsNamedAsSent() throws {
    let test = try TestLibrary()
    let folder = TemporaryFolder()
    let review = try test.library.create(draft())
    _ = try test.library.attach(files: [Fixture.image("baseline.jpg")], to: review.id)
    let temporary = try Self.upload(Fixture.hostile("empty.jpg"), in: folder)
    #expect(throws: CatalogueError.imageRejected(file: "holiday.jpg", reason: .empty)) {
      try test.library.replace(review.id, image: "1", with: temporary, named: "holiday.jpg")
    }
    let missing = folder.file("gone.tmp")
    #expect(throws: CatalogueError.io(operation: .read, path: "holiday.jpg", code: Errno.noEntry.rawValue)) {
      try test.library.replace(review.id, image: "1", with: missing, named: "holiday.jpg")
    }
    let good = try Self.upload(Fixture.image("progressive.jpg"), in: folder)
    let replaced = try test.library.replace(review.id, image: "1", with: good, named: "better.jpg")
    #expect(replaced.changed && replaced.review.images.count == 1)
  }

  @Test func warningsAndDuplicatesNameTheUpload() throws {
    let test = try TestLibrary()
    let folder = TemporaryFolder()
    let review = try test.library.create(draft())
    let animated = try Self.upload(Fixture.image("webp-animated.webp"), in: folder)
    let report = try test.library.attach(files: [animated], named: ["still.webp"], to: review.id)
    #expect(report.attached.count == 1)
    #expect(
      report.warnings == [
        ImportWarning(source: "still.webp", message: "animated WebP: only the first of 3 frames is shown")
      ])
    let again = try Self.upload(Fixture.image("webp-animated.webp"), in: folder)
    let twice = try test.library.attach(files: [again], named: ["still again.webp"], to: review.id)
    #expect(twice.failures.map(\.source) == ["still again.webp"])
    let first = try Self.upload(Fixture.image("baseline.jpg"), in: folder)
    let second = try Self.upload(Fixture.image("baseline.jpg"), in: folder)
    let error = #expect(throws: CatalogueError.self) {
      try test.library.create(draft("Twins"), attaching: [first, second], named: ["a.jpg", "b.jpg"])
    }
    guard case .picturesRefused(let failures, _)? = error else {
      Issue.record("expected the pictures refused, not \(String(describing: error))")
      return
    }
    #expect(failures.first?.error.description.hasPrefix("b.jpg: the same picture") == true)
  }

  @Test func theCoverIsChosenByItsUploadName() throws {
    let test = try TestLibrary()
    let folder = TemporaryFolder()
    let review = try test.library.create(draft())
    let files = try ["baseline.jpg", "rgb-8.png"].map { try Self.upload(Fixture.image($0), in: folder) }
    let report = try test.library.attach(files: files, named: ["a.jpg", "b.png"], to: review.id, cover: "b.png")
    #expect(report.review.images.map(\.isCover) == [false, true])
    #expect(throws: CatalogueError.invalidArgument("2 files were given with 1 names")) {
      try test.library.attach(files: files, named: ["a.jpg"], to: review.id)
    }
  }
}

@Suite("A long-lived library follows other processes")
struct RefreshTests {
  @Test func settingsChangedElsewhereAreReadAtTheNextRefresh() throws {
    let test = try TestLibrary()
    let server = test.library
    let review = try server.create(draft())
    _ = try server.attach(files: [Fixture.image("large-1600x1200.jpg")], to: review.id)
    // Nothing changed: nothing read again.
    try server.refreshIfChanged()
    #expect(server.thumbnailSpec == .default)
    // The command line rebuilds the thumbnails at another size and changes the limits.
    let commandLine = try Library(opening: test.path)
    _ = try commandLine.rebuildThumbnails(spec: ThumbnailSpec(longestEdge: 512, mode: .square))
    try commandLine.setPixelBudget(2_000_000)
    try commandLine.setFileSizeCap(5_000_000)
    #expect(server.thumbnailSpec == .default)
    try server.refreshIfChanged()
    #expect(server.thumbnailSpec.name == "512-square-q85")
    #expect(server.decodeOptions.pixelBudget == 2_000_000 && server.fileSizeCap == 5_000_000)
    // The paths it gives are the new thumbnails, which exist.
    let image = try #require(try server.review(review.id).images.first).image
    #expect(image.thumbnail.hasSuffix("-512-square-q85.jpg"))
    #expect(server.files.size(of: image.thumbnail) != nil)
    #expect(try server.thumbnailFile(of: image.sha256) == image.thumbnail)
    // A change of a review elsewhere is seen at once (every read asks the database).
    _ = try commandLine.update(review.id, changes: ReviewChanges(title: "Changed elsewhere"))
    #expect(try server.review(review.id).title == "Changed elsewhere")
  }
}
