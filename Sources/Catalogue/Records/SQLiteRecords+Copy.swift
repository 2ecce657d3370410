import Foundation

/// Copying a library's records into, or out of, the SQLite store (see ``RecordTables``).
extension SQLiteRecords {
  func rows(of table: RecordTables.Table, after: [String]?, limit: Int) throws(CatalogueError) -> [[String?]] {
    let keys = table.key.joined(separator: ", ")
    var statement = "SELECT \(table.columns.map(\.name).joined(separator: ", ")) FROM \(table.name)"
    var arguments: [SQLValue] = []
    if let after {
      statement += " WHERE (\(keys)) > (\(Array(repeating: "?", count: after.count).joined(separator: ", ")))"
      arguments = zip(table.key, after).map { name, value in Self.value(value, kind: Self.kind(of: name, in: table)) }
    }
    statement += " ORDER BY \(keys) LIMIT ?"
    let count = Int32(table.columns.count)
    return try sql { () throws(DatabaseError) in
      try database.query(statement, arguments + [SQLValue(limit)]) { row in
        (0..<count).map { column -> String? in
          switch row.value(column) {
          case .null: return nil
          case .integer(let number): return String(number)
          case .real(let number): return String(number)
          case .text(let text): return text
          case .blob(let bytes): return String(decoding: bytes, as: UTF8.self)
          }
        }
      }
    }
  }

  func rowCount(of table: RecordTables.Table) throws(CatalogueError) -> Int {
    try sql { () throws(DatabaseError) in
      try database.query("SELECT count(*) FROM \(table.name)") { $0.int(0) }.first ?? 0
    }
  }

  func lastKey(of table: RecordTables.Table) throws(CatalogueError) -> [String]? {
    let keys = table.key.joined(separator: ", ")
    let descending = table.key.map { "\($0) DESC" }.joined(separator: ", ")
    let count = Int32(table.key.count)
    return try sql { () throws(DatabaseError) in
      try database.query("SELECT \(keys) FROM \(table.name) ORDER BY \(descending) LIMIT 1") { row in
        (0..<count).map { row.text($0) }
      }.first
    }
  }

  func insertRows(_ rows: [[String?]], into table: RecordTables.Table) throws(CatalogueError) {
    let names = table.columns.map(\.name)
    let statement =
      "INSERT INTO \(table.name) (\(names.joined(separator: ", "))) VALUES "
      + "(\(Array(repeating: "?", count: names.count).joined(separator: ", "))) ON CONFLICT DO NOTHING"
    try sql { () throws(DatabaseError) in
      for row in rows {
        try database.run(
          statement, zip(table.columns, row).map { column, value in Self.value(value, kind: column.kind) })
      }
    }
  }

  func rederive() throws(CatalogueError) {
    try rebuildSearchIndex()
    try sql { () throws(DatabaseError) in try database.run(Schema.refreshCards(where: "1")) }
  }

  private static func kind(of column: String, in table: RecordTables.Table) -> RecordTables.Kind {
    table.columns.first { $0.name == column }?.kind ?? .text
  }

  private static func value(_ text: String?, kind: RecordTables.Kind) -> SQLValue {
    guard let text else { return .null }
    switch kind {
    case .text: return .text(text)
    case .integer, .flag: return Int64(text).map(SQLValue.integer) ?? .text(text)
    }
  }
}
