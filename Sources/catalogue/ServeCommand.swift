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
        .init("trust-proxy", help: "honour X-Forwarded-Proto and X-Forwarded-For from a reverse proxy in front"),
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

    let uploads = try UploadFolder(given: arguments.value("upload-folder"))
    if uploads.reclaimed > 0 {
      Terminal.printError(
        "removed \(uploads.reclaimed) upload folder\(uploads.reclaimed == 1 ? "" : "s") left by servers that were killed"
      )
    }
    var options = ServerOptions(uploadFolder: uploads.path)
    options.trustProxy = arguments.has("trust-proxy")
    if let megabytes = try ArgumentParser.integer(arguments, "max-upload", in: 1...1_000_000, command: "serve") {
      options.maximumUploadBytes = megabytes * 1_000_000
    }

    let service = try CatalogueService(libraryPath: context.libraryPath, options: options)
    let server: HTTPServer
    do throws(HTTPServerError) {
      server = try HTTPServer(configuration: configuration, service: service)
    } catch {
      throw ServeError(message: error.description)
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
    uploads.remove()
    return 0
  }
}

/// The server could not start (the address taken, say): exit status 1.
struct ServeError: Error, CustomStringConvertible {
  let message: String
  var description: String { message }
}

/// Where uploads wait until they are imported: a new private folder (mode 0700) in the
/// temporary folder, or in the folder `--upload-folder` gives, removed when the server stops.
///
/// A server that is killed (SIGKILL, the OOM killer, a power cut) cannot remove its folder, and
/// the parts of the uploads it was receiving are in it: so each folder holds the server's
/// process id, and a server starting removes the folders of servers that are gone.
struct UploadFolder {
  static let prefix = "catalogue-uploads-"
  static let owner = "server.pid"

  let path: String
  /// Folders of servers gone that were removed at the start.
  let reclaimed: Int

  init(given: String?) throws {
    var parent = NSTemporaryDirectory()
    while parent.count > 1 && parent.hasSuffix("/") { parent.removeLast() }
    if let given {
      var status = stat()
      guard stat(given, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
        throw ServeError(message: "--upload-folder \(given) is not a folder: give one that exists")
      }
      parent = given
    }
    reclaimed = Self.reclaim(in: parent)
    var template = Array("\(parent)/\(Self.prefix)XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw ServeError(
        message:
          "cannot make a folder for uploads in \(parent): \(String(cString: strerror(errno))); give --upload-folder")
    }
    path = String(cString: made)
    let pid = Array("\(getpid())\n".utf8)
    guard FileManager.default.createFile(atPath: "\(path)/\(Self.owner)", contents: Data(pid)) else {
      rmdir(path)
      throw ServeError(message: "cannot write in \(path): give --upload-folder")
    }
  }

  func remove() {
    try? FileManager.default.removeItem(atPath: path)
  }

  /// Removes the upload folders in `parent` whose server is gone; how many. A folder is only
  /// taken for a server's when it has the shape this code makes, belongs to this user, and
  /// names a process that no longer exists.
  static func reclaim(in parent: String) -> Int {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return 0 }
    var removed = 0
    for name in names where name.hasPrefix(prefix) && name.utf8.count == prefix.utf8.count + 6 {
      let folder = "\(parent)/\(name)"
      var status = stat()
      guard lstat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid(),
        let text = try? String(contentsOfFile: "\(folder)/\(owner)", encoding: .utf8),
        let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
      else { continue }
      if kill(pid, 0) == 0 || errno != ESRCH { continue }
      if (try? FileManager.default.removeItem(atPath: folder)) != nil { removed += 1 }
    }
    return removed
  }
}
