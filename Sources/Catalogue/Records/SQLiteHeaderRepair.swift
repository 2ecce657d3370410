import Foundation

extension SQLiteRecords {
  /// What a repair of the header of the database file in the library at `path` would set
  /// right, or nil when the header is sound (or the file cannot be read). To be asked only
  /// when the library could not be opened: it reads the file through a descriptor of its own,
  /// which must never happen while this process holds the database open (see
  /// `Database.fileHeader(count:)`).
  static func damagedHeader(ofLibraryAt path: String) -> [String]? {
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
