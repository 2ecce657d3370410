import Foundation
import Testing
import TestSupport

/// What a reviewer types is never lost, in chromium (`Tests/Browser/forms.py`): Back and Add
/// again adds one review, a stale form meets the change it would overwrite, leaving typed text
/// asks first, and a form whose session ended comes back after the sign-in.
@Suite("Forms in a browser")
struct BrowserFormsTests {
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Browser/forms.py").path

  @Test func nothingTypedInChromiumIsLost() throws {
    try #require(
      FileManager.default.isExecutableFile(atPath: BrowserTests.python),
      "Selenium's virtual environment \(BrowserTests.python) is missing: run scripts/install-packages")
    let library = try TestLibrary()
    let id = try library.addReview("Arrival", rating: 4, category: "movie", body: "Heptapods.")
    try library.addReviewer(BrowserTests.reviewer, password: BrowserTests.password)
    let server = try ServeProcess(library: library)
    let walk = try BrowserTests.run(
      BrowserTests.python,
      [Self.script, "http://127.0.0.1:\(server.port)/", BrowserTests.reviewer, BrowserTests.password, id],
      timeout: 300)
    #expect(walk.status == 0, "forms.py failed (exit status \(walk.status)):\n\(walk.output)")
    let shown = try library.show(id)
    #expect(shown["body"] as? String == "Typed for an hour while the session ran out.")
    #expect(try library.run("check").status == 0)
    #expect(server.stop() == 0)
  }
}
