@testable import Catalogue
import Testing

/// Spoiler markup in review bodies: `||inline||` and `::: spoiler` blocks, found in cmark's tree
/// and never in code, raw HTML or URLs; closed in `<details>` on pages, replaced by notices,
/// masked for the terminal and cut for the search index.
@Suite("Spoiler markup")
struct SpoilerMarkupTests {
  // MARK: Helpers

  /// A body, the HTML it renders to, and the words a reader sees only after opening a spoiler
  /// (`hidden`), at once (`shown`), or in a block spoiler's label (`labels`).
  struct Example: CustomTestStringConvertible, Sendable {
    let name: String
    let markdown: String
    let html: String
    var hidden: [String] = []
    var shown: [String] = []
    var labels: [String] = []
    var testDescription: String { name }
  }

  /// `html` without its `<details …>…</details>` elements, each nested one with its outer one.
  static func outsideDetails(_ html: String) -> String {
    let bytes = Array(html.utf8)
    let (opening, closing) = (Array("<details".utf8), Array("</details>".utf8))
    var kept: [UInt8] = []
    var depth = 0
    var index = 0
    while index < bytes.count {
      if bytes[index...].starts(with: opening) {
        depth += 1
        index += opening.count
      } else if depth > 0, bytes[index...].starts(with: closing) {
        depth -= 1
        index += closing.count
      } else {
        if depth == 0 { kept.append(bytes[index]) }
        index += 1
      }
    }
    return String(decoding: kept, as: UTF8.self)
  }

  /// Checks that the `hidden` words of `markdown` are in its page only inside `<details>`, and
  /// nowhere in its notices, its searchable text or its masked text; that the `shown` words
  /// are in all four outside spoilers; and that the `labels` words are in all four.
  static func expectHiding(
    _ hidden: [String], showing shown: [String], labels: [String] = [], in markdown: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let html = Markdown.html(markdown)
    let forms = [
      ("the page outside spoilers", outsideDetails(html)), ("the notices", Markdown.html(markdown, spoilers: .notice)),
      ("the searchable text", Markdown.searchable(markdown)), ("the masked text", Markdown.masked(markdown)),
    ]
    let summary = Markdown.summary(markdown, maximumLength: 10_000)
    for word in hidden {
      #expect(!summary.contains(word), "\(word) is not in the summary: \(summary)", sourceLocation: sourceLocation)
      #expect(html.contains(word), "\(word) is on the page, in a spoiler", sourceLocation: sourceLocation)
      for (name, text) in forms {
        #expect(!text.contains(word), "\(word) is hidden from \(name): \(text)", sourceLocation: sourceLocation)
      }
    }
    for word in shown + labels {
      for (name, text) in forms where !(name == forms[0].0 && labels.contains(word)) {
        #expect(text.contains(word), "\(word) is in \(name): \(text)", sourceLocation: sourceLocation)
      }
    }
    for word in labels {
      #expect(html.contains(word), "\(word) is on the page", sourceLocation: sourceLocation)
    }
  }

  static let inline = #"<details class="spoiler spoiler-inline"><summary>Spoiler</summary>"#
  static let block = #"<details class="spoiler"><summary>Spoiler</summary>"#

  // MARK: Inline spoilers

  static let inlineExamples: [Example] = [
    Example(
      name: "plain words", markdown: "The twist: ||Bruce was dead|| all along.",
      html: #"<div class="paragraph">\#nThe twist: \#(inline)Bruce was dead</details> all along.\#n</div>\#n"#,
      hidden: ["Bruce", "dead"], shown: ["twist", "along"]),
    Example(
      name: "emphasis inside", markdown: "Then ||*Vader* is **his father**|| — wow.",
      html: #"""
        <div class="paragraph">
        Then \#(inline)<em>Vader</em> is <strong>his father</strong></details> — wow.
        </div>

        """#,
      hidden: ["Vader", "father"], shown: ["Then", "wow"]),
    Example(
      name: "a link inside stays a link",
      markdown: "See ||the [wiki](https://example.org/rosebud) says Rosebud|| later.",
      html: #"""
        <div class="paragraph">
        See \#(inline)the <a href="https://example.org/rosebud">wiki</a> says Rosebud</details> later.
        </div>

        """#,
      hidden: ["wiki", "rosebud", "Rosebud"], shown: ["See", "later"]),
    Example(
      name: "code inside", markdown: "Type ||`iddqd` for invincibility|| now.",
      html: #"""
        <div class="paragraph">
        Type \#(inline)<code>iddqd</code> for invincibility</details> now.
        </div>

        """#,
      hidden: ["iddqd", "invincibility"], shown: ["Type", "now"]),
    Example(
      name: "inside emphasis", markdown: "*Calm ||storm|| ahead*",
      html: #"<div class="paragraph">\#n<em>Calm \#(inline)storm</details> ahead</em>\#n</div>\#n"#,
      hidden: ["storm"], shown: ["Calm", "ahead"]),
    Example(
      name: "inside a link's text", markdown: "[Read ||Keyser|| here](https://example.org/page)",
      html: #"""
        <div class="paragraph">
        <a href="https://example.org/page">Read \#(inline)Keyser</details> here</a>
        </div>

        """#,
      hidden: ["Keyser"], shown: ["Read", "here", "example.org/page"]),
    Example(
      name: "several in one paragraph", markdown: "||Ash|| is a robot, ||Kane|| dies, ||Ripley|| lives.",
      html: #"""
        <div class="paragraph">
        \#(inline)Ash</details> is a robot, \#(inline)Kane</details> dies, \#(inline)Ripley</details> lives.
        </div>

        """#,
      hidden: ["Ash", "Kane", "Ripley"], shown: ["robot", "dies", "lives"]),
    Example(
      name: "over a line break", markdown: "It ends ||on the\nmoon|| tonight.",
      html: #"<div class="paragraph">\#nIt ends \#(inline)on the\#nmoon</details> tonight.\#n</div>\#n"#,
      hidden: ["moon"], shown: ["ends", "tonight"]),
    Example(
      name: "in a heading, which keeps its element", markdown: "## Who dies? ||Boromir||\n\nText.",
      html: #"<h2>Who dies? \#(inline)Boromir</details></h2>\#n<p>Text.</p>\#n"#,
      hidden: ["Boromir"], shown: ["Who", "Text"]),
    Example(
      name: "in a tight list's item, written without <p>", markdown: "- first ||Gandalf returns||\n- second",
      html: #"<ul>\#n<li>first \#(inline)Gandalf returns</details></li>\#n<li>second</li>\#n</ul>\#n"#,
      hidden: ["Gandalf"], shown: ["first", "second"]),
    Example(
      name: "in a loose list's item", markdown: "- first ||Gandalf returns||\n\n- second",
      html: #"""
        <ul>
        <li>
        <div class="paragraph">
        first \#(inline)Gandalf returns</details>
        </div>
        </li>
        <li>
        <p>second</p>
        </li>
        </ul>

        """#,
      hidden: ["Gandalf"], shown: ["first", "second"]),
    Example(
      name: "in a block quote", markdown: "> Quote: ||Tyler is the narrator||.",
      html: #"""
        <blockquote>
        <div class="paragraph">
        Quote: \#(inline)Tyler is the narrator</details>.
        </div>
        </blockquote>

        """#,
      hidden: ["Tyler", "narrator"], shown: ["Quote"]),
    Example(
      name: "escaped pipes are pipes to cmark, so markers", markdown: #"\|\|Snape\|\| kills him."#,
      html: #"<div class="paragraph">\#n\#(inline)Snape</details> kills him.\#n</div>\#n"#,
      hidden: ["Snape"], shown: ["kills"]),
    Example(
      name: "a third pipe is text", markdown: "Shelley |||Ozymandias|| wrote",
      html: #"<div class="paragraph">\#nShelley \#(inline)|Ozymandias</details> wrote\#n</div>\#n"#,
      hidden: ["Ozymandias"], shown: ["Shelley", "wrote"]),
    Example(
      name: "a marker left over after a pair is text", markdown: "||Luke|| and || more",
      html: #"<div class="paragraph">\#n\#(inline)Luke</details> and || more\#n</div>\#n"#,
      hidden: ["Luke"], shown: ["and || more"]),
    Example(
      name: "raw HTML inside is still left out", markdown: "||<img src=x onerror=alert(1)> Hodor holds the door||",
      html:
        #"<div class="paragraph">\#n\#(inline)<!-- raw HTML omitted --> Hodor holds the door</details>\#n</div>\#n"#,
      hidden: ["Hodor"]),
    Example(
      name: "a picture from outside inside becomes a link",
      markdown: "||![Nakatomi tower](https://example.org/poster.png)|| and ![local](poster.png)",
      html: #"""
        <div class="paragraph">
        \#(inline)<a href="https://example.org/poster.png">Nakatomi tower</a></details> and <img src="poster.png" alt="local" />
        </div>

        """#,
      hidden: ["Nakatomi", "example.org/poster"], shown: ["local"]),
  ]

  @Test(arguments: inlineExamples)
  func inlineSpoilers(_ example: Example) {
    #expect(Markdown.html(example.markdown) == example.html)
    #expect(Markdown.hasSpoilers(example.markdown))
    Self.expectHiding(example.hidden, showing: example.shown, labels: example.labels, in: example.markdown)
  }

  // MARK: Never spoilers

  /// Markers in code, raw HTML, URLs, picture descriptions, or left without a partner: the
  /// body renders as it always did, and its other texts are itself.
  static let plainExamples: [Example] = [
    Example(
      name: "code span", markdown: "Use `a || b || c` for or.", html: "<p>Use <code>a || b || c</code> for or.</p>\n"),
    Example(
      name: "fenced code", markdown: "```\n||Rosebud|| and\n::: spoiler\n:::\n```",
      html: "<pre><code>||Rosebud|| and\n::: spoiler\n:::\n</code></pre>\n"),
    Example(name: "indented code", markdown: "    ||Rosebud||", html: "<pre><code>||Rosebud||\n</code></pre>\n"),
    Example(
      name: "autolink", markdown: "<https://example.org/a||Rosebud||c>",
      html: #"<p><a href="https://example.org/a%7C%7CRosebud%7C%7Cc">https://example.org/a||Rosebud||c</a></p>\#n"#),
    Example(
      name: "link destination", markdown: "[sled](https://example.org/||Rosebud||) ok",
      html: #"<p><a href="https://example.org/%7C%7CRosebud%7C%7C">sled</a> ok</p>\#n"#),
    Example(
      name: "raw HTML", markdown: #"<span title="||Rosebud||">sled</span>"#,
      html: "<p><!-- raw HTML omitted -->sled<!-- raw HTML omitted --></p>\n"),
    Example(name: "HTML block", markdown: "<div>\n||Rosebud||\n</div>", html: "<!-- raw HTML omitted -->\n"),
    Example(
      name: "a picture's description", markdown: "![a ||Rosebud|| sled](sled.png)",
      html: #"<p><img src="sled.png" alt="a ||Rosebud|| sled" /></p>\#n"#),
    Example(name: "unclosed", markdown: "Only ||one marker here.", html: "<p>Only ||one marker here.</p>\n"),
    Example(
      name: "empty", markdown: "Nothing |||| here, nor || || there.",
      html: "<p>Nothing |||| here, nor || || there.</p>\n"),
    Example(
      name: "across a link's edge", markdown: "||Soylent [is people|| really](u)",
      html: #"<p>||Soylent <a href="u">is people|| really</a></p>\#n"#),
    Example(
      name: "across emphasis", markdown: "||Soylent *is people|| really*",
      html: "<p>||Soylent <em>is people|| really</em></p>\n"),
    Example(
      name: "a block left open", markdown: "::: spoiler\nStill visible.",
      html: "<p>::: spoiler\nStill visible.</p>\n"),
    Example(name: "a closer alone", markdown: "Text\n:::\nMore", html: "<p>Text\n:::\nMore</p>\n"),
    Example(
      name: "a closer in another container", markdown: "::: spoiler\n> Inside quote\n> :::",
      html: "<p>::: spoiler</p>\n<blockquote>\n<p>Inside quote\n:::</p>\n</blockquote>\n"),
    Example(
      name: "an opener in a list item, the closer outside", markdown: "- ::: spoiler\n- item\n\n:::",
      html: "<ul>\n<li>::: spoiler</li>\n<li>item</li>\n</ul>\n<p>:::</p>\n"),
    Example(name: "spoilers is no keyword", markdown: "::: spoilers\nx\n:::", html: "<p>::: spoilers\nx\n:::</p>\n"),
  ]

  @Test(arguments: plainExamples)
  func neverSpoilers(_ example: Example) {
    #expect(Markdown.html(example.markdown) == example.html)
    #expect(Markdown.html(example.markdown, spoilers: .notice) == example.html)
    #expect(!Markdown.hasSpoilers(example.markdown))
    #expect(Markdown.searchable(example.markdown) == example.markdown)
    #expect(Markdown.masked(example.markdown) == example.markdown)
  }

  // MARK: Block spoilers

  static let blockExamples: [Example] = [
    Example(
      name: "without a label, with blank lines",
      markdown: "Before.\n\n::: spoiler\n\nHe was dead.\n\nAll along.\n\n:::\n\nAfter.",
      html: "<p>Before.</p>\n\(block)\n<p>He was dead.</p>\n<p>All along.</p>\n</details>\n<p>After.</p>\n",
      hidden: ["dead", "along"], shown: ["Before", "After"]),
    Example(
      name: "with a label", markdown: "::: spoiler The ending\nShe survives.\n:::",
      html: #"<details class="spoiler"><summary>Spoiler: The ending</summary>\#n<p>She survives.</p>\#n</details>\#n"#,
      hidden: ["survives"], labels: ["The ending"]),
    Example(
      name: "inside one paragraph", markdown: "Intro line\n::: spoiler\nHe dies.\n:::\nOutro line",
      html: "<p>Intro line</p>\n\(block)\n<p>He dies.</p>\n</details>\n<p>Outro line</p>\n",
      hidden: ["dies"], shown: ["Intro", "Outro"]),
    Example(
      name: "without a space, in capitals", markdown: ":::SPOILER\nKeyser is Verbal.\n:::",
      html: "\(block)\n<p>Keyser is Verbal.</p>\n</details>\n", hidden: ["Keyser", "Verbal"]),
    Example(
      name: "in a block quote", markdown: "> Said:\n> ::: spoiler\n> Keyser is Verbal.\n> :::\n> Done.",
      html: "<blockquote>\n<p>Said:</p>\n\(block)\n<p>Keyser is Verbal.</p>\n</details>\n<p>Done.</p>\n</blockquote>\n",
      hidden: ["Keyser", "Verbal"], shown: ["Said", "Done"]),
    Example(
      name: "in a list item", markdown: "- ::: spoiler\n  Keyser is Verbal.\n  :::\n- other",
      html: "<ul>\n<li>\n\(block)\n<p>Keyser is Verbal.</p>\n</details>\n</li>\n<li>other</li>\n</ul>\n",
      hidden: ["Keyser", "Verbal"], shown: ["other"]),
    Example(
      name: "after text in a tight list's item", markdown: "- item\n  ::: spoiler\n  Keyser\n  :::\n- other",
      html: "<ul>\n<li>item\n\(block)\n<p>Keyser</p>\n</details>\n</li>\n<li>other</li>\n</ul>\n",
      hidden: ["Keyser"], shown: ["item", "other"]),
    Example(
      name: "nested", markdown: "::: spoiler Outer\nAlpha\n::: spoiler Inner\nBravo\n:::\nCharlie\n:::",
      html: #"""
        <details class="spoiler"><summary>Spoiler: Outer</summary>
        <p>Alpha</p>
        <details class="spoiler"><summary>Spoiler: Inner</summary>
        <p>Bravo</p>
        </details>
        <p>Charlie</p>
        </details>

        """#,
      hidden: ["Alpha", "Inner", "Bravo", "Charlie"], labels: ["Outer"]),
    Example(
      name: "an opener left open outside a pair", markdown: "::: spoiler\n::: spoiler\nRosebud\n:::",
      html: "<p>::: spoiler</p>\n\(block)\n<p>Rosebud</p>\n</details>\n", hidden: ["Rosebud"], shown: ["::: spoiler"]),
    Example(
      name: "marker lines in code inside", markdown: "::: spoiler\n```\n:::\nRosebud\n```\n:::",
      html: "\(block)\n<pre><code>:::\nRosebud\n</code></pre>\n</details>\n", hidden: ["Rosebud"]),
    Example(
      name: "raw HTML inside is still left out",
      markdown: "::: spoiler\n<script>alert(1)</script>\n\nText <b>Hodor</b>\n:::",
      html: #"""
        \#(block)
        <!-- raw HTML omitted -->
        <p>Text <!-- raw HTML omitted -->Hodor<!-- raw HTML omitted --></p>
        </details>

        """#,
      hidden: ["Hodor"]),
    Example(
      name: "a picture from outside inside becomes a link",
      markdown: "::: spoiler\n![Nakatomi tower](https://example.org/tower.png)\n:::",
      html: #"\#(block)\#n<p><a href="https://example.org/tower.png">Nakatomi tower</a></p>\#n</details>\#n"#,
      hidden: ["Nakatomi", "example.org/tower"]),
    Example(
      name: "a label is plain text, escaped", markdown: "::: spoiler Tom & <b>Jerry</b> *5* < 6\nThe cat wins.\n:::",
      html: #"""
        <details class="spoiler"><summary>Spoiler: Tom &amp; Jerry 5 &lt; 6</summary>
        <p>The cat wins.</p>
        </details>

        """#,
      hidden: ["cat wins"], labels: ["Tom", "Jerry"]),
    Example(
      name: "an inline spoiler inside", markdown: "::: spoiler\nHe ||really|| dies.\n:::",
      html: "\(block)\n<div class=\"paragraph\">\nHe \(inline)really</details> dies.\n</div>\n</details>\n",
      hidden: ["really", "dies"]),
    Example(name: "empty", markdown: "::: spoiler\n:::", html: "\(block)\n</details>\n"),
    // A closer on the line after a list or a quote is, to CommonMark, a lazy line of its last
    // paragraph: it still closes the spoiler around it.
    Example(
      name: "a closer right after a list",
      markdown: "::: spoiler The ending\nThey die:\n\n- the cook\n- the dog\n:::\n\nAfter.",
      html: #"""
        <details class="spoiler"><summary>Spoiler: The ending</summary>
        <p>They die:</p>
        <ul>
        <li>the cook</li>
        <li>the dog</li>
        </ul>
        </details>
        <p>After.</p>

        """#,
      hidden: ["die", "cook", "dog"], shown: ["After"], labels: ["The ending"]),
    Example(
      name: "a closer right after a quote", markdown: "::: spoiler\n> Rosebud was a sled\n:::\nAfter.",
      html: "\(block)\n<blockquote>\n<p>Rosebud was a sled</p>\n</blockquote>\n</details>\n<p>After.</p>\n",
      hidden: ["Rosebud", "sled"], shown: ["After"]),
    Example(
      name: "a closer right after nested lists", markdown: "::: spoiler\n- one\n  - Rosebud\n:::",
      html: "\(block)\n<ul>\n<li>one\n<ul>\n<li>Rosebud</li>\n</ul>\n</li>\n</ul>\n</details>\n",
      hidden: ["one", "Rosebud"]),
  ]

  /// A list's or a quote's own spoiler keeps its closer; one not opened anywhere stays text.
  @Test func aLazyCloserIsTakenOnlyBySpoilerOpenAroundItsBlock() {
    #expect(
      Markdown.html("- ::: spoiler\n  Rosebud\n:::")
        == "<ul>\n<li>\n\(Self.block)\n<p>Rosebud</p>\n</details>\n</li>\n</ul>\n")
    #expect(Markdown.html("- one\n- two\n:::") == "<ul>\n<li>one</li>\n<li>two\n:::</li>\n</ul>\n")
    // Cut as written, the line after the mask would join it in one paragraph, which the page
    // does not show: the masked text is the body written again, as cmark writes it.
    #expect(Markdown.masked("::: spoiler\n- Rosebud\n:::\nAfter.") == "[spoiler: 1 word]\n\nAfter.")
    #expect(Markdown.masked("::: spoiler\n- Rosebud\n:::\n\nAfter.") == "[spoiler: 1 word]\n\nAfter.")
  }

  @Test(arguments: blockExamples)
  func blockSpoilers(_ example: Example) {
    #expect(Markdown.html(example.markdown) == example.html)
    #expect(Markdown.hasSpoilers(example.markdown))
    Self.expectHiding(example.hidden, showing: example.shown, labels: example.labels, in: example.markdown)
  }

  // MARK: Notices

  @Test func onlyBodiesThatMayHoldMarkersAreParsed() {
    #expect(!Markdown.mayHaveSpoilers("No spoiler here: *just* `code` and a | pipe."))
    for unmatched in ["a || b", "::: spoiler\nopen", "`||x||`"] {
      #expect(Markdown.mayHaveSpoilers(unmatched))
      #expect(!Markdown.hasSpoilers(unmatched))
    }
    // What cmark reads as pipes or colons may be a marker, so it is parsed too.
    for escaped in [#"\|\|"#, #"\:::"#, "&#124;", "&vert;", "&VerticalLine;", "&colon;"] {
      #expect(Markdown.mayHaveSpoilers("a \(escaped) b"), "\(escaped)")
    }
    #expect(Markdown.hasSpoilers("&#124;&#124;Rosebud&#124;&#124;"))
  }

  @Test func noticesHoldNoneOfTheWords() {
    #expect(
      Markdown.html("He ||dies|| here.", spoilers: .notice)
        == #"<p>He <span class="spoiler-notice">[spoiler hidden]</span> here.</p>\#n"#)
    #expect(
      Markdown.html("::: spoiler The end & 5 < 6\nShe survives.\n:::", spoilers: .notice)
        == #"<p class="spoiler-notice">[spoiler hidden: The end &amp; 5 &lt; 6]</p>\#n"#)
    // A nested spoiler goes with its outer one; a list item keeps its notice.
    #expect(
      Markdown.html("::: spoiler\nA\n::: spoiler\nB\n:::\n:::", spoilers: .notice)
        == #"<p class="spoiler-notice">[spoiler hidden]</p>\#n"#)
    #expect(
      Markdown.html("- ::: spoiler\n  B\n  :::\n- ||C||", spoilers: .notice)
        == #"""
        <ul>
        <li>
        <p class="spoiler-notice">[spoiler hidden]</p>
        </li>
        <li><span class="spoiler-notice">[spoiler hidden]</span></li>
        </ul>

        """#)
    #expect(!Markdown.html("||a|| ::: spoiler", spoilers: .notice).contains("<details"))
  }

  // MARK: Masks and search

  @Test(arguments: [
    ("The twist: ||Bruce was dead|| all along.", "The twist: [spoiler: 3 words] all along."),
    ("||Ash|| is a robot, ||Kane|| dies.", "[spoiler: 1 word] is a robot, [spoiler: 1 word] dies."),
    ("||don't stop — 42 well-known *words*||!", "[spoiler: 6 words]!"),
    (
      "Intro\n::: spoiler The ending\nShe *survives*.\n\nTwice.\n:::\nOutro",
      "Intro\n[spoiler: The ending, 3 words]\nOutro"
    ),
    ("> Said:\n> ::: spoiler\n> Keyser is Verbal.\n> :::\n> Done.", "> Said:\n> [spoiler: 3 words]\n> Done."),
    ("- ::: spoiler\n  Keyser is Verbal.\n  :::\n- other ||x||", "- [spoiler: 3 words]\n- other [spoiler: 1 word]"),
    (
      "::: spoiler Outer\nAlpha\n::: spoiler Inner\nBravo\n:::\n:::\n\n*Kept* as `written`  \n",
      "[spoiler: Outer, 2 words]\n\n*Kept* as `written`  \n"
    ),
    ("> a ||b\n> c|| d", "> a [spoiler: 2 words] d"),
    ("Code `||` and ||x|| stay.", "Code `||` and [spoiler: 1 word] stay."),
    // A code span over two lines hides which line a marker is on: cmark writes the body again.
    ("A `code\nspan` then ||Rosebud|| here.", "A `code span` then [spoiler: 1 word] here."),
    // A mask that would make a link: the same.
    ("See ||it||(https://example.org)", "See [spoiler: 1 word](https://example.org)"),
  ])
  func maskedKeepsTheRestAsWritten(_ text: String, _ masked: String) {
    #expect(Markdown.masked(text) == masked)
  }

  @Test func searchableTextLeavesSpoilersOut() {
    for unchanged in ["No spoiler here: *just* `code` and a | pipe.", "a || b", "::: spoiler\nopen", "`||x||`"] {
      #expect(Markdown.searchable(unchanged) == unchanged)
      #expect(Markdown.masked(unchanged) == unchanged)
    }
    #expect(Markdown.searchable("The twist: ||Bruce was dead|| all along.") == "The twist:  all along.")
    #expect(Markdown.searchable("Intro\n::: spoiler The ending\nShe dies.\n:::\nOutro") == "Intro\nThe ending\nOutro")
  }

  @Test func wordsAreCountedAsAReaderCounts() {
    #expect(SpoilerText.words(in: "don't stop — 42 well-known") == 5)
    #expect(SpoilerText.words(in: "Émile’s café, 1999!") == 3)
    #expect(SpoilerText.words(in: " — ") == 0)
  }

  // MARK: Random bodies

  /// SplitMix64: a seeded generator, so that a failing body can be made again.
  struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  /// A random body of markers, backticks, brackets, `<`, `*`, line prefixes and words, each
  /// word `zq` and a number used once. No `:` outside marker lines and URLs, so that no line
  /// is a link reference definition (a URL defined outside a spoiler and used inside would be
  /// the reviewer's text outside it).
  static func randomBody(_ random: inout SplitMix64, words: inout Int) -> String {
    let prefixes = ["", "", "", "> ", "- ", "1. ", "  ", "    ", "> > ", "* ", ">"]
    let tokens = [
      "||", "||", "||", "||", "||", "||", "|", "`", "``", "[", "]", "](", "(", ")", "<", ">", "*", "**", "_", "!", "\\",
      "<b>", "</b>",
      "<http://e.org/", "http://e.org/", "&amp;", "&#124;", "#", "~~~", "\n",
    ]
    var lines: [String] = []
    for _ in 0..<Int.random(in: 1...10, using: &random) {
      let prefix = prefixes.randomElement(using: &random) ?? ""
      switch Int.random(in: 0..<12, using: &random) {
      case 0: lines.append("")
      case 1:
        words += 1
        lines.append(prefix + (Bool.random(using: &random) ? "::: spoiler" : ":::SPOILER lbl\(words)"))
      case 2, 3: lines.append(prefix + ":::")
      case 4: lines.append(prefix + "```")
      default:
        var line = prefix
        for _ in 0..<Int.random(in: 1...12, using: &random) {
          if Int.random(in: 0..<3, using: &random) == 0 {
            line += tokens.randomElement(using: &random) ?? ""
          } else {
            words += 1
            line += "zq\(words)"
          }
          if Bool.random(using: &random) { line += " " }
        }
        lines.append(line)
      }
    }
    return lines.joined(separator: "\n")
  }

  /// The `zq…` words of a text.
  static func randomWords(in text: String) -> Set<String> {
    let bytes = Array(text.utf8)
    var found: Set<String> = []
    var index = 0
    while index + 2 < bytes.count {
      guard bytes[index] == UInt8(ascii: "z"), bytes[index + 1] == UInt8(ascii: "q"),
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index + 2])
      else {
        index += 1
        continue
      }
      var end = index + 2
      while end < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) { end += 1 }
      found.insert(String(decoding: bytes[index..<end], as: UTF8.self))
      index = end
    }
    return found
  }

  @Test func randomBodiesHideWhatTheyHide() {
    var random = SplitMix64(state: 20_260_412)
    var words = 0
    var spoilers = 0
    for round in 0..<3_000 {
      let body = Self.randomBody(&random, words: &words)
      let html = Markdown.html(body)
      let details = html.ranges(of: "<details").count
      #expect(details == html.ranges(of: "</details>").count, "round \(round): \(body)")
      #expect(Markdown.hasSpoilers(body) == (details > 0), "round \(round): \(body)")
      let notice = Markdown.html(body, spoilers: .notice)
      #expect(!notice.contains("<details"), "round \(round): \(body)")
      let (masked, searchable) = (Markdown.masked(body), Markdown.searchable(body))
      guard details > 0 else {
        #expect(masked == body && searchable == body, "round \(round): \(body)")
        continue
      }
      spoilers += 1
      let shown = Self.randomWords(in: Self.outsideDetails(html))
      let hidden = Self.randomWords(in: html).subtracting(shown)
      for (name, text) in [("notice", notice), ("masked", masked), ("searchable", searchable)] {
        let words = Self.randomWords(in: text)
        #expect(words.isDisjoint(with: hidden), "round \(round), \(name): \(body)\n→ \(text)")
        #expect(shown.isSubset(of: words), "round \(round), \(name): \(body)\n→ \(text)")
      }
      // A share preview's line holds only words a reader sees at once.
      let summary = Markdown.summary(body, maximumLength: 10_000)
      #expect(Self.randomWords(in: summary).isDisjoint(with: hidden), "round \(round), summary: \(body)\n→ \(summary)")
    }
    // The generator makes spoilers often enough for the test to say something.
    #expect(spoilers > 500)
  }

  // MARK: Share previews

  /// What a preview says of a body: its first sentence that holds no spoiler, as plain text.
  @Test(
    arguments: [
      ("Superb. Then it drags.", "Superb."),
      ("*Arrival* is a film about [language](https://x.example). It is slow.", "Arrival is a film about language."),
      ("||The butler did it.|| Still, a fine evening. More later.", "Still, a fine evening."),
      ("It was ||the butler|| all along. A fine evening.", "A fine evening."),
      ("::: spoiler The end\nShe lives.\n:::\n\nWorth it!", "Worth it!"),
      ("# Verdict\n\nGood.", "Verdict"),
      ("```\ncode only.\n```\n\nAfter the code.", "After the code."),
      ("<div>\nraw block\n</div>\n\nPlain words here", "Plain words here"),
      ("東京の物語。とても良い。", "東京の物語。"),
      ("“Wow!” she said. Then more.", "“Wow!”"),
      ("||All of it is hidden.||", ""),
      ("", ""),
    ])
  func previewsSayTheFirstSentenceWithoutSpoilers(body: String, expected: String) {
    #expect(ReviewText.summary(body) == expected)
  }

  /// A long first sentence is cut after a whole word, with an ellipsis.
  @Test func aLongSentenceIsCutAtAWord() {
    let body = String(repeating: "word ", count: 100) + "end."
    let summary = ReviewText.summary(body, maximumLength: 30)
    #expect(summary == "word word word word word word…")
    #expect(summary.count <= 30)
  }
}
