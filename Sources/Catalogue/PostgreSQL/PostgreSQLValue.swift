/// A statement's parameter, `nil` in a parameter list being NULL.
///
/// Every value travels as text, which the server converts to the parameter's type: the column's,
/// or the one the SQL gives (`$1::bigint`). A string literal, an integer, a decimal or `true`
/// in a parameter list is one of these.
enum PostgreSQLValue: Hashable, Sendable {
  case text(String)
  case integer(Int64)
  case real(Double)
  case boolean(Bool)

  /// The value as PostgreSQL reads it: `t` and `f` for booleans, `NaN` and `Infinity` for the
  /// doubles that have no digits, and otherwise the shortest digits that give the same double.
  var text: String {
    switch self {
    case .text(let text): return text
    case .integer(let number): return String(number)
    case .boolean(let value): return value ? "t" : "f"
    case .real(let number):
      if number.isNaN { return "NaN" }
      if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
      return "\(number)"
    }
  }

  init(_ value: String) { self = .text(value) }
  init(_ value: Int) { self = .integer(Int64(value)) }
  init(_ value: Int64) { self = .integer(value) }
  init(_ value: Bool) { self = .boolean(value) }
  init(_ value: Double) { self = .real(value) }
}

extension PostgreSQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
  ExpressibleByBooleanLiteral
{
  init(stringLiteral value: String) { self = .text(value) }
  init(integerLiteral value: Int64) { self = .integer(value) }
  init(floatLiteral value: Double) { self = .real(value) }
  init(booleanLiteral value: Bool) { self = .boolean(value) }
}
