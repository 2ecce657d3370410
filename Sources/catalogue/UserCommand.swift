import Catalogue
import Foundation

@preconcurrency import Glibc

extension Commands {
  static let user = Command(
    spec: CommandSpec(
      "user", summary: "manage the reviewers who sign in to `catalogue serve`",
      synopsis: "ACTION [NAME] [options]",
      details: """
        Anyone may read what `catalogue serve` shows; reviewers sign in with their name and password to \
        write, and scripts use a reviewer's API token (`Authorization: Bearer TOKEN`). Names are 1 to 64 \
        ASCII letters, digits, '.', '_' and '-', and match in any case. Passwords have at least 8 \
        characters; they are hashed with Argon2id and kept nowhere. On a terminal the password is asked \
        twice without echo; scripts give it as one line of standard input with --password-stdin. A new \
        password ends the reviewer's sessions; removing a reviewer ends their sessions and tokens, and their \
        reviews keep their name. Each reviewer has a page, /reviewers/NAME, headed by their display name \
        (their name until they have one: 1 to 100 characters of one line) with their bio (plain text up to \
        1,000 characters, a blank line between paragraphs) and the reviews they published.
        """,
      options: [
        .init("password-stdin", help: "read the password from the first line of standard input"),
        .init("display-name", value: "TEXT", help: "what the pages call NAME; '' goes back to the name"),
        .init("bio", value: "TEXT", help: "a few lines NAME says of themselves; '' clears it"),
        .init("yes", short: "y", help: "remove without asking"),
        .init("revoke", help: "revoke every token of NAME instead of making one"),
      ],
      examples: [
        "catalogue user add alice",
        "printf '%s\\n' \"$PASSWORD\" | catalogue user add alice --password-stdin",
        "catalogue user edit alice --display-name 'Alice Liddell' --bio \"$(cat alice.txt)\"",
        "catalogue user list --json",
        "token=$(catalogue user token alice)",
        "catalogue user token alice --revoke",
      ],
      actions: [
        .init(
          "add", synopsis: "NAME [--password-stdin]", summary: "add a reviewer with a password", positionals: 1...1,
          options: ["password-stdin"]),
        .init(
          "passwd", synopsis: "NAME [--password-stdin]",
          summary: "give a reviewer a new password (ends their sessions)",
          positionals: 1...1, options: ["password-stdin"]),
        .init(
          "edit", synopsis: "NAME [--display-name TEXT] [--bio TEXT]",
          summary: "change the display name and bio on NAME's page", positionals: 1...1,
          options: ["display-name", "bio"]),
        .init(
          "remove", synopsis: "NAME [--yes]", summary: "remove a reviewer with their sessions and tokens",
          positionals: 1...1, options: ["yes"]),
        .init("list", summary: "list the reviewers", positionals: 0...0),
        .init(
          "token", synopsis: "NAME [--revoke]",
          summary: "print a new API token for NAME (shown once), or revoke all of NAME's", positionals: 1...1,
          options: ["revoke"]),
      ])
  ) { context in
    let arguments = context.arguments
    let action = arguments.positionals[0]
    if action == "list" { return try listReviewers(context) }
    let name = arguments.positionals[1]
    // A name no reviewer can have is a mistake in the call (exit status 2), whatever the action.
    if let problem = Library.nameProblem(name) { throw CatalogueError.badReviewerName(name, problem: problem) }
    if action == "edit" && !arguments.has("display-name") && !arguments.has("bio") {
      throw UsageError(message: "user edit needs --display-name, --bio or both", command: "user")
    }
    let library = try context.openLibrary()
    switch action {
    case "edit":
      let profile = try library.editReviewer(
        name, displayName: arguments.value("display-name"), bio: arguments.value("bio"))
      try Terminal.print(
        context.json ? JSONShape.encode(JSONShape.ReviewerProfile(profile)) : describe(profile))
    case "add":
      if let existing = try library.reviewer(named: name) {
        throw CatalogueError.reviewerExists(name, existing: existing.name)
      }
      let password = try newPassword(arguments, for: name)
      try library.addReviewer(name, password: password)
      let added = try library.reviewer(named: name)
      if context.json, let added {
        try Terminal.print(JSONShape.encode(JSONShape.Reviewer(added)))
      } else {
        Terminal.print("Added reviewer \(added?.name ?? name)")
      }
    case "passwd":
      guard let reviewer = try library.reviewer(named: name) else { throw CatalogueError.reviewerNotFound(name) }
      let password = try newPassword(arguments, for: reviewer.name)
      try library.setPassword(of: reviewer.name, to: password)
      if context.json, let changed = try library.reviewer(named: reviewer.name) {
        try Terminal.print(JSONShape.encode(JSONShape.Reviewer(changed)))
      } else {
        let ended = reviewer.sessions
        Terminal.print(
          "Changed the password of \(reviewer.name)"
            + (ended == 0 ? "" : "; \(ended) session\(ended == 1 ? "" : "s") ended"))
      }
    case "remove":
      guard let reviewer = try library.reviewer(named: name) else { throw CatalogueError.reviewerNotFound(name) }
      if !arguments.has("yes") {
        guard Terminal.standardInputIsTerminal else {
          throw UsageError(
            message: "user remove asks for confirmation: pass --yes when not on a terminal", command: "user")
        }
        guard
          Terminal.confirm(
            "Remove reviewer \(reviewer.name) with \(count(reviewer.sessions, "session")) and \(count(reviewer.tokens, "token"))?"
          )
        else {
          Terminal.printError("Nothing removed.")
          return 1
        }
      }
      try library.removeReviewer(reviewer.name)
      try Terminal.print(
        context.json
          ? JSONShape.encode(["removed": JSONShape.Reviewer(reviewer)])
          : "Removed reviewer \(reviewer.name); their reviews keep the name")
    default:
      // "token", the last action the spec allows.
      if arguments.has("revoke") {
        let revoked = try library.revokeTokens(of: name)
        let stored = try library.reviewer(named: name)?.name ?? name
        try Terminal.print(
          context.json
            ? JSONShape.encode(RevokedJSON(reviewer: stored, revoked: revoked))
            : "Revoked \(count(revoked, "token")) of \(stored)")
      } else {
        let token = try library.newToken(for: name)
        let stored = try library.reviewer(named: name)?.name ?? name
        if context.json {
          try Terminal.print(JSONShape.encode(TokenJSON(reviewer: stored, token: token)))
        } else {
          Terminal.printError(
            "A new API token for \(stored), shown this once: send it as `Authorization: Bearer TOKEN`; "
              + "`catalogue user token \(stored) --revoke` revokes it")
          Terminal.print(token)
        }
      }
    }
    return 0
  }

  /// What `user edit` says it did: the page's heading and its bio, as they are now.
  static func describe(_ profile: ReviewerProfile) -> String {
    let shown = profile.displayName.map { "shown as \($0)" } ?? "shown by their name"
    let bio = profile.bio.map { "a bio of \(count($0.unicodeScalars.count, "character"))" } ?? "no bio"
    return "Changed the profile of \(profile.name): \(shown), with \(bio)"
  }

  struct TokenJSON: Encodable {
    let reviewer: String
    let token: String
  }

  struct RevokedJSON: Encodable {
    let reviewer: String
    let revoked: Int
  }

  /// `user list`: a table for people, an array of reviewers for scripts.
  static func listReviewers(_ context: Context) throws -> Int32 {
    let reviewers = try context.openLibraryToRead().reviewers()
    if context.json {
      try Terminal.print(JSONShape.encode(reviewers.map(JSONShape.Reviewer.init)))
      return 0
    }
    guard !reviewers.isEmpty else {
      Terminal.print("No reviewers: `catalogue user add NAME` adds one.")
      return 0
    }
    // The display names in a column of their own once any reviewer has one.
    let named = reviewers.contains { $0.displayName != nil }
    var header = ["NAME", "CREATED", "PASSWORD CHANGED", "SESSIONS", "TOKENS", "LAST SEEN"]
    if named { header.insert("DISPLAY NAME", at: 1) }
    var rows = reviewers.map { reviewer in
      var row = [
        reviewer.name, Output.humanDate(reviewer.created), Output.humanDate(reviewer.passwordChanged),
        String(reviewer.sessions), String(reviewer.tokens), reviewer.lastSeen.map(Output.humanDate) ?? "never",
      ]
      if named { row.insert(reviewer.displayName ?? "-", at: 1) }
      return row
    }
    rows.insert(header, at: 0)
    let counts = named ? 4...5 : 3...4
    let widths = (0..<header.count).map { column in rows.map { Output.displayWidth($0[column]) }.max() ?? 0 }
    var lines = rows.map { row in
      (0..<row.count).map { column -> String in
        let padding = String(repeating: " ", count: widths[column] - Output.displayWidth(row[column]))
        // Counts are right-aligned, the rest left-aligned.
        return counts.contains(column) ? padding + row[column] : row[column] + padding
      }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }
    lines.append(count(reviewers.count, "reviewer"))
    Terminal.print(lines.joined(separator: "\n"))
    return 0
  }

  /// The new password for `name`: the first line of standard input with --password-stdin,
  /// else asked twice on the terminal without echo. Checked before it is used, so that a
  /// mistake is said at once.
  static func newPassword(_ arguments: ParsedArguments, for name: String) throws -> String {
    let password: String
    if arguments.has("password-stdin") {
      password = try passwordFromStandardInput()
    } else {
      guard Terminal.standardInputIsTerminal else {
        throw UsageError(
          message: "standard input is not a terminal, so the password cannot be asked: give it with --password-stdin",
          command: "user")
      }
      guard let first = Terminal.readSecret("Password for \(name): ") else {
        throw PasswordEntryError(message: "no password given: nothing was changed")
      }
      if let problem = Library.passwordProblem(first) { throw CatalogueError.badPassword(problem: problem) }
      guard let second = Terminal.readSecret("The same password again: ") else {
        throw PasswordEntryError(message: "no password given: nothing was changed")
      }
      guard Secrets.equal(first, second) else {
        throw PasswordEntryError(message: "the two passwords differ: nothing was changed; try again")
      }
      password = first
    }
    if let problem = Library.passwordProblem(password) { throw CatalogueError.badPassword(problem: problem) }
    return password
  }

  /// The first line of standard input, without its line ending; read a byte at a time so that
  /// nothing after it is taken, and refused when longer than any password may be.
  static func passwordFromStandardInput() throws -> String {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let count = read(STDIN_FILENO, &byte, 1)
      if count < 0 && errno == EINTR { continue }
      if count <= 0 || byte == UInt8(ascii: "\n") { break }
      bytes.append(byte)
      if bytes.count > Library.maximumPasswordBytes + 1 {
        throw CatalogueError.badPassword(
          problem: "the first line of standard input is over \(Library.maximumPasswordBytes) bytes long")
      }
    }
    if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw CatalogueError.badPassword(problem: "standard input is not UTF-8 text")
    }
    return text
  }
}

/// A password that could not be had from the terminal (the two differ, or none was typed):
/// the work could not be done (exit 1).
struct PasswordEntryError: Error, CustomStringConvertible {
  let message: String
  var description: String { message }
}
