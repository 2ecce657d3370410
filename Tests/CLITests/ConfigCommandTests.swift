import Foundation
import Testing
import TestSupport

/// `catalogue config`: the settings a user changes by name (the public URL), each value
/// checked before the library is touched, with the documented exit statuses.
@Suite struct ConfigCommandTests {
  @Test func thePublicURLIsSetShownAndUnset() throws {
    let cli = CLI()
    try #require(try cli("init").status == 0)
    let unset = try cli("config", "public-url")
    #expect(unset.status == 1 && unset.output.isEmpty && unset.error.isEmpty)
    #expect(try cli("config").output == "public-url = (not set)\n")

    let set = try cli("config", "public-url", "HTTPS://Reviews.Example/")
    #expect(set.status == 0)
    #expect(set.output == "public-url is https://reviews.example\n")
    #expect(try cli("config", "public-url").output == "https://reviews.example\n")
    #expect(try cli("config").output == "public-url = https://reviews.example\n")
    let json = try cli("--json", "config")
    #expect(json.status == 0)
    #expect(
      try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: String] == [
        "public-url": "https://reviews.example"
      ])

    let removed = try cli("config", "public-url", "--unset")
    #expect(removed.status == 0 && removed.output == "public-url is no longer set\n")
    #expect(try cli("config", "public-url").status == 1)
  }

  /// A value that is not a site's root, a setting that does not exist, or a call that makes no
  /// sense: exit status 2, one line that says why, and the library as it was.
  @Test func aBadValueChangesNothing() throws {
    let cli = CLI()
    try #require(try cli("init").status == 0)
    try #require(try cli("config", "public-url", "https://reviews.example").status == 0)
    let before = try fileSnapshot(cli.library)
    for (arguments, message) in [
      (["config", "public-url", "https://reviews.example/blog"], "must be the site's root, with no path"),
      (["config", "public-url", "reviews.example"], "has no scheme"),
      (["config", "public-url", "javascript:alert(1)"], "has no scheme"),
      (["config", "colour", "blue"], "there is no setting colour; the settings are public-url"),
      (["config", "public-url", "https://a.example", "--unset"], "--unset takes one KEY and no VALUE"),
      (["serve", "--public-url", "ftp://x.example"], "must start with https:// or http://"),
    ] {
      let result = try cli(arguments)
      #expect(result.status == 2, "\(arguments)")
      #expect(result.error.hasPrefix("error: ") && result.error.contains(message), "\(result.error)")
      #expect(result.error.split(separator: "\n").count == 1, "\(result.error)")
    }
    #expect(try fileSnapshot(cli.library) == before)
    #expect(try cli("config", "public-url").output == "https://reviews.example\n")
  }
}
