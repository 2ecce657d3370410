import Foundation

/// Turns what a user types into an FTS5 query that cannot be a syntax error.
///
/// Words must all occur (in any order); `word*` matches words starting with `word`;
/// `"several words"` matches that phrase. Everything else the FTS5 grammar gives meaning to
/// (parentheses, `NEAR`, column filters, stray quotes) is taken as plain text.
enum SearchQuery {
  /// The FTS5 expression for `text`; `.invalidQuery` when it cannot be asked: no letters or
  /// digits to look for, or a NUL, which SQLite's FTS5 reads as the end of the query.
  static func fts5(_ text: String) throws(CatalogueError) -> String {
    if text.unicodeScalars.contains("\0") {
      throw .invalidQuery("a search cannot hold a NUL character (U+0000): leave it out")
    }
    guard let expression = expression(text) else {
      throw .invalidQuery("search \"\(text)\" has no words to look for: give letters or digits")
    }
    return expression
  }

  private static func expression(_ text: String) -> String? {
    var terms: [String] = []
    var scalars = Substring(text).unicodeScalars[...]
    func quoted(_ term: some StringProtocol) -> String {
      "\"" + term.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
    while let first = scalars.first {
      if first.properties.isWhitespace {
        scalars = scalars.dropFirst()
        continue
      }
      if first == "\"" {
        let rest = scalars.dropFirst()
        let end = rest.firstIndex(of: "\"") ?? rest.endIndex
        let phrase = String(String.UnicodeScalarView(rest[..<end])).trimmingWhitespace()
        if !phrase.isEmpty { terms.append(quoted(phrase)) }
        scalars = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
        continue
      }
      let end = scalars.firstIndex { $0.properties.isWhitespace || $0 == "\"" } ?? scalars.endIndex
      var word = String(String.UnicodeScalarView(scalars[..<end]))
      scalars = scalars[end...]
      let prefix = word.hasSuffix("*")
      while word.hasSuffix("*") { word.removeLast() }
      // A word of punctuation alone matches nothing the tokenizer keeps.
      guard word.unicodeScalars.contains(where: { $0.properties.isAlphabetic || $0.properties.numericType != nil })
      else { continue }
      terms.append(quoted(word) + (prefix ? "*" : ""))
    }
    return terms.isEmpty ? nil : terms.joined(separator: " ")
  }
}
