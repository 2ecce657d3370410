import Foundation
public import ImagePipeline
import Synchronization

/// What a thumbnail rebuild did.
public struct RebuildReport: Sendable, Equatable {
  public var spec: ThumbnailSpec
  /// Pictures whose thumbnails (1× and 2×) were made.
  public var rebuilt: Int
  /// Pictures whose original could not be used; their thumbnails were left as they were.
  public var failures: [Finding]
  /// Thumbnails of the previous spec (1× and 2× files), deleted once the new ones were in place.
  public var removed: Int
}

extension Library {
  /// Makes the library's thumbnails to `spec` (and makes it the library's spec): every
  /// picture's thumbnails (1× and 2×) are made again from its original, in parallel on `jobs`
  /// threads, each written by the durable write path; then one transaction switches the spec
  /// and records the new thumbnails, and only then are the old spec's thumbnails deleted. An
  /// interruption leaves the old spec in force, with the new thumbnails as unreferenced files.
  public func rebuildThumbnails(
    spec: ThumbnailSpec, jobs: Int? = nil, progress: (@Sendable (ImportProgress) -> Void)? = nil
  ) throws(CatalogueError) -> RebuildReport {
    guard spec.problems.isEmpty else { throw .invalidArgument(spec.problems.joined(separator: "; ")) }
    let outcomes: [RebuildOutcome]
    do {
      outcomes = try makeThumbnails(spec: spec, jobs: jobs, progress: progress)
    } catch {
      // The spec was not switched: the new thumbnails written so far are referenced by nothing.
      do { _ = try removeUnreferencedThumbnails() } catch {}
      throw error
    }
    // Old thumbnails are derived data: delete those no record refers to now.
    let removed = try removeUnreferencedThumbnails()
    let failures = outcomes.compactMap { outcome -> Finding? in
      if case .failed(let finding) = outcome { return finding }
      return nil
    }
    return RebuildReport(spec: spec, rebuilt: outcomes.count - failures.count, failures: failures, removed: removed)
  }

  /// The one path that makes a picture's thumbnails again: reads the record's original,
  /// checks that it still hashes to its name, decodes it once with `options` and encodes the
  /// thumbnails of `spec` at 1× and 2×, returned with the paths they belong at. The caller
  /// writes them: a repair by the durable write protocol, a rebuild staged and published as one
  /// group. Touches no record and no file; safe on many threads at once.
  static func makeThumbnails(of record: ImageRecord, spec: ThumbnailSpec, options: DecodeOptions, store: any FileStore)
    throws(CatalogueError) -> MadeThumbnails
  {
    let bytes = try verifiedOriginal(of: record, store: store)
    let prepared = try PreparedImage.make(
      bytes: bytes, sha256: record.sha256, source: record.originalPath, spec: spec, options: options)
    let (thumbnail, highDensity) = (prepared.processed.thumbnail, prepared.processed.highDensity)
    return MadeThumbnails(
      thumbnail: thumbnail,
      path: LibraryLayout.thumbnail(
        sha256: record.sha256, spec: spec.name, fileExtension: thumbnail.format.fileExtension),
      highDensity: highDensity,
      highDensityPath: LibraryLayout.highDensityThumbnail(
        sha256: record.sha256, spec: spec.name, fileExtension: highDensity.format.fileExtension))
  }

  /// A display rendition made again from the record's verified original: the one picture
  /// `spec` describes, at the path `path` gives for its format. As ``makeThumbnails(of:spec:options:store:)``,
  /// it touches nothing.
  static func makeRendition(
    of record: ImageRecord, spec: ThumbnailSpec, options: DecodeOptions, store: any FileStore,
    path: (ImageFormat) -> String
  ) throws(CatalogueError) -> (thumbnail: Thumbnail, path: String) {
    let bytes = try verifiedOriginal(of: record, store: store)
    let thumbnail: Thumbnail
    do {
      thumbnail = try ImagePipeline.thumbnail(bytes, spec: spec, options: options).thumbnail
    } catch {
      throw .imageRejected(file: record.originalPath, reason: error)
    }
    return (thumbnail, path(thumbnail.format))
  }

  /// The record's original, read whole and checked against its name.
  private static func verifiedOriginal(of record: ImageRecord, store: any FileStore) throws(CatalogueError)
    -> [UInt8]
  {
    let bytes = try store.read(record.originalPath)
    guard SHA256.hex(bytes) == record.sha256 else {
      throw .originalChanged(path: record.originalPath)
    }
    return bytes
  }

  /// Records the format and size of the thumbnail made for the picture `sha256` (inside the
  /// caller's write transaction).
  func recordThumbnail(_ thumbnail: Thumbnail, of sha256: String) throws(CatalogueError) {
    try records.setThumbnail(of: sha256, format: thumbnail.format, width: thumbnail.width, height: thumbnail.height)
  }

  /// Makes and records the thumbnails for `spec`, holding the library lock shared (as an
  /// import does) until they are linked.
  private func makeThumbnails(
    spec: ThumbnailSpec, jobs: Int?, progress: (@Sendable (ImportProgress) -> Void)?
  ) throws(CatalogueError) -> [RebuildOutcome] {
    let lock = try LibraryLock(folder: path, mode: .shared)
    defer { withExtendedLifetime(lock) {} }
    let records = try read { () throws(CatalogueError) in try imageRecords() }
    let writeErrors = Mutex<[CatalogueError]>([])
    let done = Atomic<Int>(0)
    let store = files
    let options = decodeOptions
    let outcomes = Parallel.map(count: records.count, jobs: jobs) { index -> RebuildOutcome in
      let record = records[index]
      defer { progress?(ImportProgress(done: done.add(1, ordering: .relaxed).newValue, total: records.count)) }
      if Interruption.signal != nil { return .skipped }
      var staged: [StagedFile] = []
      do throws(CatalogueError) {
        let made = try Self.makeThumbnails(of: record, spec: spec, options: options, store: store)
        for file in made.files { staged.append(try store.stage(file.bytes, for: file.path)) }
        return .made(made.thumbnail, staged)
      } catch {
        store.discard(staged)
        if case .io(let operation, _, _) = error, operation.isStoring {
          writeErrors.withLock { $0.append(error) }
        }
        return .failed(
          Finding(
            kind: .missingThumbnail, target: record.originalPath,
            problem: "no thumbnail could be made: \(error)",
            remedy: "restore the original, then run `catalogue check --repair`", repairable: false,
            reviews: record.reviews))
      }
    }
    let staged = outcomes.flatMap { outcome -> [StagedFile] in
      if case .made(_, let files) = outcome { return files }
      return []
    }
    var published = false
    defer { if !published { store.discard(staged) } }
    // A failed write (a full disk, say) stops the rebuild before anything is switched.
    if let error = writeErrors.withLock({ $0.first }) { throw error }
    try Interruption.check()
    // All thumbnails on disk with two flushes, not two each; none is referenced before this.
    try store.publish(staged)
    published = true
    try write { () throws(CatalogueError) in
      try self.records.saveSetting("thumbnail_spec", spec.name)
      for (record, outcome) in zip(records, outcomes) {
        guard case .made(let thumbnail, _) = outcome else { continue }
        try recordThumbnail(thumbnail, of: record.sha256)
      }
      // Pictures imported while the thumbnails were made carry the old spec's: theirs are
      // made now, before the switch is committed, so that none is left without one.
      let seen = Set(records.map(\.sha256))
      for record in try imageRecords() where !seen.contains(record.sha256) {
        let made = try Self.makeThumbnails(of: record, spec: spec, options: options, store: store)
        for file in made.files { try store.write(file.bytes, to: file.path) }
        try recordThumbnail(made.thumbnail, of: record.sha256)
      }
    }
    thumbnailSpec = spec
    return outcomes
  }

  /// Deletes the thumbnails no record refers to (those of the previous spec, or of a rebuild
  /// that did not switch), by the one cleanup rule. Returns how many.
  private func removeUnreferencedThumbnails() throws(CatalogueError) -> Int {
    let thumbnails = try files.files(under: LibraryLayout.thumbnails).filter { Self.isStoreName($0) }
    return try sweepUnreferenced(thumbnails).count
  }
}

/// A picture's thumbnails for one spec, made and not yet written, with where they belong.
struct MadeThumbnails: Sendable {
  /// The 1× thumbnail, the one the record describes.
  var thumbnail: Thumbnail
  var path: String
  /// The 2× thumbnail, in the 1× one's format.
  var highDensity: Thumbnail
  var highDensityPath: String

  /// Both, with where each goes.
  var files: [(bytes: [UInt8], path: String)] {
    [(highDensity.bytes, highDensityPath), (thumbnail.bytes, path)]
  }
}

/// What became of one picture in a rebuild.
enum RebuildOutcome: Sendable {
  /// Made and staged (1× and 2×), waiting to be published.
  case made(Thumbnail, [StagedFile])
  case failed(Finding)
  /// Not made: the rebuild was interrupted first.
  case skipped
}
