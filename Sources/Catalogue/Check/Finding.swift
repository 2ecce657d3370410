/// One thing `check` found wrong with a library.
public struct Finding: Sendable, Equatable, Hashable {
  public enum Kind: String, Sendable, CaseIterable, Codable {
    // The database.
    case databaseCorrupt = "database-corrupt"
    case foreignKeyViolation = "foreign-key-violation"
    case schemaVersion = "schema-version"
    case searchIndexOutOfStep = "search-index-out-of-step"
    // Records.
    case invalidReview = "invalid-review"
    case invalidImageRecord = "invalid-image-record"
    case coverMissing = "cover-missing"
    case imagePositions = "image-positions"
    case invalidPictureText = "invalid-picture-text"
    case cardOutOfStep = "card-out-of-step"
    // Originals.
    case missingOriginal = "missing-original"
    case originalSizeMismatch = "original-size-mismatch"
    case originalHashMismatch = "original-hash-mismatch"
    case originalUndecodable = "original-undecodable"
    case originalFactsMismatch = "original-facts-mismatch"
    // Thumbnails.
    case missingThumbnail = "missing-thumbnail"
    case thumbnailUndecodable = "thumbnail-undecodable"
    case staleThumbnail = "stale-thumbnail"
    // Display renditions (optional: made when a page asks for one).
    case renditionUndecodable = "rendition-undecodable"
    case staleRendition = "stale-rendition"
    // Share cards (optional: made when first asked for).
    case shareCardUndecodable = "share-card-undecodable"
    case shareCardWrongSize = "share-card-wrong-size"
    // Reviewers.
    case invalidReviewer = "invalid-reviewer"
    // Files.
    case unreferencedFile = "unreferenced-file"
    case temporaryFile = "temporary-file"
    case unknownFile = "unknown-file"
    case symbolicLink = "symbolic-link"
    // Hints: not wrong, but worth doing.
    case coverWithoutDescription = "cover-without-description"
  }

  public var kind: Kind
  /// What it concerns: a review id, an image's SHA-256, or a path relative to the library.
  public var target: String
  /// What is wrong.
  public var problem: String
  /// What to do about it (what `check --repair` does, or what the user must).
  public var remedy: String
  /// Whether `check --repair` can put it right from what is in the library.
  public var repairable: Bool
  /// The reviews that use the picture concerned, for a damaged original.
  public var reviews: [String]

  public init(kind: Kind, target: String, problem: String, remedy: String, repairable: Bool, reviews: [String] = []) {
    self.kind = kind
    self.target = target
    self.problem = problem
    self.remedy = remedy
    self.repairable = repairable
    self.reviews = reviews
  }
}

/// What `check` looked at and what it found.
public struct CheckReport: Sendable, Equatable {
  public var reviews: Int
  /// Originals whose files were verified (hashed and decoded, or only sized with `quick`).
  public var images: Int
  public var thumbnails: Int
  /// Bytes read from originals and thumbnails.
  public var bytesRead: Int
  public var quick: Bool
  public var findings: [Finding]
  /// What is not wrong but worth doing (a cover no one can hear described): reported beside
  /// the findings, never making the library unhealthy, never repaired.
  public var hints: [Finding] = []
  /// Whether the database could be opened (else its one finding says why, and nothing else
  /// was checked).
  public var opened = true

  public var isHealthy: Bool { findings.isEmpty }

  /// What `check` reports for a library whose database cannot be opened (`error` from
  /// ``Library/init(opening:upgrading:fileStore:)``): a finding with advice, or `nil` when the
  /// error is not about the database.
  /// `headerFixes` says what a repair would set right in the file's header, when that is what
  /// is wrong with it (``SQLiteRecords/damagedHeader(ofLibraryAt:)``).
  public static func unopenable(_ error: CatalogueError, quick: Bool, headerFixes: [String]? = nil) -> CheckReport? {
    let finding: Finding
    switch error {
    case .damagedDatabase(let path, let reason):
      if let headerFixes {
        finding = Finding(
          kind: .databaseCorrupt, target: LibraryLayout.database,
          problem: "\(path) cannot be read: its header is damaged (\(headerFixes.joined(separator: ", ")))",
          remedy: "repair keeps a copy of it in lost+found/ and restores the header; the originals are untouched",
          repairable: true)
      } else {
        finding = Finding(
          kind: .databaseCorrupt, target: LibraryLayout.database, problem: "\(path) cannot be read: \(reason)",
          remedy: "restore catalogue.sqlite from a backup; the originals under originals/ are untouched",
          repairable: false)
      }
    case .olderSchema(_, let found, let known):
      finding = Finding(
        kind: .schemaVersion, target: LibraryLayout.database, problem: "schema version \(found), expected \(known)",
        remedy: "run `catalogue upgrade`", repairable: false)
    case .newerSchema(_, let found, let known):
      finding = Finding(
        kind: .schemaVersion, target: LibraryLayout.database,
        problem: "schema version \(found), newer than this build knows (\(known))",
        remedy: "check it with the newer catalogue that wrote it", repairable: false)
    default:
      return nil
    }
    return CheckReport(
      reviews: 0, images: 0, thumbnails: 0, bytesRead: 0, quick: quick, findings: [finding], opened: false)
  }
}

/// What `check --repair` did, or with `dryRun` would do, about each finding.
public struct RepairReport: Sendable, Equatable {
  public struct Action: Sendable, Equatable {
    public var finding: Finding
    /// What was (or would be) done: "regenerated thumbnails/ab/…", "moved … to lost+found/…".
    public var action: String
  }

  public var dryRun: Bool
  public var actions: [Action]
  /// The findings repair could not put right, with what the user can do.
  public var unrepaired: [Finding]
}
