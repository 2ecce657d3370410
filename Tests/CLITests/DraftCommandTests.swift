import Foundation
import Testing
import TestSupport

/// Drafts, the spoiler warning and spoiler markup from the command line: `add --draft`,
/// `edit --publish`/`--draft`/`--contains-spoilers`, `list --drafts`/`--published`, `show`
/// masking spoilers unless `--spoilers`, and `export --all` leaving drafts out.
@Suite struct DraftCommandTests {
  func add(_ cli: CLI, _ arguments: String...) throws -> String {
    if !FileManager.default.fileExists(atPath: cli.library + "/catalogue.sqlite") {
      try #require(try cli("init").status == 0)
    }
    let added = try cli(["add", "--rating", "4", "--category", "movie"] + arguments)
    try #require(added.status == 0, "\(added.error)")
    return added.output.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test func aDraftIsListedMarkedAndPublishedWhenAsked() throws {
    let cli = CLI()
    let published = try add(cli, "--title", "Arrival")
    let draft = try add(cli, "--title", "Zanzibar Nights", "--draft")

    let all = try cli("list")
    #expect(all.status == 0)
    #expect(all.output.contains("[draft] Zanzibar Nights"))
    #expect(all.output.contains("  Arrival"))
    #expect(all.output.hasSuffix("2 reviews\n"))
    let drafts = try cli("list", "--drafts")
    #expect(drafts.output.contains("Zanzibar") && !drafts.output.contains("Arrival"))
    let readers = try cli("list", "--published")
    #expect(!readers.output.contains("Zanzibar") && readers.output.contains("Arrival"))
    let both = try cli("list", "--drafts", "--published")
    #expect(both.status == 2)
    #expect(both.error.contains("give --drafts or --published, not both"))

    let json = try cli.json(try cli("list", "--json"))
    let rows = try #require(json["reviews"] as? [[String: Any]])
    #expect(rows.first { $0["id"] as? String == draft }?["draft"] as? Bool == true)
    #expect(rows.first { $0["id"] as? String == draft }?["published"] is NSNull)
    #expect(rows.first { $0["id"] as? String == published }?["published"] as? String != nil)

    let shown = try cli("show", draft)
    #expect(shown.output.contains("draft: readers do not see it"))
    #expect(try cli("edit", draft, "--publish").status == 0)
    #expect(try cli("list", "--drafts").output == "No reviews.\n")
    #expect(!(try cli("show", draft)).output.contains("draft:"))
    #expect(try cli("edit", draft, "--draft").status == 0)
    #expect(try cli("list", "--published").output.contains("1 review"))
    let clash = try cli("edit", draft, "--publish", "--draft")
    #expect(clash.status == 2 && clash.error.contains("give --publish or --draft, not both"))
    #expect(try cli("check").status == 0)
  }

  @Test func theWholeReviewWarningHidesItsTextUntilAsked() throws {
    let cli = CLI()
    let id = try add(cli, "--title", "Sixth Sense", "--contains-spoilers", "--body", "Quokka was a ghost all along.")
    let shown = try cli("show", id)
    #expect(shown.output.contains("contains spoilers"))
    #expect(!shown.output.contains("Quokka"))
    #expect(shown.output.contains("[this review contains spoilers: 6 words hidden;"))
    let asked = try cli("show", id, "--spoilers")
    #expect(asked.output.contains("Quokka was a ghost all along."))
    #expect(try cli("list").output.contains("[spoilers] Sixth Sense"))
    let json = try cli.json(try cli("show", id, "--json"))
    #expect(json["containsSpoilers"] as? Bool == true)
    #expect(json["body"] as? String == "Quokka was a ghost all along.")
    #expect(try cli("edit", id, "--no-contains-spoilers").status == 0)
    #expect(try cli("show", id).output.contains("Quokka"))
  }

  @Test func showMasksSpoilersUnlessAsked() throws {
    let cli = CLI()
    let body = "It was good. ||Quokka dies at the end.||\n\n::: spoiler The epilogue\nZorblat returns.\n:::\n\nSee it."
    let id = try add(cli, "--title", "Twist", "--body", body)
    let shown = try cli("show", id)
    #expect(shown.status == 0)
    #expect(!shown.output.contains("Quokka") && !shown.output.contains("Zorblat"))
    #expect(shown.output.contains("It was good. [spoiler: 5 words]"))
    #expect(shown.output.contains("[spoiler: The epilogue, 2 words]"))
    #expect(shown.output.contains("See it."))
    #expect(try cli("show", id, "--spoilers").output.contains(body))
    #expect(!(try cli("list", "--search", "quokka")).output.contains("Twist"))
    #expect(try cli("list", "--search", "epilogue").output.contains("Twist"))
    let json = try cli.json(try cli("show", id, "--json"))
    #expect(json["body"] as? String == body)
    let html = try #require(json["bodyHTML"] as? String)
    #expect(
      html.contains(
        #"<details class="spoiler spoiler-inline"><summary>Spoiler</summary>Quokka dies at the end.</details>"#))
    #expect(html.contains(#"<summary>Spoiler: The epilogue</summary>"#))
  }

  @Test func exportAllLeavesDraftsOutUnlessAsked() throws {
    let cli = CLI()
    _ = try add(cli, "--title", "Arrival")
    _ = try add(cli, "--title", "Zanzibar Nights", "--draft")
    let site = cli.folder.file("Site")
    let exported = try cli("export", "--all", "--to", site)
    #expect(exported.status == 0)
    #expect(exported.output.contains("(1 review)"))
    let index = try String(contentsOfFile: "\(site)/index.html", encoding: .utf8)
    #expect(index.contains("Arrival") && !index.contains("Zanzibar"))
    let everything = try cli("export", "--all", "--include-drafts", "--to", cli.folder.file("All"))
    #expect(everything.output.contains("(2 reviews)"))
    let alone = try cli("export", "--include-drafts", "--to", cli.folder.file("One"))
    #expect(alone.status == 2 && alone.error.contains("--include-drafts goes with --all"))
  }
}
