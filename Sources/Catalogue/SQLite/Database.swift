import CSQLite3
import CSQLiteShims

/// A value bound to or read from a statement.
enum SQLValue: Hashable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])
}

extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
  init(stringLiteral value: String) { self = .text(value) }
  init(integerLiteral value: Int64) { self = .integer(value) }
  init(_ value: Int) { self = .integer(Int64(value)) }
  init(_ value: Bool) { self = .integer(value ? 1 : 0) }
  init(_ value: String?) { self = value.map { .text($0) } ?? .null }
}

/// One SQLite connection: the only file that calls SQLite's C API.
///
/// Not `Sendable`: a connection has one owner (the `Library` that opened it). Every C status is
/// converted at the first Swift call, in `check`.
final class Database {
  private let handle: OpaquePointer
  let path: String
  /// Prepared statements by SQL, with when each was last used. Bounded: SQL made with a
  /// varying number of placeholders (`IN (?, ?, …)`) would otherwise add one a shape.
  private var statements: [String: (statement: Statement, used: UInt64)] = [:]
  private var uses: UInt64 = 0
  /// Write transactions begun on this connection (see ``changeToken()``).
  private var writes = 0
  /// The most statements kept prepared; the least recently used goes first.
  static let statementCacheLimit = 64

  /// How a connection may use its file.
  enum Access {
    /// Read and write (SQLite opens a file it may not write read-only all the same).
    case readWrite
    /// Read only, through SQLite's locks and the write-ahead log's index (which must exist).
    case readOnly
    /// Read only, with no locks and no write-ahead log: for a file nothing can change, on
    /// read-only media or a full disk (SQLite's `immutable` URI parameter).
    case immutable
  }

  /// Why the library this connection reads cannot be written now, when it cannot (set by
  /// whoever opened it read-only).
  var readOnlyReason: ReadOnlyReason?
  /// Something the user should know of what this connection shows ("as of its last
  /// checkpoint"), or nil.
  var note: String?
  /// A folder of copies this connection reads instead of the library's files, removed when it
  /// closes.
  var copiesFolder: String?

  /// Opens (or, with `create`, creates) the database at `path`.
  /// The corresponding C function is `sqlite3_open_v2`.
  init(path: String, create: Bool, access: Access = .readWrite) throws(DatabaseError) {
    var connection: OpaquePointer?
    var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
    switch access {
    case .readWrite: flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
    case .readOnly: flags |= SQLITE_OPEN_READONLY
    case .immutable: flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
    }
    let name = access == .immutable ? Self.uri(path) + "?immutable=1" : path
    let status = sqlite3_open_v2(name, &connection, flags, nil)
    guard let connection else {
      throw DatabaseError(code: status, message: "out of memory opening \(path)")
    }
    guard status == SQLITE_OK else {
      let error = DatabaseError(code: status, message: String(cString: sqlite3_errmsg(connection)))
      sqlite3_close_v2(connection)
      throw error
    }
    self.handle = connection
    self.path = path
  }

  deinit {
    statements.removeAll()
    sqlite3_close_v2(handle)
    if let copiesFolder {
      for name in (try? FileSystem.names(in: copiesFolder)) ?? [] { try? FileSystem.remove("\(copiesFolder)/\(name)") }
      _ = try? FileSystem.removeFolderIfEmpty(copiesFolder)
    }
  }

  /// `path` as an SQLite URI: every byte outside letters, digits and `/._-~` as %XX.
  private static func uri(_ path: String) -> String {
    var text = "file:"
    for byte in path.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "-"), UInt8(ascii: "~"):
        text.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        text += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      }
    }
    return text
  }

  /// Whether the connection cannot write its database. The corresponding C function is
  /// `sqlite3_db_readonly`.
  var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

  /// The size of the database file and its first `count` bytes (fewer when it is shorter),
  /// read through the file SQLite itself opened.
  ///
  /// Never through a descriptor of our own: closing any descriptor on the file drops every
  /// POSIX lock this process holds on it, SQLite's among them, and another process then takes
  /// itself for the last one, checkpoints and deletes the write-ahead log this process is still
  /// writing to (SQLite's "How To Corrupt An SQLite Database File", section 2.2). The
  /// corresponding C calls are `sqlite3_file_control` with `SQLITE_FCNTL_FILE_POINTER`, then
  /// the file's `xFileSize` and `xRead`.
  func fileHeader(count: Int) throws(DatabaseError) -> (size: Int, head: [UInt8]) {
    var pointer: UnsafeMutablePointer<sqlite3_file>?
    try check(sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &pointer))
    guard let file = pointer, let methods = file.pointee.pMethods, let fileSize = methods.pointee.xFileSize,
      let read = methods.pointee.xRead
    else {
      throw DatabaseError(code: SQLITE_MISUSE, message: "the database file is not open")
    }
    var size: sqlite3_int64 = 0
    try check(fileSize(file, &size))
    let wanted = Int(min(sqlite3_int64(count), max(0, size)))
    var head = [UInt8](repeating: 0, count: wanted)
    if wanted > 0 {
      let status = head.withUnsafeMutableBytes { read(file, $0.baseAddress, Int32(wanted), 0) }
      guard status == SQLITE_OK else {
        throw DatabaseError(code: status, message: String(cString: sqlite3_errstr(status)))
      }
    }
    return (Int(size), head)
  }

  /// Which of the connection's files: the database itself, or its write-ahead log.
  enum OwnFile {
    case database, log
  }

  /// Hands the bytes of one of the connection's files to `body`, a chunk at a time, read through
  /// the file SQLite opened (see ``fileHeader(count:)`` for why never through one of ours):
  /// the raw bytes, damaged pages and all, as a copy kept aside before a repair needs them.
  /// Nothing for a log that is not open. The caller holds the write lock, so that no commit
  /// lands half-way. The corresponding C calls are `sqlite3_file_control` with
  /// `SQLITE_FCNTL_FILE_POINTER` or `SQLITE_FCNTL_JOURNAL_POINTER`, then the file's `xFileSize`
  /// and `xRead`.
  func readOwnFile(_ file: OwnFile, _ body: (UnsafeRawBufferPointer) throws(CatalogueError) -> Void)
    throws(CatalogueError)
  {
    var pointer: UnsafeMutablePointer<sqlite3_file>?
    let operation = file == .database ? SQLITE_FCNTL_FILE_POINTER : SQLITE_FCNTL_JOURNAL_POINTER
    do {
      try check(sqlite3_file_control(handle, "main", operation, &pointer))
    } catch {
      throw CatalogueError(error)
    }
    guard let opened = pointer, let methods = opened.pointee.pMethods, let fileSize = methods.pointee.xFileSize,
      let read = methods.pointee.xRead
    else { return }
    var size: sqlite3_int64 = 0
    do {
      try check(fileSize(opened, &size))
    } catch {
      throw CatalogueError(error)
    }
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    var offset: sqlite3_int64 = 0
    while offset < size {
      let count = Int(min(sqlite3_int64(chunk.count), size - offset))
      let status = chunk.withUnsafeMutableBytes { read(opened, $0.baseAddress, Int32(count), offset) }
      // A short read fills the rest with zeros: the copy is as long as the file said.
      // SQLITE_IOERR_SHORT_READ, a composite macro.
      guard status == SQLITE_OK || status == SQLITE_IOERR | (2 << 8) else {
        throw CatalogueError(DatabaseError(code: status, message: String(cString: sqlite3_errstr(status))))
      }
      try chunk.withUnsafeBufferPointer { (bytes) throws(CatalogueError) in
        try body(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[0..<count])))
      }
      offset += sqlite3_int64(count)
    }
  }

  /// Replaces every page of this database with the pages of `source`, as one transaction other
  /// connections see whole: how a database rebuilt elsewhere takes the place of a damaged one
  /// without its file being swapped under a process that has it open. The corresponding C
  /// functions are `sqlite3_backup_init`, `sqlite3_backup_step` and `sqlite3_backup_finish`.
  func replaceContents(with source: Database) throws(DatabaseError) {
    guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else {
      throw DatabaseError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }
    let stepped = sqlite3_backup_step(backup, -1)
    let finished = sqlite3_backup_finish(backup)
    guard stepped == SQLITE_DONE else {
      throw DatabaseError(code: stepped, message: String(cString: sqlite3_errstr(stepped)))
    }
    try check(finished)
  }

  /// Converts a C status into a thrown error.
  fileprivate func check(_ status: Int32, sql: String? = nil) throws(DatabaseError) {
    guard status != SQLITE_OK && status != SQLITE_ROW && status != SQLITE_DONE else { return }
    throw DatabaseError(
      code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)),
      sql: sql)
  }

  /// Runs `body` with SQLite's virtual machine allowed about `steps` instructions in all, the
  /// statements it runs together; past them, the statement running fails with
  /// SQLITE_INTERRUPT (``DatabaseError/isInterrupted``). Counted a thousand instructions at a
  /// time (fewer for a smaller budget), by a callback that does nothing else. The
  /// corresponding C function is `sqlite3_progress_handler`.
  func limitingSteps<T>(to steps: Int, _ body: () throws(DatabaseError) -> T) throws(DatabaseError) -> T {
    let every = max(1, min(StepBudget.stepsPerCall, steps))
    let budget = StepBudget(calls: steps / every)
    sqlite3_progress_handler(
      handle, Int32(every),
      { context in
        guard let context else { return 1 }
        let budget = Unmanaged<StepBudget>.fromOpaque(context).takeUnretainedValue()
        budget.calls -= 1
        return budget.calls < 0 ? 1 : 0
      }, Unmanaged.passUnretained(budget).toOpaque())
    defer {
      sqlite3_progress_handler(handle, 0, nil, nil)
      withExtendedLifetime(budget) {}
    }
    return try body()
  }

  /// Makes `name` an SQL function of this connection, computed by `body` from its
  /// `argumentCount` arguments. SQLite is told that it gives the same result for the same
  /// arguments and has no side effects, so that a view, a trigger or an index may use it (even
  /// with `trusted_schema` off). The corresponding C function is `sqlite3_create_function_v2`.
  func defineFunction(
    _ name: String, argumentCount: Int32, _ body: @escaping ([SQLValue]) -> SQLValue
  ) throws(DatabaseError) {
    let function = Unmanaged.passRetained(SQLFunction(body)).toOpaque()
    // SQLite releases the function (`xDestroy`) when it is replaced, when the connection
    // closes, and when this call fails.
    try check(
      sqlite3_create_function_v2(
        handle, name, argumentCount, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, function,
        { context, count, values in
          guard let context, let data = sqlite3_user_data(context) else { return }
          let function = Unmanaged<SQLFunction>.fromOpaque(data).takeUnretainedValue()
          let arguments = (0..<Int(count)).map { SQLValue(reading: values?[$0]) }
          switch function.body(arguments) {
          case .null: sqlite3_result_null(context)
          case .integer(let number): sqlite3_result_int64(context, number)
          case .real(let number): sqlite3_result_double(context, number)
          case .text(let text):
            text.withCString {
              sqlite3_result_text64(
                context, $0, sqlite3_uint64(text.utf8.count), csqlite3_transient(), UInt8(SQLITE_UTF8))
            }
          case .blob(let bytes):
            bytes.withUnsafeBytes {
              sqlite3_result_blob64(context, $0.baseAddress, sqlite3_uint64($0.count), csqlite3_transient())
            }
          }
        }, nil, nil,
        { data in
          if let data { Unmanaged<SQLFunction>.fromOpaque(data).release() }
        }))
  }

  /// Makes `catalogue_rank` an FTS5 auxiliary function of this connection: relevance as
  /// `CSQLiteShims.h` describes it. The corresponding C function is FTS5's `xCreateFunction`.
  func defineRanking() throws(DatabaseError) {
    try check(csqliteshims_register_rank(handle))
  }

  /// How long a statement waits for another connection's lock before failing.
  /// The corresponding C function is `sqlite3_busy_timeout`.
  func setBusyTimeout(milliseconds: Int32) throws(DatabaseError) {
    try check(sqlite3_busy_timeout(handle, milliseconds))
  }

  /// Runs one or more statements that take no parameters and return no rows worth reading.
  /// The corresponding C function is `sqlite3_exec`.
  func execute(_ sql: String) throws(DatabaseError) {
    var message: UnsafeMutablePointer<CChar>?
    let status = sqlite3_exec(handle, sql, nil, nil, &message)
    if status != SQLITE_OK {
      let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status))
      sqlite3_free(message)
      throw DatabaseError(code: sqlite3_extended_errcode(handle), message: text, sql: sql)
    }
  }

  /// A prepared statement for `sql`, cached for the connection's life, reset and unbound.
  /// The corresponding C function is `sqlite3_prepare_v3`.
  func statement(_ sql: String) throws(DatabaseError) -> Statement {
    uses += 1
    if let cached = statements[sql] {
      statements[sql]?.used = uses
      cached.statement.reset()
      return cached.statement
    }
    var prepared: OpaquePointer?
    try check(
      sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil),
      sql: sql)
    guard let prepared else {
      throw DatabaseError(code: SQLITE_MISUSE, message: "no statement in the SQL", sql: sql)
    }
    let statement = Statement(database: self, handle: prepared, sql: sql)
    if statements.count >= Self.statementCacheLimit,
      let oldest = statements.min(by: { $0.value.used < $1.value.used })?.key
    {
      // A caller still stepping it keeps it alive; it is finalized when the last one lets go.
      statements[oldest] = nil
    }
    statements[sql] = (statement, uses)
    return statement
  }

  /// Runs `sql` with `arguments` and returns every row, each read by `row`.
  func query<T>(
    _ sql: String, _ arguments: [SQLValue] = [], row: (Statement) throws(DatabaseError) -> T
  ) throws(DatabaseError) -> [T] {
    let statement = try statement(sql)
    try statement.bind(arguments)
    var rows: [T] = []
    while try statement.step() { rows.append(try row(statement)) }
    return rows
  }

  /// Runs `sql` with `arguments`, ignoring any rows.
  func run(_ sql: String, _ arguments: [SQLValue] = []) throws(DatabaseError) {
    let statement = try statement(sql)
    try statement.bind(arguments)
    while try statement.step() {}
  }

  /// The first column of the first row, or `nil` without rows.
  func scalar(_ sql: String, _ arguments: [SQLValue] = []) throws(DatabaseError) -> SQLValue? {
    try query(sql, arguments) { $0.value(0) }.first
  }

  /// The transaction open on this connection, if one is.
  enum TransactionKind {
    case read, write
  }

  private(set) var transaction: TransactionKind?

  /// Runs `body` in a transaction that takes the write lock at once (`BEGIN IMMEDIATE`), so
  /// that a writer waits for another at the start (within the busy timeout) instead of failing
  /// halfway; commits when `body` returns, rolls back when it throws.
  ///
  /// Inside another write transaction, `body` simply joins it. Inside a read transaction it is
  /// a programming error, refused: a read transaction that tries to write while another
  /// connection writes fails at once with SQLITE_BUSY instead of waiting its turn.
  func writeTransaction<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T {
    switch transaction {
    case .write: return try body()
    case .read: throw .internalFailure("a write transaction was begun inside a read transaction")
    case nil: break
    }
    do { try execute("BEGIN IMMEDIATE") } catch { throw CatalogueError(error) }
    transaction = .write
    defer {
      transaction = nil
      writes += 1
    }
    do throws(CatalogueError) {
      let result = try body()
      do { try execute("COMMIT") } catch { throw CatalogueError(error) }
      return result
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }

  /// Runs `body` holding the write lock (`BEGIN IMMEDIATE`, waiting its turn within the busy
  /// timeout) and rolls back at the end: for a look that writes nothing but needs the lock
  /// (FTS5's integrity check), and that must end cleanly even when a damaged file makes a
  /// COMMIT fail.
  func lockedLook<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T {
    guard transaction == nil else { return try body() }
    // A connection that cannot write takes no write lock: no one writes through it.
    do { try execute(isReadOnly ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE") } catch { throw CatalogueError(error) }
    transaction = .write
    defer {
      transaction = nil
      try? execute("ROLLBACK")
    }
    return try body()
  }

  /// Runs `body` in a read transaction, so that everything it reads is one snapshot. Inside
  /// another transaction, `body` simply joins it.
  func readTransaction<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T {
    if transaction != nil { return try body() }
    do { try execute("BEGIN DEFERRED") } catch { throw CatalogueError(error) }
    transaction = .read
    defer {
      transaction = nil
      // Nothing was written, so a failed end loses nothing; but the snapshot must not stay
      // open (it would hide later commits from this connection and hold the log back).
      do {
        try execute("COMMIT")
      } catch {
        if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
      }
    }
    return try body()
  }

  /// How many statements are kept prepared.
  var cachedStatements: Int { statements.count }

  /// Rows changed by the last statement. The corresponding C function is `sqlite3_changes`.
  var changes: Int { Int(sqlite3_changes(handle)) }

  /// What the database's contents are, as far as this connection can tell: it differs from
  /// the last one read whenever anything was committed since, by this connection (every
  /// write transaction, and every row any statement changed) or by another (`PRAGMA
  /// data_version`). Read inside a transaction, it is the snapshot's. What is remembered
  /// from reads is valid while it stays the same. The corresponding C function is
  /// `sqlite3_total_changes64`.
  func changeToken() throws(DatabaseError) -> ChangeToken {
    let version = try query("PRAGMA data_version") { $0.int(0) }.first ?? 0
    return ChangeToken(dataVersion: version, changes: Int(sqlite3_total_changes64(handle)), writes: writes)
  }

  /// See ``changeToken()``.
  struct ChangeToken: Equatable {
    var dataVersion: Int
    var changes: Int
    var writes: Int
  }

  fileprivate var rawHandle: OpaquePointer { handle }
}

/// A prepared statement, owned and cached by its `Database`.
final class Statement {
  private unowned let database: Database
  private let handle: OpaquePointer
  let sql: String

  fileprivate init(database: Database, handle: OpaquePointer, sql: String) {
    self.database = database
    self.handle = handle
    self.sql = sql
  }

  deinit { sqlite3_finalize(handle) }

  /// The corresponding C functions are `sqlite3_reset` and `sqlite3_clear_bindings`.
  func reset() {
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }

  /// Binds `values` to the parameters in order. The corresponding C functions are the
  /// `sqlite3_bind_*` family; text and blobs are copied (`SQLITE_TRANSIENT`).
  func bind(_ values: [SQLValue]) throws(DatabaseError) {
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      let status: Int32
      switch value {
      case .null: status = sqlite3_bind_null(handle, index)
      case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
      case .real(let number): status = sqlite3_bind_double(handle, index, number)
      case .text(let text):
        // With its length, so that nothing in the text (a NUL included) can cut it short.
        status = text.withCString {
          sqlite3_bind_text64(
            handle, index, $0, sqlite3_uint64(text.utf8.count), csqlite3_transient(), UInt8(SQLITE_UTF8))
        }
      case .blob(let bytes):
        status = bytes.withUnsafeBytes {
          sqlite3_bind_blob64(
            handle, index, $0.baseAddress, sqlite3_uint64($0.count), csqlite3_transient())
        }
      }
      try database.check(status, sql: sql)
    }
  }

  /// Advances to the next row: `true` with a row to read, `false` when done.
  /// The corresponding C function is `sqlite3_step`.
  func step() throws(DatabaseError) -> Bool {
    let status = sqlite3_step(handle)
    if status == SQLITE_ROW { return true }
    if status == SQLITE_DONE { return false }
    let error = DatabaseError(
      code: sqlite3_extended_errcode(database.rawHandle),
      message: String(cString: sqlite3_errmsg(database.rawHandle)), sql: sql)
    sqlite3_reset(handle)
    throw error
  }

  func value(_ column: Int32) -> SQLValue {
    switch sqlite3_column_type(handle, column) {
    case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
    case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
    case SQLITE_TEXT: return .text(text(column))
    case SQLITE_BLOB:
      let count = Int(sqlite3_column_bytes(handle, column))
      guard let bytes = sqlite3_column_blob(handle, column), count > 0 else { return .blob([]) }
      return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
    default: return .null
    }
  }

  func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

  func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

  func bool(_ column: Int32) -> Bool { sqlite3_column_int64(handle, column) != 0 }

  func text(_ column: Int32) -> String {
    guard let text = sqlite3_column_text(handle, column) else { return "" }
    let count = Int(sqlite3_column_bytes(handle, column))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }

  func optionalText(_ column: Int32) -> String? {
    sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : text(column)
  }
}

/// An SQL function's body, kept alive by SQLite for as long as the function is defined.
private final class SQLFunction {
  let body: ([SQLValue]) -> SQLValue

  init(_ body: @escaping ([SQLValue]) -> SQLValue) { self.body = body }
}

extension SQLValue {
  /// Reads an SQL function's argument. The corresponding C functions are the
  /// `sqlite3_value_*` family.
  fileprivate init(reading value: OpaquePointer?) {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
    case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
    case SQLITE_TEXT:
      let count = Int(sqlite3_value_bytes(value))
      guard let text = sqlite3_value_text(value) else {
        self = .text("")
        return
      }
      self = .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
    case SQLITE_BLOB:
      let count = Int(sqlite3_value_bytes(value))
      guard let bytes = sqlite3_value_blob(value), count > 0 else {
        self = .blob([])
        return
      }
      self = .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
    default: self = .null
    }
  }
}

/// What ``Database/limitingSteps(to:_:)`` has left: the progress handler's calls.
private final class StepBudget {
  static let stepsPerCall = 1000
  var calls: Int

  init(calls: Int) { self.calls = calls }
}

extension String {
  /// The string with zeros in front, to `count` characters.
  fileprivate func leftPadded(to count: Int) -> String {
    String(repeating: "0", count: Swift.max(0, count - self.count)) + self
  }
}
