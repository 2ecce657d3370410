/// The tables a library's records are kept in, as every store has them: what a migration from
/// one store to another copies, row by row, in the order their references need (a reviewer
/// before their sessions, a review and a picture before the link between them).
///
/// What a store derives from these (the search index, a review's card of pictures) is not
/// copied: the store it goes to makes it again.
enum RecordTables {
  struct Table: Sendable {
    let name: String
    let columns: [Column]
    /// The columns of its key, in order: rows are read and resumed in that order.
    let key: [String]
  }

  struct Column: Sendable {
    let name: String
    let kind: Kind
  }

  /// How a value is written in a row read for copying: text as it is, an integer in decimal
  /// digits, a flag as `1` or `0`; NULL as `nil`.
  enum Kind: Sendable {
    case text, integer, flag
  }

  private static func columns(_ list: [(String, Kind)]) -> [Column] { list.map { Column(name: $0.0, kind: $0.1) } }

  static let all: [Table] = [
    Table(name: "settings", columns: columns([("key", .text), ("value", .text)]), key: ["key"]),
    Table(
      name: "users",
      columns: columns([
        ("name", .text), ("password_hash", .text), ("created", .text), ("password_changed", .text),
        ("display_name", .text), ("bio", .text),
      ]), key: ["name"]),
    Table(
      name: "reviews",
      columns: columns([
        ("seq", .integer), ("id", .text), ("title", .text), ("body", .text), ("rating", .integer),
        ("category", .text), ("favorite", .flag), ("created", .text), ("updated", .text), ("created_by", .text),
        ("updated_by", .text), ("contains_spoilers", .flag), ("draft", .flag), ("published", .text),
      ]), key: ["seq"]),
    Table(
      name: "images",
      columns: columns([
        ("sha256", .text), ("format", .text), ("width", .integer), ("height", .integer), ("orientation", .integer),
        ("bytes", .integer), ("thumbnail_format", .text), ("thumbnail_width", .integer),
        ("thumbnail_height", .integer), ("imported", .text), ("color_space", .text),
      ]), key: ["sha256"]),
    Table(
      name: "review_images",
      columns: columns([
        ("review", .text), ("position", .integer), ("image", .text), ("cover", .flag), ("alt", .text),
        ("caption", .text), ("name", .text),
      ]), key: ["review", "position"]),
    Table(
      name: "review_sources",
      columns: columns([
        ("source", .text), ("source_id", .text), ("review", .text), ("rating", .text), ("fingerprint", .text),
        ("version", .text), ("imported", .text),
      ]), key: ["source", "source_id"]),
    Table(
      name: "sessions",
      columns: columns([
        ("id_hash", .text), ("user", .text), ("created", .text), ("last_seen", .text), ("expires", .text),
      ]), key: ["id_hash"]),
    Table(
      name: "tokens",
      columns: columns([("id_hash", .text), ("user", .text), ("created", .text), ("last_used", .text)]),
      key: ["id_hash"]),
    Table(
      name: "sign_in_addresses", columns: columns([("user", .text), ("address", .text), ("last_success", .text)]),
      key: ["user", "address"]),
  ]
}
