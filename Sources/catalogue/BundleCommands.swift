import Catalogue
import Foundation

extension Commands {
  struct ExportedJSON: Encodable {
    let id: String
    let title: String
    let folder: String
    let path: String
    let files: [String]
  }

  struct ExportJSON: Encodable {
    let bundles: [ExportedJSON]
    @NullWhenMissing var index: String?
    @NullWhenMissing var archive: String?
    /// Bundle folders of an earlier `--all` that this one removed.
    let pruned: [String]
  }

  static let export = Command(
    spec: CommandSpec(
      "export", summary: "export reviews as bundles another library can import",
      synopsis: "REVIEW... --to DIR | --all --to DIR | --format letterboxd-csv|goodreads-csv --to FILE",
      details: """
        Writes one bundle folder per review in DIR (made if missing), named by the title and the start of \
        the id (arrival-3f2a91/): review.json (the record), images/ (each original byte-for-byte and its \
        1× thumbnail; the importing library makes the 2× one), index.html (the review as a reader sees it, working offline) and SHA256SUMS (check it \
        with `sha256sum -c SHA256SUMS` in the folder). --all exports every review and writes DIR/index.html, \
        a page listing them all by category, which a web server can serve as it is.
        --all leaves drafts out (a draft an earlier export wrote is removed) unless --include-drafts. \
        --archive writes each bundle as one .tar holding its folder (arrival-3f2a91.tar) instead; with --all, one DIR/catalogue.tar \
        holds every bundle folder and the index.html. A bundle already in DIR is refused unless --force, \
        which replaces only what an earlier export wrote and never deletes anything else.
        --format letterboxd-csv writes every film review as the CSV Letterboxd imports (Settings → Import),         and goodreads-csv every book review as the CSV Goodreads imports (My Books → Import and export), to         the FILE --to names (- for standard output): the title, the date, the review, the rating (the         service's own where the review was imported from it) and the service's ids; inline spoilers become         Goodreads' <spoiler> tags. Published reviews only, unless --include-drafts.
        """,
      options: [
        .init("to", value: "DIR", help: "the folder to write the bundles in"),
        .init("all", help: "every published review, and DIR/index.html listing them"),
        .init("include-drafts", help: "with --all, drafts too"),
        .init("archive", help: "write .tar files instead of folders"),
        .init("force", help: "replace bundles an earlier export wrote"),
        .init("format", value: "FORMAT", help: "letterboxd-csv or goodreads-csv: a file another service imports"),
      ],
      positionals: 0...Int.max,
      examples: [
        "catalogue export 3f2a --to ~/Exports",
        "catalogue export --all --to /var/www/reviews --force",
        "catalogue export 3f2a 9c1e --to ~/Exports --archive --json",
        "catalogue export --format letterboxd-csv --to letterboxd-import.csv",
      ])
  ) { context in
    let arguments = context.arguments
    if let name = arguments.value("format") { return try exportServiceCSV(context, name) }
    guard let folder = arguments.value("to"), !folder.isEmpty else {
      throw UsageError(message: "export needs --to DIR", command: "export")
    }
    let all = arguments.has("all")
    if arguments.has("include-drafts") && !all {
      throw UsageError(
        message: "--include-drafts goes with --all (reviews named one by one are exported whatever their state)",
        command: "export")
    }
    if all && !arguments.positionals.isEmpty {
      throw UsageError(message: "give reviews or --all, not both", command: "export")
    }
    if !all && arguments.positionals.isEmpty {
      throw UsageError(message: "export needs the reviews to export, or --all", command: "export")
    }
    let library = try context.openLibraryToRead()
    let force = arguments.has("force")
    let archive = arguments.has("archive")
    Progress.shared.start("Exporting")
    let update: (ImportProgress) -> Void = {
      Progress.shared.update(done: $0.done, total: $0.total)
    }
    let report =
      all
      ? try library.exportAll(
        to: folder, force: force, archive: archive, includeDrafts: arguments.has("include-drafts"), progress: update)
      : try library.export(
        arguments.positionals, to: folder, force: force, archive: archive, progress: update)
    Progress.shared.clear()
    if context.json {
      try Terminal.print(
        JSONShape.encode(
          ExportJSON(
            bundles: report.bundles.map {
              ExportedJSON(
                id: $0.id, title: $0.title, folder: $0.folder, path: $0.path, files: $0.files)
            },
            index: report.index, archive: report.archive, pruned: report.pruned)))
      return 0
    }
    if let archive = report.archive {
      Terminal.print(
        "Exported \(count(report.bundles.count, "review")) and the catalogue page to \(archive)")
      return 0
    }
    for bundle in report.bundles {
      Terminal.print("Exported \(Output.shortID(bundle.id)) (\(bundle.title)) to \(bundle.path)")
    }
    for name in report.pruned {
      Terminal.print("Removed \(name): its review is no longer in the library (or was renamed)")
    }
    if let index = report.index {
      Terminal.print("Wrote the catalogue page \(index) (\(count(report.bundles.count, "review")))")
    }
    return 0
  }

  /// `export --format NAME --to FILE`: the reviews as the CSV another service imports.
  static func exportServiceCSV(_ context: Context, _ name: String) throws -> Int32 {
    let arguments = context.arguments
    guard let format = ServiceCSV(rawValue: name) else {
      throw UsageError(
        message: "--format must be \(ServiceCSV.allCases.map(\.rawValue).joined(separator: " or ")), not \(name)",
        command: "export")
    }
    guard let file = arguments.value("to"), !file.isEmpty else {
      throw UsageError(message: "--format needs --to FILE (- for standard output)", command: "export")
    }
    for option in ["all", "archive", "force"] where arguments.has(option) {
      throw UsageError(message: "--\(option) does not go with --format", command: "export")
    }
    if !arguments.positionals.isEmpty {
      throw UsageError(message: "--format exports every review of its kind: give no reviews", command: "export")
    }
    let library = try context.openLibraryToRead()
    let made = try library.exportCSV(format, includeDrafts: arguments.has("include-drafts"))
    let bytes = Array(made.csv.utf8)
    if file == "-" {
      Terminal.writeOutput(bytes)
    } else {
      try OutputFile.write(bytes, to: file, what: "the \(format.rawValue) file")
    }
    let others = made.leftOut == 0 ? "" : " (\(count(made.leftOut, "review")) of other kinds left out)"
    let said = "Wrote \(count(made.written, "review")) of \(format.kinds)\(others)\(file == "-" ? "" : " to \(file)")"
    if context.json && file != "-" {
      try Terminal.print(
        JSONShape.encode(["file": file, "written": String(made.written), "leftOut": String(made.leftOut)]))
    } else if file == "-" {
      Terminal.printError(said)
    } else {
      Terminal.print(said)
    }
    return 0
  }

  struct ImportedJSON: Encodable {
    let source: String
    let bundleId: String
    let replaced: Bool
    let review: JSONShape.Review
  }

  struct ImportFailureJSON: Encodable {
    let source: String
    let error: String
  }

  struct ImportBundleJSON: Encodable {
    let imported: [ImportedJSON]
    let failures: [ImportFailureJSON]
  }

  static let importBundle = Command(
    spec: CommandSpec(
      "import-bundle", summary: "import review bundles that export wrote", synopsis: "PATH...",
      details: """
        PATH is a bundle folder, a folder of bundles (what export --all writes), or a .tar of either. \
        Each bundle is checked whole before the library is touched: every file against SHA256SUMS, the \
        format version, the record, and every picture decoded. A bundle with any problem is refused and \
        reported, and the others imported; each review comes in one transaction with its id, times and \
        pictures (thumbnails are made again with this library's setting). A review whose id the library \
        has already is refused unless --replace or --as-new. Exit status 1 when any bundle was refused.
        """,
      options: [
        .init("replace", help: "replace a review with the same id"),
        .init("as-new", help: "import under a new id, keeping the one in the library"),
      ],
      positionals: 1...Int.max,
      examples: [
        "catalogue import-bundle ~/Exports/arrival-3f2a91",
        "catalogue import-bundle ~/Exports --replace",
        "catalogue import-bundle catalogue.tar --as-new --json",
      ])
  ) { context in
    let arguments = context.arguments
    if arguments.has("replace") && arguments.has("as-new") {
      throw UsageError(message: "give --replace or --as-new, not both", command: "import-bundle")
    }
    let conflict: BundleConflict =
      arguments.has("replace") ? .replace : arguments.has("as-new") ? .asNew : .refuse
    let library = try context.openLibrary()
    var imported: [BundleImport] = []
    var failures: [BundleFailure] = []
    Progress.shared.start("Importing")
    for path in arguments.positionals {
      do throws(CatalogueError) {
        let report = try library.importBundles(at: path, conflict: conflict) { progress in
          Progress.shared.update(done: progress.done, total: progress.total)
        }
        imported += report.imported
        failures += report.failures
        for failure in report.failures { Terminal.printError("error: \(failure.error)") }
      } catch {
        failures.append(BundleFailure(source: path, error: error))
        Terminal.printError("error: \(error)")
      }
    }
    Progress.shared.clear()
    if context.json {
      try Terminal.print(
        JSONShape.encode(
          ImportBundleJSON(
            imported: imported.map {
              ImportedJSON(
                source: $0.source, bundleId: $0.bundleID, replaced: $0.replaced,
                review: JSONShape.Review($0.review))
            },
            failures: failures.map {
              ImportFailureJSON(source: $0.source, error: $0.error.description)
            })))
    } else {
      for item in imported {
        let verb = item.replaced ? "Replaced" : "Imported"
        let renamed =
          item.review.id == item.bundleID
          ? "" : " as a new review (the bundle's id is \(item.bundleID))"
        Terminal.print(
          "\(verb) \(Output.shortID(item.review.id)) (\(item.review.title))\(renamed) from \(item.source)"
        )
      }
      if imported.isEmpty && failures.isEmpty { Terminal.print("Nothing to import.") }
    }
    return failures.isEmpty ? 0 : 1
  }
}
