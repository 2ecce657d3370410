import Foundation
import Testing
import TestSupport

@Suite("Image commands")
struct ImageCommandTests {
  @Test func folderImportAttachesTheGoodAndReportsTheBad() throws {
    let cli = CLI()
    let id = try cli.withReview()
    // A photo-library folder: pictures in subfolders, a note, a hidden file, a broken picture.
    let photos = cli.folder.file("Photos")
    try FileManager.default.createDirectory(atPath: photos + "/2024/May", withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Fixture.image("baseline.jpg"), toPath: photos + "/2024/May/b.jpg")
    try FileManager.default.copyItem(atPath: Fixture.image("rgb-8.png"), toPath: photos + "/2024/a.png")
    try FileManager.default.copyItem(atPath: Fixture.hostile("truncated-baseline.jpg"), toPath: photos + "/2024/c.jpg")
    try FileManager.default.copyItem(atPath: Fixture.hostile("heic-truncated.heic"), toPath: photos + "/2024/d.heic")
    try "notes".write(toFile: photos + "/notes.txt", atomically: true, encoding: .utf8)
    try "x".write(toFile: photos + "/.hidden", atomically: true, encoding: .utf8)
    let result = try cli("attach", id, photos)
    #expect(result.status == 1)
    #expect(result.output == "Attached 2 pictures to \(id.prefix(8)) (Arrival); 2 failed\n")
    let errors = result.error.split(separator: "\n").map(String.init)
    #expect(errors.contains("skipped: \(photos)/notes.txt: not a picture"))
    #expect(errors.contains { $0.hasPrefix("error: \(photos)/2024/c.jpg: truncated JPEG") })
    #expect(errors.contains { $0.hasPrefix("error: \(photos)/2024/d.heic: truncated HEIC") })
    #expect(!result.error.contains(".hidden"))
    // In name order: 2024/May/b.jpg sorts after 2024/a.png? "May" < "a" in byte order.
    let show = try cli.json(try cli("show", id, "--json"))
    let images = try #require(show["images"] as? [[String: Any]])
    #expect(images.map { $0["format"] as? String } == ["jpeg", "png"])
  }

  @Test func attachJSONListsFailures() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let result = try cli("attach", id, Fixture.image("baseline.jpg"), Fixture.hostile("empty.jpg"), "--json")
    #expect(result.status == 1)
    let json = try cli.json(result)
    #expect((json["attached"] as? [Any])?.count == 1)
    let failures = try #require(json["failures"] as? [[String: String]])
    #expect(
      failures == [
        [
          "file": Fixture.hostile("empty.jpg"),
          "error": "\(Fixture.hostile("empty.jpg")): empty file: there is nothing to decode",
        ]
      ])
  }

  @Test func replaceDetachCoverMove() throws {
    let cli = CLI()
    let id = try cli.withReview()
    try #require(
      try cli("attach", id, Fixture.image("baseline.jpg"), Fixture.image("progressive.jpg"), Fixture.image("rgb-8.png"))
        .status == 0)
    func images() throws -> [[String: Any]] {
      try #require(try cli.json(try cli("show", id, "--json"))["images"] as? [[String: Any]])
    }
    let before = try images()
    #expect(try cli("cover", id, "3").status == 0)
    #expect(try images().map { $0["cover"] as? Bool } == [false, false, true])
    #expect(try cli("move", id, "3", "1").status == 0)
    #expect(
      try images().map { $0["sha256"] as? String }
        == [before[2]["sha256"], before[0]["sha256"], before[1]["sha256"]].map { $0 as? String })
    let prefix = String((before[0]["sha256"] as! String).prefix(8))
    #expect(try cli("replace", id, prefix, Fixture.image("grayscale.jpg")).status == 0)
    // The new picture, byte for byte, in the old one's place; the old one gone with its file.
    let replaced = try images()
    let grayscale = try BundleCommandTests.sha256(Fixture.image("grayscale.jpg"))
    #expect(
      replaced.map { $0["sha256"] as? String }
        == [before[2], ["sha256": grayscale], before[1]].map { $0["sha256"] as? String })
    let kept = try #require(replaced[1]["original"] as? String)
    #expect(try BundleCommandTests.sha256(cli.library + "/" + kept) == grayscale)
    let old = try #require(before[0]["original"] as? String)
    #expect(!FileManager.default.fileExists(atPath: cli.library + "/" + old))
    #expect(try cli("detach", id, "1").status == 0)
    let after = try images()
    #expect(after.count == 2 && after[0]["cover"] as? Bool == true)
    let missing = try cli("detach", id, "7")
    #expect(missing.status == 1)
    #expect(missing.error.hasPrefix("error: review \(id) has no image 7"))
    let badPosition = try cli("move", id, "1", "zero")
    #expect(badPosition.status == 2)
  }

  @Test func twoProcessesWritingAtOnceLoseNothing() throws {
    let cli = CLI()
    try #require(try cli("init").status == 0)
    let script = """
      for i in 1 2 3 4 5 6 7 8; do
        id=$("$0" --library "$1" add --title "Writer $2 review $i" --rating 3 --category other) || exit 1
        "$0" --library "$1" attach "$id" "$3" > /dev/null || exit 1
      done
      """
    let writers = (0..<2).map { writer -> Process in
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = [
        "-c", script, CLI.executable, cli.library, "\(writer)",
        Fixture.image(writer == 0 ? "baseline.jpg" : "rgb-8.png"),
      ]
      process.standardError = FileHandle.nullDevice
      return process
    }
    for writer in writers { try writer.run() }
    for writer in writers { writer.waitUntilExit() }
    #expect(writers.allSatisfy { $0.terminationStatus == 0 })
    let list = try cli.json(try cli("list", "--limit", "100", "--json"))
    #expect(list["total"] as? Int == 16)
    let reviews = try #require(list["reviews"] as? [[String: Any]])
    #expect(reviews.allSatisfy { $0["imageCount"] as? Int == 1 })
    #expect(Set(reviews.compactMap { $0["title"] as? String }).count == 16)
  }

  @Test func addWithPicturesIsAllOrNothing() throws {
    let cli = CLI()
    let id = try cli.withReview()
    // A picture in the library already, which the refused add also names: it must stay.
    try #require(try cli("attach", id, Fixture.image("grayscale.jpg")).status == 0)
    let before = try HostileImportTests.hashes(cli.library)
    let refused = try cli(
      "add", "--title", "T", "--rating", "3", "--category", "book", "--image", Fixture.image("baseline.jpg"),
      "--image", Fixture.image("grayscale.jpg"), "--image", Fixture.hostile("text.jpg"))
    #expect(refused.status == 1)
    #expect(refused.output.isEmpty)
    #expect(
      refused.error == """
        error: \(Fixture.hostile("text.jpg")): not an image: the data is not JPEG, PNG, WebP, HEIC or AVIF (nor any other known image format)
        error: nothing was added: 1 of 3 pictures could not be used; fix or leave out that file and try again

        """)
    // Byte for byte as before, but for SQLite's shared-memory index and log.
    let unchanged = { (files: [String: Data?]) in files.filter { !$0.key.hasPrefix("catalogue.sqlite-") } }
    #expect(unchanged(try HostileImportTests.hashes(cli.library)) == unchanged(before))
    #expect(try cli("list").output.hasSuffix("1 review\n"))
    let added = try cli(
      "add", "--title", "T", "--rating", "3", "--category", "book", "--image", Fixture.image("baseline.jpg"),
      "--image", Fixture.image("rgb-8.png"), "--json")
    #expect(added.status == 0)
    #expect((try cli.json(added)["images"] as? [Any])?.count == 2)
    #expect(try cli("check").status == 0)
  }
}

/// `attach --cover` names its file the way the pictures are named.
@Suite("attach --cover")
struct AttachCoverTests {
  @Test(arguments: ["Photos/b.jpg", "./Photos/b.jpg", "ABSOLUTE", "Photos/../Photos/b.jpg", "link.jpg"])
  func theCoverIsNamedLikeThePictures(spelling: String) throws {
    let cli = CLI()
    let id = try cli.withReview()
    let photos = cli.folder.file("Photos")
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Fixture.image("rgb-8.png"), toPath: photos + "/a.png")
    try FileManager.default.copyItem(atPath: Fixture.image("baseline.jpg"), toPath: photos + "/b.jpg")
    try FileManager.default.createSymbolicLink(atPath: cli.folder.file("link.jpg"), withDestinationPath: "Photos/b.jpg")
    let cover = spelling == "ABSOLUTE" ? photos + "/b.jpg" : spelling
    let attached = try cli("attach", id, "Photos", "--cover", cover)
    #expect(attached.status == 0, "\(attached.error)")
    let images = try #require(try cli.json(try cli("show", id, "--json"))["images"] as? [[String: Any]])
    #expect(images.map { $0["cover"] as? Bool } == [false, true])
  }

  @Test(arguments: ["Photos/other.jpg", "missing.jpg", "Photos"])
  func aCoverThatIsNoneOfThePicturesIsRefused(cover: String) throws {
    let cli = CLI()
    let id = try cli.withReview()
    let photos = cli.folder.file("Photos")
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Fixture.image("rgb-8.png"), toPath: photos + "/a.png")
    try FileManager.default.copyItem(atPath: Fixture.image("baseline.jpg"), toPath: cli.folder.file("Photos/other.jpg"))
    let before = try fileSnapshot(cli.library)
    let refused = try cli("attach", id, "Photos/a.png", "--cover", cover)
    #expect(refused.status == 2)
    #expect(
      refused.error
        == "error: --cover \(cover) is not one of the pictures being attached: name one of them; "
        + "see `catalogue attach --help`\n")
    #expect(try fileSnapshot(cli.library) == before)
  }
}
