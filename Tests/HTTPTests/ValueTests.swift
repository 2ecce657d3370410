import HTTP
import Testing

@Suite("Request values")
struct ValueTests {
  @Test("Header names are compared without case, repeated fields keep their order")
  func headers() {
    var headers = HTTPHeaders([("Content-Type", "text/plain"), ("Set-Cookie", "a=1"), ("set-cookie", "b=2")])
    #expect(headers["content-type"] == "text/plain")
    #expect(headers["SET-COOKIE"] == "a=1")
    #expect(headers.values("Set-Cookie") == ["a=1", "b=2"])
    #expect(headers["Missing"] == nil)

    headers.add("X-Other", "1")
    headers.set("SET-COOKIE", "c=3")
    #expect(headers.values("set-cookie") == ["c=3"])
    #expect(headers.map(\.name) == ["Content-Type", "SET-COOKIE", "X-Other"])

    headers.set("Cache-Control", "no-store")
    #expect(headers.map(\.name).last == "Cache-Control")
    headers.remove("content-TYPE")
    #expect(headers["Content-Type"] == nil)
    #expect(headers.count == 3)
  }

  @Test("Query parameters: '+' is a space, %XX decoded, bad escapes kept as written, order kept")
  func query() {
    let query = QueryParameters(parsing: "a=1&b=hello+world&c=%41%42%e2%82%ac&d&e=%zz%4&f=%FF&&a=2&g=1=2&=x")
    #expect(query.pairs.map(\.name) == ["a", "b", "c", "d", "e", "f", "a", "g", ""])
    #expect(query.pairs.map(\.value) == ["1", "hello world", "AB€", "", "%zz%4", "%FF", "2", "1=2", "x"])
    #expect(query["a"] == "1")
    #expect(query.all("a") == ["1", "2"])
    #expect(query["missing"] == nil)
    #expect(QueryParameters(parsing: "").pairs.isEmpty)
  }

  @Test("The target splits into path and query")
  func target() {
    let head = HTTPRequestHead(method: "GET", target: "/a%20b/c?x=1&y=%2F")
    #expect(head.path == "/a%20b/c")
    #expect(head.query["y"] == "/")
    #expect(head.pathSegments == ["a b", "c"])
    #expect(HTTPRequestHead(method: "GET", target: "/plain").query.pairs.isEmpty)
  }

  @Test(
    "Path segments are decoded one by one; unusable paths give nil",
    arguments: [
      ("/", [String]?.some([])),
      ("/a%2Fb/c", ["a/b", "c"]),
      ("/reviews/12ab", ["reviews", "12ab"]),
      ("/a//b/", ["a", "", "b", ""]),
      ("/../etc/passwd", ["..", "etc", "passwd"]),
      ("/%2E%2E/x", ["..", "x"]),
      ("/%E2%82%AC", ["€"]),
      ("/caf%C3%A9", ["café"]),
      ("relative/path", nil),
      ("*", nil),
      ("http://example.com/x", nil),
      ("/a/%00", nil),
      ("/a%2", nil),
      ("/%zz", nil),
      ("/%C3%28", nil),
      ("/%FF", nil),
      ("/a%1Bb", nil),
      ("/a%7F", nil),
      ("/a%C2%85", nil),
    ])
  func pathSegments(path: String, expected: [String]?) {
    #expect(HTTPRequestHead(method: "GET", target: path).pathSegments == expected)
  }

  @Test("Cookies from every Cookie header, the first of a name winning, quotes taken off")
  func cookies() {
    let head = HTTPRequestHead(
      method: "GET", target: "/",
      headers: HTTPHeaders([
        ("Cookie", "session=abc; theme=dark"), ("cookie", "session=other; quoted=\"x y\"; broken; empty="),
      ]))
    #expect(head.cookies == ["session": "abc", "theme": "dark", "quoted": "x y", "empty": ""])
  }
}
