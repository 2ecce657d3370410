public import Foundation
public import ImagePipeline

/// A picture read, hashed, validated and thumbnailed (at 1× and 2×), ready to enter a library.
/// Making one touches no record, so many are made in parallel.
public struct PreparedImage: Sendable {
  /// The file it came from, as the user named it (for messages).
  public var source: String
  public var sha256: String
  /// The original's size in bytes.
  public var size: Int
  /// The original's bytes: in memory, or copied already into a temporary file of the
  /// library's store as they were read.
  var original: Original
  public var processed: ThumbnailPair
  /// The spec the thumbnails were made with.
  public var spec: ThumbnailSpec

  enum Original: Sendable {
    case bytes([UInt8])
    case incoming(IncomingFile)
  }

  /// Hashes and decodes `bytes` (whose SHA-256 is `sha256`, when known); the error names
  /// `source` and says why.
  public static func make(
    bytes: [UInt8], sha256: String? = nil, source: String, spec: ThumbnailSpec, options: DecodeOptions
  ) throws(CatalogueError) -> PreparedImage {
    let processed: ThumbnailPair
    do {
      processed = try ImagePipeline.thumbnails(bytes, spec: spec, options: options)
    } catch {
      throw .imageRejected(file: source, reason: error)
    }
    return PreparedImage(
      source: source, sha256: sha256 ?? SHA256.hex(bytes), size: bytes.count, original: .bytes(bytes),
      processed: processed, spec: spec)
  }

  /// Reads the picture at `path` once, front to back, refused as
  /// ``InputFile/openPicture(_:named:sizeCap:pixelBudget:)`` refuses it: each chunk read is
  /// hashed, copied into a temporary file of `store` (the original, put in place by
  /// ``Library/store(_:)``) and decoded, the thumbnails made from the rows as they come. The
  /// file is never held whole in memory, nor its picture (a WebP or HEIF file is: their
  /// decoders need it so). Errors name `source`.
  static func read(
    _ path: String, named source: String, sizeCap: Int, spec: ThumbnailSpec, options: DecodeOptions,
    into store: any FileStore
  ) throws(CatalogueError) -> PreparedImage {
    let picture = try InputFile.openPicture(path, named: source, sizeCap: sizeCap, pixelBudget: options.pixelBudget)
    defer { picture.close() }
    let copy = try store.incoming()
    picture.copy = copy
    do throws(CatalogueError) {
      let processed: ThumbnailPair
      do {
        processed = try ImagePipeline.thumbnails(reading: picture, spec: spec, options: options)
      } catch {
        // A read that failed, or a copy that could not be written, is why the picture ended.
        throw picture.failure ?? .imageRejected(file: source, reason: error)
      }
      let (sha256, size) = try picture.finish()
      return PreparedImage(
        source: source, sha256: sha256, size: size, original: .incoming(copy), processed: processed, spec: spec)
    } catch {
      copy.discard()
      throw error
    }
  }

  /// Gives up the original's copy, when it is in a temporary file.
  func discard() {
    if case .incoming(let file) = original { file.discard() }
  }
}

/// How far an import has got, for a progress line.
public struct ImportProgress: Sendable {
  public var done: Int
  public var total: Int
}

/// What an attach did: the review as it now is, what was attached, what was refused.
public struct AttachReport: Sendable {
  public var review: Review
  /// The new images, in the review's order.
  public var attached: [ReviewImage]
  /// Files that were not attached, each with why.
  public var failures: [ImportFailure]
  /// What was worked around in pictures that were attached (a profile ignored, an
  /// animation's first frame taken, damage decoded through).
  public var warnings: [ImportWarning] = []
}

/// Something a picture's decoder worked around: the picture was taken all the same.
public struct ImportWarning: Sendable, Equatable {
  /// The file, as the user named it.
  public var source: String
  public var message: String

  /// One per warning of a prepared picture.
  static func of(_ image: PreparedImage) -> [ImportWarning] {
    image.processed.warnings.map { ImportWarning(source: image.source, message: $0) }
  }
}

/// What a replace did: the review as it now is, and whether anything changed.
public struct ReplaceResult: Sendable {
  public var review: Review
  /// `false` when the new picture was the one in place already.
  public var changed: Bool
  /// What was worked around in the new picture.
  public var warnings: [ImportWarning] = []
}

/// A file an import could not take.
public struct ImportFailure: Sendable, Equatable {
  public var source: String
  public var error: CatalogueError

  public init(source: String, error: CatalogueError) {
    self.source = source
    self.error = error
  }

  /// `error` as one file's failure, when it is about the file (unreadable, not a picture, too
  /// large); any other error (the library's own: a copy into it that could not be written)
  /// is rethrown: it stops the whole import.
  init(_ error: CatalogueError) throws(CatalogueError) {
    switch error {
    case .io(let operation, _, _) where operation.isStoring:
      throw error
    case .imageRejected(let file, _), .io(_, let file, _), .notARegularFile(let file, _), .fileTooLarge(let file, _, _):
      self.init(source: file, error: error)
    default:
      throw error
    }
  }
}

extension Library {
  /// Reads and prepares `files` on `jobs` threads (all cores when `nil`), calling `body` with
  /// each result in the files' order as soon as it and those before it are ready. At most two
  /// prepared pictures a thread wait in memory; a thread that finishes a small picture goes on
  /// to the next file at once, so large and small files mixed keep every core busy. Results,
  /// errors and warnings name each file by `names` (the files themselves when `nil`).
  func prepare(
    files: [String], names: [String]? = nil, jobs: Int? = nil, progress: ((ImportProgress) -> Void)? = nil,
    _ body: (Result<PreparedImage, CatalogueError>) throws(CatalogueError) -> Void
  ) throws(CatalogueError) {
    let spec = thumbnailSpec
    let options = decodeOptions
    let sizeCap = fileSizeCap
    let names = names ?? files
    let store = self.files
    try Parallel.stream(
      count: files.count, jobs: jobs,
      produce: { index in
        Result { () throws(CatalogueError) -> PreparedImage in
          try PreparedImage.read(
            files[index], named: names[index], sizeCap: sizeCap, spec: spec, options: options, into: store)
        }
      },
      consume: { (index, result) throws(CatalogueError) in
        try body(result)
        progress?(ImportProgress(done: index + 1, total: files.count))
      })
  }

  /// Puts a prepared picture's original in place (unless the store has it already) and writes
  /// its thumbnails (1× and 2×), by the durable write protocol. Nothing links to them yet.
  func store(_ image: PreparedImage) throws(CatalogueError) -> StoredImage {
    let header = image.processed.header
    let thumbnail = image.processed.thumbnail
    let highDensity = image.processed.highDensity
    let original = LibraryLayout.original(sha256: image.sha256, fileExtension: header.format.fileExtension)
    let thumbnailPath = LibraryLayout.thumbnail(
      sha256: image.sha256, spec: image.spec.name, fileExtension: thumbnail.format.fileExtension)
    let highDensityPath = LibraryLayout.highDensityThumbnail(
      sha256: image.sha256, spec: image.spec.name, fileExtension: highDensity.format.fileExtension)
    writtenByImport?.insert(image.sha256)
    // Named by content: a file of the right size there is this picture already.
    if files.size(of: original) != image.size {
      switch image.original {
      case .bytes(let bytes): try files.write(bytes, to: original)
      case .incoming(let file): try files.place(file, at: original)
      }
    } else {
      image.discard()
    }
    try files.write(thumbnail.bytes, to: thumbnailPath)
    try files.write(highDensity.bytes, to: highDensityPath)
    return StoredImage(
      sha256: image.sha256, format: header.format, width: header.uprightWidth,
      height: header.uprightHeight, orientation: header.orientation, bytes: image.size,
      thumbnailFormat: thumbnail.format, thumbnailWidth: thumbnail.width,
      thumbnailHeight: thumbnail.height, imported: Date(), colorSpace: header.colorSpace, original: original,
      thumbnail: thumbnailPath, highDensityThumbnail: highDensityPath, highDensityThumbnailWidth: highDensity.width,
      highDensityThumbnailHeight: highDensity.height)
  }

  /// Adds the image record, unless the picture is in the library already (inside the caller's
  /// write transaction). Thumbnails made for a spec that a rebuild has switched from since the
  /// picture was prepared are made again (1× and 2×), for the spec in force, before the record
  /// names them: the rebuild did not see this picture, and nothing else would make its
  /// thumbnails. Those of the old spec go: no record can refer to them, and the rebuild's
  /// sweep may have looked before they were written.
  func insertImageRecord(_ image: StoredImage) throws(CatalogueError) {
    var image = image
    let spec = thumbnailSpec
    let current = LibraryLayout.thumbnail(
      sha256: image.sha256, spec: spec.name, fileExtension: image.thumbnailFormat.fileExtension)
    if image.thumbnail != current, try !records.hasImage(sha256: image.sha256) {
      let made = try Self.makeThumbnails(of: ImageRecord(image), spec: spec, options: decodeOptions, store: files)
      for file in made.files { try files.write(file.bytes, to: file.path) }
      // Derived data: when they cannot go, `check` reports them and `check --repair` deletes them.
      try? files.remove(image.thumbnail)
      try? files.remove(image.highDensityThumbnail)
      image.thumbnailFormat = made.thumbnail.format
      image.thumbnailWidth = made.thumbnail.width
      image.thumbnailHeight = made.thumbnail.height
      image.thumbnail = made.path
      image.highDensityThumbnail = made.highDensityPath
      image.highDensityThumbnailWidth = made.highDensity.width
      image.highDensityThumbnailHeight = made.highDensity.height
    }
    try records.insertImage(image)
  }

  /// Rewrites a review's links to match `links`, in order, `cover` marking the cover (the
  /// first image when `nil`), and marks the review updated at `now` (unless `now` is `nil`:
  /// a repair changes no review's story).
  func relink(_ id: String, _ links: [ImageLink], cover: String?, now: Date?) throws(CatalogueError) {
    let coverHash = links.contains { $0.sha256 == cover } ? cover : links.first?.sha256
    try records.setLinks(ofReview: id, links, cover: coverHash, updated: now, author: author)
  }

  /// Whether the files of `images` are still in place, checked inside the write transaction
  /// just before they are linked. Only unreferenced-file removal deletes files, and it waits
  /// for the library lock an import holds; this check is the second belt.
  func filesInPlace(_ images: [StoredImage]) -> Bool {
    images.allSatisfy {
      files.size(of: $0.original) == $0.bytes && files.size(of: $0.thumbnail) != nil
        && files.size(of: $0.highDensityThumbnail) != nil
    }
  }

  // MARK: Attach, replace, detach, cover, move

  /// Attaches `sources` (image files) to a review, after its current images. Every file is
  /// read, hashed and decoded first, in parallel; files that fail are reported and the others
  /// attached, all in one transaction. With `cover`, the file of that name becomes the cover;
  /// otherwise a review without images gets its first new one as cover. `text` describes the
  /// picture, and is refused with more than one file. Each link keeps its file's name
  /// (``PictureName/of(_:uploaded:)``).
  public func attach(
    files sources: [String], to reference: String, cover: String? = nil, text: PictureText = PictureText(),
    jobs: Int? = nil, progress: ((ImportProgress) -> Void)? = nil, now: Date = Date()
  ) throws(CatalogueError) -> AttachReport {
    try attach(
      files: sources, names: nil, to: reference, cover: cover, text: text, jobs: jobs, progress: progress, now: now)
  }

  /// Attaches uploaded pictures: ``attach(files:to:cover:text:jobs:progress:now:)`` for files
  /// whose names are not the user's (an upload's temporary files). Every message, warning and
  /// failure names `names[i]`, as the user sent it, never `files[i]`, and each link keeps it;
  /// `cover` is one of `names`.
  public func attach(
    files: [String], named names: [String], to reference: String, cover: String? = nil,
    text: PictureText = PictureText(), jobs: Int? = nil, now: Date = Date()
  ) throws(CatalogueError) -> AttachReport {
    guard names.count == files.count else {
      throw .invalidArgument("\(files.count) files were given with \(names.count) names")
    }
    return try attach(
      files: files, names: names, to: reference, cover: cover, text: text, jobs: jobs, progress: nil, now: now)
  }

  private func attach(
    files sources: [String], names: [String]?, to reference: String, cover: String?, text: PictureText, jobs: Int?,
    progress: ((ImportProgress) -> Void)?, now: Date
  ) throws(CatalogueError) -> AttachReport {
    let id = try resolve(reference)
    var text = text
    if !text.isEmpty {
      guard sources.count == 1 else {
        throw .invalidArgument(
          "a description and a caption are said of one picture, and \(sources.count) were given: "
            + "attach them one at a time, or describe each once attached")
      }
      text = try text.validated(for: names?.first ?? sources[0])
    }
    let uploaded = names != nil
    return try importing { () throws(CatalogueError) in
      var stored: [(source: String, image: StoredImage)] = []
      var failures: [ImportFailure] = []
      var warnings: [ImportWarning] = []
      try prepare(files: sources, names: names, jobs: jobs, progress: progress) { (result) throws(CatalogueError) in
        try Interruption.check()
        switch result {
        case .success(let prepared):
          stored.append((prepared.source, try store(prepared)))
          warnings += ImportWarning.of(prepared)
        case .failure(let error):
          failures.append(try ImportFailure(error))
        }
      }
      var report = try link(
        stored, failures: failures, to: id, reference: reference, cover: cover, text: text, uploaded: uploaded,
        now: now)
      let attached = Set(
        stored.filter { item in report.attached.contains { $0.image.sha256 == item.image.sha256 } }.map(\.source))
      report.warnings = warnings.filter { attached.contains($0.source) }
      return report
    }
  }

  /// Adds a review with the pictures in `sources`, all or nothing, as one command should: every
  /// file is read and decoded first; if any cannot be used, nothing is added, the files written
  /// go again, and ``CatalogueError/picturesRefused(_:total:)`` lists each failure. `warned`
  /// hears what was worked around in the pictures taken, once the review is added.
  public func create(
    _ draft: ReviewDraft, attaching sources: [String], jobs: Int? = nil,
    progress: ((ImportProgress) -> Void)? = nil, warned: (([ImportWarning]) -> Void)? = nil, now: Date = Date()
  ) throws(CatalogueError) -> Review {
    let (review, warnings) = try create(
      draft, attaching: sources, names: nil, jobs: jobs, progress: progress, now: now)
    if !warnings.isEmpty { warned?(warnings) }
    return review
  }

  /// Adds a review with uploaded pictures, all or nothing, as
  /// ``create(_:attaching:jobs:progress:warned:now:)`` does; every message, warning and
  /// failure names `names[i]`, as the user sent it, never `files[i]`. Returns the review and
  /// what was worked around in its pictures.
  public func create(
    _ draft: ReviewDraft, attaching files: [String], named names: [String], jobs: Int? = nil, now: Date = Date()
  ) throws(CatalogueError) -> (review: Review, warnings: [ImportWarning]) {
    guard names.count == files.count else {
      throw .invalidArgument("\(files.count) files were given with \(names.count) names")
    }
    return try create(draft, attaching: files, names: names, jobs: jobs, progress: nil, now: now)
  }

  private func create(
    _ draft: ReviewDraft, attaching sources: [String], names: [String]?, jobs: Int?,
    progress: ((ImportProgress) -> Void)?, now: Date
  ) throws(CatalogueError) -> (review: Review, warnings: [ImportWarning]) {
    var warnings: [ImportWarning] = []
    let fields = try draft.validated()
    // Asked before a picture is read: a typo costs no import.
    if !draft.newCategory { try checkNewCategory(fields.category.rawValue) }
    let id = try importing { () throws(CatalogueError) -> String in
      var stored: [StoredImage] = []
      var sourceNames: [String] = []
      var failures: [ImportFailure] = []
      try prepare(files: sources, names: names, jobs: jobs, progress: progress) { (result) throws(CatalogueError) in
        try Interruption.check()
        switch result {
        case .success(let prepared):
          if let twin = stored.firstIndex(where: { $0.sha256 == prepared.sha256 }) {
            prepared.discard()
            failures.append(
              ImportFailure(
                source: prepared.source,
                error: .duplicatePicture(file: prepared.source, sha256: prepared.sha256, position: twin + 1)))
          } else if failures.isEmpty {
            stored.append(try store(prepared))
            sourceNames.append(prepared.source)
            warnings += ImportWarning.of(prepared)
          } else {
            // Not to be added: a picture before it was refused.
            prepared.discard()
          }
        case .failure(let error):
          failures.append(try ImportFailure(error))
        }
      }
      if !failures.isEmpty { throw .picturesRefused(failures, total: sources.count) }
      return try write { () throws(CatalogueError) -> String in
        guard filesInPlace(stored) else {
          let missing = stored.first { files.size(of: $0.original) != $0.bytes }?.original ?? stored[0].thumbnail
          throw .io(operation: .keep, path: files.location(of: missing), code: Errno.noEntry.rawValue)
        }
        let id = try insertReview(fields, id: nil, created: now, updated: now, published: draft.publish ? now : nil)
        for image in stored { try insertImageRecord(image) }
        let links = zip(stored, sourceNames).map { image, source in
          ImageLink(sha256: image.sha256, name: PictureName.of(source, uploaded: names != nil))
        }
        try relink(id, links, cover: nil, now: nil)
        try beforeCommitHook?()
        return id
      }
    }
    return (try review(id), warnings)
  }

  /// Attaches pictures prepared already (see ``PreparedImage/make(bytes:source:spec:options:)``):
  /// their files are written, then linked in one transaction.
  public func attach(
    prepared images: [PreparedImage], to reference: String, cover: String? = nil, now: Date = Date()
  ) throws(CatalogueError) -> AttachReport {
    let id = try resolve(reference)
    return try importing { () throws(CatalogueError) in
      var stored: [(source: String, image: StoredImage)] = []
      for image in images { stored.append((image.source, try store(image))) }
      return try link(
        stored, failures: [], to: id, reference: reference, cover: cover, text: PictureText(), uploaded: true, now: now)
    }
  }

  /// Links stored pictures to a review after its current images, in one transaction.
  private func link(
    _ stored: [(source: String, image: StoredImage)], failures: [ImportFailure], to id: String,
    reference: String, cover: String?, text: PictureText, uploaded: Bool, now: Date
  ) throws(CatalogueError) -> AttachReport {
    var failures = failures
    let attachedHashes = try write { () throws(CatalogueError) -> [String] in
      guard try records.hasReview(id: id) else { throw .reviewNotFound(reference) }
      let current = try images(of: id)
      var links = current.map(ImageLink.init)
      var added: [String] = []
      for (source, image) in stored {
        if let position = links.firstIndex(where: { $0.sha256 == image.sha256 }) {
          failures.append(
            ImportFailure(
              source: source,
              error: .imageAlreadyAttached(review: id, sha256: image.sha256, position: position + 1)))
          continue
        }
        guard filesInPlace([image]) else {
          failures.append(
            ImportFailure(
              source: source,
              error: .io(operation: .keep, path: files.location(of: image.original), code: Errno.noEntry.rawValue)))
          continue
        }
        try insertImageRecord(image)
        links.append(
          ImageLink(
            sha256: image.sha256, alt: text.alt, caption: text.caption, name: PictureName.of(source, uploaded: uploaded)
          ))
        added.append(image.sha256)
      }
      let currentCover = current.first { $0.isCover }?.image.sha256
      let chosenCover = cover.flatMap { name in stored.first { $0.source == name }?.image.sha256 }
      if !added.isEmpty {
        try relink(id, links, cover: chosenCover ?? currentCover, now: now)
      }
      try beforeCommitHook?()
      return added
    }
    let review = try review(id)
    let attached = review.images.filter { attachedHashes.contains($0.image.sha256) }
    return AttachReport(review: review, attached: attached, failures: failures)
  }

  /// Replaces one of a review's images with the picture in `source`, at the same position and
  /// with the same cover role. The old picture's record goes if no other review uses it, and
  /// its files with it once the change is committed. The same picture again changes nothing
  /// (``ReplaceResult/changed`` is then `false`).
  @discardableResult
  public func replace(_ reference: String, image imageReference: String, with source: String, now: Date = Date())
    throws(CatalogueError) -> ReplaceResult
  {
    try replace(reference, image: imageReference, with: source, named: source, now: now)
  }

  /// Replaces one of a review's images with an uploaded picture, as
  /// ``replace(_:image:with:now:)`` does; messages and warnings name it `name`, as the user
  /// sent it, never the file it was saved to.
  @discardableResult
  public func replace(
    _ reference: String, image imageReference: String, with file: String, named name: String, now: Date = Date()
  ) throws(CatalogueError) -> ReplaceResult {
    let source = name
    let id = try resolve(reference)
    // Resolve before the work, so that a wrong reference fails fast.
    let named = try resolveImage(imageReference, in: id, images: images(of: id))
    var released: [String] = []
    var warnings: [ImportWarning] = []
    let changed = try importing { () throws(CatalogueError) -> Bool in
      // Read once: hashed, copied into the library and decoded in the same pass.
      let prepared = try PreparedImage.read(
        file, named: source, sizeCap: fileSizeCap, spec: thumbnailSpec, options: decodeOptions, into: files)
      // The same picture changes nothing, unless its stored original is missing or damaged:
      // then this restores it.
      if prepared.sha256 == named.image.sha256, (try? files.digest(of: named.image.original)) == prepared.sha256 {
        prepared.discard()
        return false
      }
      warnings = ImportWarning.of(prepared)
      try Interruption.check()
      let image = try store(prepared)
      try write { () throws(CatalogueError) in
        let current = try images(of: id)
        let old = try resolveImage(imageReference, in: id, images: current)
        if old.image.sha256 == image.sha256 { return }
        if let existing = current.first(where: { $0.image.sha256 == image.sha256 }) {
          throw .imageAlreadyAttached(review: id, sha256: image.sha256, position: existing.position)
        }
        guard filesInPlace([image]) else {
          throw .io(operation: .keep, path: files.location(of: image.original), code: Errno.noEntry.rawValue)
        }
        try insertImageRecord(image)
        // The new picture takes the old one's place, description and caption (a better copy
        // of the same picture, as a rule), and is named after its own file.
        var links = current.map(ImageLink.init)
        links[old.position - 1].sha256 = image.sha256
        links[old.position - 1].name = PictureName.of(source, uploaded: file != name)
        let cover = current.first { $0.isCover }.map { $0.position == old.position ? image.sha256 : $0.image.sha256 }
        try relink(id, links, cover: cover, now: now)
        released = try deleteUnusedImageRecords([old.image.sha256])
        try beforeCommitHook?()
      }
      return true
    }
    guard changed else { return ReplaceResult(review: try review(id), changed: false) }
    try discardFiles(of: Set(released))
    return ReplaceResult(review: try review(id), changed: true, warnings: warnings)
  }

  /// Detaches one of a review's images; those after it move up. If it was the cover, the new
  /// first image becomes the cover.
  @discardableResult
  public func detach(_ reference: String, image imageReference: String, now: Date = Date())
    throws(CatalogueError) -> Review
  {
    let id = try resolve(reference)
    let released = try write { () throws(CatalogueError) -> [String] in
      let current = try images(of: id)
      let old = try resolveImage(imageReference, in: id, images: current)
      let remaining = current.filter { $0.position != old.position }
      let cover = current.first { $0.isCover && $0.position != old.position }?.image.sha256
      try relink(id, remaining.map(ImageLink.init), cover: cover, now: now)
      return try deleteUnusedImageRecords([old.image.sha256])
    }
    try discardFiles(of: Set(released))
    return try review(id)
  }

  /// Makes one of a review's images its cover.
  @discardableResult
  public func setCover(_ reference: String, image imageReference: String, now: Date = Date())
    throws(CatalogueError) -> Review
  {
    let id = try resolve(reference)
    try write { () throws(CatalogueError) in
      let current = try images(of: id)
      let chosen = try resolveImage(imageReference, in: id, images: current)
      try relink(id, current.map(ImageLink.init), cover: chosen.image.sha256, now: now)
    }
    return try review(id)
  }

  /// Moves one of a review's images to `position` (1-based); the others keep their order.
  @discardableResult
  public func move(_ reference: String, image imageReference: String, to position: Int, now: Date = Date())
    throws(CatalogueError) -> Review
  {
    let id = try resolve(reference)
    try write { () throws(CatalogueError) in
      let current = try images(of: id)
      let moving = try resolveImage(imageReference, in: id, images: current)
      guard (1...current.count).contains(position) else {
        throw .invalidArgument("position \(position) is outside 1–\(current.count) for review \(id)")
      }
      var order = current.filter { $0.position != moving.position }.map(ImageLink.init)
      order.insert(ImageLink(moving), at: position - 1)
      let cover = current.first { $0.isCover }?.image.sha256
      try relink(id, order, cover: cover, now: now)
    }
    return try review(id)
  }

  /// Sets or clears what a review says of one of its pictures (``PictureText``): `alt` and
  /// `caption` are each `nil` to keep, or empty (once trimmed) to clear. Both are validated
  /// before anything is written; the review is marked updated when something changed.
  @discardableResult
  public func describe(
    _ reference: String, image imageReference: String, alt: String?, caption: String?, now: Date = Date()
  ) throws(CatalogueError) -> Review {
    let id = try resolve(reference)
    let given = try PictureText(alt: alt, caption: caption).validated(
      for: "picture \(imageReference) of review \(id)")
    try write { () throws(CatalogueError) in
      let current = try images(of: id)
      let chosen = try resolveImage(imageReference, in: id, images: current)
      var links = current.map(ImageLink.init)
      var link = links[chosen.position - 1]
      if alt != nil { link.alt = given.alt }
      if caption != nil { link.caption = given.caption }
      guard link != links[chosen.position - 1] else { return }
      links[chosen.position - 1] = link
      try relink(id, links, cover: current.first { $0.isCover }?.image.sha256, now: now)
    }
    return try review(id)
  }

  /// The picture `imageReference` names among a review's (a position or a hash prefix).
  public func image(_ imageReference: String, of reference: String) throws(CatalogueError) -> ReviewImage {
    let id = try resolve(reference)
    return try resolveImage(imageReference, in: id, images: read { () throws(CatalogueError) in try images(of: id) })
  }

  /// The image `reference` names among `images`: a position (1, 2, …) or a prefix of at least
  /// four digits of its hash.
  func resolveImage(_ reference: String, in id: String, images: [ReviewImage]) throws(CatalogueError)
    -> ReviewImage
  {
    if let position = Int(reference), reference.utf8.count <= 3 {
      guard let image = images.first(where: { $0.position == position }) else {
        throw .imageNotFound(review: id, reference: reference)
      }
      return image
    }
    let prefix = reference.lowercased()
    guard prefix.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }), !prefix.isEmpty else {
      throw .badImageReference(reference)
    }
    guard prefix.utf8.count >= 4 else { throw .imageNotFound(review: id, reference: reference) }
    let matches = images.filter { $0.image.sha256.hasPrefix(prefix) }
    switch matches.count {
    case 0: throw .imageNotFound(review: id, reference: reference)
    case 1: return matches[0]
    default:
      throw .ambiguousImage(
        review: id, reference: reference, candidates: matches.map { String($0.image.sha256.prefix(12)) })
    }
  }
}
