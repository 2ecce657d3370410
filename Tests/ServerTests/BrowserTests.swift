import Catalogue
import HTTPTestSupport
import Foundation
import Glibc
import Testing
import TestSupport

/// The catalogue in a real browser: `Tests/Browser/browse.py` drives Debian's chromium through
/// Selenium against the built `catalogue serve`, first as a reader, then as a reviewer who adds
/// a review with a JPEG and a HEIC, then signed out again, and on a screen of twice the density
/// (covers from their 2× thumbnails); `Tests/Browser/access.py` runs
/// axe-core on every page, light and dark, at 1280 and 320 pixels, and adds a review with the
/// keyboard alone; `Tests/Browser/spoilers.py` opens spoilers by mouse and keyboard. One
/// browser at a time: the machine may have two cores.
///
/// The browser, its driver and Selenium (in a virtual environment of its own) come from
/// `scripts/install-packages`, which `.ci/run` runs too: when one is missing the test fails
/// and says so, since a skip would hide a CI that no longer tests in a browser.
@Suite("In a browser", .serialized)
struct BrowserTests {
  /// The Python of the virtual environment `scripts/install-packages` makes for Selenium.
  static let python: String = {
    let environment = ProcessInfo.processInfo.environment
    let cache =
      environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.cache"
    return cache + "/catalogue/browser-venv/bin/python"
  }()

  static let browser = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Browser")
  static let script = browser.appendingPathComponent("browse.py").path
  static let accessScript = browser.appendingPathComponent("access.py").path
  static let spoilersScript = browser.appendingPathComponent("spoilers.py").path

  static let reviewer = "ada"
  static let password = "correct horse battery"
  /// The title browse.py gives the review it adds.
  static let title = "Arrival, seen in a browser"

  @Test func aReviewerAddsAReviewWithAJPEGAndAHEICInChromium() throws {
    try requireBrowser()
    let library = try TestLibrary()
    try library.addReview(
      "Dune", rating: 5, category: "book", body: "Sand, spice and *patience*.",
      pictures: [Fixture.image("large-1600x1200.png")])
    try library.addReview(
      "Portal", rating: 4, category: "game", body: "A puzzle that teaches as it goes.",
      pictures: [Fixture.image("colour-p3.jpg")])
    try library.addReviewer(Self.reviewer, password: Self.password)
    let server = try ServeProcess(library: library)
    let screenshots = TemporaryFolder()

    let walk = try Self.run(
      Self.python,
      [
        Self.script, "http://127.0.0.1:\(server.port)/", Self.reviewer, Self.password,
        Fixture.image("large-1600x1200.jpg"), Fixture.image("heic-thumbnail.heic"), screenshots.path,
      ], timeout: 300)
    #expect(walk.status == 0, "browse.py failed (exit status \(walk.status)):\n\(walk.output)")

    // What the browser did is in the library, as the command line sees it.
    let listed = try library.run("--json", "list", "--search", "arrival").json()
    let reviews = listed["reviews"] as? [[String: Any]] ?? []
    #expect(reviews.map { $0["title"] as? String } == [Self.title])
    if let id = reviews.first?["id"] as? String {
      let shown = try library.show(id)
      #expect(shown["createdBy"] as? String == Self.reviewer)
      let images = shown["images"] as? [[String: Any]] ?? []
      #expect(images.map { $0["format"] as? String } == ["jpeg", "heic"])
    }
    let check = try library.run("check")
    #expect(check.status == 0, "check after the walk: \(check.output)\(check.error)")

    for name in ["grid.png", "review.png"] {
      let bytes = (try? Fixture.bytes(screenshots.file(name))) ?? []
      #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(name) is not a PNG screenshot")
    }

    // No request of the walk went wrong on the server's side, and it stops cleanly.
    let serverErrors = server.log.split(separator: "\n").filter { line in
      let fields = line.split(separator: " ")
      return fields.count >= 5 && (Int(fields[4]) ?? 0) >= 500
    }
    #expect(serverErrors.isEmpty, "the server answered with errors:\n\(serverErrors.joined(separator: "\n"))")
    #expect(server.stop() == 0)
  }

  /// axe-core finds no serious or critical violation on any page, in either look, on a desktop
  /// or a 320-pixel phone; no page scrolls sideways on the phone; the theme chosen in the page
  /// is kept; a review is added with the keyboard alone, pictures dropped on the editor go up
  /// with a progress bar, and a tall cover leaves the text on the first screen.
  @Test func everyPageIsAccessibleInEitherLookOnAPhoneAndByKeyboard() throws {
    try requireBrowser()
    let library = try TestLibrary()
    try library.addReview(
      "Dune", rating: 5, category: "book", body: "Sand, spice and *patience*.",
      pictures: [Fixture.image("large-1600x1200.png"), Fixture.image("colour-p3.jpg")])
    try library.addReview("Portal", rating: 0, category: "game", body: "No stars, and it says so.")
    try library.addReviewer(Self.reviewer, password: Self.password)
    // The reviewer's page, with a bio, for the walk: as the server records their write.
    try #require(
      try library.run("user", "edit", Self.reviewer, "--display-name", "Ann Reviewer", "--bio", "Reads.\n\nWrites.")
        .status == 0)
    _ = try library.sql("UPDATE reviews SET created_by = '\(Self.reviewer)' WHERE title = 'Dune'")
    let server = try ServeProcess(library: library)

    let walk = try Self.run(
      Self.python,
      [
        Self.accessScript, "http://127.0.0.1:\(server.port)/", Self.reviewer, Self.password,
        Fixture.image("large-1600x1200.jpg"),
      ], timeout: 400)
    #expect(walk.status == 0, "access.py failed (exit status \(walk.status)):\n\(walk.output)")
    #expect(walk.output.contains("access: ") && walk.output.contains(" passed, 0 failed"), "\(walk.output)")

    // The review typed with the keyboard, and the pictures dropped on it, as the command line
    // sees them.
    let listed = try library.run("--json", "list", "--search", "keyboard").json()
    let reviews = listed["reviews"] as? [[String: Any]] ?? []
    #expect(reviews.map { $0["title"] as? String } == ["Written with the keyboard (typed)"])
    if let id = reviews.first?["id"] as? String {
      let shown = try library.show(id)
      #expect(shown["rating"] as? Int == 4)
      #expect(shown["category"] as? String == "book")
      #expect(shown["favorite"] as? Bool == true)
      let images = shown["images"] as? [[String: Any]] ?? []
      #expect(images.map { $0["format"] as? String } == ["png", "jpeg"])
    }
    #expect(server.stop() == 0)
  }

  /// Spoilers stay closed, and out of the page's text, until a reader asks with a click, Enter
  /// or Space (`Tests/Browser/spoilers.py`): the whole-review warning, and the spoilers marked in
  /// a body; each summary is reached by Tab and announced as a disclosure; the pages of
  /// spoilers, drafts and previews pass axe-core in either look.
  @Test func spoilersStayClosedUntilAReaderAsksInChromium() throws {
    try requireBrowser()
    let site = try LiveSite()
    func add(_ fields: [String: Any]) throws -> String {
      let made = try site.json("POST", "/api/reviews", fields.merging(["rating": 4, "category": "movie"]) { $1 })
      try #require(made.status == 201, "\(made)")
      return try #require(try made.json()["id"] as? String)
    }
    let warned = try add(
      ["title": "Clue", "containsSpoilers": true, "body": "The *butler* did it, in the conservatory."])
    let attached = try site.upload(
      "POST", "/api/reviews/\(warned)/images", [(Fixture.image("baseline.jpg"), "cover.jpg")])
    try #require(attached.status == 201, "\(attached)")
    let marked = try add([
      "title": "The Ship",
      "body": "It starts at sea.\n\nBefore the twist ||the captain was a ghost all along|| and after it.\n\n"
        + "::: spoiler The ending\nThe ship sinks with everyone aboard.\n:::\n\nThe end.",
    ])
    let draft = try add(["title": "Unfinished", "body": "Not yet.", "draft": true])

    let walk = try Self.run(
      Self.python,
      [
        Self.spoilersScript, "http://127.0.0.1:\(site.port)/", LiveSite.reviewer, LiveSite.password,
        "/reviews/\(warned)", "/reviews/\(marked)", "/reviews/\(draft)",
      ], timeout: 400)
    #expect(walk.output.contains("spoilers: ") && walk.output.contains(" passed, "), "\(walk.output)")
    let failed = walk.output.split(separator: "\n").filter { $0.hasPrefix("FAILED: ") }
    #expect(failed.isEmpty, "spoilers.py failed:\n\(walk.output)")
  }

  /// Fails, saying what to run, when the browser, its driver or Selenium is missing.
  private func requireBrowser() throws {
    let install = "run scripts/install-packages (as root or with sudo) to install it"
    try #require(
      FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "chromium is missing: \(install)")
    try #require(
      FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
      "chromedriver (Debian's chromium-driver) is missing: \(install)")
    try #require(
      FileManager.default.isExecutableFile(atPath: Self.python),
      "Selenium's virtual environment \(Self.python) is missing: \(install)")
    let selenium = try Self.run(
      Self.python, ["-c", "import importlib.util, selenium; assert importlib.util.find_spec('axe_playwright_python')"],
      timeout: 60)
    try #require(
      selenium.status == 0, "Selenium or axe-core cannot be imported (\(selenium.output)): \(install)")
  }

  /// Runs `executable` with its standard output and error together in a file (read after the
  /// exit, so nothing can block); after `timeout` seconds it is interrupted (browse.py then
  /// closes the browser), and killed if that does not end it.
  static func run(_ executable: String, _ arguments: [String], timeout: Double) throws -> (
    status: Int32, output: String
  ) {
    let logs = TemporaryFolder()
    let outputPath = logs.file("output")
    _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
    let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
    defer { try? output.close() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    for name in ["PYTHONHOME", "PYTHONPATH"] { environment.removeValue(forKey: name) }
    environment["PYTHONUNBUFFERED"] = "1"
    process.environment = environment
    process.standardOutput = output
    process.standardError = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    var deadline = Date().addingTimeInterval(timeout)
    var interrupted = false
    while process.isRunning {
      if Date() > deadline {
        if interrupted {
          kill(process.processIdentifier, SIGKILL)
          break
        }
        kill(process.processIdentifier, SIGINT)
        interrupted = true
        deadline = Date().addingTimeInterval(15)
      }
      usleep(50_000)
    }
    process.waitUntilExit()
    var text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: outputPath)), as: UTF8.self)
    if interrupted { text += "\n(stopped after \(Int(timeout)) s)" }
    return (process.terminationReason == .exit ? process.terminationStatus : -1, text)
  }
}
