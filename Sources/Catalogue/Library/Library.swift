import Foundation
public import ImagePipeline

/// A catalogue library: review records in SQLite and image files beside them.
///
/// Not `Sendable`: one owner uses a library (and its one SQLite connection) at a time. Image
/// decoding, the expensive part of an import, runs in parallel in ``prepare(files:jobs:progress:)``
/// before the library is touched.
public final class Library {
  /// The library folder.
  public let path: String
  public let files: any FileStore
  /// The records (in the library's SQLite file): every record goes through them.
  let records: any RecordStore
  /// How thumbnails are made; a library setting.
  public internal(set) var thumbnailSpec: ThumbnailSpec {
    didSet { if thumbnailSpec != oldValue { storedImages.removeAll() } }
  }
  /// Stored images made from their records (see ``storedImage(_:)``), by hash, each with the
  /// record it was made from: a grid makes the same covers page after page.
  var storedImages: [String: (row: ImageRow, image: StoredImage)] = [:]
  /// The most stored images kept (about 700 bytes each with their record and paths).
  static let storedImageLimit = 1024
  /// Limits for decoding imports; the pixel budget is a library setting.
  public private(set) var decodeOptions: DecodeOptions
  /// The largest file an import reads, in bytes: a library setting, by default four bytes a
  /// pixel of the pixel budget (400 MB for 100 megapixels). A larger file is refused before it
  /// is read.
  public var fileSizeCap: Int { storedFileSizeCap ?? decodeOptions.pixelBudget * Self.bytesPerPixelCap }
  private var storedFileSizeCap: Int?
  static let bytesPerPixelCap = 4
  /// The file-size cap of a library with the default settings.
  public static let defaultFileSizeCap = DecodeOptions.defaultPixelBudget * bytesPerPixelCap
  /// What Argon2id spends on each password hash; a library setting (`password_ops`,
  /// `password_memory`). Raising it makes each sign-in store a new hash at the new cost.
  public private(set) var passwordCost = PasswordCost.standard
  /// The address readers reach the library's site at, when it has been set (`public_url`,
  /// `catalogue config public-url URL`): what `catalogue serve` builds absolute URLs from.
  public private(set) var publicURL: PublicURL?
  /// Who the writes of this instance are made by: the server sets it to the signed-in
  /// reviewer for the length of a request; the command line leaves it `nil`. Every write that
  /// marks a review updated records it as `updated_by`; a new review records it as
  /// `created_by` too.
  public var author: String?
  /// The records' change token when the settings were last read (see ``refreshIfChanged()``).
  private var settingsVersion: RecordsChangeToken?
  /// Called just before an import's records are committed; a test makes it fail to check that
  /// nothing is half-linked.
  var beforeCommitHook: (() throws(CatalogueError) -> Void)?

  /// The pictures whose files the import under way has written (see ``importing(_:)``).
  var writtenByImport: Set<String>?

  /// Why the library can be read but not written now (a read-only disk or folder, a full
  /// disk), or nil when it can be written. Every write is refused with
  /// ``CatalogueError/readOnlyLibrary(path:reason:)`` before it changes anything.
  public var readOnlyReason: ReadOnlyReason? { records.readOnlyReason }
  /// What the user should know of what the library shows as it was opened (a write-ahead log
  /// that could not be read), or nil.
  public var openingNote: String? { records.openingNote }

  /// Refuses a write to a library that can only be read.
  public func requireWritable() throws(CatalogueError) {
    if let reason = readOnlyReason { throw .readOnlyLibrary(path: path, reason: reason) }
  }

  /// How many of a search's newest matches are ranked by relevance (``SearchQuery/rankingWindow``;
  /// tests make it smaller).
  var rankingWindow = SearchQuery.rankingWindow

  /// The schema version the database was at when it was opened (before any upgrade).
  public internal(set) var openedSchemaVersion = Schema.current

  /// How long a command waits for another that holds the database.
  static let busyTimeoutMilliseconds: Int32 = 30_000

  /// Creates an empty library in `path` (made if missing): its records in a SQLite file in the
  /// folder, or with `database` (a `postgresql://` URL), in that PostgreSQL database, which must
  /// be empty; the folder then keeps the pictures and the database's URL
  /// (``LibraryLayout/databaseLocation``).
  public static func create(at path: String, database: String? = nil, fileStore: (any FileStore)? = nil)
    throws(CatalogueError) -> Library
  {
    // An empty path would put the library in the file system's root.
    guard !path.isEmpty else { throw .invalidArgument("a library needs a folder, not an empty path") }
    let store = fileStore ?? LocalFileStore(root: path)
    if store.size(of: LibraryLayout.database) != nil || store.size(of: LibraryLayout.databaseLocation) != nil {
      throw .alreadyALibrary(path: path)
    }
    guard let database else {
      try store.makeEmptyRoot()
      let records = try SQLiteRecords.create(
        file: "\(path)/\(LibraryLayout.database)", library: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
      return try Library(path: path, files: store, records: records)
    }
    let url = try DatabaseURL(database)
    // The folder first (a folder that holds other files is refused before the database is
    // touched); made here, it goes again when the database refuses.
    let made = FileStatus.at(path) == nil
    try store.makeEmptyRoot()
    do {
      let (records, _) = try PostgreSQLRecords.open(url: url.text, library: path, create: true, upgrading: true)
      try store.write(Array((url.text + "\n").utf8), to: LibraryLayout.databaseLocation)
      return try Library(path: path, files: store, records: records)
    } catch {
      if made { _ = try? FileSystem.removeFolderIfEmpty(path) }
      throw error
    }
  }

  /// Opens the library in `path`. A folder without a database, a database file that is empty,
  /// damaged or not a catalogue's, or one written by a newer schema, is refused and left
  /// untouched: opening never creates a schema in an existing file. An older schema is brought
  /// up to date when `upgrading` (write commands, `catalogue upgrade`), and refused otherwise,
  /// so that a command that only reads never writes.
  ///
  /// The records are in the folder's SQLite file, or in the PostgreSQL database the folder
  /// names (``LibraryLayout/databaseLocation``); `database` names another instead (`--database`).
  public convenience init(
    opening path: String, upgrading: Bool = true, database: String? = nil, fileStore: (any FileStore)? = nil
  ) throws(CatalogueError) {
    let store = fileStore ?? LocalFileStore(root: path)
    var named: DatabaseURL?
    if let database {
      named = try DatabaseURL(database)
    } else {
      named = try Self.databaseURL(in: store, path: path)
    }
    if let named {
      let (records, found) = try PostgreSQLRecords.open(
        url: named.text, library: path, create: false, upgrading: upgrading)
      try self.init(path: path, files: store, records: records)
      openedSchemaVersion = found
      return
    }
    guard store.size(of: LibraryLayout.database) != nil else {
      if !path.isEmpty, let status = FileStatus.at(path), status.kind != .folder {
        throw .notAFolder(path: path)
      }
      throw .notALibrary(path: path)
    }
    let (records, found) = try SQLiteRecords.open(
      file: "\(path)/\(LibraryLayout.database)", library: path, upgrading: upgrading,
      busyTimeoutMilliseconds: Self.busyTimeoutMilliseconds)
    try self.init(path: path, files: store, records: records)
    openedSchemaVersion = found
  }

  /// The database the library folder names, when its records are in PostgreSQL.
  private static func databaseURL(in store: any FileStore, path: String) throws(CatalogueError) -> DatabaseURL? {
    guard store.size(of: LibraryLayout.databaseLocation) != nil else { return nil }
    let bytes = try store.read(LibraryLayout.databaseLocation)
    let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    do {
      return try DatabaseURL(text)
    } catch {
      throw .damagedDatabase(
        path: "\(path)/\(LibraryLayout.databaseLocation)",
        reason: "it should hold the postgresql:// URL of the library's PostgreSQL database, and holds something else")
    }
  }

  private init(path: String, files: any FileStore, records: any RecordStore) throws(CatalogueError) {
    self.path = path
    self.files = files
    self.records = records
    self.thumbnailSpec = .default
    self.decodeOptions = DecodeOptions()
    try loadSettings()
  }

  /// Reads the library's settings into this instance; a value no build writes is refused.
  private func loadSettings() throws(CatalogueError) {
    let version = try records.changeToken()
    let settings = try records.settings()
    var spec = ThumbnailSpec.default
    var options = DecodeOptions()
    var cap: Int?
    var cost = PasswordCost.standard
    var site: PublicURL?
    if let name = settings["thumbnail_spec"] {
      guard let stored = ThumbnailSpec(name: name) else {
        throw .badSetting(key: "thumbnail_spec", value: name)
      }
      spec = stored
    }
    if let budget = settings["pixel_budget"] {
      guard let pixels = Int(budget), pixels > 0 else {
        throw .badSetting(key: "pixel_budget", value: budget)
      }
      options.pixelBudget = pixels
    }
    if let text = settings["file_size_cap"] {
      guard let bytes = Int(text), bytes > 0 else {
        throw .badSetting(key: "file_size_cap", value: text)
      }
      cap = bytes
    }
    if let text = settings["password_ops"] {
      guard let operations = Int(text), operations >= PasswordCost.minimum.operations, operations <= 1_000 else {
        throw .badSetting(key: "password_ops", value: text)
      }
      cost.operations = operations
    }
    if let text = settings["password_memory"] {
      guard let bytes = Int(text), bytes >= PasswordCost.minimum.memoryBytes, bytes <= PasswordCost.maximumMemoryBytes
      else {
        throw .badSetting(key: "password_memory", value: text)
      }
      cost.memoryBytes = bytes
    }
    if let text = settings["public_url"] {
      do {
        site = try PublicURL(parsing: text)
      } catch {
        throw .badSetting(key: "public_url", value: text)
      }
    }
    thumbnailSpec = spec
    publicURL = site
    decodeOptions.pixelBudget = options.pixelBudget
    storedFileSizeCap = cap
    passwordCost = cost
    settingsVersion = version
  }

  /// Reads the library's settings again (thumbnail spec, pixel budget, file-size cap, password
  /// cost) when another connection or process has committed since this instance last read
  /// them, so that a long-lived server follows `catalogue thumbnails --rebuild --size 512` at
  /// its next request. Cheap: one pragma when nothing changed. (This instance's own changes
  /// are in force at once.)
  ///
  /// Returns whether anything was committed meanwhile (by any other connection): what the
  /// server's page cache needs to know.
  @discardableResult
  public func refreshIfChanged() throws(CatalogueError) -> Bool {
    guard try records.changeToken() != settingsVersion else { return false }
    try loadSettings()
    return true
  }

  /// Bounds the memory this instance's connection takes: no memory-mapped reads (the pages of
  /// a large library a long-lived process has touched would count as its own) and a page
  /// cache of `cacheBytes`. For a server, which holds a connection a thread; commands keep the
  /// defaults, which read faster.
  public func limitMemory(cacheBytes: Int) throws(CatalogueError) {
    try records.limitMemory(cacheBytes: cacheBytes)
  }

  /// The schema version of the open database.
  public var schemaVersion: Int {
    get throws(CatalogueError) { try records.schemaVersion() }
  }

  // MARK: Settings

  /// Changes the library's thumbnail spec (existing thumbnails are then stale until rebuilt).
  public func setThumbnailSpec(_ spec: ThumbnailSpec) throws(CatalogueError) {
    guard spec.problems.isEmpty else { throw .invalidArgument(spec.problems.joined(separator: "; ")) }
    try write { () throws(CatalogueError) in
      try records.saveSetting("thumbnail_spec", spec.name)
    }
    thumbnailSpec = spec
  }

  /// Sets the address readers reach the library's site at, or forgets it (`nil`).
  public func setPublicURL(_ url: PublicURL?) throws(CatalogueError) {
    try write { () throws(CatalogueError) in
      if let url {
        try records.saveSetting("public_url", url.description)
      } else {
        try records.deleteSetting("public_url")
      }
    }
    publicURL = url
  }

  /// Changes the largest picture (in pixels) the library accepts.
  public func setPixelBudget(_ pixels: Int) throws(CatalogueError) {
    guard pixels > 0 else { throw .invalidArgument("the pixel budget must be positive, not \(pixels)") }
    try write { () throws(CatalogueError) in
      try records.saveSetting("pixel_budget", String(pixels))
    }
    decodeOptions.pixelBudget = pixels
  }

  /// Changes what Argon2id spends on each password hash (at least ``PasswordCost/minimum``).
  /// Stored hashes keep their cost until their reviewer next signs in, when
  /// ``verifyPassword(name:password:now:)`` stores a new one.
  public func setPasswordCost(_ cost: PasswordCost) throws(CatalogueError) {
    guard cost.problems.isEmpty else { throw .invalidArgument(cost.problems.joined(separator: "; ")) }
    try write { () throws(CatalogueError) in
      try records.saveSetting("password_ops", String(cost.operations))
      try records.saveSetting("password_memory", String(cost.memoryBytes))
    }
    passwordCost = cost
  }

  /// Changes the largest file (in bytes) an import reads.
  public func setFileSizeCap(_ bytes: Int) throws(CatalogueError) {
    guard bytes > 0 else { throw .invalidArgument("the file-size cap must be positive, not \(bytes)") }
    try write { () throws(CatalogueError) in
      try records.saveSetting("file_size_cap", String(bytes))
    }
    storedFileSizeCap = bytes
  }

  // MARK: Plumbing

  /// Runs `body` in one write transaction (`BEGIN IMMEDIATE`): all of it or none, with the
  /// settings as committed (see ``refreshIfChanged()``). When
  /// `interruptible`, a stop asked for by a signal (see ``Interruption``) rolls it back, at the
  /// start or just before the commit.
  func write<T>(interruptible: Bool = true, _ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T {
    try requireWritable()
    if interruptible { try Interruption.check() }
    return try records.writeTransaction { () throws(CatalogueError) -> T in
      // The settings as committed: another command may have switched the thumbnail spec since
      // this instance read it, and what is written now must agree with the spec in force.
      try refreshIfChanged()
      let result = try body()
      if interruptible { try Interruption.check() }
      return result
    }
  }

  /// Runs `body` on one consistent snapshot.
  func read<T>(_ body: () throws(CatalogueError) -> T) throws(CatalogueError) -> T {
    try records.readTransaction(body)
  }
}
