/// A notification received on a channel this connection listens to (`NOTIFY`, `pg_notify`).
struct PostgreSQLNotification: Equatable, Sendable {
  var channel: String
  var payload: String
  /// The server process of the connection that sent it: this connection's own
  /// ``PostgreSQLConnection/processID`` when it was its own.
  var sender: Int
}
