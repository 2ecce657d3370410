import HTTPTestSupport
import Foundation
import HTTP
import ImagePipeline
import Testing
import TestSupport

/// Pictures described through the built server: the API's PATCH and upload, the editor's form,
/// the pages that show the description as alt text and the caption under the picture, the
/// editor's buttons named for the picture they act on, and downloads named after the file.
@Suite("Pictures described, over HTTP")
struct EndToEndPictureTextTests {
  /// `alt`, `caption` and `name` of each image of a review's JSON.
  static func said(_ review: [String: Any]) throws -> [[String?]] {
    let images = try #require(review["images"] as? [[String: Any]])
    return images.map { image in ["alt", "caption", "name"].map { image[$0] as? String } }
  }

  @Test func theAPIDescribesMovesAndRefusesBadText() throws {
    let site = try LiveSite { library in
      try library.addReview("Arrival", pictures: [Fixture.image("baseline.jpg"), Fixture.image("rgb-8.png")])
    }
    let id = try site.library.id(of: "Arrival")
    let described = try site.json(
      "PATCH", "/api/reviews/\(id)/images/2", ["alt": "A red square", "caption": "Painted\r\nin 1915 "])
    #expect(described.status == 200, "\(described.text)")
    #expect(try Self.said(try described.json())[1] == ["A red square", "Painted\nin 1915", "rgb-8.png"])
    #expect(
      JSONValue.canonical(try site.library.show(id))
        == JSONValue.canonical(JSONValue.removingURLs(try described.json())))
    // Moved and described at once: the description follows the picture, null clears.
    let moved = try site.json("PATCH", "/api/reviews/\(id)/images/2", ["position": 1, "alt": NSNull()])
    #expect(moved.status == 200, "\(moved.text)")
    #expect(try Self.said(try moved.json()) == [[nil, "Painted\nin 1915", "rgb-8.png"], [nil, nil, "baseline.jpg"]])

    let before = try site.library.snapshot()
    let long = try site.json("PATCH", "/api/reviews/\(id)/images/1", ["alt": String(repeating: "a", count: 1_001)])
    #expect(long.status == 400)
    #expect(
      try long.json()["error"] as? String
        == "invalid text for picture 1 of review \(id): the description is 1001 characters long, over 1000 "
        + "(a description holds up to 1000 characters on one line, a caption up to 2000); nothing was changed")
    // Nothing moves either when the text is refused.
    let both = try site.json("PATCH", "/api/reviews/\(id)/images/1", ["position": 2, "caption": "Bell\u{7}"])
    #expect(both.status == 400)
    #expect(try site.json("PATCH", "/api/reviews/\(id)/images/1", ["alt": 5]).status == 400)
    let nothing = try site.json("PATCH", "/api/reviews/\(id)/images/1", [:])
    #expect(nothing.status == 400)
    #expect(try nothing.json()["error"] as? String == "nothing to change: give position, alt or caption")
    try site.library.expectUnchanged(since: before)

    // An upload takes alt and caption fields for its one picture, and keeps the file's name.
    var one = Multipart(files: [("Heptapod B.png", try Fixture.bytes(Fixture.image("rgba-8.png")))])
    one.add(field: "alt", "Circles of ink")
    one.add(field: "caption", "Logograms")
    let attached = try site.connect().upload("POST", "/api/reviews/\(id)/images", one, headers: [site.bearer])
    #expect(attached.status == 201, "\(attached.text)")
    #expect(try Self.said(try site.library.show(id))[2] == ["Circles of ink", "Logograms", "Heptapod B.png"])
    var two = Multipart(
      files: [
        ("a.jpg", try Fixture.bytes(Fixture.image("progressive.jpg"))),
        ("b.jpg", try Fixture.bytes(Fixture.image("grayscale.jpg"))),
      ])
    two.add(field: "alt", "Both")
    let refused = try site.connect().upload("POST", "/api/reviews/\(id)/images", two, headers: [site.bearer])
    #expect(refused.status == 400)
    #expect((try refused.json()["error"] as? String)?.hasPrefix("alt and caption describe one picture, and 2") == true)
    #expect(try Self.said(try site.library.show(id)).count == 3)
  }

  @Test func theEditorDescribesAPictureAndThePagesShowIt() throws {
    let site = try LiveSite { library in
      try library.addReview("Arrival", pictures: [Fixture.image("baseline.jpg"), Fixture.image("rgb-8.png")])
    }
    let id = try site.library.id(of: "Arrival")
    let browser = Browser(site.server)
    _ = try browser.signIn(LiveSite.reviewer, LiveSite.password, next: "/reviews/\(id)/edit")
    let editor = try browser.get("/reviews/\(id)/edit")
    #expect(editor.status == 200)
    // Every button says which picture it acts on.
    for name in [
      #"aria-label="Move picture 2 left""#, #"aria-label="Move picture 1 right""#, ">Make picture 2 the cover</button>",
      #"aria-label="Remove picture 1""#, #"aria-label="Replace picture 2""#,
      #"aria-label="Download original of picture 1""#,
      #"aria-label="Save the description and caption of picture 2""#,
    ] {
      #expect(editor.text.contains(name), "\(name)")
    }
    #expect(editor.text.contains(#"<form class="describe" method="post" action="/reviews/\#(id)/images/2/describe">"#))

    let saved = try browser.post(
      "/reviews/\(id)/images/1/describe", [("alt", "A grey <square>"), ("caption", "First line\r\nsecond \"line\"")])
    #expect(saved.status == 303, "\(saved.text)")
    #expect(saved.headers["Location"] == "/reviews/\(id)/edit")
    let after = try browser.get("/reviews/\(id)/edit")
    #expect(after.text.contains("Description saved."))
    #expect(after.text.contains(#"name="alt" value="A grey &lt;square&gt;""#))
    #expect(after.text.contains("second &quot;line&quot;</textarea>"))
    #expect(after.text.contains(#"alt="A grey &lt;square&gt;""#))

    // The review page: the description as the cover's alt, the caption under it; the other
    // picture keeps the fallback a page gave it before.
    let page = try browser.get("/reviews/\(id)")
    #expect(
      page.text.contains(
        #"alt="A grey &lt;square&gt;"></a><figcaption>First line<br>second &quot;line&quot;</figcaption></figure>"#))
    #expect(page.text.contains(#"alt="Picture 2 of Arrival""#))
    #expect(page.text.contains(#"aria-label="Download original of picture 2">2</a>"#))
    // The grid's card and the list's row: the cover's description, the link still hidden.
    let grid = try browser.get("/")
    #expect(grid.text.contains(#"aria-hidden="true" tabindex="-1"><img src="/thumbnails/"#))
    #expect(grid.text.contains(#"alt="A grey &lt;square&gt;" loading="lazy"></a>"#))
    #expect(try browser.get("/?view=list").text.contains(#"alt="A grey &lt;square&gt;" loading="lazy">"#))

    // Too long: the editor says why, and nothing changes.
    let before = try site.library.snapshot()
    let refused = try browser.post(
      "/reviews/\(id)/images/2/describe", [("alt", String(repeating: "b", count: 1_001)), ("caption", "")])
    #expect(refused.status == 400)
    #expect(refused.text.contains("the description is 1001 characters long, over 1000"))
    // What was typed comes back in the picture's fields, not what was stored.
    #expect(refused.text.contains(#"name="alt" value="\#(String(repeating: "b", count: 1_001))""#))
    try site.library.expectUnchanged(since: before)
    // Cleared from the form: both fields empty.
    let cleared = try browser.post("/reviews/\(id)/images/1/describe", [("alt", ""), ("caption", " ")])
    #expect(cleared.status == 303)
    #expect(try Self.said(try site.library.show(id))[0] == [nil, nil, "baseline.jpg"])
    #expect(try browser.get("/reviews/\(id)").text.contains(#"alt="Cover of Arrival""#))
  }

  @Test func aDownloadIsNamedAfterTheFileWhateverItsName() throws {
    let name = #"Café "noir" 10%.jpg"#
    let site = try LiveSite { library in
      let id = try library.addReview("Arrival")
      let file = library.folder.file(name)
      try FileManager.default.copyItem(atPath: Fixture.image("baseline.jpg"), toPath: file)
      try #require(try library.run("attach", id, file).status == 0)
      try #require(try library.run("attach", id, Fixture.image("rgb-8.png")).status == 0)
      // Attached before names were kept.
      try library.sql("UPDATE review_images SET name = NULL WHERE position = 2")
    }
    let id = try site.library.id(of: "Arrival")
    let images = try #require(try site.library.show(id)["images"] as? [[String: Any]])
    let sha = try #require(images[0]["sha256"] as? String)
    let png = try #require(images[1]["sha256"] as? String)
    let page = try site.request("GET", "/reviews/\(id)")
    let link = "/originals/\(sha).jpg?download=Caf%C3%A9%20%22noir%22%2010%25.jpg"
    #expect(page.text.contains(#"<a href="\#(link)" download="Café &quot;noir&quot; 10%.jpg" "#), "\(page.text)")
    #expect(page.text.contains(#"<a href="/originals/\#(png).png?download" download "#))

    let download = try site.request("GET", link)
    #expect(download.status == 200)
    #expect(download.body == (try Fixture.bytes(Fixture.image("baseline.jpg"))))
    #expect(
      download.headers["Content-Disposition"]
        == #"attachment; filename="Caf_ _noir_ 10_.jpg"; filename*=UTF-8''Caf%C3%A9%20%22noir%22%2010%25.jpg"#)
    #expect(download.headers["Cache-Control"] == "public, max-age=31536000, immutable")
    #expect(download.headers["Content-Type"] == "image/jpeg")
    // Without a name, as before: named by the hash.
    let plain = try site.request("GET", "/originals/\(png).png?download")
    #expect(
      plain.headers["Content-Disposition"]
        == #"attachment; filename="\#(png.prefix(12)).png"; filename*=UTF-8''\#(png.prefix(12)).png"#)
    // A name that is no file name is refused; one with another extension gets the picture's.
    let path = try site.request("GET", "/originals/\(sha).jpg?download=..%2Fpage.html")
    #expect(path.status == 400)
    let html = try site.request("GET", "/originals/\(sha).jpg?download=page.html")
    #expect(
      html.headers["Content-Disposition"] == #"attachment; filename="page.html.jpg"; filename*=UTF-8''page.html.jpg"#)
    #expect(html.headers["Content-Type"] == "image/jpeg")
  }
}
