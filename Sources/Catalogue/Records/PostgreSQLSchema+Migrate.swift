extension PostgreSQLSchema {
  /// The version the database at `connection` is at: 0 when no catalogue is in it.
  static func version(of connection: PostgreSQLConnection) throws(PostgreSQLError) -> Int {
    let made = try connection.execute("SELECT to_regclass('catalogue_schema') IS NOT NULL")
    guard try made.bool(row: 0, column: 0) == true else { return 0 }
    return try connection.execute("SELECT version FROM catalogue_schema").int(row: 0, column: 0) ?? 0
  }

  /// Brings the database at `connection` up to the last of `migrations`, each in a transaction
  /// of its own that holds ``migrationLock``: a server that finds another migrating waits, then
  /// sees the version it left. A database written by a newer build is refused untouched; so is
  /// one that holds tables but no catalogue, unless `creating` is false and it is empty.
  /// `library` names the library in errors.
  static func migrate(
    _ connection: PostgreSQLConnection, library: String, migrations: [Migration] = migrations
  ) throws(CatalogueError) {
    let known = migrations.last?.version ?? 0
    while true {
      let done = try connection.transaction { () throws(CatalogueError) -> Bool in
        let version = try postgreSQL { () throws(PostgreSQLError) in
          _ = try connection.execute("SELECT pg_advisory_xact_lock($1)", [.integer(Int64(migrationLock))])
          return try Self.version(of: connection)
        }
        if version > known { throw .newerSchema(path: library, found: version, known: known) }
        guard let next = migrations.first(where: { $0.version > version }) else { return true }
        try postgreSQL { () throws(PostgreSQLError) in
          try connection.run(script: next.sql)
          if version > 0 {
            _ = try connection.execute("UPDATE catalogue_schema SET version = $1", [.integer(Int64(next.version))])
          }
        }
        return false
      }
      if done { return }
    }
  }
}

extension CatalogueError: PostgreSQLFailure {
  init(_ error: PostgreSQLError) { self = .database(RecordStoreFailure(error)) }

  /// The failure as the PostgreSQL layer tells it, for a transaction to know whether to run
  /// again: busy, or a lost connection.
  var postgreSQLError: PostgreSQLError? {
    guard case .database(let failure) = self else { return nil }
    let kind: PostgreSQLError.Kind =
      switch failure.kind {
      case .busy: .busy
      case .unavailable: .connectionLost
      default: .other
      }
    return PostgreSQLError(kind: kind, message: failure.message)
  }
}

/// Runs `body`, PostgreSQL's failures as the catalogue's.
func postgreSQL<T>(_ body: () throws(PostgreSQLError) -> T) throws(CatalogueError) -> T {
  do {
    return try body()
  } catch {
    throw CatalogueError(error)
  }
}

extension RecordStoreFailure {
  /// PostgreSQL's failure, in the words every store gives.
  init(_ error: PostgreSQLError) {
    let kind: Kind
    switch error.kind {
    case .busy: kind = .busy
    case .uniqueViolation, .foreignKeyViolation: kind = .constraint
    case .diskFull: kind = .full
    case .readOnly: kind = .readOnly
    case .damaged: kind = .damaged
    case .connectionLost, .tooManyConnections: kind = .unavailable
    case .other: kind = error.sqlState?.hasPrefix("23") == true ? .constraint : .other
    }
    var message = error.message
    if let detail = error.detail { message += " (\(detail))" }
    self.init(kind: kind, code: error.sqlState ?? "PostgreSQL", message: message, statement: error.sql)
  }
}
