import Catalogue
import Foundation
import HTTP
import Testing
import TestSupport

@testable import Server

/// A library with a reviewer and the service over it, asked in process: a request value in, a
/// response value out, as the HTTP layer would hand them over, without a socket.
final class Site: @unchecked Sendable {
  let folder = TemporaryFolder()
  let service: CatalogueService
  let token: String
  static let reviewer = "ada"
  static let password = "correct horse battery"

  var libraryPath: String { folder.file("Library") }
  var uploads: String { folder.file("uploads") }

  init(options: (inout ServerOptions) -> Void = { _ in }) throws {
    let library = try Library.create(at: folder.file("Library"))
    // The least the library accepts: these tests are about the server, not about Argon2's cost.
    try library.setPasswordCost(.minimum)
    try library.addReviewer(Self.reviewer, password: Self.password)
    token = try library.newToken(for: Self.reviewer)
    try FileManager.default.createDirectory(atPath: folder.file("uploads"), withIntermediateDirectories: true)
    var settings = ServerOptions(uploadFolder: folder.file("uploads"))
    options(&settings)
    service = try CatalogueService(libraryPath: folder.file("Library"), options: settings)
  }

  /// A library of the same folder, as the command line would open it.
  func openLibrary() throws -> Library { try Library(opening: libraryPath) }

  /// Asks the service as the HTTP layer does: its plan first (which may answer at once), then
  /// the response, then what every answer gets before it is sent.
  func ask(
    _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [],
    parts: [FormPart] = [], from address: String = "127.0.0.1"
  ) -> HTTPResponse {
    var all = headers
    if !all.contains(where: { $0.0.lowercased() == "host" }) { all.append(("Host", "127.0.0.1:8080")) }
    let head = HTTPRequestHead(method: method, target: target, headers: HTTPHeaders(all), remoteAddress: address)
    var response: HTTPResponse
    if case .respond(let planned) = service.plan(for: head) {
      response = planned
    } else {
      response = service.respond(to: HTTPRequest(head: head, body: body, parts: parts))
    }
    service.prepareForSending(&response, head: head)
    return response
  }

  func json(_ method: String, _ target: String, _ object: Any, headers: [(String, String)] = []) throws
    -> HTTPResponse
  {
    let data = try JSONSerialization.data(withJSONObject: object)
    return ask(method, target, headers: headers + [("Content-Type", "application/json")], body: [UInt8](data))
  }

  /// Signs in through the API: the session cookie's value and the CSRF token.
  func signIn() throws -> (cookie: String, csrf: String) {
    let response = try json("POST", "/api/session", ["name": Self.reviewer, "password": Self.password])
    try #require(response.status == 200, "\(response.text)")
    let cookie = try #require(response.cookie(CookieName.session))
    let csrf = try #require(try response.object()["csrfToken"] as? String)
    return (cookie, csrf)
  }

  var bearer: (String, String) { ("Authorization", "Bearer \(token)") }

  /// A copy of `path` as an upload (the service owns and removes its uploads).
  func upload(_ path: String, as filename: String, field: String = "file") throws -> FormPart {
    let copy = "\(uploads)/\(UUID().uuidString)"
    try FileManager.default.copyItem(atPath: path, toPath: copy)
    let size = try #require(try FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int)
    return FormPart(
      name: field, filename: filename, contentType: "application/octet-stream",
      file: UploadedFile(path: copy, size: size))
  }

  /// Every file of the library folder with its bytes, to show that nothing changed. The
  /// database's files change as SQLite reads; what they hold is checked through the records.
  func snapshot() throws -> [String: Data] {
    try fileSnapshot(libraryPath).filter { !$0.key.hasPrefix("catalogue.sqlite") }
  }

}

extension HTTPResponse {
  var text: String {
    guard case .bytes(let bytes) = body else { return "" }
    return String(decoding: bytes, as: UTF8.self)
  }

  func object() throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  /// The value a `Set-Cookie` header gives the cookie `name`.
  func cookie(_ name: String) -> String? {
    for value in headers.values("Set-Cookie") where value.hasPrefix(name + "=") {
      return String(value.dropFirst(name.count + 1).prefix { $0 != ";" })
    }
    return nil
  }

  func setCookie(_ name: String) -> String? {
    headers.values("Set-Cookie").first { $0.hasPrefix(name + "=") }
  }
}
