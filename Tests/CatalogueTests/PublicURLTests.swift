@testable import Catalogue
import Testing

/// The site's address, as a user gives it and as a trusted proxy's headers say it.
@Suite("Public URL")
struct PublicURLTests {
  @Test(
    arguments: [
      ("https://reviews.example", "https://reviews.example"),
      ("https://Reviews.Example/", "https://reviews.example"),
      ("HTTP://reviews.example:80", "http://reviews.example"),
      ("https://reviews.example:443", "https://reviews.example"),
      ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
      ("https://[::1]:8443/", "https://[::1]:8443"),
      ("  https://a-b.c.example  ", "https://a-b.c.example"),
    ])
  func addressesAreReadAsTheSiteRoot(text: String, expected: String) throws {
    #expect(try PublicURL(parsing: text).description == expected)
    #expect(try PublicURL(parsing: text).absolute("/feed.atom") == expected + "/feed.atom")
  }

  @Test(
    arguments: [
      ("reviews.example", "has no scheme"),
      ("ftp://reviews.example", "must start with https:// or http://"),
      ("https://reviews.example/blog", "no path"),
      ("https://reviews.example/?a=1", "no query or fragment"),
      ("https://user:pw@reviews.example", "no user name or password"),
      ("https://", "no valid host"),
      ("https://exa mple.com", "no valid host"),
      ("https://example.com:0", "no valid host"),
      ("https://example.com:99999", "no valid host"),
      ("https://-bad.example", "no valid host"),
      ("https://ré.example", "no valid host"),
      ("https://[::1", "no valid host"),
    ])
  func whatIsNotASiteRootIsRefusedSayingWhy(text: String, why: String) {
    #expect {
      _ = try PublicURL(parsing: text)
    } throws: { error in
      let message = (error as? CatalogueError)?.description ?? ""
      return message.contains(why) && message.contains("such as https://reviews.example")
    }
  }

  /// A request's `Host` is taken only when it is a host and a port: nothing else a client
  /// sends can reach a page through it.
  @Test func aHostHeaderIsTakenOnlyWhenWellFormed() {
    #expect(PublicURL(scheme: "https", host: "Reviews.Example:443")?.description == "https://reviews.example")
    #expect(PublicURL(scheme: "http", host: "localhost:8080")?.description == "http://localhost:8080")
    for host in ["evil.example/path", "a\"b", "<script>", "a b", "", "x.example:80:80", "x.example@y", "[::1]x"] {
      #expect(PublicURL(scheme: "https", host: host) == nil, "\(host)")
    }
    #expect(PublicURL(scheme: "javascript", host: "x.example") == nil)
  }

  /// The setting is kept in the library, read back by another instance, and forgotten again.
  @Test func theSettingIsKeptInTheLibrary() throws {
    let test = try TestLibrary()
    let library = test.library
    #expect(library.publicURL == nil)
    try library.setPublicURL(try PublicURL(parsing: "https://reviews.example/"))
    #expect(try Library(opening: test.path).publicURL?.description == "https://reviews.example")
    try library.setPublicURL(nil)
    #expect(try Library(opening: test.path).publicURL == nil)
    // A value no build writes is refused by name, as every setting's is.
    try library.database.execute("INSERT INTO settings (key, value) VALUES ('public_url', 'gopher://x')")
    #expect(throws: CatalogueError.badSetting(key: "public_url", value: "gopher://x")) {
      try Library(opening: test.path)
    }
  }
}
