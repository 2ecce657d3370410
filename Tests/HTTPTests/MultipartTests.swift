import Foundation
import HTTP
import TestSupport
import Testing

@Suite("Multipart forms")
struct MultipartTests {
  static let boundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW"
  /// Bytes that hold CR, LF, dashes and every other value.
  static let picture: [UInt8] =
    (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 256) } + Array("\r\n--\r\n".utf8)
  /// Text that starts like a delimiter and ends otherwise: only the whole delimiter ends a part.
  static let nearMiss = "line one\r\nline two\r\n--\(boundary.dropLast())Z and more\r\n--"

  let folder = TemporaryFolder()

  var limit: MultipartLimit {
    MultipartLimit(
      maximumParts: 10, maximumFileBytes: 1 << 20, maximumFieldBytes: 1024, temporaryFolder: folder.file("uploads"))
  }

  static func body(preamble: String = "This is the preamble.\r\n", epilogue: String = "\r\nThe epilogue.") -> [UInt8] {
    let b = boundary
    var body = Array(preamble.utf8)
    body += Array("--\(b)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nArrival\r\n".utf8)
    body += Array(
      "--\(b)  \r\ncontent-disposition: form-data; name=body\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n".utf8)
    body += Array(nearMiss.utf8) + Array("\r\n".utf8)
    body += Array(
      "--\(b)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"poster.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
        .utf8)
    body += picture + Array("\r\n".utf8)
    body += Array(
      "--\(b)\r\nContent-Disposition: form-data; name=\"doc\"; filename=\"rates.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt\r\n\r\n€\r\n"
        .utf8)
    body += Array("--\(b)\r\nContent-Disposition: form-data; name=\"empty\"; filename=\"\"\r\n\r\n\r\n".utf8)
    body += Array("--\(b)--".utf8) + Array(epilogue.utf8)
    return body
  }

  /// Reads `body` in the chunks `sizes` gives, then finishes.
  func read(_ body: [UInt8], limit: MultipartLimit? = nil, chunks sizes: () -> Int) throws -> [FormPart] {
    let reader = MultipartReader(boundary: Self.boundary, limit: limit ?? self.limit)
    var offset = 0
    while offset < body.count {
      let size = min(max(1, sizes()), body.count - offset)
      try reader.consume(Array(body[offset..<(offset + size)]))
      offset += size
    }
    return try reader.finish()
  }

  func checkParts(_ parts: [FormPart]) throws {
    #expect(parts.map(\.name) == ["title", "body", "image", "doc", "empty"])
    #expect(parts[0].text == "Arrival")
    #expect(parts[0].filename == nil)
    #expect(parts[0].file == nil)
    #expect(parts[1].text == Self.nearMiss)
    #expect(parts[1].contentType == "text/plain; charset=utf-8")
    #expect(parts[2].filename == "poster.jpg")
    #expect(parts[2].contentType == "image/jpeg")
    #expect(parts[2].value.isEmpty)
    let image = try #require(parts[2].file)
    #expect(image.size == Self.picture.count)
    #expect(try Fixture.bytes(image.path) == Self.picture)
    #expect(image.path.hasPrefix(folder.file("uploads") + "/"))
    let attributes = try FileManager.default.attributesOfItem(atPath: image.path)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    #expect(parts[3].filename == "€ rates.txt")
    #expect(try Fixture.bytes(try #require(parts[3].file).path) == Array("€".utf8))
    #expect(parts[4].filename == "")
    #expect(parts[4].file?.size == 0)
  }

  @Test("A whole body in one piece")
  func whole() throws {
    let body = Self.body()
    try checkParts(try read(body) { body.count })
  }

  @Test("A body one byte at a time")
  func oneByte() throws {
    try checkParts(try read(Self.body()) { 1 })
  }

  @Test("A body in random pieces", arguments: 1...24)
  func randomChunks(seed: Int) throws {
    var generator = SeededGenerator(seed: UInt64(seed))
    try checkParts(try read(Self.body()) { Int.random(in: 1...97, using: &generator) })
  }

  @Test("A body with neither preamble nor epilogue")
  func bare() throws {
    try checkParts(try read(Self.body(preamble: "", epilogue: "")) { 13 })
  }

  @Test("Upload files go when their parts go, and the folder is made 0700")
  func filesRemoved() throws {
    do {
      let parts = try read(Self.body()) { 4096 }
      let attributes = try FileManager.default.attributesOfItem(atPath: folder.file("uploads"))
      #expect((attributes[.posixPermissions] as? Int) == 0o700)
      #expect(entries(of: folder.file("uploads")).count == 3)
      #expect(parts.compactMap(\.file).count == 3)
    }
    #expect(entries(of: folder.file("uploads")).isEmpty)
  }

  @Test(
    "The boundary parameter, quoted or not, of multipart/form-data only",
    arguments: [
      ("multipart/form-data; boundary=abc", "abc"),
      ("Multipart/Form-Data; charset=utf-8; BOUNDARY=\"a b:c\"", "a b:c"),
      ("multipart/form-data;boundary=----x", "----x"),
      ("multipart/form-data", nil),
      ("multipart/mixed; boundary=abc", nil),
      ("text/plain; boundary=abc", nil),
      ("multipart/form-data; boundary=\"\"", nil),
      ("multipart/form-data; boundary=\(String(repeating: "x", count: 71))", nil),
    ] as [(String, String?)])
  func boundary(contentType: String, expected: String?) {
    #expect(MultipartReader.boundary(contentType: contentType) == expected)
  }

  /// Reads `body` expecting `error`, then checks that no file is left.
  func expectRefusal(_ body: [UInt8], _ error: MultipartError, limit: MultipartLimit? = nil) {
    #expect(throws: error) { _ = try read(body, limit: limit) { 7 } }
    #expect(entries(of: folder.file("uploads")).isEmpty)
  }

  @Test("A body that ends before its final boundary is malformed, and its files are removed")
  func missingFinalBoundary() {
    let body = Self.body()
    expectRefusal(
      Array(body.dropLast(Array("--\r\nThe epilogue.".utf8).count)),
      MultipartError(status: 400, message: "multipart body: it ends before its final boundary"))
    expectRefusal(
      Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"a\"; filename=\"a\"\r\n\r\nabc".utf8),
      MultipartError(status: 400, message: "multipart body: it ends before its final boundary"))
    expectRefusal([], MultipartError(status: 400, message: "multipart body: it ends before its final boundary"))
  }

  @Test("A part's header block over 8 KiB is malformed")
  func longHeaders() {
    let body = Array(
      "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\nX-Padding: \(String(repeating: "x", count: 9000))\r\n\r\nv\r\n--\(Self.boundary)--"
        .utf8)
    expectRefusal(
      body, MultipartError(status: 400, message: "multipart body: a part's header block is over 8192 bytes"))
  }

  @Test("More parts than the limit are refused with 413")
  func tooManyParts() {
    let limit = MultipartLimit(
      maximumParts: 2, maximumFileBytes: 1 << 20, maximumFieldBytes: 1024, temporaryFolder: folder.file("uploads"))
    var body: [UInt8] = []
    for index in 0..<3 {
      body += Array(
        "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"f\(index)\"; filename=\"f\"\r\n\r\ndata\r\n".utf8)
    }
    body += Array("--\(Self.boundary)--".utf8)
    expectRefusal(body, MultipartError(status: 413, message: "multipart body: more than 2 parts"), limit: limit)
  }

  @Test("A field or a file over its limit is refused with 413, and the files are removed")
  func oversizedParts() {
    let small = MultipartLimit(
      maximumParts: 10, maximumFileBytes: 100, maximumFieldBytes: 10, temporaryFolder: folder.file("uploads"))
    let field = Array(
      "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n12345678901\r\n--\(Self.boundary)--".utf8
    )
    expectRefusal(field, MultipartError(status: 413, message: "multipart body: a field is over 10 bytes"), limit: small)
    let file =
      Array(
        "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"a\"; filename=\"a.bin\"\r\n\r\n".utf8)
      + [UInt8](repeating: 65, count: 101) + Array("\r\n--\(Self.boundary)--".utf8)
    let oversized = OversizedPart(name: "a", filename: "a.bin", bytes: 101, limit: 100)
    expectRefusal(
      file,
      MultipartError(
        status: 413, message: "multipart body: the file a.bin is 101 bytes, over the 100 a file may have",
        oversized: oversized),
      limit: small)
    // The rest of an oversized file is counted, not kept, in whatever chunks it comes: the
    // refusal says the whole size.
    let large =
      Array(
        "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"a\"; filename=\"a.bin\"\r\n\r\n".utf8)
      + [UInt8](repeating: 66, count: 5_000) + Array("\r\n--\(Self.boundary)--".utf8)
    for chunk in [1, 7, 4096] {
      #expect(
        throws: MultipartError(
          status: 413, message: "multipart body: the file a.bin is 5000 bytes, over the 100 a file may have",
          oversized: OversizedPart(name: "a", filename: "a.bin", bytes: 5_000, limit: 100))
      ) {
        _ = try read(large, limit: small) { chunk }
      }
      #expect(entries(of: folder.file("uploads")).isEmpty)
    }
  }

  @Test("Parts without a form-data disposition or a name, and junk after a boundary, are malformed")
  func malformedParts() {
    let b = Self.boundary
    expectRefusal(
      Array("--\(b)\r\nContent-Type: text/plain\r\n\r\nv\r\n--\(b)--".utf8),
      MultipartError(status: 400, message: "multipart body: a part has no Content-Disposition: form-data"))
    expectRefusal(
      Array("--\(b)\r\n\r\nv\r\n--\(b)--".utf8),
      MultipartError(status: 400, message: "multipart body: a part has no Content-Disposition: form-data"))
    expectRefusal(
      Array("--\(b)\r\nContent-Disposition: form-data; filename=\"x\"\r\n\r\nv\r\n--\(b)--".utf8),
      MultipartError(status: 400, message: "multipart body: a part has no name"))
    expectRefusal(
      Array("--\(b)\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nv\r\n--\(b)--".utf8),
      MultipartError(status: 400, message: "multipart body: a part has no Content-Disposition: form-data"))
    expectRefusal(
      Array("--\(b)junk\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--\(b)--".utf8),
      MultipartError(status: 400, message: "multipart body: a boundary is followed by something else than a line end"))
    expectRefusal(
      Array("--\(b)\r\nno colon here\r\n\r\nv\r\n--\(b)--".utf8),
      MultipartError(status: 400, message: "multipart body: a part's header line has no colon"))
  }
}
