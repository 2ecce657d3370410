import Foundation
import ImagePipeline

/// What to do when a bundle's review is in the library already (the same id).
public enum BundleConflict: String, Sendable, CaseIterable {
  /// Refuse the bundle: nothing changes.
  case refuse
  /// Replace the review in the library with the bundle's, in the same transaction.
  case replace
  /// Import the bundle's review under a new id, whether or not its id is taken.
  case asNew
}

/// One review imported from a bundle.
public struct BundleImport: Sendable, Equatable {
  /// The bundle, as messages name it.
  public var source: String
  /// The review as the library now holds it.
  public var review: Review
  /// The id in the bundle (the review's own, unless imported as new).
  public var bundleID: String
  /// Whether a review with this id was replaced.
  public var replaced: Bool
}

/// What importing the bundles at one path did.
public struct BundleImportReport: Sendable, Equatable {
  public var imported: [BundleImport]
  /// Bundles refused, each with why; the library holds nothing of them.
  public var failures: [BundleFailure]
}

/// A bundle an import refused.
public struct BundleFailure: Sendable, Equatable {
  public var source: String
  public var error: CatalogueError

  public init(source: String, error: CatalogueError) {
    self.source = source
    self.error = error
  }
}

extension Library {
  /// Imports the review bundles at `path`: a bundle folder, a folder of bundles (as
  /// `export --all` writes), or a `.tar` archive of either.
  ///
  /// Each bundle is verified whole before the library is touched: every file against
  /// `SHA256SUMS`, the format version, the record, and every picture decoded with the library's
  /// limits. Then its files are written and one transaction adds the review with its pictures,
  /// in order, with its cover. A bundle with any problem is refused whole and reported in
  /// ``BundleImportReport/failures``; the others are imported. Problems with the path itself
  /// (missing, not a bundle, an archive with an unsafe or linked entry) are thrown. An archive
  /// is read bundle by bundle, so that one bundle at a time is held in memory.
  public func importBundles(
    at path: String, conflict: BundleConflict = .refuse, progress: ((ImportProgress) -> Void)? = nil
  ) throws(CatalogueError) -> BundleImportReport {
    var report = BundleImportReport(imported: [], failures: [])
    do throws(CatalogueError) {
      try BundleReader.forEachBundle(in: path) { location, total in
        do throws(CatalogueError) {
          report.imported.append(try importBundle(location, conflict: conflict))
        } catch {
          report.failures.append(BundleFailure(source: location.source, error: error))
        }
        progress?(ImportProgress(done: report.imported.count + report.failures.count, total: total))
      }
    } catch {
      // Before any bundle was handed over, the path itself is refused; after, the reading of an
      // archive stopped half-way, and what was imported stays.
      if report.imported.isEmpty && report.failures.isEmpty { throw error }
      report.failures.append(BundleFailure(source: path, error: error))
    }
    return report
  }

  /// Verifies, decodes and imports one bundle, all or nothing.
  private func importBundle(_ location: BundleLocation, conflict: BundleConflict)
    throws(CatalogueError)
    -> BundleImport
  {
    let bundle = try BundleReader.verify(try BundleReader.open(location))
    let record = bundle.record
    // A refusal needs no decoding: say so before the expensive part.
    if conflict == .refuse, let existing = try existingTitle(record.id) {
      throw .reviewExists(id: record.id, title: existing)
    }
    let prepared = try decode(bundle)

    let coverHash = record.images.first { $0.cover }?.sha256
    var released: [String] = []
    var replaced = false
    let id = try importing { () throws(CatalogueError) -> String in
      var stored: [StoredImage] = []
      for image in prepared {
        try Interruption.check()
        stored.append(try store(image))
      }
      return try write { () throws(CatalogueError) -> String in
        var id: String? = record.id
        if let existing = try existingTitle(record.id) {
          switch conflict {
          case .refuse:
            throw .reviewExists(id: record.id, title: existing)
          case .asNew:
            break
          case .replace:
            replaced = true
          }
        }
        var oldHashes: [String] = []
        if conflict == .asNew {
          id = nil
        } else if replaced {
          oldHashes = try images(of: record.id).map(\.image.sha256)
          try records.deleteReview(id: record.id)
        }
        guard filesInPlace(stored) else {
          let missing =
            stored.first { files.size(of: $0.original) != $0.bytes }?.original ?? stored[0].thumbnail
          throw .io(operation: .keep, path: files.location(of: missing), code: Errno.noEntry.rawValue)
        }
        let newID = try insertReview(
          bundle.fields, id: id, created: bundle.created, updated: bundle.updated, published: bundle.published)
        for image in stored { try insertImageRecord(image) }
        let links = zip(stored, record.images).map { image, listed in
          ImageLink(
            sha256: image.sha256, alt: PictureText.normalized(listed.alt, multiline: false),
            caption: PictureText.normalized(listed.caption, multiline: true), name: listed.name)
        }
        try relink(newID, links, cover: coverHash, now: nil)
        released = try deleteUnusedImageRecords(oldHashes)
        try beforeCommitHook?()
        return newID
      }
    }
    try discardFiles(of: Set(released))
    return BundleImport(
      source: bundle.source, review: try review(id), bundleID: record.id, replaced: replaced)
  }

  /// The title of the review with exactly this id, if the library has one.
  private func existingTitle(_ id: String) throws(CatalogueError) -> String? {
    try records.reviewTitle(id: id)
  }

  /// Decodes the bundle's pictures on all cores with the library's limits and thumbnail spec,
  /// and checks them against what the record says.
  private func decode(_ bundle: VerifiedBundle) throws(CatalogueError) -> [PreparedImage] {
    let images = bundle.record.images
    let spec = thumbnailSpec
    let options = decodeOptions
    let originals = bundle.originals
    let results = Parallel.map(count: images.count, jobs: nil) { index in
      Result { () throws(CatalogueError) -> PreparedImage in
        // The bundle's SHA256SUMS, checked against these bytes already, gives their hash.
        try PreparedImage.make(
          bytes: originals[index], sha256: images[index].sha256, source: images[index].original, spec: spec,
          options: options)
      }
    }
    var prepared: [PreparedImage] = []
    for (index, result) in results.enumerated() {
      let image = images[index]
      let made: PreparedImage
      switch result {
      case .success(let value):
        made = value
      case .failure(.imageRejected(_, let reason)):
        throw .badBundle(source: bundle.source, problem: .badImage(image.original, reason))
      case .failure(let error):
        throw error
      }
      let header = made.processed.header
      let found =
        "\(header.uprightWidth)×\(header.uprightHeight) \(header.format.rawValue), orientation "
        + "\(header.orientation.rawValue), \(made.size) bytes"
      let said =
        "\(image.width)×\(image.height) \(image.format), orientation \(image.orientation), \(image.bytes) bytes"
      guard found == said else {
        throw .badBundle(
          source: bundle.source,
          problem: .imageMismatch(
            image.original, detail: "review.json says \(said), the picture is \(found)"))
      }
      prepared.append(made)
    }
    return prepared
  }
}
