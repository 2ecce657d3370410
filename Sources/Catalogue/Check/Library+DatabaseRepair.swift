import Foundation

extension Library {
  /// Repairs the database itself, before anything a check found through it is acted on: a copy
  /// of the damaged file (and its write-ahead log) goes to `lost+found/<time>/` first; then the
  /// indexes and the search index are rebuilt from the tables, in one transaction; when that is
  /// not enough (a table's pages are damaged, or an index's too badly to be freed), the
  /// database is rebuilt from every row that still reads, rows on damaged pages put together
  /// from what the table's indexes hold, and the rebuilt database becomes the library's, page
  /// for page, in one transaction. What was done, as repair actions; nothing when the database
  /// is whole.
  ///
  /// Stop `catalogue serve` first: a server would see the rebuilt database at its next request,
  /// but a write it makes while the rebuild reads is not in it.
  func repairDatabase(dryRun: Bool, now: Date) throws(CatalogueError) -> [String] {
    let damage = records.damage(quick: false)
    guard !damage.isWhole else { return [] }
    if dryRun {
      return [
        "would keep a copy of the damaged database in \(LibraryLayout.lostAndFound)/, then rebuild its indexes, "
          + "or the whole database from what still reads"
      ]
    }
    let folder = "\(LibraryLayout.lostAndFound)/\(DateText.fileStamp(now))"
    do {
      _ = try FileSystem.makeFolder(files.location(of: LibraryLayout.lostAndFound))
      _ = try FileSystem.makeFolder(files.location(of: folder))
    } catch {
      throw .io(operation: .createFolder, path: files.location(of: folder), code: error.rawValue)
    }
    var actions = ["kept a copy of the damaged database in \(folder)/"]
    try write(interruptible: false) { () throws(CatalogueError) in
      try records.keepCopy(in: files.location(of: folder))
    }
    if try records.rebuildIndexes() {
      actions.append("rebuilt the indexes and the search index from the tables: the database is whole again")
      return actions
    }
    let rebuilt = try records.rebuild(into: files.location(of: "\(folder)/rebuilt.sqlite"))
    var read: [String] = []
    for table in rebuilt.tables where table.read + table.fromIndexes.count + table.lost > 0 {
      var text = "\(table.name): \(table.read) read"
      if !table.fromIndexes.isEmpty {
        text +=
          ", \(table.fromIndexes.count) put together from its indexes (\(table.fromIndexes.joined(separator: "; ")))"
      }
      if table.lost > 0 { text += ", \(table.lost) lost" }
      read.append(text)
    }
    var action = "rebuilt the database from what still reads (" + read.joined(separator: "; ") + ")"
    if rebuilt.tables.contains(where: { $0.name == "reviews" && !$0.fromIndexes.isEmpty }) {
      action += "; a review put together from its indexes has lost its text: write it again with `catalogue edit`"
    }
    actions.append(action)
    return actions
  }
}

extension Library {
  /// What a repair of the header of the database file in the library at `path` would set
  /// right, or nil when the header is sound (or the file cannot be read). To be asked only
  /// when the library could not be opened: it reads the file through a descriptor of its own,
  /// which must never happen while this process holds the database open (see
  /// `Database.fileHeader(count:)`).
  public static func damagedHeader(ofLibraryAt path: String) -> [String]? {
    (try? headerRepair(of: "\(path)/\(LibraryLayout.database)"))?.fixes
  }

  private static func headerRepair(of file: String) throws(Errno) -> DatabaseHeader.Repair? {
    let descriptor = try FileDescriptor.open(file, .readOnly, options: .nonBlocking)
    defer { descriptor.close() }
    let size = try descriptor.status().size
    let header = try descriptor.read(count: DatabaseHeader.size, at: 0)
    return DatabaseHeader.repair(header, fileSize: size) { offset in
      (try? descriptor.read(count: 1, at: offset))?.first
    }
  }

  /// Restores the fixed fields of the database file's header in the library at `path` (see
  /// ``DatabaseHeader``), when that is what keeps it from opening: a copy of the file (and of
  /// its write-ahead log) goes to `lost+found/<time>/` first, each candidate header is tried on
  /// another copy, and the one with which SQLite's quick check passes is written into the file.
  /// What was done, as repair actions; nil when the header is not what is wrong, or when no
  /// candidate makes the file readable (then nothing is changed). Only for a library that could
  /// not be opened (see ``damagedHeader(ofLibraryAt:)``).
  static func repairDatabaseHeader(at path: String, dryRun: Bool, now: Date) throws(CatalogueError) -> [String]? {
    let file = "\(path)/\(LibraryLayout.database)"
    guard let repair = try? headerRepair(of: file) else { return nil }
    let fixes = repair.fixes.joined(separator: ", ")
    if dryRun { return ["would restore the database file's header (\(fixes)), keeping a copy in lost+found/"] }
    let folder = "\(path)/\(LibraryLayout.lostAndFound)/\(DateText.fileStamp(now))"
    do throws(Errno) {
      _ = try FileSystem.makeFolder("\(path)/\(LibraryLayout.lostAndFound)")
      _ = try FileSystem.makeFolder(folder)
    } catch {
      throw .io(operation: .createFolder, path: folder, code: error.rawValue)
    }
    for name in [LibraryLayout.database, LibraryLayout.database + "-wal"] where FileSystem.exists("\(path)/\(name)") {
      try copyFile("\(path)/\(name)", to: "\(folder)/\(name)")
    }
    let trial = "\(folder)/repaired.sqlite"
    defer { _ = try? FileSystem.remove(trial) }
    for pageSize in repair.pageSizes.isEmpty ? [DatabaseHeader.pageSize(of: repair.header)] : repair.pageSizes {
      let header = DatabaseHeader.setting(pageSize: pageSize, in: repair.header)
      try copyFile(file, to: trial, header: header)
      guard opensWhole(trial) else { continue }
      do throws(Errno) {
        let descriptor = try FileDescriptor.open(file, .readWrite)
        defer { descriptor.close() }
        try descriptor.write(all: header, at: 0)
        try descriptor.sync()
      } catch {
        throw .io(operation: .write, path: file, code: error.rawValue)
      }
      let shortFolder = "\(LibraryLayout.lostAndFound)/\(DateText.fileStamp(now))"
      return [
        "kept a copy of the damaged database in \(shortFolder)/",
        "restored the database file's header (\(fixes)\(repair.pageSizes.isEmpty ? "" : ": \(pageSize) bytes a page"))",
      ]
    }
    return nil
  }

  /// Whether SQLite opens the database at `path` and finds it whole (its quick check).
  private static func opensWhole(_ path: String) -> Bool {
    guard let database = try? Database(path: path, create: false),
      let result = try? database.query("PRAGMA quick_check", row: { $0.text(0) })
    else { return false }
    return result == ["ok"]
  }

  /// Copies `source` to a new file at `destination` (see `FileSystem.copy`).
  private static func copyFile(_ source: String, to destination: String, header: [UInt8]? = nil)
    throws(CatalogueError)
  {
    do {
      try FileSystem.copy(source, to: destination, header: header)
    } catch {
      throw .io(operation: .write, path: destination, code: error.rawValue)
    }
  }
}
