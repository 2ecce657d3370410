/// application/x-www-form-urlencoded pairs ('+' is a space, %XX decoded; invalid encodings kept as
/// written, never a crash), in order.
///
/// A pair without '=' has an empty value; empty pairs (`a=1&&b=2`) are skipped. A name or value
/// whose decoded bytes are not UTF-8 is kept as written.
public struct QueryParameters: Sendable {
  public var pairs: [(name: String, value: String)]

  public init(parsing text: String) {
    pairs = []
    for piece in text.split(separator: "&", omittingEmptySubsequences: true) {
      if let equals = piece.firstIndex(of: "=") {
        pairs.append(
          (
            name: PercentEncoding.decodeForm(piece[..<equals]),
            value: PercentEncoding.decodeForm(piece[piece.index(after: equals)...])
          ))
      } else {
        pairs.append((name: PercentEncoding.decodeForm(piece), value: ""))
      }
    }
  }

  /// The first value of `name`, or nil.
  public subscript(_ name: String) -> String? {
    pairs.first { $0.name == name }?.value
  }

  /// Every value of `name`, in order.
  public func all(_ name: String) -> [String] {
    pairs.filter { $0.name == name }.map(\.value)
  }
}
