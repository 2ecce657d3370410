import Foundation
import Glibc
import Testing
import TestSupport

/// A library on a disk that cannot be written: mounted read-only, another user's, full of
/// data, out of inodes. What reads works; what writes is refused before anything is done, in
/// words that say which folder and why, and the library stays exactly as it was.
@Suite("A library that can only be read")
struct ReadOnlyLibraryTests {
  /// Every file below `folder` with its bytes; SQLite's log and its index are left out (opening
  /// a library may make them, empty), and so is the lock file a write makes, empty, before it
  /// looks at anything.
  static func snapshot(_ folder: String) throws -> [String: Data] {
    try fileSnapshot(folder).filter {
      !$0.key.hasSuffix("-shm") && !$0.key.hasSuffix("-wal") && $0.key != "catalogue.lock"
    }
  }

  /// The sample library, copied to `path`.
  static func sample(at path: String) throws {
    let sample = Fixture.root.deletingLastPathComponent().appendingPathComponent("Library").path
    try FileManager.default.copyItem(atPath: sample, toPath: path)
  }

  /// Every command that writes, with the arguments that make it write something.
  static let writes: [[String]] = [
    ["add", "--title", "X", "--rating", "1", "--category", "book", "--body", "x"],
    ["edit", "8642", "--rating", "1"],
    ["attach", "8642", Fixture.image("baseline.jpg")],
    ["remove", "8642", "--yes"],
    ["thumbnails", "--rebuild", "--size", "128"],
    ["user", "add", "bob", "--password-stdin"],
  ]

  /// Runs the read commands and the writes on the library at `path` (with `run`), expecting the
  /// reads to work and every write to be refused with `refusal`, nothing changed in `original`.
  static func readsWorkAndWritesAreRefused(
    _ cli: CLI, library path: String, original: String, refusal: String,
    run: (([String], String?) throws -> CLI.Result)? = nil
  ) throws {
    let run = run ?? { arguments, input in try cli.run(["--library", path] + arguments, input: input) }
    let before = try snapshot(original)
    let list = try run(["list"], nil)
    #expect(list.status == 0, "\(list.error)")
    #expect(list.output.hasSuffix("7 reviews\n"))
    #expect(try run(["show", "8642"], nil).output.contains("SuperStore"))
    let check = try run(["check"], nil)
    #expect(check.status == 0, "\(check.output)\(check.error)")
    let json = try run(["check", "--json"], nil)
    #expect(json.status == 0)
    #expect(
      (try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])?["healthy"] as? Bool == true)
    let export = try run(["export", "8642", "--to", cli.folder.file("exported")], nil)
    #expect(export.status == 0, "\(export.error)")
    for arguments in writes {
      let result = try run(arguments, "a long enough password\n")
      #expect(result.status == 1, "\(arguments)")
      #expect(result.error == "error: \(refusal)\n", "\(arguments): \(result.error)")
    }
    #expect(try snapshot(original) == before, "the library changed")
  }

  @Test(.enabled(if: Mounts.available)) func aLibraryOnAReadOnlyMountIsReadAndNeverWritten() throws {
    let cli = CLI()
    let mounts = Mounts()
    defer { mounts.unmountAll() }
    try Self.sample(at: cli.folder.file("source"))
    try mounts.readOnlyBind(cli.folder.file("source"), at: cli.folder.file("mounted"))
    let library = cli.folder.file("mounted")
    try Self.readsWorkAndWritesAreRefused(
      cli, library: library, original: cli.folder.file("source"),
      refusal: "\(library) is on a read-only disk: the library can be read but not changed (nothing was changed)")
  }

  @Test(.enabled(if: Mounts.available)) func aLibraryWithAnUncheckpointedLogIsReadWhole() throws {
    let cli = CLI()
    let mounts = Mounts()
    defer { mounts.unmountAll() }
    let source = cli.folder.file("source")
    try Self.sample(at: source)
    // A change that stays in the write-ahead log: the copy is taken while it is open.
    try cli.sqlite("PRAGMA journal_mode = WAL", database: source + "/catalogue.sqlite")
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    holder.arguments = [
      "-cmd", "PRAGMA wal_autocheckpoint = 0",
      "-cmd", "UPDATE reviews SET title = 'Edited in the log' WHERE id LIKE '8642%'",
      "-cmd", ".shell cp \(source)/catalogue.sqlite \(source)/catalogue.sqlite-wal \(cli.folder.path)/",
      source
        + "/catalogue.sqlite", "SELECT 1",
    ]
    holder.standardOutput = FileHandle.nullDevice
    try holder.run()
    holder.waitUntilExit()
    for name in ["catalogue.sqlite", "catalogue.sqlite-wal"] {
      try? FileManager.default.removeItem(atPath: "\(source)/\(name)")
      try FileManager.default.copyItem(atPath: "\(cli.folder.path)/\(name)", toPath: "\(source)/\(name)")
    }
    try? FileManager.default.removeItem(atPath: "\(source)/catalogue.sqlite-shm")
    try mounts.readOnlyBind(source, at: cli.folder.file("mounted"))
    let shown = try cli.run(["--library", cli.folder.file("mounted"), "show", "8642"])
    #expect(shown.status == 0, "\(shown.error)")
    #expect(shown.output.hasPrefix("Edited in the log\n"), "\(shown.output)")
  }

  @Test(.enabled(if: Mounts.available)) func anotherUsersLibraryIsReadAndNeverWritten() throws {
    let cli = CLI()
    let library = cli.folder.file("theirs")
    try Self.sample(at: library)
    // The test's folder is private to root: opened to `nobody`, who exports into it.
    let asNobody: ([String], String?) throws -> CLI.Result = { arguments, input in
      try cli.run(
        ["--reuid=nobody", "--regid=nogroup", "--clear-groups", CLI.executable, "--library", library] + arguments,
        input: input, executable: "/usr/bin/setpriv")
    }
    chmod(cli.folder.path, 0o777)
    try Self.readsWorkAndWritesAreRefused(
      cli, library: library, original: library,
      refusal:
        "the library folder \(library) may not be written by you (another user's, or its permissions say so): "
        + "it can be read but not changed (nothing was changed)", run: asNobody)
  }

  @Test(.enabled(if: Mounts.available)) func aFullDiskReadsAndRefusesWrites() throws {
    let cli = CLI()
    let mounts = Mounts()
    defer { mounts.unmountAll() }
    let disk = cli.folder.file("disk")
    try mounts.tmpfs(at: disk, size: "4m")
    let library = disk + "/Library"
    try Self.sample(at: library)
    try mounts.fill(disk)  // every byte taken
    try Self.readsWorkAndWritesAreRefused(
      cli, library: library, original: library,
      refusal: "the disk holding \(library) is full: free some space and try again (nothing was changed)")
  }

  @Test(.enabled(if: Mounts.available)) func aDiskWithoutInodesReadsAndRefusesWrites() throws {
    let cli = CLI()
    let mounts = Mounts()
    defer { mounts.unmountAll() }
    let disk = cli.folder.file("disk")
    try mounts.tmpfs(at: disk, size: "40m", inodes: 80)
    let library = disk + "/Library"
    try Self.sample(at: library)
    var index = 0
    while FileManager.default.createFile(atPath: disk + "/f\(index)", contents: nil) { index += 1 }
    try Self.readsWorkAndWritesAreRefused(
      cli, library: library, original: library,
      refusal:
        "the disk holding \(library) has no free inodes (file entries) left: delete some files and try again "
        + "(nothing was changed)")
  }

  /// The disk fills during the write: the database opens, the picture's files do not fit.
  /// The message names the library, and nothing is left of the attempt.
  @Test(.enabled(if: Mounts.available)) func aDiskThatFillsDuringAnAttachLeavesNothing() throws {
    let cli = CLI()
    let mounts = Mounts()
    defer { mounts.unmountAll() }
    let disk = cli.folder.file("disk")
    try mounts.tmpfs(at: disk, size: "4m")
    let library = disk + "/Library"
    try Self.sample(at: library)
    // Opened once, so that the log and its index are made while there is room.
    #expect(try cli.run(["--library", library, "list"]).status == 0)
    // Room for the database's own needs, not for a 75 KB picture and its thumbnail.
    try mounts.fill(disk, leaving: 40 << 10)
    let before = try Self.snapshot(library)
    let attached = try cli.run(["--library", library, "attach", "8642", Fixture.image("large-1600x1200.jpg")])
    #expect(attached.status == 1)
    #expect(
      attached.error
        == "error: the disk holding \(library) is full: free some space and try again (nothing was changed)\n",
      "\(attached.error)")
    #expect(try Self.snapshot(library) == before)
    try FileManager.default.removeItem(atPath: disk + "/filler")
    #expect(try cli.run(["--library", library, "check"]).status == 0)
  }
}
