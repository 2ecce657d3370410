import CSQLiteShims

/// The full-text index of the reviews (schema 5): what it is given, and the SQL functions a
/// connection defines to keep it and to rank with it.
///
/// `reviews_fts` is an FTS5 table whose content is the view `reviews_search`: each review's
/// title and body as ``SearchText`` normalises them (`catalogue_search_text`), the body
/// without the words of its spoilers (`catalogue_searchable`, from schema 9), under
/// a key (`catalogue_search_key`) that is the review's `seq` shifted left by ``lengthBits``,
/// with the number of words the review indexes in the bits below, which relevance reads
/// (`CSQLiteShims.h`). The key's order is `seq`'s: the newest matches come first from the top.
///
/// The functions are Swift, defined by each connection of ours (``prepare(_:)``); so are the
/// triggers that keep the index in step (TEMP triggers, ``Schema/connectionSQL``). The sqlite3
/// shell, which has neither, can still edit a library by hand: the index is then out of step
/// where it edited, `check` says so and `check --repair` rebuilds it from the view.
enum SearchIndex {
  /// The bits of a key below the review's `seq`.
  static let lengthBits = Int(CSQLITESHIMS_LENGTH_BITS)
  /// The longest length a key holds; a longer review is taken to have this many words, which
  /// changes its relevance by next to nothing.
  static let longestLength = (1 << lengthBits) - 1

  /// The key of a review in the index.
  static func key(seq: Int64, title: String, body: String) -> Int64 {
    seq << Int64(lengthBits) | Int64(min(SearchText.wordCount(title, body), longestLength))
  }

  /// Defines on `database` the functions the index's view and triggers call, and the ranking.
  static func prepare(_ database: Database) throws(DatabaseError) {
    try database.defineFunction("catalogue_search_text", argumentCount: 1) { arguments in
      .text(SearchText.indexed(text(arguments[0])))
    }
    // What of a body the index holds (schema 9): the body without its spoilers' words. The
    // view asks it twice for each row (its words, and their count in the key), and a body with
    // spoilers is parsed for it: the last answer is kept, for the second asking.
    let last = LastSearchable()
    try database.defineFunction("catalogue_searchable", argumentCount: 1) { arguments in
      let body = text(arguments[0])
      if body != last.body {
        last.body = body
        last.searchable = Markdown.searchable(body)
      }
      return .text(last.searchable)
    }
    try database.defineFunction("catalogue_search_key", argumentCount: 3) { arguments in
      guard case .integer(let seq) = arguments[0] else { return .null }
      return .integer(key(seq: seq, title: text(arguments[1]), body: text(arguments[2])))
    }
    try database.defineRanking()
  }

  /// The body `catalogue_searchable` was last asked for, and its answer: one a connection,
  /// which one thread at a time uses.
  private final class LastSearchable {
    var body = ""
    var searchable = ""
  }

  /// A value as text, as SQLite would give it to FTS5 (a column edited by hand may hold a
  /// number).
  private static func text(_ value: SQLValue) -> String {
    switch value {
    case .null: return ""
    case .integer(let number): return String(number)
    case .real(let number): return String(number)
    case .text(let text): return text
    case .blob(let bytes): return String(decoding: bytes, as: UTF8.self)
    }
  }
}
