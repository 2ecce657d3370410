import Foundation
public import ImagePipeline

/// The catalogue's HTML: the pages of an export (one for each review, one listing them all) and
/// the parts `catalogue serve` builds its pages from, so that both look the same from one
/// source: the style sheet, a review's article, a card.
///
/// Export pages are plain HTML with the style sheet inline and no script; every field is
/// escaped, and the pages load nothing from outside their folder, so they work offline and a
/// web server can serve them as they are.
public enum HTML {
  /// Marks the pages this program writes, so that `export --force` replaces only its own.
  static let generator = #"<meta name="generator" content="catalogue">"#

  /// `text` with `&`, `<`, `>`, `"` and `'` escaped: safe in element content and in quoted
  /// attribute values.
  public static func escape(_ text: String) -> String {
    // Most text has nothing to escape: it is returned as it is, with no copy. Otherwise the
    // UTF-8 is rewritten a byte at a time (the five are ASCII, so no character is split).
    guard needsEscaping(text) else { return text }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count + 32)
    for byte in text.utf8 {
      switch byte {
      case 0x26: bytes += Array("&amp;".utf8)
      case 0x3C: bytes += Array("&lt;".utf8)
      case 0x3E: bytes += Array("&gt;".utf8)
      case 0x22: bytes += Array("&quot;".utf8)
      case 0x27: bytes += Array("&#39;".utf8)
      default: bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Whether `text` holds one of the five characters ``escape(_:)`` rewrites. On the UTF-8
  /// bytes in place when the string keeps them together (a native string does): a page checks
  /// every title, address and description it shows.
  static func needsEscaping(_ text: String) -> Bool {
    func special(_ byte: UInt8) -> Bool { byte == 0x26 || byte == 0x3C || byte == 0x3E || byte == 0x22 || byte == 0x27 }
    return text.utf8.withContiguousStorageIfAvailable { $0.contains(where: special) }
      ?? text.utf8.contains(where: special)
  }

  /// Appends `text` to `html`, escaped as ``escape(_:)`` does (which gives text with nothing
  /// to escape back as it is, with no copy).
  public static func append(escaped text: String, to html: inout String) {
    html += escape(text)
  }

  /// A picture on a page: where its original and the picture shown (a thumbnail in an export, a
  /// display rendition on the server) are, relative to the page.
  public struct Picture: Sendable {
    public var original: String
    /// The original's format: one a browser cannot show (HEIC) is linked as a download.
    public var format: ImageFormat
    /// The picture the page shows (a thumbnail, or a display rendition), and its size.
    public var shown: String
    public var width: Int
    public var height: Int
    /// What the review says of it: the description is its `alt` (a fallback naming its place
    /// when there is none), the caption is shown under it.
    public var text: PictureText
    /// The name a download of the original is given (`download="…"`), or `nil` for the
    /// browser's own.
    public var downloadName: String?
    /// The same picture at twice the density, offered to high-density screens in `srcset`
    /// (shown at `width` × `height` all the same); `nil` when there is none sharper.
    public var highDensity: String?

    public init(
      original: String, format: ImageFormat, shown: String, width: Int, height: Int, text: PictureText = PictureText(),
      downloadName: String? = nil, highDensity: String? = nil
    ) {
      self.original = original
      self.format = format
      self.shown = shown
      self.width = width
      self.height = height
      self.text = text
      self.downloadName = downloadName
      self.highDensity = highDensity
    }

    /// `src` (and `srcset` when there is a 2× picture) and the size, as an `<img>`'s attributes.
    public var sourceAttributes: String {
      var html = ""
      appendSourceAttributes(to: &html)
      return html
    }

    /// Appends ``sourceAttributes`` to `html`.
    public func appendSourceAttributes(to html: inout String) {
      html += #"src=""#
      append(escaped: shown, to: &html)
      if let highDensity {
        html += #"" srcset=""#
        append(escaped: shown, to: &html)
        html += " 1x, "
        append(escaped: highDensity, to: &html)
        html += " 2x"
      }
      html += #"" width=""#
      html += String(width)
      html += #"" height=""#
      html += String(height)
      html += #"""#
    }
  }

  /// Whether browsers show pictures of `format` themselves: JPEG, PNG, WebP and AVIF, yes;
  /// HEIC only Safari, so it is offered as a download beside its thumbnail.
  public static func browsersShow(_ format: ImageFormat) -> Bool {
    switch format {
    case .jpeg, .png, .webp, .avif, .gif: return true
    default: return false
    }
  }

  /// One review on the catalogue page.
  public struct Card: Sendable {
    public var title: String
    public var rating: Int
    public var category: Category
    public var favorite: Bool
    /// The review's page, relative to the catalogue page.
    public var page: String
    public var cover: Picture?
    /// Whether the whole review gives away what happens (``Review/containsSpoilers``): the
    /// card says so in words, so that a reader knows before opening it.
    public var containsSpoilers: Bool
    /// Whether it is a draft: marked in words on the card. Only reviewers' pages (and an
    /// export asked to include drafts) ever hold one.
    public var draft: Bool

    public init(
      title: String, rating: Int, category: Category, favorite: Bool, page: String, cover: Picture?,
      containsSpoilers: Bool = false, draft: Bool = false
    ) {
      self.title = title
      self.rating = rating
      self.category = category
      self.favorite = favorite
      self.page = page
      self.cover = cover
      self.containsSpoilers = containsSpoilers
      self.draft = draft
    }
  }

  // MARK: Pages

  /// The review as a reader sees it: title, stars, category, the cover, the body rendered from
  /// Markdown, and the other pictures as thumbnails linking to their originals.
  static func reviewPage(_ review: Review, pictures: [Picture], coverIndex: Int?) -> String {
    var lines = head(title: escape(review.title))
    lines += article(review, pictures: pictures, coverIndex: coverIndex)
    lines += ["</body>", "</html>", ""]
    return lines.joined(separator: "\n")
  }

  /// The review's `<article>`: title, stars, category, dates, the cover, the body rendered from
  /// Markdown, and the other pictures, each linking to its original. `extra` goes at the end of
  /// the header (the server's links for reviewers), as HTML; `footer` after the article (the
  /// server's links to every original), as HTML.
  ///
  /// A review that ``Review/containsSpoilers`` shows its title, facts and cover picture, and
  /// asks before the rest: the cover's caption, the body and the other pictures with their
  /// captions sit in a closed `<details class="spoiler-warning">`, which a browser does not
  /// draw (nor put in the page's text) until it is opened, by a click, Enter or Space, without
  /// any script. The cover stays outside: it is what a card shows of the review anyway. The
  /// `footer` goes inside the warning too, at its end, since it leads to the other pictures.
  public static func article(
    _ review: Review, pictures: [Picture], coverIndex: Int?, extra: String? = nil, footer: String? = nil,
    lazy: Bool = false
  ) -> [String] {
    let title = escape(review.title)
    var lines: [String] = []
    lines.append(#"<article class="review">"#)
    lines.append("<header>")
    lines.append("<h1>\(title)</h1>")
    lines.append(
      #"<p class="facts">"# + facts(review.rating, review.category, review.favorite) + "</p>")
    let created = DateText.format(review.created)
    let updated = DateText.format(review.updated)
    var dates = #"Reviewed <time datetime="\#(created)">\#(created.prefix(10))</time>"#
    if updated.prefix(10) != created.prefix(10) {
      dates += #", updated <time datetime="\#(updated)">\#(updated.prefix(10))</time>"#
    }
    lines.append(#"<p class="dates">\#(dates)</p>"#)
    if let extra { lines.append(extra) }
    lines.append("</header>")
    let warned = review.containsSpoilers
    if let coverIndex {
      lines.append(
        #"<figure class="cover">\#(linkedPicture(pictures[coverIndex], alt: "Cover of \(title)"))"#
          + (warned ? "" : figcaption(pictures[coverIndex])) + "</figure>")
    }
    let others = pictures.indices.filter { $0 != coverIndex }
    let coverCaption = coverIndex.flatMap { pictures[$0].text.caption }
    // Only when there is something to hide: an empty box that asks would say nothing.
    let asks = warned && (!review.body.isEmpty || !others.isEmpty || coverCaption != nil)
    if asks {
      lines.append(#"<details class="spoiler-warning">"#)
      lines.append("<summary>\(spoilerWarningSummary)</summary>")
      if let coverCaption {
        lines.append(#"<p class="cover-caption">Cover: "# + lineBroken(coverCaption) + "</p>")
      }
    }
    if !review.body.isEmpty {
      lines.append(#"<div class="body">"#)
      lines.append(markdown(review.body).trimmingCharacters(in: .newlines))
      lines.append("</div>")
    }
    if !others.isEmpty {
      lines.append(#"<section class="pictures">"#)
      lines.append("<h2>Pictures</h2>")
      lines.append(#"<ul class="gallery">"#)
      for index in others {
        let picture = linkedPicture(pictures[index], alt: "Picture \(index + 1) of \(title)", lazy: lazy)
        lines.append(
          pictures[index].text.caption == nil
            ? "<li>\(picture)</li>" : "<li><figure>\(picture)\(figcaption(pictures[index]))</figure></li>")
      }
      lines.append("</ul>")
      lines.append("</section>")
    }
    if asks, let footer { lines.append(footer) }
    if asks { lines.append("</details>") }
    lines.append("</article>")
    if !asks, let footer { lines.append(footer) }
    return lines
  }

  /// What the closed warning of a review that ``Review/containsSpoilers`` says: a screen
  /// reader announces it as a collapsed disclosure, so it needs no word of its own for that.
  public static let spoilerWarningSummary = "This review contains spoilers. Show it"

  /// The badges of a card: "Draft", "Spoilers", in words (never a colour alone), as a
  /// paragraph of their own.
  public static func badges(draft: Bool, containsSpoilers: Bool) -> String {
    var html = #"<p class="badges">"#
    appendBadges(draft: draft, containsSpoilers: containsSpoilers, to: &html)
    return html + "</p>"
  }

  /// The badges alone (see ``badges(draft:containsSpoilers:)``), for a row of a list.
  public static func appendBadges(draft: Bool, containsSpoilers: Bool, to html: inout String) {
    if draft { html += #"<span class="badge draft">Draft</span>"# }
    if draft && containsSpoilers { html += " " }
    if containsSpoilers { html += #"<span class="badge spoilers">Spoilers</span>"# }
  }

  /// A review's body, Markdown rendered by cmark with raw HTML left out.
  public static func markdown(_ body: String) -> String { Markdown.html(body) }

  /// Every review as a card, grouped by category (the known kinds in their order, then other
  /// labels alphabetically) and sorted by title within each group.
  static func cataloguePage(_ cards: [Card]) -> String {
    var lines = head(title: "Reviews")
    lines.append("<header>")
    lines.append("<h1>Reviews</h1>")
    lines.append(
      #"<p class="count">\#(cards.count == 1 ? "1 review" : "\(cards.count) reviews")</p>"#)
    let groups = Dictionary(grouping: cards, by: \.category)
    let categories = groups.keys.sorted { first, second in
      let (a, b) = (Category.known.firstIndex(of: first), Category.known.firstIndex(of: second))
      switch (a, b) {
      case (let a?, let b?): return a < b
      case (.some, nil): return true
      case (nil, .some): return false
      case (nil, nil): return first.rawValue.utf8.lexicographicallyPrecedes(second.rawValue.utf8)
      }
    }
    if categories.count > 1 {
      lines.append("<nav><ul>")
      for (index, category) in categories.enumerated() {
        lines.append(
          ##"<li><a href="#category-\##(index + 1)">\##(escape(category.displayName))</a> (\##(groups[category]!.count))</li>"##
        )
      }
      lines.append("</ul></nav>")
    }
    lines.append("</header>")
    if cards.isEmpty { lines.append("<p>No reviews yet.</p>") }
    for (index, category) in categories.enumerated() {
      lines.append(#"<section id="category-\#(index + 1)">"#)
      lines.append("<h2>\(escape(category.displayName))</h2>")
      lines.append(#"<ul class="cards">"#)
      let sorted = groups[category]!.sorted { first, second in
        let (a, b) = (first.title.lowercased(), second.title.lowercased())
        return a != b
          ? a.utf8.lexicographicallyPrecedes(b.utf8)
          : first.page.utf8.lexicographicallyPrecedes(second.page.utf8)
      }
      for card in sorted { lines.append(cardItem(card)) }
      lines.append("</ul>")
      lines.append("</section>")
    }
    lines += ["</body>", "</html>", ""]
    return lines.joined(separator: "\n")
  }

  // MARK: Parts

  /// One review as a card: its cover thumbnail (or a blank), title and facts, linking to its page.
  /// `heading` is the level of the card's title: one below the heading the cards are under
  /// (2 under a page's `h1`, 3 under an exported catalogue's category `h2`).
  public static func cardItem(_ card: Card, lazy: Bool = false, heading: Int = 3) -> String {
    // Written into one string, piece by piece: a page of the server holds fifty of them.
    var html = #"<li class="card">"#
    html.reserveCapacity(1024)
    html += "\n"
    if let cover = card.cover {
      // The cover repeats the title's link for the eye: hidden from screen readers and the
      // tab order (a link with only a decorative picture in it would have no name), as the
      // empty frame of a review without pictures is.
      html += #"<a href=""#
      append(escaped: card.page, to: &html)
      html += #"" aria-hidden="true" tabindex="-1"><img "#
      cover.appendSourceAttributes(to: &html)
      html += #" alt=""#
      append(escaped: cover.text.alt ?? "", to: &html)
      html += lazy ? #"" loading="lazy"></a>"# : #""></a>"#
    } else {
      html += #"<a href=""#
      append(escaped: card.page, to: &html)
      html += #"" class="no-picture" aria-hidden="true" tabindex="-1"></a>"#
    }
    let level = String(heading)
    html += "\n<h" + level + #"><a href=""#
    append(escaped: card.page, to: &html)
    html += #"">"#
    append(escaped: card.title, to: &html)
    html += "</a></h" + level + ">\n"
    html += #"<p class="facts">"#
    appendFacts(card.rating, card.category, card.favorite, to: &html)
    html += "</p>\n"
    if card.draft || card.containsSpoilers {
      html += badges(draft: card.draft, containsSpoilers: card.containsSpoilers)
      html += "\n"
    }
    html += "</li>"
    return html
  }

  /// The document's start, up to and including `<body>`. `title` is escaped already.
  ///
  /// The content security policy is a second belt: no script runs, nothing loads from
  /// elsewhere, even if something got past the escaping.
  private static func head(title: String) -> [String] {
    [
      "<!DOCTYPE html>",
      #"<html lang="en">"#,
      "<head>",
      #"<meta charset="utf-8">"#,
      #"<meta name="viewport" content="width=device-width, initial-scale=1">"#,
      #"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">"#,
      generator,
      "<title>\(title)</title>",
      "<style>",
      style,
      "</style>",
      "</head>",
      "<body>",
    ]
  }

  /// The colours of the light look: spring green (#00ff7f) as the accent, filled behind dark
  /// text; a darker green where green is text on white. Every text colour reads at 4.5:1 at
  /// least against the backgrounds it sits on, and `edge` (the outline of a field or a button)
  /// at 3:1 against the page.
  public static let lightColours: KeyValuePairs<String, String> = [
    "bg": "#fff", "surface": "#f2f7f4", "fg": "#1a1f1c", "muted": "#4f5b54", "link": "#00703a",
    "star": "#8a5d00", "line": "#d7e0da", "edge": "#6b7770", "accent": "#00ff7f", "on-accent": "#062814",
    "danger": "#b3261e", "notice": "#e3fbee", "problem": "#fdecec",
  ]

  /// The colours of the dark look: the same names, the bright green now text and outline too.
  public static let darkColours: KeyValuePairs<String, String> = [
    "bg": "#101412", "surface": "#1a201c", "fg": "#e6ede8", "muted": "#a9b5ae", "link": "#00ff7f",
    "star": "#ffc94d", "line": "#2e3833", "edge": "#7d8a83", "accent": "#00ff7f", "on-accent": "#062814",
    "danger": "#ff8a80", "notice": "#0f2d1c", "problem": "#3a1518",
  ]

  /// `colours` as CSS custom properties (`--bg: #fff; …`).
  public static func customProperties(_ colours: KeyValuePairs<String, String>) -> String {
    colours.map { "--\($0.key): \($0.value);" }.joined(separator: " ")
  }

  /// The one style sheet: export pages carry it inline, the server serves it as a file. The
  /// light look unless the system asks for dark; colours only through the custom properties
  /// above, so that a page's theme is one switch.
  public static let style = """
    :root { color-scheme: light dark; \(customProperties(lightColours)) }
    @media (prefers-color-scheme: dark) { :root { \(customProperties(darkColours)) } }
    body { font: 16px/1.5 system-ui, sans-serif; max-width: 64rem; margin: 0 auto; padding: 1rem; color: var(--fg); background: var(--bg); }
    a { color: var(--link); text-underline-offset: 0.15em; }
    a:hover { text-decoration-thickness: 2px; }
    :focus-visible { outline: 3px solid var(--link); outline-offset: 2px; }
    h1 { font-size: 1.75rem; line-height: 1.2; margin: 0.75rem 0 0.25rem; }
    h2 { font-size: 1.25rem; line-height: 1.3; }
    .facts, .dates, .count { margin: 0.25rem 0; color: var(--muted); }
    .stars { color: var(--star); letter-spacing: 0.1em; white-space: nowrap; }
    .category { margin-left: 0.5rem; }
    .favorite { margin-left: 0.5rem; color: var(--danger); }
    .cover { margin: 1rem 0; }
    .cover img { display: block; max-width: 100%; height: auto; border-radius: 6px; }
    .gallery figure { margin: 0; }
    figcaption { margin-top: 0.25rem; color: var(--muted); font-size: 0.9rem; }
    .body { margin: 1rem 0; overflow-wrap: break-word; }
    .body img { max-width: 100%; height: auto; }
    .body pre, .body table { display: block; max-width: 100%; overflow-x: auto; }
    .gallery, .cards, nav ul { list-style: none; padding: 0; }
    nav ul { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; }
    .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: 1.25rem 1rem; margin: 1rem 0; }
    .gallery { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: 1rem; }
    .gallery img { display: block; max-width: 100%; height: auto; border-radius: 6px; }
    .card { min-width: 0; }
    .card img, .no-picture { display: block; width: 100%; height: auto; aspect-ratio: 4 / 5; object-fit: contain; background: var(--surface); border-radius: 6px; }
    .card h2, .card h3 { font-size: 1rem; line-height: 1.3; margin: 0.5rem 0 0; overflow-wrap: break-word; }
    .card .facts { font-size: 0.9rem; }
    .card .category { margin-left: 0; display: inline-block; }
    .badges { display: flex; flex-wrap: wrap; gap: 0.25rem; margin: 0.25rem 0; }
    .badge { display: inline-block; font-size: 0.8rem; line-height: 1.4; padding: 0.05rem 0.5rem; border-radius: 4px; background: var(--link); color: var(--bg); }
    .badge.draft { background: var(--surface); color: var(--fg); border: 1px dashed var(--edge); }
    .badge.spoilers { background: var(--danger); color: var(--bg); }
    div.paragraph { margin: 1em 0; }
    details.spoiler, details.spoiler-warning { display: flow-root; margin: 1rem 0; border-radius: 8px; }
    details.spoiler { padding: 0.5rem 0.75rem; border: 2px solid var(--edge); background: var(--surface); }
    details.spoiler-warning { padding: 0.75rem 1rem; border: 2px solid var(--danger); }
    details.spoiler > summary, details.spoiler-warning > summary { display: inline-flex; align-items: center; gap: 0.4rem; box-sizing: border-box; min-height: 2.5rem; padding: 0.35rem 0.9rem; border: 1px solid var(--edge); border-radius: 6px; background: var(--bg); color: var(--fg); font-weight: 600; cursor: pointer; list-style: none; }
    details.spoiler > summary::-webkit-details-marker { display: none; }
    details.spoiler-warning > summary::-webkit-details-marker { display: none; }
    details.spoiler > summary::before, details.spoiler-warning > summary::before { content: "▸"; content: "▸" / ""; }
    details.spoiler[open] > summary::before, details.spoiler-warning[open] > summary::before { content: "▾"; content: "▾" / ""; }
    details.spoiler > summary:hover, details.spoiler-warning > summary:hover { border-color: var(--fg); }
    details.spoiler[open] > summary, details.spoiler-warning[open] > summary { margin-bottom: 0.5rem; }
    details.spoiler.spoiler-inline { display: inline; margin: 0; padding: 0; border: none; border-radius: 0; background: none; }
    details.spoiler.spoiler-inline > summary { display: inline; min-height: 0; margin: 0 0.1rem; padding: 0 0.4rem; border-radius: 4px; font-size: 0.9em; list-style: none; }
    details.spoiler.spoiler-inline > summary::before { content: none; }
    details.spoiler.spoiler-inline[open]::details-content { display: inline; }
    details.spoiler.spoiler-inline:not([open])::details-content { display: none; }
    @media (min-width: 48rem) {
    .review .cover { float: right; width: 45%; margin: 0 0 1rem 1.5rem; }
    .review .cover img { max-height: 80vh; width: auto; margin-left: auto; }
    .review .pictures { clear: both; }
    }
    @media (max-width: 30rem) {
    body { padding: 0.75rem; }
    .cards { grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 1rem 0.75rem; }
    }
    """

  /// Stars, category and the favourite mark, as a review's header and a card show them.
  public static func facts(_ rating: Int, _ category: Category, _ favorite: Bool) -> String {
    var text = ""
    appendFacts(rating, category, favorite, to: &text)
    return text
  }

  /// ``facts(_:_:_:)`` written at the end of `html`.
  static func appendFacts(_ rating: Int, _ category: Category, _ favorite: Bool, to html: inout String) {
    html += starSpans[min(max(rating, 0), 5)]
    html += #" <span class="category">"#
    append(escaped: category.displayName, to: &html)
    html += favorite ? #"</span> <span class="favorite">♥ Favourite</span>"# : "</span>"
  }

  /// The stars of each rating from 0 to 5, as ``facts(_:_:_:)`` shows them: made once, not for
  /// every card.
  private static let starSpans = (0...5).map { filled in
    let stars = String(repeating: "★", count: filled) + String(repeating: "☆", count: 5 - filled)
    return #"<span class="stars" role="img" aria-label="\#(filled) of 5 stars" title="\#(filled) of 5 stars">"#
      + stars + "</span>"
  }

  /// The picture's display, linking to its original; its `alt` is the review's description
  /// of it, else `fallback` (escaped already).
  private static func linkedPicture(_ picture: Picture, alt fallback: String, lazy: Bool = false) -> String {
    let alt = picture.text.alt.map(escape) ?? fallback
    let download = picture.downloadName.map { #"download="\#(escape($0))""# } ?? "download"
    let link =
      browsersShow(picture.format)
      ? #"<a href="\#(escape(picture.original))">"#
      : #"<a href="\#(escape(picture.original))" \#(download) "#
        + #"title="Download the original (\#(escape(picture.format.name)))">"#
    return link + #"<img \#(picture.sourceAttributes) alt="\#(alt)""#
      + (lazy ? #" loading="lazy"></a>"# : "></a>")
  }

  /// The picture's caption as a `<figcaption>`, its lines kept; empty without one.
  private static func figcaption(_ picture: Picture) -> String {
    guard let caption = picture.text.caption else { return "" }
    return "<figcaption>" + lineBroken(caption) + "</figcaption>"
  }

  /// `text` escaped, its lines kept as `<br>`.
  private static func lineBroken(_ text: String) -> String {
    escape(text).replacingOccurrences(of: "\n", with: "<br>")
  }
}
