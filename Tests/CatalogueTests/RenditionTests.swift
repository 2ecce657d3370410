@testable import Catalogue
import Dispatch
import Foundation
import ImagePipeline
import Testing
import TestSupport

/// A review with the pictures `names` (fixture images) in a fresh library.
func libraryWithPictures(_ names: [String]) throws -> (test: TestLibrary, review: Review) {
  let test = try TestLibrary()
  let review = try test.library.create(draft())
  let report = try test.library.attach(files: names.map(Fixture.image), to: review.id)
  try #require(report.failures.isEmpty, "\(report.failures)")
  return (test, report.review)
}

/// The inode of a file in the library: the same number means the file was not written again.
func inode(_ library: Library, _ path: String) throws -> Int {
  let attributes = try FileManager.default.attributesOfItem(atPath: library.files.location(of: path))
  return try #require(attributes[.systemFileNumber] as? Int)
}

/// The decoded pixels of a file in the library.
func decoded(_ library: Library, _ path: String) throws -> DecodedImage {
  try ImagePipeline.decode(try library.files.read(path))
}

@Suite("Display renditions")
struct RenditionTests {
  @Test func madeOnceOnFirstRequestAndKept() throws {
    let (test, review) = try libraryWithPictures(["baseline.jpg"])
    let library = test.library
    let sha256 = review.images[0].image.sha256
    #expect(library.existingDisplayRendition(of: sha256) == nil)
    let path = try library.displayRendition(of: sha256)
    #expect(path == "thumbnails/\(sha256.prefix(2))/\(sha256)-1600-fit-q85-progressive.jpg")
    #expect(library.existingDisplayRendition(of: sha256) == path)
    let first = try inode(library, path)
    #expect(try library.displayRendition(of: sha256) == path)
    #expect(try inode(library, path) == first)
    // Another instance (another process) finds it too.
    #expect(try Library(opening: test.path).displayRendition(of: sha256) == path)
    #expect(try library.check().isHealthy)
    #expect(try library.unreferencedFiles().isEmpty)
  }

  @Test func uprightForAnEXIFOrientation() throws {
    let (test, review) = try libraryWithPictures(["orientation-6.jpg"])
    let image = try decoded(test.library, try test.library.displayRendition(of: review.images[0].image.sha256))
    // Stored 80×120 and turned by its EXIF tag: upright 120×80, the quadrants in place, and
    // no orientation left for a browser to apply twice.
    #expect(image.header.width == 120 && image.header.height == 80 && image.header.orientation == .up)
    let red = image.pixels[30, 20]
    let yellow = image.pixels[90, 60]
    #expect(red[0] > 200 && red[1] < 60 && red[2] < 60, "\(red)")
    #expect(yellow[0] > 200 && yellow[1] > 200 && yellow[2] < 60, "\(yellow)")
  }

  @Test(arguments: ["heic-8bit.heic", "avif-8bit.avif", "webp-lossy.webp"])
  func formatsBrowsersMayNotShowBecomeJPEG(name: String) throws {
    let (test, review) = try libraryWithPictures([name])
    let path = try test.library.displayRendition(of: review.images[0].image.sha256)
    #expect(path.hasSuffix(".jpg"))
    let image = try decoded(test.library, path)
    #expect(image.header.format == .jpeg && image.header.width == 120 && image.header.height == 80)
  }

  /// HEIF pictures cropped (`clap`), turned (`irot`) and mirrored (`imir`), with a stored
  /// thumbnail of their coded samples, and one with their transforms: under a thumbnail spec
  /// the thumbnails could stand in for, the record, the thumbnail and the rendition all show
  /// the quadrants upright, 120 × 80, as libheif shows them.
  @Test func aCroppedTurnedMirroredHEIFIsRecordedAndShownAsLibheifShowsIt() throws {
    let names = ["heic-clap-irot180-imir1-preview-untransformed.heic", "heic-clap-irot90-imir0-preview.heic"]
    let test = try TestLibrary()
    _ = try test.library.rebuildThumbnails(spec: ThumbnailSpec(longestEdge: 30))
    let review = try test.library.create(draft())
    let report = try test.library.attach(files: names.map(Fixture.image), to: review.id)
    try #require(report.failures.isEmpty, "\(report.failures)")
    for (name, attached) in zip(names, report.review.images) {
      let image = attached.image
      #expect((image.width, image.height) == (120, 80), "\(name)")
      let thumbnail = try decoded(test.library, image.thumbnail)
      #expect((thumbnail.pixels.width, thumbnail.pixels.height) == (30, 20), "\(name)")
      let rendition = try decoded(test.library, try test.library.displayRendition(of: image.sha256))
      #expect((rendition.pixels.width, rendition.pixels.height) == (120, 80), "\(name)")
      for pixels in [thumbnail.pixels, rendition.pixels] {
        // The quadrant centres, and the corners, where a frame or a turn would show.
        let (right, bottom) = (pixels.width - 2, pixels.height - 2)
        let points = [(right / 4, bottom / 4), (1, 1), (right, 1), (1, bottom), (right, bottom)]
        let expected: [[UInt8]] = [[255, 0, 0], [255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0]]
        for (point, colour) in zip(points, expected) {
          let found = Array(pixels[point.0, point.1].prefix(3))
          let near = zip(found, colour).allSatisfy { abs(Int($0) - Int($1)) <= 24 }
          #expect(near, "\(name) \(pixels.width)×\(pixels.height) at \(point): \(found), expected \(colour)")
        }
      }
    }
    #expect(try test.library.check().isHealthy)
  }

  /// A PNG with alpha, and a lossless WebP transparent through its palette whose headers say
  /// nothing of alpha (the pixels tell): PNG thumbnails and renditions, with their alpha.
  @Test(arguments: ["rgba-8.png", "webp-lossless-palette-alpha-vp8x-no-flag.webp"])
  func transparentPicturesArePNG(name: String) throws {
    let (test, review) = try libraryWithPictures([name])
    let image = review.images[0].image
    #expect(image.thumbnailFormat == .png && image.thumbnail.hasSuffix(".png"))
    #expect(try decoded(test.library, image.thumbnail).pixels.hasTransparency)
    let path = try test.library.displayRendition(of: image.sha256)
    #expect(path.hasSuffix("-1600-fit-q85-progressive.png"))
    #expect(try decoded(test.library, path).pixels.hasTransparency)
    #expect(try test.library.check().isHealthy)
  }

  @Test func largePicturesShrinkToTheDisplaySizeAndSmallOnesAreNeverEnlarged() throws {
    let folder = TemporaryFolder()
    // Grey, with a band of colour a tenth of the way down.
    var pixels = [UInt8](repeating: 128, count: 2400 * 1000 * 3)
    for index in stride(from: 2400 * 3 * 100, to: 2400 * 3 * 200, by: 3) { pixels[index] = 250 }
    let large = folder.file("wide.jpg")
    try Data(
      try ImagePipeline.encodeJPEG(PixelBuffer(width: 2400, height: 1000, channels: 3, pixels: pixels), quality: 90)
    ).write(to: URL(fileURLWithPath: large))
    let test = try TestLibrary()
    let review = try test.library.create(draft())
    let report = try test.library.attach(files: [large, Fixture.image("baseline.jpg")], to: review.id)
    let wide = try decoded(test.library, try test.library.displayRendition(of: report.attached[0].image.sha256))
    #expect(wide.header.width == 1600 && wide.header.height == 667)
    let small = try decoded(test.library, try test.library.displayRendition(of: report.attached[1].image.sha256))
    #expect(small.header.width == 120 && small.header.height == 80)
    #expect(try test.library.check().isHealthy)
  }

  @Test func anUnknownPictureIsAnErrorAndWritesNothing() throws {
    let (test, _) = try libraryWithPictures(["baseline.jpg"])
    let before = try snapshot(test.path + "/thumbnails")
    let unknown = String(repeating: "ab", count: 32)
    for sha256 in [unknown, "not a digest", "", "../../etc/passwd"] {
      #expect(throws: CatalogueError.imageNotInLibrary(sha256: sha256)) {
        try test.library.displayRendition(of: sha256)
      }
      #expect(throws: CatalogueError.imageNotInLibrary(sha256: sha256)) { try test.library.thumbnailFile(of: sha256) }
      #expect(try test.library.storedImage(sha256: sha256) == nil)
      #expect(test.library.existingDisplayRendition(of: sha256) == nil)
    }
    #expect(try snapshot(test.path + "/thumbnails") == before)
  }

  @Test func aRecordDeletedWhileTheRenditionIsWrittenLeavesNoFile() throws {
    let (test, review) = try libraryWithPictures(["baseline.jpg"])
    let sha256 = review.images[0].image.sha256
    let database = test.library.files.location(of: LibraryLayout.database)
    // Just before the rendition is renamed into place, another command deletes the review
    // and the picture's record (its file cleanup would wait for the lock the rendition holds).
    let store = try #require(test.library.files as? LocalFileStore)
    store.faultHook = { (step, path) throws(CatalogueError) in
      guard step == .rename, path.contains("1600-fit") else { return }
      do throws(DatabaseError) {
        let other = try Database(path: database, create: false)
        try other.setBusyTimeout(milliseconds: 5_000)
        // Prepared as every catalogue connection is: its triggers keep the search index.
        try SearchIndex.prepare(other)
        try other.execute(Schema.connectionSQL)
        try other.execute("DELETE FROM review_images; DELETE FROM images; DELETE FROM reviews")
      } catch {
        throw CatalogueError(error)
      }
    }
    #expect(throws: CatalogueError.imageNotInLibrary(sha256: sha256)) {
      try test.library.displayRendition(of: sha256)
    }
    store.faultHook = nil
    // Nothing of the picture is left: not the rendition, nor the files the delete released.
    #expect(try test.library.files.files(under: "thumbnails").isEmpty)
    #expect(try test.library.files.files(under: "originals").isEmpty)
    #expect(try test.library.check().isHealthy)
  }

  @Test func twoAskingAtOnceBothSucceed() throws {
    let (test, review) = try libraryWithPictures(["large-1600x1200.jpg"])
    let sha256 = review.images[0].image.sha256
    let path = test.path
    let results = LockedResults()
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      do {
        results.append(try Library(opening: path).displayRendition(of: sha256))
      } catch {
        results.append("error: \(error)")
      }
    }
    let expected = "thumbnails/\(sha256.prefix(2))/\(sha256)-1600-fit-q85-progressive.jpg"
    #expect(results.values == Array(repeating: expected, count: 4))
    #expect(try test.library.check().isHealthy)
    // The thumbnail at 1× and 2×, and the one rendition asked for.
    #expect(try test.library.files.files(under: "thumbnails").count == 3)
  }

  @Test func aMissingThumbnailIsMadeAgainOnRequest() throws {
    let (test, review) = try libraryWithPictures(["rgba-8.png"])
    let image = review.images[0].image
    #expect(try test.library.thumbnailFile(of: image.sha256) == image.thumbnail)
    let first = try inode(test.library, image.thumbnail)
    #expect(try test.library.thumbnailFile(of: image.sha256) == image.thumbnail)
    #expect(try inode(test.library, image.thumbnail) == first)
    try test.library.files.remove(image.thumbnail)
    #expect(try test.library.thumbnailFile(of: image.sha256) == image.thumbnail)
    let remade = try decoded(test.library, image.thumbnail)
    #expect(remade.header.format == .png && remade.header.width == image.thumbnailWidth)
    #expect(try test.library.check().isHealthy)
    #expect(try test.library.storedImage(sha256: image.sha256) == image)
  }
}

@Suite("Display renditions in check, repair and cleanup")
struct RenditionCheckTests {
  @Test func aDamagedRenditionIsFoundAndRepairDeletesIt() throws {
    let (test, review) = try libraryWithPictures(["baseline.jpg"])
    let library = test.library
    let sha256 = review.images[0].image.sha256
    let path = try library.displayRendition(of: sha256)
    try library.files.write(Array("not a picture".utf8), to: path)
    let report = try library.check()
    #expect(report.findings.map(\.kind) == [.renditionUndecodable])
    #expect(report.findings.first?.target == path && report.findings.first?.repairable == true)
    let repair = try library.repair(report)
    #expect(repair.actions.map(\.action) == ["deleted \(path) (it is made again when a page shows the picture)"])
    #expect(library.existingDisplayRendition(of: sha256) == nil)
    #expect(try library.check().isHealthy)
    // It is made again on the next request.
    #expect(try library.displayRendition(of: sha256) == path)
    #expect(try library.check().isHealthy)
  }

  @Test func aStaleRenditionIsFoundAndRepairDeletesIt() throws {
    let (test, review) = try libraryWithPictures(["large-1600x1200.jpg"])
    let library = test.library
    let image = review.images[0].image
    // The list thumbnail (256 px) under the rendition's name: it decodes, at the wrong size.
    let path = LibraryLayout.thumbnail(sha256: image.sha256, spec: Library.displaySpec.name, fileExtension: "jpg")
    try library.files.write(try library.files.read(image.thumbnail), to: path)
    let report = try library.check()
    #expect(report.findings.map(\.kind) == [.staleRendition])
    #expect(
      report.findings.first?.problem
        == "the display rendition is 256×192 JPEG; the spec 1600-fit-q85-progressive gives 1600×1200")
    let dry = try library.repair(report, dryRun: true)
    #expect(dry.actions.count == 1 && library.files.size(of: path) != nil)
    _ = try library.repair(report)
    #expect(library.files.size(of: path) == nil)
    #expect(try library.check().isHealthy)
  }

  @Test func aRenditionOfAPictureWithoutARecordIsUnreferenced() throws {
    let (test, _) = try libraryWithPictures(["baseline.jpg"])
    let stray = LibraryLayout.thumbnail(
      sha256: String(repeating: "cd", count: 32), spec: Library.displaySpec.name, fileExtension: "jpg")
    try test.library.files.write(try Fixture.bytes(Fixture.image("baseline.jpg")), to: stray)
    let report = try test.library.check()
    #expect(report.findings.map(\.kind) == [.unreferencedFile])
    #expect(report.findings.first?.target == stray)
    _ = try test.library.repair(report)
    #expect(test.library.files.size(of: stray) == nil)
    #expect(try test.library.check().isHealthy)
  }

  @Test func aThumbnailRebuildLeavesRenditionsAlone() throws {
    let (test, review) = try libraryWithPictures(["baseline.jpg", "rgba-8.png"])
    let paths = try review.images.flatMap { item in
      try [false, true].map { try test.library.displayRendition(of: item.image.sha256, highDensity: $0) }
    }
    let inodes = try paths.map { try inode(test.library, $0) }
    let rebuilt = try test.library.rebuildThumbnails(spec: ThumbnailSpec(longestEdge: 128, mode: .square))
    // The old spec's 1× and 2× thumbnails of both pictures; no rendition.
    #expect(rebuilt.rebuilt == 2 && rebuilt.removed == 4)
    #expect(try paths.map { try inode(test.library, $0) } == inodes)
    #expect(try test.library.check().isHealthy)
    _ = try test.library.removeUnreferencedFiles()
    #expect(try paths.map { try inode(test.library, $0) } == inodes)
  }

  @Test func removingAPictureRemovesItsRenditions() throws {
    let (test, review) = try libraryWithPictures(["baseline.jpg", "rgba-8.png", "progressive.jpg"])
    let library = test.library
    let paths = try review.images.map { try library.displayRendition(of: $0.image.sha256) }
    // Detached, replaced, or its review deleted: the picture's files go, its rendition too.
    _ = try library.detach(review.id, image: "1")
    #expect(library.files.size(of: paths[0]) == nil && library.files.size(of: paths[1]) != nil)
    _ = try library.replace(review.id, image: "1", with: Fixture.image("grayscale.jpg"))
    #expect(library.files.size(of: paths[1]) == nil)
    _ = try library.delete(review.id)
    #expect(library.files.size(of: paths[2]) == nil)
    #expect(try library.files.files(under: "thumbnails").isEmpty)
    #expect(try library.check().isHealthy)
  }

  @Test func aRenditionOfAPictureStillInUseStays() throws {
    let test = try TestLibrary()
    let first = try test.library.create(draft("First"))
    let second = try test.library.create(draft("Second"))
    let file = Fixture.image("baseline.jpg")
    let sha256 = try test.library.attach(files: [file], to: first.id).attached[0].image.sha256
    _ = try test.library.attach(files: [file], to: second.id)
    let path = try test.library.displayRendition(of: sha256)
    _ = try test.library.delete(first.id)
    #expect(test.library.files.size(of: path) != nil)
    #expect(try test.library.check().isHealthy)
  }
}

@Suite("The store's names")
struct StoreNameTests {
  @Test(arguments: ImageFormat.allCases.filter(\.isSupported))
  func anOriginalOfEverySupportedFormatHasAStoreName(format: ImageFormat) {
    let sha256 = String(repeating: "ab", count: 32)
    #expect(Library.isStoreName(LibraryLayout.original(sha256: sha256, fileExtension: format.fileExtension)))
    #expect(!Library.isStoreName("originals/ab/\(sha256).gif"))
    #expect(!Library.isStoreName("originals/cd/\(sha256).jpg"))
  }

  @Test(arguments: ["webp-lossy.webp", "heic-8bit.heic", "avif-8bit.avif"])
  func aLeftOverOriginalIsUnreferencedNotUnknown(name: String) throws {
    // An original whose record went (a crash between a commit and its cleanup) is the store's
    // own file, whatever its format: named as such, and moved to lost+found by repair.
    let test = try TestLibrary()
    let bytes = try Fixture.bytes(Fixture.image(name))
    let sha256 = SHA256.hex(bytes)
    let format = try ImagePipeline.readHeader(bytes).format
    let path = LibraryLayout.original(sha256: sha256, fileExtension: format.fileExtension)
    try test.library.files.write(bytes, to: path)
    let report = try test.library.check()
    #expect(report.findings.map(\.kind) == [.unreferencedFile])
    #expect(report.findings.first?.target == path)
    #expect(report.findings.first?.remedy == "repair moves it to lost+found")
  }
}

/// Strings appended from several threads.
final class LockedResults: @unchecked Sendable {
  private let lock = NSLock()
  private var items: [String] = []
  func append(_ item: String) { lock.withLock { items.append(item) } }
  var values: [String] { lock.withLock { items } }
}
