import Foundation
import Testing
import TestSupport

@preconcurrency import Glibc

@Suite("The user command")
struct UserCommandTests {
  /// A library with the reviewer `name` added through standard input.
  static func withReviewer(_ name: String = "alice", password: String = "correct horse") throws -> CLI {
    let cli = CLI()
    try #require(try cli("init").status == 0)
    let added = try cli("user", "add", name, "--password-stdin", input: password + "\n")
    try #require(added.status == 0, "\(added.error)")
    return cli
  }

  @Test func addListTokenAndRemove() throws {
    let cli = try Self.withReviewer("Alice")
    let table = try cli("user", "list")
    #expect(table.status == 0)
    let lines = table.output.split(separator: "\n").map(String.init)
    #expect(lines.count == 3)
    #expect(lines[0].hasPrefix("NAME") && lines[0].hasSuffix("LAST SEEN"))
    #expect(lines[1].hasPrefix("Alice  ") && lines[1].hasSuffix("0       0  never"))
    #expect(lines[2] == "1 reviewer")

    let token = try cli("user", "token", "alice")
    #expect(token.status == 0)
    // The token alone on standard output, for `token=$(catalogue user token alice)`.
    #expect(token.output.wholeMatch(of: /cat_[A-Za-z0-9_-]{43}\n/) != nil, "\(token.output)")
    #expect(token.error.contains("A new API token for Alice, shown this once"))
    let second = try cli("user", "token", "ALICE", "--json")
    let json = try cli.json(second)
    #expect(json["reviewer"] as? String == "Alice")
    #expect((json["token"] as? String)?.hasPrefix("cat_") == true && json["token"] as? String != token.output)

    let revoked = try cli("user", "token", "alice", "--revoke")
    #expect(revoked.status == 0 && revoked.output == "Revoked 2 tokens of Alice\n")
    #expect(try cli.json(try cli("user", "token", "alice", "--revoke", "--json"))["revoked"] as? Int == 0)

    let removed = try cli("user", "remove", "alice", "--yes")
    #expect(removed.status == 0 && removed.output == "Removed reviewer Alice; their reviews keep the name\n")
    #expect(try cli("user", "list").output == "No reviewers: `catalogue user add NAME` adds one.\n")
    #expect(try cli("check").status == 0)
  }

  @Test func listJSONHasTheDocumentedShape() throws {
    let cli = try Self.withReviewer("alice")
    _ = try cli("user", "token", "alice")
    let result = try cli("user", "list", "--json")
    #expect(result.status == 0)
    let list = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
    #expect(list.count == 1)
    #expect(
      Set(list[0].keys) == [
        "name", "created", "passwordChanged", "sessions", "tokens", "lastSeen", "displayName", "bio",
      ])
    #expect(list[0]["name"] as? String == "alice")
    #expect((list[0]["created"] as? String)?.hasSuffix("Z") == true)
    #expect(list[0]["passwordChanged"] as? String == list[0]["created"] as? String)
    #expect(list[0]["sessions"] as? Int == 0 && list[0]["tokens"] as? Int == 1)
    #expect(list[0]["lastSeen"] is NSNull)
    let added = try cli.json(try cli("user", "add", "bob", "--password-stdin", "--json", input: "battery staple\n"))
    #expect(added["name"] as? String == "bob" && added["tokens"] as? Int == 0)
    let removed = try cli.json(try cli("user", "remove", "bob", "--yes", "--json"))
    #expect((removed["removed"] as? [String: Any])?["name"] as? String == "bob")
  }

  @Test func passwordFromStandardInputIsItsFirstLine() throws {
    let cli = CLI()
    try #require(try cli("init").status == 0)
    // The line ending, CRLF included, is not part of the password: seven characters and a CR
    // are seven characters.
    let crlf = try cli("user", "add", "alice", "--password-stdin", input: "1234567\r\nmore lines\n")
    #expect(crlf.status == 2)
    #expect(crlf.error == "error: unusable password: it has 7 characters; give at least 8\n")
    let empty = try cli("user", "add", "alice", "--password-stdin", input: "")
    #expect(empty.error == "error: unusable password: it has 0 characters; give at least 8\n")
    let long = try cli("user", "add", "alice", "--password-stdin", input: String(repeating: "p", count: 5000))
    #expect(long.status == 2)
    #expect(long.error == "error: unusable password: the first line of standard input is over 1024 bytes long\n")
    let added = try cli("user", "add", "alice", "--password-stdin", input: "correct horse\r\n")
    #expect(added.status == 0 && added.output == "Added reviewer alice\n")
    let changed = try cli("user", "passwd", "ALICE", "--password-stdin", input: "battery staple")
    #expect(changed.status == 0 && changed.output == "Changed the password of alice\n")
    #expect(try cli("user", "list").status == 0)
  }

  @Test func withoutATerminalThePasswordMustComeFromStandardInput() throws {
    let cli = CLI()
    try #require(try cli("init").status == 0)
    for action in ["add", "passwd"] {
      if action == "passwd" {
        try #require(try cli("user", "add", "alice", "--password-stdin", input: "correct horse\n").status == 0)
      }
      let result = try cli("user", action, "alice", input: "correct horse\n")
      #expect(result.status == 2, "\(action)")
      #expect(
        result.error
          == "error: standard input is not a terminal, so the password cannot be asked: give it with "
          + "--password-stdin; see `catalogue user --help`\n", "\(action)")
    }
  }

  @Test func mistakesAndTheirExitStatuses() throws {
    let cli = try Self.withReviewer("alice")
    let cases: [(arguments: [String], input: String?, status: Int32, error: String)] = [
      (
        ["user"], nil, 2,
        "error: user needs an action: add, passwd, edit, remove, list or token; see `catalogue user --help`"
      ),
      (
        ["user", "rename", "alice"], nil, 2,
        "error: unknown action rename of user: give add, passwd, edit, remove, list or token; see `catalogue user --help`"
      ),
      (["user", "add"], nil, 2, "error: user add needs NAME; see `catalogue user --help`"),
      (["user", "list", "alice"], nil, 2, "error: unexpected argument alice; see `catalogue user --help`"),
      (
        ["user", "add", "bob", "--revoke"], nil, 2,
        "error: --revoke does not go with user add; see `catalogue user --help`"
      ),
      (
        ["user", "add", "two words", "--password-stdin"], "correct horse\n", 2,
        "error: two words is not a reviewer name: use only ASCII letters, digits, '.', '_' and '-'"
      ),
      (
        ["user", "add", "bob", "--password-stdin"], "short\n", 2,
        "error: unusable password: it has 5 characters; give at least 8"
      ),
      (
        ["user", "add", "ALICE", "--password-stdin"], "correct horse\n", 1,
        "error: reviewer alice exists already (names match in any case, so ALICE is taken): choose another name, "
          + "or `catalogue user passwd alice` to change the password"
      ),
      (
        ["user", "passwd", "bob", "--password-stdin"], "correct horse\n", 1,
        "error: no reviewer bob: `catalogue user list` shows them"
      ),
      (["user", "remove", "bob", "--yes"], nil, 1, "error: no reviewer bob: `catalogue user list` shows them"),
      (["user", "token", "bob"], nil, 1, "error: no reviewer bob: `catalogue user list` shows them"),
      (
        ["user", "remove", "alice"], nil, 2,
        "error: user remove asks for confirmation: pass --yes when not on a terminal; see `catalogue user --help`"
      ),
    ]
    for item in cases {
      let result = try cli.run(["--library", cli.library] + item.arguments, input: item.input)
      #expect(result.status == item.status, "\(item.arguments): \(result.error)")
      #expect(result.error == item.error + "\n", "\(item.arguments)")
      #expect(result.output.isEmpty, "\(item.arguments)")
    }
    // Nothing of that changed anything.
    let list = try JSONSerialization.jsonObject(with: Data(try cli("user", "list", "--json").output.utf8))
    #expect((list as? [[String: Any]])?.map { $0["name"] as? String } == ["alice"])
  }

  @Test func helpListsTheActions() throws {
    let cli = CLI()
    let help = try cli("user", "--help")
    #expect(help.status == 0)
    #expect(help.output.hasPrefix("catalogue user — manage the reviewers who sign in to `catalogue serve`\n"))
    for line in [
      "  add NAME [--password-stdin]                   add a reviewer with a password",
      "  edit NAME [--display-name TEXT] [--bio TEXT]  change the display name and bio on NAME's page",
      "  list                                          list the reviewers",
      "  token NAME [--revoke]                         print a new API token for NAME (shown once), or revoke all of NAME's",
    ] {
      #expect(help.output.contains(line + "\n"), "\(line)")
    }
    let overview = try cli.run(["--help"])
    #expect(overview.output.contains("  user  ") && overview.output.contains("manage the reviewers"))
  }

  @Test func editGivesTheirPageADisplayNameAndABio() throws {
    let cli = try Self.withReviewer("Alice")
    let edited = try cli(
      "user", "edit", "alice", "--display-name", " Alice Liddell ", "--bio", "Reads.\r\n\r\nWrites.\n")
    #expect(edited.status == 0 && edited.error.isEmpty, "\(edited.error)")
    #expect(edited.output == "Changed the profile of Alice: shown as Alice Liddell, with a bio of 15 characters\n")
    let table = try cli("user", "list").output.split(separator: "\n").map(String.init)
    #expect(table[0].hasPrefix("NAME   DISPLAY NAME   CREATED  ") && table[0].hasSuffix("SESSIONS  TOKENS  LAST SEEN"))
    #expect(table[1].hasPrefix("Alice  Alice Liddell  ") && table[1].hasSuffix("0       0  never"))
    let listed = try #require(
      try JSONSerialization.jsonObject(with: Data(try cli("user", "list", "--json").output.utf8)) as? [[String: Any]])
    #expect(listed.first?["displayName"] as? String == "Alice Liddell")
    #expect(listed.first?["bio"] as? String == "Reads.\n\nWrites.")

    // What is not given stays; an empty value goes back to none.
    let bio = try cli.json(try cli("user", "edit", "ALICE", "--bio", "Reads a lot.", "--json"))
    #expect(bio["name"] as? String == "Alice" && bio["displayName"] as? String == "Alice Liddell")
    #expect(bio["bio"] as? String == "Reads a lot." && bio["reviews"] as? Int == 0)
    let reset = try cli("user", "edit", "alice", "--display-name", "")
    #expect(reset.output == "Changed the profile of Alice: shown by their name, with a bio of 12 characters\n")
    let cleared = try cli("user", "edit", "alice", "--bio", "")
    #expect(cleared.output == "Changed the profile of Alice: shown by their name, with no bio\n")
    let plain = try cli("user", "list").output.split(separator: "\n").map(String.init)
    #expect(plain[0].hasPrefix("NAME   CREATED  "), "no column of display names when none has one")
  }

  /// A mistake in `user edit` says which and why, with the exit status of its kind, and
  /// changes nothing.
  @Test func editMistakesChangeNothing() throws {
    let cli = try Self.withReviewer("alice")
    try #require(try cli("user", "edit", "alice", "--display-name", "Alice", "--bio", "Reads.").status == 0)
    let before = try cli("user", "list", "--json").output
    let cases: [(arguments: [String], status: Int32, error: String)] = [
      (
        ["user", "edit", "alice"], 2,
        "error: user edit needs --display-name, --bio or both; see `catalogue user --help`"
      ),
      (["user", "edit", "bob", "--bio", "x"], 1, "error: no reviewer bob: `catalogue user list` shows them"),
      (
        ["user", "edit", "two words", "--bio", "x"], 2,
        "error: two words is not a reviewer name: use only ASCII letters, digits, '.', '_' and '-'"
      ),
      (
        ["user", "edit", "alice", "--password-stdin"], 2,
        "error: --password-stdin does not go with user edit; see `catalogue user --help`"
      ),
      (
        ["user", "edit", "alice", "--display-name", String(repeating: "x", count: 101), "--bio", "Fine."], 2,
        "error: cannot change the profile of reviewer alice: the display name is 101 characters long, over 100: "
          + "give a shorter one (nothing was changed)"
      ),
      (
        ["user", "edit", "alice", "--bio", "One\u{8}"], 2,
        "error: cannot change the profile of reviewer alice: the bio has a control character U+0008 at byte 3 "
          + "(line 1, column 4): only tab and newline are allowed among control characters (nothing was changed)"
      ),
    ]
    for item in cases {
      let result = try cli(item.arguments)
      #expect(result.status == item.status, "\(item.arguments): \(result.error)")
      #expect(result.error == item.error + "\n", "\(item.arguments)")
      #expect(result.output.isEmpty, "\(item.arguments)")
    }
    #expect(try cli("user", "list", "--json").output == before)
  }

  /// `list --by NAME`: a reviewer's reviews, the name in any case, with the other filters; the
  /// JSON's shape is a list's.
  @Test func listByAReviewer() throws {
    let cli = CLI()
    _ = try cli.withReview("Arrival", category: "movie")
    _ = try cli.withReview("Celeste", category: "game")
    _ = try cli.withReview("Dune", category: "movie")
    _ = try cli.withReview("Eraserhead", category: "movie")
    // As the server records reviewers' writes.
    try cli.sqlite(
      "UPDATE reviews SET created_by = CASE title WHEN 'Dune' THEN 'bob' WHEN 'Eraserhead' THEN NULL ELSE 'Alice' END")
    func titles(_ arguments: String...) throws -> [String] {
      let listed = try cli.json(try cli(["list", "--json", "--sort", "title"] + arguments))
      return try #require(listed["reviews"] as? [[String: Any]]).compactMap { $0["title"] as? String }
    }
    #expect(try titles("--by", "alice") == ["Arrival", "Celeste"])
    #expect(try titles("--by", "ALICE", "--category", "movie") == ["Arrival"])
    #expect(try titles("--by", "alice", "--search", "celeste") == ["Celeste"])
    #expect(try titles("--by", "bob") == ["Dune"])
    #expect(try titles("--by", "carol").isEmpty)
    let all = try cli.json(try cli("list", "--json"))
    let byAlice = try cli.json(try cli("list", "--json", "--by", "Alice"))
    #expect(Set(all.keys) == Set(byAlice.keys))
    #expect(byAlice["total"] as? Int == 2)
    let table = try cli("list", "--by", "alice")
    #expect(table.status == 0 && table.output.contains("Celeste") && !table.output.contains("Dune"))
    let wrong = try cli("list", "--by", "Alice Liddell")
    #expect(wrong.status == 2 && wrong.output.isEmpty)
    #expect(
      wrong.error
        == "error: --by Alice Liddell is not a reviewer's name: use only ASCII letters, digits, '.', '_' and '-'; "
        + "see `catalogue list --help`\n")
  }

  @Test func reviewsShowWhoWroteThem() throws {
    let cli = CLI()
    let id = try cli.withReview()
    let plain = try cli.json(try cli("show", id, "--json"))
    #expect(plain["createdBy"] is NSNull && plain["updatedBy"] is NSNull)
    // As the server records a reviewer's write.
    try cli.sqlite("UPDATE reviews SET created_by = 'alice', updated_by = 'bob'")
    let written = try cli.json(try cli("show", id, "--json"))
    #expect(written["createdBy"] as? String == "alice" && written["updatedBy"] as? String == "bob")
    let listed = try #require(try cli.json(try cli("list", "--json"))["reviews"] as? [[String: Any]])
    #expect(listed.first?["createdBy"] as? String == "alice")
    // An edit from the command line is no reviewer's.
    let edited = try cli.json(try cli("edit", id, "--rating", "2", "--json"))
    #expect(edited["createdBy"] as? String == "alice" && edited["updatedBy"] is NSNull)
  }
}

/// The password asked on a terminal: a pseudo-terminal stands for the user's.
@Suite("Passwords on a terminal", .serialized)
struct PasswordTerminalTests {
  /// A command running on a new pseudo-terminal, and what it has written there so far.
  final class TerminalSession {
    let process = Process()
    let master: Int32
    private(set) var output = ""

    init(_ arguments: [String]) throws {
      var master: Int32 = -1
      var slave: Int32 = -1
      try #require(openpty(&master, &slave, nil, nil, nil) == 0, "no pseudo-terminal: \(errno)")
      self.master = master
      let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
      process.executableURL = URL(fileURLWithPath: CLI.executable)
      process.arguments = arguments
      process.standardInput = terminal
      process.standardOutput = terminal
      process.standardError = terminal
      try process.run()
      try terminal.close()
    }

    deinit {
      if process.isRunning { process.terminate() }
      close(master)
    }

    /// Reads until `text` has been written, for at most ten seconds.
    func waitFor(_ text: String) throws {
      let deadline = Date().addingTimeInterval(10)
      while !output.contains(text) {
        try #require(Date() < deadline, "waited for \(text); the terminal shows: \(output)")
        var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 100) > 0 else { continue }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(master, &buffer, buffer.count)
        try #require(count > 0, "the terminal closed; it shows: \(output)")
        output += String(decoding: buffer[..<count], as: UTF8.self)
      }
    }

    func type(_ text: String) {
      _ = text.withCString { write(master, $0, strlen($0)) }
    }

    /// Whether the terminal echoes what is typed.
    var echoes: Bool {
      var settings = termios()
      tcgetattr(master, &settings)
      return settings.c_lflag & tcflag_t(ECHO) != 0
    }

    func finish() -> Int32 {
      process.waitUntilExit()
      // What it wrote last.
      var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
      var buffer = [UInt8](repeating: 0, count: 4096)
      while poll(&poller, 1, 100) > 0 {
        let count = read(master, &buffer, buffer.count)
        if count <= 0 { break }
        output += String(decoding: buffer[..<count], as: UTF8.self)
      }
      return process.terminationStatus
    }
  }

  static func library() throws -> CLI {
    let cli = CLI()
    try #require(try cli("init").status == 0)
    return cli
  }

  @Test func thePasswordIsAskedTwiceWithoutEcho() throws {
    let cli = try Self.library()
    let session = try TerminalSession(["--library", cli.library, "user", "add", "alice"])
    try session.waitFor("Password for alice: ")
    #expect(!session.echoes)
    session.type("correct horse\n")
    try session.waitFor("The same password again: ")
    #expect(!session.echoes)
    session.type("correct horse\n")
    #expect(session.finish() == 0)
    #expect(session.output.contains("Added reviewer alice"))
    #expect(!session.output.contains("correct horse"))
    #expect(session.echoes)
    #expect(try cli("user", "list").output.contains("alice"))
  }

  @Test func twoDifferentPasswordsChangeNothing() throws {
    let cli = try Self.library()
    let session = try TerminalSession(["--library", cli.library, "user", "add", "alice"])
    try session.waitFor("Password for alice: ")
    session.type("correct horse\n")
    try session.waitFor("The same password again: ")
    session.type("correct house\n")
    #expect(session.finish() == 1)
    #expect(session.output.contains("error: the two passwords differ: nothing was changed; try again"))
    #expect(session.echoes)
    #expect(try cli("user", "list").output == "No reviewers: `catalogue user add NAME` adds one.\n")
  }

  @Test func ctrlCWhileAskingPutsTheEchoBack() throws {
    let cli = try Self.library()
    let session = try TerminalSession(["--library", cli.library, "user", "add", "alice"])
    try session.waitFor("Password for alice: ")
    session.type("correct")
    #expect(!session.echoes)
    session.process.interrupt()
    #expect(session.finish() == 130)
    #expect(session.output.contains("interrupted: nothing was changed"))
    #expect(session.echoes)
    #expect(try cli("user", "list").output == "No reviewers: `catalogue user add NAME` adds one.\n")
  }
}
