@testable import Catalogue
import Foundation
import ImagePipeline
import Testing
import TestSupport

/// A JPEG of one colour, `width` × `height`, made in code.
func plainJPEG(_ colour: [UInt8], width: Int = 1600, height: Int = 900) throws -> [UInt8] {
  let pixels = PixelBuffer(
    width: width, height: height, channels: 3, pixels: [UInt8]((0..<width * height).flatMap { _ in colour }))
  return try ImagePipeline.encodeJPEG(pixels, quality: 95, fullChroma: true)
}

/// The words tesseract reads on a card: its near-white text (title and category) made black
/// on white first, so that no cover or scrim confuses the reading. install-packages installs
/// tesseract: a machine without it fails here rather than passing unread.
func readBack(_ card: ShareCard.Drawn) throws -> String {
  let tesseract = "/usr/bin/tesseract"
  try #require(FileManager.default.isExecutableFile(atPath: tesseract), "tesseract-ocr is not installed")
  var binary = [UInt8](repeating: 255, count: card.pixels.pixels.count)
  for index in stride(from: 0, to: binary.count, by: 3) {
    let pixel = card.pixels.pixels[index..<index + 3]
    if pixel.min()! > 170 && pixel.max()! - pixel.min()! < 40 {
      binary[index] = 0
      binary[index + 1] = 0
      binary[index + 2] = 0
    }
  }
  let folder = TemporaryFolder()
  let file = folder.file("card.png")
  try Data(
    ImagePipeline.encodePNG(
      PixelBuffer(width: card.pixels.width, height: card.pixels.height, channels: 3, pixels: binary))
  )
  .write(to: URL(fileURLWithPath: file))
  let process = Process()
  process.executableURL = URL(fileURLWithPath: tesseract)
  process.arguments = [file, "stdout"]
  let output = Pipe()
  process.standardOutput = output
  process.standardError = FileHandle.nullDevice
  try process.run()
  let text = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  try #require(process.terminationStatus == 0, "tesseract failed")
  return String(decoding: text, as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
}

/// Where the title is drawn: above the stars, inside the margins.
let titleArea = (x: 60..<1140, y: 280..<520)

/// The part of the title area that differs between two cards, as a count of pixels.
func titlePixelsDiffering(_ a: ShareCard.Drawn, _ b: ShareCard.Drawn) -> Int {
  var count = 0
  for y in titleArea.y {
    for x in titleArea.x where a.pixels[x, y] != b.pixels[x, y] { count += 1 }
  }
  return count
}

/// The leftmost and rightmost columns of the title's light pixels.
func titleExtent(_ card: ShareCard.Drawn) -> ClosedRange<Int>? {
  var columns: [Int] = []
  for y in titleArea.y {
    for x in titleArea.x where card.pixels[x, y].min()! > 170 { columns.append(x) }
  }
  guard let low = columns.min(), let high = columns.max() else { return nil }
  return low...high
}

@Suite("Share cards")
struct CardTests {
  static let blue: [UInt8] = [40, 110, 200]

  func content(_ title: String, cover: String? = nil) -> ShareCard.Content {
    ShareCard.Content(title: title, rating: 4, category: "Movie", cover: cover)
  }

  @Test func theCoverFillsTheCardAndDarkensTowardsTheBottom() throws {
    let card = try ShareCard.draw(content("Arrival", cover: "x"), cover: try plainJPEG(Self.blue))
    #expect(card.pixels.width == 1200 && card.pixels.height == 630)
    let header = try ImagePipeline.readHeader(card.bytes)
    #expect(header.format == .jpeg && header.width == 1200 && header.height == 630)
    #expect(header.chromaSubsampled)
    // Between the scrim's top and bottom the cover shows as it is, to the corner.
    let middle = card.pixels[1190, 180]
    for (got, wanted) in zip(middle, Self.blue) { #expect(abs(Int(got) - Int(wanted)) <= 6, "\(middle)") }
    // Darker at the bottom (no text at the right), a little darker at the top.
    let bottom = card.pixels[1190, 625]
    let top = card.pixels[1190, 5]
    #expect(bottom[2] < middle[2] / 4, "\(bottom) against \(middle)")
    #expect(top[2] < middle[2] && top[2] > bottom[2], "\(top)")
  }

  @Test func aPortraitCoverIsCroppedAtTheCentre() throws {
    // Red at the top and bottom quarters, green between: the card shows the green middle.
    let width = 600
    let height = 1200
    var pixels: [UInt8] = []
    for y in 0..<height {
      let colour: [UInt8] = (height / 4..<height * 3 / 4).contains(y) ? [20, 200, 40] : [220, 20, 20]
      for _ in 0..<width { pixels += colour }
    }
    let cover = try ImagePipeline.encodeJPEG(
      PixelBuffer(width: width, height: height, channels: 3, pixels: pixels), quality: 95, fullChroma: true)
    let card = try ShareCard.draw(content("Tall"), cover: cover)
    let middle = card.pixels[1190, 180]
    #expect(middle[1] > 150 && middle[0] < 60, "\(middle)")
  }

  @Test func theTitleIsReadBackFromTheCard() throws {
    let card = try ShareCard.draw(content("The Grand Budapest Hotel", cover: "x"), cover: try plainJPEG(Self.blue))
    #expect(card.titleLines == 1 && !card.titleEllipsized && card.missingGlyphs == 0)
    let text = try readBack(card)
    #expect(text.contains("The Grand Budapest Hotel"), "\(text)")
    #expect(text.contains("Movie"), "\(text)")
  }

  @Test func aLongTitleWrapsToThreeLinesAndEndsInAnEllipsis() throws {
    let title =
      "A very long title that goes on about the many adventures of a small hobbit who leaves home "
      + "for an unexpected journey across the misty mountains and the lonely dragon's lair"
    let card = try ShareCard.draw(content(title), cover: nil)
    #expect(card.titleLines == 3)
    #expect(card.titleEllipsized)
    let text = try readBack(card)
    #expect(text.contains("A very long title"), "\(text)")
    #expect(!text.contains("lair"), "\(text)")
  }

  @Test func withoutAPictureTheCardIsInTheSitesColours() throws {
    let card = try ShareCard.draw(content("No Picture Here"), cover: nil)
    #expect(card.pixels[1190, 10] == [0x10, 0x14, 0x12])
    #expect(card.pixels[1190, 620] == [0x10, 0x14, 0x12])
    // The accent down the leading edge.
    #expect(card.pixels[4, 300] == [0x00, 0xff, 0x7f])
    #expect(try readBack(card).contains("No Picture Here"))
  }

  @Test(arguments: [
    ("שלום עולם", true), ("فيلم جميل جدا", true), ("千と千尋の神隠し", false), ("霸王别姬", false),
    ("Popcorn 🍿🎬", false),
  ])
  func titlesInEveryScriptAreDrawnWithRealGlyphs(title: String, rightToLeft: Bool) throws {
    let card = try ShareCard.draw(content(title), cover: nil)
    let empty = try ShareCard.draw(content(""), cover: nil)
    #expect(card.missingGlyphs == 0)
    #expect(card.rightToLeft == rightToLeft)
    #expect(titlePixelsDiffering(card, empty) > 2000)
    let extent = try #require(titleExtent(card))
    // Right to left runs from the right margin; the rest from the left.
    if rightToLeft {
      #expect(extent.upperBound > 1100 && extent.lowerBound > 500, "\(extent)")
    } else {
      #expect(extent.lowerBound < 100, "\(extent)")
    }
  }

  @Test func twoChineseTitlesAreNotTheSameBoxes() throws {
    let one = try ShareCard.draw(content("霸王别姬"), cover: nil)
    let other = try ShareCard.draw(content("活着一生"), cover: nil)
    #expect(titlePixelsDiffering(one, other) > 1000)
    // A character no font has is counted, and is drawn as a box: what the others are not.
    let missing = try ShareCard.draw(content("\u{10FFFD}\u{10FFFC}"), cover: nil)
    #expect(missing.missingGlyphs == 2)
  }

  @Test func emojiAreDrawnInColour() throws {
    let card = try ShareCard.draw(content("🍿🍓🍿🍓"), cover: nil)
    let plain = try ShareCard.draw(content("Popcorn"), cover: nil)
    func colourful(_ card: ShareCard.Drawn) -> Int {
      var count = 0
      for y in titleArea.y {
        for x in titleArea.x {
          let pixel = card.pixels[x, y]
          if Int(pixel.max()!) - Int(pixel.min()!) > 120 { count += 1 }
        }
      }
      return count
    }
    #expect(colourful(plain) == 0)
    #expect(colourful(card) > 1000)
  }

  @Test func theSameContentGivesTheSameBytes() throws {
    let cover = try plainJPEG(Self.blue)
    let one = try ShareCard.draw(content("Arrival", cover: "x"), cover: cover)
    let two = try ShareCard.draw(content("Arrival", cover: "x"), cover: cover)
    #expect(one.bytes == two.bytes)
  }

  @Test func theNameChangesWithWhatIsDrawnAndNothingElse() throws {
    let base = ShareCard.Content(title: "Arrival", rating: 4, category: "Movie", cover: nil)
    var names = Set([ShareCard.key(for: base)])
    for changed in [
      ShareCard.Content(title: "Arrival!", rating: 4, category: "Movie", cover: nil),
      ShareCard.Content(title: "Arrival", rating: 5, category: "Movie", cover: nil),
      ShareCard.Content(title: "Arrival", rating: 4, category: "Book", cover: nil),
      ShareCard.Content(title: "Arrival", rating: 4, category: "Movie", cover: String(repeating: "a", count: 64)),
    ] {
      names.insert(ShareCard.key(for: changed))
    }
    #expect(names.count == 5)
    // The body, the favourite mark and the times are not on the card.
    let test = try TestLibrary()
    let review = try test.library.create(draft("Arrival", body: "First words."))
    let edited = try test.library.update(review.id, changes: ReviewChanges(body: "Other words.", favorite: true))
    #expect(ShareCard.name(for: edited) == ShareCard.name(for: review))
    let key = ShareCard.key(for: review)
    #expect(ShareCard.name(for: review) == "cards/\(key.prefix(2))/\(key).jpg")
    let retitled = try test.library.update(review.id, changes: ReviewChanges(title: "Arrival (2016)"))
    #expect(ShareCard.name(for: retitled) != ShareCard.name(for: review))
  }
}

@Suite("Share cards in a library")
struct LibraryCardTests {
  @Test func madeOnceFromTheCoverAndKept() throws {
    let (test, review) = try libraryWithPictures(["baseline.jpg"])
    let library = test.library
    let path = try library.shareCard(for: review)
    #expect(path == ShareCard.name(for: review))
    let first = try inode(library, path)
    #expect(try library.shareCard(for: review) == path)
    #expect(try inode(library, path) == first)
    let card = try decoded(library, path)
    #expect(card.header.width == 1200 && card.header.height == 630)
    // The fixture's red top-left quarter, through the scrim's clear band.
    let red = card.pixels[300, 190]
    #expect(red[0] > 180 && red[1] < 70 && red[2] < 70, "\(red)")
    let report = try library.check()
    #expect(report.isHealthy, "\(report.findings)")
    #expect(try library.unreferencedFiles().isEmpty)
  }

  @Test func aChangedReviewGetsANewCardAndTheOldOneIsSwept() throws {
    let test = try TestLibrary()
    let library = test.library
    let review = try library.create(draft("Arrival"))
    let old = try library.shareCard(for: review)
    let edited = try library.update(review.id, changes: ReviewChanges(rating: 2))
    let new = try library.shareCard(for: edited)
    #expect(new != old)
    #expect(try library.unreferencedFiles() == [old])
    let report = try library.check()
    #expect(report.findings.map(\.kind) == [.unreferencedFile])
    #expect(report.findings.first?.target == old)
    let outcome = try library.checkAndRepair(repair: true)
    #expect(outcome.isHealthy)
    #expect(library.files.size(of: old) == nil)
    #expect(library.files.size(of: new) != nil)
  }

  @Test func checkNamesABadCardAndRepairDeletesIt() throws {
    let test = try TestLibrary()
    let library = test.library
    let review = try library.create(draft("Arrival"))
    let other = try library.create(draft("Solaris"))
    let broken = try library.shareCard(for: review)
    let small = try library.shareCard(for: other)
    let bytes = try library.files.read(broken)
    try library.files.write(Array(bytes.prefix(bytes.count / 3)), to: broken)
    try library.files.write(try plainJPEG([1, 2, 3], width: 64, height: 64), to: small)
    let report = try library.check()
    #expect(Set(report.findings.map(\.kind)) == [.shareCardUndecodable, .shareCardWrongSize])
    #expect(report.findings.allSatisfy { $0.repairable })
    #expect(report.findings.first { $0.kind == .shareCardWrongSize }?.target == small)
    let outcome = try library.checkAndRepair(repair: true)
    #expect(outcome.isHealthy)
    #expect(library.files.size(of: broken) == nil && library.files.size(of: small) == nil)
    // Made again when asked for.
    #expect(try library.shareCard(for: review) == broken)
    #expect(try library.check().isHealthy)
  }

  @Test func aDerivedCardIsTheSameCardKeptNowhere() throws {
    let (test, review) = try libraryWithPictures(["baseline.jpg"])
    let library = test.library
    let made = try library.derivedShareCard(for: review)
    #expect(try library.files.files(under: LibraryLayout.cards).isEmpty)
    let path = try library.shareCard(for: review)
    #expect(try library.files.read(path) == made)
    #expect(try library.derivedShareCard(for: review) == made)
  }

  @Test func aLargeCoverIsDrawnFromItsDisplayRenditionTheSameWayEveryTime() throws {
    let test = try TestLibrary()
    let library = test.library
    let file = test.folder.file("large.jpg")
    try Data(try plainJPEG([200, 120, 40], width: 2400, height: 1350)).write(to: URL(fileURLWithPath: file))
    let review = try library.create(draft("Large"), attaching: [file])
    let sha256 = try #require(review.cover?.image.sha256)
    // Drawn without keeping anything: the rendition is made in memory.
    let derived = try library.derivedShareCard(for: review)
    #expect(library.existingDisplayRendition(of: sha256) == nil)
    // Kept: the rendition is made and kept too, and the card is the same.
    let path = try library.shareCard(for: review)
    #expect(library.existingDisplayRendition(of: sha256) != nil)
    #expect(try library.files.read(path) == derived)
    let card = try decoded(library, path)
    let colour = card.pixels[1190, 180]
    #expect(abs(Int(colour[0]) - 200) < 8 && abs(Int(colour[2]) - 40) < 8, "\(colour)")
    #expect(try library.check().isHealthy)
  }

  @Test func aCardForAReviewThatWentIsNotKept() throws {
    let test = try TestLibrary()
    let library = test.library
    let review = try library.create(draft("Gone"))
    _ = try library.delete(review.id)
    #expect(throws: CatalogueError.reviewNotFound(review.id)) { try library.shareCard(for: review) }
    #expect(try library.files.files(under: LibraryLayout.cards).isEmpty)
  }
}
