import Foundation
import Glibc
import HTTP

/// What went wrong talking to the server under test.
struct ClientError: Error, CustomStringConvertible {
  var description: String
}

/// A response as the test client read it off the wire.
struct ClientResponse {
  var status: Int
  var headers: HTTPHeaders
  var body: [UInt8]

  var text: String { String(decoding: body, as: UTF8.self) }
}

/// A small HTTP/1.1 client over a POSIX socket: it sends exactly the bytes it is given (a test
/// needs malformed and slow requests too) and reads responses by their framing.
final class TestClient {
  let socket: Int32
  private var received: [UInt8] = []

  /// Connects to 127.0.0.1 (or `host`) at `port`, from the loopback address `source` when given
  /// (127.0.0.2… are all this machine's own).
  init(port: Int, host: String = "127.0.0.1", source: String? = nil, timeout: Double = 5) throws {
    let family = host.contains(":") ? AF_INET6 : AF_INET
    socket = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard socket >= 0 else { throw ClientError(description: "socket: \(String(cString: strerror(errno)))") }
    var seconds = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
    if let source {
      var local = Self.address(source, port: 0)
      let result = withUnsafeBytes(of: &local) { raw in
        bind(socket, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(MemoryLayout<sockaddr_in>.size))
      }
      guard result == 0 else {
        close(socket)
        throw ClientError(description: "bind \(source): \(String(cString: strerror(errno)))")
      }
    }
    let result: Int32
    if family == AF_INET6 {
      var remote = sockaddr_in6()
      remote.sin6_family = sa_family_t(AF_INET6)
      remote.sin6_port = in_port_t(UInt16(port).bigEndian)
      inet_pton(AF_INET6, host, &remote.sin6_addr)
      result = withUnsafeBytes(of: &remote) { raw in
        connect(
          socket, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(MemoryLayout<sockaddr_in6>.size))
      }
    } else {
      var remote = Self.address(host, port: port)
      result = withUnsafeBytes(of: &remote) { raw in
        connect(
          socket, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else {
      let code = errno
      close(socket)
      throw ClientError(description: "connect: \(String(cString: strerror(code)))")
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

  func send(_ text: String) throws { try send(Array(text.utf8)) }

  func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      guard sent > 0 else { throw ClientError(description: "send: \(String(cString: strerror(errno)))") }
      offset += sent
    }
  }

  /// Sends a request with a body and the usual head.
  func request(
    _ method: String = "GET", _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
  ) throws -> ClientResponse {
    var head = "\(method) \(target) HTTP/1.1\r\nHost: test\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if let body { head += "Content-Length: \(body.count)\r\n" }
    try send(Array((head + "\r\n").utf8) + (body ?? []))
    return try readResponse(method: method)
  }

  /// Reads one response; its body by Content-Length, chunks, or up to the end of the stream.
  func readResponse(method: String = "GET") throws -> ClientResponse {
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
    var body: [UInt8] = []
    if method == "HEAD" || status == 204 || status == 304 || status < 200 {
      // No body.
    } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
      while received.count < length { try fill() }
      body = Array(received[..<length])
      received.removeFirst(length)
    } else if headers["Transfer-Encoding"]?.lowercased() == "chunked" {
      while true {
        var lineEnd = find([13, 10])
        while lineEnd == nil {
          try fill()
          lineEnd = find([13, 10])
        }
        let sizeText = String(decoding: received[..<lineEnd!], as: UTF8.self)
        received.removeFirst(lineEnd! + 2)
        guard let size = Int(sizeText.split(separator: ";")[0], radix: 16) else {
          throw ClientError(description: "bad chunk size \(sizeText)")
        }
        while received.count < size + 2 { try fill() }
        body += received[..<size]
        received.removeFirst(size + 2)
        if size == 0 { break }
      }
    } else {
      while (try? fill()) != nil {}
      body = received
      received = []
    }
    return ClientResponse(status: status, headers: headers, body: body)
  }

  /// Whether the server closes the connection (end of stream or reset) within `timeout`
  /// seconds; bytes that arrive meanwhile are kept.
  func waitForClose(timeout: Double) -> Bool {
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
