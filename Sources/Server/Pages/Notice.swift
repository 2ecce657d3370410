import Foundation

/// What a page says once, after a change made from a form: carried from the POST to the page
/// its redirect leads to in a cookie, never in the address (a reload, a bookmark or a shared
/// link then says nothing), and deleted by the page that shows it. A reader can only ever set
/// it for their own browser, and every word of it is escaped where it is shown.
struct Notice: Codable, Sendable, Equatable {
  /// What was done: "Saved."
  var said: String
  /// Remarks under it (a picture's colour converted, say).
  var details: [String] = []
  /// What did not work, beside what did (pictures refused).
  var problems: [String] = []

  /// The most bytes the cookie's value may take: a browser keeps 4,096 of name and value.
  static let maximumCookieBytes = 3_000

  /// The cookie's value: the JSON in base64url. Lines are dropped from the end (with a last
  /// one that says how many) until it fits.
  var cookieValue: String {
    var notice = self
    while true {
      let value = Self.encode(notice)
      if value.utf8.count <= Self.maximumCookieBytes { return value }
      if !notice.details.isEmpty {
        notice.details = Self.shortened(notice.details)
      } else if !notice.problems.isEmpty {
        notice.problems = Self.shortened(notice.problems)
      } else {
        notice.said = String(notice.said.prefix(notice.said.count / 2))
      }
    }
  }

  init(said: String, details: [String] = [], problems: [String] = []) {
    self.said = said
    self.details = details
    self.problems = problems
  }

  /// The notice a cookie holds, or nil when it holds none this server wrote.
  init?(cookieValue: String) {
    var text = cookieValue.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    text += String(repeating: "=", count: (4 - text.count % 4) % 4)
    guard cookieValue.utf8.count <= Self.maximumCookieBytes, let data = Data(base64Encoded: text),
      let notice = try? JSONDecoder().decode(Notice.self, from: data)
    else { return nil }
    self = notice
  }

  private static func encode(_ notice: Notice) -> String {
    let data = (try? JSONEncoder().encode(notice)) ?? Data()
    return data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }

  /// `lines` with its last two given up for one that counts what is left out.
  private static func shortened(_ lines: [String]) -> [String] {
    var kept = lines
    var left = 0
    if let last = kept.last, last.hasPrefix("…and "), let count = Int(last.dropFirst(5).prefix { $0.isNumber }) {
      kept.removeLast()
      left = count
    }
    guard kept.popLast() != nil else { return [] }
    left += 1
    return kept + ["…and \(left) more"]
  }
}
