import HTTPTestSupport
import Foundation
import HTTP
import ImagePipeline
import Synchronization
import Testing
import TestSupport

/// The server and the command line on one library at the same time: what one does, the other
/// shows at its next request, and both write side by side without "database is locked".
@Suite("The server and the command line share a library")
struct EndToEndSharedLibraryTests {
  @Test func whatTheCommandLineChangesShowsAtTheNextRequest() throws {
    let site = try LiveSite()
    let library = site.library
    #expect(try site.request("GET", "/").text.contains("No reviews yet."))

    let id = try library.addReview("Solaris", rating: 4, body: "An ocean that thinks.")
    #expect(PageText.cardTitles(try site.request("GET", "/").text) == ["Solaris"])
    #expect(try site.request("GET", "/api/reviews").json()["total"] as? Int == 1)

    #expect(try library.run("edit", id, "--title", "Solaris (1972)").status == 0)
    #expect(try site.request("GET", "/reviews/\(id)").text.contains("<h1>Solaris (1972)</h1>"))
    #expect(try site.request("GET", "/api/reviews/\(id)").json()["title"] as? String == "Solaris (1972)")

    #expect(try library.run("attach", id, Fixture.image("baseline.jpg")).status == 0)
    let grid = try site.request("GET", "/").text
    let thumbnail = try #require(PageText.attributes("src", startingWith: "/thumbnails/", in: grid).first)
    #expect(try site.request("GET", thumbnail).status == 200)
    #expect(
      PageText.attributes("src", startingWith: "/display/", in: try site.request("GET", "/reviews/\(id)").text).count
        == 1)

    #expect(try library.run("remove", id, "--yes").status == 0)
    #expect(try site.request("GET", "/reviews/\(id)").status == 404)
    #expect(try site.request("GET", "/").text.contains("No reviews yet."))

    // A reviewer added, a password changed, a setting changed: each at the next request.
    try library.addReviewer("bob", password: "bobs first password")
    let token = try library.token(for: "bob")
    let created = try site.connect().json(
      "POST", "/api/reviews", ["title": "Stalker", "rating": 5, "category": "movie"],
      headers: [("Authorization", "Bearer \(token)")])
    #expect(created.status == 201)
    let opened = try site.json(
      "POST", "/api/session", ["name": "bob", "password": "bobs first password"], signed: false)
    let cookie = ("Cookie", "catalogue_session=\(try #require(opened.cookie("catalogue_session")))")
    #expect(try site.request("GET", "/api/session", headers: [cookie]).status == 200)
    #expect(try library.run("user", "passwd", "bob", "--password-stdin", input: "bobs second password\n").status == 0)
    #expect(
      try site.request("GET", "/api/session", headers: [cookie]).status == 401, "a new password ends the sessions")

    let stalker = try library.id(of: "Stalker")
    try library.setting("file_size_cap", "50000")
    let refused = try site.upload(
      "POST", "/api/reviews/\(stalker)/images", [(Fixture.image("large-1600x1200.jpg"), "poster.jpg")])
    #expect(refused.status == 413, "the cap set while the server runs holds at once")
  }

  /// Thumbnails remade by the command line at another size are the ones the next page shows;
  /// one deleted by hand is made again when asked for.
  @Test func theThumbnailsFollowTheCommandLine() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Arrival", pictures: [Fixture.image("large-1600x1200.jpg")]) }
    let old = try #require(
      PageText.attributes("src", startingWith: "/thumbnails/", in: try site.request("GET", "/").text).first)
    #expect(old.hasSuffix("-256-fit-q85.jpg"))
    let display = try #require(
      PageText.attributes("src", startingWith: "/display/", in: try site.request("GET", "/reviews/\(id)").text).first)
    #expect(try site.request("GET", display).status == 200)

    let rebuilt = try site.library.run("thumbnails", "--rebuild", "--size", "128")
    #expect(rebuilt.status == 0, "\(rebuilt.error)")
    let new = try #require(
      PageText.attributes("src", startingWith: "/thumbnails/", in: try site.request("GET", "/").text).first)
    #expect(new == old.replacingOccurrences(of: "-256-", with: "-128-"))
    let thumbnail = try site.request("GET", new)
    #expect(thumbnail.status == 200)
    let header = try ImagePipeline.readHeader(thumbnail.body)
    #expect(max(header.width, header.height) == 128)
    #expect(try site.request("GET", old).status == 404, "the old size is gone")
    #expect(try site.request("GET", display).status == 200, "the display rendition stays")

    // Deleted by hand: made again, the same bytes.
    let file = try #require(site.library.files(in: "thumbnails").first { $0.hasSuffix("-128-fit-q85.jpg") })
    try FileManager.default.removeItem(atPath: site.library.path + "/" + file)
    let remade = try site.request("GET", new)
    #expect(remade.status == 200)
    #expect(remade.body == thumbnail.body)
    #expect(FileManager.default.fileExists(atPath: site.library.path + "/" + file))
    #expect(try site.library.run("check").status == 0)
  }

  /// Pictures attached through the server and through the command line at the same time, with
  /// edits on both sides: every one succeeds, nothing says "database is locked", and `check`
  /// finds the library healthy.
  @Test func theCommandLineAndTheServerWriteAtOnce() throws {
    let site = try LiveSite {
      try $0.addReview("Served")
      try $0.addReview("Attached")
    }
    let library = site.library
    let served = try library.id(of: "Served")
    let attached = try library.id(of: "Attached")
    let serverPictures = [
      "baseline.jpg", "progressive.jpg", "grayscale.jpg", "orientation-1.jpg", "orientation-3.jpg", "srgb.png",
      "rgb-8.png", "palette-8.png", "webp-lossy.webp", "heic-8bit.heic",
    ]
    let cliPictures = [
      "baseline-444.jpg", "restart-markers.jpg", "orientation-6.jpg", "orientation-8.jpg", "gray-8.png",
      "rgba-8.png", "interlaced.png", "webp-lossless.webp", "avif-8bit.avif", "colour-p3.jpg",
    ]
    let token = site.token
    let port = site.port
    let outcomes = Outcomes()
    let group = DispatchGroup()
    // The server's side: uploads one by one on a kept-alive connection, then edits.
    DispatchQueue.global().async(group: group) {
      do {
        let client = try HTTPClient(port: port)
        for picture in serverPictures {
          let form = Multipart(files: [(picture, try Fixture.bytes(Fixture.image(picture)))])
          let answer = try client.upload(
            "POST", "/api/reviews/\(served)/images", form, headers: [("Authorization", "Bearer \(token)")])
          outcomes.add("upload \(picture)", ok: answer.status == 201, text: answer.description)
        }
        for rating in 0...5 {
          let answer = try client.json(
            "PATCH", "/api/reviews/\(attached)", ["rating": rating], headers: [("Authorization", "Bearer \(token)")])
          outcomes.add("PATCH rating \(rating)", ok: answer.status == 200, text: answer.description)
        }
      } catch {
        outcomes.add("the server's side", ok: false, text: "\(error)")
      }
    }
    // The command line's side: attaches, edits and new reviews, one process each.
    DispatchQueue.global().async(group: group) {
      do {
        for (index, picture) in cliPictures.enumerated() {
          let result = try library.run("attach", attached, Fixture.image(picture))
          outcomes.add("attach \(picture)", ok: result.status == 0, text: result.error)
          let edit = try library.run("edit", served, "--title", "Served \(index)")
          outcomes.add("edit \(index)", ok: edit.status == 0, text: edit.error)
        }
        for index in 0..<3 {
          let added = try library.run(
            "add", "--title", "Added \(index)", "--rating", "3", "--category", "movie", "--body", "Meanwhile.")
          outcomes.add("add \(index)", ok: added.status == 0, text: added.error)
        }
      } catch {
        outcomes.add("the command line's side", ok: false, text: "\(error)")
      }
    }
    // Readers read all along.
    DispatchQueue.global().async(group: group) {
      for _ in 0..<20 {
        let page = try? HTTPClient(port: port).request("GET", "/")
        outcomes.add("GET /", ok: page?.status == 200, text: page?.description ?? "no answer")
      }
    }
    #expect(group.wait(timeout: .now() + 60) == .success)

    for failure in outcomes.failures { Issue.record("\(failure.what): \(failure.text)") }
    #expect(outcomes.count == serverPictures.count + 6 + cliPictures.count * 2 + 3 + 20)
    #expect(!outcomes.allText.contains("locked"))
    #expect(!site.server.log.contains("locked"))
    #expect((try library.show(served)["images"] as? [Any])?.count == serverPictures.count)
    #expect((try library.show(attached)["images"] as? [Any])?.count == cliPictures.count)
    #expect(try library.show(attached)["rating"] as? Int == 5)
    #expect(try library.show(served)["title"] as? String == "Served \(cliPictures.count - 1)")
    #expect(try library.count("reviews") == 5)
    // And what the server serves agrees.
    let listed = try site.request("GET", "/api/reviews").json()
    #expect(listed["total"] as? Int == 5)

    let check = try library.run("check")
    #expect(check.status == 0, "\(check.output)\(check.error)")
    #expect(check.output.contains("no problems"), "\(check.output)")
  }

  /// Uploads, replacements and detaches through the server between command-line edits, then
  /// `check`: healthy, no file left over.
  @Test func checkIsHealthyAfterAMixOfServerAndCommandLineWork() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Mixed", pictures: [Fixture.image("baseline.jpg")]) }
    let library = site.library
    let browser = Browser(site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    let steps: [() throws -> Bool] = [
      { try site.upload("POST", "/api/reviews/\(id)/images", [(Fixture.image("srgb.png"), "a.png")]).status == 201 },
      { try library.run("edit", id, "--rating", "1").status == 0 },
      {
        try browser.upload(
          "/reviews/\(id)/images", Multipart(files: [("b.jpg", try Fixture.bytes(Fixture.image("progressive.jpg")))])
        ).status == 303
      },
      { try library.run("attach", id, Fixture.image("gray-8.png")).status == 0 },
      {
        try site.upload("PUT", "/api/reviews/\(id)/images/1", [(Fixture.image("grayscale.jpg"), "c.jpg")]).status == 200
      },
      { try browser.post("/reviews/\(id)/images/2/detach").status == 303 },
      { try library.run("cover", id, "2").status == 0 },
      { try browser.post("/reviews/\(id)/images/3/move", [("to", "1")]).status == 303 },
      { try site.request("DELETE", "/api/reviews/\(id)/images/2", signed: true).status == 200 },
      { try library.run("replace", id, "1", Fixture.image("orientation-3.jpg")).status == 0 },
    ]
    for (index, step) in steps.enumerated() { #expect(try step(), "step \(index + 1)") }
    let images = try #require(try library.show(id)["images"] as? [[String: Any]])
    #expect(images.count == 2)
    let check = try library.run("check")
    #expect(check.status == 0, "\(check.output)\(check.error)")
    #expect(check.output.contains("no problems"), "\(check.output)")
    // Only the pictures the review holds are stored.
    #expect(library.files(in: "originals").count == images.count)
  }

  /// Commands beside a busy server never split the library in two. A server holds several
  /// connections (one a request in flight); `list`, `check`, `user remove` and `user token
  /// --revoke` run beside it while it writes and reads at once. Its write-ahead log must stay
  /// the one on disk (a command that took itself for the last user would checkpoint and delete
  /// it, and the server would go on writing to a file no one else sees), every review it
  /// answered 201 must be in the library after it stops, and a removal or a revocation must hold
  /// at its next request.
  @Test func commandsBesideABusyServerNeverSplitTheLibrary() throws {
    let site = try LiveSite {
      try $0.addReviewer("bob", password: "bobs password here")
      try $0.addReviewer("carol", password: "carols password here")
    }
    let library = site.library
    let bob = try library.token(for: "bob")
    let carol = try library.token(for: "carol")
    let port = site.port
    let token = site.token
    let created = Mutex<[String]>([])
    let outcomes = Outcomes()
    // Four writers and four readers at once, each on a thread of its own: the server opens a
    // connection for each request that finds none idle.
    func busy(_ round: Int) -> DispatchGroup {
      onThreads(8) { thread in
        do {
          let client = try HTTPClient(port: port)
          for number in 0..<3 {
            if thread < 4 {
              let answer = try client.json(
                "POST", "/api/reviews",
                ["title": "Round \(round) writer \(thread) #\(number)", "rating": 3, "category": "movie"],
                headers: [("Authorization", "Bearer \(token)")])
              let id = try? answer.json()["id"] as? String
              outcomes.add("POST round \(round)", ok: answer.status == 201 && id != nil, text: answer.description)
              if answer.status == 201, let id { created.withLock { $0.append(id) } }
            } else {
              let page = try client.request("GET", "/?q=round\(round)x\(thread)x\(number)")
              outcomes.add("GET round \(round)", ok: page.status == 200, text: page.description)
            }
          }
        } catch {
          outcomes.add("thread \(thread) of round \(round)", ok: false, text: "\(error)")
        }
      }
    }
    #expect(busy(0).wait(timeout: .now() + 60) == .success)
    let wal = library.path + "/catalogue.sqlite-wal"
    let walBefore = try #require(
      try? FileManager.default.attributesOfItem(atPath: wal)[.systemFileNumber] as? Int, "the server has no WAL")

    let commands = [["list"], ["check"], ["user", "remove", "bob", "--yes"], ["user", "token", "carol", "--revoke"]]
    for (index, command) in commands.enumerated() {
      let group = busy(index + 1)
      let result = try library.run(command)
      #expect(result.status == 0, "\(command): \(result.error)")
      #expect(group.wait(timeout: .now() + 60) == .success)
      let walNow = try? FileManager.default.attributesOfItem(atPath: wal)[.systemFileNumber] as? Int
      #expect(walNow == walBefore, "after \(command) the server's write-ahead log is gone from the folder")
      #expect(site.server.deletedOpenFiles.isEmpty, "after \(command): \(site.server.deletedOpenFiles)")
    }
    for failure in outcomes.failures { Issue.record("\(failure.what): \(failure.text)") }

    // The removal and the revocation hold at the next request.
    for (who, secret) in [("bob, removed", bob), ("carol, revoked", carol)] {
      let write = try site.json(
        "POST", "/api/reviews", ["title": "After", "rating": 1, "category": "movie"],
        headers: [("Authorization", "Bearer \(secret)")], signed: false)
      #expect(write.status == 401, "\(who): \(write.description)")
    }

    // Every review answered 201 is in the library once the server has stopped.
    #expect(site.server.stop() == 0)
    let answered = created.withLock { $0 }
    #expect(answered.count == 5 * 4 * 3)
    let listed = try library.run("--json", "list", "--limit", "500")
    let ids = Set(((try listed.json()["reviews"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String })
    #expect(Set(answered).subtracting(ids).isEmpty, "answered 201 but lost: \(Set(answered).subtracting(ids).count)")
    #expect(ids.count == answered.count)
    let check = try library.run("check")
    #expect(check.status == 0, "\(check.output)\(check.error)")
  }
}
