/// A failure reported by PostgreSQL or by libpq, with what was being done.
///
/// Never holds a password: a connection names its database by a URL without one, and scrubs
/// the password from libpq's messages.
public struct PostgreSQLError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What a caller can do about a failure, whichever database it came from.
  public enum Kind: Sendable, Equatable {
    /// Another transaction was in the way (40001 serialization_failure, 40P01
    /// deadlock_detected, 55P03 lock_not_available): the transaction was rolled back, and
    /// running it again may succeed.
    case busy
    /// A unique index refused the row (23505).
    case uniqueViolation
    /// A foreign key refused the row or the removal (23503).
    case foreignKeyViolation
    /// The server's disk is full (53100).
    case diskFull
    /// A write in a read-only transaction, or on a server that only reads, such as a standby
    /// (25006).
    case readOnly
    /// The server found its data damaged (XX001 data_corrupted, XX002 index_corrupted).
    case damaged
    /// The connection is gone, or the server would not take one: the server went away, is
    /// shutting down or starting up (08xxx, 57P01 admin_shutdown, 57P02 crash_shutdown,
    /// 57P03 cannot_connect_now), or the network failed. What a transaction had done is lost.
    case connectionLost
    /// The server has no room for another connection (53300).
    case tooManyConnections
    /// Anything else: a mistake in the SQL, a constraint other than these, a value the column
    /// cannot take.
    case other
  }

  public var kind: Kind
  /// The five characters of the SQLSTATE, when the server sent one (libpq's own failures, such
  /// as a refused connection, have none).
  public var sqlState: String?
  /// The primary message.
  public var message: String
  /// The server's detail ("Key (id)=(1) already exists."), when it gave one.
  public var detail: String?
  /// The constraint that refused the change, when one did.
  public var constraint: String?
  /// The statement that failed, when there was one.
  public var sql: String?
  /// The database, as a URL without any password, when the failure was one of connecting.
  public var database: String?

  public init(
    kind: Kind, sqlState: String? = nil, message: String, detail: String? = nil, constraint: String? = nil,
    sql: String? = nil, database: String? = nil
  ) {
    self.kind = kind
    self.sqlState = sqlState
    self.message = message
    self.detail = detail
    self.constraint = constraint
    self.sql = sql
    self.database = database
  }

  /// The kind of failure an SQLSTATE reports.
  public static func kind(sqlState: String) -> Kind {
    switch sqlState {
    case "40001", "40P01", "55P03": return .busy
    case "23505": return .uniqueViolation
    case "23503": return .foreignKeyViolation
    case "53100": return .diskFull
    case "25006": return .readOnly
    case "XX001", "XX002": return .damaged
    case "53300": return .tooManyConnections
    case "57P01", "57P02", "57P03": return .connectionLost
    default: return sqlState.hasPrefix("08") ? .connectionLost : .other
    }
  }

  public var description: String {
    var text = "PostgreSQL error"
    if let sqlState { text += " \(sqlState)" }
    if let database { text += " at \(database)" }
    text += ": \(message)"
    if let detail { text += " (\(detail))" }
    if let sql { text += " (in: \(sql.split(whereSeparator: \.isNewline).joined(separator: " ")))" }
    return text
  }
}
