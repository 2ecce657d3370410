/// The page of a search by relevance once a store has scored its window: the rule both stores
/// keep. The window is the newest matches of the search (at most the library's ranking window);
/// they come first, best first, ties in the order the reviews were added; when the search
/// matches more, the older ones follow, newest first, and the total is estimated from how far
/// back into the reviews the window reached. Reversed: the rest first, oldest first, then the
/// window, worst first.
struct RankedWindow {
  /// The window's reviews (their `seq`), each with its score.
  var scored: [(seq: Int, score: Double)]
  /// Whether a score ranks above another (SQLite's BM25: lower; PostgreSQL's `ts_rank`: higher).
  var ranksAbove: (Double, Double) -> Bool
  /// The `seq` of the newest match left out of the window, or `nil` when the window holds every
  /// match.
  var boundary: Int?
  /// The lowest and highest `seq` of the reviews, for the estimate.
  var first: Int
  var last: Int

  /// The page from `offset`, `limit` long; `rest(ascending, limit, offset)` gives the matches
  /// past the window in `seq` order, and `restCount()` how many there are.
  func page<Failure: Error>(
    reversed: Bool, limit: Int, offset: Int,
    rest: (_ ascending: Bool, _ limit: Int, _ offset: Int) throws(Failure) -> [Int],
    restCount: () throws(Failure) -> Int
  ) throws(Failure) -> (total: Int, totalIsEstimate: Bool, seqs: [Int]) {
    // Only as many as a page reaches are put in order.
    func ranked(through end: Int) -> [Int] {
      SQLiteRecords.first(end, of: scored) {
        $0.score != $1.score ? ranksAbove($0.score, $1.score) != reversed : $0.seq < $1.seq
      }.map(\.seq)
    }
    guard let boundary else {
      return (scored.count, false, Array(ranked(through: offset + limit).dropFirst(offset)))
    }
    // How many match, from how far back into the reviews the window reached, in two
    // significant digits (it is an estimate).
    let reached = Double(max(1, last - boundary))
    let estimate = max(
      scored.count + 1, SQLiteRecords.twoDigits(Double(scored.count) * Double(last - first + 1) / reached))
    if !reversed {
      var page = Array(ranked(through: offset + limit).dropFirst(offset))
      if page.count < limit {
        page += try rest(false, limit - page.count, max(0, offset - scored.count))
      }
      return (estimate, true, page)
    }
    var page = try rest(true, limit, offset)
    if page.count < limit {
      let start = max(0, offset - (try restCount()))
      page += ranked(through: start + limit - page.count).dropFirst(start)
    }
    return (estimate, true, page)
  }
}

extension ReviewQuery.Sort {
  /// The `ORDER BY` of a list in this order of the reviews `r`, `title` being how the store
  /// writes a title's key (ASCII letters folded). Ties break on `seq`, which every index of a
  /// list ends with, so that an index alone gives the order and a deep page needs no sort. Empty
  /// for relevance, which the store ranks itself.
  func sql(reversed: Bool, title: String) -> String {
    switch (self, reversed) {
    case (.title, false): return "\(title) ASC, r.seq ASC"
    case (.title, true): return "\(title) DESC, r.seq DESC"
    case (.rating, false): return "r.rating DESC, \(title) ASC, r.seq ASC"
    case (.rating, true): return "r.rating ASC, \(title) DESC, r.seq DESC"
    case (.created, false): return "r.created DESC, r.seq DESC"
    case (.created, true): return "r.created ASC, r.seq ASC"
    case (.updated, false): return "r.updated DESC, r.seq DESC"
    case (.updated, true): return "r.updated ASC, r.seq ASC"
    case (.relevance, _): return ""
    }
  }
}
