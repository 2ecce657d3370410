import HTTPTestSupport
import Foundation
import HTTP
import Testing
import TestSupport

/// A running server on a library of its own with one reviewer and their API token: what most
/// end-to-end tests start from.
final class LiveSite: Sendable {
  static let reviewer = "alice"
  static let password = "correct horse battery staple"

  let server: ServeProcess
  let token: String

  var library: TestLibrary { server.library }
  var port: Int { server.port }
  var bearer: (String, String) { ("Authorization", "Bearer \(token)") }

  /// Starts `catalogue serve --port 0 ARGUMENTS` once `prepare` has filled the library.
  init(arguments: [String] = [], prepare: (TestLibrary) throws -> Void = { _ in }) throws {
    let library = try TestLibrary()
    // The least Argon2id cost a library takes (settings a user may edit by hand): these tests
    // are about the server, and sign in dozens of times.
    try library.setting("password_ops", "2")
    try library.setting("password_memory", String(19 * 1_048_576))
    try library.addReviewer(Self.reviewer, password: Self.password)
    token = try library.token(for: Self.reviewer)
    try prepare(library)
    server = try ServeProcess(library: library, arguments: arguments)
    // A token's use is written to the library at most once a minute: used once now, it leaves
    // the folder as it is for the snapshots tests take after this.
    let used = try connect().request("GET", "/api/session", headers: [bearer])
    try #require(used.status == 200, "the new token does not work: \(used.status) \(used.text)")
  }

  /// A new connection, whose reads give up after `timeout` seconds.
  func connect(source: String? = nil, timeout: Double = 20) throws -> HTTPClient {
    try server.connect(source: source, timeout: timeout)
  }

  /// One request on a connection of its own, with the reviewer's token when `signed`.
  func request(
    _ method: String = "GET", _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
    signed: Bool = false
  ) throws -> Response {
    try connect().request(method, target, headers: (signed ? [bearer] : []) + headers, body: body)
  }

  /// A JSON request with the reviewer's token (unless `signed` is false).
  func json(
    _ method: String, _ target: String, _ object: [String: Any], headers: [(String, String)] = [],
    signed: Bool = true
  ) throws -> Response {
    try connect().json(method, target, object, headers: (signed ? [bearer] : []) + headers)
  }

  /// Uploads `files` (paths, sent under the names given) as parts named `file`, with the token.
  func upload(
    _ method: String = "POST", _ target: String, _ files: [(path: String, name: String)], signed: Bool = true
  ) throws -> Response {
    let form = Multipart(files: try files.map { ($0.name, try Fixture.bytes($0.path)) })
    return try connect().upload(method, target, form, headers: signed ? [bearer] : [])
  }
}

/// JSON values compared as JSON: both written with sorted keys.
enum JSONValue {
  static func canonical(_ value: Any) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
    else { return "\(value)" }
    return String(decoding: data, as: UTF8.self)
  }

  /// `value` without any `urls` member, at any depth: the API's JSON less what the command
  /// line does not print.
  static func removingURLs(_ value: Any) -> Any {
    if let object = value as? [String: Any] {
      var result: [String: Any] = [:]
      for (key, member) in object where key != "urls" { result[key] = removingURLs(member) }
      return result
    }
    if let array = value as? [Any] { return array.map(removingURLs) }
    return value
  }
}
