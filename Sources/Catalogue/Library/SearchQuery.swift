import Foundation

/// Turns what a user types into a search that cannot be a syntax error, and that costs a
/// bounded amount to answer: the terms a record store looks for, each store in its own
/// language (``SQLiteRecords`` as an FTS5 expression).
///
/// Words must all occur (in any order); `word*` matches words starting with `word`;
/// `"several words"` matches that phrase. Everything else a search grammar gives meaning to
/// (parentheses, `NEAR`, column filters, stray quotes) is taken as plain text. The words are
/// normalised as the index normalises the text (``SearchText``): a Chinese or Japanese word is
/// looked for as the phrase of its pairs of characters, a single character as a prefix.
///
/// Every word costs a walk through its list of reviews, and ranking by relevance costs a score
/// per word for every review that matches, so a search is refused (never cut short silently)
/// past ``maximumWords`` words or ``maximumCharacters`` characters, or with a prefix shorter
/// than ``minimumPrefix``, which would merge the lists of thousands of words; and what is
/// left is bounded by the record store in its own work (SQLite's steps, see
/// ``SQLiteRecords``), past which it is refused as ``tooBroad``.
enum SearchQuery {
  /// The most words a search looks for, a phrase's words included.
  static let maximumWords = 32
  /// The longest search, in characters.
  static let maximumCharacters = 1000
  /// The fewest letters or digits before a `*`: the full-text index keeps the lists of
  /// prefixes of 2 and 3 (`prefix = '2 3'`), and a 2-letter prefix still takes the words of a
  /// thirtieth of the vocabulary, whose relevance is costly to score.
  static let minimumPrefix = 3

  /// How many of a search's matches are ranked by relevance: the newest this many. Finding
  /// them is a walk down FTS5's lists that stops there, and scoring each costs about half a
  /// microsecond, so that a search by relevance costs at most a millisecond or so on any
  /// library, whatever its words (a page of 50 costs about as much again to write). A search
  /// matching more (one review in fifty of 100,000) shows the best of its newest matches first,
  /// then the older ones newest first, and its total is estimated; ranking every match of a
  /// word in most of 100,000 reviews would cost fifty times as much.
  static let rankingWindow = 2_000

  /// What a search that costs the record store more than it allows says.
  static let tooBroad =
    "this search matches too much to rank: narrow it with rarer words, longer prefixes or a filter"

  /// A search as a record store is asked it: every term must occur.
  struct Parsed: Equatable {
    /// The terms, each a word or a phrase of words (normalised as the index is given them),
    /// the last word of each a prefix when `prefix`.
    var terms: [Term]

    /// The words it looks for, a phrase's words included.
    var words: Int { terms.reduce(0) { $0 + $1.words.count } }
  }

  /// A word, or a phrase of several, to look for.
  struct Term: Equatable {
    var words: [String]
    /// Whether the last word matches every word that starts with it.
    var prefix: Bool
  }

  /// `text` as a record store is asked it; `.invalidQuery` when it cannot be asked: no
  /// letters or digits to look for, a NUL (which SQLite's FTS5 reads as the end of the query,
  /// and PostgreSQL's text cannot hold), or past the limits above.
  static func parse(_ text: String) throws(CatalogueError) -> Parsed {
    if text.unicodeScalars.contains("\0") {
      throw .invalidQuery("a search cannot hold a NUL character (U+0000): leave it out")
    }
    let terms = self.terms(text)
    let words = terms.reduce(0) { $0 + $1.words.count }
    if words > maximumWords {
      throw .invalidQuery(
        "a search of \(words) words is too many: at most \(maximumWords) are looked for; leave some out")
    }
    let characters = text.count
    if characters > maximumCharacters {
      throw .invalidQuery(
        "a search of \(characters) characters is too long: at most \(maximumCharacters) are taken; shorten it")
    }
    // A Chinese, Japanese or Korean character is a pair's first: one is prefix enough.
    let tooShort = terms.first { $0.typedPrefix && !$0.endsInCJK && ($0.words.last?.count ?? 0) < minimumPrefix }
    if let short = tooShort {
      throw .invalidQuery(
        "search term \"\(short.text)*\" is too short a prefix: give at least \(minimumPrefix) letters or digits before the *"
      )
    }
    guard !terms.isEmpty else {
      throw .invalidQuery("search \"\(text)\" has no words to look for: give letters or digits")
    }
    return Parsed(terms: terms.map { Term(words: $0.words, prefix: $0.prefix) })
  }

  /// A word or a phrase as typed (without its quotes or `*`), the words the index will be asked
  /// for in it (normalised as the index is given them), and whether its last is a prefix: typed so, or
  /// a single Chinese, Japanese or Korean character.
  private struct Typed {
    var text: String
    var words: [String]
    var typedPrefix: Bool
    var prefix: Bool
    /// Whether the last word is Chinese, Japanese or Korean: the minimum length of a prefix
    /// does not apply (a pair is two characters).
    var endsInCJK: Bool

    init?(_ text: String, typedPrefix: Bool) {
      let segments = SearchText.segments(of: text)
      let (words, lastIsPrefix) = SearchText.searchTokens(segments)
      // Punctuation alone matches nothing the tokenizer keeps.
      guard !words.isEmpty else { return nil }
      self.text = text
      self.words = words
      self.typedPrefix = typedPrefix
      self.prefix = typedPrefix || lastIsPrefix
      self.endsInCJK = segments.last?.cjk ?? false
    }
  }

  private static func terms(_ text: String) -> [Typed] {
    var terms: [Typed] = []
    var scalars = Substring(text).unicodeScalars[...]
    while let first = scalars.first {
      if first.properties.isWhitespace {
        scalars = scalars.dropFirst()
        continue
      }
      if first == "\"" {
        let rest = scalars.dropFirst()
        let end = rest.firstIndex(of: "\"") ?? rest.endIndex
        let phrase = String(String.UnicodeScalarView(rest[..<end])).trimmingWhitespace()
        if let term = Typed(phrase, typedPrefix: false) { terms.append(term) }
        scalars = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
        continue
      }
      let end = scalars.firstIndex { $0.properties.isWhitespace || $0 == "\"" } ?? scalars.endIndex
      var word = String(String.UnicodeScalarView(scalars[..<end]))
      scalars = scalars[end...]
      let prefix = word.hasSuffix("*")
      while word.hasSuffix("*") { word.removeLast() }
      if let term = Typed(word, typedPrefix: prefix) { terms.append(term) }
    }
    return terms
  }
}
