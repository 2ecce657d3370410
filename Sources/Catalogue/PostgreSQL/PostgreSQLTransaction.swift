import Glibc

/// An error that may carry a PostgreSQL failure: what the body of
/// ``PostgreSQLConnection/transaction(isolation:readOnly:retrying:_:)`` throws, so that a store
/// can throw its own errors from it and still have a busy transaction run again.
protocol PostgreSQLFailure: Error {
  init(_ error: PostgreSQLError)
  /// The PostgreSQL failure this error is, or wraps; nil for any other.
  var postgreSQLError: PostgreSQLError? { get }
}

extension PostgreSQLError: PostgreSQLFailure {
  init(_ error: PostgreSQLError) { self = error }
  var postgreSQLError: PostgreSQLError? { self }
}

extension PostgreSQLConnection {
  /// How many times ``transaction(isolation:readOnly:retrying:_:)`` runs a transaction that
  /// keeps failing as busy, unless told otherwise.
  static let transactionAttempts = 5

  /// Runs `body` in a transaction: commits when it returns, rolls back when it throws. Inside
  /// another transaction, `body` simply joins it (and the outer one is what runs again).
  ///
  /// A transaction that fails as ``PostgreSQLError/Kind/busy`` (a serialization failure, a
  /// deadlock, a lock not available) runs again, up to `attempts` times in all, after a short
  /// pause of random length, so that two that collided do not collide again; so does one whose
  /// connection was lost before it committed, on a new connection. `body` must therefore do
  /// nothing outside the database that it cannot do twice. A connection lost while committing
  /// is not run again: the commit may have been done.
  func transaction<T, Failure: PostgreSQLFailure>(
    isolation: Isolation = .readCommitted, readOnly: Bool = false, retrying attempts: Int = transactionAttempts,
    _ body: () throws(Failure) -> T
  ) throws(Failure) -> T {
    if isInTransaction { return try body() }
    var attempt = 0
    while true {
      attempt += 1
      var committing = false
      do throws(Failure) {
        do { try begin(isolation: isolation, readOnly: readOnly) } catch { throw Failure(error) }
        let value: T
        do {
          value = try body()
        } catch {
          try? rollback()
          throw error
        }
        committing = true
        do { try commit() } catch { throw Failure(error) }
        return value
      } catch {
        let again: Bool
        switch error.postgreSQLError?.kind {
        case .busy: again = true
        case .connectionLost: again = !committing
        default: again = false
        }
        guard again && attempt < attempts else { throw error }
      }
      // 2 to 4 ms after the first failure, doubling each time up to 100 to 200 ms.
      let pause = min(0.002 * Double(1 << min(attempt - 1, 6)), 0.1) * Double.random(in: 1...2)
      usleep(UInt32(pause * 1_000_000))
    }
  }
}
