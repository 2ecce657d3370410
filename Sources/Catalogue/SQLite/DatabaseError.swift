/// A failure reported by SQLite, with what was being done.
public struct DatabaseError: Error, Equatable, Sendable, CustomStringConvertible {
  /// SQLite's extended result code.
  public var code: Int32
  /// SQLite's message for the failure.
  public var message: String
  /// The statement that failed, when there was one.
  public var sql: String?

  public init(code: Int32, message: String, sql: String? = nil) {
    self.code = code
    self.message = message
    self.sql = sql
  }

  /// The primary result code (the low byte of the extended one).
  public var primaryCode: Int32 { code & 0xFF }

  /// Another connection held the database for longer than the busy timeout.
  public var isBusy: Bool { primaryCode == 5 || primaryCode == 6 }  // SQLITE_BUSY, SQLITE_LOCKED

  /// The statement was stopped: past the steps ``Database/limitingSteps(to:_:)`` allowed.
  public var isInterrupted: Bool { primaryCode == 9 }  // SQLITE_INTERRUPT

  /// The database file is damaged: SQLITE_CORRUPT, SQLITE_NOTADB, or a virtual table (the
  /// search index) whose stored settings cannot be read.
  public var isDamage: Bool {
    primaryCode == 11 || primaryCode == 26 || message.hasPrefix("vtable constructor failed")
  }

  /// A constraint (CHECK, UNIQUE, FOREIGN KEY, NOT NULL) refused the change.
  public var isConstraintViolation: Bool { primaryCode == 19 }  // SQLITE_CONSTRAINT

  public var description: String {
    var text = "database error \(code): \(message)"
    if let sql { text += " (in: \(sql.split(whereSeparator: \.isNewline).joined(separator: " ")))" }
    return text
  }
}

extension RecordStoreFailure {
  /// SQLite's failure, in the words every store gives.
  init(_ error: DatabaseError) {
    let kind: Kind
    switch error.primaryCode {
    case 5, 6: kind = .busy  // SQLITE_BUSY, SQLITE_LOCKED
    case 8: kind = .readOnly  // SQLITE_READONLY
    case 9: kind = .interrupted  // SQLITE_INTERRUPT
    case 13: kind = .full  // SQLITE_FULL
    case 19: kind = .constraint  // SQLITE_CONSTRAINT
    default: kind = error.isDamage ? .damaged : .other
    }
    self.init(kind: kind, code: String(error.code), message: error.message, statement: error.sql)
  }
}
