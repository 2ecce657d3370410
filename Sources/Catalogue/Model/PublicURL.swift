import Foundation

/// The address readers reach the site at, `https://reviews.example`: what every absolute URL
/// the server writes (feeds, share previews, canonical links, the sitemap) is built from. Only
/// a scheme (`http` or `https`), a host and a port: the server's pages link from `/`, so a
/// site served under a path of another would break every link.
public struct PublicURL: Sendable, Equatable, CustomStringConvertible {
  /// `http` or `https`.
  public let scheme: String
  /// The host, lowercased (a name, an IPv4 address or a bracketed IPv6 one), and `:port` when
  /// it is not the scheme's own.
  public let authority: String

  public var description: String { "\(scheme)://\(authority)" }

  /// `path` (which starts with `/`) on this site.
  public func absolute(_ path: String) -> String { description + path }

  /// Reads what a user gave (`https://reviews.example`, a trailing `/` allowed), or says why it
  /// cannot be one.
  public init(parsing text: String) throws(CatalogueError) {
    func refuse(_ why: String) -> CatalogueError {
      .invalidArgument(
        "the public URL “\(Shown.path(text))” \(why): give the site's address as readers reach it, "
          + "such as https://reviews.example")
    }
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    guard let schemeEnd = trimmed.range(of: "://") else { throw refuse("has no scheme") }
    let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
    guard scheme == "http" || scheme == "https" else { throw refuse("must start with https:// or http://") }
    var rest = trimmed[schemeEnd.upperBound...]
    if rest.hasSuffix("/") { rest = rest.dropLast() }
    guard !rest.contains(where: { "?#".contains($0) }) else { throw refuse("must have no query or fragment") }
    guard !rest.contains("/") else { throw refuse("must be the site's root, with no path (its pages link from /)") }
    guard !rest.contains("@") else { throw refuse("must carry no user name or password") }
    guard let url = PublicURL(scheme: scheme, host: String(rest)) else {
      throw refuse("has no valid host (a name, an IPv4 address or a bracketed IPv6 one) and port")
    }
    self = url
  }

  /// The address from a request's `Host` (or a proxy's `X-Forwarded-Host`) and the scheme it
  /// came over, when the host is a well-formed host and port; nil for anything else, so that no
  /// header can put arbitrary text into a page.
  public init?(scheme: String, host: String) {
    guard scheme == "http" || scheme == "https", !host.isEmpty, host.utf8.count <= 260 else { return nil }
    var name = Substring(host.lowercased())
    var port: Substring?
    if name.hasPrefix("[") {
      guard let close = name.firstIndex(of: "]") else { return nil }
      let address = name[name.index(after: name.startIndex)..<close]
      guard address.count >= 2, address.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
      let after = name[name.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { return nil }
        port = after.dropFirst()
      }
      name = name[...close]
    } else {
      if let colon = name.lastIndex(of: ":") {
        port = name[name.index(after: colon)...]
        name = name[..<colon]
      }
      let labels = name.split(separator: ".", omittingEmptySubsequences: false)
      guard !labels.isEmpty,
        labels.allSatisfy({ label in
          !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
            && label.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        })
      else { return nil }
    }
    if let port {
      guard let number = Int(port), port.allSatisfy(\.isASCII), (1...65535).contains(number) else { return nil }
      let implied = (scheme == "https" && number == 443) || (scheme == "http" && number == 80)
      self.authority = implied ? String(name) : "\(name):\(number)"
    } else {
      self.authority = String(name)
    }
    self.scheme = scheme
  }
}
