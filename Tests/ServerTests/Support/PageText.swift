import Foundation

/// What a reader sees in a page, read out of its HTML.
enum PageText {
  /// Every value of `attribute` (src, href) in `html` that starts with `prefix`, in order.
  static func attributes(_ attribute: String, startingWith prefix: String, in html: String) -> [String] {
    var found: [String] = []
    var rest = html[...]
    let opening = "\(attribute)=\"\(prefix)"
    while let start = rest.range(of: opening) {
      let valueStart = html.index(start.lowerBound, offsetBy: attribute.count + 2)
      guard let end = rest[valueStart...].firstIndex(of: "\"") else { break }
      found.append(String(rest[valueStart..<end]))
      rest = rest[end...]
    }
    return found
  }

  /// The titles the list view shows, in order: the text of each row's review link.
  static func listTitles(_ html: String) -> [String] {
    guard let table = html.range(of: "<tbody>"), let end = html.range(of: "</tbody>") else { return [] }
    let body = html[table.upperBound..<end.lowerBound]
    return body.split(separator: "\n").compactMap { row -> String? in
      // The second cell: <td><a href="/reviews/ID">TITLE</a>
      guard let cell = row.range(of: "</td><td><a href=\"/reviews/") else { return nil }
      let afterLink = row[cell.upperBound...]
      guard let open = afterLink.firstIndex(of: ">"), let close = afterLink.range(of: "</a>") else { return nil }
      return unescape(String(afterLink[afterLink.index(after: open)..<close.lowerBound]))
    }
  }

  /// The titles of the grid's cards, in order.
  static func cardTitles(_ html: String) -> [String] {
    html.split(separator: "\n").compactMap { line -> String? in
      guard line.hasPrefix("<h2><a href=\"/reviews/"), let open = line.firstIndex(of: ">"),
        let text = line[line.index(after: open)...].firstIndex(of: ">"),
        let close = line.range(of: "</a></h2>")
      else { return nil }
      return unescape(String(line[line.index(after: text)..<close.lowerBound]))
    }
  }

  /// The text of the first element with `class="NAME"`, tags left in.
  static func classText(_ name: String, in html: String) -> String? {
    guard let start = html.range(of: "class=\"\(name)\""),
      let open = html[start.upperBound...].firstIndex(of: ">")
    else { return nil }
    let rest = html[html.index(after: open)...]
    guard let close = rest.range(of: "</") else { return nil }
    return String(rest[..<close.lowerBound])
  }

  /// `text` as a page writes it: HTML's five escapes.
  static func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
      .replacingOccurrences(of: "'", with: "&#39;")
  }

  /// HTML's five escapes undone.
  static func unescape(_ text: String) -> String {
    text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
      .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
      .replacingOccurrences(of: "&amp;", with: "&")
  }
}
