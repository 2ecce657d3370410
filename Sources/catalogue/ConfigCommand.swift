import Catalogue
import Foundation

extension Commands {
  /// The settings a user sets by name, with what each is for.
  static let settingKeys: [(key: String, help: String)] = [
    ("public-url", "the address readers reach `catalogue serve` at, such as https://reviews.example")
  ]

  /// The public URL a user typed, or the usage error (exit status 2) that says why it is not one.
  static func publicURL(_ text: String, command: String) throws -> PublicURL {
    do {
      return try PublicURL(parsing: text)
    } catch {
      throw UsageError(message: error.description, command: command)
    }
  }

  static let config = Command(
    spec: CommandSpec(
      "config", summary: "show or change the library's settings", synopsis: "[KEY [VALUE]] [--unset]",
      details: """
        With no KEY, prints every setting a user may change and its value. With KEY, prints its value \
        (nothing, and exit status 1, when it is not set); with KEY and VALUE, sets it; with --unset, \
        removes it. The settings: public-url, the address readers reach `catalogue serve` at \
        (https://reviews.example: a scheme, a host and a port, no path), from which the server builds \
        every absolute address it writes: feeds, share previews, canonical links and the sitemap. \
        `serve --public-url` overrides it for one server.
        """,
      options: [.init("unset", help: "remove KEY's value")],
      positionals: 0...2,
      examples: [
        "catalogue config",
        "catalogue config public-url https://reviews.example",
        "catalogue config public-url",
        "catalogue config public-url --unset",
      ])
  ) { context in
    let arguments = context.arguments
    let positionals = arguments.positionals
    if let key = positionals.first, !settingKeys.contains(where: { $0.key == key }) {
      throw UsageError(
        message: "there is no setting \(Shown.path(key)); the settings are "
          + settingKeys.map(\.key).joined(separator: ", "),
        command: "config")
    }
    if arguments.has("unset") {
      guard positionals.count == 1 else {
        throw UsageError(message: "--unset takes one KEY and no VALUE", command: "config")
      }
      let library = try context.openLibrary()
      try library.setPublicURL(nil)
      if !context.json { Terminal.print("public-url is no longer set") }
      return 0
    }
    if positionals.count == 2 {
      let url = try publicURL(positionals[1], command: "config")
      let library = try context.openLibrary()
      try library.setPublicURL(url)
      if context.json {
        try Terminal.print(JSONShape.encode(["public-url": url.description]))
      } else {
        Terminal.print("public-url is \(url)")
      }
      return 0
    }
    let library = try context.openLibraryToRead()
    let value = library.publicURL?.description
    if context.json {
      try Terminal.print(JSONShape.encode(["public-url": value]))
      return positionals.isEmpty || value != nil ? 0 : 1
    }
    if positionals.isEmpty {
      Terminal.print("public-url = \(value ?? "(not set)")")
      return 0
    }
    guard let value else { return 1 }
    Terminal.print(value)
    return 0
  }
}
