import Catalogue
import Foundation
import HTTP
import ImagePipeline

/// The library's pictures over HTTP. Every file is named by its content (the original's
/// SHA-256, and for derived pictures the spec they were made with), so each is served as
/// immutable: `ETag` the name, cached for a year, `304` and byte ranges through
/// ``FileResponder``. A name is checked whole against the one shape the store writes before
/// any path is made of it, so no name can reach outside the store.
enum Files {
  static let immutable = "public, max-age=31536000, immutable"

  /// `/originals/<sha256>.<ext>`: the imported file, byte for byte. `?download` (and a HEIC,
  /// which most browsers cannot show) comes as an attachment; `?download=<file name>` names it
  /// (see ``downloadURL(_:)``).
  ///
  /// The name rides in the query, not in a route of each review: the file stays one file
  /// served by `sendfile` from its content-addressed path, without a look at the records, and
  /// each URL still always answers the same bytes and headers, so it is cached as immutable.
  /// Anyone could write such a link with a name of their own: the name is taken only when it
  /// is a plain file name (``PictureName``: no path, no control character) and always ends
  /// in the picture's own extension, so a download is never saved as a page or a program.
  @Sendable static func original(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let name = exchange.capture("name")
    guard let dot = name.firstIndex(of: "."), isDigest(name[..<dot]),
      let format = Self.format(ofExtension: String(name[name.index(after: dot)...]))
    else { throw Failure.notFound("no original \(name)") }
    let sha256 = String(name[..<dot])
    let path = LibraryLayout.original(sha256: sha256, fileExtension: format.fileExtension)
    guard let file = try? OpenFile.open(path, beneath: exchange.service.folder) else {
      throw Failure.notFound("no original \(name)")
    }
    let asked = exchange.head.query["download"]
    var filename = "\(sha256.prefix(12)).\(format.fileExtension)"
    if let asked, !asked.isEmpty {
      guard PictureName.of(asked, uploaded: true) == asked else {
        throw Failure.badRequest(
          "download=\(Shown.path(String(asked.prefix(64)))) is not a file name: give a name without / \\ "
            + "or control characters, up to \(PictureName.maximumBytes) bytes, or leave download= empty")
      }
      filename = downloadFilename(asked, format: format)
    }
    var headers = HTTPHeaders()
    headers.set("Cache-Control", immutable)
    let attachment = asked != nil || !HTML.browsersShow(format)
    headers.set("Content-Disposition", contentDisposition(attachment ? "attachment" : "inline", filename: filename))
    // A picture is never a document: nothing in it may run, whatever a browser takes it for.
    headers.set("Content-Security-Policy", "default-src 'none'; sandbox")
    return FileResponder.respond(
      to: exchange.head, file: file, contentType: contentType(format), etag: "\"\(sha256)\"", headers: headers)
  }

  /// `/thumbnails/<sha256>-<spec>.<jpg|png>`: the list thumbnail, and
  /// `/thumbnails/<sha256>-<spec>@2x.<jpg|png>` its 2× twin for high-density screens. One of
  /// the library's spec that has gone missing is made again (on a worker: see
  /// ``thumbnailNeedsMaking(_:service:)``).
  @Sendable static func thumbnail(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let name = exchange.capture("name")
    guard let parsed = parseThumbnail(name) else { throw Failure.notFound("no thumbnail \(name)") }
    let folder = exchange.service.folder
    let etag = "\(parsed.sha256)-\(parsed.spec)" + (parsed.highDensity ? LibraryLayout.highDensityMark : "")
    var file: OpenFile?
    do {
      file = try OpenFile.open(thumbnailPath(parsed), beneath: folder)
    } catch .missing {
      if exchange.service.readOnlyReason != nil {
        guard let spec = ThumbnailSpec(name: parsed.spec) else { throw Failure.notFound("no thumbnail \(name)") }
        return try unstored(
          parsed.sha256, spec: spec, highDensity: parsed.highDensity, etag: etag, exchange: exchange)
      }
      // Made again only when nothing is there: a link in the way would have it written elsewhere.
      let made = try exchange.library { (library) throws(CatalogueError) -> String? in
        guard parsed.spec == library.thumbnailSpec.name, try library.storedImage(sha256: parsed.sha256) != nil else {
          return nil
        }
        return try library.thumbnailFile(of: parsed.sha256, highDensity: parsed.highDensity)
      }
      if let made, made.hasSuffix("/" + name) { file = try? OpenFile.open(made, beneath: folder) }
    } catch {
      file = nil
    }
    guard let file else { throw Failure.notFound("no thumbnail \(name)") }
    return picture(file, exchange: exchange, format: parsed.fileExtension == "png" ? .png : .jpeg, etag: etag)
  }

  /// `/display/<sha256>-<spec>`: the picture at the size a review page shows it (longest edge
  /// 1600), and `/display/<sha256>-<spec>@2x` at twice that for high-density screens (never
  /// larger than the original), each made from the original on first request and kept beside
  /// the thumbnails, so that every format shows in every browser.
  @Sendable static func display(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let name = exchange.capture("name")
    guard let (sha256, highDensity) = parseDisplay(name) else {
      throw Failure.notFound("no display picture \(name)")
    }
    let folder = exchange.service.folder
    var found: (file: OpenFile, path: String)?
    var missing = true
    for format in [ImageFormat.jpeg, .png] where found == nil {
      let path = displayPath(sha256, highDensity: highDensity, format: format)
      do {
        found = (try OpenFile.open(path, beneath: folder), path)
      } catch {
        if error != .missing { missing = false }
      }
    }
    if found == nil && missing && exchange.service.readOnlyReason != nil {
      return try unstored(sha256, spec: Library.displaySpec, highDensity: highDensity, etag: name, exchange: exchange)
    }
    // Made only when neither is there: a link in the way would have it written elsewhere.
    if found == nil && missing {
      let path = try exchange.library { (library) throws(CatalogueError) in
        try library.displayRendition(of: sha256, highDensity: highDensity)
      }
      if let file = try? OpenFile.open(path, beneath: folder) { found = (file, path) }
    }
    guard let found else { throw Failure.notFound("no display picture \(name)") }
    return picture(found.file, exchange: exchange, format: found.path.hasSuffix(".png") ? .png : .jpeg, etag: name)
  }

  /// A picture made from its original and sent without being kept: what a library that can
  /// only be read (a read-only or full disk) shows in place of a derived file it lacks.
  private static func unstored(
    _ sha256: String, spec: ThumbnailSpec, highDensity: Bool, etag: String, exchange: Exchange
  ) throws(Failure) -> HTTPResponse {
    guard
      let made = try exchange.library({ (library) throws(CatalogueError) in
        try library.derivedPicture(of: sha256, spec: spec, highDensity: highDensity)
      })
    else { throw Failure.notFound("no picture \(sha256)") }
    var headers = HTTPHeaders()
    headers.set("Content-Type", contentType(made.format))
    headers.set("Content-Security-Policy", "default-src 'none'; sandbox")
    // Made afresh each time: not to be kept as if it were the file the library would store.
    headers.set("Cache-Control", "no-cache")
    headers.set("ETag", "\"\(etag)\"")
    return HTTPResponse(status: 200, headers: headers, body: made.bytes)
  }

  /// `/assets/<name>`: the style sheet and the script, named by their hash.
  @Sendable static func asset(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    guard let asset = Assets.named(exchange.capture("name")) else {
      throw Failure.notFound("no asset \(exchange.capture("name"))")
    }
    var headers = HTTPHeaders()
    headers.set("Content-Type", asset.contentType)
    headers.set("Cache-Control", immutable)
    let etag = "\"\(asset.name)\""
    headers.set("ETag", etag)
    if let match = exchange.head.headers["If-None-Match"], AnswerNotModified.matches(match, etag) {
      // Not sent, but said: the length the asset has (a 304 must not claim an empty body).
      headers.set("Content-Length", String(asset.bytes.count))
      return HTTPResponse(status: 304, headers: headers)
    }
    return HTTPResponse(status: 200, headers: headers, body: asset.bytes)
  }

  /// `/favicon.ico`: none; said quickly so that browsers stop asking.
  @Sendable static func favicon(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    var headers = HTTPHeaders()
    headers.set("Cache-Control", "public, max-age=86400")
    return HTTPResponse(status: 204, headers: headers)
  }

  // MARK: Deciding where the work runs

  static func thumbnailNeedsMaking(_ name: String, service: CatalogueService) -> Bool {
    guard let parsed = parseThumbnail(name) else { return false }
    return !FileManager.default.fileExists(atPath: service.libraryPath + "/" + thumbnailPath(parsed))
  }

  static func displayNeedsMaking(_ name: String, service: CatalogueService) -> Bool {
    guard let (sha256, highDensity) = parseDisplay(name) else { return false }
    return existingDisplay(sha256, highDensity: highDensity, root: service.libraryPath + "/") == nil
  }

  // MARK: Names

  static func isDigest(_ text: Substring) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
  }

  /// A thumbnail's name taken apart: the picture, the spec it was made to, whether it is the
  /// 2× one (`<spec>@2x`), and its file extension.
  struct ThumbnailName {
    var sha256: String
    var spec: String
    var highDensity: Bool
    var fileExtension: String
  }

  /// `<sha256>-<spec>.<jpg|png>` or `<sha256>-<spec>@2x.<jpg|png>`, with a spec that is one.
  /// Read on the UTF-8 bytes: this runs for every thumbnail asked for.
  static func parseThumbnail(_ name: String) -> ThumbnailName? {
    let bytes = name.utf8
    guard bytes.count > 70, bytes.count < 128 else { return nil }
    let start = bytes.startIndex
    let dash = bytes.index(start, offsetBy: 64)
    guard bytes[dash] == UInt8(ascii: "-"), let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot > dash else {
      return nil
    }
    let sha256 = Substring(bytes[start..<dash])
    let fileExtension = String(Substring(bytes[bytes.index(after: dot)...]))
    guard fileExtension == "jpg" || fileExtension == "png", isDigest(sha256) else { return nil }
    var spec = Substring(bytes[bytes.index(after: dash)..<dot])
    let highDensity = spec.utf8.count > 3 && spec.utf8.suffix(3).elementsEqual(LibraryLayout.highDensityMark.utf8)
    if highDensity { spec = Substring(spec.utf8.dropLast(3)) }
    guard ThumbnailSpec(name: String(spec)) != nil else { return nil }
    return ThumbnailName(
      sha256: String(sha256), spec: String(spec), highDensity: highDensity, fileExtension: fileExtension)
  }

  /// Where the thumbnail `name` is kept, relative to the library.
  static func thumbnailPath(_ name: ThumbnailName) -> String {
    name.highDensity
      ? LibraryLayout.highDensityThumbnail(sha256: name.sha256, spec: name.spec, fileExtension: name.fileExtension)
      : LibraryLayout.thumbnail(sha256: name.sha256, spec: name.spec, fileExtension: name.fileExtension)
  }

  /// `<sha256>-<display spec>` or `<sha256>-<display spec>@2x`: the picture, and whether the
  /// 2× rendition is asked for.
  static func parseDisplay(_ name: String) -> (sha256: String, highDensity: Bool)? {
    let sha256 = name.prefix(64)
    guard isDigest(sha256) else { return nil }
    switch name.dropFirst(64) {
    case "-" + Library.displaySpec.name: return (String(sha256), false)
    case "-" + Library.displaySpec.name + LibraryLayout.highDensityMark: return (String(sha256), true)
    default: return nil
    }
  }

  /// Where a display rendition in `format` is kept, relative to the library.
  static func displayPath(_ sha256: String, highDensity: Bool, format: ImageFormat) -> String {
    highDensity
      ? LibraryLayout.highDensityThumbnail(
        sha256: sha256, spec: Library.displaySpec.name, fileExtension: format.fileExtension)
      : LibraryLayout.thumbnail(sha256: sha256, spec: Library.displaySpec.name, fileExtension: format.fileExtension)
  }

  /// The display rendition's path if it has been made: a JPEG, or a PNG for a picture with
  /// transparency.
  static func existingDisplay(_ sha256: String, highDensity: Bool, root: String) -> String? {
    for format in [ImageFormat.jpeg, .png] {
      let path = displayPath(sha256, highDensity: highDensity, format: format)
      if FileManager.default.fileExists(atPath: root + path) { return path }
    }
    return nil
  }

  static func format(ofExtension text: String) -> ImageFormat? {
    ImageFormat.allCases.first { $0.isSupported && $0.fileExtension == text }
  }

  static func contentType(_ format: ImageFormat) -> String {
    switch format {
    case .jpeg: return "image/jpeg"
    case .png: return "image/png"
    case .webp: return "image/webp"
    case .heic: return "image/heic"
    case .avif: return "image/avif"
    case .gif: return "image/gif"
    case .tiff: return "image/tiff"
    case .bmp: return "image/bmp"
    case .jpegXL: return "image/jxl"
    }
  }

  private static func picture(_ file: OpenFile, exchange: Exchange, format: ImageFormat, etag: String) -> HTTPResponse {
    var headers = HTTPHeaders()
    headers.set("Cache-Control", immutable)
    headers.set("Content-Security-Policy", "default-src 'none'; sandbox")
    return FileResponder.respond(
      to: exchange.head, file: file, contentType: contentType(format), etag: "\"\(etag)\"", headers: headers)
  }

  // MARK: Links

  /// Where the server serves a picture's original, thumbnail and display rendition.
  static func urls(_ image: StoredImage) -> JSONShape.ImageURLs {
    JSONShape.ImageURLs(
      original: originalURL(image), thumbnail: thumbnailURL(image), thumbnail2x: highDensityThumbnailURL(image),
      display: displayURL(image), display2x: highDensityDisplayURL(image))
  }

  static func originalURL(_ image: StoredImage) -> String {
    "/originals/\(image.sha256).\(image.format.fileExtension)"
  }

  /// Where a reader downloads a review's picture: its original as an attachment, named after
  /// the file it was attached from (``downloadFilename(_:format:)``), or, for a picture
  /// attached before names were kept, by its hash as before.
  static func downloadURL(_ item: ReviewImage) -> String {
    originalURL(item.image) + "?download" + (item.name.map { "=" + queryEncoded($0) } ?? "")
  }

  /// The name a download of a picture of `format` is saved under: `name` ending in one of the
  /// format's extensions (`poster` → `poster.jpg`, `still.JPEG` kept), so that the file opens
  /// as what it is.
  static func downloadFilename(_ name: String, format: ImageFormat) -> String {
    let known: [ImageFormat: [String]] = [
      .jpeg: ["jpg", "jpeg", "jpe"], .png: ["png"], .webp: ["webp"], .heic: ["heic", "heif"], .avif: ["avif"],
    ]
    let extensions = known[format] ?? [format.fileExtension]
    if let dot = name.lastIndex(of: "."), extensions.contains(name[name.index(after: dot)...].lowercased()) {
      return name
    }
    return PictureName.capped(name + "." + format.fileExtension)
  }

  /// A `Content-Disposition` value (RFC 6266) naming `filename` for any browser: `filename=`
  /// in ASCII (every other character, and `"`, `\` and `%`, as `_`) for the old, and
  /// `filename*=UTF-8''…` (RFC 8187, percent-encoded UTF-8) for the rest, which prefer it.
  static func contentDisposition(_ type: String, filename: String) -> String {
    let fallback = String(
      String.UnicodeScalarView(
        filename.unicodeScalars.map { scalar in
          (0x20..<0x7F).contains(scalar.value) && !"\"\\%".unicodeScalars.contains(scalar) ? scalar : "_"
        }))
    // RFC 8187's attr-char: letters, digits and !#$&+-.^_`|~ go as they are.
    let encoded = percentEncoded(filename, keeping: "!#$&+-.^_`|~")
    return #"\#(type); filename="\#(fallback)"; filename*=UTF-8''\#(encoded)"#
  }

  /// `text` percent-encoded for a query value: every byte but ASCII letters, digits and -._~.
  static func queryEncoded(_ text: String) -> String { percentEncoded(text, keeping: "-._~") }

  /// `text`'s UTF-8 with every byte but ASCII letters, digits and those in `kept` as `%XX`.
  private static func percentEncoded(_ text: String, keeping kept: String) -> String {
    var encoded = ""
    for byte in text.utf8 {
      if (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        || kept.utf8.contains(byte)
      {
        encoded.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      }
    }
    return encoded
  }

  static func thumbnailURL(_ image: StoredImage) -> String { thumbnailAddress(image.thumbnail) }

  /// The address of the thumbnail stored at `path`: its file name under `/thumbnails/`.
  private static func thumbnailAddress(_ path: String) -> String {
    // On the UTF-8 bytes: a String's own lastIndex walks back by grapheme, fifty times a page.
    let bytes = path.utf8
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "/thumbnails/" + path }
    return "/thumbnails/" + String(Substring(bytes[bytes.index(after: slash)...]))
  }

  /// The 2× thumbnail's address, when it is larger than the 1× one (a picture no larger than
  /// the thumbnail has nothing sharper to give); else `nil`.
  static func highDensityThumbnailURL(_ image: StoredImage) -> String? {
    guard image.highDensityThumbnailWidth > image.thumbnailWidth else { return nil }
    return thumbnailAddress(image.highDensityThumbnail)
  }

  static func displayURL(_ image: StoredImage) -> String {
    "/display/\(image.sha256)-\(Library.displaySpec.name)"
  }

  /// The 2× display rendition's address, when the original is larger than the 1× one; else `nil`.
  static func highDensityDisplayURL(_ image: StoredImage) -> String? {
    let size = displaySize(image)
    guard size.width < image.width || size.height < image.height else { return nil }
    return displayURL(image) + LibraryLayout.highDensityMark
  }

  /// The display rendition's size: the upright size fitted to the display spec, never enlarged.
  static func displaySize(_ image: StoredImage) -> (width: Int, height: Int) {
    Library.displaySpec.size(forUprightWidth: image.width, height: image.height)
  }
}

extension String {
  /// The text with zeros before it up to `width` characters.
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: "0", count: max(0, width - count)) + self
  }
}
