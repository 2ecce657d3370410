import HTTPTestSupport
import Foundation
import HTTP
import Testing

/// Request heads HTTP/1.1 says to refuse, which libmicrohttpd 0.9.75 takes (and reads lossily):
/// each gets 400 with what was wrong, and its connection closed, without reaching the service;
/// the well-formed heads around them still pass.
@Suite("Malformed request heads")
struct MalformedHeadTests {
  /// A head sent as raw bytes, named by its defect.
  struct Head: CustomTestStringConvertible, Sendable {
    var name: String
    var bytes: String
    var testDescription: String { name }

    init(_ name: String, _ bytes: String) {
      self.name = name
      self.bytes = bytes
    }
  }

  static let bareLF = "the request's head ends a line with a bare LF: lines end with CRLF (RFC 9112 section 2.2)"
  static let fold =
    "the request's head has a field line that starts with whitespace (obs-fold): send each field on one line (RFC 9112 section 5.2)"

  static let refusals: [(head: Head, message: String)] = [
    (
      Head("two Host fields", "GET / HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n"),
      "a request has one Host field, not 2 (RFC 9112 section 3.2)"
    ),
    (
      Head("two Host fields in HTTP/1.0, one empty", "GET / HTTP/1.0\r\nHost:\r\nHost: b.example\r\n\r\n"),
      "a request has one Host field, not 2 (RFC 9112 section 3.2)"
    ),
    (
      Head("a space in Host", "GET / HTTP/1.1\r\nHost: a b.example\r\n\r\n"),
      "Host \"a b.example\" is not a host name or address with an optional port (RFC 9112 section 3.2)"
    ),
    (
      Head("a path in Host", "GET / HTTP/1.1\r\nHost: a.example/x\r\n\r\n"),
      "Host \"a.example/x\" is not a host name or address with an optional port (RFC 9112 section 3.2)"
    ),
    (
      Head("user information in Host", "GET / HTTP/1.1\r\nHost: user@a.example\r\n\r\n"),
      "Host \"user@a.example\" is not a host name or address with an optional port (RFC 9112 section 3.2)"
    ),
    (
      Head("a port that is not a number", "GET / HTTP/1.1\r\nHost: a.example:80x\r\n\r\n"),
      "Host \"a.example:80x\" is not a host name or address with an optional port (RFC 9112 section 3.2)"
    ),
    (
      Head("an unclosed IPv6 literal", "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n"),
      "Host \"[::1\" is not a host name or address with an optional port (RFC 9112 section 3.2)"
    ),
    (
      Head("an IPv6 literal that is not an address", "GET / HTTP/1.1\r\nHost: [::g]\r\n\r\n"),
      "Host \"[::g]\" is not a host name or address with an optional port (RFC 9112 section 3.2)"
    ),
    (
      Head("a control character in Host", "GET / HTTP/1.1\r\nHost: a\u{1}b\r\n\r\n"),
      "the value of the field \"Host\" holds a control character (RFC 9110 section 5.5)"
    ),
    (
      Head("a NUL inside a value", "GET / HTTP/1.1\r\nHost: t\r\nX-A: a\u{0}b\r\nX-B: c\r\n\r\n"),
      "the value of the field \"X-A\" holds a NUL byte (RFC 9110 section 5.5)"
    ),
    (
      Head("a NUL at the end of a value", "GET / HTTP/1.1\r\nX-A: ab\u{0}\r\nHost: t\r\n\r\n"),
      "the value of the field \"X-A\" holds a NUL byte (RFC 9110 section 5.5)"
    ),
    (
      Head("a NUL in the last value", "GET / HTTP/1.1\r\nHost: t\r\nX-A: ab\u{0}\r\n\r\n"),
      "the value of the field \"X-A\" holds a NUL byte (RFC 9110 section 5.5)"
    ),
    (
      Head("a NUL in Host", "GET / HTTP/1.1\r\nHost: t\u{0}.evil.example\r\n\r\n"),
      "the value of the field \"Host\" holds a NUL byte (RFC 9110 section 5.5)"
    ),
    (Head("a bare LF after the request line", "GET / HTTP/1.1\nHost: t\r\n\r\n"), bareLF),
    (Head("a bare LF after a field line", "GET / HTTP/1.1\r\nHost: t\nX-A: b\r\n\r\n"), bareLF),
    (Head("a bare LF after the last field line", "GET / HTTP/1.1\r\nHost: t\n\r\n"), bareLF),
    (Head("a bare LF as the empty line", "GET / HTTP/1.1\r\nHost: t\r\n\n"), bareLF),
    (Head("bare LFs only", "GET / HTTP/1.1\nHost: t\n\n"), bareLF),
    (Head("a bare LF ending a head without fields", "GET / HTTP/1.0\n\r\n"), bareLF),
    (Head("a bare LF as the empty line of a head without fields", "GET / HTTP/1.0\r\n\n"), bareLF),
    (
      Head("a bare CR inside a value", "GET / HTTP/1.1\r\nHost: t\r\nX-A: a\rb\r\n\r\n"),
      "the value of the field \"X-A\" holds a bare CR: lines end with CRLF (RFC 9112 section 2.2)"
    ),
    (
      Head("a bare CR before CRLF", "GET / HTTP/1.1\r\nX-A: a\r\r\nHost: t\r\n\r\n"),
      "the value of the field \"X-A\" holds a bare CR: lines end with CRLF (RFC 9112 section 2.2)"
    ),
    (Head("a field folded with a space", "GET / HTTP/1.1\r\nHost: t\r\nX-A: a\r\n b\r\nX-B: c\r\n\r\n"), fold),
    (Head("the last field folded with a tab", "GET / HTTP/1.1\r\nHost: t\r\nX-A: a\r\n\tb\r\n\r\n"), fold),
    (Head("Host folded", "GET / HTTP/1.1\r\nHost: a\r\n .example\r\n\r\n"), fold),
    (Head("the first field line starting with a space", "GET / HTTP/1.1\r\n Host: t\r\n\r\n"), fold),
    (
      Head("a space before the colon", "GET / HTTP/1.1\r\nHost : t\r\n\r\n"),
      "the field name \"Host\" is followed by whitespace before its colon (RFC 9112 section 5.1)"
    ),
    (
      Head("a tab before the colon", "GET / HTTP/1.1\r\nHost: t\r\nContent-Length\t: 0\r\n\r\n"),
      "the field name \"Content-Length\" is followed by whitespace before its colon (RFC 9112 section 5.1)"
    ),
    (
      Head("a space inside a name", "GET / HTTP/1.1\r\nHost: t\r\nX A: b\r\n\r\n"),
      "the field name \"X A\" is not a token (RFC 9110 section 5.1)"
    ),
    (
      Head("a separator in a name", "GET / HTTP/1.1\r\nHost: t\r\nX(A): b\r\n\r\n"),
      "the field name \"X(A)\" is not a token (RFC 9110 section 5.1)"
    ),
    (
      Head("a name that is not ASCII", "GET / HTTP/1.1\r\nHost: t\r\nX-é: b\r\n\r\n"),
      "the field name \"X-%C3%A9\" is not a token (RFC 9110 section 5.1)"
    ),
    (
      Head("no name before the colon", "GET / HTTP/1.1\r\nHost: t\r\n: b\r\n\r\n"),
      "a field line has no name before its colon (RFC 9110 section 5.1)"
    ),
    (
      Head(
        "no name before the colon, smuggling a length",
        "GET / HTTP/1.1\r\nHost: t\r\n:b\r\nContent-Length: 3\r\n\r\nabc"),
      "a field line has no name before its colon (RFC 9110 section 5.1)"
    ),
    (
      Head("no name in the first field line", "GET / HTTP/1.1\r\n: b\r\nHost: t\r\n\r\n"),
      "a field line has no name before its colon (RFC 9110 section 5.1)"
    ),
  ]

  @Test("Refused with 400, what was wrong, and the connection closed", arguments: refusals)
  func refused(head: Head, message: String) throws {
    let reached = Shared(false)
    let server = try startServer(
      TestService { _ in
        reached.set(true)
        return textResponse("served")
      })
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    try client.send(head.bytes)
    let response = try client.readResponse()
    #expect(response.status == 400)
    #expect(response.headers["X-Error"] == "service")
    #expect(response.text == "error 400: \(message)")
    #expect(response.headers["Connection"]?.lowercased() == "close")
    #expect(client.waitForClose(timeout: 2))
    #expect(!reached.get())
  }

  @Test("A malformed head after a good one on a kept-alive connection is refused and closes it")
  func refusedAfterAGoodRequest() throws {
    let server = try startServer(TestService { request in textResponse("hello \(request.head.path)") })
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    #expect(try client.request("GET", "/one").text == "hello /one")
    try client.send("GET /two HTTP/1.1\r\nHost: t\r\nX-A: a\u{0}b\r\n\r\n")
    let response = try client.readResponse()
    #expect(response.status == 400)
    #expect(response.text == "error 400: the value of the field \"X-A\" holds a NUL byte (RFC 9110 section 5.5)")
    #expect(client.waitForClose(timeout: 2))
  }

  /// Every tchar (RFC 9110 section 5.6.2).
  static let tokenName = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

  static let wellFormed: [(head: Head, answer: String)] = [
    (Head("tabs after the colon", "GET /a HTTP/1.1\r\nHost:\t\tt\r\nX-A:\t b\r\n\r\n"), "/a 2 X-A=b"),
    (Head("empty values", "GET /a HTTP/1.1\r\nHost: t\r\nX-A:\r\nX-B:   \r\n\r\n"), "/a 3 X-A="),
    (Head("trailing spaces", "GET /a HTTP/1.1\r\nHost: t \r\nX-A: b \t \r\n\r\n"), "/a 2 X-A=b \t "),
    (Head("an empty Host", "GET /a HTTP/1.1\r\nHost:\r\nX-A: b\r\n\r\n"), "/a 2 X-A=b"),
    (Head("Host with a port", "GET /a HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"), "/a 1 X-A=-"),
    (Head("Host as an IPv6 literal", "GET /a HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n"), "/a 1 X-A=-"),
    (
      Head("Host with every character a name may have", "GET /a HTTP/1.1\r\nHost: a-b.c_d~e!$&'()*+,;=%41\r\n\r\n"),
      "/a 1 X-A=-"
    ),
    (Head("a value beyond ASCII", "GET /a HTTP/1.1\r\nHost: t\r\nX-A: café\r\n\r\n"), "/a 2 X-A=café"),
    (Head("a colon and quotes in a value", "GET /a HTTP/1.1\r\nHost: t\r\nX-A: \"b: c\"\r\n\r\n"), "/a 2 X-A=\"b: c\""),
    (Head("HTTP/1.0 without fields", "GET /a HTTP/1.0\r\n\r\n"), "/a 0 X-A=-"),
    (Head("an empty line before the request line", "\r\nGET /a HTTP/1.1\r\nHost: t\r\n\r\n"), "/a 1 X-A=-"),
    (Head("names of every token character", "GET /a HTTP/1.1\r\nHost: t\r\n\(tokenName): b\r\n\r\n"), "/a 2 X-A=-"),
    (
      Head(
        "a hundred fields",
        "GET /a HTTP/1.1\r\nHost: t\r\n" + (1...100).map { "X-Field-\($0): value \($0)\r\n" }.joined()
          + "X-A: b\r\n\r\n"
      ),
      "/a 102 X-A=b"
    ),
    (
      Head(
        "a field of 12 KB", "GET /a HTTP/1.1\r\nHost: t\r\nX-A: \(String(repeating: "b", count: 12 * 1024))\r\n\r\n"),
      "/a 2 X-A=\(String(repeating: "b", count: 12 * 1024))"
    ),
  ]

  @Test("Well-formed heads are served, and their connection kept", arguments: wellFormed)
  func served(head: Head, answer: String) throws {
    let server = try startServer(
      TestService { request in
        let headers = request.head.headers
        return textResponse("\(request.head.path) \(headers.count) X-A=\(headers["X-A"] ?? "-")")
      })
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    try client.send(head.bytes)
    let response = try client.readResponse()
    #expect(response.status == 200)
    #expect(response.text == answer)
    if head.bytes.contains("HTTP/1.1") {
      #expect(try client.request("GET", "/next").text == "/next 1 X-A=-")
    }
  }

  @Test("Pipelined requests, and a body in the same packet as its head, are each served")
  func pipelined() throws {
    let server = try startServer(
      TestService { request in
        textResponse("\(request.head.method) \(request.head.path) \(String(decoding: request.body, as: UTF8.self))")
      })
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    try client.send(
      "GET /one HTTP/1.1\r\nHost: t\r\n\r\n"
        + "POST /two HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nX-A:\tb \r\n\r\nhello"
        + "GET /three HTTP/1.1\r\nHost: t\r\n\r\n")
    #expect(try client.readResponse().text == "GET /one ")
    #expect(try client.readResponse(method: "POST").text == "POST /two hello")
    #expect(try client.readResponse().text == "GET /three ")
    try client.send("POST /four HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc")
    #expect(try client.readResponse(method: "POST").text == "POST /four abc")
  }
}
