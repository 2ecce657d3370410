import Foundation
import Glibc
@testable import HTTP
import Testing

/// Why the server failed goes to the request log, never to the client: on the request's one
/// line, whatever the reason holds (newlines, quotes, an SQL statement).
@Suite("The request log's failure note")
struct RequestLogNoteTests {
  static let note = "database error 1: no such table: x (in: SELECT \"a\"\nFROM x WHERE y = '100%') é"

  /// The line `log` writes for a 500 with `note`, without its newline.
  static func line(_ format: HTTPServerConfiguration.LogFormat, note: String?) throws -> String {
    var pipe: [Int32] = [0, 0]
    try #require(Glibc.pipe(&pipe) == 0)
    defer {
      close(pipe[0])
      close(pipe[1])
    }
    RequestLog(format: format, sink: pipe[1]).write(
      RequestLog.Entry(
        remote: "127.0.0.1", method: "GET", target: "/?q=x", status: 500, bytes: 80, nanoseconds: 1_500_000,
        aborted: false, note: note))
    var buffer = [UInt8](repeating: 0, count: 65536)
    let count = read(pipe[0], &buffer, buffer.count)
    try #require(count > 0)
    let text = String(decoding: buffer[..<count], as: UTF8.self)
    #expect(text.filter { $0 == "\n" }.count == 1 && text.hasSuffix("\n"), "one line: \(text)")
    return String(text.dropLast())
  }

  @Test func aNoteEndsTheTextLineEscaped() throws {
    let line = try Self.line(.text, note: Self.note)
    #expect(
      line.hasSuffix(
        #" /?q=x 500 80 1.5ms failure="database error 1: no such table: x (in: SELECT %22a%22%0AFROM x WHERE y = '100%25') é""#
      ), "\(line)")
    #expect(!(try Self.line(.text, note: nil)).contains("failure"))
  }

  @Test func aNoteIsAFieldOfTheJSONLine() throws {
    let line = try Self.line(.json, note: Self.note)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(object["failure"] as? String == Self.note)
    #expect(object["status"] as? Int == 500)
  }

  @Test func aLongNoteIsCutOnACharacter() throws {
    let line = try Self.line(.json, note: String(repeating: "é", count: 3000))
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(object["failure"] as? String == String(repeating: "é", count: 2048) + "...")
  }
}
