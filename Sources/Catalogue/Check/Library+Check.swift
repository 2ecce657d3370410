import Foundation
import ImagePipeline
import Synchronization

/// One image record as check reads it: its stored fields, and the reviews that link it.
@dynamicMemberLookup
struct ImageRecord: Sendable {
  var row: ImageRow
  var reviews: [String]

  subscript<T>(dynamicMember field: KeyPath<ImageRow, T>) -> T { row[keyPath: field] }

  var originalPath: String {
    LibraryLayout.original(sha256: row.sha256, fileExtension: Self.fileExtension(row.format))
  }

  func thumbnailPath(spec: ThumbnailSpec) -> String {
    LibraryLayout.thumbnail(sha256: row.sha256, spec: spec.name, fileExtension: Self.fileExtension(row.thumbnailFormat))
  }

  /// The 2× thumbnail's path: named after `spec`, in the recorded thumbnail format.
  func highDensityThumbnailPath(spec: ThumbnailSpec) -> String {
    LibraryLayout.highDensityThumbnail(
      sha256: row.sha256, spec: spec.name, fileExtension: Self.fileExtension(row.thumbnailFormat))
  }

  /// A recorded format's file extension; a record that names no known format (which check
  /// reports) is looked for as a JPEG.
  private static func fileExtension(_ format: String) -> String {
    (ImageFormat(rawValue: format) ?? .jpeg).fileExtension
  }
}

/// What verifying one original and its thumbnail found.
struct ImageVerdict: Sendable {
  var findings: [Finding] = []
  var bytesRead = 0
  /// The original is there, whole and decodable: its thumbnail can be made again from it.
  var originalHealthy = false
}

extension Library {
  /// Verifies everything the library promises: the database and its search index, every
  /// record, every original (size, SHA-256 against its name, decoding, recorded facts) and
  /// thumbnail, 1× and 2× (decoding, size for the current spec), and that the folder holds
  /// nothing else.
  ///
  /// Originals are read once each, hashed and decoded from the same bytes, on `jobs` threads
  /// (all cores when `nil`); a JPEG is decoded at 1/8 scale, which still reads and checks all
  /// its entropy-coded data. With `quick`, files are only checked to exist with the right size.
  public func check(
    quick: Bool = false, jobs: Int? = nil, progress: (@Sendable (ImportProgress) -> Void)? = nil
  ) throws(CatalogueError) -> CheckReport {
    var findings: [Finding] = []
    var hints: [Finding] = []
    var unread: [String] = []
    // The write lock, though nothing is written: FTS5's integrity check needs it, and a read
    // transaction that asks for it while another command writes fails at once (SQLITE_BUSY)
    // instead of waiting its turn. BEGIN IMMEDIATE waits, within the busy timeout; the end is a
    // rollback, which a damaged file cannot make fail as it can a commit.
    let (reviewCount, records, damaged) = try self.records.lockedLook {
      () throws(CatalogueError) -> (Int, [ImageRecord], Bool) in
      // The store's own findings first: when it is damaged, everything else read through it
      // may be incomplete, and repair puts the store right before it acts on anything else.
      let (databaseFindings, damaged) = self.records.storeFindings(quick: quick)
      findings += databaseFindings
      // Through a damaged database every other look may fail part-way: what fails is said in
      // the database's finding, and the rest is still looked at.
      func looking<T>(at what: String, _ empty: T, _ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T {
        do {
          return try body()
        } catch {
          guard damaged else { throw error }
          if case .database(let cause) = error {
            unread.append("\(what) (\(cause.message))")
          } else {
            unread.append("\(what) (\(error))")
          }
          return empty
        }
      }
      findings += try looking(at: "the reviews", []) { () throws(CatalogueError) in try checkReviewRecords() }
      let records = try looking(at: "the image records", []) { () throws(CatalogueError) in try imageRecords() }
      findings += checkImageRecords(records)
      let (linkFindings, linkHints) = try looking(at: "the links", ([], [])) { () throws(CatalogueError) in
        try checkLinks()
      }
      findings += linkFindings
      hints += linkHints
      findings += try looking(at: "the reviewers", []) { () throws(CatalogueError) in try checkReviewers() }
      let count = try looking(at: "the number of reviews", 0) { () throws(CatalogueError) in
        try self.records.reviewCount()
      }
      return (count, records, damaged)
    }
    if damaged, let index = findings.firstIndex(where: { $0.kind == .databaseCorrupt }) {
      var note = " Files were not matched against the records, which may be incomplete."
      if !unread.isEmpty { note = " Could not read " + unread.joined(separator: ", ") + "." + note }
      findings[index].problem += note
    }
    let spec = thumbnailSpec
    var verdicts = verify(records, quick: quick, jobs: jobs, progress: progress)
    // Files are matched against the records as committed now, with no import between writing
    // a file and linking it: the exclusive library lock waits for running imports to link (or
    // abandon) what they wrote. Work in progress is not a problem, nor is a picture detached
    // or a spec switched by a rebuild while the originals were read.
    let lock = readOnlyReason == nil ? try LibraryLock(folder: path, mode: .exclusive) : nil
    defer { withExtendedLifetime(lock) {} }
    var current = records
    var shareCards = Set<String>()
    if !damaged {
      try refreshIfChanged()
      (current, shareCards) = try read { () throws(CatalogueError) in (try imageRecords(), try referencedShareCards()) }
      let present = Set(current.map(\.sha256))
      verdicts = zip(records, verdicts).filter { present.contains($0.0.sha256) }.map(\.1)
      if thumbnailSpec != spec {
        let known = Set(records.map(\.sha256))
        verdicts = verify(current.filter { known.contains($0.sha256) }, quick: quick, jobs: jobs, progress: nil)
      }
    }
    findings += verdicts.flatMap(\.findings)
    findings += try verifyShareCards(quick: quick, jobs: jobs)
    findings += try checkFiles(current, shareCards: shareCards, matchingRecords: !damaged)
    return CheckReport(
      reviews: reviewCount, images: records.count, thumbnails: records.count,
      bytesRead: verdicts.reduce(0) { $0 + $1.bytesRead }, quick: quick, findings: findings, hints: hints)
  }

  // MARK: The database

  /// Whether the full-text index matches the reviews it indexes.
  func searchIndexInStep() throws(CatalogueError) -> Bool { try records.searchIndexInStep() }

  // MARK: Records

  private func checkReviewRecords() throws(CatalogueError) -> [Finding] {
    let rows = try records.allReviews().map { row in
      (
        row.id, ReviewDraft(title: row.title, body: row.body, rating: row.rating, category: row.category),
        row.created, row.updated, row
      )
    }
    var findings: [Finding] = []
    for (id, draft, created, updated, row) in rows {
      var problems: [String] = []
      do {
        _ = try draft.validated()
      } catch {
        if case .invalidReview(let list) = error { problems += list }
      }
      if DateText.parse(created) == nil { problems.append("created time \"\(created)\" is not a time") }
      if DateText.parse(updated) == nil { problems.append("updated time \"\(updated)\" is not a time") }
      // Schema 9's publication: a time when there is one, and none on a draft.
      var publication: String?
      if let published = row.published {
        if row.draft {
          problems.append("it is a draft, yet has a published time \"\(published)\"")
          publication = "--draft"
        } else if DateText.parse(published) == nil {
          problems.append("published time \"\(published)\" is not a time")
          publication = "--draft, then --publish"
        }
      }
      if !problems.isEmpty {
        let command = "catalogue edit \(id.prefix(8))"
        var remedy = "correct it with `\(command) …`"
        if problems.count == 1, let publication { remedy = "set its state again with `\(command) \(publication)`" }
        findings.append(
          Finding(
            kind: .invalidReview, target: id, problem: problems.joined(separator: "; "), remedy: remedy,
            repairable: false))
      }
    }
    return findings
  }

  func imageRecords() throws(CatalogueError) -> [ImageRecord] { try records.imageRecords() }

  /// The tables whose rows belong to a reviewer.
  static let accessTables = ["sessions", "tokens", "sign_in_addresses"]

  /// Reviewers' records that no build writes: a name that cannot be typed again, a password
  /// hash that is not Argon2id, a time that is not one. Not repairable: the remedy is the
  /// `user` command.
  private func checkReviewers() throws(CatalogueError) -> [Finding] {
    var findings: [Finding] = []
    for user in try records.userRows() {
      var problems: [String] = []
      if let problem = Self.nameProblem(user.name) { problems.append("the name is not valid: \(problem)") }
      if !user.passwordHash.hasPrefix("$argon2id$") { problems.append("the password hash is not an Argon2id hash") }
      if DateText.parse(user.created) == nil { problems.append("created time \"\(user.created)\" is not a time") }
      if DateText.parse(user.passwordChanged) == nil {
        problems.append("password change time \"\(user.passwordChanged)\" is not a time")
      }
      // Written by hand: the schema bounds their length, not what they hold.
      var profile: [String] = []
      if let shown = user.displayName, let problem = Self.displayNameProblem(shown) { profile.append(problem) }
      if let bio = user.bio, let problem = Self.bioProblem(bio) { profile.append(problem) }
      guard !problems.isEmpty || !profile.isEmpty else { continue }
      let remedy =
        Self.nameProblem(user.name) != nil
        ? "remove the reviewer with `catalogue user remove \(user.name)` and add them again"
        : problems.isEmpty
          ? "give them again with `catalogue user edit \(user.name) --display-name TEXT --bio TEXT`"
          : "give a new password with `catalogue user passwd \(user.name)`"
      findings.append(
        Finding(
          kind: .invalidReviewer, target: user.name, problem: (problems + profile).joined(separator: "; "),
          remedy: remedy, repairable: false))
    }
    return findings
  }

  private func checkImageRecords(_ records: [ImageRecord]) -> [Finding] {
    records.compactMap { record in
      var problems: [String] = []
      if !SHA256.isDigest(record.sha256) { problems.append("the hash is not a SHA-256 digest") }
      if ImageFormat(rawValue: record.format)?.isSupported != true {
        problems.append("format \(record.format) is not one the catalogue decodes (\(ImageFormat.decodedNames))")
      }
      if !["jpeg", "png"].contains(record.thumbnailFormat) {
        problems.append("thumbnail format \(record.thumbnailFormat) is not jpeg or png")
      }
      if record.width <= 0 || record.height <= 0 { problems.append("size \(record.width)×\(record.height)") }
      if !(1...8).contains(record.orientation) { problems.append("orientation \(record.orientation) is outside 1–8") }
      guard !problems.isEmpty else { return nil }
      return Finding(
        kind: .invalidImageRecord, target: record.sha256, problem: problems.joined(separator: "; "),
        remedy: "repair reads the facts again from the original", repairable: true, reviews: record.reviews)
    }
  }

  /// The links' findings (covers, positions, what is said of each picture), and a hint for
  /// each cover without a description.
  private func checkLinks() throws(CatalogueError) -> (findings: [Finding], hints: [Finding]) {
    let all = try records.links()
    let rows = all.map { ($0.review, $0.position, $0.cover) }
    var findings: [Finding] = []
    var hints: [Finding] = []
    for (review, position, cover, link) in all {
      var problems = PictureText.problems(alt: link.alt, caption: link.caption)
      for (field, value) in [("description", link.alt), ("caption", link.caption)] {
        if let value, value != PictureText.normalized(value, multiline: field == "caption") {
          problems.append("the \(field) has white space at an end, or a CR")
        }
      }
      if let name = link.name, let problem = PictureName.problem(name) { problems.append(problem) }
      if !problems.isEmpty {
        findings.append(
          Finding(
            kind: .invalidPictureText, target: review,
            problem: "picture \(position): " + problems.joined(separator: "; "),
            remedy: "say it again with `catalogue describe \(review.prefix(8)) \(position) --alt TEXT --caption TEXT`, "
              + "or clear it with `--clear`",
            repairable: false))
      }
      if cover && link.alt == nil {
        hints.append(
          Finding(
            kind: .coverWithoutDescription, target: review,
            problem: "the cover (picture \(position)) has no description for readers who cannot see it",
            remedy: "add one with `catalogue describe \(review.prefix(8)) \(position) --alt TEXT`", repairable: false))
      }
    }
    for (review, links) in Dictionary(grouping: rows, by: \.0).sorted(by: { $0.key < $1.key }) {
      if !links.contains(where: \.2) {
        findings.append(
          Finding(
            kind: .coverMissing, target: review, problem: "the review has images but no cover",
            remedy: "repair makes its first image the cover", repairable: true))
      }
      if links.map(\.1) != Array(1...links.count) {
        findings.append(
          Finding(
            kind: .imagePositions, target: review,
            problem: "image positions are \(links.map { String($0.1) }.joined(separator: ", ")), not 1–\(links.count)",
            remedy: "repair numbers them again in the same order", repairable: true))
      }
    }
    for review in try records.cardsOutOfStep() {
      findings.append(
        Finding(
          kind: .cardOutOfStep, target: review,
          problem: "the grid's card (how many pictures, the cover and its description) disagrees with its pictures",
          remedy: "repair sets the card from the pictures again", repairable: true))
    }
    return (findings, hints)
  }

  // MARK: Files

  /// Verifies each record's original and thumbnail, in parallel.
  func verify(
    _ records: [ImageRecord], quick: Bool, jobs: Int?, progress: (@Sendable (ImportProgress) -> Void)?
  ) -> [ImageVerdict] {
    let done = Atomic<Int>(0)
    let spec = thumbnailSpec
    let store = files
    let options = decodeOptions
    return Parallel.map(count: records.count, jobs: jobs) { index in
      let verdict = Self.verify(records[index], spec: spec, options: options, quick: quick, store: store)
      progress?(ImportProgress(done: done.add(1, ordering: .relaxed).newValue, total: records.count))
      return verdict
    }
  }

  static func verify(
    _ record: ImageRecord, spec: ThumbnailSpec, options: DecodeOptions, quick: Bool, store: any FileStore
  ) -> ImageVerdict {
    var verdict = ImageVerdict()
    let original = record.originalPath
    let uses = record.reviews.map { String($0.prefix(8)) }.joined(separator: ", ")
    let restore =
      "re-attach the original picture (`catalogue replace REVIEW IMAGE FILE`) or import the review's bundle"
      + (uses.isEmpty ? "" : "; used by \(uses)")
    func damaged(_ kind: Finding.Kind, _ problem: String) {
      verdict.findings.append(
        Finding(
          kind: kind, target: original, problem: problem, remedy: restore, repairable: false, reviews: record.reviews))
    }
    guard let size = store.size(of: original) else {
      damaged(.missingOriginal, "the original is missing")
      return verdict
    }
    var originalOK = size == record.bytes
    if !originalOK { damaged(.originalSizeMismatch, "the original has \(size) bytes, the record says \(record.bytes)") }
    if !quick && originalOK {
      do {
        let bytes = try store.read(original)
        verdict.bytesRead += bytes.count
        if SHA256.hex(bytes) != record.sha256 {
          damaged(.originalHashMismatch, "the original's bytes no longer hash to its name (damaged on disk)")
          originalOK = false
        } else {
          // 1/8 scale: every byte of the entropy-coded data is still read and checked.
          let decoded = try ImagePipeline.decode(bytes, minimumSize: (1, 1), options: options, convertingToSRGB: false)
          let header = decoded.header
          var facts: [String] = []
          if header.format.rawValue != record.format {
            facts.append("format \(header.format.rawValue), recorded \(record.format)")
          }
          if header.uprightWidth != record.width || header.uprightHeight != record.height {
            facts.append(
              "size \(header.uprightWidth)×\(header.uprightHeight), recorded \(record.width)×\(record.height)")
          }
          if header.orientation.rawValue != record.orientation {
            facts.append("orientation \(header.orientation.rawValue), recorded \(record.orientation)")
          }
          if header.colorSpace != record.colorSpace {
            facts.append(
              "colour space \(header.colorSpace), "
                + (record.colorSpace.map { "recorded \($0)" } ?? "not recorded (imported before colour management)"))
          }
          if !facts.isEmpty {
            verdict.findings.append(
              Finding(
                kind: .originalFactsMismatch, target: record.sha256,
                problem: "the record disagrees with the original: " + facts.joined(separator: "; "),
                remedy: "repair records the original's facts", repairable: true, reviews: record.reviews))
          }
        }
      } catch let error as CatalogueError {
        damaged(.missingOriginal, "the original cannot be read: \(error)")
        originalOK = false
      } catch let error as ImageError {
        damaged(.originalUndecodable, "the original no longer decodes: \(error)")
        originalOK = false
      } catch {
        damaged(.originalUndecodable, "\(error)")
        originalOK = false
      }
    }
    verdict.originalHealthy = originalOK
    let thumbnail = verifyThumbnail(
      record, spec: spec, options: options, quick: quick, store: store, originalOK: originalOK)
    verdict.findings += thumbnail.findings
    verdict.bytesRead += thumbnail.bytesRead
    if spec != displaySpec {
      let renditions = verifyRenditions(record, options: options, quick: quick, store: store)
      verdict.findings += renditions.findings
      verdict.bytesRead += renditions.bytesRead
    }
    return verdict
  }

  /// Verifies a record's display renditions, 1× and 2×, those that were made (they are
  /// optional): each decodes, and has the size and kind its spec gives. A bad one is repaired
  /// by deleting it: it is made again when a page asks for it.
  static func verifyRenditions(_ record: ImageRecord, options: DecodeOptions, quick: Bool, store: any FileStore)
    -> (findings: [Finding], bytesRead: Int)
  {
    guard !quick else { return ([], 0) }
    var findings: [Finding] = []
    var bytesRead = 0
    for (path, spec) in displayRenditions(of: record.sha256) {
      guard let size = store.size(of: path) else { continue }
      let (what, scale) = spec == displaySpec ? ("the display rendition", "") : ("the 2× display rendition", " at 2×")
      func finding(_ kind: Finding.Kind, _ problem: String) {
        findings.append(
          Finding(
            kind: kind, target: path, problem: problem,
            remedy: "repair deletes it (it is made again when a page shows the picture)", repairable: true,
            reviews: record.reviews))
      }
      do {
        let bytes = try store.read(path)
        bytesRead += size
        let header = try ImagePipeline.decode(bytes, minimumSize: (1, 1), options: options, convertingToSRGB: false)
          .header
        let expected = spec.size(forUprightWidth: record.width, height: record.height)
        if header.width != expected.width || header.height != expected.height
          || !path.hasSuffix("." + header.format.fileExtension)
        {
          finding(
            .staleRendition,
            "\(what) is \(header.width)×\(header.height) \(header.format.name); "
              + "the spec \(displaySpec.name)\(scale) gives \(expected.width)×\(expected.height)")
        }
      } catch {
        finding(.renditionUndecodable, "\(what) does not decode: \(error)")
      }
    }
    return (findings, bytesRead)
  }

  /// Verifies the share cards that were made (they are optional), in parallel: each decodes
  /// and is the card's size. A bad one is repaired by deleting it: it is made again when asked
  /// for. Files of another shape are left to the unknown files' rule; with `quick`, nothing.
  func verifyShareCards(quick: Bool, jobs: Int?) throws(CatalogueError) -> [Finding] {
    guard !quick else { return [] }
    let cards = try files.files(under: LibraryLayout.cards).filter { Self.isStoreName($0) }
    let store = files
    let options = decodeOptions
    return Parallel.map(count: cards.count, jobs: jobs) { index in
      Self.verifyShareCard(cards[index], options: options, store: store)
    }.compactMap { $0 }
  }

  /// What is wrong with the share card at `path`, or `nil`.
  static func verifyShareCard(_ path: String, options: DecodeOptions, store: any FileStore) -> Finding? {
    func finding(_ kind: Finding.Kind, _ problem: String) -> Finding {
      Finding(
        kind: kind, target: path, problem: problem,
        remedy: "repair deletes it (it is made again when the review's card is asked for)", repairable: true)
    }
    do {
      let bytes = try store.read(path)
      let header = try ImagePipeline.decode(bytes, minimumSize: (1, 1), options: options, convertingToSRGB: false)
        .header
      if header.format != .jpeg || header.width != ShareCard.width || header.height != ShareCard.height {
        return finding(
          .shareCardWrongSize,
          "the share card is \(header.width)×\(header.height) \(header.format.name), "
            + "not a \(ShareCard.width)×\(ShareCard.height) JPEG")
      }
      return nil
    } catch {
      return finding(.shareCardUndecodable, "the share card does not decode: \(error)")
    }
  }

  /// Verifies a record's thumbnails for `spec`, 1× and 2×: each there, decodable, of the size
  /// and format the spec and the record give. `originalOK` says whether they could be made
  /// again (and so whether findings are repairable).
  static func verifyThumbnail(
    _ record: ImageRecord, spec: ThumbnailSpec, options: DecodeOptions, quick: Bool, store: any FileStore,
    originalOK: Bool
  ) -> (findings: [Finding], bytesRead: Int) {
    let regenerate = originalOK ? "repair makes it again from the original" : "restore the original first"
    var findings: [Finding] = []
    var bytesRead = 0
    let thumbnails = [
      (record.thumbnailPath(spec: spec), "the thumbnail", false, (record.thumbnailWidth, record.thumbnailHeight)),
      (record.highDensityThumbnailPath(spec: spec), "the 2× thumbnail", true, nil),
    ]
    for (thumbnail, what, highDensity, recorded) in thumbnails {
      let made = highDensity ? spec.highDensity : spec
      func finding(_ kind: Finding.Kind, _ problem: String) {
        findings.append(
          Finding(
            kind: kind, target: thumbnail, problem: problem, remedy: regenerate, repairable: originalOK,
            reviews: record.reviews))
      }
      guard let size = store.size(of: thumbnail) else {
        finding(.missingThumbnail, "\(what) is missing")
        continue
      }
      guard !quick else { continue }
      bytesRead += size
      do {
        let bytes = try store.read(thumbnail)
        let header = try ImagePipeline.decode(bytes, options: options, convertingToSRGB: false).header
        let expected = made.size(forUprightWidth: record.width, height: record.height)
        let recorded = recorded ?? expected
        if header.width != expected.width || header.height != expected.height
          || header.format.rawValue != record.thumbnailFormat
          || header.width != recorded.0 || header.height != recorded.1
        {
          finding(
            .staleThumbnail,
            "\(what) is \(header.width)×\(header.height) \(header.format.name); the spec \(spec.name)"
              + (highDensity ? " at 2×" : "") + " gives \(expected.width)×\(expected.height)"
          )
        }
      } catch {
        finding(.thumbnailUndecodable, "\(what) does not decode: \(error)")
      }
    }
    return (findings, bytesRead)
  }

  /// Files that do not belong: unreferenced, temporary, or unknown. Without
  /// `matchingRecords` (the records may be incomplete: a damaged database) no file in the
  /// stores is called unreferenced.
  private func checkFiles(_ records: [ImageRecord], shareCards: Set<String>, matchingRecords: Bool)
    throws(CatalogueError) -> [Finding]
  {
    var (originals, thumbnails) = referencedFiles(records)
    thumbnails.formUnion(shareCards)
    var findings: [Finding] = []
    for folder in [LibraryLayout.originals, LibraryLayout.thumbnails, LibraryLayout.cards] {
      if let finding = linkFinding(folder) { findings.append(finding) }
    }
    for file in try storedFiles() {
      // A link, to a shard folder or in a file's place, whether a record names what is behind it or not.
      if let finding = linkFinding(file) {
        findings.append(finding)
        continue
      }
      guard matchingRecords && !originals.contains(file) && !thumbnails.contains(file) else { continue }
      if Self.isTemporary(file) {
        findings.append(
          Finding(
            kind: .temporaryFile, target: file, problem: "a temporary file left by an interrupted write",
            remedy: "repair moves it to lost+found", repairable: true))
      } else if Self.isStoreName(file) {
        findings.append(
          Finding(
            kind: .unreferencedFile, target: file, problem: "no record refers to this file",
            remedy: file.hasPrefix(LibraryLayout.cards + "/")
              ? "repair deletes it (a review's share card is made again when asked for)"
              : file.hasPrefix(LibraryLayout.thumbnails)
                ? "repair deletes it (a thumbnail can be made again)" : "repair moves it to lost+found",
            repairable: true))
      } else {
        findings.append(
          Finding(
            kind: .unknownFile, target: file, problem: "not a file the library writes",
            remedy: "repair moves it to lost+found", repairable: true))
      }
    }
    for entry in try rootEntries() where !Self.knownRootEntries.contains(entry) {
      findings.append(
        Finding(
          kind: .unknownFile, target: entry, problem: "not part of a library",
          remedy: "move it out of the library folder (repair leaves it alone)", repairable: false))
    }
    return findings
  }

  /// A symbolic link where the library keeps a folder or a file of its own. The command line
  /// would go through it, the server never does (it answers 404), and a repair that moved it
  /// aside would lose what is behind it: the user puts the real folder or file in its place.
  private func linkFinding(_ path: String) -> Finding? {
    guard let target = files.linkTarget(of: path) else { return nil }
    return Finding(
      kind: .symbolicLink, target: path,
      problem:
        "a symbolic link (to \(target)) where the library keeps its own folder or file: the server does not follow it",
      remedy:
        "put what it points to in its place (remove the link, move the folder or file here); repair leaves it alone",
      repairable: false)
  }

  static let knownRootEntries: Set<String> = [
    LibraryLayout.database, LibraryLayout.database + "-wal", LibraryLayout.database + "-shm",
    LibraryLayout.database + "-journal", LibraryLock.fileName, LibraryLayout.originals,
    LibraryLayout.thumbnails, LibraryLayout.cards, LibraryLayout.lostAndFound, LibraryLayout.databaseLocation,
  ]

  /// Whether `path` has the shape of a file the store writes: `originals/ab/<sha>.<ext>`,
  /// `thumbnails/ab/<sha>-<spec>.<ext>` and its 2× twin `thumbnails/ab/<sha>-<spec>@2x.<ext>`,
  /// or a share card, `cards/ab/<key>.jpg`.
  static func isStoreName(_ path: String) -> Bool {
    let parts = path.split(separator: "/")
    guard parts.count == 3, parts[1].count == 2 else { return false }
    let name = parts[2]
    guard name.count > 64, SHA256.isDigest(name.prefix(64)), name.prefix(2) == parts[1] else { return false }
    let rest = name.dropFirst(64)
    switch parts[0] {
    case Substring(LibraryLayout.originals):
      return ImageFormat.allCases.contains { $0.isSupported && rest == "." + $0.fileExtension }
    case Substring(LibraryLayout.thumbnails):
      guard rest.first == "-", let dot = rest.lastIndex(of: ".") else { return false }
      var spec = rest[rest.index(after: rest.startIndex)..<dot]
      if spec.hasSuffix(LibraryLayout.highDensityMark) { spec = spec.dropLast(LibraryLayout.highDensityMark.count) }
      return ThumbnailSpec(name: String(spec)) != nil && [".jpg", ".png"].contains(rest[dot...])
    case Substring(LibraryLayout.cards):
      return rest == ".jpg"
    default: return false
    }
  }

  private func rootEntries() throws(CatalogueError) -> [String] {
    try files.names(in: "")
  }
}
