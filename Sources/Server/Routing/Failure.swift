import Catalogue
import HTTP
import ImagePipeline

/// Why a request could not be served: a status and a one-line message, the command line's
/// words wherever the library said it. The API sends it as `{"error": message}`; a page shows
/// it.
///
/// The server's own failures (500) say only that: what went wrong (an SQL statement, a path in
/// the library, a bug) is for the request log (``detail``), never for whoever asked.
struct Failure: Error, Sendable, Equatable {
  var status: Int
  var message: String
  /// Headers the answer carries (`Allow`, `Retry-After`, `WWW-Authenticate`).
  var headers: [String: String] = [:]
  /// What the request log says of a failure of the server's own: the words `message` would
  /// have had.
  var detail: String?
  /// Whether a form was refused for not carrying its session's token (signed in again since
  /// its page was opened): a review's form is then kept, not dropped.
  var formOutOfDate = false

  /// What a failure of the server's own says to the client.
  static let serverFailed = "the server failed to answer this request; its log says why"

  init(_ status: Int, _ message: String, headers: [String: String] = [:]) {
    self.status = status
    self.headers = headers
    if Self.isServersOwn(status) {
      self.message = Self.serverFailed
      detail = message
    } else {
      self.message = message
    }
  }

  /// Whether `status` says the server failed (as opposed to a refusal, or 503: busy, which
  /// says what to do).
  static func isServersOwn(_ status: Int) -> Bool { status >= 500 && status != 503 }

  /// The library's error with the status that says what kind of failure it is.
  init(_ error: CatalogueError) {
    // A full or read-only disk is said without the library's path.
    if let reason = error.storageRefusal {
      self = .readOnly(reason)
      detail = error.description
      return
    }
    switch error {
    // What is not there, in words for whoever asked over HTTP (the command line's own words
    // name `catalogue list`); an id that could be none is as missing as one that is not.
    case .reviewNotFound(let reference), .badReviewReference(let reference):
      self.init(404, "no review \(reference): it may have been removed, or the address is mistyped")
    case .reviewerNotFound(let name):
      self.init(404, "no reviewer \(name): the address may be mistyped")
    case .imageNotFound(let review, let reference):
      self.init(404, "review \(review) has no picture \(reference): it may have been removed")
    case .badImageReference(let reference):
      self.init(404, "no picture \(reference) in this review: the address is mistyped")
    case .database(let cause) where cause.kind == .busy:
      self.init(503, "the catalogue is busy saving another change: try again in a few seconds")
    case .database(let cause) where cause.kind == .unavailable:
      self.init(503, "the catalogue cannot reach its database just now: try again in a few seconds")
    // The command line's words name its flag; a script says it in the JSON it sends.
    case .unknownCategory(let label, let suggestion):
      self.init(
        400,
        Self.newCategoryQuestion(label, suggestion)
          + " (send \"newCategory\": true to add \(label) as a label of its own)")
    default:
      self.init(Self.status(of: error), error.description)
    }
    if status == 503 { headers["Retry-After"] = "5" }
  }

  /// A write the library's disk refuses: 403 when it is read-only (or not the server's to
  /// write), 507 when it is full; in words for whoever asked, without the server's paths.
  static func readOnly(_ reason: ReadOnlyReason) -> Failure {
    var failure: Failure
    switch reason {
    case .readOnlyDisk:
      failure = Failure(403, "this catalogue is on a read-only disk: it can be read, not changed")
    case .notWritable:
      failure = Failure(403, "this catalogue's files may not be written by the server: it can be read, not changed")
    case .diskFull, .noFreeInodes:
      failure = Failure(507, "")
      failure.message = "the server's disk is full: nothing was stored; try again once its operator has made room"
    }
    return failure
  }

  static let signInNeeded = Failure(
    401, "sign in first: this needs a reviewer's session or API token",
    headers: ["WWW-Authenticate": #"Bearer realm="catalogue""#])

  /// What a label that looks like a typo is asked over HTTP; each front end then says how to
  /// mean it in its own terms.
  static func newCategoryQuestion(_ label: String, _ suggestion: String) -> String {
    "category \(label) is new to this library: did you mean \(suggestion)?"
  }

  static func notFound(_ what: String) -> Failure { Failure(404, what) }

  static func badRequest(_ message: String) -> Failure { Failure(400, message) }

  /// The status for a library error: the client's mistake (400), a missing record (404), a
  /// conflict with what is there (409), a picture too large (413) or not one the library
  /// takes (415), the library busy (503), or the server's own failure (500).
  static func status(of error: CatalogueError) -> Int {
    switch error {
    case .invalidReview, .invalidPictureText, .invalidQuery, .invalidArgument,
      .unknownCategory, .ambiguousReview, .ambiguousImage, .notText, .textTooLarge:
      return 400
    case .reviewNotFound, .imageNotFound, .badReviewReference, .badImageReference:
      return 404
    case .imageAlreadyAttached, .duplicatePicture, .reviewExists, .reviewChanged:
      return 409
    case .fileTooLarge:
      return 413
    case .imageRejected(_, let reason):
      return status(of: reason)
    case .picturesRefused(let failures, _):
      return failures.first.map { status(of: $0.error) } ?? 400
    case .database(let cause) where cause.kind == .busy || cause.kind == .unavailable:
      return 503
    case .interrupted:
      return 503
    default:
      return status(ofAccount: error) ?? 500
    }
  }

  /// Statuses for what an image's decoder said: not a picture or a kind the library does not
  /// take (415), too many pixels (413), damaged (400).
  static func status(of error: ImageError) -> Int {
    switch error {
    case .empty, .notAnImage, .unsupported, .decoderMissing: return 415
    case .tooManyPixels: return 413
    case .truncated, .corrupt: return 400
    case .encodingFailed: return 500
    }
  }
}

extension Failure {
  /// Statuses for the reviewers' errors: a name taken (409), no such reviewer (404), a name or
  /// password that cannot be one (400).
  static func status(ofAccount error: CatalogueError) -> Int? {
    switch error {
    case .reviewerExists: return 409
    case .reviewerNotFound, .imageNotInLibrary: return 404
    case .badReviewerName, .badReviewerProfile, .badPassword: return 400
    default: return nil
    }
  }
}
