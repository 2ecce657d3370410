import HTTPTestSupport
import Foundation
import HTTP
import Testing
import TestSupport

/// Uploads that must be refused, and what a refusal leaves: the library folder byte for byte as
/// it was and no upload left waiting in the upload folder.
@Suite("Refused uploads store nothing")
struct SecurityUploadTests {
  /// A site whose uploads wait in a folder the test can look into, with one review.
  struct UploadSite {
    let uploads: TemporaryFolder
    let site: LiveSite
    let id: String

    init(arguments: [String] = [], prepare: (TestLibrary) throws -> Void = { _ in }) throws {
      let uploads = TemporaryFolder()
      var id = ""
      site = try LiveSite(arguments: ["--upload-folder", uploads.path] + arguments) { library in
        id = try library.addReview("Arrival", pictures: [Fixture.image("baseline.jpg")])
        try prepare(library)
      }
      self.uploads = uploads
      self.id = id
    }

    /// Whether no upload's part is left in the upload folder (within two seconds: uploads are
    /// removed once the answer is sent). The server's own folder in it, with its process id,
    /// stays while it runs.
    func uploadsAreGone() -> Bool {
      let deadline = Date().addingTimeInterval(2)
      while Date() < deadline {
        if let left = try? FileManager.default.subpathsOfDirectory(atPath: uploads.path),
          !left.contains(where: { $0.split(separator: "/").last?.hasPrefix("upload-") == true })
        {
          return true
        }
        usleep(20_000)
      }
      return false
    }
  }

  /// A multipart body of one part `file` holding `size` bytes (a JPEG's start, then filler).
  static func multipartBody(size: Int, boundary: String = "catalogue-boundary") -> (type: String, body: [UInt8]) {
    let head = Array(
      "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
        .utf8)
    var content = [UInt8](repeating: 0x5A, count: size)
    content[0] = 0xFF
    content[1] = 0xD8
    return (
      "multipart/form-data; boundary=\(boundary)", head + content + Array("\r\n--\(boundary)--\r\n".utf8)
    )
  }

  static func pieces(_ bytes: [UInt8], size: Int = 65536) -> [[UInt8]] {
    stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
  }

  // MARK: Too large

  @Test func anUploadAnnouncingMoreThanTheCapIsRefusedBeforeItsBody() throws {
    let upload = try UploadSite(arguments: ["--max-upload", "1"])
    let before = try upload.site.library.snapshot()
    let (type, body) = Self.multipartBody(size: 5_000_000)
    let client = try upload.site.connect()
    try client.send(
      HTTPClient.head(
        "POST", "/api/reviews/\(upload.id)/images",
        headers: [upload.site.bearer, ("Content-Type", type), ("Content-Length", String(body.count))]) + "\r\n")
    // A first piece of the body, then the answer, which does not wait for the rest.
    try client.send(Array(body.prefix(65536)))
    let answer = try client.readResponse()
    #expect(answer.status == 413)
    #expect(answer.errorMessage == "request body of \(body.count) bytes is over the limit of 1000000 bytes")
    try upload.site.library.expectUnchanged(since: before)
    #expect(upload.uploadsAreGone())
    #expect(try upload.site.request("GET", "/api/reviews/\(upload.id)").status == 200, "the server goes on")
  }

  @Test func aChunkedUploadOverTheCapIsRefusedWith413() throws {
    let upload = try UploadSite(arguments: ["--max-upload", "1"])
    let before = try upload.site.library.snapshot()
    let (type, body) = Self.multipartBody(size: 1_500_000)
    let answer = try upload.site.connect().request(
      "POST", "/api/reviews/\(upload.id)/images", headers: [upload.site.bearer, ("Content-Type", type)],
      pieces: Self.pieces(body), chunked: true)
    #expect(answer.status == 413)
    #expect(answer.errorMessage == "request body over the limit of 1000000 bytes")
    try upload.site.library.expectUnchanged(since: before)
    #expect(upload.uploadsAreGone())
  }

  @Test func aChunkedUploadFarOverTheCapIsRefusedWith413() throws {
    let upload = try UploadSite(arguments: ["--max-upload", "1"])
    let before = try upload.site.library.snapshot()
    let (type, body) = Self.multipartBody(size: 4_000_000)
    do {
      let answer = try upload.site.connect().request(
        "POST", "/api/reviews/\(upload.id)/images", headers: [upload.site.bearer, ("Content-Type", type)],
        pieces: Self.pieces(body), chunked: true)
      #expect(answer.status == 413)
    } catch {
      Issue.record("no answer to a chunked upload of 4 MB over a cap of 1 MB: \(error)")
    }
    try upload.site.library.expectUnchanged(since: before)
    #expect(upload.uploadsAreGone())
  }

  @Test func aPictureFarOverTheLibrarysCapIsRefusedWith413() throws {
    let upload = try UploadSite { try $0.setting("file_size_cap", "50000") }
    let before = try upload.site.library.snapshot()
    let (type, body) = Self.multipartBody(size: 3_000_000)
    let client = try upload.site.connect()
    try client.send(
      HTTPClient.head(
        "POST", "/api/reviews/\(upload.id)/images",
        headers: [upload.site.bearer, ("Content-Type", type), ("Content-Length", String(body.count))]) + "\r\n")
    var answer: Response?
    do {
      for piece in Self.pieces(body) where !client.hasDataWaiting() { try client.send(piece) }
      answer = try client.readResponse()
    } catch {
      answer = try? client.readResponse()
      if answer == nil { Issue.record("no answer to a picture of 3 MB over a cap of 50 KB: \(error)") }
    }
    if let answer { #expect(answer.status == 413) }
    try upload.site.library.expectUnchanged(since: before)
    #expect(upload.uploadsAreGone())
  }

  // MARK: Hostile pictures

  /// Every file of Fixtures/hostile that `catalogue attach` refuses is refused by the server
  /// with the same words (the uploaded file's name in place of the path) and a status that says
  /// what kind of refusal it is; the library is byte for byte as it was.
  @Test func everyHostilePictureIsRefusedWithTheCommandLinesWords() throws {
    let upload = try UploadSite()
    // The words of the command line, on libraries of their own: two, each taking half the
    // files at the same time.
    let folder = Fixture.root.appendingPathComponent("hostile").path
    let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    let halves = [
      files.enumerated().filter { $0.offset % 2 == 0 }.map(\.element),
      files.enumerated().filter { $0.offset % 2 == 1 }.map(\.element),
    ]
    let references = try halves.map { _ in try TestLibrary() }
    let ids = try references.map { try $0.addReview("Reference") }
    let words = Outcomes()
    DispatchQueue.concurrentPerform(iterations: 2) { half in
      for file in halves[half] {
        let path = Fixture.hostile(file)
        guard let attached = try? references[half].run("attach", ids[half], path) else {
          words.add(file, ok: false, text: "could not run catalogue attach")
          continue
        }
        guard attached.status != 0 else { continue }
        let prefix = "error: \(path): "
        guard attached.error.hasPrefix(prefix) else {
          words.add(file, ok: false, text: attached.error)
          continue
        }
        words.add(
          file, ok: true, text: String(attached.error.dropFirst(prefix.count)).trimmingCharacters(in: .newlines))
      }
    }
    for failure in words.failures { Issue.record("\(failure.what): \(failure.text)") }
    let refused = words.all.filter(\.ok).map { (file: $0.what, reason: $0.text) }.sorted { $0.file < $1.file }
    #expect(refused.count >= 30, "the command line refuses \(refused.count) hostile fixtures")

    let before = try upload.site.library.snapshot()
    let client = try upload.site.connect()
    for (file, reason) in refused {
      let form = Multipart(files: [(file, try Fixture.bytes(Fixture.hostile(file)))])
      let answer = try client.upload("POST", "/api/reviews/\(upload.id)/images", form, headers: [upload.site.bearer])
      #expect([400, 413, 415].contains(answer.status), "\(file): \(answer.status)")
      #expect(answer.errorMessage == "\(file): \(reason)", "\(file)")
      let failures = try answer.json()["failures"] as? [[String: Any]]
      #expect(failures?.count == 1, "\(file)")
      #expect(failures?.first?["file"] as? String == file, "\(file)")
    }
    try upload.site.library.expectUnchanged(since: before)
    #expect(upload.uploadsAreGone())
  }

  /// A HEIC whose size box says 0×0, which libheif decodes at its true 120×80: refused as a
  /// damaged picture (400, as a truncated or corrupt one is) before anything is stored, and the
  /// library still checks healthy.
  @Test func aHEICWhoseSizeBoxSaysZeroIsRefused() throws {
    let upload = try UploadSite()
    let before = try upload.site.library.snapshot()
    let form = Multipart(files: [("zero.heic", try Fixture.bytes(Fixture.hostile("heic-ispe-zero.heic")))])
    let answer = try upload.site.connect().upload(
      "POST", "/api/reviews/\(upload.id)/images", form, headers: [upload.site.bearer])
    #expect(answer.status == 400)
    #expect(
      answer.errorMessage == "zero.heic: corrupt HEIC: the picture's size box (ispe) says 0×0, which no picture is")
    try upload.site.library.expectUnchanged(since: before)
    #expect(upload.uploadsAreGone())
    let check = try upload.site.library.run("check")
    #expect(check.status == 0, "\(check.output) \(check.error)")
  }

  @Test func aHostilePictureThroughTheFormIsNamedAndEscapedOnTheEditPage() throws {
    let upload = try UploadSite()
    let browser = Browser(upload.site.server)
    try #require(try browser.signIn(LiveSite.reviewer, LiveSite.password).status == 303)
    let before = try upload.site.library.snapshot()
    let name = "<img src=x onerror=alert(1)>.jpg"
    let page = try browser.upload(
      "/reviews/\(upload.id)/images", Multipart(files: [(name, try Fixture.bytes(Fixture.hostile("text.jpg")))]))
    #expect(page.status == 415)
    #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
    #expect(
      page.text.contains(
        PageText.escape(
          "\(name): not an image: the data is not JPEG, PNG, WebP, HEIC or AVIF (nor any other known image format)")))
    #expect(!page.text.contains("<img src=x"))
    try upload.site.library.expectUnchanged(since: before)
    #expect(upload.uploadsAreGone())
  }

  @Test func anUploadsNameCannotPlaceAFile() throws {
    let upload = try UploadSite()
    let marker = "catalogue-e2e-\(UUID().uuidString).jpg"
    let names = ["../../../../../../tmp/\(marker)", "..\\..\\..\\tmp\\\(marker)", "/tmp/\(marker)"]
    let pictures = ["progressive.jpg", "grayscale.jpg", "srgb.png"]
    for (name, picture) in zip(names, pictures) {
      let answer = try upload.site.upload("POST", "/api/reviews/\(upload.id)/images", [(Fixture.image(picture), name)])
      #expect(answer.status == 201, "\(name): \(answer.text)")
    }
    #expect(!FileManager.default.fileExists(atPath: "/tmp/\(marker)"))
    #expect(!FileManager.default.fileExists(atPath: NSTemporaryDirectory() + "/" + marker))
    let stored = upload.site.library.files(in: "originals")
    #expect(stored.count == 4)
    #expect(!stored.contains { $0.contains("catalogue-e2e") })
    #expect(upload.uploadsAreGone())
  }

  /// A refused picture is named as the browser sent its name, less any folder and control
  /// characters, and at most 200 characters long.
  @Test func aRefusedPictureIsNamedAsItWasSent() throws {
    let upload = try UploadSite()
    let long = String(repeating: "x", count: 300) + ".jpg"
    let names: [(sent: String, shown: String)] = [
      ("Été 🎬.jpg", "Été 🎬.jpg"), ("C:\\Users\\me\\poster.jpg", "poster.jpg"), ("a\u{7}b.jpg", "ab.jpg"),
      (long, String(long.prefix(200))), ("", "upload"),
    ]
    let bytes = try Fixture.bytes(Fixture.hostile("text.jpg"))
    for (sent, shown) in names {
      let answer = try upload.site.connect().upload(
        "POST", "/api/reviews/\(upload.id)/images", Multipart(files: [(sent, bytes)]), headers: [upload.site.bearer])
      #expect(answer.status == 415, "\(sent)")
      #expect(answer.errorMessage?.hasPrefix("\(shown): not an image") == true, "\(sent): \(answer)")
    }
  }

  // MARK: Who may upload

  /// Without credentials an upload is answered before a byte of its body is sent: 401 for the
  /// API, the sign-in page for a form; `Expect: 100-continue` gets no 100.
  @Test func anAnonymousUploadIsRefusedBeforeItsBodyIsRead() throws {
    let upload = try UploadSite()
    let targets = [("/api/reviews/\(upload.id)/images", 401), ("/reviews/\(upload.id)/images", 303), ("/new", 303)]
    for (target, status) in targets {
      for expectContinue in [false, true] {
        let client = try upload.site.connect()
        var headers = [
          ("Content-Type", "multipart/form-data; boundary=catalogue-boundary"), ("Content-Length", "50000000"),
        ]
        if expectContinue { headers.append(("Expect", "100-continue")) }
        try client.send(HTTPClient.head("POST", target, headers: headers) + "\r\n")
        let answer = try client.readResponse(interim: true)
        #expect(answer.status == status, "\(target)")
        if status == 303 { #expect(answer.headers["Location"]?.hasPrefix("/sign-in?next=") == true, "\(target)") }
        if status == 401 {
          #expect(answer.errorMessage == "sign in first: this needs a reviewer's session or API token")
        }
      }
    }
    #expect(upload.uploadsAreGone())
  }
}
