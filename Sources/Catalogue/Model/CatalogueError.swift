public import ImagePipeline
import Glibc

/// Why a catalogue operation failed. Every case says what, which record or file, and why;
/// ``description`` reads as one line.
public enum CatalogueError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The folder holds no catalogue database.
  case notALibrary(path: String)
  /// The library path names a file, not a folder.
  case notAFolder(path: String)
  /// The library's database file is empty, damaged, or not a catalogue's; `reason` says which.
  case damagedDatabase(path: String, reason: String)
  /// A write to a library that can be read but not written now; `reason` says why.
  case readOnlyLibrary(path: String, reason: ReadOnlyReason)
  /// A command that only reads met a library of an older schema, which it does not upgrade.
  case olderSchema(path: String, found: Int, known: Int)
  /// `init` on a folder that holds other files.
  case folderNotEmpty(path: String, entries: [String])
  /// `init` on a folder that already is a library.
  case alreadyALibrary(path: String)
  /// The library was written by a newer version of the schema than this build knows.
  case newerSchema(path: String, found: Int, known: Int)
  /// The review's fields are invalid; every problem is listed.
  case invalidReview([String])
  /// A picture's description or caption is invalid (`what`: "picture 2 of review 3f2a…",
  /// a file's name); every problem is listed.
  case invalidPictureText(String, problems: [String])
  case reviewNotFound(String)
  /// An edit made from review `id` as it was at another version: it was changed meanwhile
  /// (by `by`, or from the command line when `nil`), and the edit was not made over it.
  case reviewChanged(id: String, title: String, by: String?)
  case ambiguousReview(prefix: String, candidates: [String])
  /// A review reference that cannot be an id (ids are hexadecimal).
  case badReviewReference(String)
  case imageNotFound(review: String, reference: String)
  /// An image reference that is neither a position nor a hash prefix.
  case badImageReference(String)
  /// A new category label that looks like a typo of `suggestion`.
  case unknownCategory(String, suggestion: String)
  /// A list query that cannot be asked (a search with no words, say).
  case invalidQuery(String)
  case ambiguousImage(review: String, reference: String, candidates: [String])
  /// The same picture is already attached to the review.
  case imageAlreadyAttached(review: String, sha256: String, position: Int)
  /// The same picture given twice to one command.
  case duplicatePicture(file: String, sha256: String, position: Int)
  /// A command that takes its pictures all or nothing met some it could not use; each is
  /// listed, of `total` given.
  case picturesRefused([ImportFailure], total: Int)
  /// An image that could not be read or decoded; `file` is what the caller named.
  case imageRejected(file: String, reason: ImageError)
  /// A file operation failed: `operation` on `path` with `errno` `code`.
  case io(operation: IOOperation, path: String, code: Int32)
  /// A file to read is a FIFO, a device, a socket or a folder; `kind` says which.
  case notARegularFile(path: String, kind: String)
  /// A file to read is larger than the library takes (`cap` bytes).
  case fileTooLarge(path: String, bytes: Int, cap: Int)
  /// A text file (a review's body) is larger than `cap` bytes.
  case textTooLarge(path: String, cap: Int)
  /// A text file (a review's body) is not UTF-8.
  case notText(path: String)
  /// The record store failed; ``RecordStoreFailure/kind`` says how.
  case database(RecordStoreFailure)
  /// A library setting holds a value this build cannot use.
  case badSetting(key: String, value: String)
  /// A record holds a value no build writes (`what`: "review 0123…", "image ab12…").
  case damagedRecord(String, problem: String)
  /// An original in the library that no longer hashes to its name (or no longer decodes).
  case originalChanged(path: String)
  /// A failure of the catalogue itself, not of what it was given: a rule of the code broken.
  case internalFailure(String)
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
  /// A signal (Ctrl-C, SIGTERM) asked the command to stop, and it did, undoing its work.
  case interrupted
  /// libarchive failed: `operation` on `path`, with its message.
  case archive(operation: String, path: String, message: String)
  /// An export of another service (`catalogue import`) that cannot be read, and why.
  case unreadableExport(path: String, reason: String)
  /// An export with rows that cannot be read, each `file, line L, column C: why`; nothing was
  /// imported.
  case malformedExport(path: String, problems: [String])
  /// A picture (by its SHA-256) that the library has no record of.
  case imageNotInLibrary(sha256: String)
  /// No reviewer has this name (in any case).
  case reviewerNotFound(String)
  /// A reviewer has this name already (`existing`, as stored: names match in any case).
  case reviewerExists(String, existing: String)
  /// A name that cannot be a reviewer's; `problem` says why.
  case badReviewerName(String, problem: String)
  /// A display name or bio the reviewer (as stored) cannot have; every problem is listed.
  case badReviewerProfile(String, problems: [String])
  /// A password that cannot be used; `problem` says why (too short, too long, a NUL).
  case badPassword(problem: String)
  /// libsodium could not hash a password (it needs the library's password memory at once).
  case passwordHashFailed(memoryBytes: Int)
  /// A review's share card could not be drawn: Pango or Cairo missing, or failing.
  case cardNotDrawn(review: String, reason: String)

  /// One line, with every name in it shown as ``Shown`` writes it: a file name's newline,
  /// escape or right-to-left mark never reaches a terminal raw.
  public var description: String { Shown.path(plainDescription) }

  private var plainDescription: String {
    switch self {
    case .notALibrary(let path):
      return "\(path) is not a catalogue library (no catalogue.sqlite): run `catalogue init \(path)` to create one"
    case .notAFolder(let path):
      return "\(path) is a file, not a library folder: give the folder that holds catalogue.sqlite"
    case .damagedDatabase(let path, let reason):
      return "\(path) is not a usable catalogue database: \(reason); restore it from a backup "
        + "(nothing was changed; `catalogue check` reports it too)"
    case .readOnlyLibrary(let path, let reason):
      switch reason {
      case .readOnlyDisk:
        return "\(path) is on a read-only disk: the library can be read but not changed (nothing was changed)"
      case .notWritable:
        return "the library folder \(path) may not be written by you (another user's, or its permissions say so): "
          + "it can be read but not changed (nothing was changed)"
      case .diskFull:
        return "the disk holding \(path) is full: free some space and try again (nothing was changed)"
      case .noFreeInodes:
        return "the disk holding \(path) has no free inodes (file entries) left: delete some files and try again "
          + "(nothing was changed)"
      }
    case .olderSchema(let path, let found, let known):
      return "\(path) was written by an older catalogue (schema \(found); this build writes \(known)): "
        + "run `catalogue upgrade` to bring it up to date (read commands never change a library)"
    case .folderNotEmpty(let path, let entries):
      let shown =
        entries.prefix(3).joined(separator: ", ") + (entries.count > 3 ? " and \(entries.count - 3) more" : "")
      return "cannot make a library in \(path): it holds other files (\(shown)); "
        + "give a new or empty folder, such as \(path.hasSuffix("/") ? path : path + "/")Reviews"
    case .alreadyALibrary(let path):
      return "\(path) is already a catalogue library: nothing to do"
    case .newerSchema(let path, let found, let known):
      return
        "\(path) was written by a newer catalogue (schema \(found); this build knows up to \(known)): "
        + "upgrade catalogue to open it; the library was left untouched"
    case .invalidReview(let problems):
      return "invalid review: " + problems.joined(separator: "; ")
    case .invalidPictureText(let what, let problems):
      return "invalid text for \(what): " + problems.joined(separator: "; ")
        + " (a description holds up to \(PictureText.maximumAltLength) characters on one line, "
        + "a caption up to \(PictureText.maximumCaptionLength)); nothing was changed"
    case .reviewNotFound(let reference):
      return "no review \(reference): `catalogue list` shows the ids"
    case .reviewChanged(let id, let title, let by):
      return
        "review \(id) (“\(title)”) was changed\(by.map { " by \($0)" } ?? "") since this edit began: "
        + "nothing was saved; look at it again and make the change anew"
    case .ambiguousReview(let prefix, let candidates):
      return "review id \(prefix) is ambiguous: it starts \(candidates.joined(separator: ", ")); give more digits"
    case .badReviewReference(let reference):
      let digits = reference.utf8.count
      if reference.isEmpty { return "an empty review id: give an id, or at least 4 of its digits" }
      if !reference.lowercased().utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) {
        return "\(reference) is not a review id: ids are hexadecimal (0–9, a–f); `catalogue list` shows them"
      }
      if digits < 4 { return "\(reference) is too short to name a review: give at least 4 of its 16 digits" }
      return "\(reference) is not a review id: ids are 16 digits long, and this has \(digits)"
    case .imageNotFound(let review, let reference):
      return "review \(review) has no image \(reference): give a position (1, 2, …) or a prefix of the image's hash"
    case .badImageReference(let reference):
      return
        "\(reference) is not an image reference: give a position (1, 2, …) or at least 4 hexadecimal digits of the picture's SHA-256"
    case .invalidQuery(let problem):
      return problem
    case .unknownCategory(let label, let suggestion):
      return
        "category \(label) is new to this library: did you mean \(suggestion)? (--new-category to add \(label) as a label of its own)"
    case .ambiguousImage(let review, let reference, let candidates):
      return "image \(reference) of review \(review) is ambiguous: it starts \(candidates.joined(separator: ", "))"
    case .imageAlreadyAttached(let review, let sha256, let position):
      return "review \(review) already has this picture (\(sha256.prefix(12))) at position \(position)"
    case .duplicatePicture(let file, let sha256, let position):
      return "\(file): the same picture (\(sha256.prefix(12))) as picture \(position) of this command"
    case .picturesRefused(let failures, let total):
      return "nothing was added: \(failures.count) of \(total) picture\(total == 1 ? "" : "s") could not be used; "
        + "fix or leave out \(failures.count == 1 ? "that file" : "those files") and try again"
    case .imageRejected(let file, let reason):
      return "\(file): \(reason)"
    case .io(let operation, let path, let code) where (code == EACCES || code == EPERM) && operation.isStoring:
      // Which folder refuses: the one the file was to be made or changed in.
      let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
      return "cannot \(operation) \(path): the folder \(folder.isEmpty ? "." : folder) may not be written by you "
        + "(another user's, or its permissions say so); nothing was changed"
    case .io(let operation, let path, let code):
      return "cannot \(operation) \(path): \(Errno.describe(code))"
    case .notARegularFile(let path, let kind):
      return "\(path): \(kind), not a regular file: only files can be read; copy it into a file first"
    case .fileTooLarge(let path, let bytes, let cap):
      return
        "\(path): \(Self.size(bytes)) is over the largest file this library takes (\(Self.size(cap))); nothing was read"
    case .textTooLarge(let path, let cap):
      return "\(path): more text than a review may hold (\(Self.size(cap))); nothing was read"
    case .notText(let path):
      return "\(path) is not UTF-8 text: save it as UTF-8 and try again"
    case .database(let error):
      if error.kind == .busy {
        return "the library is busy: another catalogue command held it too long (\(error.message)); try again"
      }
      if error.kind == .unavailable {
        return
          "the library's database cannot be reached (\(error.message)): check that its server is running, and try again"
      }
      if error.kind == .damaged {
        return "the library's database is damaged (\(error.message)): `catalogue check` says what is wrong, "
          + "and `catalogue check --repair` repairs it (keeping a copy of the damaged file)"
      }
      return "\(error)"
    case .badSetting(let key, let value):
      return "library setting \(key) holds \(value), which this build cannot use"
    case .invalidArgument(let text):
      return text
    case .damagedRecord(let what, let problem):
      return "\(what) is damaged: \(problem); `catalogue check` reports it and says what to do"
    case .originalChanged(let path):
      return "\(path) no longer matches its SHA-256 (or no longer decodes): restore it from a backup"
    case .internalFailure(let text):
      return "internal error: \(text); the library was left as it was (please report this)"
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
    case .interrupted:
      return "interrupted: nothing was changed"
    case .archive(let operation, let path, let message):
      return "cannot \(operation) \(path): \(message)"
    case .unreadableExport(let path, let reason):
      return "cannot import \(Shown.path(path)): \(reason) (nothing was changed)"
    case .malformedExport(let path, let problems):
      let count = problems.count == 1 ? "a row" : "\(problems.count) rows"
      return "cannot import \(Shown.path(path)): \(count) cannot be read, first \(Shown.path(problems.first ?? "")); "
        + "fix the file, or give --skip-malformed to import the rest (nothing was changed)"
    case .imageNotInLibrary(let sha256):
      return "no picture \(sha256.prefix(64)) in the library: it was never imported, or was detached or removed since"
    case .reviewerNotFound(let name):
      return "no reviewer \(name): `catalogue user list` shows them"
    case .reviewerExists(let name, let existing):
      return "reviewer \(existing) exists already"
        + (existing == name ? "" : " (names match in any case, so \(name) is taken)")
        + ": choose another name, or `catalogue user passwd \(existing)` to change the password"
    case .badReviewerName(let name, let problem):
      return "\(name.isEmpty ? "an empty name" : name) is not a reviewer name: \(problem)"
    case .badReviewerProfile(let name, let problems):
      return "cannot change the profile of reviewer \(name): \(problems.joined(separator: "; ")) (nothing was changed)"
    case .badPassword(let problem):
      return "unusable password: \(problem)"
    case .passwordHashFailed(let memoryBytes):
      return "cannot hash the password: Argon2id could not have the \(memoryBytes / 1_048_576) MiB it needs; "
        + "free some memory and try again"
    case .cardNotDrawn(let review, let reason):
      return "cannot draw the share card\(review.isEmpty ? "" : " of review \(review)"): \(reason); "
        + "install Debian's libpangocairo-1.0-0 and a font (fonts-dejavu-core), as scripts/install-packages does"
    }
  }
}

extension CatalogueError {
  /// A size for people, in decimal units: "812 KB", "1.5 GB".
  static func size(_ bytes: Int) -> String {
    if bytes < 1000 { return "\(bytes) bytes" }
    let units = ["KB", "MB", "GB", "TB"]
    var value = Double(bytes) / 1000
    var unit = 0
    while value >= 999.5 && unit < units.count - 1 {
      value /= 1000
      unit += 1
    }
    let digits = value < 10 ? 1 : 0
    let text = digits == 0 ? String(Int(value.rounded())) : String(Double(Int(value * 10 + 0.5)) / 10)
    return "\(text) \(units[unit])"
  }

  /// Wraps a SQLite failure.
  init(_ error: DatabaseError) { self = .database(RecordStoreFailure(error)) }
}

extension CatalogueError {
  /// The kind of refusal to store a full or read-only disk made, when this error is one: a
  /// file that could not be written for want of space or inodes, on a read-only disk, or a
  /// database that found its disk full.
  public var storageRefusal: ReadOnlyReason? {
    switch self {
    case .readOnlyLibrary(_, let reason):
      return reason
    case .io(_, let path, let code) where code == ENOSPC || code == EDQUOT:
      let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
      return FileSystem.space(at: folder.isEmpty ? "." : folder)?.freeInodes == 0 ? .noFreeInodes : .diskFull
    case .io(_, _, let code) where code == EROFS:
      return .readOnlyDisk
    case .database(let cause) where cause.kind == .full:
      return .diskFull
    default:
      return nil
    }
  }

  /// This error, said of the library at `path` when it is a full or read-only disk's refusal
  /// (the words a library opened that way gives), else as it is.
  public func saidOfLibrary(_ path: String) -> CatalogueError {
    guard let reason = storageRefusal else { return self }
    // A file outside the library (an export's) is said of itself.
    if case .io(_, let file, _) = self, !file.hasPrefix(path) { return self }
    return .readOnlyLibrary(path: path, reason: reason)
  }
}
