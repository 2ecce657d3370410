import Foundation
import ImagePipeline
import Testing
import TestSupport

/// What a user sees of colour management: the colour space in `show` and `--json`, thumbnails
/// on disk in sRGB, and libraries made before it brought up to date by `check --repair`.
@Suite("Colour spaces in the library")
struct ColourCommandTests {
  /// The sRGB value LittleCMS gives for colour-p3.jpg's patch (Fixtures/images/colour-expected.txt).
  static let p3InSRGB = [239.41, 35.22, 17.18]

  /// The centre pixel of the thumbnail file that `show --json` names for the first image.
  func thumbnailCentre(_ cli: CLI, _ id: String) throws -> [Int] {
    let json = try cli.json(try cli("show", id, "--json"))
    let images = try #require(json["images"] as? [[String: Any]])
    let relative = try #require(images.first?["thumbnail"] as? String)
    let decoded = try ImagePipeline.decode(try Fixture.bytes(cli.library + "/" + relative), convertingToSRGB: false)
    return decoded.pixels[decoded.pixels.width / 2, decoded.pixels.height / 2].prefix(3).map(Int.init)
  }

  func isP3InSRGB(_ pixel: [Int]) -> Bool {
    zip(pixel, Self.p3InSRGB).allSatisfy { abs(Double($0) - $1) <= 3 }
  }

  @Test func aDisplayP3PictureIsNamedAndItsThumbnailIsSRGB() throws {
    let cli = CLI()
    let id = try cli.withReview()
    try #require(try cli("attach", id, Fixture.image("colour-p3.jpg")).status == 0)
    let show = try cli("show", id)
    #expect(show.output.contains(" 64×64 JPEG Display P3 9 KB  originals/"), "\(show.output)")
    let json = try cli.json(try cli("show", id, "--json"))
    let images = try #require(json["images"] as? [[String: Any]])
    #expect(images.first?["colorSpace"] as? String == "Display P3")
    let pixel = try thumbnailCentre(cli, id)
    #expect(isP3InSRGB(pixel), "thumbnail centre \(pixel)")
  }

  @Test func anUntaggedPictureSaysNothingOnTheTerminalAndUntaggedInJSON() throws {
    let cli = CLI()
    let id = try cli.withReview()
    try #require(try cli("attach", id, Fixture.image("baseline.jpg")).status == 0)
    #expect(try cli("show", id).output.contains(" 120×80 JPEG 1 KB  originals/") == true)
    let images = try #require(try cli.json(try cli("show", id, "--json"))["images"] as? [[String: Any]])
    #expect(images.first?["colorSpace"] as? String == "untagged")
  }

  @Test func aPictureRecordedBeforeColourManagementIsFoundAndRepaired() throws {
    // As a library upgraded from schema 1 holds it: no colour space, and a thumbnail made
    // without the profile (the untagged twin's).
    let cli = CLI()
    let id = try cli.withReview()
    try #require(try cli("attach", id, Fixture.image("colour-p3.jpg")).status == 0)
    let json = try cli.json(try cli("show", id, "--json"))
    let image = try #require((json["images"] as? [[String: Any]])?.first)
    let sha = try #require(image["sha256"] as? String)
    let thumbnail = cli.library + "/" + (try #require(image["thumbnail"] as? String))
    let plain = try ImagePipeline.thumbnail(try Fixture.bytes(Fixture.image("colour-p3-untagged.jpg"))).thumbnail
    try Data(plain.bytes).write(to: URL(fileURLWithPath: thumbnail))
    try cli.sqlite("UPDATE images SET color_space = NULL WHERE sha256 = '\(sha)'")
    #expect(try cli.json(try cli("show", id, "--json"))["images"].map { "\($0)" }?.contains("<null>") == true)

    let check = try cli("check")
    #expect(check.status == 1)
    #expect(
      check.output.contains(
        "original-facts-mismatch: \(sha): the record disagrees with the original: colour space Display P3, "
          + "not recorded (imported before colour management) — repair records the original's facts"),
      "\(check.output)")
    #expect(!isP3InSRGB(try thumbnailCentre(cli, id)))

    let repair = try cli("check", "--repair")
    #expect(repair.status == 0, "\(repair.output)\(repair.error)")
    #expect(
      repair.output.contains(
        "repaired: recorded the original's facts: jpeg, 64×64, orientation 1, colour space Display P3; "
          + "made its thumbnail again in colour"), "\(repair.output)")
    #expect(isP3InSRGB(try thumbnailCentre(cli, id)))
    #expect(try cli("check").status == 0)
  }

  @Test func aBrokenProfileStillImportsThePicture() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let result = try cli("attach", id, Fixture.hostile("icc-segment-missing.jpg"))
    #expect(result.status == 0, "\(result.error)")
    let images = try #require(try cli.json(try cli("show", id, "--json"))["images"] as? [[String: Any]])
    #expect(images.first?["colorSpace"] as? String == "untagged")
  }
}

/// What a decoder worked around reaches the user as one warning line, and the picture is taken.
@Suite("Warnings of pictures that were taken")
struct ImportWarningTests {
  @Test func attachAddAndReplaceSayWhatWasWorkedAround() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let animated = Fixture.image("webp-animated.webp")
    let attached = try cli("attach", id, animated)
    #expect(attached.status == 0)
    #expect(attached.error == "warning: \(animated): animated WebP: only the first of 3 frames is shown\n")

    let broken = Fixture.hostile("icc-segment-missing.jpg")
    let replaced = try cli("replace", id, "1", broken)
    #expect(replaced.status == 0)
    #expect(
      replaced.error
        == "warning: \(broken): the embedded ICC profile is unusable (1 of its 2 APP2 segments are missing): "
        + "colours are shown as sRGB\n")

    let added = try cli("add", "--title", "Still", "--rating", "3", "--category", "movie", "--image", animated)
    #expect(added.status == 0)
    #expect(added.error.contains("warning: \(animated): animated WebP"))

    let json = try cli.json(try cli("attach", id, animated, "--json"))
    let warnings = try #require(json["warnings"] as? [[String: String]])
    #expect(warnings == [["file": animated, "warning": "animated WebP: only the first of 3 frames is shown"]])
  }

  @Test func aCleanPictureSaysNothing() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let result = try cli("attach", id, Fixture.image("colour-p3.jpg"))
    #expect(result.status == 0)
    #expect(result.error.isEmpty)
  }
}
