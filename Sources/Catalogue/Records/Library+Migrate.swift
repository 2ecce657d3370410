public import Foundation

/// Where `catalogue migrate` moves a library's records.
public enum MigrationTarget: Sendable, Equatable {
  /// A PostgreSQL database, empty (or holding this library's unfinished migration).
  case postgreSQL(String)
  /// The library folder's own SQLite file.
  case sqlite
}

/// What a migration did: each table's rows in the new store, and where the old one was kept.
public struct MigrationReport: Sendable, Equatable {
  public struct Table: Sendable, Equatable {
    public var name: String
    /// The rows the new store holds.
    public var rows: Int
    /// How many of them this run copied (fewer than `rows` when it resumed a migration).
    public var copied: Int
  }

  /// The new store: the database's URL without a password, or the SQLite file.
  public var destination: String
  public var tables: [Table]
  /// Whether this run went on with a migration an earlier one had begun.
  public var resumed: Bool
  /// Where the old store's file went, inside the library folder.
  public var keptOldStore: String
}

extension Library {
  /// The setting a migration's new store holds until the migration is done: the library it is
  /// made for. Another library's unfinished migration is never resumed into.
  static let migrationSetting = "migration_of"

  /// Rows copied a transaction.
  static let migrationBatch = 500

  /// Moves the records of the library at `path` (opened with `database`, as commands open it)
  /// into `target`: the new store is made (or an unfinished migration of this library into it
  /// is resumed), every table is copied in batches, each committed, with writers held off
  /// meanwhile; what the new store derives (search index, cards) is made again; every row is
  /// compared, as a digest, with the old store's; and only then does the library switch to the
  /// new store, the old one's file kept in `lost+found/<time>/`. Stopped part-way (Ctrl-C, a
  /// crash, a lost connection), the library is still on its old store, untouched, and the same
  /// command goes on where it stopped. `progress` hears of each batch copied, with the table's
  /// rows so far and in all; what it throws stops the migration there.
  public static func migrate(
    libraryAt path: String, database: String? = nil, to target: MigrationTarget, now: Date = Date(),
    progress: ((_ table: String, _ copied: Int, _ total: Int) throws(CatalogueError) -> Void)? = nil
  ) throws(CatalogueError) -> MigrationReport {
    let lock = try LibraryLock(folder: path, mode: .exclusive)
    defer { withExtendedLifetime(lock) {} }
    let temporarySQLite = "\(LibraryLayout.temporaryPrefix)migrating-\(LibraryLayout.database)"
    // Both stores are closed when this returns: the files can then be switched.
    var (report, files) = try copyAndVerify(
      path: path, database: database, target: target, temporarySQLite: temporarySQLite, progress: progress)
    // The switch: the new store named, then the old one's file kept aside.
    let kept = "\(LibraryLayout.lostAndFound)/\(DateText.fileStamp(now))"
    switch target {
    case .postgreSQL(let url):
      try files.write(Array((try DatabaseURL(url).text + "\n").utf8), to: LibraryLayout.databaseLocation)
      for name in [LibraryLayout.database, LibraryLayout.database + "-wal", LibraryLayout.database + "-shm"]
      where files.size(of: name) != nil {
        try files.move(name, to: "\(kept)/\(name)")
      }
      report.keptOldStore = "\(kept)/\(LibraryLayout.database)"
    case .sqlite:
      try files.move(temporarySQLite, to: LibraryLayout.database)
      try files.move(LibraryLayout.databaseLocation, to: "\(kept)/\(LibraryLayout.databaseLocation)")
      report.keptOldStore = "\(kept)/\(LibraryLayout.databaseLocation)"
    }
    return report
  }

  /// The copy and its check (see ``migrate(libraryAt:database:to:now:progress:)``), with both
  /// stores open only while it runs.
  private static func copyAndVerify(
    path: String, database: String?, target: MigrationTarget, temporarySQLite: String,
    progress: ((_ table: String, _ copied: Int, _ total: Int) throws(CatalogueError) -> Void)?
  ) throws(CatalogueError) -> (MigrationReport, any FileStore) {
    let library = try Library(opening: path, database: database)
    try library.requireWritable()
    let store: any RecordStore
    let named: String
    switch target {
    case .postgreSQL(let url):
      guard library.records is SQLiteRecords else {
        throw .invalidArgument("the library's records are in PostgreSQL already: `--to sqlite` brings them back")
      }
      let records = try PostgreSQLRecords.openForMigration(url: try DatabaseURL(url).text, of: path)
      named = records.connection.name
      store = records
    case .sqlite:
      guard library.records is PostgreSQLRecords else {
        throw .invalidArgument("the library's records are in its own SQLite file already: nothing to do")
      }
      store = try SQLiteRecords.openForMigration(file: library.files.location(of: temporarySQLite), of: path)
      named = library.files.location(of: LibraryLayout.database)
    }
    var report = MigrationReport(destination: named, tables: [], resumed: false, keptOldStore: "")
    report.resumed = try store.reviewCount() + store.userRows().count + store.settings().count > 1
    // Writers wait until the copy is done: what is copied is one state of the library.
    try library.records.lockedLook { () throws(CatalogueError) in
      for table in RecordTables.all {
        try Interruption.check()
        // A name orders in any case in SQLite, as bytes in PostgreSQL: a table keyed by one is
        // copied again from its start (a row there already stays as it is).
        let byName = table.key.contains("name") || table.key.contains("user")
        var after = byName ? nil : try store.lastKey(of: table)
        var copied = 0
        let total = try library.records.rowCount(of: table)
        let already = after == nil ? 0 : try store.rowCount(of: table)
        while true {
          let rows = try library.records.rows(of: table, after: after, limit: migrationBatch)
          guard let last = rows.last else { break }
          try Interruption.check()
          try store.writeTransaction { () throws(CatalogueError) in try store.insertRows(rows, into: table) }
          copied += rows.count
          try progress?(table.name, min(total, already + copied), total)
          after = table.key.map { key in last[table.columns.firstIndex { $0.name == key }!] ?? "" }
        }
        report.tables.append(MigrationReport.Table(name: table.name, rows: 0, copied: copied))
      }
      try store.writeTransaction { () throws(CatalogueError) in try store.rederive() }
      for index in report.tables.indices {
        let table = RecordTables.all[index]
        let old = try digests(of: table, in: library.records)
        let new = try digests(of: table, in: store)
        // The new store holds the migration's own setting besides the library's.
        let expected = table.name == "settings" ? new.count - 1 : new.count
        guard old.count == expected, Set(old).isSubset(of: Set(new)) else {
          throw .internalFailure(
            "the copy of \(table.name) does not match the library's (\(old.count) rows, \(expected) copied): "
              + "the library is still on its old store; run the migration again")
        }
        report.tables[index].rows = old.count
      }
    }
    try store.writeTransaction { () throws(CatalogueError) in try store.deleteSetting(migrationSetting) }
    return (report, library.files)
  }

  /// A digest of each row of `table` in `store`, sorted: the same rows give the same list,
  /// whatever order each store keeps them in.
  private static func digests(of table: RecordTables.Table, in store: any RecordStore) throws(CatalogueError)
    -> [String]
  {
    var digests: [String] = []
    var after: [String]?
    while true {
      let rows = try store.rows(of: table, after: after, limit: 2_000)
      guard let last = rows.last else { break }
      for row in rows {
        var bytes: [UInt8] = []
        for value in row {
          if let value {
            bytes += Array(value.utf8)
            bytes.append(0x1F)
          } else {
            bytes.append(0x00)
          }
        }
        digests.append(SHA256.hex(bytes))
      }
      after = table.key.map { key in last[table.columns.firstIndex { $0.name == key }!] ?? "" }
    }
    return digests.sorted()
  }
}

extension PostgreSQLRecords {
  /// The PostgreSQL database at `url` as a migration of the library at `library` finds it:
  /// empty (it is given the schema and marked as this library's migration), or holding this
  /// library's unfinished migration; a database that holds anything else is refused untouched.
  static func openForMigration(url: String, of library: String) throws(CatalogueError) -> PostgreSQLRecords {
    let connection = try postgreSQL { () throws(PostgreSQLError) in try PostgreSQLConnection(url) }
    let version = try postgreSQL { () throws(PostgreSQLError) in try PostgreSQLSchema.version(of: connection) }
    if version == 0 {
      let (records, _) = try open(url: url, library: library, create: true, upgrading: true)
      try records.writeTransaction { () throws(CatalogueError) in
        try records.saveSetting(Library.migrationSetting, library)
      }
      return records
    }
    let records = try open(url: url, library: library, create: false, upgrading: true).records
    guard try records.settings()[Library.migrationSetting] == library else {
      throw .alreadyALibrary(path: connection.name)
    }
    return records
  }
}

extension SQLiteRecords {
  /// The SQLite file `file` as a migration of the library at `library` finds it: new (it is
  /// made and marked as this library's migration), or holding this library's unfinished
  /// migration; anything else is refused untouched.
  static func openForMigration(file: String, of library: String) throws(CatalogueError) -> SQLiteRecords {
    guard FileStatus.at(file) != nil else {
      let records = try create(file: file, library: library, busyTimeoutMilliseconds: Library.busyTimeoutMilliseconds)
      try records.writeTransaction { () throws(CatalogueError) in
        try records.saveSetting(Library.migrationSetting, library)
      }
      return records
    }
    let records = try open(
      file: file, library: library, upgrading: true, busyTimeoutMilliseconds: Library.busyTimeoutMilliseconds
    ).records
    guard try records.settings()[Library.migrationSetting] == library else {
      throw .alreadyALibrary(path: file)
    }
    return records
  }
}
