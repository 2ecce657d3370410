@testable import Catalogue
import Foundation
import Testing

/// Review text as Goodreads and Letterboxd export it, turned into the catalogue's Markdown: each
/// rule with its exact output, and every word still on the rendered page.
@Suite("Review HTML")
struct ReviewHTMLTests {
  static let zwsp = "\u{200B}"

  /// The words (letters and digits) of `text` outside its tags and entities.
  static func words(_ text: String) -> [String] {
    var plain = ""
    var inTag = false
    for character in text {
      if character == "<" {
        inTag = true
      } else if character == ">" && inTag {
        inTag = false
        plain += " "
      } else if !inTag {
        plain += String(character)
      }
    }
    // An entity's name is no word of the text.
    return plain.replacing(#/&#?[A-Za-z0-9]+;/#, with: " ").split { !$0.isLetter && !$0.isNumber }.map(String.init)
  }

  /// Checks that the page for `html`'s Markdown shows each of its words, and holds a spoiler
  /// only when `html` had one.
  static func expectRendered(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let markdown = ReviewHTML.markdown(html)
    let page = Markdown.html(markdown)
    for word in words(html) {
      #expect(
        page.contains(word), "\(word) is on the page of \(markdown.debugDescription): \(page)",
        sourceLocation: sourceLocation)
    }
    let spoilers = html.contains("<spoiler>") && !words(html).isEmpty
    #expect(
      page.contains("<details") == spoilers, "a spoiler only where one was: \(page)", sourceLocation: sourceLocation)
  }

  // MARK: Plain text

  @Test(arguments: [
    ("Just words.", "Just words."),
    ("Amélie, 千と千尋の神隠し & Ça: 5/5", "Amélie, 千と千尋の神隠し & Ça: 5/5"),
    ("5 * 3 = 15, snake_case, `code`, [link], a\\b", "5 \\* 3 = 15, snake\\_case, \\`code\\`, \\[link\\], a\\\\b"),
    ("a # b > c - d + e = f ~ g", "a # b > c - d + e = f ~ g"),
    ("I <3 you", "I \\<3 you"),
    ("x<y and z>w", "x\\<y and z>w"),
    ("AT&T, fish & chips", "AT&T, fish & chips"),
    ("line one\nline two", "line one\nline two"),
    ("para one\n\n\n\npara two", "para one\n\npara two"),
    ("crlf\r\nline\rcr", "crlf\nline\ncr"),
    ("   indented code?\n    no  ", "indented code?\nno"),
    ("two  spaces\tand a tab", "two spaces and a tab"),
    ("", ""),
    (" \n\n ", ""),
  ])
  func plainTextIsOnlyEscaped(input: String, expected: String) {
    #expect(ReviewHTML.markdown(input) == expected)
  }

  @Test func lineStartsAreEscaped() {
    let input = "# not a heading\n> not a quote\n- not a list\n+ nor this\n1. one\n2) two\n1984 was\n===\n~~~\n---"
    #expect(
      ReviewHTML.markdown(input)
        == "\\# not a heading\n\\> not a quote\n\\- not a list\n\\+ nor this\n1\\. one\n2\\) two\n1984 was\n\\===\n\\~~~\n\\---"
    )
    Self.expectRendered(input)
    #expect(!Markdown.html(ReviewHTML.markdown(input)).contains("<h"))
    #expect(!Markdown.html(ReviewHTML.markdown(input)).contains("<li"))
    #expect(!Markdown.html(ReviewHTML.markdown(input)).contains("<blockquote"))
  }

  // MARK: Spoiler marks written as text

  @Test func pipesAreNeverASpoilerMarker() {
    #expect(ReviewHTML.markdown("a || b || c") == "a |\(Self.zwsp)| b |\(Self.zwsp)| c")
    #expect(ReviewHTML.markdown("|||") == "|\(Self.zwsp)|\(Self.zwsp)|")
    #expect(ReviewHTML.markdown("a | b") == "a | b")
    let page = Markdown.html(ReviewHTML.markdown("Rated it ||great|| honestly"))
    #expect(!page.contains("<details"))
    #expect(page.contains("|\(Self.zwsp)|great|\(Self.zwsp)|"))
    #expect(!Markdown.hasSpoilers(ReviewHTML.markdown("x ||y|| z ||||")))
  }

  @Test func colonsAreNeverASpoilerBlock() {
    let input = "::: spoiler\nThe ending\n:::"
    #expect(ReviewHTML.markdown(input) == ":\(Self.zwsp):: spoiler\nThe ending\n:\(Self.zwsp)::")
    #expect(!Markdown.hasSpoilers(ReviewHTML.markdown(input)))
    #expect(ReviewHTML.markdown("a ::: b") == "a ::: b")
    #expect(!Markdown.hasSpoilers(ReviewHTML.markdown("<p>::: spoiler</p><p>x</p><p>:::</p>")))
  }

  // MARK: Tags

  @Test(arguments: [
    ("a<br>b<br/>c<br />d<BR>e", "a\\\nb\\\nc\\\nd\\\ne"),
    ("a<br><br>b", "a\n\nb"),
    ("a<br /> <br />b", "a\n\nb"),
    ("a<br />\nb", "a\\\nb"),
    ("a<br/>\n\nb", "a\n\nb"),
    ("<br>a<br>", "a"),
    ("<p>one</p><p>two</p>", "one\n\ntwo"),
    ("one<p>two", "one\n\ntwo"),
    ("<p></p><p>one</p>", "one"),
  ])
  func breaksAndParagraphs(input: String, expected: String) {
    #expect(ReviewHTML.markdown(input) == expected)
  }

  @Test(arguments: [
    ("<i>all</i> small", "*all* small"),
    ("<em>x</em>", "*x*"),
    ("<b>Trust no one.</b> Not", "**Trust no one.** Not"),
    ("<strong>x</strong>", "**x**"),
    ("a<i> b </i>c", "a *b* c"),
    ("word<b>bold</b>word", "word**bold**word"),
    ("<i></i>x<b> </b>y", "x y"),
    ("<b><i>x</i></b>", "***x***"),
    ("<i>open", "*open*"),
    ("x</b></i>", "x"),
    ("<i>a<br><br>b</i>", "*a*\n\n*b*"),
    ("<i>a<br>b</i>", "*a\\\nb*"),
    ("<i>5 * 3</i>", "*5 \\* 3*"),
  ])
  func emphasis(input: String, expected: String) {
    #expect(ReviewHTML.markdown(input) == expected)
  }

  @Test(arguments: [
    ("<a href=\"https://example.com/\">the site</a>", "[the site](https://example.com/)"),
    ("<A HREF='HTTP://x.org'>t</A>", "[t](HTTP://x.org)"),
    ("<a href=https://x.org/a>t</a>", "[t](https://x.org/a)"),
    ("<a title=\"x\" href=\"https://x.org/a_(b)\">t</a>", "[t](https://x.org/a_\\(b\\))"),
    ("<a href=\"https://x.org/a b?q=1&amp;r=2\">t</a>", "[t](https://x.org/a%20b?q=1&r=2)"),
    ("<a href=\"javascript:alert(1)\">t</a>", "t"),
    ("<a href=\"/book/show/1\">t</a>", "t"),
    ("<a>t</a>", "t"),
    ("<a href=\"https://x.org\"> spaced </a>!", "[spaced](https://x.org) !"),
    ("<a href=\"https://x.org\"></a>", ""),
    ("<a href=\"https://x.org\">[1] *</a>", "[\\[1\\] \\*](https://x.org)"),
  ])
  func links(input: String, expected: String) {
    #expect(ReviewHTML.markdown(input) == expected)
  }

  @Test(arguments: [
    ("<blockquote>quoted</blockquote>after", "> quoted\n\nafter"),
    ("before<blockquote>one<br>two<br><br>three</blockquote>", "before\n\n> one\\\n> two\n>\n> three"),
    ("<blockquote>a<blockquote>b</blockquote>c</blockquote>", "> a\n>\n> > b\n>\n> c"),
    ("<blockquote># x</blockquote>", "> \\# x"),
    ("</blockquote>x", "x"),
  ])
  func blockquotes(input: String, expected: String) {
    #expect(ReviewHTML.markdown(input) == expected)
  }

  @Test(arguments: [
    ("Before <spoiler>Snape kills</spoiler> after.", "Before ||Snape kills|| after."),
    ("<spoiler>a<br><br>b</spoiler>", "||a||\n\n||b||"),
    ("<b>x <spoiler>y</spoiler></b>", "**x ||y||**"),
    ("<b>x<spoiler>y</b>z</spoiler>", "**x||y||**||z||"),
    ("a|<spoiler>b</spoiler>|c", "a|\u{200B}||b||\u{200B}|c"),
    ("<spoiler> </spoiler>x", "x"),
    ("<spoiler>unclosed", "||unclosed||"),
  ])
  func spoilers(input: String, expected: String) {
    #expect(ReviewHTML.markdown(input) == expected)
  }

  @Test func spoilersStayHidden() {
    for input in [
      "Before <spoiler>Snape kills</spoiler> after.", "<spoiler>Vader is<br><br>his father</spoiler> wow",
      "<b>x<spoiler>Rosebud</b>sled</spoiler>", "a|<spoiler>hidden</spoiler>|c", "<i>in <spoiler>italics</spoiler></i>",
      "<blockquote><spoiler>quoted secret</spoiler></blockquote>",
    ] {
      let markdown = ReviewHTML.markdown(input)
      let shown = SpoilerMarkupTests.outsideDetails(Markdown.html(markdown))
      let hidden = input.components(separatedBy: "<spoiler>")[1].components(separatedBy: "</spoiler>")[0]
      for word in Self.words(hidden) {
        #expect(!shown.contains(word), "\(word) is hidden in \(markdown.debugDescription)")
      }
      Self.expectRendered(input)
    }
  }

  @Test(arguments: [
    ("&amp; &quot;x&quot; &#39;s &#8217; &#x2014;", "& \"x\" 's ’ —"),
    ("a&nbsp;b &nbsp; c", "a b c"),
    ("&eacute;t&eacute; &Eacute;MILE &hellip; &rsquo;", "été ÉMILE … ’"),
    ("&lt;b&gt;not bold&lt;/b&gt;", "\\<b>not bold\\</b>"),
    ("&amp;copy; &amp;#39;", "\\&copy; \\&#39;"),
    ("&notanentity; &spades;", "&notanentity; &spades;"),
    ("& &; &#; &#xZZ; &#0;", "& &; &#; &#xZZ; \u{FFFD}"),
    ("&#42;not emphasis&#42;", "\\*not emphasis\\*"),
    ("&#35; heading?", "\\# heading?"),
  ])
  func entities(input: String, expected: String) {
    #expect(ReviewHTML.markdown(input) == expected)
  }

  @Test(arguments: [
    ("<span class=\"x\">kept</span> <u>too</u>", "kept too"),
    ("<div>a</div><div>b</div>", "a\n\nb"),
    ("<ul><li>One</li><li>Two</li></ul>", "One\\\nTwo"),
    ("<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>", "a b\\\nc"),
    ("<!-- note -->x<!DOCTYPE html>", "x"),
    ("<b", "\\<b"),
    ("<a href=\"x>", "\\<a href=\"x>"),
    ("<!-- never closed", "\\<!-- never closed"),
    ("<img src=\"https://x.org/a.png\">after", "after"),
  ])
  func otherTags(input: String, expected: String) {
    #expect(ReviewHTML.markdown(input) == expected)
  }

  // MARK: The services' own reviews

  @Test func goodreadsReview() {
    let review =
      "Long, and the Waterloo chapter is a detour.<br/><br/><spoiler>Javert's last walk to the bridge</spoiler> "
      + "stayed with me for weeks.\nThe sewers &amp; the barricade: unforgettable."
    #expect(
      ReviewHTML.markdown(review)
        == "Long, and the Waterloo chapter is a detour.\n\n||Javert's last walk to the bridge|| stayed with me for weeks.\nThe sewers & the barricade: unforgettable."
    )
    Self.expectRendered(review)
  }

  @Test func letterboxdReview() {
    let review =
      "Paris as a music box. Audrey Tautou's \"Amélie\" is <i>all</i> small pleasures:\ncracking crème brûlée.\n\nIt's twee, and I don't care."
    #expect(
      ReviewHTML.markdown(review)
        == "Paris as a music box. Audrey Tautou's \"Amélie\" is *all* small pleasures:\ncracking crème brûlée.\n\nIt's twee, and I don't care."
    )
    Self.expectRendered(review)
  }

  @Test(arguments: [
    ("letterboxd/reviews.csv", "Review"), ("goodreads.csv", "My Review"), ("storygraph.csv", "Review"),
  ])
  func committedExportReviews(file: String, column: String) throws {
    let table = try CSVTests.export(file)
    for record in table.records {
      Self.expectRendered(table.value(column, in: record)!)
    }
  }

  @Test func everyWordIsOnThePage() {
    for input in [
      "Seen in Japanese.<br /><br />No-Face at the <b>bathhouse</b> feast & more. 5/5, \"no notes\".",
      "See <a href=\"https://www.ursulakleguin.com/\">her site</a> for &#8220;Is Gender Necessary?&#8221;<br/>Cold.",
      "**The House** is *kind* <br>Read it_slowly [sand] > water # hash",
      "# Arrakis\nToo long. Rating: 3.75/5",
      "<blockquote>Fear is the <i>mind-killer</i></blockquote>Herbert",
      "pipes || everywhere ||| and ::: colons\n::: spoiler\nsecret\n:::",
      "<b>a<i>b</b>c</i> d", "x<y and z>w", "<ul><li>One</li><li>Two</li></ul>",
      "1. first\n2) second\n- third\n+ fourth\n===\n~~~\n    code?",
    ] {
      Self.expectRendered(input)
    }
  }

  @Test func seededInputsKeepTheirWords() {
    var generator = SplitMix(seed: 8217)
    let pieces = [
      "word", "Ünïcode", "千", " ", " ", "\n", "\n\n", "<br>", "<br/>", "<p>", "</p>", "<i>", "</i>", "<b>", "</b>", "*",
      "_", "`", "[", "]", "#", "> ", "- ", "1. ", "|", "||", ":::", "&amp;", "&#39;", "<", ">", "&", "\\", "=",
      "<blockquote>", "</blockquote>", "<a href=\"https://x.org/(a)\">", "</a>", "<span>", "</span>",
    ]
    for _ in 0..<300 {
      let input = (0..<Int(generator.next() % 20)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }
        .joined()
      let markdown = ReviewHTML.markdown(input)
      let page = Markdown.html(markdown)
      for word in Self.words(input) {
        #expect(page.contains(word), "\(word) of \(input.debugDescription) in \(markdown.debugDescription)")
      }
      #expect(!page.contains("<details"), "no spoiler in \(input.debugDescription): \(markdown.debugDescription)")
      #expect(!page.contains("raw HTML omitted"), "\(input.debugDescription)")
    }
  }
}
