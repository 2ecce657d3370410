/// A record store's failure, as the library and its callers tell one from another whatever the
/// store: another writer held the records too long, the store is damaged, its disk is full, and
/// so on. What the store itself said (its code, its message, the statement) is kept for the
/// error's line and the server's log.
public struct RecordStoreFailure: Error, Equatable, Sendable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    /// Another writer held the records for longer than the store waits (or the store gave up a
    /// transaction that met another's: try again).
    case busy
    /// The store is damaged: a file SQLite cannot read, data PostgreSQL found corrupt.
    case damaged
    /// The disk the store writes to is full.
    case full
    /// The store may be read but not written.
    case readOnly
    /// A constraint (a check, a unique key, a foreign key, NOT NULL) refused the change.
    case constraint
    /// The statement was stopped: past the work the library allowed it.
    case interrupted
    /// The store cannot be reached (a database server that stopped, a lost connection).
    case unavailable
    /// Anything else: a failure of the catalogue or of the store.
    case other
  }

  public var kind: Kind
  /// The store's own code for the failure (SQLite's extended result code, PostgreSQL's
  /// SQLSTATE).
  public var code: String
  /// The store's own words.
  public var message: String
  /// The statement that failed, when there was one.
  public var statement: String?

  public init(kind: Kind, code: String, message: String, statement: String? = nil) {
    self.kind = kind
    self.code = code
    self.message = message
    self.statement = statement
  }

  public var description: String {
    var text = "database error \(code): \(message)"
    if let statement {
      text += " (in: \(statement.split(whereSeparator: \.isNewline).joined(separator: " ")))"
    }
    return text
  }
}
