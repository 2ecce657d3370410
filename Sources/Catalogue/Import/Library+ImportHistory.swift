public import Foundation

/// What `catalogue import` is asked to do besides adding what is new.
public struct ImportOptions: Sendable, Equatable {
  /// Say what would be added, updated and skipped, and change nothing.
  public var dryRun = false
  /// Bring entries a newer export changed up to date (never a review edited here since the
  /// import, unless ``overwrite``).
  public var update = false
  /// With ``update``: replace a review edited here since its import with the export's entry.
  public var overwrite = false
  /// Import entries with a rating and no review text as drafts, rather than skip them.
  public var includeUnreviewed = false
  /// Import the rows that read and list the malformed ones, rather than refuse the export.
  public var skipMalformed = false

  public init() {}
}

/// What an import did, or (``dryRun``) would do: each entry added, updated or skipped, with
/// why, and the rows that could not be read.
public struct ImportReport: Sendable, Equatable, Encodable {
  public struct Item: Sendable, Equatable, Encodable {
    /// The review's title as the import makes it.
    public var title: String
    /// The service's id for the entry.
    public var sourceID: String
    /// The review's id: nil for one a dry run would add.
    public var review: String?
    /// Why it was skipped (or not brought up to date).
    public var reason: String?
    /// Where the entry is: the export's file and line.
    public var file: String
    public var line: Int
  }

  public var source: String
  public var dryRun: Bool
  public var added: [Item] = []
  public var updated: [Item] = []
  /// Entries imported before and unchanged in this export.
  public var unchanged = 0
  public var skipped: [Item] = []
  /// The rows that could not be read: `reviews.csv, line 12, column 40: why`.
  public var malformed: [String] = []
}

extension Library {
  /// Imports the reviews of an export from `source` at `path` (a Letterboxd ZIP or folder, a
  /// Goodreads, IMDb or StoryGraph CSV file), in one transaction: an interruption or a failure
  /// leaves the library as it was.
  ///
  /// Each entry is remembered with its source and the source's id, so a second import of the
  /// same export adds nothing; an entry the export changed since is brought up to date with
  /// `update`, but never over a review edited here since it was imported, unless `overwrite`.
  /// An entry with a rating and no review text is skipped (and listed), or imported as a draft
  /// with `includeUnreviewed`. A malformed row refuses the whole export (every one named by
  /// file, line and column), unless `skipMalformed`. `progress` hears how many entries of how
  /// many are done.
  public func importHistory(
    _ source: ImportSource, from path: String, options: ImportOptions = ImportOptions(), now: Date = Date(),
    progress: ((_ done: Int, _ total: Int) -> Void)? = nil
  ) throws(CatalogueError) -> ImportReport {
    let export = try source.read(path)
    var report = ImportReport(source: source.rawValue, dryRun: options.dryRun)
    report.malformed = export.problems.map(\.description)
    if !export.problems.isEmpty && !options.skipMalformed {
      throw .malformedExport(path: path, problems: report.malformed)
    }
    for (entry, reason) in export.skipped {
      report.skipped.append(entry.item(review: nil, reason: reason))
    }
    if !options.dryRun {
      try requireWritable()
      // One transaction of thousands of reviews and their search index: a page cache that
      // holds it keeps SQLite from spilling pages to the log and writing them again.
      try records.limitMemory(cacheBytes: 64 << 20)
    }
    func plan() throws(CatalogueError) {
      let known = try records.importedEntries(source: source.rawValue)
      var seen: Set<String> = []
      for (index, entry) in export.entries.enumerated() {
        if index % 200 == 0 {
          progress?(index, export.entries.count)
          if !options.dryRun { try Interruption.check() }
        }
        // The same entry twice in one export: the first is kept.
        guard seen.insert(entry.sourceID).inserted else {
          report.skipped.append(entry.item(review: nil, reason: "the same entry is earlier in the export"))
          continue
        }
        guard let previous = known[entry.sourceID] else {
          if !entry.hasReview && !options.includeUnreviewed {
            report.skipped.append(
              entry.item(
                review: nil, reason: "rated, with no review text (--include-unreviewed imports it as a draft)"))
            continue
          }
          let fields = try entry.fields()
          var id: String?
          if !options.dryRun {
            let created = entry.date ?? now
            let made = try insertReview(
              fields, id: nil, created: created, updated: created, published: entry.hasReview ? created : nil)
            try records.saveReviewSource(
              source: source.rawValue, sourceID: entry.sourceID, review: made, rating: entry.sourceRating,
              fingerprint: entry.fingerprint, version: Self.version(of: fields), imported: now)
            id = made
          }
          report.added.append(entry.item(review: id, reason: nil))
          continue
        }
        if previous.fingerprint == entry.fingerprint {
          report.unchanged += 1
          continue
        }
        guard options.update else {
          report.skipped.append(
            entry.item(review: previous.review, reason: "changed in this export (--update brings it up to date)"))
          continue
        }
        guard let row = try records.review(id: previous.review) else {
          report.skipped.append(entry.item(review: previous.review, reason: "its review is gone"))
          continue
        }
        let current = ReviewDraft(
          title: row.title, body: row.body, rating: row.rating, category: row.category, favorite: row.favorite,
          containsSpoilers: row.containsSpoilers
        ).version
        if current != previous.version && !options.overwrite {
          report.skipped.append(
            entry.item(
              review: previous.review,
              reason: "edited here since it was imported (--overwrite replaces the edit with the export's)"))
          continue
        }
        var fields = try entry.fields()
        // What the export does not say stays as it is here.
        fields.favorite = row.favorite
        if !options.dryRun {
          try records.updateReview(id: previous.review, fields, updated: now, author: author)
          try records.saveReviewSource(
            source: source.rawValue, sourceID: entry.sourceID, review: previous.review, rating: entry.sourceRating,
            fingerprint: entry.fingerprint, version: Self.version(of: fields), imported: now)
        }
        report.updated.append(entry.item(review: previous.review, reason: nil))
      }
      progress?(export.entries.count, export.entries.count)
    }
    if options.dryRun {
      try read(plan)
    } else {
      try write(plan)
    }
    report.skipped.sort { ($0.file, $0.line) < ($1.file, $1.line) }
    return report
  }

  /// The version a review with `fields` has (``Review/version``).
  static func version(of fields: ReviewFields) -> String {
    ReviewDraft(
      title: fields.title, body: fields.body, rating: fields.rating, category: fields.category.rawValue,
      favorite: fields.favorite, containsSpoilers: fields.containsSpoilers
    ).version
  }
}

extension ImportEntry {
  func item(review: String?, reason: String?) -> ImportReport.Item {
    ImportReport.Item(title: title, sourceID: sourceID, review: review, reason: reason, file: file, line: line)
  }

  /// The review's fields, validated as any review's are.
  func fields() throws(CatalogueError) -> ReviewFields {
    do {
      return try ReviewDraft(
        title: title, body: body, rating: rating, category: category.rawValue, favorite: false,
        containsSpoilers: containsSpoilers
      ).validated()
    } catch {
      guard case .invalidReview(let problems) = error else { throw error }
      throw .invalidReview(problems.map { "\(file), line \(line): \($0)" })
    }
  }
}
