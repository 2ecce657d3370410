import Foundation

/// A JSON value as a request sent it, its kind kept: `true` is a boolean, never the number 1,
/// and `3.5` is a number that is not a whole one. (JSONSerialization hands both back as
/// NSNumber, and which one it was is not reliably told apart on Linux.)
enum JSONValue: Decodable, Equatable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  /// The value of a JSON text, or nil when it is not JSON.
  static func parse(_ bytes: [UInt8]) -> JSONValue? {
    try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
  }
}
