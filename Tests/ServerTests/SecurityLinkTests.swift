import HTTPTestSupport
import Foundation
import HTTP
import Testing
import TestSupport

/// A folder of the stores replaced by a symbolic link to a folder elsewhere that holds a file
/// of the right name: the server never goes through it (404), never writes through it, serves
/// every other picture, and `check` names the link.
@Suite("No picture is served through a symbolic link")
struct SecurityLinkTests {
  /// A site with one review of two pictures in different shard folders (`1b` and `7c`), and a
  /// folder outside the library for the links to point at.
  struct LinkedSite {
    let site: LiveSite
    let elsewhere = TemporaryFolder()
    /// The JPEG (the one whose folders the tests link away) and the HEIC.
    let linked: String
    let other: String

    init() throws {
      var id = ""
      site = try LiveSite {
        id = try $0.addReview("Arrival", pictures: [Fixture.image("baseline.jpg"), Fixture.image("heic-8bit.heic")])
      }
      let images = try #require(try site.library.show(id)["images"] as? [[String: Any]])
      let hashes = images.compactMap { $0["sha256"] as? String }
      try #require(hashes.count == 2 && hashes[0].prefix(2) != hashes[1].prefix(2))
      (linked, other) = (hashes[0], hashes[1])
    }

    /// Moves `folder` (relative to the library) to the folder elsewhere and puts a link to it
    /// in its place; returns where it went.
    @discardableResult
    func linkAway(_ folder: String) throws -> String {
      let destination = elsewhere.file(folder.replacingOccurrences(of: "/", with: "-"))
      try FileManager.default.moveItem(atPath: site.library.path + "/" + folder, toPath: destination)
      try FileManager.default.createSymbolicLink(
        atPath: site.library.path + "/" + folder, withDestinationPath: destination)
      return destination
    }

    /// Every file below the folder elsewhere.
    func filesElsewhere() throws -> [String] {
      try FileManager.default.subpathsOfDirectory(atPath: elsewhere.path).sorted()
    }

    var thumbnailSpec: String { "256-fit-q85" }
    var displaySpec: String { "1600-fit-q85-progressive" }
  }

  @Test func anOriginalsShardFolderThatIsALinkLeadsNowhere() throws {
    let site = try LinkedSite()
    let target = "/originals/\(site.linked).jpg"
    #expect(try site.site.request("GET", target).status == 200)
    let moved = try site.linkAway("originals/\(site.linked.prefix(2))")
    // The file is there, under its own name, behind the link.
    #expect(FileManager.default.fileExists(atPath: moved + "/\(site.linked).jpg"))
    let answer = try site.site.request("GET", target)
    #expect(answer.status == 404)
    #expect(answer.headers["Content-Type"]?.hasPrefix("image/") != true)
    #expect(try site.site.request("GET", "/originals/\(site.other).heic").status == 200)
    #expect(try site.site.request("GET", "/thumbnails/\(site.linked)-\(site.thumbnailSpec).jpg").status == 200)
  }

  @Test func theOriginalsFolderThatIsALinkLeadsNowhere() throws {
    let site = try LinkedSite()
    try site.linkAway("originals")
    #expect(try site.site.request("GET", "/originals/\(site.linked).jpg").status == 404)
    #expect(try site.site.request("GET", "/originals/\(site.other).heic").status == 404)
    #expect(try site.site.request("GET", "/thumbnails/\(site.other)-\(site.thumbnailSpec).jpg").status == 200)
  }

  /// A thumbnail behind a link is not served, and one missing there is not made through it:
  /// nothing is written outside the library.
  @Test func aThumbnailsShardFolderThatIsALinkLeadsNowhereAndIsNotWrittenThrough() throws {
    let site = try LinkedSite()
    let thumbnail = "/thumbnails/\(site.linked)-\(site.thumbnailSpec).jpg"
    #expect(try site.site.request("GET", thumbnail).status == 200)
    let moved = try site.linkAway("thumbnails/\(site.linked.prefix(2))")
    #expect(try site.site.request("GET", thumbnail).status == 404)
    #expect(try site.site.request("GET", "/thumbnails/\(site.other)-\(site.thumbnailSpec).jpg").status == 200)
    // Missing behind the link: still 404, and neither it nor a display rendition is made there.
    try FileManager.default.removeItem(atPath: moved + "/\(site.linked)-\(site.thumbnailSpec).jpg")
    let before = try site.filesElsewhere()
    #expect(try site.site.request("GET", thumbnail).status == 404)
    #expect(try site.site.request("GET", "/display/\(site.linked)-\(site.displaySpec)").status == 404)
    #expect(try site.filesElsewhere() == before)
    // The other picture's rendition is made in the library and served.
    #expect(try site.site.request("GET", "/display/\(site.other)-\(site.displaySpec)").status == 200)
  }

  /// `check` names every link in the stores, and a repair leaves it where it is (moving it
  /// aside would lose what is behind it).
  @Test func checkNamesTheLink() throws {
    let site = try LinkedSite()
    let shard = "originals/\(site.linked.prefix(2))"
    let moved = try site.linkAway(shard)
    let check = try site.site.library.run("check")
    #expect(check.status == 1)
    #expect(
      check.output.contains(
        "symbolic-link: \(shard): a symbolic link (to \(moved)) where the library keeps its own folder or file: "
          + "the server does not follow it"), "\(check.output)")
    let repair = try site.site.library.run("check", "--repair")
    #expect(repair.status == 1)
    let status = try FileManager.default.attributesOfItem(atPath: site.site.library.path + "/" + shard)
    #expect(status[.type] as? FileAttributeType == .typeSymbolicLink)
  }
}
