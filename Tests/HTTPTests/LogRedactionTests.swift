import HTTPTestSupport
import Foundation
import Glibc
import HTTP
import Testing

/// Credentials a client put in a query string stay out of the request log; the rest of the
/// target stays in it.
@Suite("The log keeps no credentials")
struct LogRedactionTests {
  static let secret = "cat_secretQ7mN2xP4vL9kR1sT6wY3zB8cD5fG0hJ2aE4iU7o"

  /// Targets sent, and what the log must say of each.
  static let targets: [(sent: String, logged: String)] = [
    ("/?access_token=\(secret)", "/?access_token=REDACTED"),
    ("/api/reviews?q=x&token=hunter2&page=2", "/api/reviews?q=x&token=REDACTED&page=2"),
    (
      "/a?API_KEY=k1&Password=p2&session=s3&key=k4&view=list",
      "/a?API_KEY=REDACTED&Password=REDACTED&session=REDACTED&key=REDACTED&view=list"
    ),
    // A name written with an escape, a token under any name, alone, or inside a URL given as a value.
    ("/a?pass%77ord=p5&t=\(secret)&\(secret)", "/a?pass%77ord=REDACTED&t=REDACTED&REDACTED"),
    ("/sign-in?next=%2Fa%3Ftoken%3D\(secret)", "/sign-in?next=REDACTED"),
    ("/a?t=cat%5F\(secret.dropFirst(4))", "/a?t=REDACTED"),
    // Nothing secret: left as sent.
    ("/search?q=concat_strings&token=&tokens=2", "/search?q=concat_strings&token=&tokens=2"),
  ]

  @Test("Text lines say REDACTED in place of credentials and keep the rest")
  func text() throws {
    let lines = try logLines(format: .text)
    for (line, target) in zip(lines, Self.targets) {
      let fields = line.split(separator: " ").map(String.init)
      #expect(fields.count == 7, "\(line)")
      #expect(fields.dropFirst(2).first == "GET")
      #expect(fields.dropFirst(3).first == target.logged)
      #expect(!line.contains("secretQ7mN2") && !line.contains("hunter2") && !line.contains("p5"), "\(line)")
    }
  }

  @Test("JSON lines say REDACTED in place of credentials and keep the rest")
  func json() throws {
    let lines = try logLines(format: .json)
    for (line, target) in zip(lines, Self.targets) {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      #expect(object["target"] as? String == target.logged)
      #expect(!line.contains("secretQ7mN2") && !line.contains("hunter2") && !line.contains("p5"), "\(line)")
    }
  }

  /// Sends every target in turn and returns the log's lines.
  private func logLines(format: HTTPServerConfiguration.LogFormat) throws -> [String] {
    var pipe: [Int32] = [0, 0]
    #expect(Glibc.pipe(&pipe) == 0)
    defer { close(pipe[0]) }
    let server = try startServer(TestService { _ in textResponse("ok") }) {
      $0.log = format
      $0.logSink = pipe[1]
      $0.logSecretPrefixes = ["cat_"]
    }
    defer {
      server.stop(grace: .seconds(1))
      close(pipe[1])
    }
    let client = try HTTPClient(port: server.port)
    var lines: [String] = []
    for target in Self.targets {
      #expect(try client.request("GET", target.sent).status == 200)
      lines.append(try readLogLine(pipe[0]))
    }
    #expect(lines.count == Self.targets.count)
    return lines
  }
}
