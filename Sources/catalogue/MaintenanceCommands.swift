import Catalogue
import Foundation
import ImagePipeline

@preconcurrency import Glibc

extension Commands {
  struct FindingJSON: Encodable {
    let kind: String
    let target: String
    let problem: String
    let remedy: String
    let repairable: Bool
    let reviews: [String]

    init(_ finding: Finding) {
      kind = finding.kind.rawValue
      target = finding.target
      problem = finding.problem
      remedy = finding.remedy
      repairable = finding.repairable
      reviews = finding.reviews
    }
  }

  struct CheckJSON: Encodable {
    struct Action: Encodable {
      let kind: String
      let target: String
      let action: String
    }

    struct Repair: Encodable {
      let dryRun: Bool
      let actions: [Action]
      let unrepaired: [FindingJSON]
    }

    let healthy: Bool
    let quick: Bool
    let reviews: Int
    let images: Int
    let thumbnails: Int
    let bytesRead: Int
    let findings: [FindingJSON]
    /// What is not wrong but worth doing (`cover-without-description`): never unhealthy.
    let hints: [FindingJSON]
    @NullWhenMissing var repair: Repair?
    /// What a check found after the repair.
    @NullWhenMissing var remaining: [FindingJSON]?
  }

  /// `check --json` when the check itself could not be done.
  struct CheckFailureJSON: Encodable {
    let healthy: Bool
    let error: String
  }

  static func count(_ number: Int, _ noun: String) -> String {
    let formatter = NumberFormatter()
    formatter.numberStyle = .decimal
    formatter.groupingSeparator = ","
    let text = formatter.string(from: NSNumber(value: number)) ?? String(number)
    return "\(text) \(noun)\(number == 1 ? "" : "s")"
  }

  static func describe(_ finding: Finding) -> String {
    "\(finding.kind.rawValue): \(finding.target): \(finding.problem) — \(finding.remedy)"
  }

  static let check = Command(
    spec: CommandSpec(
      "check", summary: "verify the whole library, and repair what can be repaired",
      details: """
        Verifies the database and its search index, every record, every original (its size, its SHA-256 \
        against its name, that it decodes, that the record's facts match) and every thumbnail (1× and the \
        2× one for high-density screens), the share cards made so far, and that the library folder holds \
        nothing else. Exit status 0 \
        when healthy, 1 when anything is wrong. \
        Hints (lines starting "hint:"; `hints` in --json) are not problems: a cover without a description, \
        which `catalogue describe REVIEW IMAGE --alt TEXT` adds; they leave the status 0.
        --repair makes missing or stale thumbnails again, moves unreferenced and temporary files to \
        lost+found/ (thumbnails and share cards are deleted), rebuilds the search index and fixes covers; it never \
        touches an original a record refers to. What it cannot repair it names, with what to do. \
        A damaged database is reported first, and --repair repairs it (keeping a copy in lost+found/) before \
        anything seen through it. Files are matched against the records once running imports have linked \
        what they wrote: check waits for them. It never changes a library unless --repair is given.
        """,
      options: [
        .init("quick", help: "check only that files exist with the right sizes"),
        .init("repair", help: "repair what can be repaired, then check again"),
        .init("dry-run", help: "with --repair: say what a repair would do, and do nothing"),
        .init("jobs", value: "N", help: "verify on N threads (default: one a core)"),
      ],
      examples: ["catalogue check", "catalogue check --repair", "catalogue check --repair --dry-run --json"])
  ) { context in
    let arguments = context.arguments
    if arguments.has("dry-run") && !arguments.has("repair") {
      throw UsageError(message: "--dry-run goes with --repair", command: "check")
    }
    let quick = arguments.has("quick")
    let jobs = try ArgumentParser.integer(arguments, "jobs", in: 1...256, command: "check")
    // A database that cannot be opened is a finding of its own, not a failure to check.
    let outcome: CheckOutcome
    do {
      outcome = try Library.checkAndRepair(
        at: context.libraryPath, database: context.database, quick: quick, jobs: jobs,
        repair: arguments.has("repair"), dryRun: arguments.has("dry-run")
      ) { phase, progress in
        guard let progress else {
          // A repair writes: from here a first Ctrl-C stops it at its next safe point.
          if phase == .repairing { Signals.stopCleanly() }
          Progress.shared.clear()
          Progress.shared.start(phase == .checkingAgain ? "Checking again" : "Verifying")
          return
        }
        Progress.shared.update(done: progress.done, total: progress.total)
      }
      Progress.shared.clear()
    } catch CatalogueError.interrupted {
      Terminal.printError("interrupted: the repair stopped part-way; `catalogue check` shows what is left")
      return 128 + (Interruption.signal ?? SIGINT)
    } catch let error as CatalogueError where context.json {
      // A script reading --json gets JSON whatever happens: what stopped the check, as its error.
      let message = error.saidOfLibrary(context.libraryPath).description
      try Terminal.print(JSONShape.encode(CheckFailureJSON(healthy: false, error: message)))
      Terminal.printError("error: \(message)")
      return error.isAboutTheCommandLine ? 2 : 1
    }
    let opened = outcome.report.opened
    let report = outcome.report
    let repair = outcome.repair
    let remaining = outcome.remaining
    let healthy = outcome.isHealthy
    if context.json {
      try Terminal.print(
        JSONShape.encode(
          CheckJSON(
            healthy: healthy, quick: report.quick, reviews: report.reviews, images: report.images,
            thumbnails: report.thumbnails, bytesRead: report.bytesRead, findings: report.findings.map(FindingJSON.init),
            hints: report.hints.map(FindingJSON.init),
            repair: repair.map { repair in
              CheckJSON.Repair(
                dryRun: repair.dryRun,
                actions: repair.actions.map {
                  .init(kind: $0.finding.kind.rawValue, target: $0.finding.target, action: $0.action)
                },
                unrepaired: repair.unrepaired.map(FindingJSON.init))
            },
            remaining: remaining?.map(FindingJSON.init))))
      return healthy ? 0 : 1
    }
    for finding in report.findings { Terminal.print(describe(finding)) }
    for hint in report.hints { Terminal.print("hint: " + describe(hint)) }
    var summary =
      "\(count(report.images, "image")) \(quick ? "checked" : "verified") in \(count(report.reviews, "review"))"
    if !quick { summary += " (\(Output.byteCount(report.bytesRead)) read)" }
    if !opened { summary = "The database cannot be opened, so nothing else was checked" }
    if report.isHealthy {
      Terminal.print(summary + ": no problems.")
      return 0
    }
    let repairable = report.findings.filter(\.repairable).count
    summary += ": \(count(report.findings.count, "problem"))"
    if repair == nil && repairable > 0 {
      summary += ", \(repairable) repairable: run `catalogue check --repair`"
    }
    Terminal.print(summary + ".")
    if let repair {
      for action in repair.actions { Terminal.print((repair.dryRun ? "would repair: " : "repaired: ") + action.action) }
      if repair.dryRun {
        Terminal.print("Dry run: nothing was changed.")
        return 1
      }
      let left = remaining ?? []
      if left.isEmpty {
        Terminal.print(
          "Repaired \(count(Set(repair.actions.map(\.finding)).count, "problem")); the library is healthy now.")
        return 0
      }
      Terminal.print("Repaired \(count(Set(repair.actions.map(\.finding)).count, "problem")); still wrong:")
      for finding in left { Terminal.print("  " + describe(finding)) }
    }
    return healthy ? 0 : 1
  }

  static let upgrade = Command(
    spec: CommandSpec(
      "upgrade", summary: "bring a library written by an older catalogue up to date",
      details: """
        Migrates the library's database to the schema this build writes, one transaction a step. \
        Commands that write do this by themselves; commands that only read (list, show, check, export) \
        never change a library, and ask for this instead.
        """,
      examples: ["catalogue upgrade", "catalogue --library ~/Reviews upgrade"])
  ) { context in
    let library = try context.openLibrary()
    let before = library.openedSchemaVersion
    let after = try library.schemaVersion
    if context.json {
      struct Upgraded: Encodable {
        var library: String
        var schema: Int
        var was: Int
      }
      try Terminal.print(JSONShape.encode(Upgraded(library: library.path, schema: after, was: before)))
    } else if before == after {
      Terminal.print("\(library.path) is up to date (schema \(after)).")
    } else {
      Terminal.print("Upgraded \(library.path) from schema \(before) to \(after).")
    }
    return 0
  }

  static let migrate = Command(
    spec: CommandSpec(
      "migrate", summary: "move the library's records to PostgreSQL, or back to its own SQLite file",
      synopsis: "--to URL|sqlite",
      details: """
        Copies every record (reviews, pictures' records and links, reviewers, sessions and tokens, settings, \
        where imports came from) to the empty PostgreSQL database URL, or back from PostgreSQL to the \
        library folder's own SQLite file (--to sqlite), in batches of 500, each committed; writers wait \
        meanwhile (readers and the server's pages do not). The new store makes its search index again, every \
        row is compared with the old store's, and only then does the library switch: the old store's file \
        goes to lost+found/. Stopped part-way (Ctrl-C, a lost connection), the library stays on its old \
        store, and the same command goes on where it stopped. The pictures stay where they are.
        """,
      options: [.init("to", value: "URL|sqlite", help: "postgresql://USER@HOST:PORT/DATABASE, or sqlite")],
      examples: [
        "catalogue migrate --to postgresql://reviews@db.example/reviews",
        "catalogue --library /srv/reviews migrate --to sqlite",
      ])
  ) { context in
    guard let to = context.arguments.value("to") else {
      throw UsageError(message: "migrate needs --to URL (a PostgreSQL database) or --to sqlite", command: "migrate")
    }
    let target: MigrationTarget =
      to == "sqlite" ? .sqlite : .postgreSQL(try ArgumentParser.databaseURL(to, command: "migrate"))
    var current = ""
    let report = try Library.migrate(libraryAt: context.libraryPath, database: context.database, to: target) {
      table, copied, total in
      if table != current {
        current = table
        Progress.shared.start("Copying \(table.replacingOccurrences(of: "_", with: " "))")
      }
      Progress.shared.update(done: copied, total: total)
    }
    Progress.shared.clear()
    if context.json {
      struct Migrated: Encodable {
        var library: String
        var destination: String
        var resumed: Bool
        var rows: [String: Int]
        var keptOldStore: String
      }
      try Terminal.print(
        JSONShape.encode(
          Migrated(
            library: context.libraryPath, destination: report.destination, resumed: report.resumed,
            rows: Dictionary(uniqueKeysWithValues: report.tables.map { ($0.name, $0.rows) }),
            keptOldStore: report.keptOldStore)))
    } else {
      let counts = report.tables.filter { $0.rows > 0 }.map {
        "\($0.name.replacingOccurrences(of: "_", with: " ")): \($0.rows)"
      }
      Terminal.print(
        "\(report.resumed ? "Finished copying" : "Copied") the records to \(report.destination) and checked them row by row"
          + (counts.isEmpty ? "" : " (\(counts.joined(separator: ", ")))") + ".")
      Terminal.print(
        "The library's records are now there; the old store is kept in \(context.libraryPath)/\(report.keptOldStore).")
    }
    return 0
  }

  static let thumbnails = Command(
    spec: CommandSpec(
      "thumbnails", summary: "remake every thumbnail, optionally to a new size",
      details: """
        --rebuild makes every picture's thumbnails again from its original (in parallel, each written \
        safely), with the size and shape given, which become the library's thumbnail spec: one at that size, \
        and one at twice it for high-density screens (never larger than the original). Without them the \
        current spec is kept. The previous thumbnails, both sizes, are deleted once the new ones are in place.
        """,
      options: [
        .init("rebuild", help: "remake the thumbnails (required)"),
        .init("size", value: "N", help: "longest edge in pixels, 16–4096"),
        .init("square", help: "square thumbnails cropped from the centre"),
        .init("fit", help: "thumbnails that keep the picture's shape (the default)"),
        .init("quality", value: "Q", help: "JPEG quality, 1–100"),
        .init("jobs", value: "N", help: "work on N threads (default: one a core)"),
      ],
      examples: ["catalogue thumbnails --rebuild", "catalogue thumbnails --rebuild --size 512 --square"])
  ) { context in
    let arguments = context.arguments
    guard arguments.has("rebuild") else {
      throw UsageError(message: "thumbnails needs --rebuild", command: "thumbnails")
    }
    if arguments.has("square") && arguments.has("fit") {
      throw UsageError(message: "give --square or --fit, not both", command: "thumbnails")
    }
    let library = try context.openLibrary()
    var spec = library.thumbnailSpec
    if let size = try ArgumentParser.integer(arguments, "size", in: 16...4096, command: "thumbnails") {
      spec.longestEdge = size
    }
    if let quality = try ArgumentParser.integer(arguments, "quality", in: 1...100, command: "thumbnails") {
      spec.quality = quality
    }
    if arguments.has("square") { spec.mode = .square }
    if arguments.has("fit") { spec.mode = .fit }
    Progress.shared.start("Thumbnails")
    let jobs = try ArgumentParser.integer(arguments, "jobs", in: 1...256, command: "thumbnails")
    let report = try library.rebuildThumbnails(spec: spec, jobs: jobs) {
      Progress.shared.update(done: $0.done, total: $0.total)
    }
    Progress.shared.clear()
    for failure in report.failures { Terminal.printError("error: \(failure.target): \(failure.problem)") }
    if context.json {
      try Terminal.print(
        JSONShape.encode(
          RebuildJSON(
            spec: report.spec.name, rebuilt: report.rebuilt, removed: report.removed,
            failures: report.failures.map(FindingJSON.init))))
    } else {
      Terminal.print(
        "Made the 1× and 2× thumbnails of \(count(report.rebuilt, "picture")) to \(report.spec.name); "
          + "removed \(count(report.removed, "old thumbnail"))."
      )
    }
    return report.failures.isEmpty ? 0 : 1
  }

  struct RebuildJSON: Encodable {
    let spec: String
    let rebuilt: Int
    let removed: Int
    let failures: [FindingJSON]
  }
}
