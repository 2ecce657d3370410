import HTTPTestSupport
import Foundation
import Glibc
import Testing
import TestSupport

/// The built `catalogue serve --port 0` on a library, as a user starts it: the port read from
/// the first line it prints, the request log collected from its standard error, and a stop by
/// signal.
final class ServeProcess: @unchecked Sendable {
  let library: TestLibrary
  let port: Int
  /// The line the server printed first.
  let banner: String
  private let process: Process
  private let logs: TemporaryFolder
  private let errorPath: String

  /// Starts `catalogue --library LIBRARY serve --port 0 EXTRA` and waits (up to 20 seconds)
  /// for the line that names its port.
  init(library: TestLibrary, arguments extra: [String] = []) throws {
    self.library = library
    logs = TemporaryFolder()
    let outputPath = logs.file("stdout")
    errorPath = logs.file("stderr")
    _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    process = Process()
    process.executableURL = URL(fileURLWithPath: TestLibrary.executable)
    process.arguments = ["--library", library.path, "serve", "--port", "0"] + extra
    var environment = ProcessInfo.processInfo.environment
    environment.removeValue(forKey: "CATALOGUE_LIBRARY")
    process.environment = environment
    // Files, not pipes: a server that logs a lot can never block on a reader that is late.
    let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
    let error = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // The server has its own copies.
    try output.close()
    try error.close()
    let deadline = Date().addingTimeInterval(20)
    var firstLine: String?
    while firstLine == nil {
      let output = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: outputPath))) ?? Data(), as: UTF8.self)
      if let newline = output.firstIndex(of: "\n") {
        firstLine = String(output[..<newline])
      } else if !process.isRunning || Date() > deadline {
        process.terminate()
        process.waitUntilExit()
        let log = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: errorPath))) ?? Data(), as: UTF8.self)
        throw ClientError(description: "catalogue serve did not start: \(log)")
      } else {
        usleep(10_000)
      }
    }
    banner = firstLine!
    // "Serving LIB at http://127.0.0.1:PORT/ (Ctrl-C stops)"
    guard let range = banner.range(of: "http://127.0.0.1:"),
      let port = Int(banner[range.upperBound...].prefix { $0.isNumber })
    else {
      process.terminate()
      throw ClientError(description: "no port in the server's first line: \(banner)")
    }
    self.port = port
  }

  /// Starts a server on a new library made by `prepare`.
  convenience init(arguments: [String] = [], prepare: (TestLibrary) throws -> Void = { _ in }) throws {
    let library = try TestLibrary()
    try prepare(library)
    try self.init(library: library, arguments: arguments)
  }

  /// Stops a server the test left running as a user would (so that it removes its upload
  /// folder), killing it if it does not stop within five seconds.
  deinit {
    if process.isRunning { stop(timeout: 5) }
  }

  /// A new connection to the server.
  func connect(source: String? = nil, timeout: Double = 20) throws -> HTTPClient {
    try HTTPClient(port: port, source: source, timeout: timeout)
  }

  /// One request on a connection of its own.
  func request(
    _ method: String = "GET", _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
  ) throws -> Response {
    try connect().request(method, target, headers: headers, body: body)
  }

  /// What the server wrote on standard error so far: one line a request.
  var log: String {
    String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: errorPath))) ?? Data(), as: UTF8.self)
  }

  var isRunning: Bool { process.isRunning }

  /// The files the server holds open whose names are gone (" (deleted)"): a database file or
  /// write-ahead log among them is one no other process sees.
  var deletedOpenFiles: [String] { openFiles.filter { $0.hasSuffix(" (deleted)") } }

  /// What each of the server's open descriptors names (`/proc/PID/fd`).
  var openFiles: [String] {
    let folder = "/proc/\(process.processIdentifier)/fd"
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0) }
  }

  /// Sends `signal` to the server.
  func signal(_ signal: Int32) {
    kill(process.processIdentifier, signal)
  }

  /// Stops the server with SIGTERM and returns its exit status (see ``waitForExit(timeout:)``).
  @discardableResult
  func stop(timeout: Double = 40) -> Int32? {
    guard process.isRunning else { return exitStatus }
    kill(process.processIdentifier, SIGTERM)
    return waitForExit(timeout: timeout)
  }

  /// Waits up to `timeout` seconds for the process to end. Its exit status as a shell gives it
  /// (128 + the signal for one that ended it), or nil when it was still running (then killed).
  func waitForExit(timeout: Double) -> Int32? {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      return nil
    }
    process.waitUntilExit()
    return exitStatus
  }

  private var exitStatus: Int32 {
    process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
  }
}
