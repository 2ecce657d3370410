import Catalogue
import Foundation
import Synchronization

/// What the server keeps of reviewers' forms between two requests: the new-review forms
/// already sent (so that one sent twice — Back and send again, a double click — adds one
/// review), and forms that came when their session had ended or their page was out of date,
/// kept until their reviewer is back to save them.
///
/// Both last as long as the server does: the tokens in memory, the kept forms as files in the
/// server's private upload folder (a review's body may be megabytes).
final class FormMemory: Sendable {
  /// A new-review form's token: where its review is.
  private enum Creation {
    /// Being added now, by another request.
    case pending(Date)
    case made(review: String, at: Date)
  }

  /// What ``claim(_:)`` found.
  enum Claim: Equatable {
    /// The token is new: the form is this request's to add, then ``finish(_:review:)``.
    case claimed
    /// The review this form added already.
    case made(review: String)
    /// Another request with the token is still adding its review after a long wait.
    case busy
  }

  private let creations = Mutex<[String: Creation]>([:])
  private let folder: String

  /// How long a token and a kept form are remembered.
  static let lifetime: TimeInterval = 24 * 60 * 60
  /// The most tokens remembered; the oldest go first.
  static let maximumTokens = 10_000
  /// The most forms kept at once.
  static let maximumKeptForms = 1_000
  /// How long a request waits for another with the same token.
  static let patience: TimeInterval = 600

  init(folder: String) {
    self.folder = folder
  }

  /// Whether `token` has the shape ``Secrets/make()`` gives (nothing else is remembered).
  static func isToken(_ token: String) -> Bool {
    token.utf8.count == 43
      && token.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
  }

  // MARK: New-review forms

  /// Claims the form token `token` for one request: the first claims it; one that comes while
  /// the first is adding its review waits for it, and hears which review it added.
  func claim(_ token: String, now: () -> Date = Date.init) -> Claim {
    let start = now()
    while true {
      let found = creations.withLock { (creations) -> Creation? in
        let date = now()
        if let found = creations[token] { return found }
        Self.forgetOld(&creations, now: date)
        creations[token] = .pending(date)
        return nil
      }
      switch found {
      case nil: return .claimed
      case .made(let review, _)?: return .made(review: review)
      case .pending?:
        if now().timeIntervalSince(start) > Self.patience { return .busy }
        usleep(20_000)
      }
    }
  }

  /// Records the review a claimed token added, or forgets the token when none was (the form
  /// came back with a problem, to be sent again).
  func finish(_ token: String, review: String?) {
    creations.withLock { creations in
      if let review {
        creations[token] = .made(review: review, at: Date())
      } else {
        creations[token] = nil
      }
    }
  }

  private static func forgetOld(_ creations: inout [String: Creation], now: Date) {
    guard creations.count >= maximumTokens else { return }
    func date(_ creation: Creation) -> Date {
      switch creation {
      case .pending(let date), .made(_, let date): return date
      }
    }
    creations = creations.filter { now.timeIntervalSince(date($0.value)) < lifetime }
    if creations.count >= maximumTokens {
      let oldest = creations.sorted { date($0.value) < date($1.value) }.prefix(creations.count - maximumTokens + 1)
      for (token, creation) in oldest {
        if case .made = creation { creations[token] = nil }
      }
    }
  }

  // MARK: Kept forms

  /// Keeps `form` (sent to `path`, for `reason`); the id it is kept under, or nil when it
  /// could not be (too many kept, or a disk that refuses).
  func keep(_ form: ReviewForm, path: String, reason: KeptForm.Reason) -> String? {
    keep(KeptForm(path: path, reason: reason, form: form))
  }

  /// Keeps what was typed about a picture, as ``keep(_:path:reason:)`` keeps a review's form.
  func keep(_ picture: KeptPicture, path: String, reason: KeptForm.Reason) -> String? {
    keep(KeptForm(path: path, reason: reason, picture: picture))
  }

  private func keep(_ kept: KeptForm) -> String? {
    sweep()
    guard keptNames().count < Self.maximumKeptForms else { return nil }
    let id = Secrets.make()
    guard let data = try? JSONEncoder().encode(kept) else { return nil }
    let file = URL(fileURLWithPath: "\(folder)/\(Self.keptPrefix)\(id).json")
    do {
      try data.write(to: file, options: .atomic)
    } catch {
      return nil
    }
    return id
  }

  /// The form kept under `id` for `path`, or nil.
  func kept(_ id: String, path: String) -> KeptForm? {
    guard Self.isToken(id),
      let data = FileManager.default.contents(atPath: "\(folder)/\(Self.keptPrefix)\(id).json"),
      let kept = try? JSONDecoder().decode(KeptForm.self, from: data), kept.path == path
    else { return nil }
    return kept
  }

  /// Forgets the form kept under `id` (it was saved).
  func forget(_ id: String) {
    guard Self.isToken(id) else { return }
    try? FileManager.default.removeItem(atPath: "\(folder)/\(Self.keptPrefix)\(id).json")
  }

  private static let keptPrefix = "kept-form-"

  private func keptNames() -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(Self.keptPrefix) }
  }

  /// Removes the kept forms older than ``lifetime``.
  private func sweep() {
    let now = Date()
    for name in keptNames() {
      let path = "\(folder)/\(name)"
      if let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
        now.timeIntervalSince(modified) > Self.lifetime
      {
        try? FileManager.default.removeItem(atPath: path)
      }
    }
  }
}

/// A review form kept for its reviewer: where it was sent, why it was not saved then, and what
/// was typed.
struct KeptForm: Codable, Sendable {
  enum Reason: String, Codable, Sendable {
    /// The session had ended.
    case signedOut
    /// The form did not carry the session's token (the reviewer signed in again since).
    case outOfDate
  }

  /// Which form a route takes typed by hand (``Route/keepsForm``).
  enum Kind: Sendable {
    /// A review's fields: kept for the page the form was sent to.
    case review
    /// What a review says of one of its pictures: kept for the review's edit page, whose
    /// fields are the review's as saved.
    case pictureText
  }

  var path: String
  var reason: Reason
  /// A review's fields; nil for a picture's text.
  var form: ReviewForm?
  /// For a picture's description and caption: the picture (its position or hash, as sent) and
  /// what was typed.
  var picture: KeptPicture?
}

/// What was typed about a picture, kept.
struct KeptPicture: Codable, Sendable, Equatable {
  /// The picture as the form's address named it: its position, or a prefix of its hash.
  var image: String
  var alt: String?
  var caption: String?
}

extension UInt8 {
  fileprivate var isASCIIAlphanumeric: Bool {
    (48...57).contains(self) || (65...90).contains(self) || (97...122).contains(self)
  }
}
