import Foundation
import Testing
import TestSupport

/// File names as users have them: bytes that are not UTF-8 (Latin-1 names from old disks and
/// archives), and names with a newline, an escape or a right-to-left override in them. Every
/// one attaches, from a folder or named directly; messages show them written out.
@Suite("Every file name a user has")
struct FileNameTests {
  /// Runs `script` with `sh`, `$catalogue` naming the built executable with this test's
  /// library: the only way to hand the executable words that are not UTF-8.
  func shell(_ cli: CLI, _ script: String) throws -> CLI.Result {
    try cli.run(
      ["-c", script], environment: ["catalogue": CLI.executable, "CATALOGUE_LIBRARY": cli.library],
      executable: "/bin/sh")
  }

  /// Copies the fixture `source` to a file in `folder` whose name is `name`, given as a
  /// `printf` format (`caf\\351.jpg` is Latin-1 "café.jpg").
  func place(_ cli: CLI, _ source: String, in folder: String, as name: String) throws {
    let made = try shell(cli, "mkdir -p '\(folder)' && cp '\(source)' '\(folder)'/\"$(printf '\(name)')\"")
    try #require(made.status == 0, "\(made.error)")
  }

  /// Each name as `printf` writes it, as a message shows it, and a picture of its own.
  static let names = [
    ("caf\\351.jpg", "caf\\xE9.jpg", "baseline.jpg"),  // Latin-1
    ("new\\nline.jpg", "new\\nline.jpg", "progressive.jpg"),
    ("\\033[31mred.jpg", "\\x1B[31mred.jpg", "grayscale.jpg"),
    ("\\342\\200\\256gpj.exe.jpg", "\\u{202E}gpj.exe.jpg", "orientation-6.jpg"),  // RIGHT-TO-LEFT OVERRIDE
    ("\\357\\236\\200private.jpg", "\\xEF\\x9E\\x80private.jpg", "restart-markers.jpg"),  // U+F780
  ]

  @Test func namesThatAreNotUTF8AttachFromAFolder() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let photos = cli.folder.file("Photos")
    for (name, _, picture) in Self.names { try place(cli, Fixture.image(picture), in: photos, as: name) }
    try place(cli, Fixture.image("rgb-8.png"), in: photos, as: "ok.png")
    let attached = try cli("attach", id, photos, "--json")
    #expect(attached.status == 0, "\(attached.error)")
    #expect(attached.error.isEmpty)
    let report = try cli.json(attached)
    #expect((report["attached"] as? [Any])?.count == Self.names.count + 1)
    #expect((report["skipped"] as? [Any])?.isEmpty == true)
    #expect(try cli("check").status == 0)
  }

  @Test func aNameThatIsNotUTF8AttachesWhenNamedAndAsCover() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let photos = cli.folder.file("Photos")
    try place(cli, Fixture.image("rgb-8.png"), in: photos, as: "first.png")
    try place(cli, Fixture.image("baseline.jpg"), in: photos, as: "caf\\351.jpg")
    let attached = try shell(
      cli,
      "\"$catalogue\" attach \(id) Photos/first.png \"Photos/$(printf 'caf\\351.jpg')\" --cover \"./Photos/$(printf 'caf\\351.jpg')\""
    )
    #expect(attached.status == 0, "\(attached.error)")
    let shown = try cli("show", id, "--json")
    let images = try #require(try cli.json(shown)["images"] as? [[String: Any]])
    #expect(images.count == 2)
    // The second picture, named in Latin-1, is the cover.
    #expect(images.map { $0["cover"] as? Bool } == [false, true])
    // Kept byte for byte.
    let kept = try #require(images[1]["original"] as? String)
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: cli.library + "/" + kept))
        == Data(contentsOf: URL(fileURLWithPath: Fixture.image("baseline.jpg"))))
  }

  @Test func messagesShowNamesWrittenOut() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let photos = cli.folder.file("Photos")
    for (name, _, _) in Self.names { try place(cli, Fixture.hostile("truncated-baseline.jpg"), in: photos, as: name) }
    // The lock file an import takes is made once, with the library's first import.
    try #require(try cli("attach", id, Fixture.image("rgb-8.png")).status == 0)
    let before = try fileSnapshot(cli.library)
    let refused = try cli("attach", id, photos)
    #expect(refused.status == 1)
    for (_, shown, _) in Self.names {
      #expect(
        refused.error.contains(
          "error: \(photos)/\(shown): truncated JPEG: the file ends before its image data does"))
    }
    // Nothing a terminal would act on, and one line per refused picture.
    #expect(!refused.error.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" })
    #expect(!refused.error.unicodeScalars.contains { (0xF780...0xF7FF).contains($0.value) })
    #expect(refused.error.split(separator: "\n").count == Self.names.count)
    #expect(try fileSnapshot(cli.library) == before)
  }
}
