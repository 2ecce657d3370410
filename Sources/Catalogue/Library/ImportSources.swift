import Glibc
import ImagePipeline

/// What a list of files and folders named for an import comes to.
public struct ImportSources: Sendable, Equatable {
  /// The files to import, in order: named files as given, each folder's pictures in name order.
  public var files: [String]
  /// Files inside folders that are not pictures at all (notes, sidecars), passed over.
  public var skipped: [String]

  /// Expands `paths`: a file stands for itself (whatever it holds: the import says what is
  /// wrong with it); a folder, like a photo library, for every file below it that is a
  /// picture of a known format, recursively, in name order. Hidden files and folders are
  /// passed over silently; other files that are not pictures are listed in `skipped`.
  public static func expand(_ paths: [String]) throws(CatalogueError) -> ImportSources {
    var result = ImportSources(files: [], skipped: [])
    for path in paths {
      var status = stat()
      guard stat(path, &status) == 0 else {
        // Let the import report it, with the same words as any unreadable file.
        result.files.append(path)
        continue
      }
      if (status.st_mode & S_IFMT) == S_IFDIR {
        try walk(path, into: &result)
      } else {
        result.files.append(path)
      }
    }
    return result
  }

  private static func walk(_ folder: String, into result: inout ImportSources) throws(CatalogueError) {
    guard let directory = opendir(folder) else { throw .io(operation: "list", path: folder, code: errno) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if !name.hasPrefix(".") { names.append(name) }
    }
    closedir(directory)
    for name in names.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
      let path = folder.hasSuffix("/") ? folder + name : "\(folder)/\(name)"
      var status = stat()
      guard stat(path, &status) == 0 else { continue }
      switch status.st_mode & S_IFMT {
      case S_IFDIR:
        try walk(path, into: &result)
      case S_IFREG:
        if looksLikePicture(path) { result.files.append(path) } else { result.skipped.append(path) }
      default:
        result.skipped.append(path)
      }
    }
  }

  /// Whether the file starts like an image of any known format (supported or not: an
  /// unsupported one is imported to be refused by name, not skipped in silence).
  static func looksLikePicture(_ path: String) -> Bool {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return true }  // the import will say why it cannot be read
    defer { close(descriptor) }
    var head = [UInt8](repeating: 0, count: 32)
    let count = head.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, 32) }
    guard count > 0 else { return false }
    return head.withUnsafeBytes { Sniffer.format(of: UnsafeRawBufferPointer(rebasing: $0[0..<count])) } != nil
  }
}
