public import ImagePipeline

/// Why a catalogue operation failed. Every case says what, which record or file, and why;
/// ``description`` reads as one line.
public enum CatalogueError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The folder holds no catalogue database.
  case notALibrary(path: String)
  /// `init` on a folder that already is a library.
  case alreadyALibrary(path: String)
  /// The library was written by a newer version of the schema than this build knows.
  case newerSchema(path: String, found: Int, known: Int)
  /// The review's fields are invalid; every problem is listed.
  case invalidReview([String])
  case reviewNotFound(String)
  case ambiguousReview(prefix: String, candidates: [String])
  /// A review reference that cannot be an id (ids are hexadecimal).
  case badReviewReference(String)
  case imageNotFound(review: String, reference: String)
  case ambiguousImage(review: String, reference: String, candidates: [String])
  /// The same picture is already attached to the review.
  case imageAlreadyAttached(review: String, sha256: String, position: Int)
  /// An image that could not be read or decoded; `file` is what the caller named.
  case imageRejected(file: String, reason: ImageError)
  /// A file operation failed: `operation` on `path` with `errno` `code`.
  case io(operation: String, path: String, code: Int32)
  case database(DatabaseError)
  /// A library setting holds a value this build cannot use.
  case badSetting(key: String, value: String)
  /// An invalid value given for an operation (a position out of range, say).
  case invalidArgument(String)
  /// A review bundle (`source`: its folder, archive, or folder in an archive) was refused whole.
  case badBundle(source: String, problem: BundleProblem)
  /// An import found a review with the bundle's id in the library already.
  case reviewExists(id: String, title: String)
  /// An export found a bundle where it was to write one.
  case bundleExists(path: String)
  /// An export found something of someone else's where it was to write; `reason` says what.
  case exportBlocked(path: String, reason: String)
  /// An original in the library that no longer matches its SHA-256, met while exporting.
  case damagedOriginal(review: String, path: String)
  /// libarchive failed: `operation` on `path`, with its message.
  case archive(operation: String, path: String, message: String)

  public var description: String {
    switch self {
    case .notALibrary(let path):
      return "\(path) is not a catalogue library (no catalogue.sqlite): run `catalogue init \(path)` to create one"
    case .alreadyALibrary(let path):
      return "\(path) is already a catalogue library: nothing to do"
    case .newerSchema(let path, let found, let known):
      return
        "\(path) was written by a newer catalogue (schema \(found); this build knows up to \(known)): "
        + "upgrade catalogue to open it; the library was left untouched"
    case .invalidReview(let problems):
      return "invalid review: " + problems.joined(separator: "; ")
    case .reviewNotFound(let reference):
      return "no review \(reference): `catalogue list` shows the ids"
    case .ambiguousReview(let prefix, let candidates):
      return "review id \(prefix) is ambiguous: it starts \(candidates.joined(separator: ", ")); give more digits"
    case .badReviewReference(let reference):
      return "\(reference) is not a review id: ids are hexadecimal, at least 4 digits of one"
    case .imageNotFound(let review, let reference):
      return "review \(review) has no image \(reference): give a position (1, 2, …) or a prefix of the image's hash"
    case .ambiguousImage(let review, let reference, let candidates):
      return "image \(reference) of review \(review) is ambiguous: it starts \(candidates.joined(separator: ", "))"
    case .imageAlreadyAttached(let review, let sha256, let position):
      return "review \(review) already has this picture (\(sha256.prefix(12))) at position \(position)"
    case .imageRejected(let file, let reason):
      return "\(file): \(reason)"
    case .io(let operation, let path, let code):
      return "cannot \(operation) \(path): \(Errno.describe(code))"
    case .database(let error):
      if error.isBusy {
        return "the library is busy: another catalogue command held it too long (\(error.message)); try again"
      }
      return "\(error)"
    case .badSetting(let key, let value):
      return "library setting \(key) holds \(value), which this build cannot use"
    case .invalidArgument(let text):
      return text
    case .badBundle(let source, let problem):
      return "cannot import \(BundleProblem.shown(source)): \(problem); nothing was imported from it"
    case .reviewExists(let id, let title):
      return "review \(id) (\(title)) is in the library already: import with --replace to replace it, "
        + "or --as-new to add it under a new id"
    case .bundleExists(let path):
      return "\(path) holds a bundle already: export with --force to replace it"
    case .exportBlocked(let path, let reason):
      return "cannot export to \(path): \(reason); it was left alone"
    case .damagedOriginal(let review, let path):
      return "cannot export review \(review): its original \(path) does not match its SHA-256; "
        + "`catalogue check` says more"
    case .archive(let operation, let path, let message):
      return "cannot \(operation) \(path): \(message)"
    }
  }
}

extension CatalogueError {
  /// Wraps a SQLite failure.
  init(_ error: DatabaseError) { self = .database(error) }
}
