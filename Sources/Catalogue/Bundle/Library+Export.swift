import Foundation
import ImagePipeline

/// What an export wrote for one review.
public struct ExportedBundle: Sendable, Equatable {
  public var id: String
  public var title: String
  /// The bundle's folder name, in the export folder or in the archive.
  public var folder: String
  /// What was written on disk: the bundle folder, or the `.tar` file holding it.
  public var path: String
  /// The bundle's files, relative to its folder, in name order.
  public var files: [String]
}

/// What an export wrote.
public struct ExportReport: Sendable, Equatable {
  public var bundles: [ExportedBundle]
  /// The catalogue page written beside the bundle folders (``Library/exportAll(to:force:archive:progress:)``
  /// without an archive).
  public var index: String?
  /// The one archive holding every bundle and the catalogue page (``Library/exportAll(to:force:archive:progress:)``
  /// with an archive).
  public var archive: String?
  /// Bundle folders an earlier `export --all` made that this one did not write again (their
  /// reviews were deleted, or renamed): removed, file by file.
  public var pruned: [String] = []
}

/// One bundle's files, made in memory: what is written for one review.
struct BundleContent {
  var review: Review
  var folder: String
  /// The files in the order they are written, `SHA256SUMS` last.
  var files: [(path: String, bytes: [UInt8])]
  /// The review's card on the catalogue page.
  var card: HTML.Card
}

extension Library {
  /// Exports the reviews `references` name (ids or unique prefixes) as bundles in `folder`
  /// (made if missing): one folder each, named by ``Slug``, holding `review.json`, the originals
  /// and thumbnails under `images/`, `index.html` and `SHA256SUMS`. With `archive`, each
  /// bundle is one `<slug>.tar` holding that folder instead.
  ///
  /// Each bundle is written into a temporary folder (or file) beside its final name, every file
  /// by the durable write protocol, and renamed into place: a crash never leaves half a bundle
  /// under the final name. A bundle already there is refused unless `force`; with `force`, only a
  /// folder holding a bundle and nothing else (or a `.tar` file) is replaced, and the files it
  /// removes are those the old bundle's `SHA256SUMS` lists. Every target is checked before
  /// anything is written.
  public func export(
    _ references: [String], to folder: String, force: Bool = false, archive: Bool = false,
    progress: ((ImportProgress) -> Void)? = nil
  ) throws(CatalogueError) -> ExportReport {
    var ids: [String] = []
    for reference in references {
      let id = try resolve(reference)
      if !ids.contains(id) { ids.append(id) }
    }
    return try export(
      ids: ids, to: folder, force: force, archive: archive, catalogue: false, progress: progress)
  }

  /// Exports every published review as ``export(_:to:force:archive:progress:)`` does (drafts
  /// too with `includeDrafts`), and writes beside the bundles `index.html`, the catalogue page
  /// listing them as cards, grouped by category. With `archive`, everything goes into one
  /// `catalogue.tar` instead: the bundle folders and the page. The export is a site for
  /// readers: a draft left out is not there at all, and one an earlier export wrote (a review
  /// taken back to a draft since) is pruned as a deleted review is.
  public func exportAll(
    to folder: String, force: Bool = false, archive: Bool = false, includeDrafts: Bool = false,
    progress: ((ImportProgress) -> Void)? = nil
  ) throws(CatalogueError) -> ExportReport {
    let ids = try records.reviewIDs(byID: false, publishedOnly: !includeDrafts)
    return try export(
      ids: ids, to: folder, force: force, archive: archive, catalogue: true, progress: progress)
  }

  /// The name of the archive `exportAll(to:force:archive:)` writes.
  public static let catalogueArchiveName = "catalogue.tar"

  private func export(
    ids: [String], to folder: String, force: Bool, archive: Bool, catalogue: Bool,
    progress: ((ImportProgress) -> Void)?
  ) throws(CatalogueError) -> ExportReport {
    var folder = folder
    while folder.count > 1 && folder.hasSuffix("/") { folder.removeLast() }
    // A folder this export makes holds nothing but what it writes: when the export fails, it
    // goes again, and the user is not left with half a bundle.
    let made = FileStatus.at(folder, followingLinks: false) == nil
    do {
      return try exportInto(
        folder, ids: ids, force: force, archive: archive, catalogue: catalogue, progress: progress)
    } catch {
      if made { Self.removeMadeFolder(folder) }
      if case .io(_, _, let code) = error, code == ENOSPC || code == EDQUOT {
        let inodes = FileSystem.space(at: made ? "\(folder)/.." : folder)?.freeInodes == 0
        throw .exportBlocked(
          path: folder,
          reason:
            "the disk holding it is full (\(inodes ? "no inodes" : "no space") left): free some space and try again")
      }
      throw error
    }
  }

  /// Removes `folder`, which this export made, with everything in it.
  private static func removeMadeFolder(_ folder: String) {
    guard FileStatus.at(folder, followingLinks: false)?.kind == .folder else { return }
    for name in (try? FileSystem.names(in: folder)) ?? [] {
      let path = "\(folder)/\(name)"
      if FileStatus.at(path, followingLinks: false)?.kind == .folder {
        removeMadeFolder(path)
      } else {
        try? FileSystem.remove(path)
      }
    }
    _ = try? FileSystem.removeFolderIfEmpty(folder)
  }

  private func exportInto(
    _ folder: String, ids: [String], force: Bool, archive: Bool, catalogue: Bool,
    progress: ((ImportProgress) -> Void)?
  ) throws(CatalogueError) -> ExportReport {
    var reviews: [Review] = []
    for id in ids { reviews.append(try review(id)) }
    let slugs = Slug.make(reviews.map { ($0.title, $0.id) })
    let target = LocalFileStore(root: folder)
    try target.makeRoot()
    guard FileStatus.at(folder)?.kind == .folder else {
      throw .io(operation: .exportTo, path: folder, code: Errno.notDirectory.rawValue)
    }
    // One export at a time in a folder; then what an interrupted one left can be tidied.
    let lock = try ExportFolderLock(folder)
    defer { withExtendedLifetime(lock) {} }
    try tidy(folder)

    // Every target is checked before anything is written.
    var replacing: [String: Set<String>] = [:]
    if archive && catalogue {
      try checkFileTarget(Self.catalogueArchiveName, in: folder, force: force)
    } else {
      for slug in slugs {
        if archive {
          try checkFileTarget("\(slug).tar", in: folder, force: force)
        } else if let old = try checkFolderTarget(slug, in: folder, force: force) {
          replacing[slug] = old
        }
      }
      if catalogue { try checkFileTarget(BundleFormat.page, in: folder, force: force, page: true) }
    }

    var report = ExportReport(bundles: [], index: nil, archive: nil)
    var cards: [HTML.Card] = []
    if archive && catalogue {
      let stamp = reviews.map(\.updated).max() ?? Date(timeIntervalSince1970: 0)
      let path = "\(folder)/\(Self.catalogueArchiveName)"
      try writeArchive(Self.catalogueArchiveName, in: folder) { (tar) throws(CatalogueError) in
        for (index, (review, slug)) in zip(reviews, slugs).enumerated() {
          let content = try bundleContent(review, folder: slug)
          try add(content, to: tar)
          cards.append(content.card)
          report.bundles.append(exported(content, path: path))
          progress?(ImportProgress(done: index + 1, total: reviews.count))
        }
        try tar.addFile(
          BundleFormat.page, bytes: Array(HTML.cataloguePage(cards).utf8), modified: stamp)
      }
      report.archive = path
      return report
    }
    for (index, (review, slug)) in zip(reviews, slugs).enumerated() {
      let content = try bundleContent(review, folder: slug)
      if archive {
        try writeArchive("\(slug).tar", in: folder) { (tar) throws(CatalogueError) in
          try add(content, to: tar)
        }
        report.bundles.append(exported(content, path: "\(folder)/\(slug).tar"))
      } else {
        try writeFolder(content, in: folder, replacing: replacing[slug])
        report.bundles.append(exported(content, path: "\(folder)/\(slug)"))
      }
      cards.append(content.card)
      progress?(ImportProgress(done: index + 1, total: reviews.count))
    }
    if catalogue && !archive {
      report.pruned = try pruneBundles(in: folder, keeping: Set(slugs))
    }
    if catalogue {
      // Last, so that the page never links to a bundle not yet written.
      try target.write(Array(HTML.cataloguePage(cards).utf8), to: BundleFormat.page)
      report.index = "\(folder)/\(BundleFormat.page)"
    }
    return report
  }

  private func exported(_ content: BundleContent, path: String) -> ExportedBundle {
    ExportedBundle(
      id: content.review.id, title: content.review.title, folder: content.folder, path: path,
      files: content.files.map(\.path).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
  }

  // MARK: Making a bundle

  /// A review's bundle files: each original read back and checked against its hash, its
  /// thumbnail (made again if the library lacks it), `review.json`, `index.html`, `SHA256SUMS`.
  func bundleContent(_ review: Review, folder: String) throws(CatalogueError) -> BundleContent {
    var output: [(path: String, bytes: [UInt8])] = []
    var pictures: [HTML.Picture] = []
    var images: [BundleFormat.Image] = []
    let coverIndex = review.images.firstIndex { $0.isCover } ?? (review.images.isEmpty ? nil : 0)
    for (index, reviewImage) in review.images.enumerated() {
      let image = reviewImage.image
      let original = try files.read(image.original)
      guard SHA256.hex(original) == image.sha256 else {
        throw .damagedOriginal(review: review.id, path: files.location(of: image.original))
      }
      var thumbnail = (
        bytes: [UInt8](), format: image.thumbnailFormat, width: image.thumbnailWidth,
        height: image.thumbnailHeight
      )
      if files.size(of: image.thumbnail) != nil {
        thumbnail.bytes = try files.read(image.thumbnail)
      } else {
        let made = try PreparedImage.make(
          bytes: original, source: files.location(of: image.original), spec: thumbnailSpec,
          options: decodeOptions
        ).processed.thumbnail
        thumbnail = (made.bytes, made.format, made.width, made.height)
      }
      let originalPath = BundleFormat.original(sha256: image.sha256, format: image.format)
      let thumbnailPath = BundleFormat.thumbnail(sha256: image.sha256, format: thumbnail.format)
      output.append((originalPath, original))
      output.append((thumbnailPath, thumbnail.bytes))
      pictures.append(
        HTML.Picture(
          original: originalPath, format: image.format, shown: thumbnailPath, width: thumbnail.width,
          height: thumbnail.height, text: reviewImage.text))
      images.append(
        BundleFormat.Image(
          sha256: image.sha256, format: image.format.rawValue, width: image.width,
          height: image.height,
          orientation: image.orientation.rawValue, bytes: image.bytes, cover: index == coverIndex,
          original: originalPath, alt: reviewImage.alt, caption: reviewImage.caption, name: reviewImage.name))
    }
    let created = DateText.format(review.created)
    let published = review.published.map(DateText.format)
    let format = BundleFormat.version(
      of: images, containsSpoilers: review.containsSpoilers, draft: review.isDraft,
      publishedAtCreation: published == nil || published == created)
    let record = BundleFormat.Record(
      format: format, id: review.id, title: review.title, body: review.body,
      rating: review.rating, category: review.category.rawValue, favorite: review.favorite,
      created: created, updated: DateText.format(review.updated),
      images: images, containsSpoilers: format >= 3 ? review.containsSpoilers : nil,
      draft: format >= 3 ? review.isDraft : nil, published: format >= 3 ? published : nil)
    output.insert((BundleFormat.record, BundleFormat.encode(record)), at: 0)
    output.append(
      (
        BundleFormat.page,
        Array(HTML.reviewPage(review, pictures: pictures, coverIndex: coverIndex).utf8)
      ))
    var sums: [String: String] = [:]
    for file in output { sums[file.path] = SHA256.hex(file.bytes) }
    output.append((BundleFormat.checksums, BundleFormat.checksums(sums)))
    let cover = coverIndex.map { index in
      var picture = pictures[index]
      picture.original = "\(folder)/\(picture.original)"
      picture.shown = "\(folder)/\(picture.shown)"
      return picture
    }
    let card = HTML.Card(
      title: review.title, rating: review.rating, category: review.category,
      favorite: review.favorite,
      page: "\(folder)/\(BundleFormat.page)", cover: cover, containsSpoilers: review.containsSpoilers,
      draft: review.isDraft)
    return BundleContent(review: review, folder: folder, files: output, card: card)
  }

  // MARK: Targets

  /// Checks the folder a bundle is to be written to. Returns `nil` when nothing is there, or,
  /// with `force`, the files of the bundle there (all it holds) to remove once replaced.
  private func checkFolderTarget(_ name: String, in folder: String, force: Bool)
    throws(CatalogueError)
    -> Set<String>?
  {
    let path = "\(folder)/\(name)"
    let status: FileStatus
    do {
      status = try FileStatus.of(path, followingLinks: false)
    } catch {
      if error == .noEntry { return nil }
      throw .io(operation: .lookAt, path: path, code: error.rawValue)
    }
    guard status.kind == .folder else {
      throw .exportBlocked(path: path, reason: "something that is not a bundle folder is there")
    }
    let listed: [String: String]
    let found: [String: Int]
    do {
      found = try BundleReader.walk(path, source: path).files
      guard found[BundleFormat.record] != nil, found[BundleFormat.checksums] != nil else {
        throw CatalogueError.exportBlocked(
          path: path, reason: "the folder there is not a bundle (no review.json and SHA256SUMS)")
      }
      listed = try BundleFormat.parseChecksums(
        try BundleReader.readWithoutLinks(
          BundleFormat.checksums, in: path, limit: BundleFormat.maximumRecordBytes, source: path))
    } catch let error as CatalogueError {
      if case .exportBlocked = error { throw error }
      throw .exportBlocked(path: path, reason: "the folder there is not a sound bundle (\(error))")
    } catch {
      throw .exportBlocked(path: path, reason: "the folder there is not a sound bundle (\(error))")
    }
    let own = Set(listed.keys).union([BundleFormat.checksums])
    if let other = found.keys.sorted().first(where: { !own.contains($0) }) {
      throw .exportBlocked(
        path: path,
        reason:
          "the bundle folder there holds \(BundleProblem.shown(other)), which is not part of it")
    }
    guard force else { throw .bundleExists(path: path) }
    return Set(found.keys)
  }

  /// Checks a file an export is to write (`<slug>.tar`, `catalogue.tar`, `index.html`): nothing
  /// there, or with `force` a plain file (for `index.html`, a catalogue page this program wrote).
  private func checkFileTarget(_ name: String, in folder: String, force: Bool, page: Bool = false)
    throws(CatalogueError)
  {
    let path = "\(folder)/\(name)"
    let status: FileStatus
    do {
      status = try FileStatus.of(path, followingLinks: false)
    } catch {
      if error == .noEntry { return }
      throw .io(operation: .lookAt, path: path, code: error.rawValue)
    }
    guard status.kind == .regular else {
      throw .exportBlocked(path: path, reason: "something that is not a plain file is there")
    }
    if page {
      // The mark is in the page's head, within its first few hundred bytes.
      let head: [UInt8]
      do {
        let descriptor = try FileDescriptor.open(path, .readOnly, options: [.noFollow, .nonBlocking])
        defer { descriptor.close() }
        head = try descriptor.read(upTo: 4096)
      } catch {
        throw .io(operation: .read, path: path, code: error.rawValue)
      }
      guard String(decoding: head, as: UTF8.self).contains(HTML.generator) else {
        throw .exportBlocked(path: path, reason: "it is not a catalogue page an export wrote")
      }
    }
    guard force else { throw .bundleExists(path: path) }
  }

  // MARK: Writing

  /// Writes a bundle folder: every file by the durable protocol into a temporary folder, which
  /// is then renamed into place. An old bundle (`replacing`: its files) is first renamed aside,
  /// and only its files are removed.
  private func writeFolder(_ content: BundleContent, in folder: String, replacing: Set<String>?)
    throws(CatalogueError)
  {
    let target = LocalFileStore(root: folder)
    let temporary = "\(LibraryLayout.temporaryPrefix)\(randomHex(8))-\(content.folder)"
    let staging = LocalFileStore(root: "\(folder)/\(temporary)")
    do {
      try staging.makeRoot()
      for file in content.files { try staging.write(file.bytes, to: file.path) }
    } catch {
      removeOwnFiles(content.files.map(\.path), in: staging.root)
      throw error
    }
    var aside: String?
    if replacing != nil {
      let name = "\(LibraryLayout.temporaryPrefix)\(randomHex(8))-old-\(content.folder)"
      do {
        try target.move(content.folder, to: name)
      } catch {
        removeOwnFiles(content.files.map(\.path), in: staging.root)
        throw error
      }
      aside = name
    }
    do {
      try target.move(temporary, to: content.folder)
    } catch {
      removeOwnFiles(content.files.map(\.path), in: staging.root)
      if let aside {
        do {
          try target.move(aside, to: content.folder)
        } catch {
          // Said, not swallowed: the old bundle is whole under its hidden name, and the next
          // export into this folder puts it back before anything else.
          throw .exportBlocked(
            path: "\(folder)/\(content.folder)",
            reason: "the new bundle could not be put in place (\(error)), and the old one waits as \(aside) "
              + "until the next export into this folder puts it back")
        }
      }
      throw error
    }
    if let aside, let replacing {
      removeOwnFiles(Array(replacing), in: "\(folder)/\(aside)")
    }
  }

  /// Removes `files` (relative to `root`), then the folders they leave empty, then `root` if
  /// empty: never anything else.
  private func removeOwnFiles(_ files: [String], in root: String) {
    var folders = Set<String>()
    for file in files {
      try? FileSystem.remove("\(root)/\(file)")
      var parts = file.split(separator: "/").dropLast()
      while !parts.isEmpty {
        folders.insert(parts.joined(separator: "/"))
        parts = parts.dropLast()
      }
    }
    // Deepest first; rmdir removes only empty folders.
    for folder in folders.sorted(by: { $0.count > $1.count }) {
      _ = try? FileSystem.removeFolderIfEmpty("\(root)/\(folder)")
    }
    _ = try? FileSystem.removeFolderIfEmpty(root)
  }

  /// Writes a tar archive named `name` in `folder`: into a temporary file beside it, synced,
  /// renamed into place, the folder synced.
  private func writeArchive(
    _ name: String, in folder: String, _ body: (TarWriter) throws(CatalogueError) -> Void
  )
    throws(CatalogueError)
  {
    let temporary = "\(folder)/\(LibraryLayout.temporaryPrefix)\(randomHex(8))-\(name)"
    try DurableWrite.write(to: "\(folder)/\(name)", temporary: temporary) { (descriptor) throws(CatalogueError) in
      // The writer lives in this closure alone, so that libarchive is done with the file
      // before it is synced and closed, whatever happens.
      let tar = try TarWriter(descriptor: descriptor, path: "\(folder)/\(name)")
      try body(tar)
      try tar.finish()
    }
  }

  // MARK: Housekeeping

  /// Finishes what an export stopped part-way left in `folder` (a crash, a second Ctrl-C): an
  /// old bundle renamed aside whose replacement never came is put back, and temporary bundle
  /// folders and archives are removed. Only files of a bundle's shape are removed; a hidden
  /// folder holding anything else stays as it is.
  private func tidy(_ folder: String) throws(CatalogueError) {
    for name in try BundleReader.names(in: folder) {
      guard let rest = Self.temporaryRest(name) else { continue }
      let path = "\(folder)/\(name)"
      guard let status = FileStatus.at(path, followingLinks: false) else { continue }
      switch status.kind {
      case .regular where rest.hasSuffix(".tar"):
        try? FileSystem.remove(path)
      case .folder:
        if rest.hasPrefix("old-"), !FileSystem.exists("\(folder)/\(rest.dropFirst(4))") {
          let target = LocalFileStore(root: folder)
          try target.move(name, to: String(rest.dropFirst(4)))
        } else {
          let files = (try? BundleReader.walk(path, source: path).files.keys.map { $0 }) ?? []
          removeOwnFiles(files.filter(Self.isBundleFile), in: path)
          // The images folder an export made may be empty; nothing else is touched.
          _ = try? FileSystem.removeFolderIfEmpty("\(path)/\(BundleFormat.images)")
          _ = try? FileSystem.removeFolderIfEmpty(path)
        }
      default:
        continue
      }
    }
  }

  /// Removes the bundle folders in `folder` that an export wrote (a sound bundle, with the
  /// catalogue's mark in its page) and whose names are not in `keeping`. Returns their names.
  private func pruneBundles(in folder: String, keeping: Set<String>) throws(CatalogueError) -> [String] {
    var pruned: [String] = []
    for name in try BundleReader.names(in: folder) where !name.hasPrefix(".") && !keeping.contains(name) {
      let path = "\(folder)/\(name)"
      guard FileStatus.at(path, followingLinks: false)?.kind == .folder else { continue }
      // Only a folder that is a bundle and nothing else: checkFolderTarget's own rule.
      guard let files = try? checkFolderTarget(name, in: folder, force: true),
        let page = try? BundleReader.readWithoutLinks(BundleFormat.page, in: path, limit: 1 << 20, source: path),
        String(decoding: page.prefix(4096), as: UTF8.self).contains(HTML.generator)
      else { continue }
      removeOwnFiles(Array(files), in: path)
      pruned.append(name)
    }
    return pruned
  }

  /// What follows `.tmp-<16 hex digits>-` in the name of an export's temporary file or folder.
  private static func temporaryRest(_ name: String) -> Substring? {
    let prefix = LibraryLayout.temporaryPrefix
    guard name.hasPrefix(prefix) else { return nil }
    let rest = name.dropFirst(prefix.count)
    let digits = rest.prefix(16)
    guard digits.count == 16, digits.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
      rest.dropFirst(16).first == "-"
    else { return nil }
    return rest.dropFirst(17)
  }

  /// Whether `path` (inside a bundle folder) has the name of a file an export writes.
  private static func isBundleFile(_ path: String) -> Bool {
    if [BundleFormat.record, BundleFormat.checksums, BundleFormat.page].contains(path) { return true }
    let parts = path.split(separator: "/")
    guard parts.count == 2, parts[0] == Substring(BundleFormat.images), parts[1].count > 64,
      SHA256.isDigest(parts[1].prefix(64))
    else { return false }
    return [".jpg", ".png", "-thumbnail.jpg", "-thumbnail.png"].contains(String(parts[1].dropFirst(64)))
  }

  /// Adds a bundle's folder and files to an archive, under its folder name.
  private func add(_ content: BundleContent, to tar: TarWriter) throws(CatalogueError) {
    let stamp = content.review.updated
    try tar.addFolder(content.folder, modified: stamp)
    var folders: Set<String> = []
    for file in content.files {
      if let slash = file.path.lastIndex(of: "/") {
        let sub = String(file.path[..<slash])
        if folders.insert(sub).inserted {
          try tar.addFolder("\(content.folder)/\(sub)", modified: stamp)
        }
      }
      try tar.addFile("\(content.folder)/\(file.path)", bytes: file.bytes, modified: stamp)
    }
  }
}

/// An exclusive `flock` on an export folder for one export's time: a second export into the
/// same folder is refused instead of tidying away the first one's files.
private final class ExportFolderLock {
  private let descriptor: FileDescriptor

  init(_ folder: String) throws(CatalogueError) {
    do {
      descriptor = try FileDescriptor.open(folder, .readOnly, options: .folder)
    } catch {
      throw .io(operation: .open, path: folder, code: error.rawValue)
    }
    do {
      try descriptor.lock(.exclusive, wait: false)
    } catch {
      descriptor.close()
      if error == .wouldBlock {
        throw .exportBlocked(path: folder, reason: "another export is writing there; wait for it to finish")
      }
      throw .io(operation: .lock, path: folder, code: error.rawValue)
    }
  }

  deinit {
    descriptor.unlock()
    descriptor.close()
  }
}
