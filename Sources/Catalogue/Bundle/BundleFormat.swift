import Foundation
public import ImagePipeline

/// Why a bundle was refused. A bundle is untrusted input: any one of these refuses it whole.
public enum BundleProblem: Error, Equatable, Sendable, CustomStringConvertible {
  /// Neither a bundle nor a folder or archive of bundles.
  case noBundle
  /// A bundle without `SHA256SUMS`.
  case noChecksums
  /// A path (in `SHA256SUMS`, `review.json` or the archive) that is absolute, has `..`, `.` or
  /// empty parts, a backslash or a control character.
  case unsafePath(String)
  /// A symbolic link (`hard` for a tar's hard link), where a bundle holds plain files only.
  case link(String, hard: Bool)
  /// Something that is neither a plain file nor a folder (a device, a FIFO, a socket).
  case notAPlainFile(String)
  /// A `SHA256SUMS` line that is not `<64 hex digits>  <path>` (lines count from 1).
  case malformedChecksums(line: Int)
  case listedTwice(String)
  /// A file `SHA256SUMS` lists that the bundle does not hold.
  case missingFile(String)
  /// A file whose SHA-256 is not the one `SHA256SUMS` gives.
  case hashMismatch(String)
  /// A file `review.json` names that `SHA256SUMS` does not list.
  case notListed(String)
  case tooLarge(String, bytes: Int, limit: Int)
  /// A folder or archive with more entries than a bundle may have.
  case tooManyEntries(limit: Int)
  /// An archive holding the same path twice.
  case duplicateEntry(String)
  /// A `review.json` of a format version this build does not read.
  case unknownFormat(Int)
  /// A `review.json` that is not a review record at all; `detail` says where.
  case malformedRecord(String)
  /// A record that does not validate; every problem is listed.
  case invalidRecord([String])
  /// A picture whose facts are not what `review.json` says.
  case imageMismatch(String, detail: String)
  /// A picture that does not decode.
  case badImage(String, ImageError)
  /// An archive libarchive cannot read; its message.
  case unreadableArchive(String)

  public var description: String {
    switch self {
    case .noBundle:
      return "not a review bundle: no review.json in it, nor in any folder in it"
    case .noChecksums:
      return "no SHA256SUMS: a bundle lists the SHA-256 of every file there"
    case .unsafePath(let path):
      return
        "unsafe path \"\(Self.shown(path))\": bundle paths are relative, without .., . or empty parts, "
        + "backslashes or control characters"
    case .link(let path, let hard):
      return
        "\(Self.shown(path)) is a \(hard ? "hard" : "symbolic") link: bundles hold plain files only"
    case .notAPlainFile(let path):
      return "\(Self.shown(path)) is not a plain file or folder: bundles hold plain files only"
    case .malformedChecksums(let line):
      return
        "SHA256SUMS line \(line) is not `<sha256>  <path>` (64 lowercase hex digits, two spaces, a path)"
    case .listedTwice(let path):
      return "SHA256SUMS lists \(Self.shown(path)) twice"
    case .missingFile(let path):
      return "\(Self.shown(path)) is listed in SHA256SUMS but missing from the bundle"
    case .hashMismatch(let path):
      return
        "\(Self.shown(path)) does not match its SHA-256 in SHA256SUMS: the bundle is damaged or was altered"
    case .notListed(let path):
      return "\(Self.shown(path)) is not listed in SHA256SUMS, so it cannot be verified"
    case .tooLarge(let path, let bytes, let limit):
      return "\(Self.shown(path)) is \(bytes) bytes, over the limit of \(limit)"
    case .tooManyEntries(let limit):
      return "more than \(limit) files and folders: too many for a bundle"
    case .duplicateEntry(let path):
      return "the archive holds \(Self.shown(path)) twice"
    case .unknownFormat(let version):
      return "review.json is format \(version), which this build cannot read (it reads formats "
        + "\(BundleFormat.versions.lowerBound) to \(BundleFormat.version)): upgrade catalogue"
    case .malformedRecord(let detail):
      return "review.json is not a review record: \(detail)"
    case .invalidRecord(let problems):
      return "review.json holds an invalid review: " + problems.joined(separator: "; ")
    case .imageMismatch(let path, let detail):
      return "\(Self.shown(path)): \(detail)"
    case .badImage(let path, let error):
      return "\(Self.shown(path)): \(error)"
    case .unreadableArchive(let message):
      return "not a readable tar archive: \(message)"
    }
  }

  /// A path from untrusted input, safe to print on one line: control characters escaped.
  static func shown(_ path: String) -> String {
    var text = ""
    for scalar in path.unicodeScalars {
      if scalar.properties.generalCategory == .control || scalar == "\u{2028}"
        || scalar == "\u{2029}"
      {
        text += "\\u{\(String(scalar.value, radix: 16))}"
      } else {
        text.unicodeScalars.append(scalar)
      }
    }
    return text
  }
}

/// The review bundle's layout and its files' formats.
///
/// ```
/// <slug>/
///   review.json                       the record (format 1, 2 or 3, below)
///   images/<sha256>.<jpg|png>          each original, byte-for-byte
///   images/<sha256>-thumbnail.<jpg|png> its thumbnail, as the exporting library made it
///   index.html                        the review as a reader sees it
///   SHA256SUMS                        `sha256sum -c` input over every other file
/// ```
///
/// `review.json` holds nothing that differs between two libraries with the same review (no
/// export time, no library path, no thumbnail facts, which depend on a library's setting), so
/// exporting an imported review again gives the same bytes.
enum BundleFormat {
  /// The newest `format` this build writes and reads. Format 2 adds each picture's `alt`,
  /// `caption` and `name`; format 3 the review's `containsSpoilers`, `draft` and `published`.
  /// A bundle is written in the oldest format that holds what it says (a published review
  /// without a spoiler warning, published when it was created, and pictures without text is
  /// format 1), which builds that predate the newer ones read.
  static let version = 3
  /// The formats this build reads.
  static let versions = 1...version

  /// The format a record is written in: the oldest that holds all it says.
  static func version(of images: [Image], containsSpoilers: Bool, draft: Bool, publishedAtCreation: Bool) -> Int {
    if containsSpoilers || draft || !publishedAtCreation { return 3 }
    return images.contains { $0.alt != nil || $0.caption != nil || $0.name != nil } ? 2 : 1
  }

  static let record = "review.json"
  static let checksums = "SHA256SUMS"
  static let page = "index.html"
  static let images = "images"

  /// The largest file a bundle may hold, and the largest `review.json`: caps on what an
  /// untrusted bundle can make the importer hold in memory.
  static let maximumFileBytes = 512 * 1024 * 1024
  static let maximumRecordBytes = 32 * 1024 * 1024
  /// The most bytes all files of one bundle (or one tar archive) may hold together.
  static let maximumTotalBytes = 4 * 1024 * 1024 * 1024
  /// The most entries a bundle folder or tar archive may have.
  static let maximumEntries = 100_000
  /// The longest path in a bundle.
  static let maximumPathBytes = 1024

  static func original(sha256: String, format: ImageFormat) -> String {
    "\(images)/\(sha256).\(format.fileExtension)"
  }

  static func thumbnail(sha256: String, format: ImageFormat) -> String {
    "\(images)/\(sha256)-thumbnail.\(format.fileExtension)"
  }

  // MARK: review.json

  /// `review.json`: the review's fields as `show --json` prints them, a `format` version, and
  /// its images in order with their original's path in the bundle.
  struct Record: Codable, Equatable {
    var format: Int
    var id: String
    var title: String
    var body: String
    var rating: Int
    var category: String
    var favorite: Bool
    /// `DateText` times.
    var created: String
    var updated: String
    var images: [Image]
    /// Format 3: the spoiler warning, whether the review is a draft, and when a published one
    /// was published (a `DateText` time). Absent in older formats: published when created.
    var containsSpoilers: Bool? = nil
    var draft: Bool? = nil
    var published: String? = nil
  }

  struct Image: Codable, Equatable {
    var sha256: String
    /// The original's format as records name it: `jpeg`, `png`, `webp`, `heic` or `avif`.
    var format: String
    /// Upright width and height, as the library records them.
    var width: Int
    var height: Int
    /// The EXIF orientation, 1–8.
    var orientation: Int
    /// The original's size.
    var bytes: Int
    var cover: Bool
    /// The original's path in the bundle.
    var original: String
    /// What the review says of the picture (``PictureText``) and the name its file had
    /// (``PictureName``): written only when there is one, and optional, so that bundles
    /// written before they were kept still read.
    var alt: String? = nil
    var caption: String? = nil
    var name: String? = nil
  }

  /// Just the version, read first, so that a newer format is named as such rather than
  /// failing on a field it changed.
  private struct Version: Decodable {
    var format: Int?
  }

  static func encode(_ record: Record) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    // Encoding strings, numbers and booleans cannot fail.
    let data = (try? encoder.encode(record)) ?? Data("{}".utf8)
    return [UInt8](data) + [UInt8(ascii: "\n")]
  }

  static func decode(_ bytes: [UInt8]) throws(BundleProblem) -> Record {
    let data = Data(bytes)
    let version: Version
    do {
      version = try JSONDecoder().decode(Version.self, from: data)
    } catch {
      throw .malformedRecord(describe(error))
    }
    guard let format = version.format else { throw .malformedRecord("it has no format version") }
    guard versions.contains(format) else { throw .unknownFormat(format) }
    let record: Record
    do {
      record = try JSONDecoder().decode(Record.self, from: data)
    } catch {
      throw .malformedRecord(describe(error))
    }
    // JSON's decoders keep the last of two equal keys and pass over keys they do not know: a
    // record edited by hand, or written by something else, would lose a field in silence.
    for object in JSONObjectKeys.objects(in: bytes) {
      var seen: Set<String> = []
      let known =
        object.path.isEmpty
        ? (format < 3 ? recordKeys12 : recordKeys)
        : object.path.hasPrefix("images[") ? (format == 1 ? imageKeys1 : imageKeys) : []
      for key in object.keys {
        let at = object.path.isEmpty ? "at the top level" : "in \(object.path)"
        guard seen.insert(key).inserted else {
          throw .malformedRecord("\(BundleProblem.shown(key)) is given twice \(at)")
        }
        guard known.contains(key) else {
          throw .malformedRecord(
            "\(BundleProblem.shown(key)) \(at) is not a field of format \(format)")
        }
      }
    }
    return record
  }

  static let recordKeys: Set<String> = recordKeys12.union(["containsSpoilers", "draft", "published"])
  /// The record's keys in formats 1 and 2.
  static let recordKeys12: Set<String> = [
    "format", "id", "title", "body", "rating", "category", "favorite", "created", "updated", "images",
  ]
  static let imageKeys: Set<String> = [
    "sha256", "format", "width", "height", "orientation", "bytes", "cover", "original", "alt", "caption", "name",
  ]
  /// A picture's keys in format 1.
  static let imageKeys1 = imageKeys.subtracting(["alt", "caption", "name"])

  /// A decoding error in a few words: which field, and what was wrong with it.
  private static func describe(_ error: any Error) -> String {
    func path(_ keys: [any CodingKey]) -> String {
      keys.isEmpty
        ? "the top level"
        : keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
          .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
    }
    switch error as? DecodingError {
    case .keyNotFound(let key, let context)?:
      return "\(BundleProblem.shown(key.stringValue)) is missing at \(path(context.codingPath))"
    case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
      return "\(path(context.codingPath)) has the wrong type"
    case .dataCorrupted(let context)?:
      return context.codingPath.isEmpty
        ? "it is not JSON" : "\(path(context.codingPath)) is not valid"
    default:
      return "it cannot be read"
    }
  }

  // MARK: SHA256SUMS

  /// `SHA256SUMS` as `sha256sum` writes it (and `sha256sum -c` reads it), in path order.
  static func checksums(_ files: [String: String]) -> [UInt8] {
    var text = ""
    for path in files.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
      text += "\(files[path]!)  \(path)\n"
    }
    return Array(text.utf8)
  }

  /// The paths and digests `SHA256SUMS` lists. Strict: every line is 64 lowercase hexadecimal
  /// digits, two spaces and a safe path; no path twice.
  static func parseChecksums(_ bytes: [UInt8]) throws(BundleProblem) -> [String: String] {
    var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }  // the last line's newline
    var result: [String: String] = [:]
    for (index, line) in lines.enumerated() {
      guard line.count > 66, line.dropFirst(64).prefix(2).elementsEqual([0x20, 0x20]),
        let digest = String(validating: line.prefix(64), as: UTF8.self), SHA256.isDigest(digest),
        let path = String(validating: line.dropFirst(66), as: UTF8.self)
      else { throw .malformedChecksums(line: index + 1) }
      guard isSafePath(path) else { throw .unsafePath(path) }
      guard result[path] == nil else { throw .listedTwice(path) }
      result[path] = digest
    }
    return result
  }

  // MARK: Paths

  /// Whether `path` is a plain relative path inside a bundle: not absolute, no `..`, `.` or
  /// empty parts, no backslash, no control character, not too long.
  static func isSafePath(_ path: String) -> Bool {
    guard !path.isEmpty, path.utf8.count <= maximumPathBytes, !path.hasPrefix("/") else {
      return false
    }
    guard
      !path.unicodeScalars.contains(where: {
        $0 == "\\" || $0.properties.generalCategory == .control || $0 == "\u{2028}"
          || $0 == "\u{2029}"
      })
    else { return false }
    return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
      !$0.isEmpty && $0 != "." && $0 != ".."
    }
  }
}

/// The keys of every object in a JSON text already parsed once (so well-formed), each object
/// named by its path (`""` for the top level, `images[0]`), keys in the order written,
/// duplicates kept.
enum JSONObjectKeys {
  struct Object {
    var path: String
    var keys: [String]
  }

  static func objects(in bytes: [UInt8]) -> [Object] {
    var objects: [Object] = []
    var index = 0
    func skipSpace() {
      while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }
    func string() -> String {
      // At the opening quote; returns the decoded text, past the closing quote.
      index += 1
      var units: [UInt16] = []
      var raw: [UInt8] = []
      func flush() {
        units += String(decoding: raw, as: UTF8.self).utf16
        raw.removeAll()
      }
      while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
        if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count {
          flush()
          let escaped = bytes[index + 1]
          index += 2
          switch escaped {
          case UInt8(ascii: "u") where index + 4 <= bytes.count:
            units.append(UInt16(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) ?? 0xFFFD)
            index += 4
          case UInt8(ascii: "n"): units.append(0x0A)
          case UInt8(ascii: "t"): units.append(0x09)
          case UInt8(ascii: "r"): units.append(0x0D)
          case UInt8(ascii: "b"): units.append(0x08)
          case UInt8(ascii: "f"): units.append(0x0C)
          default: units.append(UInt16(escaped))
          }
        } else {
          raw.append(bytes[index])
          index += 1
        }
      }
      flush()
      index += 1
      return String(decoding: units, as: UTF16.self)
    }
    func value(_ path: String) {
      skipSpace()
      guard index < bytes.count else { return }
      switch bytes[index] {
      case UInt8(ascii: "{"):
        index += 1
        var object = Object(path: path, keys: [])
        let slot = objects.count
        objects.append(object)
        while true {
          skipSpace()
          guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { break }
          let key = string()
          object.keys.append(key)
          skipSpace()
          index += 1  // the colon
          value(path.isEmpty ? key : "\(path).\(key)")
          skipSpace()
          if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index += 1 }
        }
        objects[slot] = object
        index += 1
      case UInt8(ascii: "["):
        index += 1
        var position = 0
        while true {
          skipSpace()
          guard index < bytes.count, bytes[index] != UInt8(ascii: "]") else { break }
          value("\(path)[\(position)]")
          position += 1
          skipSpace()
          if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index += 1 }
        }
        index += 1
      case UInt8(ascii: "\""):
        _ = string()
      default:
        while index < bytes.count, !",]} \t\r\n".utf8.contains(bytes[index]) { index += 1 }
      }
    }
    value("")
    return objects
  }
}
