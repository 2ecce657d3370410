import Foundation
import Testing
import TestSupport

/// `attach --alt --caption`, `describe`, what `show` prints of a picture, and `check`'s hint.
@Suite("Describing pictures from the command line")
struct DescribeCommandTests {
  /// The `alt`, `caption` and `name` of each image `show --json` prints.
  static func said(_ cli: CLI, _ id: String) throws -> [[String?]] {
    let images = try #require(try cli.json(try cli("show", id, "--json"))["images"] as? [[String: Any]])
    return images.map { image in ["alt", "caption", "name"].map { image[$0] as? String } }
  }

  @Test func attachDescribesOnePictureAndShowPrintsIt() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let photo = cli.folder.file("Lighthouse at dusk.jpg")
    try FileManager.default.copyItem(atPath: Fixture.image("baseline.jpg"), toPath: photo)
    let attached = try cli(
      "attach", id, photo, "--alt", " A lighthouse at dusk ", "--caption", "Taken from the ferry\nin 1998")
    #expect(attached.status == 0, "\(attached.error)")
    #expect(
      try Self.said(cli, id) == [["A lighthouse at dusk", "Taken from the ferry\nin 1998", "Lighthouse at dusk.jpg"]])
    let shown = try cli("show", id)
    #expect(
      shown.output.hasSuffix(
        """
        originals/\(try Self.hash(cli, id).prefix(2))/\(try Self.hash(cli, id)).jpg
             name: Lighthouse at dusk.jpg
             description: A lighthouse at dusk
             caption: Taken from the ferry
                      in 1998

        """), "\(shown.output)")
    // Without them, `null`, and nothing printed.
    _ = try cli("attach", id, Fixture.image("rgb-8.png"))
    #expect(try Self.said(cli, id)[1] == [nil, nil, "rgb-8.png"])
    let json = try cli("show", id, "--json").output
    #expect(json.contains(#""alt" : null"#) && json.contains(#""caption" : null"#))
  }

  static func hash(_ cli: CLI, _ id: String) throws -> String {
    let images = try #require(try cli.json(try cli("show", id, "--json"))["images"] as? [[String: Any]])
    return try #require(images.first?["sha256"] as? String)
  }

  @Test func aDescriptionForSeveralPicturesIsACommandLineMistake() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let before = try fileSnapshot(cli.library)
    let refused = try cli(
      "attach", id, Fixture.image("baseline.jpg"), Fixture.image("rgb-8.png"), "--alt", "Both", "--caption", "Both")
    #expect(refused.status == 2)
    #expect(
      refused.error
        == "error: --alt and --caption describe one picture, and 2 were given: attach them one at a time, "
        + "or describe each after with `catalogue describe REVIEW IMAGE`; see `catalogue attach --help`\n")
    #expect(refused.output.isEmpty)
    #expect(try fileSnapshot(cli.library) == before)
  }

  @Test func describeSetsClearsAndRefusesWithTheRightStatus() throws {
    let cli = CLI()
    let id = try cli.withReview()
    _ = try cli("attach", id, Fixture.image("baseline.jpg"), Fixture.image("rgb-8.png"))
    let described = try cli("describe", id, "2", "--alt", "A red square", "--caption", "Painted in 1915")
    #expect(described.status == 0, "\(described.error)")
    #expect(
      described.output
        == "Described image 2 of \(id.prefix(8)) (Arrival)\n  description: A red square\n  caption: Painted in 1915\n")
    #expect(try Self.said(cli, id)[1] == ["A red square", "Painted in 1915", "rgb-8.png"])
    #expect(try cli("describe", id, "2", "--caption", "").status == 0)
    #expect(try Self.said(cli, id)[1] == ["A red square", nil, "rgb-8.png"])
    let cleared = try cli("describe", id, "2", "--clear")
    #expect(cleared.output == "Described image 2 of \(id.prefix(8)) (Arrival)\n  no description, no caption\n")
    #expect(try Self.said(cli, id)[1] == [nil, nil, "rgb-8.png"])

    let before = try fileSnapshot(cli.library)
    let long = try cli("describe", id, "1", "--alt", String(repeating: "a", count: 1_001))
    #expect(long.status == 2)
    #expect(
      long.error
        == "error: invalid text for picture 1 of review \(id): the description is 1001 characters long, over 1000 "
        + "(a description holds up to 1000 characters on one line, a caption up to 2000); nothing was changed\n")
    let escape = try cli("describe", id, "1", "--alt", "Red \u{1B}[31m")
    #expect(escape.status == 2)
    #expect(escape.error.contains("the description has a control character U+001B at byte 4"))
    #expect(
      try cli("describe", id, "1").error
        == "error: nothing to change: give --alt TEXT, --caption TEXT or --clear; see `catalogue describe --help`\n")
    #expect(try cli("describe", id, "1", "--clear", "--alt", "x").status == 2)
    let missing = try cli("describe", id, "9", "--alt", "x")
    #expect(missing.status == 1)
    #expect(
      missing.error
        == "error: review \(id) has no image 9: give a position (1, 2, …) or a prefix of the image's hash\n")
    #expect(try fileSnapshot(cli.library) == before)
  }

  @Test func checkHintsAtACoverWithoutADescriptionAndStaysHealthy() throws {
    let cli = CLI()
    let id = try cli.withReview()
    _ = try cli("attach", id, Fixture.image("baseline.jpg"), Fixture.image("rgb-8.png"))
    let check = try cli("check")
    #expect(check.status == 0, "\(check.error)")
    let lines = check.output.split(separator: "\n").map(String.init)
    #expect(
      lines.first
        == "hint: cover-without-description: \(id): the cover (picture 1) has no description for readers who "
        + "cannot see it — add one with `catalogue describe \(id.prefix(8)) 1 --alt TEXT`")
    #expect(lines.last?.hasSuffix(": no problems.") == true)
    let json = try cli.json(try cli("check", "--json"))
    #expect(json["healthy"] as? Bool == true)
    #expect((json["findings"] as? [Any])?.isEmpty == true)
    let hints = try #require(json["hints"] as? [[String: Any]])
    #expect(hints.map { $0["kind"] as? String } == ["cover-without-description"])
    #expect(hints.map { $0["target"] as? String } == [id])
    #expect(try cli("describe", id, "1", "--alt", "Grey").status == 0)
    let after = try cli("check")
    #expect(!after.output.contains("hint:"))
    #expect((try cli.json(try cli("check", "--json"))["hints"] as? [Any])?.isEmpty == true)
  }

  @Test func aFileNameThatIsNotUTF8IsKeptInASafeForm() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let made = try cli.run(
      ["-c", #"cp "$picture" "$folder/$(printf 'caf\351 \033[31m.jpg')" && "$catalogue" attach "$id" "$folder"/caf*"#],
      environment: [
        "catalogue": CLI.executable, "CATALOGUE_LIBRARY": cli.library, "picture": Fixture.image("baseline.jpg"),
        "folder": cli.folder.path, "id": id,
      ],
      executable: "/bin/sh")
    #expect(made.status == 0, "\(made.error)")
    #expect(try Self.said(cli, id) == [[nil, nil, "caf\u{FFFD} \u{FFFD}[31m.jpg"]])
  }

  @Test func theHelpSaysWhatTheFlagsMean() throws {
    let cli = CLI()
    let describe = try cli("describe", "--help")
    #expect(describe.status == 0)
    #expect(describe.output.contains("--alt TEXT"))
    #expect(describe.output.contains("--clear         clear the description and the caption"))
    let attach = try cli("attach", "--help").output
    #expect(attach.contains("--alt and --caption describe one"))
    #expect(attach.contains("picture: with more than one file they are refused"))
    #expect(try cli("check", "--help").output.contains("Hints"))
  }
}
