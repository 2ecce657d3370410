/// Where a library's records are when they are in PostgreSQL: a `postgresql://` URL as libpq
/// takes it (`postgresql://USER@HOST:PORT/DATABASE?sslmode=…`). A password is better kept in
/// `~/.pgpass` or `PGPASSWORD` than in the URL, which the library folder keeps.
public struct DatabaseURL: Equatable, Sendable {
  public let text: String

  /// `text` when it is a PostgreSQL URL on one line; never repeated in the error, which would
  /// show a password.
  public init(_ text: String) throws(CatalogueError) {
    let lower = text.lowercased()
    guard lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://") else {
      throw .invalidArgument(
        "the database must be a PostgreSQL URL, postgresql://USER@HOST:PORT/DATABASE; "
          + "a library's own SQLite file needs no --database")
    }
    guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
      throw .invalidArgument("the database URL holds a control character (a line break?): give it on one line")
    }
    self.text = text
  }
}
