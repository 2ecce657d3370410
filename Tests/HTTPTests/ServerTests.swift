import HTTPTestSupport
import Foundation
import Glibc
import HTTP
import TestSupport
import Testing

@Suite("The server, over sockets")
struct ServerTests {
  @Test("A kept-alive connection serves one request after another, HEAD included")
  func keepAlive() throws {
    let server = try startServer(TestService { request in textResponse("hello \(request.head.path)") })
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    let first = try client.request("GET", "/one")
    #expect(first.status == 200)
    #expect(first.text == "hello /one")
    #expect(first.headers["Connection"]?.lowercased() != "close")
    #expect(try client.request("GET", "/two").text == "hello /two")
    let head = try client.request("HEAD", "/three")
    #expect(head.status == 200)
    #expect(head.headers["Content-Length"] == "12")
    #expect(head.body.isEmpty)
    #expect(try client.request("GET", "/four").text == "hello /four")
  }

  @Test("Workers run below the connections' threads, and background work below the workers")
  func priorities() throws {
    /// The nice value of the calling thread (field 19 of its stat line).
    @Sendable func niceness() -> Int {
      let stat = (try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8)) ?? ""
      // The command name, in parentheses, may hold spaces: the fields are counted after it.
      let fields = stat[(stat.lastIndex(of: ")") ?? stat.startIndex)...].split(separator: " ")
      return fields.count > 17 ? Int(fields[17]) ?? -100 : -100
    }
    let base = niceness()
    let service = TestService(plan: { head in
      .read(
        BodyLimit(maximumBytes: 1 << 20), onWorker: head.path != "/connection", background: head.path == "/background")
    }) { _ in textResponse("\(niceness())") }
    let server = try startServer(service) { $0.workerNiceness = 5 }
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    #expect(try client.request("GET", "/connection").text == "\(base)")
    #expect(try client.request("GET", "/worker").text == "\(min(19, base + 5))")
    #expect(try client.request("GET", "/background").text == "\(min(19, base + 19))")
  }

  @Test("A body over the limit by its Content-Length is refused with 413 before it is read")
  func refusedByLength() throws {
    let reached = Shared(false)
    let server = try startServer(
      TestService(plan: { _ in .read(BodyLimit(maximumBytes: 1000), onWorker: false) }) { _ in
        reached.set(true)
        return textResponse("stored")
      })
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    // Not one byte of the body is sent: the answer comes all the same.
    try client.send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 10000000\r\n\r\n")
    let response = try client.readResponse(method: "POST")
    #expect(response.status == 413)
    #expect(response.headers["X-Error"] == "service")
    #expect(response.text == "error 413: request body of 10000000 bytes is over the limit of 1000 bytes")
    #expect(client.waitForClose(timeout: 2))
    #expect(!reached.get())
  }

  @Test("A request that takes no body is refused with 413 when it brings one")
  func noBodyWanted() throws {
    let server = try startServer(TestService(plan: { _ in .read(.none, onWorker: false) }) { _ in textResponse("ok") })
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    #expect(try client.request("GET", "/").status == 200)
    try client.send("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    #expect(try client.readResponse(method: "POST").text == "error 413: this request takes no body")
  }

  @Test("A chunked upload that passes the cap gets 413 and leaves no file behind")
  func chunkedOverCap() throws {
    let folder = TemporaryFolder()
    let uploads = folder.file("uploads")
    let limit = BodyLimit(
      maximumBytes: 64 * 1024,
      multipart: MultipartLimit(
        maximumParts: 10, maximumFileBytes: 1 << 20, maximumFieldBytes: 1024, temporaryFolder: uploads))
    let reached = Shared(false)
    let server = try startServer(
      TestService(plan: { _ in .read(limit, onWorker: false) }) { _ in
        reached.set(true)
        return textResponse("stored")
      })
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    try client.send(
      "POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n"
        + "Content-Type: multipart/form-data; boundary=XyZ\r\n\r\n")
    func chunk(_ bytes: [UInt8]) -> [UInt8] {
      Array(String(bytes.count, radix: 16).utf8) + [13, 10] + bytes + [13, 10]
    }
    try client.send(
      chunk(
        Array("--XyZ\r\nContent-Disposition: form-data; name=\"image\"; filename=\"big.jpg\"\r\n\r\n".utf8)
          + [UInt8](repeating: 0xAB, count: 16 * 1024)))
    // The file part is being stored…
    let start = Date()
    while entries(of: uploads).isEmpty && seconds(since: start) < 2 { usleep(10_000) }
    #expect(entries(of: uploads).count == 1)
    // …until the body passes the cap.
    for _ in 0..<4 { try client.send(chunk([UInt8](repeating: 0xCD, count: 16 * 1024))) }
    try client.send("0\r\n\r\n")
    let response = try client.readResponse(method: "POST")
    #expect(response.status == 413)
    #expect(response.text == "error 413: request body over the limit of 65536 bytes")
    #expect(entries(of: uploads).isEmpty)
    #expect(!reached.get())
  }

  @Test("A multipart upload arrives as files with the exact bytes, removed once answered")
  func multipartUpload() throws {
    let folder = TemporaryFolder()
    let uploads = folder.file("uploads")
    let limit = BodyLimit(
      maximumBytes: 1 << 20,
      multipart: MultipartLimit(
        maximumParts: 10, maximumFileBytes: 1 << 20, maximumFieldBytes: 1024, temporaryFolder: uploads))
    let seen = Shared<[String: [UInt8]]>([:])
    let server = try startServer(
      TestService(plan: { _ in .read(limit, onWorker: true) }) { request in
        for part in request.parts {
          let bytes = part.file.map { (try? Fixture.bytes($0.path)) ?? [] } ?? part.value
          seen.update { $0["\(part.name) \(part.filename ?? "-")"] = bytes }
        }
        return textResponse("stored \(request.parts.count)", status: 201)
      })
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    let response = try client.request(
      "POST", "/upload",
      headers: [("Content-Type", "multipart/form-data; boundary=\"\(MultipartTests.boundary)\"")],
      body: MultipartTests.body())
    #expect(response.status == 201)
    #expect(response.text == "stored 5")
    let parts = seen.get()
    #expect(parts["image poster.jpg"] == MultipartTests.picture)
    #expect(parts["doc € rates.txt"] == Array("€".utf8))
    #expect(parts["title -"] == Array("Arrival".utf8))
    #expect(parts["body -"] == Array(MultipartTests.nearMiss.utf8))
    let start = Date()
    while !entries(of: uploads).isEmpty && seconds(since: start) < 2 { usleep(10_000) }
    #expect(entries(of: uploads).isEmpty)
    // The connection goes on; a body of another type is buffered whole.
    #expect(try client.request("POST", "/upload", body: Array("plain".utf8)).text == "stored 0")
  }

  @Test("A client that trickles its request head is cut off after requestHeadTimeout")
  func slowHead() throws {
    let server = try startServer(TestService { _ in textResponse("ok") }) {
      $0.requestHeadTimeout = 1
      $0.connectionTimeout = 10
    }
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    let start = Date()
    try client.send("GET / HTTP/1.1\r\nHost: test\r\nX-Slow: ")
    var closed = false
    while !closed && seconds(since: start) < 6 {
      if (try? client.send("a")) == nil { break }
      closed = client.waitForClose(timeout: 0.2)
    }
    let elapsed = seconds(since: start)
    #expect(closed)
    #expect(elapsed > 0.9 && elapsed < 3, "cut off after \(elapsed) s")
    // A client that sends its head in time is served.
    #expect(try HTTPClient(port: server.port).request("GET", "/").status == 200)
  }

  @Test("On a kept-alive connection, a next request head trickled after its request line is cut off too")
  func slowNextHead() throws {
    let server = try startServer(TestService { _ in textResponse("ok") }) {
      $0.requestHeadTimeout = 1
      $0.connectionTimeout = 10
    }
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    #expect(try client.request("GET", "/first").status == 200)
    let start = Date()
    try client.send("GET /second HTTP/1.1\r\nX-Slow: ")
    var closed = false
    while !closed && seconds(since: start) < 6 {
      if (try? client.send("a")) == nil { break }
      closed = client.waitForClose(timeout: 0.2)
    }
    let elapsed = seconds(since: start)
    #expect(closed)
    #expect(elapsed > 0.9 && elapsed < 3, "cut off after \(elapsed) s")
  }

  @Test("A response given at once leaves a body unread and closes the connection; a bad status becomes 500")
  func answeredAtOnce() throws {
    let server = try startServer(
      TestService(plan: { head in
        head.path == "/odd" ? .respond(HTTPResponse(status: 42)) : .respond(textResponse("no thanks", status: 403))
      }) { _ in textResponse("unused") })
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    try client.send("PUT /file HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\n")
    let response = try client.readResponse(method: "PUT")
    #expect(response.status == 403)
    #expect(response.text == "no thanks")
    #expect(client.waitForClose(timeout: 2))
    let odd = try HTTPClient(port: server.port).request("GET", "/odd")
    #expect(odd.status == 500)
    #expect(odd.text == "error 500: the service answered with status 42")
  }

  @Test("Every answer is prepared by the service before it is sent, the layer's own errors too")
  func everyAnswerPrepared() throws {
    let server = try startServer(
      TestService(
        plan: { head in
          switch head.path {
          case "/planned": return .respond(textResponse("at once"))
          case "/odd": return .respond(HTTPResponse(status: 42))
          case "/worker": return .read(BodyLimit(maximumBytes: 10), onWorker: true)
          default: return .read(BodyLimit(maximumBytes: 10), onWorker: false)
          }
        },
        prepare: { response, head in
          response.headers.set("X-Prepared", head.map { "\($0.method) \($0.path)" } ?? "no head")
        }
      ) { request in textResponse("answered") })
    defer { server.stop(grace: .seconds(1)) }
    // A head alone: the answer comes before any body.
    func headOnly(_ head: String) throws -> Response {
      let client = try HTTPClient(port: server.port)
      try client.send(head)
      return try client.readResponse(method: "POST")
    }
    let answers: [(String, Response)] = [
      ("a response", try HTTPClient(port: server.port).request("GET", "/answered")),
      ("a worker's response", try HTTPClient(port: server.port).request("GET", "/worker")),
      ("a plan's answer", try HTTPClient(port: server.port).request("GET", "/planned")),
      ("the 500 for a bad status", try HTTPClient(port: server.port).request("GET", "/odd")),
      ("a 413 from Content-Length", try headOnly("POST /big HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n")),
      (
        "a 400 for ambiguous framing",
        try headOnly("POST /framed HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n")
      ),
    ]
    let statuses = answers.map(\.1.status)
    #expect(statuses == [200, 200, 200, 500, 413, 400])
    let prepared = answers.map { $0.1.headers["X-Prepared"] }
    #expect(
      prepared == ["GET /answered", "GET /worker", "GET /planned", "GET /odd", "POST /big", "POST /framed"],
      "\(answers.map(\.0))")
  }

  @Test("A silent client is cut off after connectionTimeout")
  func silentClient() throws {
    let server = try startServer(TestService { _ in textResponse("ok") }) {
      $0.connectionTimeout = 1
      $0.requestHeadTimeout = 30
    }
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    let start = Date()
    #expect(client.waitForClose(timeout: 5))
    let elapsed = seconds(since: start)
    #expect(elapsed > 0.8 && elapsed < 4, "cut off after \(elapsed) s")
  }

  @Test("A thousand idle kept-alive connections do not keep a new client from being served")
  func idleConnections() throws {
    var limit = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    #expect(limit.rlim_cur >= 2200, "the hard limit of open files is too low for this test")

    let server = try startServer(TestService { _ in textResponse("ok") })
    defer { server.stop(grace: .seconds(1)) }
    var idle: [HTTPClient] = []
    for index in 0..<1000 {
      // Eight source addresses, 125 connections each: under the limit of 128 per address.
      let client = try HTTPClient(port: server.port, source: "127.0.0.\(2 + index % 8)")
      #expect(try client.request("GET", "/idle").status == 200)
      idle.append(client)
    }
    let start = Date()
    let fresh = try HTTPClient(port: server.port)
    let response = try fresh.request("GET", "/new")
    #expect(response.status == 200)
    #expect(seconds(since: start) < 1)
    #expect(try idle[0].request("GET", "/again").status == 200)
    #expect(try idle[999].request("GET", "/again").status == 200)
  }

  @Test("The connection past the per-address limit is refused; other addresses are served")
  func perAddressLimit() throws {
    let server = try startServer(TestService { _ in textResponse("ok") }) { $0.maximumConnectionsPerAddress = 4 }
    defer { server.stop(grace: .seconds(1)) }
    var open: [HTTPClient] = []
    for _ in 0..<4 {
      let client = try HTTPClient(port: server.port, source: "127.0.0.3")
      #expect(try client.request("GET", "/").status == 200)
      open.append(client)
    }
    let fifth = try HTTPClient(port: server.port, source: "127.0.0.3")
    #expect(throws: ClientError.self) { try fifth.request("GET", "/") }
    #expect(try HTTPClient(port: server.port, source: "127.0.0.4").request("GET", "/").status == 200)
    #expect(try open[3].request("GET", "/").status == 200)
  }

  @Test("A request on a worker does not hold up one answered on the connection's thread")
  func workersDoNotBlock() throws {
    let server = try startServer(
      TestService(plan: { head in .read(.none, onWorker: head.path == "/slow") }) { request in
        if request.head.path == "/slow" {
          usleep(2_000_000)
          return textResponse("slow done")
        }
        return textResponse("fast")
      }
    ) { $0.threads = 1 }
    defer { server.stop(grace: .seconds(1)) }
    let start = Date()
    let slow = try HTTPClient(port: server.port)
    try slow.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
    usleep(100_000)
    let fastStart = Date()
    #expect(try HTTPClient(port: server.port).request("GET", "/fast").text == "fast")
    // Well before the worker's two seconds are up.
    #expect(seconds(since: fastStart) < 1.5)
    // The fast one is over once libmicrohttpd has seen its last byte go.
    while server.requestsInFlight > 1 && seconds(since: fastStart) < 1 { usleep(5_000) }
    #expect(server.requestsInFlight == 1)
    #expect(try slow.readResponse().text == "slow done")
    #expect(seconds(since: start) > 1.9)
    // The resumed connection is kept alive.
    #expect(try slow.request("GET", "/fast").text == "fast")
  }

  @Test("stop(grace:) lets a slow request finish whole and refuses new connections")
  func gracefulStop() throws {
    let big = [UInt8]((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 31) })
    let server = try startServer(
      TestService(plan: { _ in .read(.none, onWorker: true) }) { _ in
        usleep(1_000_000)
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: big)
      })
    let port = server.port
    let client = try HTTPClient(port: port)
    try client.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
    let start = Date()
    while server.requestsInFlight == 0 && seconds(since: start) < 2 { usleep(5_000) }
    #expect(server.requestsInFlight == 1)

    let unfinished = Shared<Int?>(nil)
    // A thread of its own: the tests keep the shared queues' threads busy.
    Thread.detachNewThread { unfinished.set(server.stop(grace: .seconds(5))) }
    usleep(200_000)
    #expect(throws: ClientError.self) { try HTTPClient(port: port) }

    let response = try client.readResponse()
    #expect(response.status == 200)
    #expect(response.body == big)
    #expect(response.headers["Connection"]?.lowercased() == "close")
    server.wait()
    // The stopping thread has its answer a moment after the waiters are let go.
    let stopped = Date()
    while unfinished.get() == nil && seconds(since: stopped) < 2 { usleep(5_000) }
    #expect(unfinished.get() == 0)
    #expect(server.stop(grace: .zero) == 0)
  }

  @Test("stop(grace:) counts the requests that did not finish in time")
  func graceRunsOut() throws {
    let server = try startServer(
      TestService(plan: { _ in .read(.none, onWorker: true) }) { _ in
        usleep(3_000_000)
        return textResponse("too late")
      })
    let client = try HTTPClient(port: server.port)
    try client.send("GET /stuck HTTP/1.1\r\nHost: t\r\n\r\n")
    let start = Date()
    while server.requestsInFlight == 0 && seconds(since: start) < 2 { usleep(5_000) }
    let stopStart = Date()
    #expect(server.stop(grace: .milliseconds(300)) == 1)
    #expect(seconds(since: stopStart) < 1.5)
    if let response = try? client.readResponse() {
      #expect(response.status == 503)
    }
    #expect(client.waitForClose(timeout: 2))
  }

  @Test("Files: GET, a range, 304 and HEAD on one kept-alive connection, with exact bytes")
  func files() throws {
    let folder = TemporaryFolder()
    let path = folder.file("thumbnail.jpg")
    var generator = SeededGenerator(seed: 7)
    let bytes = (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let server = try startServer(
      TestService(plan: { head in
        guard let file = OpenFile.open(path) else { return .respond(textResponse("gone", status: 404)) }
        return .respond(FileResponder.respond(to: head, file: file, contentType: "image/jpeg", etag: "abc"))
      }) { _ in textResponse("unused") })
    defer { server.stop(grace: .seconds(1)) }
    let client = try HTTPClient(port: server.port)
    let whole = try client.request("GET", "/thumbnail.jpg")
    #expect(whole.status == 200)
    #expect(whole.body == bytes)
    #expect(whole.headers["Content-Type"] == "image/jpeg")
    #expect(whole.headers["ETag"] == "\"abc\"")
    let part = try client.request("GET", "/thumbnail.jpg", headers: [("Range", "bytes=100-199")])
    #expect(part.status == 206)
    #expect(part.headers["Content-Range"] == "bytes 100-199/20000")
    #expect(part.body == Array(bytes[100..<200]))
    let cached = try client.request("GET", "/thumbnail.jpg", headers: [("If-None-Match", "\"abc\"")])
    #expect(cached.status == 304)
    #expect(cached.headers["Content-Length"] == "20000")
    let head = try client.request("HEAD", "/thumbnail.jpg")
    #expect(head.headers["Content-Length"] == "20000")
    #expect(head.body.isEmpty)
    #expect(
      try client.request("GET", "/thumbnail.jpg", headers: [("Range", "bytes=-3")]).body == Array(bytes.suffix(3)))
  }

  @Test("The log: one text line per request, fields in place, a hostile target escaped")
  func textLog() throws {
    var pipe: [Int32] = [0, 0]
    #expect(Glibc.pipe(&pipe) == 0)
    defer { close(pipe[0]) }
    let server = try startServer(
      TestService(plan: { _ in .read(BodyLimit(maximumBytes: 1000), onWorker: false) }) { _ in textResponse("hello") }
    ) {
      $0.log = .text
      $0.logSink = pipe[1]
    }
    defer {
      server.stop(grace: .seconds(1))
      close(pipe[1])
    }
    let client = try HTTPClient(port: server.port)
    try client.send("GET /a b/\u{1B}[31m\"q\\?x=1 HTTP/1.1\r\nHost: t\r\n\r\n")
    #expect(try client.readResponse().text == "hello")
    let fields = try readLogLine(pipe[0]).split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    #expect(fields.count == 7)
    #expect(fields[0].wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
    #expect(Array(fields.dropFirst()) == ["127.0.0.1", "GET", "/a%20b/%1B[31m\"q\\?x=1", "200", "5", fields[6]])
    #expect(fields[6].wholeMatch(of: /\d+\.(\d|\d{3})ms/) != nil)

    // A request cut off before its body is in: logged, marked aborted.
    let quitter = try HTTPClient(port: server.port)
    try quitter.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nabc")
    usleep(100_000)
    shutdown(quitter.socket, Int32(SHUT_RDWR))
    let aborted = try readLogLine(pipe[0]).split(separator: " ").map(String.init)
    #expect(Array(aborted[1...5]) == ["127.0.0.1", "POST", "/upload", "0", "0"])
    #expect(aborted.last == "aborted")
  }

  @Test("The log as JSON lines")
  func jsonLog() throws {
    var pipe: [Int32] = [0, 0]
    #expect(Glibc.pipe(&pipe) == 0)
    defer { close(pipe[0]) }
    let server = try startServer(TestService { _ in textResponse("hello") }) {
      $0.log = .json
      $0.logSink = pipe[1]
    }
    defer {
      server.stop(grace: .seconds(1))
      close(pipe[1])
    }
    let client = try HTTPClient(port: server.port)
    try client.send("HEAD /x\u{7F}\u{1}y?a=\"1\" HTTP/1.1\r\nHost: t\r\n\r\n")
    #expect(try client.readResponse(method: "HEAD").status == 200)
    let line = try readLogLine(pipe[0])
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(Set(object.keys) == ["time", "remote", "method", "target", "status", "bytes", "ms"])
    #expect(object["remote"] as? String == "127.0.0.1")
    #expect(object["method"] as? String == "HEAD")
    #expect(object["target"] as? String == "/x%7F%01y?a=\"1\"")
    #expect(object["status"] as? Int == 200)
    #expect(object["bytes"] as? Int == 0)
    #expect(object["ms"] is Double || object["ms"] is Int)
  }

  @Test("An address in use, or not an address, is refused with what to do")
  func listenErrors() throws {
    let first = try startServer(TestService { _ in textResponse("ok") })
    defer { first.stop(grace: .seconds(1)) }
    let inUse = #expect(throws: HTTPServerError.self) {
      _ = try startServer(TestService { _ in textResponse("ok") }) { $0.port = first.port }
    }
    #expect(
      inUse?.description == "cannot listen on 127.0.0.1:\(first.port): address already in use; give another --port")
    let notAnAddress = #expect(throws: HTTPServerError.self) {
      _ = try startServer(TestService { _ in textResponse("ok") }) {
        $0.address = "localhost"
        $0.port = 8080
      }
    }
    #expect(
      notAnAddress?.description
        == "cannot listen on localhost:8080: \"localhost\" is not an IPv4 or IPv6 address; give one such as 127.0.0.1 or ::1"
    )
  }

  @Test("IPv6: the server listens on ::1 and sees the client as ::1")
  func ipv6() throws {
    let server = try startServer(TestService { request in textResponse(request.head.remoteAddress) }) {
      $0.address = "::1"
    }
    defer { server.stop(grace: .seconds(1)) }
    #expect(try HTTPClient(port: server.port, host: "::1").request("GET", "/").text == "::1")
  }
}

/// One line from the log pipe, without its newline; waits up to two seconds.
func readLogLine(_ descriptor: Int32) throws -> String {
  var line: [UInt8] = []
  let start = Date()
  while seconds(since: start) < 2 {
    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    guard poll(&poller, 1, 100) > 0 else { continue }
    var byte: UInt8 = 0
    guard read(descriptor, &byte, 1) == 1 else { break }
    if byte == 0x0A { return String(decoding: line, as: UTF8.self) }
    line.append(byte)
  }
  throw ClientError(description: "no log line within two seconds (got \(String(decoding: line, as: UTF8.self)))")
}
