import HTTPTestSupport
import Foundation
import Glibc
import HTTP
import Testing
import TestSupport

/// Clients that hold connections without using them: cut off by the timeout, and never in the
/// way of a client that does use one.
@Suite("Slow and idle clients")
struct SecurityConnectionTests {
  /// Connections that send nothing, half a head, or half a body: each closed within a few
  /// seconds of `--timeout 2`, while a client that asks is answered.
  @Test func slowClientsAreCutOffByTheTimeout() throws {
    var id = ""
    let site = try LiveSite(arguments: ["--timeout", "2"]) { id = try $0.addReview("Arrival") }
    let started = Date()
    let silent = try site.connect()
    let halfHead = try site.connect()
    try halfHead.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    // A head sent a byte a second, so that no read is ever idle for long: the head's own
    // deadline cuts it off.
    let trickle = try site.connect()
    let halfBody = try site.connect()
    try halfBody.send(
      HTTPClient.head(
        "PATCH", "/api/reviews/\(id)",
        headers: [site.bearer, ("Content-Type", "application/json"), ("Content-Length", "1000")]) + "\r\n{\"title\":")
    let idleAfterRequest = try site.connect()
    #expect(try idleAfterRequest.request("GET", "/api/reviews").status == 200)

    let socket = trickle.socket
    let trickling = Thread {
      for byte in Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
        + Array(repeating: UInt8(ascii: "a"), count: 20)
      {
        var byte = byte
        guard Glibc.send(socket, &byte, 1, Int32(MSG_NOSIGNAL)) == 1 else { return }
        usleep(500_000)
      }
    }
    trickling.start()
    // Meanwhile a client that asks is answered.
    #expect(try site.request("GET", "/").status == 200)

    for (name, client) in [
      ("a silent connection", silent), ("half a head", halfHead), ("a head a byte at a time", trickle),
      ("half a body", halfBody), ("a kept-alive connection left idle", idleAfterRequest),
    ] {
      // Waited for on this thread: the times measured are the server's, not the test runner's.
      let closed = client.waitForClose(timeout: 8 - Date().timeIntervalSince(started))
      #expect(closed, "\(name) was not closed")
      #expect(!client.unread.contains("200 OK"), "\(name) was answered: \(client.unread.prefix(100))")
    }
    #expect(Date().timeIntervalSince(started) < 8)
    #expect(try site.library.show(id)["title"] as? String == "Arrival", "half a body changed nothing")
    #expect(try site.request("GET", "/api/reviews").status == 200, "the server goes on")
  }

  /// A thousand connections held open from eight loopback addresses (under the limit of 128
  /// an address), half of them kept alive after one request, half never saying a word, do not
  /// keep a new client waiting.
  @Test func aThousandIdleConnectionsDoNotStopANewClient() throws {
    try Self.raiseOpenFileLimit(to: 4096)
    let site = try LiveSite()
    var kept: [HTTPClient] = []
    var silent: [HTTPClient] = []
    for index in 0..<1000 {
      let client = try site.connect(source: "127.0.0.\(2 + index % 8)")
      if index % 2 == 0 {
        try client.send("GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        kept.append(client)
      } else {
        silent.append(client)
      }
    }
    // Every request was answered, and its connection kept alive.
    var answered = 0
    for client in kept where (try? client.readResponse())?.status == 204 { answered += 1 }
    #expect(answered == 500)

    let started = Date()
    let fresh = try site.request("GET", "/")
    let waited = Date().timeIntervalSince(started)
    #expect(fresh.status == 200)
    #expect(waited < 2, "a new client waited \(waited) s")
    // The idle ones are still served too, the silent ones once they speak.
    #expect(try kept[0].request("GET", "/api/reviews").status == 200)
    #expect(try kept[499].request("GET", "/api/reviews").status == 200)
    #expect(try silent[250].request("GET", "/api/reviews").status == 200)
    kept.removeAll()
    silent.removeAll()
  }

  /// The 129th connection from one address is refused; other addresses are not.
  @Test func oneAddressCannotTakeEveryConnection() throws {
    try Self.raiseOpenFileLimit(to: 4096)
    let site = try LiveSite()
    var held: [HTTPClient] = []
    for _ in 0..<128 {
      let client = try site.connect(source: "127.0.0.20")
      try client.send("GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
      held.append(client)
    }
    for client in held { #expect((try? client.readResponse())?.status == 204) }
    let extra = try site.connect(source: "127.0.0.20")
    let refused = (try? extra.request("GET", "/api/reviews")) == nil
    #expect(refused, "the 129th connection from one address was served")
    #expect(try site.connect(source: "127.0.0.21").request("GET", "/api/reviews").status == 200)
    held.removeAll()
  }

  /// Requests whose framing two servers could read two ways (a proxy in front by
  /// Content-Length, this one by Transfer-Encoding) are answered once and their connection
  /// closed, so nothing can be smuggled after them; a head that breaks HTTP/1.1 is refused.
  @Test func ambiguousFramingIsRefusedAndTheConnectionClosed() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Arrival") }
    let smuggled = "GET /smuggled HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    let both = try site.connect()
    try both.send(
      HTTPClient.head(
        "PATCH", "/api/reviews/\(id)",
        headers: [
          site.bearer, ("Content-Type", "application/json"), ("Content-Length", "4"), ("Transfer-Encoding", "chunked"),
        ]) + "\r\n0\r\n\r\n" + smuggled)
    let answer = try both.readResponse()
    #expect((400..<500).contains(answer.status), "\(answer)")
    let closed = both.waitForClose(timeout: 3)
    #expect(closed, "the connection stayed open after an ambiguous request")
    #expect(!both.unread.contains("HTTP/1.1"), "a second answer came: \(both.unread.prefix(80))")
    #expect(!site.server.log.contains("/smuggled"), "the smuggled request was served")

    let conflicting = try site.connect()
    try conflicting.send(
      HTTPClient.head(
        "PATCH", "/api/reviews/\(id)",
        headers: [site.bearer, ("Content-Type", "application/json"), ("Content-Length", "2"), ("Content-Length", "40")])
        + "\r\n{}")
    #expect(try conflicting.readResponse().status == 400)

    let unknownCoding = try site.connect(timeout: 3)
    try unknownCoding.send(
      HTTPClient.head(
        "PATCH", "/api/reviews/\(id)",
        headers: [site.bearer, ("Content-Type", "application/json"), ("Transfer-Encoding", "gzip, chunked")])
        + "\r\n2\r\n{}\r\n0\r\n\r\n")
    let coded = try? unknownCoding.readResponse()
    #expect(coded.map { [400, 501].contains($0.status) } == true, "\(coded?.description ?? "no answer")")

    let hostless = try site.connect()
    try hostless.send("GET /api/reviews HTTP/1.1\r\n\r\n")
    #expect(try hostless.readResponse().status == 400, "HTTP/1.1 without Host")
    #expect(try site.library.show(id)["title"] as? String == "Arrival")
  }

  /// Heads libmicrohttpd takes but HTTP/1.1 refuses (a proxy may read them otherwise): 400
  /// with what was wrong, as a page or as the API's JSON, the connection closed, nothing
  /// changed; the server goes on.
  @Test func malformedHeadsAreRefusedAndTheConnectionClosed() throws {
    var id = ""
    let site = try LiveSite { id = try $0.addReview("Arrival") }

    let page = try site.connect()
    try page.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\nAccept: text/html\r\n\r\n")
    let refusedPage = try page.readResponse()
    #expect(refusedPage.status == 400)
    #expect(refusedPage.headers["Content-Type"] == "text/html; charset=utf-8")
    let bareLF = "the request's head ends a line with a bare LF: lines end with CRLF (RFC 9112 section 2.2)"
    #expect(refusedPage.text.contains("<p class=\"problem\">\(PageText.escape(bareLF))</p>"), "\(refusedPage)")
    #expect(page.waitForClose(timeout: 3), "the connection stayed open after a malformed head")

    // A write whose head hides a NUL: refused before its body is read.
    let body = #"{"title":"Changed"}"#
    let write = try site.connect()
    try write.send(
      "PATCH /api/reviews/\(id) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(site.token)\r\n"
        + "Content-Type: application/json\r\nX-Note: a\u{0}b\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    let refusedWrite = try write.readResponse()
    #expect(refusedWrite.status == 400)
    #expect(refusedWrite.headers["Content-Type"]?.hasPrefix("application/json") == true)
    #expect(refusedWrite.errorMessage == "the value of the field \"X-Note\" holds a NUL byte (RFC 9110 section 5.5)")
    #expect(write.waitForClose(timeout: 3), "the connection stayed open after a malformed head")

    let twoHosts = try site.connect()
    try twoHosts.send("GET /api/reviews HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n")
    let refusedHosts = try twoHosts.readResponse()
    #expect(refusedHosts.status == 400)
    #expect(refusedHosts.errorMessage == "a request has one Host field, not 2 (RFC 9112 section 3.2)")
    #expect(twoHosts.waitForClose(timeout: 3))

    #expect(try site.library.show(id)["title"] as? String == "Arrival")
    #expect(try site.request("GET", "/api/reviews").status == 200, "the server goes on")
  }

  static func raiseOpenFileLimit(to wanted: rlim_t) throws {
    var limit = rlimit()
    try #require(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
    guard limit.rlim_cur < wanted else { return }
    limit.rlim_cur = min(wanted, limit.rlim_max)
    try #require(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
    try #require(limit.rlim_cur >= 2048, "the open-file limit (\(limit.rlim_max)) is too low for this test")
  }
}
