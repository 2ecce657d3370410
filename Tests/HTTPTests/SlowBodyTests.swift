import HTTPTestSupport
import Foundation
import Glibc
@testable import HTTP
import Testing

/// Bodies that come too slowly, and a server full of them: the pace each plan sets is kept, and
/// a reader from another address is still served.
@Suite("Slow bodies")
struct SlowBodyTests {
  /// A service that reads every body on the connection's thread at `pace`, and says how many
  /// bytes came.
  static func service(pace: BodyPace, reached: Shared<Int>? = nil) -> TestService {
    TestService(plan: { _ in .read(BodyLimit(maximumBytes: 1 << 20, pace: pace), onWorker: false) }) { request in
      reached?.update { $0 += 1 }
      return textResponse("got \(request.body.count)")
    }
  }

  /// Sends `head` then one byte every `interval` seconds until the server closes the
  /// connection or `limit` seconds pass; how long it took.
  static func trickle(_ client: HTTPClient, head: String, interval: Double, limit: Double = 8) throws -> Double? {
    let start = Date()
    try client.send(head)
    while seconds(since: start) < limit {
      if (try? client.send("a")) == nil || client.waitForClose(timeout: interval) { return seconds(since: start) }
    }
    return nil
  }

  @Test("A body that trickles below its pace is cut off after one window, and logged as 408")
  func trickleIsCutOff() throws {
    var pipe: [Int32] = [0, 0]
    #expect(Glibc.pipe(&pipe) == 0)
    defer { close(pipe[0]) }
    let reached = Shared(0)
    let server = try startServer(Self.service(pace: BodyPace(minimumBytesPerSecond: 1000, window: 1), reached: reached))
    {
      $0.requestHeadTimeout = 1
      $0.connectionTimeout = 30
      $0.log = .text
      $0.logSink = pipe[1]
    }
    defer {
      server.stop(grace: .seconds(1))
      close(pipe[1])
    }
    let cut = try Self.trickle(
      HTTPClient(port: server.port), head: "POST /slow HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n",
      interval: 0.1)
    let elapsed = try #require(cut, "a body of 10 bytes a second was never cut off")
    #expect(elapsed > 0.9 && elapsed < 3, "cut off after \(elapsed) s")
    let fields = try readLogLine(pipe[0]).split(separator: " ").map(String.init)
    #expect(Array(fields.dropFirst().prefix(4)) == ["127.0.0.1", "POST", "/slow", "408"])
    #expect(reached.get() == 0)

    // One at the pace is served: 100 KB in pieces of 10 KB every 0.2 s, 50 KB a second.
    let client = try HTTPClient(port: server.port)
    let pieces = Array(repeating: [UInt8](repeating: 0x61, count: 10_000), count: 10)
    try client.send("POST /fast HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n")
    for piece in pieces {
      try client.send(piece)
      usleep(200_000)
    }
    #expect(try client.readResponse(method: "POST").text == "got 100000")
  }

  @Test("A chunked body at a good pace is cut off too when it falls below it")
  func chunkedTrickleIsCutOff() throws {
    let server = try startServer(Self.service(pace: BodyPace(minimumBytesPerSecond: 1000, window: 1))) {
      $0.requestHeadTimeout = 1
    }
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    try client.send("POST /slow HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
    let start = Date()
    var closed = false
    while !closed && seconds(since: start) < 8 {
      if (try? client.send("1\r\na\r\n")) == nil { break }
      closed = client.waitForClose(timeout: 0.1)
    }
    let elapsed = seconds(since: start)
    #expect(elapsed > 0.9 && elapsed < 3, "cut off after \(elapsed) s")
  }

  @Test("A body past its deadline is cut off though it keeps the rate")
  func deadline() throws {
    let server = try startServer(Self.service(pace: BodyPace(minimumBytesPerSecond: 10, window: 1, deadline: 1))) {
      $0.requestHeadTimeout = 1
    }
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    try client.send("POST /slow HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n")
    let start = Date()
    var closed = false
    while !closed && seconds(since: start) < 8 {
      // 500 bytes a second: fifty times the rate asked.
      if (try? client.send([UInt8](repeating: 0x61, count: 100))) == nil { break }
      closed = client.waitForClose(timeout: 0.2)
    }
    let elapsed = seconds(since: start)
    #expect(closed)
    #expect(elapsed > 0.9 && elapsed < 3, "cut off after \(elapsed) s")
  }

  @Test("A chunked body where the plan wants a length is refused with 411 before it is read")
  func lengthRequired() throws {
    let reached = Shared(0)
    let pace = BodyPace(minimumBytesPerSecond: 1024, window: 10, deadline: 10, requiresLength: true)
    let server = try startServer(Self.service(pace: pace, reached: reached))
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    // Only the head: the answer does not wait for the body.
    try client.send("POST /form HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
    let refused = try client.readResponse(method: "POST")
    #expect(refused.status == 411)
    #expect(
      refused.text
        == "error 411: this request's body must announce its length (Content-Length); a chunked body is not taken here")
    #expect(client.waitForClose(timeout: 2))
    #expect(reached.get() == 0)
    #expect(try HTTPClient(port: server.port).request("POST", "/form", body: Array("a=b".utf8)).text == "got 3")
  }

  @Test(
    "A server full of slow bodies makes room for a reader from another address, from the address that holds the most")
  func fullServerServesAReader() throws {
    // 40 connections at most: past 32, a new one cuts off another. Without that, 40 slow ones
    // would leave no room. The last 8 slow ones and the 4 readers cut off 12 in all: 127.0.1.1
    // holds 24, so it still holds the most after the twelfth (with 20, it would fall to 9 and
    // the rule would rightly take from one of the others).
    let server = try startServer(Self.service(pace: BodyPace(minimumBytesPerSecond: 1024, window: 60))) {
      $0.maximumConnections = 40
      $0.requestHeadTimeout = 30
    }
    defer { server.stop(grace: .seconds(1)) }
    var slow: [(address: String, client: HTTPClient)] = []
    for (address, count) in [("127.0.1.1", 24), ("127.0.1.2", 8), ("127.0.1.3", 8)] {
      for _ in 0..<count {
        let client = try HTTPClient(port: server.port, source: address, timeout: 5)
        try client.send("POST /slow HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\na")
        slow.append((address, client))
      }
    }
    // Behind their pace by now: a second without a kilobyte.
    usleep(1_200_000)
    for index in 0..<4 {
      let start = Date()
      let reader = try HTTPClient(port: server.port, source: "127.0.2.1", timeout: 5)
      let page = try reader.request("GET", "/page\(index)")
      #expect(page.status == 200)
      #expect(seconds(since: start) < 1, "reader \(index) waited \(seconds(since: start)) s")
    }
    let closed = slow.filter { $0.client.waitForClose(timeout: 0.05) }.map(\.address)
    #expect(closed.count >= 4, "\(closed.count) slow connections were cut off to make room")
    #expect(Set(closed) == ["127.0.1.1"], "cut off: \(closed)")
  }

  @Test("The room kept for new clients: a sixteenth of the limit, at least 8, at most a quarter")
  func evictionThreshold() {
    #expect(ConnectionReaper.evictionThreshold(maximumConnections: 4096) == 3840)
    #expect(ConnectionReaper.evictionThreshold(maximumConnections: 40) == 32)
    #expect(ConnectionReaper.evictionThreshold(maximumConnections: 10) == 8)
    #expect(ConnectionReaper.evictionThreshold(maximumConnections: 1) == 1)
  }

  @Test("Memory is given back once the connections have fallen to half of their peak, by 256 or more")
  func memoryTrim() {
    var trim = MemoryTrim()
    // Connections seen one after the other, and whether each is the moment to trim.
    let seen = [(100, false), (0, false), (4000, false), (2100, false), (1900, true), (1800, false), (0, true)]
    let decisions = seen.map { trim.shouldTrim(connections: $0.0) }
    #expect(decisions == seen.map(\.1))
  }
}
