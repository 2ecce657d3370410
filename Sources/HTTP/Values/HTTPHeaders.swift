/// The header fields of a request or a response, in order, names compared without regard to
/// ASCII case.
///
/// Values are kept as sent: a field that appears several times keeps every value, which
/// ``values(_:)`` gives in order.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
  public typealias Element = (name: String, value: String)

  private var fields: [Element]

  public init(_ pairs: [(String, String)] = []) {
    fields = pairs.map { (name: $0.0, value: $0.1) }
  }

  public init(dictionaryLiteral elements: (String, String)...) {
    self.init(elements)
  }

  /// The first value of `name`, or nil.
  public subscript(_ name: String) -> String? {
    for field in fields where ASCII.equalsIgnoringCase(field.name, name) { return field.value }
    return nil
  }

  /// Every value of `name`, in order.
  public func values(_ name: String) -> [String] {
    fields.filter { ASCII.equalsIgnoringCase($0.name, name) }.map(\.value)
  }

  /// Adds a field after the others, keeping any of the same name.
  public mutating func add(_ name: String, _ value: String) {
    fields.append((name: name, value: value))
  }

  /// Replaces every value of `name` with `value`, in the place of the first one (at the end
  /// when there was none).
  public mutating func set(_ name: String, _ value: String) {
    guard let first = fields.firstIndex(where: { ASCII.equalsIgnoringCase($0.name, name) }) else {
      fields.append((name: name, value: value))
      return
    }
    fields[first] = (name: name, value: value)
    var index = fields.index(after: first)
    while index < fields.endIndex {
      if ASCII.equalsIgnoringCase(fields[index].name, name) {
        fields.remove(at: index)
      } else {
        index += 1
      }
    }
  }

  /// Removes every field of that name.
  public mutating func remove(_ name: String) {
    fields.removeAll { ASCII.equalsIgnoringCase($0.name, name) }
  }

  /// Whether a field of that name is present.
  public func contains(_ name: String) -> Bool { self[name] != nil }

  /// How many fields there are (each repeated name counted).
  public var count: Int { fields.count }

  public func makeIterator() -> IndexingIterator<[Element]> { fields.makeIterator() }
}
