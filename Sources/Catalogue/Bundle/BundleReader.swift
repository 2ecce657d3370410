import ImagePipeline
import Foundation

/// Where one bundle is: a folder, or files read from a tar archive into memory.
struct BundleLocation {
  enum Storage {
    case folder(String)
    case memory([String: [UInt8]])
  }

  /// The bundle as messages name it: its folder, the archive, or `archive.tar:folder`.
  var source: String
  var storage: Storage
}

/// A bundle's plain files, found without following any link.
struct BundleFiles {
  var location: BundleLocation
  /// Every plain file, relative to the bundle folder, with its size.
  var sizes: [String: Int]

  var source: String { location.source }

  /// The bytes of `path` (a plain file of the bundle), refused past `limit` bytes.
  func read(_ path: String, limit: Int = BundleFormat.maximumFileBytes) throws(CatalogueError)
    -> [UInt8]
  {
    guard let size = sizes[path] else {
      throw .badBundle(source: source, problem: .missingFile(path))
    }
    guard size <= limit else {
      throw .badBundle(source: source, problem: .tooLarge(path, bytes: size, limit: limit))
    }
    switch location.storage {
    case .memory(let files):
      return files[path]!
    case .folder(let root):
      return try BundleReader.readWithoutLinks(path, in: root, limit: limit, source: source)
    }
  }
}

/// A bundle whose every file matched `SHA256SUMS` and whose record is valid: what an import
/// needs, read into memory, before the library is touched.
struct VerifiedBundle {
  var source: String
  var record: BundleFormat.Record
  var fields: ReviewFields
  var created: Date
  var updated: Date
  /// When it was published; `nil` for a draft.
  var published: Date?
  /// The originals' bytes, in the record's order.
  var originals: [[UInt8]]
}

/// Finds bundles in a folder or a tar archive and verifies them. Everything a bundle says is
/// untrusted: paths are checked before use, links are refused, sizes are capped.
enum BundleReader {
  // MARK: Finding bundles

  /// Calls `body` with each bundle `path` holds: a bundle folder (with `review.json`), a folder
  /// of bundle folders (as `export --all` writes), or a tar archive of either.
  ///
  /// Problems with one bundle of several are found when it is opened, and are `body`'s to
  /// report. An archive is read twice: first its headers alone, so that an unsafe name, a link,
  /// a special file, a duplicate or sizes past the caps refuse the whole archive before any of
  /// it is used; then its data, each bundle handed to `body` as soon as all its files are read,
  /// so that only one bundle at a time is held in memory (for archives that keep a bundle's
  /// files together, as exports do).
  static func forEachBundle(
    in path: String, _ body: (_ bundle: BundleLocation, _ total: Int) -> Void
  )
    throws(CatalogueError)
  {
    let status: FileStatus
    do {
      status = try FileStatus.of(path)
    } catch {
      throw .io(operation: .read, path: path, code: error.rawValue)
    }
    guard status.kind != .folder else {
      let locations = try folderBundles(path)
      for location in locations { body(location, locations.count) }
      return
    }
    guard status.kind == .regular else {
      throw .badBundle(source: path, problem: .notAPlainFile(path))
    }
    let index = try scanArchive(path)
    try readArchive(path, index: index, body)
  }

  /// The bundle folders of a folder: itself, or the folders in it that hold `review.json`.
  private static func folderBundles(_ path: String) throws(CatalogueError) -> [BundleLocation] {
    if FileSystem.exists("\(path)/\(BundleFormat.record)") {
      return [BundleLocation(source: path, storage: .folder(path))]
    }
    var found: [BundleLocation] = []
    for name in try names(in: path) where !name.hasPrefix(".") {
      let folder = path.hasSuffix("/") ? path + name : "\(path)/\(name)"
      guard FileStatus.at(folder, followingLinks: false)?.kind == .folder,
        FileSystem.exists("\(folder)/\(BundleFormat.record)")
      else { continue }
      found.append(BundleLocation(source: folder, storage: .folder(folder)))
    }
    guard !found.isEmpty else { throw .badBundle(source: path, problem: .noBundle) }
    return found
  }

  /// The names in `folder`, in byte order.
  static func names(in folder: String) throws(CatalogueError) -> [String] {
    do {
      return try FileSystem.names(in: folder)
    } catch {
      throw .io(operation: .list, path: folder, code: error.rawValue)
    }
  }

  // MARK: Archives

  /// Where an archive's bundles are, as its headers say.
  struct ArchiveIndex {
    /// Bundle folders by name, with how many files each holds; `""` for a bundle at the root,
    /// which then holds every file of the archive.
    var bundles: [String: Int]
  }

  /// The name an archive entry stands for, checked: `nil` for the archive's root folder. An
  /// unsafe name, a link or a special file refuses the archive.
  private static func checkedName(_ entry: TarReader.Entry, archive path: String)
    throws(CatalogueError) -> String?
  {
    guard var name = entry.name else {
      throw .badBundle(source: path, problem: .unsafePath(entry.rawName))
    }
    // `tar -C folder .` writes `./` before every name, and `./` itself.
    while name.hasPrefix("./") { name.removeFirst(2) }
    if entry.kind == .folder {
      while name.hasSuffix("/") { name.removeLast() }
      if name.isEmpty || name == "." { return nil }
    }
    guard BundleFormat.isSafePath(name) else {
      throw .badBundle(source: path, problem: .unsafePath(entry.rawName))
    }
    switch entry.kind {
    case .folder, .file: return name
    case .symbolicLink: throw .badBundle(source: path, problem: .link(name, hard: false))
    case .hardLink: throw .badBundle(source: path, problem: .link(name, hard: true))
    case .other: throw .badBundle(source: path, problem: .notAPlainFile(name))
    }
  }

  /// The bundle a file of the archive belongs to, and its path inside the bundle.
  private static func place(_ name: String, in index: ArchiveIndex) -> (
    bundle: String, path: String
  )? {
    if index.bundles[""] != nil { return ("", name) }
    guard let slash = name.firstIndex(of: "/") else { return nil }
    let folder = String(name[..<slash])
    guard index.bundles[folder] != nil else { return nil }
    return (folder, String(name[name.index(after: slash)...]))
  }

  /// Reads an archive's headers only (libarchive skips the data) and checks every entry.
  private static func scanArchive(_ path: String) throws(CatalogueError) -> ArchiveIndex {
    let reader = try TarReader(path: path)
    var sizes: [String: Int] = [:]
    var count = 0
    while let entry = try reader.next() {
      count += 1
      guard count <= BundleFormat.maximumEntries else {
        throw .badBundle(source: path, problem: .tooManyEntries(limit: BundleFormat.maximumEntries))
      }
      guard let name = try checkedName(entry, archive: path), entry.kind == .file else { continue }
      guard sizes[name] == nil else {
        throw .badBundle(source: path, problem: .duplicateEntry(name))
      }
      guard entry.size <= BundleFormat.maximumFileBytes else {
        throw .badBundle(
          source: path,
          problem: .tooLarge(name, bytes: entry.size, limit: BundleFormat.maximumFileBytes))
      }
      sizes[name] = entry.size
    }
    var index = ArchiveIndex(bundles: [:])
    if sizes[BundleFormat.record] != nil {
      index.bundles[""] = 0
    } else {
      for name in sizes.keys where name.hasSuffix("/\(BundleFormat.record)") {
        let folder = String(name.dropLast(BundleFormat.record.utf8.count + 1))
        if !folder.contains("/") { index.bundles[folder] = 0 }
      }
    }
    guard !index.bundles.isEmpty else { throw .badBundle(source: path, problem: .noBundle) }
    var totals: [String: Int] = [:]
    for (name, size) in sizes {
      guard let (bundle, _) = place(name, in: index) else { continue }
      index.bundles[bundle]! += 1
      totals[bundle, default: 0] += size
    }
    for (bundle, total) in totals where total > BundleFormat.maximumTotalBytes {
      let name = bundle.isEmpty ? path : "\(path):\(bundle)"
      throw .badBundle(
        source: path, problem: .tooLarge(name, bytes: total, limit: BundleFormat.maximumTotalBytes))
    }
    return index
  }

  /// Reads an archive's data, handing each bundle to `body` once all its files are in memory.
  /// The entries are checked again: the archive may have changed since it was scanned.
  private static func readArchive(
    _ path: String, index: ArchiveIndex, _ body: (_ bundle: BundleLocation, _ total: Int) -> Void
  )
    throws(CatalogueError)
  {
    let changed = CatalogueError.badBundle(
      source: path, problem: .unreadableArchive("it changed while it was read"))
    let reader = try TarReader(path: path)
    var pending: [String: [String: [UInt8]]] = [:]
    var remaining = index.bundles
    var held = 0
    while let entry = try reader.next() {
      guard let name = try checkedName(entry, archive: path), entry.kind == .file,
        let (bundle, inside) = place(name, in: index)
      else { continue }
      guard let left = remaining[bundle], left > 0, pending[bundle]?[inside] == nil else {
        throw changed
      }
      let bytes = try reader.data(limit: BundleFormat.maximumFileBytes, name: name)
      held += bytes.count
      // Bundles whose files are interleaved are held together; never more than one bundle may hold.
      guard held <= BundleFormat.maximumTotalBytes else {
        throw .badBundle(
          source: path, problem: .tooLarge(path, bytes: held, limit: BundleFormat.maximumTotalBytes)
        )
      }
      pending[bundle, default: [:]][inside] = bytes
      remaining[bundle] = left - 1
      if left == 1 {
        let files = pending.removeValue(forKey: bundle)!
        held -= files.values.reduce(0) { $0 + $1.count }
        body(
          BundleLocation(
            source: bundle.isEmpty ? path : "\(path):\(bundle)", storage: .memory(files)),
          index.bundles.count)
      }
    }
    guard remaining.values.allSatisfy({ $0 == 0 }) else { throw changed }
  }

  // MARK: Opening a bundle

  /// The bundle's plain files. A folder is walked without following links; a link, a special
  /// file, too many entries or too many bytes refuse it.
  static func open(_ location: BundleLocation) throws(CatalogueError) -> BundleFiles {
    switch location.storage {
    case .memory(let files):
      return BundleFiles(location: location, sizes: files.mapValues(\.count))
    case .folder(let root):
      let walked = try walk(root, source: location.source)
      let total = walked.files.values.reduce(0, +)
      guard total <= BundleFormat.maximumTotalBytes else {
        throw .badBundle(
          source: location.source,
          problem: .tooLarge(root, bytes: total, limit: BundleFormat.maximumTotalBytes))
      }
      return BundleFiles(location: location, sizes: walked.files)
    }
  }

  /// Every plain file below `root` with its size, and every folder, as relative paths; links
  /// and special files are refused as problems of the bundle `source`.
  static func walk(_ root: String, source: String) throws(CatalogueError) -> (
    files: [String: Int], folders: [String]
  ) {
    var files: [String: Int] = [:]
    var folders: [String] = []
    var pending = [""]
    var count = 0
    while let folder = pending.popLast() {
      let location = folder.isEmpty ? root : "\(root)/\(folder)"
      for name in try names(in: location) {
        count += 1
        guard count <= BundleFormat.maximumEntries else {
          throw .badBundle(
            source: source, problem: .tooManyEntries(limit: BundleFormat.maximumEntries))
        }
        let relative = folder.isEmpty ? name : "\(folder)/\(name)"
        let status: FileStatus
        do {
          status = try FileStatus.of("\(location)/\(name)", followingLinks: false)
        } catch {
          throw .io(operation: .read, path: "\(location)/\(name)", code: error.rawValue)
        }
        switch status.kind {
        case .regular: files[relative] = status.size
        case .folder:
          folders.append(relative)
          pending.append(relative)
        case .symbolicLink: throw .badBundle(source: source, problem: .link(relative, hard: false))
        default: throw .badBundle(source: source, problem: .notAPlainFile(relative))
        }
      }
    }
    return (files, folders)
  }

  /// Reads `path` below `root` one folder at a time (`openat` with `O_NOFOLLOW`), so that no
  /// link swapped in after the walk is followed; refused past `limit` bytes.
  static func readWithoutLinks(_ path: String, in root: String, limit: Int, source: String)
    throws(CatalogueError)
    -> [UInt8]
  {
    let parts = path.split(separator: "/").map(String.init)
    let full = "\(root)/\(path)"
    var folder: FileDescriptor
    do {
      folder = try FileDescriptor.open(root, .readOnly, options: .folder)
    } catch {
      throw .io(operation: .read, path: root, code: error.rawValue)
    }
    defer { folder.close() }
    for part in parts.dropLast() {
      do {
        let next = try FileDescriptor.open(part, in: folder, .readOnly, options: [.folder, .noFollow])
        folder.close()
        folder = next
      } catch {
        if error == .tooManySymbolicLinks || error == .notDirectory {
          throw .badBundle(source: source, problem: .link(path, hard: false))
        }
        throw .io(operation: .read, path: full, code: error.rawValue)
      }
    }
    // Non-blocking: a FIFO put in the file's place must not hang the open.
    let descriptor: FileDescriptor
    do {
      descriptor = try FileDescriptor.open(parts.last ?? "", in: folder, .readOnly, options: [.noFollow, .nonBlocking])
    } catch {
      if error == .tooManySymbolicLinks { throw .badBundle(source: source, problem: .link(path, hard: false)) }
      throw .io(operation: .read, path: full, code: error.rawValue)
    }
    defer { descriptor.close() }
    let status: FileStatus
    do {
      status = try descriptor.status()
    } catch {
      throw .io(operation: .read, path: full, code: error.rawValue)
    }
    guard status.kind == .regular else { throw .badBundle(source: source, problem: .notAPlainFile(path)) }
    descriptor.setBlocking()
    let bytes: [UInt8]
    do {
      bytes = try descriptor.read(upTo: limit + 1)
    } catch {
      throw .io(operation: .read, path: full, code: error.rawValue)
    }
    let done = bytes.count
    guard done <= limit else {
      throw .badBundle(source: source, problem: .tooLarge(path, bytes: done, limit: limit))
    }
    return bytes
  }

  // MARK: Verifying

  /// Checks a bundle against its `SHA256SUMS` and its record against the rules, reading every
  /// listed file once; the originals are kept. Throws the first problem found.
  static func verify(_ files: BundleFiles) throws(CatalogueError) -> VerifiedBundle {
    let source = files.source
    func refuse(_ problem: BundleProblem) -> CatalogueError {
      .badBundle(source: source, problem: problem)
    }

    guard files.sizes[BundleFormat.record] != nil else { throw refuse(.noBundle) }
    guard files.sizes[BundleFormat.checksums] != nil else { throw refuse(.noChecksums) }
    let listing = try files.read(BundleFormat.checksums, limit: BundleFormat.maximumRecordBytes)
    let sums: [String: String]
    do {
      sums = try BundleFormat.parseChecksums(listing)
    } catch {
      throw refuse(error)
    }
    for (path, _) in sums {
      guard let size = files.sizes[path] else { throw refuse(.missingFile(path)) }
      guard size <= BundleFormat.maximumFileBytes else {
        throw refuse(.tooLarge(path, bytes: size, limit: BundleFormat.maximumFileBytes))
      }
    }

    // The record first: its format version decides how to read the rest.
    guard let recordSum = sums[BundleFormat.record] else {
      throw refuse(.notListed(BundleFormat.record))
    }
    let recordBytes = try files.read(BundleFormat.record, limit: BundleFormat.maximumRecordBytes)
    guard SHA256.hex(recordBytes) == recordSum else {
      throw refuse(.hashMismatch(BundleFormat.record))
    }
    let record: BundleFormat.Record
    do {
      record = try BundleFormat.decode(recordBytes)
    } catch {
      throw refuse(error)
    }
    let (fields, created, updated, published) = try validate(record, sums: sums, source: source)

    // Every other listed file, in path order; the originals are kept.
    let originalPaths = Set(record.images.map(\.original))
    var kept: [String: [UInt8]] = [:]
    for path in sums.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    where path != BundleFormat.record {
      let bytes = try files.read(path)
      guard SHA256.hex(bytes) == sums[path] else { throw refuse(.hashMismatch(path)) }
      if originalPaths.contains(path) { kept[path] = bytes }
    }
    for image in record.images where sums[image.original] != image.sha256 {
      throw refuse(
        .imageMismatch(
          image.original,
          detail: "review.json gives it the SHA-256 \(image.sha256), "
            + "but its bytes hash to \(sums[image.original]!)"))
    }
    return VerifiedBundle(
      source: source, record: record, fields: fields, created: created, updated: updated, published: published,
      originals: record.images.map { kept[$0.original]! })
  }

  /// The record's fields validated as a review's, its times and images checked; every problem
  /// at once. Paths that are unsafe or not listed in `SHA256SUMS` are refused first.
  private static func validate(
    _ record: BundleFormat.Record, sums: [String: String], source: String
  )
    throws(CatalogueError) -> (ReviewFields, Date, Date, published: Date?)
  {
    for image in record.images {
      guard BundleFormat.isSafePath(image.original) else {
        throw .badBundle(source: source, problem: .unsafePath(image.original))
      }
      guard sums[image.original] != nil else {
        throw .badBundle(source: source, problem: .notListed(image.original))
      }
    }
    var problems: [String] = []
    let isID =
      record.id.utf8.count == 16
      && record.id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    if !isID {
      problems.append(
        "id \"\(BundleProblem.shown(String(record.id.prefix(40))))\" is not 16 lowercase hexadecimal digits"
      )
    }
    let created = DateText.parse(record.created)
    let updated = DateText.parse(record.updated)
    let published = record.published.map(DateText.parse)
    for (name, text, date) in [
      ("created", record.created, created), ("updated", record.updated, updated),
    ] + (record.published.map { [("published", $0, published ?? nil)] } ?? []) where date == nil {
      problems.append(
        "\(name) \"\(BundleProblem.shown(String(text.prefix(40))))\" is not a time like 2026-11-30T05:16:02.311Z"
      )
    }
    var fields: ReviewFields?
    do {
      fields = try ReviewDraft(
        title: record.title, body: record.body, rating: record.rating, category: record.category,
        favorite: record.favorite, containsSpoilers: record.containsSpoilers ?? false
      ).validated()
    } catch {
      if case .invalidReview(let found) = error { problems += found } else { throw error }
    }
    var seen = Set<String>()
    for (index, image) in record.images.enumerated() {
      let name = "image \(index + 1)"
      if !SHA256.isDigest(image.sha256) {
        problems.append("\(name): sha256 is not 64 lowercase hexadecimal digits")
      }
      if !seen.insert(image.sha256).inserted {
        problems.append("\(name): the same picture is listed twice")
      }
      if ImageFormat(rawValue: image.format)?.isSupported != true {
        problems.append(
          "\(name): format \"\(BundleProblem.shown(String(image.format.prefix(20))))\" is not one the catalogue "
            + "decodes (\(ImageFormat.decodedNames))")
      }
      if image.width <= 0 || image.height <= 0 {
        problems.append("\(name): its size is not positive")
      }
      if !(1...8).contains(image.orientation) {
        problems.append("\(name): orientation \(image.orientation) is outside 1–8")
      }
      if image.bytes < 0 { problems.append("\(name): its byte count is negative") }
      let text = PictureText(
        alt: PictureText.normalized(image.alt, multiline: false),
        caption: PictureText.normalized(image.caption, multiline: true))
      problems += PictureText.problems(alt: text.alt, caption: text.caption).map { "\(name): \($0)" }
      if let given = image.name, let problem = given.isEmpty ? "the file name is empty" : PictureName.problem(given) {
        problems.append("\(name): \(problem)")
      }
    }
    let covers = record.images.filter(\.cover).count
    if !record.images.isEmpty && covers != 1 {
      problems.append(
        covers == 0 ? "no image is marked as the cover" : "\(covers) images are marked as the cover"
      )
    }
    if record.draft == true && record.published != nil {
      problems.append(
        "a draft has no published time, yet this one has \"\(BundleProblem.shown(record.published ?? ""))\"")
    }
    guard problems.isEmpty, let fields, let created, let updated else {
      throw .badBundle(source: source, problem: .invalidRecord(problems))
    }
    // A draft stays one; a published review keeps its time, or, from a format without one,
    // was published when it was created.
    return (fields, created, updated, record.draft == true ? nil : (published ?? nil) ?? created)
  }
}
