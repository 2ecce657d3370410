import Foundation
import ImagePipeline
import Testing
import TestSupport

@Suite("catalogue card")
struct CardCommandTests {
  @Test func writesTheCardTheLibraryKeeps() throws {
    let cli = CLI()
    let id = try cli.withReview("Arrival")
    let out = cli.folder.file("card.jpg")
    let made = try cli("card", String(id.prefix(5)), "-o", out)
    #expect(made.status == 0, "\(made.error)")
    #expect(made.output.isEmpty && made.error.isEmpty)
    let bytes = try Fixture.bytes(out)
    let header = try ImagePipeline.readHeader(bytes)
    #expect(header.format == .jpeg && header.width == 1200 && header.height == 630)
    let kept = try FileManager.default.subpathsOfDirectory(atPath: cli.library + "/cards").filter {
      $0.hasSuffix(".jpg")
    }
    #expect(kept.count == 1)
    #expect(try Fixture.bytes(cli.library + "/cards/" + kept[0]) == bytes)
    #expect(try cli("check").status == 0)
  }

  @Test func replacesAnExistingFileWhole() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let out = cli.folder.file("card.jpg")
    try Data("not a picture".utf8).write(to: URL(fileURLWithPath: out))
    #expect(try cli("card", id, "-o", out).status == 0)
    #expect(try ImagePipeline.readHeader(try Fixture.bytes(out)).width == 1200)
    // Nothing but the card is left beside it.
    #expect(try FileManager.default.contentsOfDirectory(atPath: cli.folder.path).sorted() == ["Library", "card.jpg"])
  }

  @Test func writesStandardOutputButNotATerminal() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let file = cli.folder.file("file.jpg")
    #expect(try cli("card", id, "-o", file).status == 0)
    let piped = try cli.run(
      ["-c", #""$0" --library "$1" card "$2" -o - > piped.jpg"#, CLI.executable, cli.library, id],
      executable: "/bin/sh")
    #expect(piped.status == 0, "\(piped.error)")
    #expect(try Fixture.bytes(cli.folder.file("piped.jpg")) == (try Fixture.bytes(file)))
    // On a terminal (script gives the command one), refused as a usage error.
    let terminal = try cli.run(
      ["-qec", "\(CLI.executable) --library \(cli.library) card \(id) -o -", "/dev/null"],
      executable: "/usr/bin/script")
    #expect(terminal.status == 2)
    #expect(terminal.output.contains("standard output is a terminal, which cannot show a JPEG"))
  }

  @Test func statusesAreShows() throws {
    let cli = CLI()
    _ = try cli.withReview()
    let out = cli.folder.file("card.jpg")
    let noOutput = try cli("card", "abcd")
    #expect(noOutput.status == 2)
    #expect(noOutput.error.contains("say where to write the card: -o FILE, or -o - for standard output"))
    let bad = try cli("card", "zzzz", "-o", out)
    #expect(bad.status == 2)
    #expect(bad.error == (try cli("show", "zzzz")).error)
    let unknown = try cli("card", "0000", "-o", out)
    #expect(unknown.status == 1)
    #expect(unknown.error == (try cli("show", "0000")).error)
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test func aFolderThatIsNotThereIsSaidAndNothingIsLeft() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let missing = try cli("card", id, "-o", cli.folder.file("nowhere/card.jpg"))
    #expect(missing.status == 1)
    let nowhere = cli.folder.file("nowhere")
    #expect(
      missing.error
        == "error: cannot write the card to \(nowhere)/card.jpg: there is no folder \(nowhere); make it first, or name another\n"
    )
    #expect(!FileManager.default.fileExists(atPath: nowhere))
    let folder = try cli("card", id, "-o", cli.folder.path)
    #expect(folder.status == 1)
    #expect(folder.error.contains("it is a folder, not a file; name a file"))
  }
}
