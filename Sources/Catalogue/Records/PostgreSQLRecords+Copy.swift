import Foundation

/// Copying a library's records into, or out of, the PostgreSQL store (see ``RecordTables``).
extension PostgreSQLRecords {
  /// A column's name here: `user` is a reserved word in PostgreSQL, and the column is
  /// `reviewer`.
  private static func name(_ column: String) -> String { column == "user" ? "reviewer" : column }

  func rows(of table: RecordTables.Table, after: [String]?, limit: Int) throws(CatalogueError) -> [[String?]] {
    let keys = table.key.map(Self.name).joined(separator: ", ")
    var sql = "SELECT \(table.columns.map { Self.name($0.name) }.joined(separator: ", ")) FROM \(table.name)"
    var parameters: [PostgreSQLValue?] = []
    if let after {
      sql += " WHERE (\(keys)) > (\((1...after.count).map { "$\($0)" }.joined(separator: ", ")))"
      parameters = after.map(PostgreSQLValue.text)
    }
    sql += " ORDER BY \(keys) LIMIT \(limit)"
    let result = try postgreSQL { () throws(PostgreSQLError) in try connection.execute(sql, parameters) }
    return (0..<result.rowCount).map { row in
      table.columns.enumerated().map { column, description -> String? in
        guard let text = result.string(row: row, column: column) else { return nil }
        guard description.kind == .flag else { return text }
        return text == "t" ? "1" : "0"
      }
    }
  }

  func rowCount(of table: RecordTables.Table) throws(CatalogueError) -> Int {
    let result = try postgreSQL { () throws(PostgreSQLError) in
      try connection.execute("SELECT count(*) FROM \(table.name)")
    }
    return Int(result.string(row: 0, column: 0) ?? "") ?? 0
  }

  func lastKey(of table: RecordTables.Table) throws(CatalogueError) -> [String]? {
    let keys = table.key.map(Self.name)
    let result = try postgreSQL { () throws(PostgreSQLError) in
      try connection.execute(
        "SELECT \(keys.joined(separator: ", ")) FROM \(table.name) ORDER BY "
          + keys.map { "\($0) DESC" }.joined(separator: ", ") + " LIMIT 1")
    }
    guard result.rowCount > 0 else { return nil }
    return (0..<keys.count).map { result.string(row: 0, column: $0) ?? "" }
  }

  func insertRows(_ rows: [[String?]], into table: RecordTables.Table) throws(CatalogueError) {
    guard !rows.isEmpty else { return }
    let width = table.columns.count
    // At most 65,535 parameters a statement.
    for batch in stride(from: 0, to: rows.count, by: max(1, 60_000 / width)) {
      let chunk = rows[batch..<min(rows.count, batch + max(1, 60_000 / width))]
      var values: [String] = []
      var parameters: [PostgreSQLValue?] = []
      for row in chunk {
        let first = parameters.count + 1
        values.append("(" + (first..<first + width).map { "$\($0)" }.joined(separator: ", ") + ")")
        parameters += row.map { $0.map(PostgreSQLValue.text) }
      }
      let sql =
        "INSERT INTO \(table.name) (\(table.columns.map { Self.name($0.name) }.joined(separator: ", "))) VALUES "
        + values.joined(separator: ", ") + " ON CONFLICT DO NOTHING"
      _ = try postgreSQL { () throws(PostgreSQLError) in try connection.execute(sql, parameters) }
    }
  }

  func rederive() throws(CatalogueError) {
    try rebuildSearchIndex()
    try postgreSQL { () throws(PostgreSQLError) in
      _ = try connection.execute("SELECT catalogue_refresh_cards(ARRAY(SELECT id FROM reviews))")
      // The next review's number follows the copied ones.
      _ = try connection.execute(
        "SELECT setval(pg_get_serial_sequence('reviews', 'seq'), coalesce(max(seq), 1), max(seq) IS NOT NULL) "
          + "FROM reviews")
    }
  }
}
