import HTTPTestSupport
import Foundation
import Glibc
import HTTP
import Testing
import TestSupport

/// The server as a process: its request log, and how it stops.
@Suite("Starting, logging and stopping")
struct EndToEndLifecycleTests {
  /// Sends the head and the first half of an upload of `picture` to review `id`; the body's
  /// second half is returned, for the test to send when it chooses.
  ///
  /// Synchronous, as are the tests that use it: a test that awaits a sleep can wait for the
  /// cooperative threads far longer than it asked when other suites block them, and a server
  /// rightly closes an upload that stalls for its timeout.
  static func startUpload(_ site: LiveSite, to id: String, picture: String) throws -> (HTTPClient, [UInt8]) {
    let form = Multipart(files: [(picture, try Fixture.bytes(Fixture.image(picture)))])
    let body = form.bytes
    let client = try site.connect()
    try client.send(
      HTTPClient.head(
        "POST", "/api/reviews/\(id)/images",
        headers: [
          site.bearer, ("Content-Type", form.contentType), ("Content-Length", String(body.count)),
          ("Expect", "100-continue"),
        ]) + "\r\n")
    // The interim answer says the server has taken the head and waits for the body: the
    // request is under way, however busy the machine.
    let interim = try client.readResponse(method: "POST", interim: true)
    #expect(interim.status == 100)
    try client.send(Array(body.prefix(body.count / 2)))
    usleep(100_000)
    return (client, Array(body.dropFirst(body.count / 2)))
  }

  @Test func sigtermLetsAnUploadUnderWayFinish() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Arrival") }
    let (client, rest) = try Self.startUpload(site, to: id, picture: "large-1600x1200.png")
    site.server.signal(SIGTERM)
    usleep(300_000)
    #expect(site.server.isRunning, "the server waits for the upload; its log: \(site.server.log)")
    let newcomer = try? site.server.connect(timeout: 2).request("GET", "/api/reviews")
    #expect(newcomer == nil, "a new request was served while stopping: \(newcomer?.description ?? "")")

    try client.send(rest)
    let answer = try client.readResponse()
    #expect(answer.status == 201, "\(answer)")
    #expect(site.server.waitForExit(timeout: 20) == 0)
    #expect(site.server.log.contains("SIGTERM: stopping; letting 1 request(s) under way finish"))
    let images = try #require(try site.library.show(id)["images"] as? [[String: Any]])
    #expect(images.count == 1)
    #expect(images.first?["format"] as? String == "png")
    let check = try site.library.run("check")
    #expect(check.status == 0, "\(check.output)\(check.error)")
  }

  @Test func aSecondSignalStopsAtOnce() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Arrival") }
    let before = try site.library.snapshot()
    let (client, _) = try Self.startUpload(site, to: id, picture: "large-1600x1200.png")
    site.server.signal(SIGTERM)
    usleep(300_000)
    #expect(site.server.isRunning)
    let started = Date()
    site.server.signal(SIGTERM)
    #expect(site.server.waitForExit(timeout: 10) == 143)
    #expect(Date().timeIntervalSince(started) < 3)
    let closed = client.waitForClose(timeout: 2)
    #expect(closed)
    // The upload never reached the library.
    try site.library.expectUnchanged(since: before)
    #expect(try site.library.run("check").status == 0)
  }

  /// A killed server cannot remove the parts of the uploads it was receiving: the next one
  /// removes its folder, and no other.
  @Test func theUploadFolderOfAKilledServerIsRemovedByTheNext() throws {
    let uploads = TemporaryFolder()
    var id = ""
    let site = try LiveSite(arguments: ["--upload-folder", uploads.path]) { id = try $0.addReview("Arrival") }
    let (client, _) = try Self.startUpload(site, to: id, picture: "large-1600x1200.png")
    let folders = try FileManager.default.contentsOfDirectory(atPath: uploads.path)
    #expect(folders.count == 1 && folders[0].hasPrefix("catalogue-uploads-"))
    let parts = try FileManager.default.contentsOfDirectory(atPath: uploads.file(folders[0]))
    #expect(parts.contains { $0.hasPrefix("upload-") }, "the upload's part is being written: \(parts)")
    // A folder of the same shape whose server is alive (this test process) is left alone.
    let alive = uploads.file("catalogue-uploads-ALIVE1")
    try FileManager.default.createDirectory(atPath: alive, withIntermediateDirectories: false)
    _ = FileManager.default.createFile(atPath: alive + "/server.pid", contents: Data("\(getpid())\n".utf8))

    site.server.signal(SIGKILL)
    #expect(site.server.waitForExit(timeout: 10) == 128 + SIGKILL)
    _ = client.waitForClose(timeout: 2)
    let next = try ServeProcess(library: site.library, arguments: ["--upload-folder", uploads.path])
    #expect(next.log.contains("removed 1 upload folder left by servers that were killed"))
    let now = try FileManager.default.contentsOfDirectory(atPath: uploads.path).sorted()
    #expect(now.count == 2 && now.contains("catalogue-uploads-ALIVE1") && !now.contains(folders[0]), "\(now)")
    #expect(next.stop() == 0)
    #expect(try FileManager.default.contentsOfDirectory(atPath: uploads.path) == ["catalogue-uploads-ALIVE1"])
  }

  /// A server that cannot start says why in one line, exits 1, and leaves no upload folder
  /// (which the next server would take for a killed one's).
  @Test(arguments: [
    (["--bind", "300.1.1.1"], #"cannot listen on 300.1.1.1:0: "300.1.1.1" is not an IPv4 or IPv6 address"#),
    (["--upload-folder", "/dev/zero"], "--upload-folder /dev/zero is not a folder: give one that exists"),
  ])
  func aServerThatCannotStartSaysWhyAndLeavesNothing(_ arguments: [String], _ message: String) throws {
    let library = try TestLibrary()
    let uploads = TemporaryFolder()
    let given = arguments.contains("--upload-folder") ? [] : ["--upload-folder", uploads.path]
    let result = try library.run(["serve", "--port", "0"] + given + arguments)
    #expect(result.status == 1)
    #expect(result.error.hasPrefix("error: " + message), "\(result.error)")
    #expect(result.output.isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: uploads.path).isEmpty)
    // A library that is not there: the same.
    let process = Process()
    process.executableURL = URL(fileURLWithPath: TestLibrary.executable)
    process.arguments = ["--library", uploads.file("nothing"), "serve", "--upload-folder", uploads.path]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 1)
    #expect(try FileManager.default.contentsOfDirectory(atPath: uploads.path).isEmpty)
  }

  @Test func sigintStopsCleanlyToo() throws {
    let site = try LiveSite()
    #expect(try site.request("GET", "/").status == 200)
    site.server.signal(SIGINT)
    #expect(site.server.waitForExit(timeout: 10) == 0)
    #expect(site.server.log.contains("Ctrl-C: stopping"))
  }

  /// A clean stop closes the library's connections: the last one checkpoints the log, and
  /// no `-wal` or `-shm` is left beside the database.
  @Test(arguments: [SIGINT, SIGTERM]) func aCleanStopLeavesNoLog(_ signal: Int32) throws {
    let site = try LiveSite()
    #expect(try site.request("GET", "/").status == 200)
    #expect(try site.request("GET", "/?q=arrival").status == 200)
    let database = site.library.path + "/catalogue.sqlite"
    #expect(FileManager.default.fileExists(atPath: database + "-wal"))
    site.server.signal(signal)
    #expect(site.server.waitForExit(timeout: 10) == 0)
    #expect(!FileManager.default.fileExists(atPath: database + "-wal"))
    #expect(!FileManager.default.fileExists(atPath: database + "-shm"))
    #expect(try site.library.run(["check"]).status == 0)
  }

  @Test func theFirstLineNamesTheLibraryAndThePort() throws {
    let site = try LiveSite()
    #expect(site.server.banner == "Serving \(site.library.path) at http://127.0.0.1:\(site.port)/ (Ctrl-C stops)")
    #expect(site.port > 0)
  }

  /// A library written by schema version 1 is brought up to date when served, and shows its
  /// reviews.
  @Test func aLibraryOfTheFirstSchemaIsServed() throws {
    let library = try TestLibrary(dump: Fixture.root.appendingPathComponent("libraries/v1.sql").path)
    #expect(try library.sql("PRAGMA user_version") == "1")
    let server = try ServeProcess(library: library)
    let found = try server.request("GET", "/api/reviews?search=loop").json()
    #expect((found["reviews"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Outer Wilds"])
    let page = try server.request("GET", "/?sort=title")
    #expect(PageText.cardTitles(page.text) == ["Grave of the Fireflies", "Outer Wilds"])
    #expect(try library.sql("PRAGMA user_version") == "12")
    #expect(server.stop() == 0)
  }

  @Test func aRequestIsOneLineOfTheLog() throws {
    let site = try LiveSite()
    let answer = try site.request("GET", "/api/reviews?limit=1&search=a%20b")
    #expect(answer.status == 200)
    let missing = try site.request("GET", "/nothing/here")
    #expect(missing.status == 404)
    #expect(site.server.stop() == 0)
    let lines = site.server.log.split(separator: "\n").map(String.init)
    let pattern =
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z 127\.0\.0\.1 (GET|POST|PATCH|PUT|DELETE|HEAD) (\S+) (\d{3}) (\d+) ([0-9.]+)ms( aborted)?$/
    let requests = lines.compactMap { $0.wholeMatch(of: pattern) }
    let listed = requests.first { $0.output.2 == "/api/reviews?limit=1&search=a%20b" }
    #expect(listed?.output.3 == "200")
    #expect(listed?.output.4 == Substring(String(answer.body.count)))
    let notFound = requests.first { $0.output.2 == "/nothing/here" }
    #expect(notFound?.output.3 == "404")
    #expect(notFound?.output.4 == Substring(String(missing.body.count)))
    // The token's first use (LiveSite) and the two requests above, nothing else but the stop.
    #expect(requests.count == 3, "\(lines)")
    #expect(
      lines.filter { $0.wholeMatch(of: pattern) == nil }.allSatisfy { Self.isServerNote(Substring($0)) }, "\(lines)")
  }

  /// The lines of the server's own besides the request log: its stop, and the upload folders
  /// of killed servers it removed (other tests kill servers in the same temporary folder).
  static func isServerNote(_ line: Substring) -> Bool {
    line.hasPrefix("SIGTERM: stopping")
      || line.wholeMatch(of: /removed \d+ upload folders? left by servers that were killed/)
        != nil
  }

  @Test func jsonLogLinesHaveEveryField() throws {
    let site = try LiveSite(arguments: ["--log-json"])
    let page = try site.request("GET", "/?q=space%20opera")
    let created = try site.json("POST", "/api/reviews", ["title": "Log", "rating": 3, "category": "movie"])
    #expect(created.status == 201)
    #expect(site.server.stop() == 0)
    var entries: [[String: Any]] = []
    for line in site.server.log.split(separator: "\n") where !Self.isServerNote(line) {
      let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      #expect(object != nil, "not a JSON line: \(line)")
      if let object { entries.append(object) }
    }
    #expect(entries.count == 3)
    for entry in entries {
      #expect(
        Set(entry.keys).isSuperset(of: ["time", "remote", "method", "target", "status", "bytes", "ms"]), "\(entry)")
      #expect(entry["remote"] as? String == "127.0.0.1")
      #expect(
        (entry["time"] as? String).flatMap { ISO8601DateFormatter.withFractions.date(from: $0) } != nil, "\(entry)")
      #expect(entry["ms"] is NSNumber)
    }
    let home = entries.first { $0["target"] as? String == "/?q=space%20opera" }
    #expect(home?["method"] as? String == "GET")
    #expect(home?["status"] as? Int == 200)
    #expect(home?["bytes"] as? Int == page.body.count)
    let post = entries.first { $0["method"] as? String == "POST" }
    #expect(post?["target"] as? String == "/api/reviews")
    #expect(post?["status"] as? Int == 201)
    #expect(post?["bytes"] as? Int == created.body.count)
  }

  @Test func quietLogsNoRequest() throws {
    let site = try LiveSite(arguments: ["--quiet"])
    #expect(try site.request("GET", "/").status == 200)
    #expect(site.server.stop() == 0)
    #expect(
      site.server.log.split(separator: "\n").allSatisfy { Self.isServerNote($0) }, "\(site.server.log)")
  }
}

extension ISO8601DateFormatter {
  /// Times as the log writes them: UTC with milliseconds.
  static var withFractions: ISO8601DateFormatter {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter
  }
}
