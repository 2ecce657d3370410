import Catalogue
import Foundation

extension Commands {
  static let importHistory = Command(
    spec: CommandSpec(
      "import", summary: "import reviews and ratings from Letterboxd, Goodreads, IMDb or The StoryGraph",
      synopsis:
        "SERVICE PATH [--dry-run] [--update [--overwrite]] [--include-unreviewed] [--skip-malformed] [--as NAME]",
      details: """
        SERVICE is letterboxd (PATH: the ZIP of Settings → Data → Export, or the folder it unpacks to: \
        reviews.csv and ratings.csv are read), goodreads (My Books → Import and export → Export Library), \
        imdb (Your Ratings → Export) or storygraph (Manage Account → Export StoryGraph Library). Each entry \
        becomes a review of its own, remembered with the service and the service's id, so importing the same \
        export again adds nothing. Ratings become whole stars: the rating on a scale of 5 (IMDb's 10 halved), \
        rounded to the nearest star with halves up (3.5 → 4, 3.25 → 3), never below 1 for a rating given; the \
        rating as the service wrote it is kept and `show` prints it. The date an entry was watched, read or \
        rated is the review's date; Goodreads' spoiler mark becomes the spoiler warning. An entry rated but \
        not reviewed (all of IMDb's) is skipped and listed, or imported as a draft with --include-unreviewed. \
        Everything is imported in one transaction: Ctrl-C, or a failure, leaves the library as it was. A row \
        that cannot be read is named by file, line and column, and the export is refused unless \
        --skip-malformed. Exit status 1 when anything was skipped for a problem or a row could not be read.
        """,
      options: [
        .init("dry-run", help: "say what would be added, updated and skipped, and change nothing"),
        .init("update", help: "bring up to date the entries a newer export changed (not those edited here since)"),
        .init("overwrite", help: "with --update, replace even reviews edited here since their import"),
        .init("include-unreviewed", help: "import entries with a rating and no review text as drafts"),
        .init("skip-malformed", help: "import the rows that read, and list those that do not"),
        .init("as", value: "NAME", help: "record the reviews as written by reviewer NAME (their page lists them)"),
      ],
      positionals: 2...2,
      examples: [
        "catalogue import letterboxd ~/Downloads/letterboxd-alice-2026-12-01.zip --dry-run",
        "catalogue import goodreads goodreads_library_export.csv",
        "catalogue import imdb ratings.csv --include-unreviewed",
        "catalogue import letterboxd ~/Downloads/letterboxd-export --update --json",
      ])
  ) { context in
    let arguments = context.arguments
    guard let source = ImportSource(rawValue: arguments.positionals[0].lowercased()) else {
      throw UsageError(
        message: "there is no service \(Shown.path(arguments.positionals[0])); give "
          + ImportSource.allCases.map(\.rawValue).joined(separator: ", "),
        command: "import")
    }
    if arguments.has("overwrite") && !arguments.has("update") {
      throw UsageError(message: "--overwrite goes with --update", command: "import")
    }
    var options = ImportOptions()
    options.dryRun = arguments.has("dry-run")
    options.update = arguments.has("update")
    options.overwrite = arguments.has("overwrite")
    options.includeUnreviewed = arguments.has("include-unreviewed")
    options.skipMalformed = arguments.has("skip-malformed")
    let library = options.dryRun ? try context.openLibraryToRead() : try context.openLibrary()
    if let name = arguments.value("as") {
      if let problem = Library.nameProblem(name) { throw CatalogueError.badReviewerName(name, problem: problem) }
      guard let reviewer = try library.reviewer(named: name) else { throw CatalogueError.reviewerNotFound(name) }
      library.author = reviewer.name
    }
    Progress.shared.start(options.dryRun ? "Reading" : "Importing")
    let report: ImportReport
    do {
      report = try library.importHistory(source, from: arguments.positionals[1], options: options) { done, total in
        Progress.shared.update(done: done, total: total)
      }
    } catch {
      Progress.shared.clear()
      throw error
    }
    Progress.shared.clear()
    if context.json {
      try Terminal.print(JSONShape.encode(report))
    } else {
      printReport(report, source: source)
    }
    let problems = report.skipped.contains { $0.reason?.hasPrefix("edited here") == true } || !report.malformed.isEmpty
    return problems ? 1 : 0
  }

  /// The report as lines for people: a line an entry added, updated or skipped, then the totals.
  static func printReport(_ report: ImportReport, source: ImportSource) {
    let would = report.dryRun
    for item in report.added {
      Terminal.print("\(would ? "would add" : "added")     \(item.title)\(item.review.map { "  \($0)" } ?? "")")
    }
    for item in report.updated {
      Terminal.print("\(would ? "would update" : "updated")   \(item.title)  \(item.review ?? "")")
    }
    for item in report.skipped {
      Terminal.print("skipped   \(item.title) (\(item.file), line \(item.line)): \(item.reason ?? "")")
    }
    for problem in report.malformed { Terminal.printError("warning: skipped a row: \(problem)") }
    func count(_ number: Int, _ what: String) -> String { "\(number) \(what)" }
    let totals = [
      count(report.added.count, would ? "to add" : "added"),
      count(report.updated.count, would ? "to update" : "updated"),
      count(report.unchanged, "unchanged"), count(report.skipped.count, "skipped"),
    ].joined(separator: ", ")
    Terminal.print(
      "\(source.displayName): \(totals)"
        + (report.malformed.isEmpty ? "" : ", \(report.malformed.count) rows unreadable")
        + (would ? " (a dry run: nothing was changed)" : ""))
  }
}
