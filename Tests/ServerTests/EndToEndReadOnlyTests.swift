import HTTPTestSupport
import HTTP
import Foundation
import Testing
import TestSupport

/// `catalogue serve` on a library it cannot write (a read-only mount): readers get every page
/// and picture, a display rendition it cannot store is made for each request; every write and
/// sign-in is refused with why, before any body is read; nothing changes on disk.
@Suite("The server on a library it can only read")
struct EndToEndReadOnlyTests {
  @Test(.enabled(if: Mounts.available)) func readersAreServedAndWritesRefused() throws {
    let library = try TestLibrary()
    try library.addReviewer("alice", password: "alices password here")
    let token = try library.token(for: "alice")
    let id = try library.addReview("Arrival", pictures: [Fixture.image("large-1600x1200.jpg")])
    let mounts = Mounts()
    defer { mounts.unmountAll() }
    try mounts.readOnlyBind(library.path, at: library.path)
    let before = try library.snapshot()
    let server = try ServeProcess(library: library)
    defer { server.stop() }
    #expect(
      server.log.contains("is on a read-only disk: the library can be read but not changed; serving readers only"),
      "\(server.log)")

    let home = try server.request("GET", "/")
    #expect(home.status == 200)
    let page = try server.request("GET", "/reviews/\(id)").text
    #expect(page.contains("Arrival"))
    let thumbnail = try #require(PageText.attributes("src", startingWith: "/thumbnails/", in: home.text).first)
    #expect(try server.request("GET", thumbnail).status == 200)
    // Never made before, and no room to keep it: made for this request all the same.
    let display = try #require(PageText.attributes("src", startingWith: "/display/", in: page).first)
    let shown = try server.request("GET", display)
    #expect(shown.status == 200)
    #expect(shown.headers["Content-Type"] == "image/jpeg")
    #expect(try server.request("GET", "/api/reviews").status == 200)

    let refusal = "this catalogue is on a read-only disk: it can be read, not changed"
    let signIn = try server.request("GET", "/sign-in")
    #expect(signIn.status == 403)
    #expect(signIn.text.contains(refusal))
    let write = try server.connect().json(
      "POST", "/api/reviews", ["title": "No", "rating": 1, "category": "movie"],
      headers: [("Authorization", "Bearer \(token)")])
    #expect(write.status == 403)
    #expect(try write.json()["error"] as? String == refusal)
    let session = try server.connect().json(
      "POST", "/api/session", ["name": "alice", "password": "alices password here"])
    #expect(session.status == 403)
    #expect(try library.snapshot() == before)
  }
}
