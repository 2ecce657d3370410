import Foundation

/// The full-text index of the PostgreSQL store: what `reviews.search` is given, and the
/// `tsquery` a search is asked as.
///
/// PostgreSQL's parser splits text into words by the database's locale (in the C locale every
/// letter outside ASCII would split a word), so the store never asks it to: the words are
/// ``SearchText``'s, as SQLite's index is given them (the body without its spoilers' words), then
/// folded as SQLite's `unicode61` tokenizer folds them (case, and accents with
/// `remove_diacritics 2`), and written as a `tsvector` literal with their positions, the
/// title's weighted `A` and the body's `B`. A search's terms are folded the same way and
/// written as a `tsquery` literal: a phrase as its words `<->` in a row, a prefix with `:*`.
///
/// PostgreSQL bounds a `tsvector`: a word of at most 2,046 bytes, positions up to 16,383 (a
/// later word is at 16,383), 256 positions a word, 1 MB in all. A longer word is left out (no
/// search could type it); past 16,383 words, phrases are not found across the rest; a body
/// whose index would pass 1 MB keeps its first 1 MB of words.
enum PostgreSQLSearch {
  static let longestWord = 2_046
  static let lastPosition = 16_383
  static let positionsAWord = 256
  static let largestVector = 1_000_000

  /// What a review's title and body give the index: the `tsvector` literal, and the number of
  /// words (relevance's length).
  static func document(title: String, body: String) -> (vector: String, length: Int) {
    var positions: [String: [String]] = [:]
    var order: [String] = []
    var position = 0
    var bytes = 0
    var length = 0
    words: for (text, weight) in [(title, "A"), (Markdown.searchable(body), "B")] {
      for word in SearchText.indexed(text).split(separator: " ") {
        length += 1
        position = min(position + 1, lastPosition)
        let folded = fold(word)
        guard !folded.isEmpty, folded.utf8.count <= longestWord else { continue }
        if positions[folded] == nil {
          // The word itself, quoted, and a position or two.
          bytes += folded.utf8.count + 8
          guard bytes < largestVector else { break words }
          order.append(folded)
          positions[folded] = []
        }
        guard positions[folded]!.count < positionsAWord else { continue }
        positions[folded]!.append("\(position)\(weight)")
      }
    }
    let vector = order.map { quoted($0) + ":" + positions[$0]!.joined(separator: ",") }.joined(separator: " ")
    return (vector, length)
  }

  /// A search as a `tsquery` literal: every term must occur.
  static func query(_ search: SearchQuery.Parsed) -> String {
    search.terms.map { term in
      let words = term.words.map { fold(Substring($0)) }.filter { !$0.isEmpty }
      var parts = words.map(quoted)
      if term.prefix, !parts.isEmpty { parts[parts.count - 1] += ":*" }
      let phrase = parts.joined(separator: " <-> ")
      return parts.count > 1 ? "(" + phrase + ")" : phrase
    }.filter { !$0.isEmpty }.joined(separator: " & ")
  }

  /// `word` as the index keeps it: lower case, accents taken off, as SQLite's `unicode61`
  /// (`remove_diacritics 2`) keeps it.
  static func fold(_ word: Substring) -> String {
    if word.utf8.allSatisfy({ $0 < 0x80 }) { return word.lowercased() }
    return String(word).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
  }

  /// A word quoted for a `tsvector` or `tsquery` literal.
  private static func quoted(_ word: String) -> String {
    "'" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
  }

  /// `items` as a PostgreSQL array literal of text.
  static func array(_ items: [String]) -> String {
    "{"
      + items.map {
        "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
      }.joined(separator: ",") + "}"
  }
}
