import Foundation
import Glibc
public import HTTP

/// What went wrong talking to the server under test.
///
/// What the HTTP layer's tests and the server's share: a client that talks to a real server.
public struct ClientError: Error, CustomStringConvertible {
  public var description: String

  public init(description: String) { self.description = description }
}

/// A response as the client read it off the wire.
public struct Response: CustomStringConvertible {
  public var status: Int
  public var headers: HTTPHeaders
  public var body: [UInt8]

  public var text: String { String(decoding: body, as: UTF8.self) }

  /// The status and the start of the body, for messages.
  public var description: String { "\(status) \(text.prefix(300))" }

  /// The body as a JSON object (the API's answers).
  public func json() throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
      throw ClientError(description: "not a JSON object: \(text.prefix(200))")
    }
    return object
  }

  /// The API's `{"error": …}` message, or nil.
  public var errorMessage: String? { (try? json())?["error"] as? String }

  /// The whole `Set-Cookie` value that sets `name`, or nil.
  public func setCookie(_ name: String) -> String? {
    headers.values("Set-Cookie").first { $0.hasPrefix(name + "=") }
  }

  /// The value `Set-Cookie` gives the cookie `name` (empty when it deletes it), or nil.
  public func cookie(_ name: String) -> String? {
    guard let line = setCookie(name) else { return nil }
    let pair = line.split(separator: ";", maxSplits: 1)[0]
    return String(pair.dropFirst(name.count + 1))
  }
}

/// A small HTTP/1.1 client over a POSIX socket. It sends exactly the bytes it is given (a test
/// needs malformed, slow and chunked requests too), keeps its connection alive between
/// requests, and reads responses by their framing.
public final class HTTPClient {
  public let socket: Int32
  private var received: [UInt8] = []

  /// Connects to 127.0.0.1 (or `host`, IPv4 or IPv6) at `port`, from the loopback address
  /// `source` when given (127.0.0.2… are all this machine's own). Reads and writes give up after
  /// `timeout` seconds.
  public init(port: Int, host: String = "127.0.0.1", source: String? = nil, timeout: Double = 20) throws {
    let family = host.contains(":") ? AF_INET6 : AF_INET
    socket = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard socket >= 0 else { throw ClientError(description: "socket: \(String(cString: strerror(errno)))") }
    var seconds = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
    if let source {
      var local = Self.address(source, port: 0)
      let bound = withUnsafeBytes(of: &local) { raw in
        bind(socket, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(MemoryLayout<sockaddr_in>.size))
      }
      // No close here: the socket is set, so a throw runs deinit, which closes it. A second
      // close could close a descriptor another test has opened since (tests run in parallel).
      guard bound == 0 else {
        let code = errno
        throw ClientError(description: "bind \(source): \(String(cString: strerror(code)))")
      }
    }
    let connected: Int32
    if family == AF_INET6 {
      var remote = sockaddr_in6()
      remote.sin6_family = sa_family_t(AF_INET6)
      remote.sin6_port = in_port_t(UInt16(port).bigEndian)
      inet_pton(AF_INET6, host, &remote.sin6_addr)
      connected = withUnsafeBytes(of: &remote) { raw in
        connect(
          socket, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(MemoryLayout<sockaddr_in6>.size))
      }
    } else {
      var remote = Self.address(host, port: port)
      connected = withUnsafeBytes(of: &remote) { raw in
        connect(
          socket, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      let code = errno
      throw ClientError(description: "connect to port \(port): \(String(cString: strerror(code)))")
    }
  }

  deinit { close(socket) }

  private static func address(_ text: String, port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    inet_pton(AF_INET, text, &address.sin_addr)
    return address
  }

  // MARK: Sending

  public func send(_ text: String) throws { try send(Array(text.utf8)) }

  public func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      guard sent > 0 else { throw ClientError(description: "send: \(String(cString: strerror(errno)))") }
      offset += sent
    }
  }

  /// The head of a request: the request line, `Host` (unless `headers` has one), then
  /// `headers` as given.
  public static func head(_ method: String, _ target: String, headers: [(String, String)]) -> String {
    let hasHost = headers.contains { $0.0.lowercased() == "host" }
    var head = "\(method) \(target) HTTP/1.1\r\n" + (hasHost ? "" : "Host: 127.0.0.1\r\n")
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    return head
  }

  /// Sends a request (with `Content-Length` when there is a body) and reads its response.
  public func request(
    _ method: String = "GET", _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
  ) throws -> Response {
    var head = Self.head(method, target, headers: headers)
    if let body { head += "Content-Length: \(body.count)\r\n" }
    try send(Array((head + "\r\n").utf8) + (body ?? []))
    return try readResponse(method: method)
  }

  /// Sends a request whose body goes in `pieces`, one `send` each, and reads its response: with
  /// `Content-Length` the total, or when `chunked` as `Transfer-Encoding: chunked` (a chunk a
  /// piece, no length said beforehand). The server may answer before the last piece: a refused
  /// upload stops being sent, and its answer is read.
  public func request(
    _ method: String, _ target: String, headers: [(String, String)] = [], pieces: [[UInt8]], chunked: Bool
  ) throws -> Response {
    var head = Self.head(method, target, headers: headers)
    head += chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: \(pieces.reduce(0) { $0 + $1.count })\r\n"
    try send(head + "\r\n")
    for piece in pieces where !piece.isEmpty {
      if hasDataWaiting() { return try readResponse(method: method) }
      do {
        try send(chunked ? Array(String(piece.count, radix: 16).utf8) + [13, 10] + piece + [13, 10] : piece)
      } catch {
        // The server stopped reading (it refused the body): its answer is waiting.
        return try readResponse(method: method)
      }
    }
    if chunked && !hasDataWaiting() { try? send("0\r\n\r\n") }
    return try readResponse(method: method)
  }

  /// A JSON request, with the body encoded from `object`.
  public func json(
    _ method: String, _ target: String, _ object: [String: Any], headers: [(String, String)] = []
  ) throws -> Response {
    let body = try JSONSerialization.data(withJSONObject: object)
    return try request(
      method, target, headers: [("Content-Type", "application/json")] + headers, body: [UInt8](body))
  }

  // MARK: Receiving

  /// Reads one response; its body by Content-Length, chunks, or up to the end of the stream.
  /// An interim `100 Continue` is skipped unless `interim`.
  public func readResponse(method: String = "GET", interim: Bool = false) throws -> Response {
    var headEnd = find([13, 10, 13, 10])
    while headEnd == nil {
      try fill()
      headEnd = find([13, 10, 13, 10])
    }
    let head = String(decoding: received[..<headEnd!], as: UTF8.self)
    received.removeFirst(headEnd! + 4)
    var lines = head.components(separatedBy: "\r\n")
    let statusLine = lines.removeFirst().split(separator: " ")
    guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
      throw ClientError(description: "bad status line in \(head)")
    }
    var headers = HTTPHeaders()
    for line in lines {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    if status == 100 && !interim { return try readResponse(method: method) }
    var body: [UInt8] = []
    if method == "HEAD" || status == 204 || status == 304 || status < 200 {
      // No body.
    } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
      while received.count < length { try fill() }
      body = Array(received[..<length])
      received.removeFirst(length)
    } else if headers["Transfer-Encoding"]?.lowercased() == "chunked" {
      body = try readChunks()
    } else {
      while (try? fill()) != nil {}
      body = received
      received = []
    }
    return Response(status: status, headers: headers, body: body)
  }

  private func readChunks() throws -> [UInt8] {
    var body: [UInt8] = []
    while true {
      var lineEnd = find([13, 10])
      while lineEnd == nil {
        try fill()
        lineEnd = find([13, 10])
      }
      let sizeText = String(decoding: received[..<lineEnd!], as: UTF8.self)
      received.removeFirst(lineEnd! + 2)
      guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else {
        throw ClientError(description: "bad chunk size \(sizeText)")
      }
      if size == 0 {
        // Trailer fields, then the empty line.
        var end = find([13, 10])
        while end == nil {
          try fill()
          end = find([13, 10])
        }
        while end! > 0 {
          received.removeFirst(end! + 2)
          end = find([13, 10])
          while end == nil {
            try fill()
            end = find([13, 10])
          }
        }
        received.removeFirst(2)
        return body
      }
      while received.count < size + 2 { try fill() }
      body += received[..<size]
      received.removeFirst(size + 2)
    }
  }

  /// Whether the server has sent something (or closed) that is not read yet.
  public func hasDataWaiting() -> Bool {
    if !received.isEmpty { return true }
    var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
    return poll(&poller, 1, 0) > 0
  }

  /// Whether the server closes the connection (end of stream or reset) within `timeout`
  /// seconds; bytes that arrive meanwhile are kept.
  public func waitForClose(timeout: Double) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
      let milliseconds = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
      guard poll(&poller, 1, milliseconds) > 0 else { continue }
      var chunk = [UInt8](repeating: 0, count: 4096)
      let count = recv(socket, &chunk, chunk.count, Int32(MSG_DONTWAIT))
      if count == 0 { return true }
      if count < 0 {
        if errno == EAGAIN || errno == EINTR { continue }
        return true
      }
      received += chunk[..<count]
    }
    return false
  }

  /// What arrived while waiting for a close, as text.
  public var unread: String { String(decoding: received, as: UTF8.self) }

  private func fill() throws {
    var chunk = [UInt8](repeating: 0, count: 65536)
    let count = recv(socket, &chunk, chunk.count, 0)
    if count == 0 { throw ClientError(description: "the server closed the connection") }
    if count < 0 { throw ClientError(description: "recv: \(String(cString: strerror(errno)))") }
    received += chunk[..<count]
  }

  private func find(_ pattern: [UInt8]) -> Int? {
    guard received.count >= pattern.count else { return nil }
    for start in 0...(received.count - pattern.count)
    where received[start..<(start + pattern.count)].elementsEqual(pattern) {
      return start
    }
    return nil
  }
}

/// A multipart/form-data body, as a browser's form sends it.
public struct Multipart {
  public struct Part {
    public var name: String
    public var filename: String?
    public var contentType: String?
    public var bytes: [UInt8]

    public init(name: String, filename: String? = nil, contentType: String? = nil, bytes: [UInt8]) {
      self.name = name
      self.filename = filename
      self.contentType = contentType
      self.bytes = bytes
    }
  }

  public let boundary = "----catalogue-test-\(UInt64.random(in: 0...UInt64.max))"
  public var parts: [Part] = []

  public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

  public init() {}

  /// A form with one file part `name` per file, after `fields`.
  public init(files: [(filename: String, bytes: [UInt8])], name: String = "file", fields: [(String, String)] = []) {
    for (field, value) in fields { add(field: field, value) }
    for file in files { add(file: name, filename: file.filename, file.bytes) }
  }

  public mutating func add(field name: String, _ value: String) {
    parts.append(Part(name: name, bytes: Array(value.utf8)))
  }

  public mutating func add(
    file name: String, filename: String, _ bytes: [UInt8], contentType: String = "application/octet-stream"
  ) {
    parts.append(Part(name: name, filename: filename, contentType: contentType, bytes: bytes))
  }

  /// The whole body, with its closing boundary.
  public var bytes: [UInt8] {
    var body: [UInt8] = []
    for part in parts {
      var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
      if let filename = part.filename { head += "; filename=\"\(filename)\"" }
      head += "\r\n"
      if let type = part.contentType { head += "Content-Type: \(type)\r\n" }
      body += Array((head + "\r\n").utf8) + part.bytes + [13, 10]
    }
    return body + Array("--\(boundary)--\r\n".utf8)
  }
}

extension HTTPClient {
  /// A multipart/form-data request (the form closed).
  public func upload(
    _ method: String = "POST", _ target: String, _ form: Multipart, headers: [(String, String)] = []
  ) throws -> Response {
    try request(method, target, headers: [("Content-Type", form.contentType)] + headers, body: form.bytes)
  }
}
