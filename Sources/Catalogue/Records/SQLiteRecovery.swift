import Foundation

/// What SQLite's integrity check says of the database, and of the search index.
struct DatabaseDamage: Sendable, Equatable {
  /// What `PRAGMA integrity_check` reported besides "ok", and why it stopped when it could not
  /// finish (a page it cannot read at all).
  var problems: [String] = []
  /// Why the search index is unusable ("vtable constructor failed", a damaged page), or nil.
  var searchIndex: String?

  var isWhole: Bool { problems.isEmpty && searchIndex == nil }
}

/// What rebuilding the database from its damaged file read, table by table.
struct RecoveryReport: Sendable, Equatable {
  struct Table: Sendable, Equatable {
    var name: String
    /// Rows read from the table itself.
    var read: Int
    /// Rows the table's pages no longer give, put together from what its indexes hold (the
    /// columns they hold; the others as the schema's default, or empty).
    var fromIndexes: [String]
    /// Rows known to have been there (from the indexes) that neither gives.
    var lost: Int
  }

  var tables: [Table]
}

extension SQLiteRecords {
  // MARK: How damaged

  /// What SQLite's integrity check (or its quick check) and FTS5's own check find. Never fails
  /// on damage: a check that cannot go on says so as its last problem.
  func damage(quick: Bool) -> DatabaseDamage {
    var found = DatabaseDamage()
    do {
      let statement = try database.statement(quick ? "PRAGMA quick_check" : "PRAGMA integrity_check")
      while try statement.step() {
        // One row can hold several lines, under a heading that names the database.
        for line in statement.text(0).split(separator: "\n") where line != "ok" && !line.hasPrefix("*** in database") {
          found.problems.append(String(line))
        }
      }
    } catch {
      found.problems.append("the check stopped: \(error.message)")
    }
    // FTS5's check is a write, which a library that can only be read cannot make: there, the
    // index goes unchecked.
    guard !database.isReadOnly else { return found }
    do {
      try database.run("INSERT INTO reviews_fts (reviews_fts, rank) VALUES ('integrity-check', 1)")
    } catch {
      // SQLITE_CORRUPT_VTAB (267) and plain SQLITE_CORRUPT mean "out of step" unless the
      // table's own pages are damaged, which the integrity check names; anything else (its
      // configuration unreadable: "vtable constructor failed") is a damaged index.
      if error.primaryCode != 11 || !found.problems.isEmpty {
        found.searchIndex =
          error.message.hasPrefix("vtable constructor failed")
          ? "its settings cannot be read" : "some of its pages cannot be read"
      }
    }
    return found
  }

  // MARK: A copy kept aside

  func keepCopy(in path: String) throws(CatalogueError) {
    for (file, name) in [(Database.OwnFile.database, LibraryLayout.database), (.log, LibraryLayout.database + "-wal")] {
      let target = "\(path)/\(name)"
      let descriptor: FileDescriptor
      do {
        descriptor = try FileDescriptor.open(target, .writeOnly, options: [.create, .exclusive])
      } catch {
        throw .io(operation: .create, path: target, code: error.rawValue)
      }
      var wrote = false
      do throws(CatalogueError) {
        try database.readOwnFile(file) { (bytes) throws(CatalogueError) in
          wrote = true
          do throws(Errno) {
            try descriptor.write(all: bytes)
          } catch {
            throw .io(operation: .write, path: target, code: error.rawValue)
          }
        }
        do throws(Errno) {
          try descriptor.sync()
        } catch {
          throw .io(operation: .sync, path: target, code: error.rawValue)
        }
      } catch {
        descriptor.close()
        throw error
      }
      descriptor.close()
      // No log open (the database is not in WAL mode): no empty file for it.
      if !wrote && file == .log { try? FileSystem.remove(target) }
    }
    do {
      try FileSystem.syncFolder(path)
    } catch {
      throw .io(operation: .syncFolder, path: path, code: error.rawValue)
    }
  }

  // MARK: Repairs in place

  /// Rebuilds every index and the search index from the tables, in one transaction; whether
  /// the database is whole afterwards. A damaged table is beyond it (an index is rebuilt from
  /// its table), and so is an index whose damaged pages cannot even be freed: then nothing
  /// changes.
  func rebuildIndexes() throws(CatalogueError) -> Bool {
    do {
      try database.writeTransaction { () throws(CatalogueError) in
        do throws(DatabaseError) {
          try database.execute("REINDEX")
          try database.run("INSERT INTO reviews_fts (reviews_fts) VALUES ('rebuild')")
        } catch {
          throw CatalogueError(error)
        }
        // Still damaged: the transaction is rolled back, nothing half-done stays.
        guard damage(quick: false).isWhole else { throw .internalFailure("the indexes did not make it whole") }
      }
      return true
    } catch {
      if case .database(let cause) = error, cause.kind == .busy { throw error }
      return false
    }
  }

  // MARK: Rebuilding the whole database

  /// Builds a new database at `path` from every row of this one that still reads (rows whose
  /// pages are damaged put together from the table's indexes where they hold them), rebuilds
  /// its search index, checks it, and then makes it this database's content, page for page,
  /// as one transaction (SQLite's backup), so that no process that has the library open is
  /// left with a file taken from under it. The new file is removed once copied in.
  func rebuild(into path: String) throws(CatalogueError) -> RecoveryReport {
    let version = (try? Schema.version(of: database)).flatMap { $0 > 0 && $0 <= Schema.current ? $0 : nil }
    let fresh: Database
    do {
      fresh = try Database(path: path, create: true)
      try fresh.execute("PRAGMA foreign_keys = OFF; PRAGMA synchronous = OFF")
    } catch {
      throw CatalogueError(error)
    }
    // Copied in by then (or not needed): a file left here would hold only a copy.
    defer { try? FileSystem.remove(path) }
    try Schema.migrate(
      fresh, path: path, migrations: Schema.migrations.filter { $0.version <= (version ?? Schema.current) })
    var report = RecoveryReport(tables: [])
    do {
      try fresh.execute("BEGIN")
      for table in try Self.tables(of: fresh) {
        report.tables.append(try copy(table, into: fresh))
      }
      try fresh.run("INSERT INTO reviews_fts (reviews_fts) VALUES ('rebuild')")
      // The cards from the links as they were copied, whatever the copied rows said.
      if (version ?? Schema.current) >= Schema.cardVersion { try fresh.run(Schema.refreshCards(where: "1")) }
      try fresh.execute("COMMIT")
      let check = try fresh.query("PRAGMA integrity_check") { $0.text(0) }
      guard check == ["ok"] else {
        throw CatalogueError.internalFailure(
          "the rebuilt database fails its own check: " + check.prefix(3).joined(separator: "; "))
      }
      try database.replaceContents(with: fresh)
      try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    } catch let error as DatabaseError {
      throw CatalogueError(error)
    } catch let error as CatalogueError {
      throw error
    } catch {
      throw .internalFailure("\(error)")
    }
    return report
  }

  /// An ordinary table of the schema, as the rebuild copies it.
  private struct TableShape {
    var name: String
    var withoutRowID: Bool
    var columns: [String]
    /// The primary key's columns (WITHOUT ROWID tables), in key order.
    var primaryKey: [String]
    /// Each column's value when nothing else says it: its default, else empty text or 0.
    var fallbacks: [String: SQLValue]
  }

  /// The ordinary tables of `database` (not SQLite's own, not a virtual table or its shadow
  /// tables, which are rebuilt), with their columns.
  private static func tables(of database: Database) throws(DatabaseError) -> [TableShape] {
    let listed = try database.query("PRAGMA table_list") { ($0.text(0), $0.text(1), $0.text(2), $0.int(4)) }
    var shapes: [TableShape] = []
    for (schema, name, type, withoutRowID) in listed
    where schema == "main" && type == "table" && !name.hasPrefix("sqlite_") {
      let info = try database.query("PRAGMA table_info(\(quoted(name)))") {
        (
          name: $0.text(1), type: $0.text(2).uppercased(), notNull: $0.bool(3), defaultValue: $0.optionalText(4),
          key: $0.int(5)
        )
      }
      var fallbacks: [String: SQLValue] = [:]
      for column in info {
        if let expression = column.defaultValue, let value = try database.scalar("SELECT \(expression)") {
          fallbacks[column.name] = value
        } else if column.notNull {
          fallbacks[column.name] = column.type.contains("INT") ? .integer(0) : .text("")
        } else {
          fallbacks[column.name] = .null
        }
      }
      shapes.append(
        TableShape(
          name: name, withoutRowID: withoutRowID != 0, columns: info.map(\.name),
          primaryKey: info.filter { $0.key > 0 }.sorted { $0.key < $1.key }.map(\.name), fallbacks: fallbacks))
    }
    return shapes
  }

  /// Copies the rows of `table` that read into `fresh`, then those its indexes give.
  private func copy(_ table: TableShape, into fresh: Database) throws(DatabaseError) -> RecoveryReport.Table {
    // The columns both have: a damaged database at an older schema has fewer.
    let damagedColumns = Set(
      (try? database.query("PRAGMA table_info(\(Self.quoted(table.name)))") { $0.text(1) }) ?? [])
    let columns = table.columns.filter(damagedColumns.contains)
    var result = RecoveryReport.Table(name: table.name, read: 0, fromIndexes: [], lost: 0)
    guard !columns.isEmpty else { return result }
    let list = columns.map(Self.quoted).joined(separator: ", ")
    let keyColumns = table.withoutRowID ? table.primaryKey : ["rowid"]
    let insert = try fresh.statement(
      "INSERT OR IGNORE INTO \(Self.quoted(table.name)) (\(table.withoutRowID ? "" : "rowid, ")\(list)) VALUES ("
        + Array(repeating: "?", count: columns.count + (table.withoutRowID ? 0 : 1)).joined(separator: ", ") + ")")
    var recovered = Set<[SQLValue]>()
    func store(_ values: [SQLValue]) throws(DatabaseError) {
      try insert.bind(values)
      while try insert.step() {}
      insert.reset()
    }
    if table.withoutRowID {
      // In key order until a page does not read: the rest of the table is what its indexes give.
      let keys = table.primaryKey.compactMap { columns.firstIndex(of: $0) }
      do {
        let statement = try database.statement("SELECT \(list) FROM \(Self.quoted(table.name))")
        while try statement.step() {
          let values = (0..<columns.count).map { statement.value(Int32($0)) }
          try store(values)
          recovered.insert(keys.map { values[$0] })
          result.read += 1
        }
      } catch {}
    } else {
      for values in readRowIDTable(table.name, list: list, count: columns.count) {
        try store(values)
        recovered.insert([values[0]])
        result.read += 1
      }
    }
    // What the indexes hold of rows the table no longer gives.
    var partial: [[SQLValue]: [String: SQLValue]] = [:]
    var known = recovered
    for index in indexes(of: table.name) {
      let indexColumns = index.columns.filter { $0 == "rowid" || damagedColumns.contains($0) }
      guard keyColumns.allSatisfy(indexColumns.contains) else { continue }
      let selected = indexColumns.map(Self.quoted).joined(separator: ", ")
      // A partial index is read with its own condition (SQLite reads through one only for a
      // query that implies it); a condition `column = value` also gives that column's value.
      var condition = ""
      var implied: (column: String, value: SQLValue)?
      if let predicate = index.predicate {
        condition = " WHERE " + predicate
        let sides = predicate.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        if sides.count == 2, damagedColumns.contains(sides[0]), let number = Int64(sides[1]) {
          implied = (sides[0], .integer(number))
        }
      }
      guard
        let statement = try? database.statement(
          "SELECT \(selected) FROM \(Self.quoted(table.name)) INDEXED BY \(Self.quoted(index.name))\(condition)")
      else { continue }
      do {
        while try statement.step() {
          var values: [String: SQLValue] = [:]
          for (offset, column) in indexColumns.enumerated() { values[column] = statement.value(Int32(offset)) }
          if let implied { values[implied.column] = implied.value }
          let key = keyColumns.map { values[$0] ?? .null }
          known.insert(key)
          guard !recovered.contains(key) else { continue }
          partial[key, default: [:]].merge(values) { first, _ in first }
        }
      } catch {}
    }
    for (key, values) in partial.sorted(by: { "\($0.key)" < "\($1.key)" }) {
      var row = columns.map { values[$0] ?? table.fallbacks[$0] ?? .null }
      if !table.withoutRowID { row.insert(key[0], at: 0) }
      try store(row)
      // Named by the record's id where it has one, else by its key.
      if fresh.changes > 0 {
        result.fromIndexes.append(values["id"].map(Self.describe) ?? key.map(Self.describe).joined(separator: ", "))
      }
    }
    result.lost = known.count - result.read - result.fromIndexes.count
    return result
  }

  /// Every row of a rowid table that reads (its rowid first), in rowid order. A damaged page
  /// stops a scan; the scan goes on from the first rowid past it that reads, found by seeking
  /// further and further on, then back to the nearest such rowid.
  private func readRowIDTable(_ name: String, list: String, count: Int) -> [[SQLValue]] {
    var rows: [[SQLValue]] = []
    var after: Int64 = .min
    let sql = "SELECT rowid, \(list) FROM \(Self.quoted(name)) WHERE rowid > ? ORDER BY rowid"
    // Whether a scan from past `start` gives a first row.
    func readsFrom(_ start: Int64) -> Bool {
      guard let statement = try? database.statement(sql) else { return false }
      defer { statement.reset() }
      guard (try? statement.bind([.integer(start)])) != nil else { return false }
      return (try? statement.step()) != nil
    }
    while true {
      do {
        let statement = try database.statement(sql)
        try statement.bind([.integer(after)])
        while try statement.step() {
          rows.append((0...count).map { statement.value(Int32($0)) })
          if case .integer(let rowid) = rows[rows.count - 1][0] { after = rowid }
        }
        return rows
      } catch {
        // Past the damage: a rowid from which a scan reads, ever further on…
        var distance: Int64 = 1
        var past: Int64?
        while distance < Int64.max / 4 {
          let (start, overflow) = after.addingReportingOverflow(distance)
          if overflow { break }
          if readsFrom(start) {
            past = start
            break
          }
          distance *= 2
        }
        guard var high = past else { return rows }
        // …then back to the nearest one.
        var low = after
        while high - low > 1 {
          let middle = low + (high - low) / 2
          if readsFrom(middle) { high = middle } else { low = middle }
        }
        after = high
      }
    }
  }

  /// The indexes of `table` whose entries carry each row's key: each index's columns (with
  /// `rowid` for the rowid), and for a partial index its condition (the text after WHERE in
  /// its definition).
  private func indexes(of table: String) -> [(name: String, columns: [String], predicate: String?)] {
    guard
      let listed = try? database.query("PRAGMA index_list(\(Self.quoted(table)))", row: { ($0.text(1), $0.bool(4)) })
    else { return [] }
    return listed.compactMap { name, partial in
      guard
        let columns = try? database.query(
          "PRAGMA index_xinfo(\(Self.quoted(name)))", row: { $0.int(1) == -1 ? "rowid" : $0.text(2) })
      else { return nil }
      var predicate: String?
      if partial {
        guard
          let definition = try? database.scalar("SELECT sql FROM sqlite_schema WHERE name = ?", [.text(name)]),
          case .text(let sql) = definition, let range = sql.range(of: " WHERE ", options: .caseInsensitive)
        else { return nil }
        predicate = String(sql[range.upperBound...])
      }
      return (name, columns, predicate)
    }
  }

  private static func quoted(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  private static func describe(_ value: SQLValue) -> String {
    switch value {
    case .null: return "NULL"
    case .integer(let number): return String(number)
    case .real(let number): return String(number)
    case .text(let text): return text
    case .blob(let bytes): return "\(bytes.count) bytes"
    }
  }
}

extension SQLiteRecords {
  /// Repairs the damaged database: a copy of its file (and its write-ahead log) goes into
  /// `folder` (made already; `shown` is how actions name it) first; then the indexes and the
  /// search index are rebuilt from the tables, in one transaction; when that is not enough (a
  /// table's pages are damaged, or an index's too badly to be freed), the database is rebuilt
  /// from every row that still reads, rows on damaged pages put together from what the table's
  /// indexes hold, and the rebuilt database becomes the library's, page for page, in one
  /// transaction. What was done, as repair actions.
  func repairDamage(copyingTo folder: String, shownAs shown: String) throws(CatalogueError) -> [String] {
    var actions = ["kept a copy of the damaged database in \(shown)/"]
    try writeTransaction { () throws(CatalogueError) in try keepCopy(in: folder) }
    if try rebuildIndexes() {
      actions.append("rebuilt the indexes and the search index from the tables: the database is whole again")
      return actions
    }
    let rebuilt = try rebuild(into: "\(folder)/rebuilt.sqlite")
    var read: [String] = []
    for table in rebuilt.tables where table.read + table.fromIndexes.count + table.lost > 0 {
      var text = "\(table.name): \(table.read) read"
      if !table.fromIndexes.isEmpty {
        text +=
          ", \(table.fromIndexes.count) put together from its indexes (\(table.fromIndexes.joined(separator: "; ")))"
      }
      if table.lost > 0 { text += ", \(table.lost) lost" }
      read.append(text)
    }
    var action = "rebuilt the database from what still reads (" + read.joined(separator: "; ") + ")"
    if rebuilt.tables.contains(where: { $0.name == "reviews" && !$0.fromIndexes.isEmpty }) {
      action += "; a review put together from its indexes has lost its text: write it again with `catalogue edit`"
    }
    actions.append(action)
    return actions
  }
}
