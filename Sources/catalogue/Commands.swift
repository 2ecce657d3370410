import Catalogue
import Foundation
import ImagePipeline

@preconcurrency import Glibc

/// What every command gets: the parsed arguments and the global choices.
struct Context: Sendable {
  let arguments: ParsedArguments
  let libraryPath: String
  /// The PostgreSQL database `--database` (or `CATALOGUE_DATABASE`) names, if any.
  let database: String?
  let json: Bool

  /// Opens the library for a command that writes: an older schema is brought up to date; a
  /// library that can only be read (a read-only or full disk) is refused before anything is
  /// done.
  func openLibrary() throws(CatalogueError) -> Library {
    let library = try Library(opening: libraryPath, database: database)
    try library.requireWritable()
    return library
  }

  /// Opens the library for a command that only reads: nothing is written, an older schema is
  /// refused with advice. What the user should know of how it was opened goes to standard
  /// error.
  func openLibraryToRead() throws(CatalogueError) -> Library {
    let library = try Library(opening: libraryPath, upgrading: false, database: database)
    if let note = library.openingNote { Terminal.printError("note: \(note)") }
    return library
  }
}

/// An import whose files and folders hold no picture at all: the work cannot be done (exit 1).
struct NothingToImport: Error, CustomStringConvertible {
  let message: String
  var description: String { message }
}

/// A command: its help and what it does. `run` returns the exit status.
struct Command: Sendable {
  let spec: CommandSpec
  let run: @Sendable (Context) throws -> Int32
}

enum Commands {
  static let all: [Command] = [
    initCommand, add, edit, show, list, remove, attach, replace, detach, cover, move, describe, card, check,
    thumbnails, export, importBundle, importHistory, upgrade, migrate, config, user, serve,
  ]

  static func named(_ name: String) -> Command? { all.first { $0.spec.name == name } }

  // MARK: Library

  static let initCommand = Command(
    spec: CommandSpec(
      "init", summary: "create an empty library", synopsis: "[PATH]",
      details: """
        Creates the library folder (PATH, else the --library folder) with an empty catalogue: its records in \
        the folder's own SQLite file, or with --database URL in that PostgreSQL database, which must be \
        empty; the folder then keeps the pictures and the database's URL (catalogue.database), and any \
        number of servers may share both.
        """,
      positionals: 0...1,
      examples: [
        "catalogue init ~/Reviews", "CATALOGUE_LIBRARY=~/Reviews catalogue init",
        "catalogue --database postgresql://reviews@db.example/reviews init /srv/shared/reviews",
      ])
  ) { context in
    let path = context.arguments.positionals.first ?? context.libraryPath
    let library = try Library.create(at: path, database: context.database)
    if context.json {
      try Terminal.print(JSONShape.encode(["library": library.path, "schema": String(try library.schemaVersion)]))
    } else {
      Terminal.print("Created an empty library in \(library.path)")
    }
    return 0
  }

  // MARK: Reviews

  static let reviewFields: [CommandSpec.Option] = [
    .init("title", value: "TEXT", help: "the title"),
    .init("rating", value: "N", help: "stars, 0 to 5"),
    .init("category", value: "NAME", help: "movie, tv, game, book, app, education, other, or a label of yours"),
    .init("new-category", help: "add a label the library has not used, even if it is close to another"),
    .init("favorite", help: "mark as a favourite"),
    .init("body", value: "TEXT", help: "the review text (Markdown)"),
    .init("body-file", value: "FILE", help: "read the review text from FILE (- for standard input)"),
    .init(
      "contains-spoilers",
      help: "the whole review gives away what happens: readers are asked before its text is shown"),
  ]

  static func body(_ arguments: ParsedArguments, command: String) throws -> String? {
    if arguments.has("body") && arguments.has("body-file") {
      throw UsageError(message: "give --body or --body-file, not both", command: command)
    }
    if let text = arguments.value("body") { return text }
    guard let file = arguments.value("body-file") else { return nil }
    return try InputFile.readText(file, limit: ReviewDraft.maximumBodyBytes)
  }

  static func rating(_ arguments: ParsedArguments, command: String) throws(UsageError) -> Int? {
    guard let text = arguments.value("rating") else { return nil }
    // Out-of-range numbers are the review's validation's to report, with the other problems.
    guard let number = Int(text) else {
      throw UsageError(message: "--rating takes a whole number of stars (0 to 5), not \(text)", command: command)
    }
    return number
  }

  static let add = Command(
    spec: CommandSpec(
      "add", summary: "add a review", synopsis: "--title TEXT --rating N --category NAME [options]",
      details:
        "Prints the new review's id (with --json, the whole record). Pictures given with --image are attached in the same step, all or nothing: if one cannot be used, no review is added. The review is published at once unless --draft. In the body, ||text|| hides a few words and a block between '::: spoiler Label' and ':::' lines hides more, until a reader asks for them.",
      options: reviewFields + [
        .init(
          "image", value: "FILE", repeatable: true,
          help: "attach this picture (repeatable; a folder attaches the pictures in it)"),
        .init("draft", help: "keep it a draft, which readers do not see, until `catalogue edit REVIEW --publish`"),
      ],
      examples: [
        "catalogue add --title 'Arrival' --rating 5 --category movie --body-file arrival.md --image poster.jpg",
        "echo 'Short and sweet.' | catalogue add --title 'Celeste' --rating 4 --category game --body-file -",
      ])
  ) { context in
    let arguments = context.arguments
    var missing: [String] = []
    for name in ["title", "rating", "category"] where !arguments.has(name) { missing.append("--\(name)") }
    if !missing.isEmpty {
      throw UsageError(message: "add needs \(missing.joined(separator: ", "))", command: "add")
    }
    let draft = ReviewDraft(
      title: arguments.value("title")!, body: try body(arguments, command: "add") ?? "",
      rating: try rating(arguments, command: "add")!, category: arguments.value("category")!,
      favorite: arguments.has("favorite"), containsSpoilers: arguments.has("contains-spoilers"),
      publish: !arguments.has("draft"), newCategory: arguments.has("new-category"))
    let library = try context.openLibrary()
    let review: Review
    if arguments.has("image") {
      // All or nothing: a picture that cannot be used adds no review at all.
      let sources = try importSources(arguments.all("image"))
      Progress.shared.start("Importing")
      do {
        var warnings: [ImportWarning] = []
        review = try library.create(
          draft, attaching: sources.files,
          progress: { progress in Progress.shared.update(done: progress.done, total: progress.total) },
          warned: { warnings = $0 })
        Progress.shared.clear()
        printWarnings(warnings)
      } catch CatalogueError.picturesRefused(let failures, let total) {
        Progress.shared.clear()
        for failure in failures { Terminal.printError("error: \(failure.error)") }
        throw CatalogueError.picturesRefused(failures, total: total)
      }
    } else {
      review = try library.create(draft)
    }
    try Terminal.print(context.json ? JSONShape.encode(JSONShape.Review(review)) : review.id)
    return 0
  }

  static let edit = Command(
    spec: CommandSpec(
      "edit", summary: "change a review's fields", synopsis: "REVIEW [options]",
      details:
        "Changes only the fields given. REVIEW is an id or a unique prefix of one (at least 4 digits). --publish and --draft change who may read it, not its updated time.",
      options: reviewFields + [
        .init("no-favorite", help: "no longer a favourite"),
        .init("no-contains-spoilers", help: "take the whole-review spoiler warning off"),
        .init("publish", help: "publish a draft: readers see it from now on"),
        .init("draft", help: "take it back to a draft, which readers do not see"),
      ],
      positionals: 1...1,
      examples: [
        "catalogue edit 3f2a --rating 4", "catalogue edit 3f2a --body-file review.md --no-favorite",
        "catalogue edit 3f2a --publish",
      ])
  ) { context in
    let arguments = context.arguments
    let fields = [
      "title", "rating", "category", "favorite", "no-favorite", "body", "body-file", "contains-spoilers",
      "no-contains-spoilers", "publish", "draft",
    ]
    guard fields.contains(where: arguments.has) else {
      throw UsageError(message: "edit needs at least one field to change (--title, --rating, …)", command: "edit")
    }
    for (yes, no) in [("favorite", "no-favorite"), ("contains-spoilers", "no-contains-spoilers"), ("publish", "draft")]
    where arguments.has(yes) && arguments.has(no) {
      throw UsageError(message: "give --\(yes) or --\(no), not both", command: "edit")
    }
    let library = try context.openLibrary()
    var changes = ReviewChanges(title: arguments.value("title"), rating: try rating(arguments, command: "edit"))
    changes.category = arguments.value("category")
    changes.newCategory = arguments.has("new-category")
    changes.body = try body(arguments, command: "edit")
    if arguments.has("favorite") { changes.favorite = true }
    if arguments.has("no-favorite") { changes.favorite = false }
    if arguments.has("contains-spoilers") { changes.containsSpoilers = true }
    if arguments.has("no-contains-spoilers") { changes.containsSpoilers = false }
    if arguments.has("publish") { changes.publish = true }
    if arguments.has("draft") { changes.publish = false }
    // Read and written in one transaction: a change made meanwhile to another field stays.
    let review = try library.update(arguments.positionals[0], changes: changes)
    try Terminal.print(
      context.json ? JSONShape.encode(JSONShape.Review(review)) : "Updated \(review.id): \(review.title)")
    return 0
  }

  static let show = Command(
    spec: CommandSpec(
      "show", summary: "show one review with its images", synopsis: "REVIEW",
      details:
        "REVIEW is an id or a unique prefix of one (at least 4 digits). Spoilers in the text are shown as [spoiler: 12 words], and the text of a review marked as containing spoilers is not shown, unless --spoilers. --json gives the text as written and as HTML.",
      options: [.init("spoilers", help: "show the spoilers too")],
      positionals: 1...1,
      examples: ["catalogue show 3f2a", "catalogue show 3f2a --spoilers", "catalogue show 3f2a --json"])
  ) { context in
    let review = try context.openLibraryToRead().review(context.arguments.positionals[0])
    try Terminal.print(
      context.json
        ? JSONShape.encode(JSONShape.Review(review))
        : Output.card(review, spoilers: context.arguments.has("spoilers")))
    return 0
  }

  static let list = Command(
    spec: CommandSpec(
      "list", summary: "list reviews, filtered and sorted",
      details: "Newest first unless --sort says otherwise; with --search, best match first.",
      options: [
        .init("category", value: "NAME", help: "only this category"),
        .init("min-rating", value: "N", help: "only reviews with at least N stars"),
        .init("favorites", help: "only favourites"),
        .init(
          "search", value: "TEXT", help: "words in the title or body; word* for prefixes, \"a phrase\" for phrases"),
        .init("sort", value: "KEY", help: "title, rating, created, updated or relevance"),
        .init("reverse", help: "reverse the order"),
        .init("limit", value: "N", help: "at most N reviews (default 50)"),
        .init("offset", value: "N", help: "skip the first N"),
        .init("drafts", help: "only drafts"),
        .init("published", help: "only published reviews"),
        .init("by", value: "NAME", help: "only reviews reviewer NAME wrote (in any case)"),
      ],
      examples: [
        "catalogue list --category movie --min-rating 4",
        "catalogue list --by alice --sort rating",
        "catalogue list --drafts",
        "catalogue list --search 'endless action' --json",
        "catalogue list --sort title --limit 20 --offset 20",
      ])
  ) { context in
    let arguments = context.arguments
    if arguments.has("drafts") && arguments.has("published") {
      throw UsageError(
        message: "give --drafts or --published, not both (without either, list shows both)", command: "list")
    }
    var input = ReviewQueryInput()
    input.category = arguments.value("category")
    input.minimumRating = arguments.value("min-rating")
    input.favorites = arguments.has("favorites") ? "" : nil
    input.search = arguments.value("search")
    input.sort = arguments.value("sort")
    input.reverse = arguments.has("reverse") ? "" : nil
    input.limit = arguments.value("limit")
    input.offset = arguments.value("offset")
    input.by = arguments.value("by")
    var query: ReviewQuery
    do {
      query = try ReviewQuery(input, names: .options)
      // The library's owner sees everything, drafts marked; readers' lists (the server's)
      // show published reviews only.
      query.showing = arguments.has("drafts") ? .drafts : arguments.has("published") ? .published : .all
    } catch {
      guard case CatalogueError.invalidQuery(let problem) = error else { throw error }
      throw UsageError(message: problem, command: "list")
    }
    let library = try context.openLibraryToRead()
    let page = try library.list(query)
    if context.json {
      try Terminal.print(JSONShape.encode(JSONShape.Page(page)))
    } else {
      Terminal.print(
        Output.table(page, width: Terminal.width, idLength: try library.uniqueIDLength(of: page.reviews.map(\.id))))
    }
    return 0
  }

  static let remove = Command(
    spec: CommandSpec(
      "remove", summary: "delete a review for good", synopsis: "REVIEW",
      details:
        "Asks first on a terminal; scripts pass --yes. The files of pictures no other review uses are deleted with it.",
      options: [.init("yes", short: "y", help: "do not ask")], positionals: 1...1,
      examples: ["catalogue remove 3f2a", "catalogue remove 3f2a --yes"])
  ) { context in
    let library = try context.openLibrary()
    let review = try library.review(context.arguments.positionals[0])
    if !context.arguments.has("yes") {
      guard Terminal.standardInputIsTerminal else {
        throw UsageError(message: "remove asks for confirmation: pass --yes when not on a terminal", command: "remove")
      }
      let images = review.images.count
      guard
        Terminal.confirm(
          "Remove \"\(review.title)\" (\(Output.shortID(review.id)))\(images > 0 ? " and its \(images) image link\(images == 1 ? "" : "s")" : "")?"
        )
      else {
        Terminal.printError("Nothing removed.")
        return 1
      }
    }
    let removed = try library.delete(review.id)
    try Terminal.print(
      context.json
        ? JSONShape.encode(["removed": JSONShape.Review(removed)]) : "Removed \(removed.id): \(removed.title)")
    return 0
  }

  // MARK: Images

  /// The files `paths` name (folders expanded), after saying what was skipped; refused when
  /// there is no picture at all to import.
  static func importSources(_ paths: [String]) throws -> ImportSources {
    let sources = try ImportSources.expand(paths)
    for entry in sources.skipped { Terminal.printError("skipped: \(entry.path): \(entry.reason)") }
    if sources.files.isEmpty {
      let named = paths.joined(separator: ", ")
      let skipped = sources.skipped.count
      let note = skipped == 0 ? "" : " (\(skipped) entr\(skipped == 1 ? "y" : "ies") skipped)"
      throw NothingToImport(
        message: "nothing to attach: \(named) hold\(paths.count == 1 ? "s" : "") no pictures\(note)")
    }
    return sources
  }

  /// Attaches the files of `sources`, with progress, and reports each failure on standard error.
  static func attachFiles(
    _ sources: ImportSources, to review: String, cover: String?, text: PictureText = PictureText(), library: Library
  ) throws -> AttachReport {
    Progress.shared.start("Importing")
    let report = try library.attach(files: sources.files, to: review, cover: cover, text: text) { progress in
      Progress.shared.update(done: progress.done, total: progress.total)
    }
    Progress.shared.clear()
    for failure in report.failures { Terminal.printError("error: \(failure.error)") }
    printWarnings(report.warnings)
    return report
  }

  /// What was worked around in pictures that were taken, one line each on standard error.
  static func printWarnings(_ warnings: [ImportWarning]) {
    for warning in warnings { Terminal.printError("warning: \(warning.source): \(warning.message)") }
  }

  static let attach = Command(
    spec: CommandSpec(
      "attach", summary: "attach pictures to a review", synopsis: "REVIEW FILE|FOLDER...",
      details: """
        A folder is imported like a photo library: every picture below it, in name order. Every \
        other entry (notes, link loops, FIFOs) is listed as skipped with its reason, and a folder with no \
        picture at all is refused. Pictures that cannot be used are reported and the others attached \
        (exit status 1 then). The first picture becomes the cover of a review that has none. Ctrl-C \
        stops the import cleanly: nothing is attached and the files it wrote go again. Each picture keeps \
        its file's name, which a download of the original is given. --alt and --caption describe one \
        picture: with more than one file they are refused (describe each with `catalogue describe` once \
        attached).
        """,
      options: [
        .init(
          "cover", value: "FILE",
          help:
            "make this file's picture the cover (one of the pictures given, named any way: relative, absolute, a link)"),
        .init("alt", value: "TEXT", help: descriptionHelp),
        .init("caption", value: "TEXT", help: captionHelp),
      ],
      positionals: 2...Int.max,
      examples: [
        "catalogue attach 3f2a poster.jpg still.png",
        "catalogue attach 3f2a ~/Pictures/Trip --cover ~/Pictures/Trip/best.jpg",
        #"catalogue attach 3f2a poster.jpg --alt "A lighthouse at dusk, its beam over the sea""#,
      ])
  ) { context in
    let library = try context.openLibrary()
    let arguments = context.arguments
    let sources = try importSources(Array(arguments.positionals.dropFirst()))
    let text = PictureText(alt: arguments.value("alt"), caption: arguments.value("caption"))
    if !text.isEmpty && sources.files.count != 1 {
      let flags = [text.alt == nil ? nil : "--alt", text.caption == nil ? nil : "--caption"].compactMap { $0 }
      throw UsageError(
        message: "\(flags.joined(separator: " and ")) describe\(flags.count == 1 ? "s" : "") one picture, and "
          + "\(sources.files.count) were given: attach them one at a time, or describe each after with "
          + "`catalogue describe REVIEW IMAGE`",
        command: "attach")
    }
    // The cover is named like the pictures are (relative, `./`, absolute, a link to one), and
    // one that is none of them is a mistake in the call: refused before anything is read.
    var cover: String?
    if let named = arguments.value("cover") {
      guard let file = sources.file(naming: named) else {
        throw UsageError(
          message: "--cover \(Shown.path(named)) is not one of the pictures being attached: name one of them",
          command: "attach")
      }
      cover = file
    }
    let result = try attachFiles(sources, to: arguments.positionals[0], cover: cover, text: text, library: library)
    if context.json {
      try Terminal.print(JSONShape.encode(JSONShape.Attach(result, skipped: sources.skipped)))
    } else {
      let count = result.attached.count
      Terminal.print(
        "Attached \(count) picture\(count == 1 ? "" : "s") to \(Output.shortID(result.review.id)) (\(result.review.title))"
          + (result.failures.isEmpty ? "" : "; \(result.failures.count) failed"))
    }
    return result.failures.isEmpty ? 0 : 1
  }

  static let imageDetails = "IMAGE is a position (1, 2, …) or a prefix of the picture's SHA-256 (at least 4 digits)."

  static let replace = Command(
    spec: CommandSpec(
      "replace", summary: "replace a review's picture, keeping its place", synopsis: "REVIEW IMAGE FILE",
      details: imageDetails
        + " The new picture takes the old one's position, cover role, description and caption, and its file's name.",
      positionals: 3...3, examples: ["catalogue replace 3f2a 1 better-poster.jpg"])
  ) { context in
    let arguments = context.arguments.positionals
    let result = try context.openLibrary().replace(arguments[0], image: arguments[1], with: arguments[2])
    printWarnings(result.warnings)
    let review = result.review
    if context.json {
      try Terminal.print(JSONShape.encode(JSONShape.Review(review)))
    } else if result.changed {
      Terminal.print("Replaced image \(arguments[1]) of \(Output.shortID(review.id)) (\(review.title))")
    } else {
      Terminal.print("Image \(arguments[1]) of \(Output.shortID(review.id)) is this picture already: nothing changed")
    }
    return 0
  }

  static let detach = Command(
    spec: CommandSpec(
      "detach", summary: "detach a picture from a review", synopsis: "REVIEW IMAGE",
      details: imageDetails + " The pictures after it move up.",
      positionals: 2...2, examples: ["catalogue detach 3f2a 2", "catalogue detach 3f2a 9c1e07"])
  ) { context in
    let arguments = context.arguments.positionals
    let review = try context.openLibrary().detach(arguments[0], image: arguments[1])
    try Terminal.print(
      context.json
        ? JSONShape.encode(JSONShape.Review(review))
        : "Detached image \(arguments[1]) from \(Output.shortID(review.id)) (\(review.title))")
    return 0
  }

  static let cover = Command(
    spec: CommandSpec(
      "cover", summary: "choose a review's cover picture", synopsis: "REVIEW IMAGE",
      details: imageDetails, positionals: 2...2, examples: ["catalogue cover 3f2a 2"])
  ) { context in
    let arguments = context.arguments.positionals
    let review = try context.openLibrary().setCover(arguments[0], image: arguments[1])
    try Terminal.print(
      context.json
        ? JSONShape.encode(JSONShape.Review(review))
        : "Cover of \(Output.shortID(review.id)) is now image \(review.cover?.position ?? 0)")
    return 0
  }

  static let move = Command(
    spec: CommandSpec(
      "move", summary: "move a picture to another position", synopsis: "REVIEW IMAGE POSITION",
      details: imageDetails, positionals: 3...3, examples: ["catalogue move 3f2a 3 1"])
  ) { context in
    let arguments = context.arguments.positionals
    guard let position = Int(arguments[2]), position >= 1 else {
      throw UsageError(message: "POSITION must be a whole number from 1, not \(arguments[2])", command: "move")
    }
    let review = try context.openLibrary().move(arguments[0], image: arguments[1], to: position)
    try Terminal.print(
      context.json
        ? JSONShape.encode(JSONShape.Review(review))
        : "Moved image \(arguments[1]) of \(Output.shortID(review.id)) to position \(position)")
    return 0
  }

  static let descriptionHelp =
    "describe the picture for readers who cannot see it (its alt text: one line, up to \(PictureText.maximumAltLength) characters)"
  static let captionHelp =
    "a caption shown under the picture (up to \(PictureText.maximumCaptionLength) characters; lines kept)"

  static let describe = Command(
    spec: CommandSpec(
      "describe", summary: "describe a picture of a review, or caption it", synopsis: "REVIEW IMAGE",
      details: imageDetails
        + " --alt sets the description that pages give as the picture's alt text (a page says \"Cover of …\" or "
        + "\"Picture 2 of …\" for a picture without one), --caption the caption shown under it; an empty value "
        + "clears one, --clear both. White space at the ends is trimmed; a description is one line, a caption may "
        + "have several. What is not given stays as it was. `check` lists covers without a description.",
      options: [
        .init("alt", value: "TEXT", help: descriptionHelp),
        .init("caption", value: "TEXT", help: captionHelp),
        .init("clear", help: "clear the description and the caption"),
      ],
      positionals: 2...2,
      examples: [
        #"catalogue describe 3f2a 1 --alt "A lighthouse at dusk, its beam over the sea""#,
        #"catalogue describe 3f2a 2 --caption "Taken from the ferry, 1998""#,
        "catalogue describe 3f2a 2 --clear",
      ])
  ) { context in
    let arguments = context.arguments
    var alt = arguments.value("alt")
    var caption = arguments.value("caption")
    if arguments.has("clear") {
      guard alt == nil && caption == nil else {
        throw UsageError(message: "--clear clears both: give it without --alt and --caption", command: "describe")
      }
      (alt, caption) = ("", "")
    }
    guard alt != nil || caption != nil else {
      throw UsageError(message: "nothing to change: give --alt TEXT, --caption TEXT or --clear", command: "describe")
    }
    let positionals = arguments.positionals
    let review = try context.openLibrary().describe(positionals[0], image: positionals[1], alt: alt, caption: caption)
    if context.json {
      try Terminal.print(JSONShape.encode(JSONShape.Review(review)))
      return 0
    }
    // The picture as the library resolved it: a position of up to three digits, else a hash prefix.
    let reference = positionals[1]
    let shown =
      Int(reference) != nil && reference.utf8.count <= 3
      ? review.images.first { $0.position == Int(reference) }
      : review.images.first { $0.image.sha256.hasPrefix(reference.lowercased()) }
    var lines = ["Described image \(shown?.position ?? 0) of \(Output.shortID(review.id)) (\(review.title))"]
    if let shown {
      let said = Output.described(shown).filter { !$0.hasPrefix("name: ") }
      lines += said.isEmpty ? ["  no description, no caption"] : said.map { "  " + $0 }
    }
    Terminal.print(lines.joined(separator: "\n"))
    return 0
  }
}
