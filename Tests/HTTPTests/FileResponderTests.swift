import Foundation
import Glibc
@testable import HTTP
import TestSupport
import Testing

@Suite("Serving files")
struct FileResponderTests {
  /// 100 bytes (0, 1, … 99) last modified on Sun, 06 Nov 1994 08:49:37 GMT.
  let folder = TemporaryFolder()
  let path: String
  let bytes = (0..<100).map { UInt8($0) }

  init() throws {
    path = folder.file("picture.jpg")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSince1970: 784_111_777)], ofItemAtPath: path)
  }

  func respond(_ headers: [(String, String)], method: String = "GET") throws -> HTTPResponse {
    let file = try #require(OpenFile.open(path))
    return FileResponder.respond(
      to: HTTPRequestHead(method: method, target: "/picture.jpg", headers: HTTPHeaders(headers)), file: file,
      contentType: "image/jpeg", etag: "abc123", headers: ["Cache-Control": "public, max-age=31536000, immutable"])
  }

  /// The offset and length of a file body, nil for bytes.
  func fileRange(_ response: HTTPResponse) -> Range<Int>? {
    if case .file(_, let offset, let length) = response.body { return offset..<(offset + length) }
    return nil
  }

  @Test("A plain GET: the whole file with its validators")
  func whole() throws {
    let response = try respond([])
    #expect(response.status == 200)
    #expect(response.headers["Content-Type"] == "image/jpeg")
    #expect(response.headers["Content-Length"] == "100")
    #expect(response.headers["ETag"] == "\"abc123\"")
    #expect(response.headers["Last-Modified"] == "Sun, 06 Nov 1994 08:49:37 GMT")
    #expect(response.headers["Accept-Ranges"] == "bytes")
    #expect(response.headers["Cache-Control"] == "public, max-age=31536000, immutable")
    #expect(fileRange(response) == 0..<100)
  }

  @Test(
    "If-None-Match that names the tag, weakly or in a list, gives 304",
    arguments: ["\"abc123\"", "W/\"abc123\"", "\"other\", \"abc123\"", "\"x\",W/\"abc123\" ", "*"])
  func notModified(condition: String) throws {
    let response = try respond([("If-None-Match", condition)])
    #expect(response.status == 304)
    #expect(response.headers["ETag"] == "\"abc123\"")
    #expect(response.headers["Cache-Control"] == "public, max-age=31536000, immutable")
    #expect(response.bodyLength == 0)
  }

  @Test("If-None-Match with other tags gives the file, whatever If-Modified-Since says")
  func modified() throws {
    let response = try respond([
      ("If-None-Match", "\"abc12\", \"abc1234\""), ("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT"),
    ])
    #expect(response.status == 200)
    #expect(fileRange(response) == 0..<100)
  }

  @Test(
    "If-Modified-Since at or after the file's time gives 304, in all three date forms",
    arguments: [
      "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
      "Mon, 07 Nov 1994 00:00:00 GMT",
    ])
  func notModifiedSince(date: String) throws {
    #expect(try respond([("If-Modified-Since", date)]).status == 304)
  }

  @Test(
    "If-Modified-Since before the file's time, or unreadable, gives the file",
    arguments: ["Sun, 06 Nov 1994 08:49:36 GMT", "yesterday", "Sun, 06 Nov 1994 25:00:00 GMT"])
  func modifiedSince(date: String) throws {
    #expect(try respond([("If-Modified-Since", date)]).status == 200)
  }

  @Test(
    "One range gives 206 with its exact Content-Range and bytes",
    arguments: [
      ("bytes=0-9", 0..<10, "bytes 0-9/100"),
      ("bytes=90-", 90..<100, "bytes 90-99/100"),
      ("bytes=-5", 95..<100, "bytes 95-99/100"),
      ("bytes=-500", 0..<100, "bytes 0-99/100"),
      ("bytes=50-1000", 50..<100, "bytes 50-99/100"),
      ("bytes=99-99", 99..<100, "bytes 99-99/100"),
      ("BYTES = 10-19 ", 10..<20, "bytes 10-19/100"),
    ])
  func partial(range: String, expected: Range<Int>, contentRange: String) throws {
    let response = try respond([("Range", range)])
    #expect(response.status == 206)
    #expect(response.headers["Content-Range"] == contentRange)
    #expect(response.headers["Content-Length"] == String(expected.count))
    #expect(fileRange(response) == expected)
  }

  @Test("A range past the end gives 416 with the file's size", arguments: ["bytes=100-", "bytes=200-300", "bytes=-0"])
  func unsatisfiable(range: String) throws {
    let response = try respond([("Range", range)])
    #expect(response.status == 416)
    #expect(response.headers["Content-Range"] == "bytes */100")
    #expect(response.bodyLength == 0)
  }

  @Test(
    "Several ranges, or a malformed Range, give the whole file",
    arguments: ["bytes=0-1,5-6", "bytes=0-1, 200-300", "bytes=5-1", "pages=1-2", "bytes=a-b", "bytes="])
  func wholeInstead(range: String) throws {
    let response = try respond([("Range", range)])
    #expect(response.status == 200)
    #expect(fileRange(response) == 0..<100)
  }

  @Test("If-Range that matches lets the range through; another tag, a weak tag or another date gives 200")
  func ifRange() throws {
    #expect(try respond([("Range", "bytes=0-9"), ("If-Range", "\"abc123\"")]).status == 206)
    #expect(try respond([("Range", "bytes=0-9"), ("If-Range", "Sun, 06 Nov 1994 08:49:37 GMT")]).status == 206)
    #expect(try respond([("Range", "bytes=0-9"), ("If-Range", "\"old\"")]).status == 200)
    #expect(try respond([("Range", "bytes=0-9"), ("If-Range", "W/\"abc123\"")]).status == 200)
    #expect(try respond([("Range", "bytes=0-9"), ("If-Range", "Sun, 06 Nov 1994 08:49:38 GMT")]).status == 200)
  }

  @Test("HEAD answers as GET without a range; the body is left out by libmicrohttpd")
  func head() throws {
    let response = try respond([("Range", "bytes=0-9")], method: "HEAD")
    #expect(response.status == 200)
    #expect(response.headers["Content-Length"] == "100")
    #expect(try respond([("If-None-Match", "\"abc123\"")], method: "HEAD").status == 304)
  }

  @Test("A quoted tag is used as given")
  func quotedTag() throws {
    let file = try #require(OpenFile.open(path))
    let response = FileResponder.respond(
      to: HTTPRequestHead(method: "GET", target: "/", headers: ["If-None-Match": "W/\"v2\""]), file: file,
      contentType: "text/plain", etag: "W/\"v2\"")
    #expect(response.headers["ETag"] == "W/\"v2\"")
    #expect(response.status == 304)
  }

  @Test("OpenFile opens regular files only, never through a final symlink")
  func openFile() throws {
    let file = try #require(OpenFile.open(path))
    #expect(file.size == 100)
    #expect(file.modified == Date(timeIntervalSince1970: 784_111_777))
    try FileManager.default.createSymbolicLink(atPath: folder.file("link.jpg"), withDestinationPath: path)
    #expect(OpenFile.open(folder.file("link.jpg")) == nil)
    #expect(OpenFile.open(folder.path) == nil)
    #expect(OpenFile.open(folder.file("missing")) == nil)
    #expect(mkfifo(folder.file("fifo"), 0o600) == 0)
    #expect(OpenFile.open(folder.file("fifo")) == nil)
  }

  /// Beneath a folder, no symlink is followed anywhere in the path (a shard folder replaced by
  /// a link to a folder elsewhere with the same file in it), nothing outside is reached, and
  /// "missing" is told apart from "refused". Through openat2, and through the walk that stands
  /// in for it on kernels before 5.6.
  @Test("OpenFile opens beneath a folder through no symlink", arguments: [true, false])
  func openBeneath(openat2: Bool) throws {
    let files = FileManager.default
    let root = folder.file("library")
    try files.createDirectory(atPath: root + "/originals/ab", withIntermediateDirectories: true)
    try files.createDirectory(atPath: folder.file("elsewhere/cd"), withIntermediateDirectories: true)
    try Data(bytes).write(to: URL(fileURLWithPath: root + "/originals/ab/picture.jpg"))
    try Data(bytes).write(to: URL(fileURLWithPath: folder.file("elsewhere/cd/picture.jpg")))
    try files.createSymbolicLink(atPath: root + "/originals/cd", withDestinationPath: folder.file("elsewhere/cd"))
    try files.createSymbolicLink(atPath: root + "/linked", withDestinationPath: root + "/originals")
    try files.createSymbolicLink(atPath: root + "/originals/ab/link.jpg", withDestinationPath: "picture.jpg")
    #expect(mkfifo(root + "/originals/ab/fifo", 0o600) == 0)
    let library = try Folder(path: root)
    func open(_ path: String) -> Result<OpenFile, OpenFailure> {
      Result { () throws(OpenFailure) in
        openat2
          ? try OpenFile.open(path, beneath: library)
          : try OpenFile.walk(path, beneath: library, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
      }
    }
    func refused(_ path: String) -> Bool {
      if case .failure(.refused) = open(path) { return true }
      return false
    }
    #expect(try open("originals/ab/picture.jpg").get().size == 100)
    #expect(refused("originals/cd/picture.jpg"), "a shard folder that is a link")
    #expect(refused("linked/ab/picture.jpg"), "a store folder that is a link")
    #expect(refused("originals/ab/link.jpg"), "a final link")
    #expect(refused("../elsewhere/cd/picture.jpg"))
    #expect(refused("originals/../../elsewhere/cd/picture.jpg"))
    #expect(refused(folder.file("elsewhere/cd/picture.jpg")), "an absolute path")
    #expect(throws: OpenFailure.missing) { try open("originals/ab/missing.jpg").get() }
    #expect(throws: OpenFailure.missing) { try open("originals/ef/picture.jpg").get() }
    #expect(throws: OpenFailure.notARegularFile) { try open("originals/ab").get() }
    #expect(throws: OpenFailure.notARegularFile) { try open("originals/ab/fifo").get() }
  }
}
