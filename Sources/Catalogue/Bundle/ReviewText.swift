/// A review's body where its spoilers must not show: HTML for a preview that must carry none
/// of their words, the terminal's text with them masked, the search index's text. The public
/// face of ``Markdown``, which holds the rules; the page's own HTML, spoilers closed, is
/// ``HTML/markdown(_:)``.
public enum ReviewText {
  /// The body as HTML with each spoiler replaced by a notice holding none of its words: for
  /// feeds and previews, where a reader cannot choose to open it.
  public static func htmlHidingSpoilers(_ body: String) -> String { Markdown.html(body, spoilers: .notice) }

  /// What a share preview or a feed may say of `body` in a line: its first sentence that
  /// holds no spoiler, as plain text, at most `maximumLength` characters (cut at a word, with
  /// `…`); empty when there is none. Never any of a spoiler's words.
  public static func summary(_ body: String, maximumLength: Int = 200) -> String {
    Markdown.summary(body, maximumLength: maximumLength)
  }

  /// The body for a terminal: each spoiler as `[spoiler: 12 words]`, the rest as written.
  public static func masked(_ body: String) -> String { Markdown.masked(body) }

  /// The body as the search index is given it: without its spoilers' words.
  public static func searchable(_ body: String) -> String { Markdown.searchable(body) }

  /// How many words a reader reads in `body`, spoilers included: runs of letters and digits
  /// of its text and code, not of its link addresses or raw HTML.
  public static func wordCount(_ body: String) -> Int {
    guard let document = Markdown.Document(parsing: body) else { return SpoilerText.words(in: body) }
    return SpoilerText.words(in: document.root)
  }
}
