@testable import Catalogue
import Foundation
import ImagePipeline
import Testing
import TestSupport

/// The 2× thumbnail every picture has beside its 1× one: made by every import, checked,
/// repaired, rebuilt and removed with it.
@Suite("2× thumbnails")
struct HighDensityThumbnailTests {
  /// The decoded size of a file in the library.
  func size(_ library: Library, _ path: String) throws -> (Int, Int, ImageFormat) {
    let header = try ImagePipeline.readHeader(try library.files.read(path))
    return (header.width, header.height, header.format)
  }

  @Test func anAttachWritesBothSizes() throws {
    let (test, review) = try libraryWithPictures(["large-1600x1200.jpg", "baseline.jpg", "rgba-8.png"])
    let library = test.library
    let (large, small, transparent) = (
      review.images[0].image, review.images[1].image, review.images[2].image
    )
    #expect(large.highDensityThumbnail == "thumbnails/\(large.sha256.prefix(2))/\(large.sha256)-256-fit-q85@2x.jpg")
    #expect(try size(library, large.thumbnail) == (256, 192, .jpeg))
    #expect(try size(library, large.highDensityThumbnail) == (512, 384, .jpeg))
    #expect((large.highDensityThumbnailWidth, large.highDensityThumbnailHeight) == (512, 384))
    // Never larger than the original: a 120 × 80 picture is 120 × 80 at 1× and 2×.
    #expect(try size(library, small.thumbnail) == (120, 80, .jpeg))
    #expect(try size(library, small.highDensityThumbnail) == (120, 80, .jpeg))
    #expect(try size(library, transparent.highDensityThumbnail) == (120, 80, .png))
    #expect(transparent.highDensityThumbnail.hasSuffix("-256-fit-q85@2x.png"))
    #expect(try library.files.files(under: LibraryLayout.thumbnails).count == 6)
    #expect(try library.check().isHealthy)
    #expect(try library.unreferencedFiles().isEmpty)
  }

  @Test func aBundleImportAndAReplaceWriteBoth() throws {
    let (source, review) = try libraryWithPictures(["large-1600x1200.jpg"])
    let exported = try source.library.export([review.id], to: source.folder.file("out"))
    let target = try TestLibrary()
    let imported = try target.library.importBundles(at: exported.bundles[0].path)
    #expect(imported.failures.isEmpty)
    let id = try #require(imported.imported.first?.review.id)
    let image = try target.library.review(id).images[0].image
    #expect(try size(target.library, image.highDensityThumbnail) == (512, 384, .jpeg))
    #expect(try target.library.check().isHealthy)
    // The bundle carries the 1× thumbnail its page shows, not the 2× one: derived, made again.
    #expect(!exported.bundles[0].files.contains { $0.contains("@2x") })

    try target.library.replace(id, image: "1", with: Fixture.image("orientation-6.jpg"))
    let replaced = try target.library.review(id).images[0].image
    #expect(try size(target.library, replaced.highDensityThumbnail) == (120, 80, .jpeg))
    // The old picture's files, 2× included, went with its record.
    #expect(
      try target.library.files.files(under: LibraryLayout.thumbnails).sorted()
        == [replaced.thumbnail, replaced.highDensityThumbnail].sorted())
  }

  @Test func aDetachAndADeleteRemoveBoth() throws {
    let (test, review) = try libraryWithPictures(["large-1600x1200.jpg", "baseline.jpg"])
    let library = test.library
    let second = review.images[1].image
    _ = try library.displayRendition(of: second.sha256, highDensity: true)
    try library.detach(review.id, image: "2")
    for path in [second.thumbnail, second.highDensityThumbnail] { #expect(library.files.size(of: path) == nil) }
    #expect(library.existingDisplayRendition(of: second.sha256, highDensity: true) == nil)
    _ = try library.delete(review.id)
    #expect(try library.files.files(under: LibraryLayout.thumbnails).isEmpty)
    #expect(try library.check().isHealthy)
  }

  @Test func aMissingOrStale2xThumbnailIsFoundAndMadeAgain() throws {
    let (test, review) = try libraryWithPictures(["large-1600x1200.jpg", "baseline.jpg"])
    let library = test.library
    let (large, small) = (review.images[0].image, review.images[1].image)
    let oneX = try library.files.read(large.thumbnail)
    try library.files.remove(large.highDensityThumbnail)
    // Stale: the 1× thumbnail's bytes under the 2× name.
    try library.files.write(oneX, to: small.highDensityThumbnail)
    let report = try library.check()
    #expect(
      report.findings.map { "\($0.kind.rawValue) \($0.target) \($0.repairable)" }.sorted()
        == [
          "missing-thumbnail \(large.highDensityThumbnail) true",
          "stale-thumbnail \(small.highDensityThumbnail) true",
        ])
    let missing = try #require(report.findings.first { $0.kind == .missingThumbnail })
    #expect(missing.problem == "the 2× thumbnail is missing")
    let stale = try #require(report.findings.first { $0.kind == .staleThumbnail })
    #expect(stale.problem == "the 2× thumbnail is 256×192 JPEG; the spec 256-fit-q85 at 2× gives 120×80")
    let repair = try library.repair(report)
    #expect(repair.actions.count == 2 && repair.unrepaired.isEmpty)
    #expect(try size(library, large.highDensityThumbnail) == (512, 384, .jpeg))
    #expect(try size(library, small.highDensityThumbnail) == (120, 80, .jpeg))
    // The healthy 1× thumbnail keeps its bytes: a browser may hold it under its name.
    #expect(try library.files.read(large.thumbnail) == oneX)
    #expect(try library.check().isHealthy)
  }

  @Test func aMissing2xThumbnailIsMadeAgainOnRequest() throws {
    let (test, review) = try libraryWithPictures(["large-1600x1200.jpg"])
    let library = test.library
    let image = review.images[0].image
    let oneX = try inode(library, image.thumbnail)
    try library.files.remove(image.highDensityThumbnail)
    #expect(try library.thumbnailFile(of: image.sha256, highDensity: true) == image.highDensityThumbnail)
    #expect(try size(library, image.highDensityThumbnail) == (512, 384, .jpeg))
    #expect(try inode(library, image.thumbnail) == oneX)
    #expect(try library.check().isHealthy)
  }

  @Test func theDisplayRenditionAt2xIsBoundedByTheOriginal() throws {
    let (test, review) = try libraryWithPictures(["large-1600x1200.jpg"])
    let library = test.library
    let sha256 = review.images[0].image.sha256
    let path = try library.displayRendition(of: sha256, highDensity: true)
    #expect(path == "thumbnails/\(sha256.prefix(2))/\(sha256)-1600-fit-q85-progressive@2x.jpg")
    // 3200 asked, 1600 × 1200 there: never enlarged.
    #expect(try size(library, path) == (1600, 1200, .jpeg))
    #expect(library.existingDisplayRendition(of: sha256) == nil)
    #expect(try library.check().isHealthy)
    // A stale one is found and deleted, to be made again when asked.
    try library.files.write(try library.files.read(review.images[0].image.thumbnail), to: path)
    let report = try library.check()
    #expect(report.findings.map(\.kind) == [.staleRendition] && report.findings[0].target == path)
    #expect(
      report.findings.first?.problem
        == "the 2× display rendition is 256×192 JPEG; the spec 1600-fit-q85-progressive at 2× gives 1600×1200")
    _ = try library.repair(report)
    #expect(library.files.size(of: path) == nil)
    #expect(try library.check().isHealthy)
  }

  @Test func unreferenced2xFilesAreSwept() throws {
    let (test, review) = try libraryWithPictures(["large-1600x1200.jpg"])
    let library = test.library
    let image = review.images[0].image
    let stray = LibraryLayout.highDensityThumbnail(
      sha256: image.sha256, spec: "128-fit-q85", fileExtension: "jpg")
    try library.files.write(try library.files.read(image.highDensityThumbnail), to: stray)
    let report = try library.check()
    #expect(report.findings.map { "\($0.kind.rawValue) \($0.target)" } == ["unreferenced-file \(stray)"])
    #expect(try library.removeUnreferencedFiles() == [stray])
    #expect(library.files.size(of: image.highDensityThumbnail) != nil)
    #expect(try library.check().isHealthy)
  }
}
