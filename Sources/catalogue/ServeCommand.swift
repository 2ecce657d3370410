import Catalogue
import Foundation
import HTTP
import Server

@preconcurrency import Glibc

extension Commands {
  static let serve = Command(
    spec: CommandSpec(
      "serve", summary: "serve the catalogue to browsers and scripts",
      synopsis: "[--bind ADDRESS] [--port N] [options]",
      details: """
        Anyone may read: the reviews as a grid or a list, with filters, search and pages, and each \
        review with its pictures. Reviewers (`catalogue user add NAME`) sign in to add, edit and \
        illustrate reviews. Scripts use the JSON API under /api/ with a token from \
        `catalogue user token NAME`. One line a request is logged on standard error. Ctrl-C or \
        SIGTERM stops taking requests, lets those under way finish, and exits with status 0; a \
        second one stops at once.
        """,
      options: [
        .init(
          "bind", value: "ADDRESS", help: "the address to listen on (default 127.0.0.1; 0.0.0.0 or :: for every one)"),
        .init("port", value: "N", help: "the port (default 8080; 0 picks a free one)"),
        .init("log-json", help: "log requests as JSON lines"),
        .init("quiet", help: "log no requests"),
        .init(
          "trust-proxy",
          help: "honour X-Forwarded-Proto, X-Forwarded-For and X-Forwarded-Host from a reverse proxy in front"),
        .init(
          "public-url", value: "URL",
          help: "the address readers reach the site at, for feeds, share previews and the sitemap "
            + "(default: `catalogue config public-url`)"),
        .init("threads", value: "N", help: "connection threads (default: the cores this process may use)"),
        .init("timeout", value: "SECONDS", help: "close a connection idle this long (default 30)"),
        .init("max-connections", value: "N", help: "connections at once (default 4096)"),
        .init("max-connections-per-address", value: "N", help: "connections at once from one address (default 128)"),
        .init("max-upload", value: "MB", help: "the most one upload request may carry, in megabytes (default 1024)"),
        .init(
          "upload-folder", value: "DIR",
          help: "where uploads wait until they are imported (default: a new temporary folder)"),
      ],
      examples: [
        "catalogue serve",
        "catalogue --library ~/Reviews serve --bind 0.0.0.0 --port 8000",
        "catalogue serve --port 0 --log-json 2>requests.log",
      ])
  ) { context in
    let arguments = context.arguments
    var configuration = HTTPServerConfiguration()
    configuration.address = arguments.value("bind") ?? "127.0.0.1"
    configuration.port = try ArgumentParser.integer(arguments, "port", in: 0...65535, command: "serve") ?? 8080
    if let threads = try ArgumentParser.integer(arguments, "threads", in: 1...256, command: "serve") {
      configuration.threads = threads
      configuration.workers = max(2, threads)
    }
    if let timeout = try ArgumentParser.integer(arguments, "timeout", in: 1...3600, command: "serve") {
      configuration.connectionTimeout = timeout
      configuration.requestHeadTimeout = min(configuration.requestHeadTimeout, timeout)
    }
    if let limit = try ArgumentParser.integer(arguments, "max-connections", in: 1...1_000_000, command: "serve") {
      configuration.maximumConnections = limit
    }
    if let limit = try ArgumentParser.integer(
      arguments, "max-connections-per-address", in: 1...1_000_000, command: "serve")
    {
      configuration.maximumConnectionsPerAddress = limit
    }
    if arguments.has("log-json") && arguments.has("quiet") {
      throw UsageError(message: "give --log-json or --quiet, not both", command: "serve")
    }
    configuration.log = arguments.has("quiet") ? .off : arguments.has("log-json") ? .json : .text
    // A script may put its API token in a query string; the log must not keep it.
    configuration.logSecretPrefixes = [Library.tokenPrefix]

    let uploads = try UploadFolder(given: arguments.value("upload-folder"))
    if uploads.reclaimed > 0 {
      Terminal.printError(
        "removed \(uploads.reclaimed) upload folder\(uploads.reclaimed == 1 ? "" : "s") left by servers that were killed"
      )
    }
    var options = ServerOptions(uploadFolder: uploads.path)
    options.trustProxy = arguments.has("trust-proxy")
    if let text = arguments.value("public-url") { options.publicURL = try publicURL(text, command: "serve") }
    if let megabytes = try ArgumentParser.integer(arguments, "max-upload", in: 1...1_000_000, command: "serve") {
      options.maximumUploadBytes = megabytes * 1_000_000
    }

    // A library that cannot be opened, an address taken: one line, exit status 1, and the
    // upload folder goes again (the next server would take it for a killed one's).
    let server: HTTPServer
    let service: CatalogueService
    do {
      service = try CatalogueService(libraryPath: context.libraryPath, database: context.database, options: options)
      server = try HTTPServer(configuration: configuration, service: service)
    } catch {
      uploads.remove()
      throw error
    }
    // What limits the server is said before the line that says it serves: whoever waits for
    // that line has read the note too.
    if let reason = service.readOnlyReason {
      let why = CatalogueError.readOnlyLibrary(path: context.libraryPath, reason: reason).description
      Terminal.printError(
        "note: \(why.replacingOccurrences(of: " (nothing was changed)", with: "")); serving readers only")
    }
    let shown = configuration.address.contains(":") ? "[\(configuration.address)]" : configuration.address
    Terminal.print("Serving \(context.libraryPath) at http://\(shown):\(server.port)/ (Ctrl-C stops)")
    Signals.onFirstSignal { number in
      let name = number == SIGINT ? "Ctrl-C" : "SIGTERM"
      _ = Terminal.write(
        STDERR_FILENO, "\(name): stopping; letting \(server.requestsInFlight) request(s) under way finish\n")
      let unfinished = server.stop(grace: .seconds(30))
      if unfinished > 0 {
        _ = Terminal.write(STDERR_FILENO, "stopped with \(unfinished) request(s) unfinished after 30 s\n")
      }
    }
    server.wait()
    service.close()
    uploads.remove()
    return 0
  }
}
