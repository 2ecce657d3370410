import Dispatch
public import Foundation
import ImagePipeline
import Synchronization

/// What `check`, with `--repair`, came to: the first check, what the repair did, and what a
/// second check found after it.
public struct CheckOutcome: Sendable {
  public var report: CheckReport
  /// What the repair did (or with a dry run would do); `nil` without a repair, or when the
  /// library was healthy.
  public var repair: RepairReport?
  /// What the check after a real repair found; `nil` when there was none.
  public var remaining: [Finding]?

  public init(report: CheckReport, repair: RepairReport? = nil, remaining: [Finding]? = nil) {
    self.report = report
    self.repair = repair
    self.remaining = remaining
  }

  /// Healthy at the end: after the repair when one ran, else as first checked.
  public var isHealthy: Bool { remaining.map(\.isEmpty) ?? report.isHealthy }
}

/// Which part of a check an update is about.
public enum CheckPhase: Sendable {
  case verifying, repairing, checkingAgain
}

extension Library {
  /// The check command's policy for the library at `path`, opened to read: a database that
  /// cannot be opened is a finding of its own (not a failure to check); when it is its header
  /// that is damaged and a repair is asked for, the header is restored first, and the library
  /// then checked and repaired as usual. See ``checkAndRepair(quick:jobs:repair:dryRun:now:progress:)``.
  public static func checkAndRepair(
    at path: String, database: String? = nil, quick: Bool = false, jobs: Int? = nil, repair: Bool,
    dryRun: Bool = false, now: Date = Date(),
    progress: (@Sendable (CheckPhase, ImportProgress?) -> Void)? = nil
  ) throws(CatalogueError) -> CheckOutcome {
    let library: Library
    do {
      library = try Library(opening: path, upgrading: false, database: database)
    } catch {
      let headerFixes = SQLiteRecords.damagedHeader(ofLibraryAt: path)
      guard let report = CheckReport.unopenable(error, quick: quick, headerFixes: headerFixes) else { throw error }
      guard repair, headerFixes != nil, let finding = report.findings.first,
        let actions = try SQLiteRecords.repairDatabaseHeader(at: path, dryRun: dryRun, now: now)
      else { return CheckOutcome(report: report) }
      var done = RepairReport(
        dryRun: dryRun, actions: actions.map { RepairReport.Action(finding: finding, action: $0) }, unrepaired: [])
      if dryRun { return CheckOutcome(report: report, repair: done) }
      let inner = try Library(opening: path, upgrading: false, database: database).checkAndRepair(
        quick: quick, jobs: jobs, repair: true, now: now, progress: progress)
      done.actions += inner.repair?.actions ?? []
      done.unrepaired = inner.repair?.unrepaired ?? []
      return CheckOutcome(report: report, repair: done, remaining: inner.remaining ?? inner.report.findings)
    }
    return try library.checkAndRepair(
      quick: quick, jobs: jobs, repair: repair, dryRun: dryRun, now: now, progress: progress)
  }

  /// The check command's policy: check; when asked to repair and something is wrong, repair
  /// (or with `dryRun`, say what a repair would do); after a real repair, check again, so that
  /// the outcome says what is still wrong. `progress` hears each phase as it starts (nil) and
  /// each picture as it is verified.
  public func checkAndRepair(
    quick: Bool = false, jobs: Int? = nil, repair: Bool, dryRun: Bool = false, now: Date = Date(),
    progress: (@Sendable (CheckPhase, ImportProgress?) -> Void)? = nil
  ) throws(CatalogueError) -> CheckOutcome {
    progress?(.verifying, nil)
    let report = try check(quick: quick, jobs: jobs) { progress?(.verifying, $0) }
    var outcome = CheckOutcome(report: report, repair: nil, remaining: nil)
    guard repair && !report.isHealthy else { return outcome }
    progress?(.repairing, nil)
    var done = try self.repair(report, dryRun: dryRun, now: now)
    guard !dryRun else {
      outcome.repair = done
      return outcome
    }
    progress?(.checkingAgain, nil)
    var again = try check(quick: quick, jobs: jobs) { progress?(.checkingAgain, $0) }
    // A damaged database is repaired alone (everything else was seen through it): what the
    // check of the repaired database finds is repaired now, and checked once more.
    if report.findings.contains(where: { $0.kind == .databaseCorrupt }) && !again.isHealthy
      && !again.findings.contains(where: { $0.kind == .databaseCorrupt })
    {
      progress?(.repairing, nil)
      let more = try self.repair(again, dryRun: false, now: now)
      done.actions += more.actions
      done.unrepaired = more.unrepaired
      progress?(.checkingAgain, nil)
      again = try check(quick: quick, jobs: jobs) { progress?(.checkingAgain, $0) }
    }
    outcome.repair = done
    outcome.remaining = again.findings
    return outcome
  }
  /// Puts right what `report` found that can be put right from what is in the library:
  /// rebuilds the search index, removes broken links, fixes covers and positions, records an
  /// original's facts again, makes missing or stale thumbnails again from their originals, and
  /// clears away unreferenced, temporary and unknown files in the stores (originals and
  /// anything that may matter go to `lost+found/`, thumbnails are deleted). It never deletes
  /// or rewrites an original that a record refers to.
  ///
  /// Each finding is checked again just before it is acted on, so a report that went stale
  /// (an import linked a file meanwhile, say) removes nothing live. With `dryRun`, the same
  /// checks run and the actions are reported, not taken.
  public func repair(_ report: CheckReport, dryRun: Bool = false, now: Date = Date()) throws(CatalogueError)
    -> RepairReport
  {
    var result = RepairReport(dryRun: dryRun, actions: [], unrepaired: [])
    // The spec in force now: thumbnails found wrong for a spec a rebuild has since switched
    // from are the rebuild's, not the repair's.
    try refreshIfChanged()
    func did(_ finding: Finding, _ action: String) {
      result.actions.append(RepairReport.Action(finding: finding, action: action))
    }
    let byKind = Dictionary(grouping: report.findings, by: \.kind)
    result.unrepaired = report.findings.filter { !$0.repairable }

    // A damaged database file first, and alone: every other finding came through it, so none
    // is acted on (a "missing" record may only be unreadable); the check after this repair
    // looks again through the repaired file.
    if let damaged = byKind[.databaseCorrupt]?.first(where: \.repairable) {
      for action in try repairDatabase(dryRun: dryRun, now: now) { did(damaged, action) }
      result.unrepaired = []
      return result
    }

    // The database: the search index and broken links.
    for finding in byKind[.searchIndexOutOfStep] ?? [] {
      if records.damage(quick: true).searchIndex == nil, try searchIndexInStep() { continue }
      if dryRun {
        did(finding, "would rebuild the full-text index from the reviews")
        continue
      }
      do {
        try write { () throws(CatalogueError) in try self.records.rebuildSearchIndex() }
        did(finding, "rebuilt the full-text index from the reviews")
      } catch {
        // Too damaged to be rebuilt where it is (its configuration unreadable, say): the
        // database is rebuilt around it.
        if case .database(let cause) = error, cause.kind == .busy { throw error }
        for action in try repairDatabase(dryRun: false, now: now) { did(finding, action) }
      }
    }
    for finding in byKind[.foreignKeyViolation] ?? []
    where Self.accessTables.contains(where: { finding.target.hasPrefix($0 + " ") }) {
      let removed = try write { () throws(CatalogueError) -> Int in
        try self.records.removeOrphanAccess(dryRun: dryRun)
      }
      if removed > 0 {
        let what = removed == 1 ? "session, token or sign-in address" : "sessions, tokens or sign-in addresses"
        did(finding, "deleted \(removed) \(what) of reviewers that do not exist")
      }
    }
    for finding in byKind[.foreignKeyViolation] ?? []
    where !Self.accessTables.contains(where: { finding.target.hasPrefix($0 + " ") }) {
      // A link to a picture whose record is gone (a damaged page) while its original is still
      // in the store: the record is made again from the original, and the link kept.
      for restored in try restoreImageRecords(dryRun: dryRun) {
        did(finding, (dryRun ? "would record " : "recorded ") + "\(restored) again from its original")
      }
      let removed = try write { () throws(CatalogueError) -> Int in
        let broken = try self.records.removeBrokenLinks(dryRun: dryRun)
        if !dryRun {
          for review in Set(broken.map(\.review)) { try renumber(review) }
        }
        return broken.count
      }
      if removed > 0 { did(finding, "removed \(removed) link\(removed == 1 ? "" : "s") to missing records") }
    }

    // Links: covers and positions.
    for finding in (byKind[.coverMissing] ?? []) + (byKind[.imagePositions] ?? []) {
      let needed = try write { () throws(CatalogueError) -> Bool in
        let links = try images(of: finding.target)
        if links.isEmpty { return false }
        let healthy = links.contains(where: \.isCover) && links.map(\.position) == Array(1...links.count)
        if healthy { return false }
        if !dryRun { try renumber(finding.target) }
        return true
      }
      if needed {
        did(
          finding,
          finding.kind == .coverMissing
            ? "made the first image the cover" : "numbered the images 1, 2, … in their order")
      }
    }

    // Cards (after the covers: a cover made is on its card already).
    let cards = byKind[.cardOutOfStep] ?? []
    if !cards.isEmpty {
      if !dryRun {
        try write { () throws(CatalogueError) in try self.records.refreshCards(of: cards.map(\.target)) }
      }
      for finding in cards {
        let action = "the card of review \(finding.target.prefix(8)) from its pictures again"
        did(finding, (dryRun ? "would set " : "set ") + action)
      }
    }

    // Records that disagree with their originals.
    let records = try imageRecords()
    let bySHA = Dictionary(records.map { ($0.sha256, $0) }, uniquingKeysWith: { first, _ in first })
    for finding in (byKind[.invalidImageRecord] ?? []) + (byKind[.originalFactsMismatch] ?? []) {
      guard let record = bySHA[finding.target] else { continue }
      let header: ImageHeader
      do {
        header = try verifiedHeader(of: record)
      } catch {
        // Missing, changed or undecodable: the original is the user's to restore.
        result.unrepaired.append(finding)
        continue
      }
      // A thumbnail made under another colour space (or before colour management) shows the
      // wrong colours: it is made again from the original.
      let recolour = record.colorSpace != header.colorSpace && !["sRGB", "untagged"].contains(header.colorSpace)
      if !dryRun {
        try write { () throws(CatalogueError) in
          try self.records.setFacts(of: record.sha256, header)
        }
        if recolour { try remakeThumbnail(record) }
      }
      did(
        finding,
        "recorded the original's facts: \(header.format.rawValue), \(header.uprightWidth)×\(header.uprightHeight), "
          + "orientation \(header.orientation.rawValue), colour space \(header.colorSpace)"
          + (recolour ? "; made its thumbnail again in colour" : ""))
    }

    // Thumbnails, made again from their originals: a picture's 1× and 2× together.
    let thumbnailKinds: [Finding.Kind] = [.missingThumbnail, .thumbnailUndecodable, .staleThumbnail]
    let spec = thumbnailSpec
    let byThumbnail = Dictionary(
      records.flatMap { [($0.thumbnailPath(spec: spec), $0), ($0.highDensityThumbnailPath(spec: spec), $0)] },
      uniquingKeysWith: { first, _ in first })
    var remade: Set<String> = []
    for finding in thumbnailKinds.flatMap({ byKind[$0] ?? [] }) where finding.repairable {
      guard let record = byThumbnail[finding.target] else { continue }
      if remade.contains(record.sha256) {
        did(finding, "made \(finding.target) again from the original")
        continue
      }
      // Still wrong? Only the thumbnails are looked at again: the remake checks the original.
      let now = Self.verifyThumbnail(
        record, spec: spec, options: decodeOptions, quick: false, store: files, originalOK: true)
      guard now.findings.contains(where: { $0.target == finding.target }) else { continue }
      do throws(CatalogueError) {
        if dryRun {
          _ = try verifiedHeader(of: record)
        } else {
          try remakeThumbnail(record, replacing: Set(now.findings.map(\.target)))
        }
      } catch {
        // A failed write (a full disk) stops the repair; an original that went bad since the
        // check (unreadable, another hash, undecodable) is the user's to restore.
        if case .io(let operation, _, _) = error, operation.isStoring { throw error }
        result.unrepaired.append(finding)
        continue
      }
      remade.insert(record.sha256)
      did(finding, "made \(finding.target) again from the original")
    }

    // Display renditions that went bad: deleted, to be made again when a page asks.
    for finding in (byKind[.renditionUndecodable] ?? []) + (byKind[.staleRendition] ?? []) {
      let sha256 = String(finding.target.split(separator: "/").last?.prefix(64) ?? "")
      guard let record = bySHA[sha256] else { continue }
      // Still wrong?
      let now = Self.verifyRenditions(record, options: decodeOptions, quick: false, store: files)
      guard now.findings.contains(where: { $0.target == finding.target }) else { continue }
      if !dryRun {
        let lock = try LibraryLock(folder: path, mode: .exclusive)
        defer { withExtendedLifetime(lock) {} }
        if files.size(of: finding.target) != nil { try files.remove(finding.target) }
      }
      did(finding, "deleted \(finding.target) (it is made again when a page shows the picture)")
    }

    // Share cards that went bad: deleted, to be made again when asked for.
    for finding in (byKind[.shareCardUndecodable] ?? []) + (byKind[.shareCardWrongSize] ?? []) {
      // Still wrong?
      guard files.size(of: finding.target) != nil,
        Self.verifyShareCard(finding.target, options: decodeOptions, store: files) != nil
      else { continue }
      if !dryRun {
        let lock = try LibraryLock(folder: path, mode: .exclusive)
        defer { withExtendedLifetime(lock) {} }
        if files.size(of: finding.target) != nil { try files.remove(finding.target) }
      }
      did(finding, "deleted \(finding.target) (it is made again when the review's card is asked for)")
    }

    // Files that do not belong in the stores.
    let fileKinds: [Finding.Kind] = [.unreferencedFile, .temporaryFile, .unknownFile]
    let strays = fileKinds.flatMap { byKind[$0] ?? [] }.filter(\.repairable)
    if !strays.isEmpty {
      let byFile = Dictionary(strays.map { ($0.target, $0) }, uniquingKeysWith: { first, _ in first })
      for swept in try sweepUnreferenced(strays.map(\.target), dryRun: dryRun, now: now) {
        if let finding = byFile[swept.file] { did(finding, swept.action) }
      }
    }
    return result
  }

  /// Makes again, from the originals in the store, the records of pictures that reviews link
  /// to but that have none; the originals' paths. An original that is missing, damaged or
  /// does not decode is left for the broken link's own repair.
  private func restoreImageRecords(dryRun: Bool) throws(CatalogueError) -> [String] {
    let missing = try read { () throws(CatalogueError) in try records.linkedImagesWithoutRecords() }
    guard !missing.isEmpty else { return [] }
    let lock = try LibraryLock(folder: path, mode: .shared)
    defer { withExtendedLifetime(lock) {} }
    var restored: [String] = []
    for sha256 in missing where SHA256.isDigest(sha256) {
      let candidates = ImageFormat.allCases.filter(\.isSupported).map {
        LibraryLayout.original(sha256: sha256, fileExtension: $0.fileExtension)
      }
      guard let original = candidates.first(where: { files.size(of: $0) != nil }),
        let bytes = try? files.read(original), SHA256.hex(bytes) == sha256,
        let prepared = try? PreparedImage.make(
          bytes: bytes, sha256: sha256, source: original, spec: thumbnailSpec, options: decodeOptions)
      else { continue }
      if !dryRun {
        let stored = try store(prepared)
        try write { () throws(CatalogueError) in try insertImageRecord(stored) }
      }
      restored.append(original)
    }
    return restored
  }

  /// Numbers a review's images 1, 2, … in their order, keeping the cover (or making the first
  /// one the cover). Changes no review's updated time.
  private func renumber(_ review: String) throws(CatalogueError) {
    let links = try images(of: review)
    try relink(review, links.map(ImageLink.init), cover: links.first(where: \.isCover)?.image.sha256, now: nil)
  }

  /// The original's header, once it is read, hashed against its name and decoded; the error
  /// says which of those failed.
  private func verifiedHeader(of record: ImageRecord) throws(CatalogueError) -> ImageHeader {
    let bytes = try files.read(record.originalPath)
    guard SHA256.hex(bytes) == record.sha256 else { throw .originalChanged(path: record.originalPath) }
    do {
      return try ImagePipeline.decode(bytes, minimumSize: (1, 1), options: decodeOptions, convertingToSRGB: false)
        .header
    } catch {
      throw .imageRejected(file: record.originalPath, reason: error)
    }
  }

  /// Makes a record's thumbnails (1× and 2×) again from its verified original and records
  /// what it made. With `replacing`, only those of its paths are written, and a healthy
  /// thumbnail keeps its bytes (a browser may hold it under its name already) and its record,
  /// unless the new ones come in another format: then both are written.
  func remakeThumbnail(_ record: ImageRecord, replacing: Set<String>? = nil) throws(CatalogueError) {
    let spec = thumbnailSpec
    let made = try Self.makeThumbnails(of: record, spec: spec, options: decodeOptions, store: files)
    let sameNames = made.path == record.thumbnailPath(spec: spec)
    let writes = made.files.filter { replacing?.contains($0.path) ?? true || !sameNames }
    for file in writes { try files.write(file.bytes, to: file.path) }
    guard writes.contains(where: { $0.path == made.path }) else { return }
    try write { () throws(CatalogueError) in
      // A rebuild that switched the spec meanwhile made and recorded this picture's thumbnails
      // for its own: these, of the old spec, are left for the rebuild's cleanup.
      guard thumbnailSpec == spec else { return }
      try recordThumbnail(made.thumbnail, of: record.sha256)
    }
  }
}
