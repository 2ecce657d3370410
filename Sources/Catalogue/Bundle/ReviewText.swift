/// A review's body as each place shows it: the page's HTML with its spoilers closed, HTML for
/// a preview that must carry none of their words, the terminal's text with them masked. The
/// public face of ``Markdown``, which holds the rules.
public enum ReviewText {
  /// The body as a review's page shows it: Markdown rendered by cmark with raw HTML left out,
  /// each spoiler inside a closed `<details class="spoiler">`.
  public static func html(_ body: String) -> String { Markdown.html(body) }

  /// The body as HTML with each spoiler replaced by a notice holding none of its words: for
  /// feeds and previews, where a reader cannot choose to open it.
  public static func htmlHidingSpoilers(_ body: String) -> String { Markdown.html(body, spoilers: .notice) }

  /// The body for a terminal: each spoiler as `[spoiler: 12 words]`, the rest as written.
  public static func masked(_ body: String) -> String { Markdown.masked(body) }

  /// The body as the search index is given it: without its spoilers' words.
  public static func searchable(_ body: String) -> String { Markdown.searchable(body) }

  /// Whether the body holds a spoiler.
  public static func hasSpoilers(_ body: String) -> Bool { Markdown.hasSpoilers(body) }

  /// How many words a reader reads in `body`, spoilers included: runs of letters and digits
  /// of its text and code, not of its link addresses or raw HTML.
  public static func wordCount(_ body: String) -> Int {
    guard let document = Markdown.Document(parsing: body) else { return SpoilerText.words(in: body) }
    return SpoilerText.words(in: document.root)
  }
}
