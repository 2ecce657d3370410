import Catalogue
import Foundation
import HTTP

/// One request as a handler sees it: the request, what its path captured, who is asking, and
/// the service's library and options.
struct Exchange: Sendable {
  let request: HTTPRequest
  let captures: [String: String]
  let identity: Identity?
  let service: CatalogueService
  /// The form fields of the body (URL-encoded or multipart), read once for the CSRF check and
  /// the handler alike: a review's body may be megabytes.
  let form: FormFields

  var head: HTTPRequestHead { request.head }

  /// The captured path segment `name` (the router guarantees it is there).
  func capture(_ name: String) -> String { captures[name] ?? "" }

  /// Runs `body` with a library whose writes are recorded as the signed-in reviewer's.
  func library<T>(_ body: (Library) throws(CatalogueError) -> T) throws(Failure) -> T {
    try service.library(author: identity?.reviewer, body)
  }

  /// The uploaded files of the parts named `name`, in order. A part with no file name and no
  /// bytes is a file input left empty (browsers send one for it), not a picture: passed over.
  func files(named name: String) -> [(file: UploadedFile, filename: String)] {
    request.parts.compactMap { part in
      guard part.name == name, let file = part.file else { return nil }
      if file.size == 0 && (part.filename ?? "").isEmpty { return nil }
      return (file, Self.uploadName(part.filename))
    }
  }

  /// A name fit for messages from what a browser sent as a file's name: the last path
  /// component, control characters dropped, at most 200 characters; "upload" when empty.
  static func uploadName(_ filename: String?) -> String {
    guard let filename else { return "upload" }
    let last = filename.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
    let clean = String(
      String.UnicodeScalarView(last.unicodeScalars.filter { $0.properties.generalCategory != .control })
    )
    .trimmingCharacters(in: .whitespaces)
    return clean.isEmpty ? "upload" : String(clean.prefix(200))
  }

  /// What the redirect to this page carried for it to say (see ``Notice``).
  var notice: Notice? { head.cookies[CookieName.notice].flatMap(Notice.init(cookieValue:)) }

  /// The site's address for absolute URLs, when one is known (see
  /// ``CatalogueService/site(for:)``).
  var site: PublicURL? { service.site(for: head) }

  /// Whether the request came over HTTPS.
  var isSecure: Bool { service.isSecure(head) }
}

/// How many threads one upload decodes its pictures on: one, the worker's own, which runs below
/// the threads that serve readers. Several uploads at once still use every core, one a worker.
let importJobs = 1

/// Form fields: from a URL-encoded body, or the non-file parts of a multipart one.
struct FormFields: Sendable {
  private var pairs: [(name: String, value: String)] = []

  /// No fields.
  init() {}

  init(_ request: HTTPRequest) {
    if !request.parts.isEmpty {
      pairs = request.parts.filter { $0.file == nil && $0.filename == nil }.map {
        ($0.name, String(decoding: $0.value, as: UTF8.self))
      }
    } else if let type = request.head.headers["Content-Type"]?.lowercased(),
      type.hasPrefix("application/x-www-form-urlencoded")
    {
      pairs = QueryParameters(parsing: String(decoding: request.body, as: UTF8.self)).pairs
    }
  }

  subscript(_ name: String) -> String? { pairs.first { $0.name == name }?.value }

  func has(_ name: String) -> Bool { pairs.contains { $0.name == name } }
}
