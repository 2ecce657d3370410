import Foundation

/// A service whose export `catalogue import` reads, and how each of its entries becomes a
/// review.
///
/// Ratings become whole stars by one rule: the service's rating on a scale of 5 (IMDb's of 10
/// halved), rounded to the nearest whole star with halves rounded up (3.5 → 4, 3.25 → 3,
/// 3.75 → 4; IMDb 7 → 4), and never below 1 for a rating given (0.5 → 1). The rating as the
/// service wrote it is kept with the review's source (`3.5/5`, `7/10`) and `show` prints it.
/// An entry rated but without review text is "unreviewed": skipped unless asked for, then a
/// draft. Each entry's date (when it was watched, read or rated) is the review's created time.
public enum ImportSource: String, Sendable, CaseIterable {
  /// A Letterboxd export: the ZIP Letterboxd gives, or the folder it unpacks to.
  case letterboxd
  /// Goodreads' "Export Library" CSV.
  case goodreads
  /// IMDb's ratings CSV ("Your Rating" 1–10; IMDb exports no review text).
  case imdb
  /// The StoryGraph's CSV export ("Star Rating" in quarter stars).
  case storygraph

  /// How users call the service.
  public var displayName: String {
    switch self {
    case .letterboxd: return "Letterboxd"
    case .goodreads: return "Goodreads"
    case .imdb: return "IMDb"
    case .storygraph: return "The StoryGraph"
    }
  }

  /// The largest export file read, in bytes: far above any real library's.
  static let maximumFileBytes = 512 << 20

  /// Whole stars for a rating of `value` out of `scale`, by the rule above.
  static func stars(_ value: Double, of scale: Double) -> Int {
    guard value > 0 else { return 0 }
    // Bounded before it is made an integer: a rating of 1e300 in a file is 5 stars, not a trap.
    let fives = min(value * 5 / scale, 5)
    return max(1, Int((fives + 0.5).rounded(.down)))
  }

  /// A rating as the service wrote it, or nil when there is none (empty or 0, Goodreads'
  /// "unrated"): the number, read leniently, with its text.
  static func rating(_ text: String?) -> (value: Double, text: String)? {
    guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty,
      let value = Double(text), value.isFinite, value > 0
    else { return nil }
    return (value, text)
  }

  /// A date as the services write it (`2024-03-01`, `2024/03/01`, or the first of a range
  /// `2024/01/02-2024/01/10`), at midnight UTC; nil for anything else.
  static func date(_ text: String?) -> Date? {
    guard let text = text?.trimmingCharacters(in: .whitespaces), text.utf8.count >= 10 else { return nil }
    let digits = Array(text.utf8.prefix(10))
    guard digits[4] == digits[7], digits[4] == UInt8(ascii: "-") || digits[4] == UInt8(ascii: "/") else {
      return nil
    }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for byte in digits[range] {
        guard (48...57).contains(byte) else { return nil }
        value = value * 10 + Int(byte - 48)
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
    let iso = String(format: "%04d-%02d-%02dT00:00:00.000Z", year, month, day)
    return DateText.parse(iso)
  }

  // MARK: Reading an export

  /// What an export holds: the entries to import, those skipped with why, and the rows that
  /// could not be read.
  struct Read {
    var entries: [ImportEntry] = []
    var skipped: [(ImportEntry, String)] = []
    var problems: [CSVProblem] = []
  }

  /// Reads the export at `path`.
  func read(_ path: String) throws(CatalogueError) -> Read {
    switch self {
    case .letterboxd: return try Self.letterboxd(ExportFiles(path: path, source: self))
    case .goodreads: return try Self.goodreads(Self.table(path))
    case .imdb: return try Self.imdb(Self.table(path))
    case .storygraph: return try Self.storygraph(Self.table(path))
    }
  }

  /// What a CSV export of this service (of Letterboxd, its `reviews.csv`) holds, read from
  /// `bytes` as an import reads it, with nothing written: its entries (rated or reviewed, which
  /// an import adds unless they are unreviewed), the entries it skips whatever is asked (books
  /// to read, entries neither rated nor reviewed), and the rows that cannot be read; or why the
  /// file cannot be read at all. What the
  /// fuzzer drives, and a check a script can make of a file before importing it.
  public func survey(csv bytes: [UInt8], file: String) -> Result<
    (entries: Int, skipped: Int, malformed: Int), CatalogueError
  > {
    do throws(CatalogueError) {
      let table = try Self.table(bytes, file: file, path: file)
      let read: Read
      switch self {
      case .letterboxd: read = try Self.letterboxdReviews(table)
      case .goodreads: read = try Self.goodreads(table)
      case .imdb: read = try Self.imdb(table)
      case .storygraph: read = try Self.storygraph(table)
      }
      return .success((read.entries.count, read.skipped.count, read.problems.count))
    } catch {
      return .failure(error)
    }
  }

  /// A Letterboxd `reviews.csv` alone.
  static func letterboxdReviews(_ table: CSVTable) throws(CatalogueError) -> Read {
    try letterboxd(ExportFiles(tables: ["reviews.csv": table], path: table.file))
  }

  /// The CSV file at `path`, read whole.
  static func table(_ path: String) throws(CatalogueError) -> CSVTable {
    let name = (path as NSString).lastPathComponent
    return try table(ExportFiles.readFile(path), file: name, path: path)
  }

  static func table(_ bytes: [UInt8], file: String, path: String) throws(CatalogueError) -> CSVTable {
    do {
      return try CSVTable(bytes: bytes, file: file)
    } catch {
      throw .unreadableExport(path: path, reason: error.description)
    }
  }

  /// Checks that `table` has `columns`, naming the first missing one.
  static func require(_ columns: [String], in table: CSVTable, path: String, service: ImportSource)
    throws(CatalogueError)
  {
    for column in columns where table.column(column) == nil {
      throw .unreadableExport(
        path: path,
        reason:
          "\(table.file) has no column \(column): it is not \(service.displayName)'s export as this build reads it")
    }
  }

  // MARK: Letterboxd

  /// Letterboxd's export: `reviews.csv` (`Date,Name,Year,Letterboxd URI,Rating,Rewatch,Review,
  /// Tags,Watched Date`), each row a review with its text; `ratings.csv` (`Date,Name,Year,
  /// Letterboxd URI,Rating`), each rated film, imported as unreviewed when no review has the
  /// same film (name and year); `watched.csv`, whose films neither rated nor reviewed are
  /// listed as skipped. `diary.csv` adds nothing the others lack (its ratings are in
  /// `ratings.csv`, the latest of each film).
  static func letterboxd(_ files: ExportFiles) throws(CatalogueError) -> Read {
    var read = Read()
    var reviewed: Set<String> = []
    let reviews = try files.table("reviews.csv")
    let ratings = try files.table("ratings.csv")
    guard reviews != nil || ratings != nil else {
      throw .unreadableExport(
        path: files.path,
        reason: "it holds neither reviews.csv nor ratings.csv: it is not a Letterboxd export (Settings → Data → Export)"
      )
    }
    if let table = reviews {
      try require(["Name", "Letterboxd URI", "Rating", "Review"], in: table, path: files.path, service: .letterboxd)
      read.problems += table.problems
      for record in table.records {
        let name = table.value("Name", in: record) ?? ""
        let year = table.value("Year", in: record) ?? ""
        reviewed.insert(name + "\u{0}" + year)
        let rating = Self.rating(table.value("Rating", in: record))
        let text = table.value("Review", in: record) ?? ""
        read.entries.append(
          ImportEntry(
            sourceID: table.value("Letterboxd URI", in: record) ?? "", title: Self.title(name, year: year),
            body: ReviewHTML.markdown(text), rating: rating.map { stars($0.value, of: 5) } ?? 0,
            sourceRating: rating.map { "\($0.text)/5" }, category: .movie, containsSpoilers: false,
            date: date(table.value("Watched Date", in: record)) ?? date(table.value("Date", in: record)),
            hasReview: Self.hasText(text), file: table.file,
            line: record.line))
      }
    }
    var rated: Set<String> = []
    if let table = ratings {
      try require(["Name", "Letterboxd URI", "Rating"], in: table, path: files.path, service: .letterboxd)
      read.problems += table.problems
      for record in table.records {
        let name = table.value("Name", in: record) ?? ""
        let year = table.value("Year", in: record) ?? ""
        rated.insert(name + "\u{0}" + year)
        guard !reviewed.contains(name + "\u{0}" + year), let rating = Self.rating(table.value("Rating", in: record))
        else { continue }
        read.entries.append(
          ImportEntry(
            sourceID: table.value("Letterboxd URI", in: record) ?? "", title: Self.title(name, year: year), body: "",
            rating: stars(rating.value, of: 5), sourceRating: "\(rating.text)/5", category: .movie,
            containsSpoilers: false, date: date(table.value("Date", in: record)), hasReview: false, file: table.file,
            line: record.line))
      }
    }
    // A film only watched has nothing to keep: listed, so that the report accounts for it.
    if let table = try files.table("watched.csv"), table.column("Name") != nil {
      read.problems += table.problems
      for record in table.records {
        let name = table.value("Name", in: record) ?? ""
        let year = table.value("Year", in: record) ?? ""
        guard !reviewed.contains(name + "\u{0}" + year), !rated.contains(name + "\u{0}" + year) else { continue }
        let entry = ImportEntry(
          sourceID: table.value("Letterboxd URI", in: record) ?? "", title: Self.title(name, year: year), body: "",
          rating: 0, sourceRating: nil, category: .movie, containsSpoilers: false,
          date: date(table.value("Date", in: record)), hasReview: false, file: table.file, line: record.line)
        read.skipped.append((entry, "watched, neither rated nor reviewed"))
      }
    }
    return read
  }

  /// Whether `text` has anything but white space.
  static func hasText(_ text: String) -> Bool { text.unicodeScalars.contains { !$0.properties.isWhitespace } }

  /// `Name (Year)`, or the name alone.
  static func title(_ name: String, year: String) -> String {
    let year = year.trimmingCharacters(in: .whitespaces)
    return year.isEmpty ? name : "\(name) (\(year))"
  }

  // MARK: Goodreads

  /// Goodreads' export: a row a book (`Book Id`), `My Rating` 0 (unrated) to 5, `My Review` in
  /// HTML, `Spoiler` `true` for a review marked as one (the catalogue's spoiler warning), `Date
  /// Read` (else `Date Added`). Books on the to-read shelf, and books neither rated nor
  /// reviewed, are skipped.
  static func goodreads(_ table: CSVTable) throws(CatalogueError) -> Read {
    try require(["Book Id", "Title", "My Rating", "My Review"], in: table, path: table.file, service: .goodreads)
    var read = Read(problems: table.problems)
    for record in table.records {
      let author = table.value("Author", in: record)?.trimmingCharacters(in: .whitespaces) ?? ""
      let title = table.value("Title", in: record) ?? ""
      let rating = Self.rating(table.value("My Rating", in: record))
      let text = table.value("My Review", in: record) ?? ""
      let entry = ImportEntry(
        sourceID: table.value("Book Id", in: record) ?? "", title: author.isEmpty ? title : "\(title) by \(author)",
        body: ReviewHTML.markdown(text), rating: rating.map { stars($0.value, of: 5) } ?? 0,
        sourceRating: rating.map { "\($0.text)/5" }, category: .book,
        containsSpoilers: table.value("Spoiler", in: record)?.lowercased() == "true",
        date: date(table.value("Date Read", in: record)) ?? date(table.value("Date Added", in: record)),
        hasReview: Self.hasText(text), file: table.file, line: record.line)
      if entry.sourceID.trimmingCharacters(in: .whitespaces).isEmpty {
        read.skipped.append((entry, "it has no Book Id"))
      } else if table.value("Exclusive Shelf", in: record) == "to-read" {
        read.skipped.append((entry, "on the to-read shelf"))
      } else if rating == nil && !entry.hasReview {
        read.skipped.append((entry, "neither rated nor reviewed"))
      } else {
        read.entries.append(entry)
      }
    }
    return read
  }

  // MARK: IMDb

  /// IMDb's ratings export: a row a title (`Const`), `Your Rating` 1–10, `Date Rated`, and
  /// `Title Type`, which gives the category (a film, a TV show, a game). IMDb exports no
  /// review text, so every entry is unreviewed.
  static func imdb(_ table: CSVTable) throws(CatalogueError) -> Read {
    try require(["Const", "Your Rating", "Title"], in: table, path: table.file, service: .imdb)
    var read = Read(problems: table.problems)
    for record in table.records {
      let rating = Self.rating(table.value("Your Rating", in: record))
      let kind = (table.value("Title Type", in: record) ?? "").lowercased()
      let category: Category =
        kind.hasPrefix("tv") && kind != "tv movie" && kind != "tvmovie"
        ? .tv : kind.contains("game") ? .game : .movie
      let entry = ImportEntry(
        sourceID: table.value("Const", in: record) ?? "",
        title: Self.title(table.value("Title", in: record) ?? "", year: table.value("Year", in: record) ?? ""),
        body: "", rating: rating.map { stars($0.value, of: 10) } ?? 0, sourceRating: rating.map { "\($0.text)/10" },
        category: category, containsSpoilers: false, date: date(table.value("Date Rated", in: record)),
        hasReview: false, file: table.file, line: record.line)
      if rating == nil {
        read.skipped.append((entry, "not rated"))
      } else {
        read.entries.append(entry)
      }
    }
    return read
  }

  // MARK: The StoryGraph

  /// The StoryGraph's export: a row a book, `ISBN/UID` its id, `Star Rating` in quarter
  /// stars, `Review`, `Last Date Read` (else `Date Added`); books to read are skipped.
  static func storygraph(_ table: CSVTable) throws(CatalogueError) -> Read {
    try require(["Title", "ISBN/UID", "Star Rating", "Review"], in: table, path: table.file, service: .storygraph)
    var read = Read(problems: table.problems)
    for record in table.records {
      let authors = table.value("Authors", in: record)?.trimmingCharacters(in: .whitespaces) ?? ""
      let title = table.value("Title", in: record) ?? ""
      let rating = Self.rating(table.value("Star Rating", in: record))
      let text = table.value("Review", in: record) ?? ""
      var id = table.value("ISBN/UID", in: record)?.trimmingCharacters(in: .whitespaces) ?? ""
      // A book without an ISBN or UID is known by its title and authors.
      if id.isEmpty { id = "title:" + title + " / " + authors }
      let entry = ImportEntry(
        sourceID: id, title: authors.isEmpty ? title : "\(title) by \(authors)", body: ReviewHTML.markdown(text),
        rating: rating.map { stars($0.value, of: 5) } ?? 0, sourceRating: rating.map { "\($0.text)/5" },
        category: .book, containsSpoilers: false,
        date: date(table.value("Last Date Read", in: record)) ?? date(table.value("Dates Read", in: record))
          ?? date(table.value("Date Added", in: record)),
        hasReview: Self.hasText(text), file: table.file, line: record.line)
      if table.value("Read Status", in: record)?.lowercased() == "to-read" {
        read.skipped.append((entry, "on the to-read list"))
      } else if rating == nil && !entry.hasReview {
        read.skipped.append((entry, "neither rated nor reviewed"))
      } else {
        read.entries.append(entry)
      }
    }
    return read
  }
}

/// One entry of an export as the catalogue will keep it.
struct ImportEntry: Sendable {
  var sourceID: String
  var title: String
  var body: String
  /// Whole stars, by ``ImportSource``'s rule.
  var rating: Int
  /// The rating as the service wrote it, with its scale (`3.5/5`).
  var sourceRating: String?
  var category: Category
  var containsSpoilers: Bool
  /// When it was watched, read or rated: the review's created time.
  var date: Date?
  /// Whether it has review text (an entry without is "unreviewed").
  var hasReview: Bool
  /// Where it is in the export.
  var file: String
  var line: Int

  /// What the import makes of the entry, hashed: when a newer export's differs, the service's
  /// entry changed.
  var fingerprint: String {
    var bytes: [UInt8] = []
    let fields = [
      title, body, String(rating), sourceRating ?? "", category.rawValue, containsSpoilers ? "1" : "0",
      date.map(DateText.format) ?? "", hasReview ? "1" : "0",
    ]
    for field in fields { bytes += Array("\(field.utf8.count):".utf8) + Array(field.utf8) }
    return String(SHA256.hex(bytes).prefix(32))
  }
}

/// The files of an export: a folder, or a ZIP read through libarchive.
struct ExportFiles {
  let path: String
  let source: ImportSource
  /// The files by name (the last part of each path), for a ZIP; nil for a folder.
  private var zipped: [String: [UInt8]]?
  /// Files already read, by name.
  private var tables: [String: CSVTable]?

  /// An export of files already read.
  init(tables: [String: CSVTable], path: String) {
    self.path = path
    self.source = .letterboxd
    self.tables = tables
  }

  init(path: String, source: ImportSource) throws(CatalogueError) {
    self.path = path
    self.source = source
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
      throw .unreadableExport(path: path, reason: "there is no such file or folder")
    }
    guard !isFolder.boolValue else { return }
    // Letterboxd's ZIP holds the export's CSV files at its top, beside folders of others
    // (`deleted/` holds what the member deleted, which is not imported). A ZIP made again of
    // the unpacked folder holds them one folder down.
    var top: [String: [UInt8]] = [:]
    var below: [String: [String: [UInt8]]] = [:]
    do {
      let reader = try TarReader(path: path, zip: true)
      while let entry = try reader.next() {
        guard entry.kind == .file, let name = entry.name, name.hasSuffix(".csv") else { continue }
        let parts = name.split(separator: "/").map(String.init)
        if parts.count == 1 {
          top[name] = try reader.data(limit: ImportSource.maximumFileBytes, name: name)
        } else if parts.count == 2 {
          below[parts[0], default: [:]][parts[1]] = try reader.data(limit: ImportSource.maximumFileBytes, name: name)
        }
      }
    } catch {
      throw .unreadableExport(path: path, reason: "it is not a ZIP this build can read (\(error.description))")
    }
    if top.isEmpty, below.count == 1, let only = below.first?.value { top = only }
    zipped = top
  }

  /// The CSV file `name` of the export, or nil when it has none.
  func table(_ name: String) throws(CatalogueError) -> CSVTable? {
    if let tables { return tables[name] }
    if let zipped {
      guard let bytes = zipped[name] else { return nil }
      return try ImportSource.table(bytes, file: name, path: path)
    }
    let file = (path as NSString).appendingPathComponent(name)
    guard FileManager.default.fileExists(atPath: file) else { return nil }
    return try ImportSource.table(Self.readFile(file), file: name, path: file)
  }

  /// The bytes of the file at `path`, within ``ImportSource/maximumFileBytes``.
  static func readFile(_ path: String) throws(CatalogueError) -> [UInt8] {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw .unreadableExport(path: path, reason: "it cannot be opened (it is missing, or not readable)")
    }
    defer { try? handle.close() }
    guard let data = try? handle.read(upToCount: ImportSource.maximumFileBytes + 1) else {
      throw .unreadableExport(path: path, reason: "it cannot be read (is it a folder?)")
    }
    guard data.count <= ImportSource.maximumFileBytes else {
      throw .unreadableExport(path: path, reason: "it is over \(ImportSource.maximumFileBytes >> 20) MB")
    }
    return [UInt8](data)
  }
}
