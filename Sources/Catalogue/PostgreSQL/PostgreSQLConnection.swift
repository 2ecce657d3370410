import CLibPQ
import Glibc

/// One PostgreSQL connection: the only file that calls libpq.
///
/// Not `Sendable`: a connection has one owner at a time, as a SQLite ``Database`` has. Every
/// libpq status is converted at the first Swift call, in `check`. Statements run with the
/// extended protocol, parameters and results as text, each SQL text prepared once and kept for
/// the session (a bounded cache, as ``Database`` keeps its statements).
///
/// A connection that was lost is made again at the next statement, which then runs, when no
/// transaction was open. Inside a transaction what it had done is gone with the session, so the
/// statement fails with ``PostgreSQLError/Kind/connectionLost``, and so does every other until
/// ``rollback()``: the caller runs the transaction again (``transaction(isolation:readOnly:retrying:_:)``
/// does). A reconnection waits up to ``serverWait`` seconds for a server that is restarting.
final class PostgreSQLConnection {
  private let handle: OpaquePointer
  /// The database as messages name it: a URL without the password.
  let name: String
  /// The password of the connection string, as given and as libpq reads it: never shown in a
  /// message (libpq does not quote it; this is for the day it does).
  private let secrets: [String]
  /// Prepared statements' names by SQL, with when each was last used.
  private var statements: [String: (name: String, used: UInt64)] = [:]
  private var uses: UInt64 = 0
  private var statementNumber = 0
  /// Statements dropped from the cache that the server still holds, deallocated when no
  /// transaction is open (a failed DEALLOCATE would abort one).
  private var droppedStatements: [String] = []
  /// Channels listened to, listened to again on a new session.
  private var channels: Set<String> = []
  /// The most statements kept prepared; the least recently used goes first.
  static let statementCacheLimit = 64

  /// Whether a transaction is open: begun, and neither committed nor rolled back, even when the
  /// connection has been lost since (see the type's description).
  private(set) var isInTransaction = false
  /// How many times the connection was made again. Notifications sent while it was away are
  /// lost: a listener that sees this change knows it may have missed some.
  private(set) var reconnections = 0
  /// How long, in seconds, a reconnection waits for a server that refuses connections or says it
  /// is starting up or shutting down (57P03), trying again with a growing pause.
  var serverWait = 10.0

  /// Opens a connection. `conninfo` is a URL (`postgresql://user:password@host:port/db?…`) or
  /// libpq's keywords (`host=/run/postgresql port=5432 dbname=catalogue`).
  ///
  /// The client encoding is always UTF-8; the application name is `catalogue` unless
  /// `conninfo` names another, and connecting gives up after `connectTimeout` seconds unless it
  /// says otherwise. With `waitingForServer`, a server that is not up yet is waited for that many
  /// seconds, as ``serverWait`` says. The corresponding C function is `PQconnectdbParams`.
  init(_ conninfo: String, connectTimeout: Int = 5, waitingForServer: Double = 0) throws(PostgreSQLError) {
    guard !conninfo.utf8.contains(0) else {
      throw PostgreSQLError(kind: .other, message: "the connection string holds a NUL character")
    }
    secrets = try Self.passwords(in: conninfo)
    // Later keywords win: the connection string may set the first two, never the encoding.
    let keywords: [String?] = ["fallback_application_name", "connect_timeout", "dbname", "client_encoding"]
    let values: [String?] = ["catalogue", String(connectTimeout), conninfo, "UTF8"]
    let opened = withCStrings(keywords + [nil]) { keywords in
      withCStrings(values + [nil]) { values in PQconnectdbParams(keywords, values, 1) }
    }
    guard let opened else {
      throw PostgreSQLError(kind: .other, message: "out of memory opening a PostgreSQL connection")
    }
    handle = opened
    name = Self.name(of: opened)
    // Notices (a warning, "there is no transaction in progress") would go to standard error.
    PQsetNoticeReceiver(handle, { _, _ in }, nil)
    // Thrown with every property set, the connection is finished by `deinit`.
    guard awaitServer(for: waitingForServer) else { throw connectionFailure() }
  }

  deinit { PQfinish(handle) }

  /// The server's version as a number: 150008 for 15.8. The corresponding C function is
  /// `PQserverVersion`.
  var serverVersion: Int { Int(PQserverVersion(handle)) }

  /// The server process serving this session. The corresponding C function is `PQbackendPID`.
  var processID: Int { Int(PQbackendPID(handle)) }

  /// How many statements are kept prepared.
  var cachedStatements: Int { statements.count }

  // MARK: Statements

  /// Runs one statement with `parameters` (`$1`, `$2`, …; `nil` is NULL) and returns its rows or
  /// its count. The statement is prepared the first time its SQL is met and kept.
  ///
  /// Outside a transaction, a statement whose connection was lost runs once more on a new one.
  /// A statement that had reached the server before the connection broke may have been done:
  /// run writes whose repetition matters in a transaction. The corresponding C functions are
  /// `PQprepare` and `PQexecPrepared`.
  func execute(_ sql: String, _ parameters: [PostgreSQLValue?] = []) throws(PostgreSQLError) -> PostgreSQLResult {
    try execute(sql, texts: parameters.map { $0?.text })
  }

  /// ``execute(_:_:)`` with the parameters as PostgreSQL's text.
  func execute(_ sql: String, _ parameters: [String?]) throws(PostgreSQLError) -> PostgreSQLResult {
    try execute(sql, texts: parameters)
  }

  /// Runs several statements at once, with no parameters, by the simple protocol: a migration.
  /// Unless they hold a `COMMIT` of their own, they are one transaction, and the first that
  /// fails ends it. The corresponding C function is `PQexec`.
  func run(script: String) throws(PostgreSQLError) {
    try refuseNUL(in: script, what: "the SQL", sql: script)
    try whenConnected(script) { () throws(PostgreSQLError) in
      PQclear(try check(PQexec(handle, script), sql: script))
    }
  }

  private func execute(_ sql: String, texts: [String?]) throws(PostgreSQLError) -> PostgreSQLResult {
    try refuseNUL(in: sql, what: "the SQL", sql: sql)
    for (index, text) in texts.enumerated() {
      if let text { try refuseNUL(in: text, what: "parameter \(index + 1)", sql: sql) }
    }
    return try whenConnected(sql) { () throws(PostgreSQLError) in try executePrepared(sql, texts) }
  }

  /// PostgreSQL's text cannot hold U+0000, and libpq would cut a C string short at it: refused
  /// before anything is sent. 22021 is the SQLSTATE the server gives a NUL byte in text.
  private func refuseNUL(in text: String, what: String, sql: String) throws(PostgreSQLError) {
    guard text.utf8.contains(0) else { return }
    throw PostgreSQLError(
      kind: .other, sqlState: "22021",
      message: "\(what) holds a NUL character (U+0000), which PostgreSQL's text cannot store", sql: sql)
  }

  /// Runs `body` on a live connection, made again first when it was lost; outside a
  /// transaction, runs it once more on a new connection when the connection is lost meanwhile.
  private func whenConnected<T>(_ sql: String?, _ body: () throws(PostgreSQLError) -> T) throws(PostgreSQLError)
    -> T
  {
    let inTransaction = isInTransaction
    if PQstatus(handle) != CONNECTION_OK {
      if inTransaction { throw lostInTransaction(sql: sql) }
      try reset()
    }
    do {
      return try body()
    } catch  where error.kind == .connectionLost && !inTransaction {
      try reset()
      return try body()
    }
  }

  private func executePrepared(_ sql: String, _ texts: [String?]) throws(PostgreSQLError) -> PostgreSQLResult {
    deallocateDropped()
    do {
      return try runPrepared(try prepared(sql), sql, texts)
    } catch  where error.sqlState == "26000" || (error.sqlState == "0A000" && error.message.contains("cached plan")) {
      // The server no longer holds the statement (DEALLOCATE ALL, DISCARD ALL), or the shape
      // of its rows changed (a column added under a `SELECT *`): prepared again, and run once
      // more unless the failure aborted a transaction.
      if error.sqlState == "26000" {
        statements.removeAll()
      } else if let dropped = statements.removeValue(forKey: sql) {
        droppedStatements.append(dropped.name)
      }
      guard !isInTransaction else { throw error }
      return try runPrepared(try prepared(sql), sql, texts)
    }
  }

  /// The name of the statement prepared for `sql`, prepared now when it is not yet.
  private func prepared(_ sql: String) throws(PostgreSQLError) -> String {
    uses += 1
    if let cached = statements[sql] {
      statements[sql]?.used = uses
      return cached.name
    }
    statementNumber += 1
    let name = "catalogue_\(statementNumber)"
    PQclear(try check(PQprepare(handle, name, sql, 0, nil), sql: sql))
    if statements.count >= Self.statementCacheLimit,
      let oldest = statements.min(by: { $0.value.used < $1.value.used })
    {
      statements[oldest.key] = nil
      droppedStatements.append(oldest.value.name)
    }
    statements[sql] = (name, uses)
    return name
  }

  private func runPrepared(_ name: String, _ sql: String, _ texts: [String?]) throws(PostgreSQLError)
    -> PostgreSQLResult
  {
    let result = withCStrings(texts) { values in
      PQexecPrepared(handle, name, Int32(values.count), values, nil, nil, 0)
    }
    return PostgreSQLResult(handle: try check(result, sql: sql), sql: sql)
  }

  /// Deallocates the statements dropped from the cache, all in one round trip, when no
  /// transaction is open. A failure leaves them to the end of the session.
  private func deallocateDropped() {
    guard !droppedStatements.isEmpty, PQtransactionStatus(handle) == PQTRANS_IDLE else { return }
    let script = droppedStatements.map { "DEALLOCATE \($0)" }.joined(separator: "; ")
    droppedStatements.removeAll()
    PQclear(PQexec(handle, script))
  }

  /// Converts a libpq result into a thrown error, or returns it when the statement succeeded,
  /// and notes whether a transaction is open now.
  private func check(_ result: OpaquePointer?, sql: String?) throws(PostgreSQLError) -> OpaquePointer {
    let connected = PQstatus(handle) == CONNECTION_OK
    if connected {
      let status = PQtransactionStatus(handle)
      isInTransaction = status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }
    guard let result else { throw failure(sql: sql) }
    let status = PQresultStatus(result)
    if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY { return result }
    if status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH {
      PQclear(result)
      abandonCopy(status)
      throw PostgreSQLError(kind: .other, message: "COPY to or from the client is not supported", sql: sql)
    }
    func field(_ code: UInt8) -> String? {
      guard let text = PQresultErrorField(result, Int32(code)) else { return nil }
      return scrubbed(String(cString: text))
    }
    let sqlState = field(UInt8(ascii: "C"))  // PG_DIAG_SQLSTATE
    var kind = sqlState.map(PostgreSQLError.kind(sqlState:)) ?? .other
    if !connected { kind = .connectionLost }
    let error = PostgreSQLError(
      kind: kind, sqlState: sqlState,
      message: field(UInt8(ascii: "M")) ?? oneLine(String(cString: PQresultErrorMessage(result))),  // PRIMARY
      detail: field(UInt8(ascii: "D")),  // PG_DIAG_MESSAGE_DETAIL
      constraint: field(UInt8(ascii: "n")),  // PG_DIAG_CONSTRAINT_NAME
      sql: sql)
    PQclear(result)
    throw error
  }

  /// Ends a COPY the server began, so that the connection can take statements again: a COPY
  /// FROM STDIN fails, a COPY TO STDOUT is read to its end and thrown away. (COPY BOTH is for
  /// replication connections, which this is not.)
  private func abandonCopy(_ status: ExecStatusType) {
    if status == PGRES_COPY_IN {
      PQputCopyEnd(handle, "COPY to or from the client is not supported")
    } else if status == PGRES_COPY_OUT {
      var row: UnsafeMutablePointer<CChar>?
      while PQgetCopyData(handle, &row, 0) > 0 { PQfreemem(row) }
    } else {
      return
    }
    while let result = PQgetResult(handle) { PQclear(result) }
  }

  /// What failed without a result: libpq's message, the connection lost when it is.
  private func failure(sql: String?) -> PostgreSQLError {
    PostgreSQLError(
      kind: PQstatus(handle) == CONNECTION_OK ? .other : .connectionLost,
      message: oneLine(String(cString: PQerrorMessage(handle))), sql: sql)
  }

  private func lostInTransaction(sql: String?) -> PostgreSQLError {
    PostgreSQLError(
      kind: .connectionLost,
      message: "the connection was lost in a transaction, whose work is gone: roll it back and run it again",
      sql: sql)
  }

  // MARK: Transactions

  /// How much of other transactions' work a transaction sees.
  enum Isolation: Sendable {
    /// Each statement sees what was committed before it began.
    case readCommitted
    /// The whole transaction sees what was committed before its first statement.
    case repeatableRead
    /// As if transactions ran one after another; one that cannot be fails with
    /// ``PostgreSQLError/Kind/busy``, to be run again.
    case serializable

    var sql: String {
      switch self {
      case .readCommitted: return "READ COMMITTED"
      case .repeatableRead: return "REPEATABLE READ"
      case .serializable: return "SERIALIZABLE"
      }
    }
  }

  /// Begins a transaction; a transaction inside another is refused.
  func begin(isolation: Isolation = .readCommitted, readOnly: Bool = false) throws(PostgreSQLError) {
    let sql = "BEGIN ISOLATION LEVEL \(isolation.sql)" + (readOnly ? " READ ONLY" : "")
    guard !isInTransaction else {
      throw PostgreSQLError(kind: .other, message: "a transaction was begun inside another", sql: sql)
    }
    try whenConnected(sql) { () throws(PostgreSQLError) in PQclear(try check(PQexec(handle, sql), sql: sql)) }
  }

  /// Commits the transaction. One in which a statement failed is rolled back by the server,
  /// and this throws. Lost with the connection, the transaction is over all the same, committed
  /// or not: the commit may have been done before the connection broke.
  func commit() throws(PostgreSQLError) {
    let sql = "COMMIT"
    do {
      try whenConnected(sql) { () throws(PostgreSQLError) in
        let result = try check(PQexec(handle, sql), sql: sql)
        defer { PQclear(result) }
        // The server answers COMMIT in an aborted transaction with a rollback and no error.
        guard String(cString: PQcmdStatus(result)) == "COMMIT" else {
          throw PostgreSQLError(
            kind: .other, sqlState: "25P02",
            message: "the transaction was rolled back, not committed: a statement in it had failed", sql: sql)
        }
      }
    } catch  where error.kind == .connectionLost {
      isInTransaction = false
      throw error
    }
  }

  /// Rolls the transaction back, if one is open. A connection lost is no failure here: the
  /// server rolled the transaction back when it went.
  func rollback() throws(PostgreSQLError) {
    guard isInTransaction else { return }
    guard PQstatus(handle) == CONNECTION_OK else {
      isInTransaction = false
      return
    }
    do {
      PQclear(try check(PQexec(handle, "ROLLBACK"), sql: "ROLLBACK"))
    } catch  where error.kind == .connectionLost {
      isInTransaction = false
    }
  }

  // MARK: Connecting again

  /// Makes the connection again (a new session): prepared statements are forgotten, the
  /// transaction, if one was open, is gone, and channels are listened to again. Waits up to
  /// ``serverWait`` for a server that is restarting. The corresponding C function is `PQreset`.
  func reset() throws(PostgreSQLError) {
    statements.removeAll()
    droppedStatements.removeAll()
    isInTransaction = false
    PQreset(handle)
    guard awaitServer(for: serverWait) else { throw connectionFailure() }
    reconnections += 1
    for channel in channels.sorted() {
      let sql = "LISTEN \(Self.identifier(channel))"
      PQclear(try check(PQexec(handle, sql), sql: sql))
    }
  }

  /// Makes the connection again if it was lost; lost in a transaction, throws instead (see the
  /// type's description). The corresponding C function is `PQstatus`.
  func ensureConnected() throws(PostgreSQLError) {
    guard PQstatus(handle) != CONNECTION_OK else { return }
    if isInTransaction { throw lostInTransaction(sql: nil) }
    try reset()
  }

  /// Whether the connection is up, after waiting up to `seconds` for a server that refuses
  /// connections or answers that it is starting up or shutting down, trying again with a
  /// growing pause. A server that answers otherwise (no such database, a wrong password, no
  /// room for another connection) is not waited for. The corresponding C functions are
  /// `PQpingParams` (through ``ping()``) and `PQreset`.
  private func awaitServer(for seconds: Double) -> Bool {
    let deadline = monotonicSeconds() + seconds
    var pause = 0.02
    while PQstatus(handle) != CONNECTION_OK {
      let left = deadline - monotonicSeconds()
      guard left > 0 else { return false }
      let answer = ping()
      if answer == PQPING_OK {
        // Up by now, though it was not a moment ago: one more try, and no waiting.
        PQreset(handle)
        return PQstatus(handle) == CONNECTION_OK
      }
      guard answer == PQPING_REJECT || answer == PQPING_NO_RESPONSE else { return false }
      usleep(UInt32(min(pause, left) * Double.random(in: 0.5...1) * 1_000_000))
      pause = min(pause * 2, 0.5)
      PQreset(handle)
    }
    return true
  }

  /// Whether the server takes connections, asked with the connection's own settings.
  private func ping() -> PGPing {
    guard let options = PQconninfo(handle) else { return PQPING_NO_ATTEMPT }
    defer { PQconninfoFree(options) }
    var keywords: [String?] = []
    var values: [String?] = []
    var option = options
    while let keyword = option.pointee.keyword {
      if let value = option.pointee.val {
        keywords.append(String(cString: keyword))
        values.append(String(cString: value))
      }
      option += 1
    }
    return withCStrings(keywords + [nil]) { keywords in
      withCStrings(values + [nil]) { values in PQpingParams(keywords, values, 0) }
    }
  }

  /// Why connecting failed, the database named without its password. libpq does not give the
  /// SQLSTATE of a connection refused: a server that answers "not now" (57P03) is told from
  /// one that does not answer by ``ping()``, and one with no room for another connection by
  /// its message (53300), which the server sends untranslated before the session has a
  /// language.
  private func connectionFailure() -> PostgreSQLError {
    let message = oneLine(String(cString: PQerrorMessage(handle)))
    let answer = ping()
    var kind = PostgreSQLError.Kind.other
    var sqlState: String?
    if message.contains("too many clients already") || message.contains("too many connections for")
      || message.contains("remaining connection slots are reserved")
    {
      (kind, sqlState) = (.tooManyConnections, "53300")
    } else if answer == PQPING_REJECT {
      (kind, sqlState) = (.connectionLost, "57P03")
    } else if answer == PQPING_NO_RESPONSE {
      kind = .connectionLost
    }
    return PostgreSQLError(kind: kind, sqlState: sqlState, message: message, database: name)
  }

  // MARK: Notifications

  /// Listens to `channel` (taken as it is, case and all), on every session of this connection
  /// to come. Outside a transaction: in one, it would take effect when it commits. The
  /// corresponding SQL is `LISTEN`.
  func listen(_ channel: String) throws(PostgreSQLError) {
    let sql = "LISTEN \(Self.identifier(channel))"
    try refuseNUL(in: channel, what: "the channel's name", sql: sql)
    try whenConnected(sql) { () throws(PostgreSQLError) in PQclear(try check(PQexec(handle, sql), sql: sql)) }
    channels.insert(channel)
  }

  /// Stops listening to `channel`. The corresponding SQL is `UNLISTEN`.
  func unlisten(_ channel: String) throws(PostgreSQLError) {
    let sql = "UNLISTEN \(Self.identifier(channel))"
    try refuseNUL(in: channel, what: "the channel's name", sql: sql)
    channels.remove(channel)
    try whenConnected(sql) { () throws(PostgreSQLError) in PQclear(try check(PQexec(handle, sql), sql: sql)) }
  }

  /// Sends `payload` to whoever listens to `channel`: at once, or in a transaction when it
  /// commits. The corresponding SQL is `pg_notify`.
  func notify(_ channel: String, payload: String = "") throws(PostgreSQLError) {
    _ = try execute("SELECT pg_notify($1, $2)", [.text(channel), .text(payload)])
  }

  /// The notifications received, waiting up to `seconds` for one when none has come yet.
  /// A lost connection throws; the next call makes it again (see ``reconnections``). The
  /// corresponding C functions are `PQconsumeInput` and `PQnotifies`, with `poll` on
  /// `PQsocket` to wait.
  func notifications(waitingUpTo seconds: Double) throws(PostgreSQLError) -> [PostgreSQLNotification] {
    let deadline = monotonicSeconds() + seconds
    var received = try pendingNotifications()
    while received.isEmpty {
      let left = deadline - monotonicSeconds()
      guard left > 0 else { break }
      var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
      guard descriptor.fd >= 0 else { throw failure(sql: nil) }
      let status = poll(&descriptor, 1, Int32((left * 1000).rounded(.up)))
      if status < 0 && errno != EINTR {
        throw PostgreSQLError(kind: .other, message: "waiting for notifications: poll failed (errno \(errno))")
      }
      received = try pendingNotifications()
    }
    return received
  }

  /// The notifications received, without waiting.
  func pendingNotifications() throws(PostgreSQLError) -> [PostgreSQLNotification] {
    try ensureConnected()
    guard PQconsumeInput(handle) == 1 else { throw failure(sql: nil) }
    var received: [PostgreSQLNotification] = []
    while let notification = PQnotifies(handle) {
      received.append(
        PostgreSQLNotification(
          channel: String(cString: notification.pointee.relname),
          payload: String(cString: notification.pointee.extra), sender: Int(notification.pointee.be_pid)))
      PQfreemem(notification)
    }
    return received
  }

  // MARK: Helpers

  /// `text` as an SQL identifier, quoted: its case kept, any `"` doubled.
  static func identifier(_ text: String) -> String {
    "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
  }

  /// A message on one line, with no password in it.
  /// libpq's message on one line: its lines joined as sentences ("Connection refused. Is the
  /// server running…"), not run together.
  private func oneLine(_ text: String) -> String {
    var joined = ""
    for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingSpaces }) where !line.isEmpty {
      if let last = joined.last { joined += ".:;?!".contains(last) ? " " : ". " }
      joined += line
    }
    return scrubbed(joined)
  }

  private func scrubbed(_ text: String) -> String {
    var text = text
    for secret in secrets { text = text.replacing(secret, with: "…") }
    return text
  }

  /// The password in a connection string, as libpq reads it and, in a URL, as written
  /// (percent-encoded). Passwords shorter than four characters are not looked for: scrubbing
  /// them would garble every message, and they protect nothing.
  ///
  /// A connection string libpq cannot read is refused here, and libpq's words on it left out
  /// when it may hold a password: they quote the string (`missing "=" after "…"`). A string
  /// with neither `=` nor a URL's scheme is a database's name, as libpq takes it. The
  /// corresponding C function is `PQconninfoParse`.
  private static func passwords(in conninfo: String) throws(PostgreSQLError) -> [String] {
    let isURL = conninfo.hasPrefix("postgresql://") || conninfo.hasPrefix("postgres://")
    guard isURL || conninfo.contains("=") else { return [] }
    var message: UnsafeMutablePointer<CChar>?
    guard let options = PQconninfoParse(conninfo, &message) else {
      let words = message.map { String(cString: $0) } ?? "out of memory"
      PQfreemem(message)
      let quoted = !conninfo.contains("password") && !(isURL && conninfo.contains("@"))
      throw PostgreSQLError(
        kind: .other,
        message: "the connection string cannot be read"
          + (quoted
            ? ": " + words.split(whereSeparator: \.isNewline).joined(separator: " ")
            : " (libpq's words left out, for they may quote the password)"))
    }
    defer { PQconninfoFree(options) }
    var found: [String] = []
    var option = options
    while let keyword = option.pointee.keyword {
      if String(cString: keyword) == "password", let value = option.pointee.val {
        found.append(String(cString: value))
      }
      option += 1
    }
    if isURL, let scheme = conninfo.firstRange(of: "://") {
      let authority = conninfo[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
      if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
        found.append(String(authority[authority.index(after: colon)..<at]))
      }
    }
    return found.filter { $0.count >= 4 }
  }

  /// The database as a URL without the password: `postgresql://user@host:port/database`, a
  /// socket folder as the host percent-encoded. The corresponding C functions are `PQuser`,
  /// `PQhost`, `PQport` and `PQdb`, which answer for a connection that failed too.
  private static func name(of handle: OpaquePointer) -> String {
    func read(_ text: UnsafeMutablePointer<CChar>?) -> String { text.map { String(cString: $0) } ?? "" }
    let user = read(PQuser(handle))
    let host = read(PQhost(handle))
    let port = read(PQport(handle))
    var url = "postgresql://"
    if !user.isEmpty { url += percentEncoded(user) + "@" }
    url += host.contains(":") && !host.hasPrefix("/") ? "[\(host)]" : percentEncoded(host)
    if !port.isEmpty { url += ":" + port }
    return url + "/" + percentEncoded(read(PQdb(handle)))
  }

  /// Every byte but letters, digits and `-._~` as `%XX`.
  private static func percentEncoded(_ text: String) -> String {
    var encoded = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"):
        encoded.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = String(byte, radix: 16, uppercase: true)
        encoded += (hex.count < 2 ? "%0" : "%") + hex
      }
    }
    return encoded
  }
}

/// The rows, or the count, of a statement that ran, held by libpq until the value goes away.
///
/// Values are read as PostgreSQL writes them as text: `t` and `f` for booleans, `NaN` and
/// `Infinity` among doubles. Rows and columns count from 0; one past the end is a programming
/// error, as an array's index is.
final class PostgreSQLResult {
  private let handle: OpaquePointer
  /// The statement, for errors.
  let sql: String?
  /// The corresponding C function is `PQntuples`.
  let rowCount: Int
  /// The corresponding C function is `PQnfields`.
  let columnCount: Int

  fileprivate init(handle: OpaquePointer, sql: String?) {
    self.handle = handle
    self.sql = sql
    rowCount = Int(PQntuples(handle))
    columnCount = Int(PQnfields(handle))
  }

  deinit { PQclear(handle) }

  /// The columns' names, in order. The corresponding C function is `PQfname`.
  var columnNames: [String] {
    (0..<columnCount).map { String(cString: PQfname(handle, Int32($0))) }
  }

  /// The first column named `name` (exactly), or nil.
  func column(named name: String) -> Int? { columnNames.firstIndex(of: name) }

  /// The rows an INSERT, UPDATE, DELETE, MERGE, SELECT, MOVE, FETCH or COPY affected; 0 for
  /// other statements. The corresponding C function is `PQcmdTuples`.
  var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

  /// The corresponding C function is `PQgetisnull`.
  func isNull(row: Int, column: Int) -> Bool {
    checkBounds(row, column)
    return PQgetisnull(handle, Int32(row), Int32(column)) == 1
  }

  /// The value as text, or nil for NULL. The corresponding C function is `PQgetvalue`.
  func string(row: Int, column: Int) -> String? {
    withBytes(row, column) { String(decoding: $0, as: UTF8.self) }
  }

  /// The value as an integer, or nil for NULL; text that is not one throws.
  func int(row: Int, column: Int) throws(PostgreSQLError) -> Int? {
    guard let number = withBytes(row, column, Self.integer) else { return nil }
    guard let number else { throw notA("an integer", row, column) }
    return number
  }

  /// The value as a boolean (`t` or `f`), or nil for NULL; anything else throws.
  func bool(row: Int, column: Int) throws(PostgreSQLError) -> Bool? {
    guard let text = string(row: row, column: column) else { return nil }
    switch text {
    case "t": return true
    case "f": return false
    default: throw notA("a boolean", row, column)
    }
  }

  /// The value as a double, or nil for NULL; text that is not a number throws.
  func double(row: Int, column: Int) throws(PostgreSQLError) -> Double? {
    guard let text = string(row: row, column: column) else { return nil }
    switch text {
    case "NaN": return .nan
    case "Infinity": return .infinity
    case "-Infinity": return -.infinity
    default:
      guard let number = Double(text), number.isFinite else { throw notA("a number", row, column) }
      return number
    }
  }

  private func checkBounds(_ row: Int, _ column: Int) {
    precondition(row >= 0 && row < rowCount, "row \(row) of \(rowCount)")
    precondition(column >= 0 && column < columnCount, "column \(column) of \(columnCount)")
  }

  /// `body` over the value's bytes, or nil for NULL.
  private func withBytes<T>(_ row: Int, _ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
    guard !isNull(row: row, column: column), let value = PQgetvalue(handle, Int32(row), Int32(column)) else {
      return nil
    }
    let count = Int(PQgetlength(handle, Int32(row), Int32(column)))
    return value.withMemoryRebound(to: UInt8.self, capacity: count) {
      body(UnsafeBufferPointer(start: $0, count: count))
    }
  }

  /// Decimal digits with an optional minus sign, as a bigint is written; nil for anything
  /// else, or past `Int`'s range.
  private static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    let negative = bytes.first == UInt8(ascii: "-")
    let digits = bytes.dropFirst(negative ? 1 : 0)
    guard !digits.isEmpty else { return nil }
    var number = 0
    for byte in digits {
      guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
      let digit = Int(byte - UInt8(ascii: "0"))
      let (shifted, overflow) = number.multipliedReportingOverflow(by: 10)
      let (next, overflow2) =
        negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
      guard !overflow && !overflow2 else { return nil }
      number = next
    }
    return number
  }

  private func notA(_ what: String, _ row: Int, _ column: Int) -> PostgreSQLError {
    var shown = string(row: row, column: column) ?? ""
    if shown.count > 40 { shown = String(shown.prefix(40)) + "…" }
    let name = String(cString: PQfname(handle, Int32(column)))
    return PostgreSQLError(
      kind: .other, message: "column \(column) (\(name)) of row \(row) holds \"\(shown)\", not \(what)", sql: sql)
  }
}

/// Calls `body` with `strings` as C strings (nil stays NULL), all in one buffer that lives
/// until `body` returns.
private func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
  var bytes: [UInt8] = []
  bytes.reserveCapacity(strings.reduce(0) { $0 + ($1?.utf8.count ?? 0) + 1 })
  var offsets: [Int?] = []
  offsets.reserveCapacity(strings.count)
  for string in strings {
    guard let string else {
      offsets.append(nil)
      continue
    }
    offsets.append(bytes.count)
    bytes.append(contentsOf: string.utf8)
    bytes.append(0)
  }
  return bytes.withUnsafeBufferPointer { buffer in
    let base = UnsafeRawPointer(buffer.baseAddress)
    return body(offsets.map { offset in offset.map { base!.advanced(by: $0).assumingMemoryBound(to: CChar.self) } })
  }
}

/// Seconds on a clock that only goes forward.
private func monotonicSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

extension Substring {
  /// Without the spaces and tabs at either end.
  fileprivate var trimmingSpaces: Substring {
    var text = self
    while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" { text.removeLast() }
    return text
  }
}
