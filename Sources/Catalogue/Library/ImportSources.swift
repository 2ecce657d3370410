import Glibc
import ImagePipeline

/// What a list of files and folders named for an import comes to.
public struct ImportSources: Sendable, Equatable {
  /// An entry of a folder that is not imported, and why.
  public struct Skipped: Sendable, Equatable {
    public var path: String
    public var reason: String
  }

  /// The files to import, in order: named files as given, each folder's pictures in name order.
  public var files: [String]
  /// Entries inside folders that are not imported (notes, sidecars, link loops, FIFOs), each
  /// with its reason.
  public var skipped: [Skipped]

  /// Expands `paths`: a file stands for itself (whatever it holds: the import says what is
  /// wrong with it); a folder, like a photo library, for every file below it that is a
  /// picture of a known format, recursively, in name order. Hidden files and folders are
  /// passed over silently; every other entry that is not imported is listed in `skipped` with
  /// its reason. A folder reached twice through links is walked once.
  public static func expand(_ paths: [String]) throws(CatalogueError) -> ImportSources {
    var result = ImportSources(files: [], skipped: [])
    var visited: Set<FolderIdentity> = []
    for path in paths {
      var status = stat()
      guard stat(path, &status) == 0 else {
        // Let the import report it, with the same words as any unreadable file.
        result.files.append(path)
        continue
      }
      if (status.st_mode & S_IFMT) == S_IFDIR {
        try walk(path, identity: FolderIdentity(status), visited: &visited, into: &result)
      } else {
        result.files.append(path)
      }
    }
    return result
  }

  /// A folder as the kernel knows it, so that a link back to it is recognised.
  private struct FolderIdentity: Hashable {
    var device: UInt
    var inode: UInt
    init(_ status: stat) {
      device = UInt(status.st_dev)
      inode = UInt(status.st_ino)
    }
  }

  private static func walk(
    _ folder: String, identity: FolderIdentity, visited: inout Set<FolderIdentity>, into result: inout ImportSources
  ) throws(CatalogueError) {
    guard visited.insert(identity).inserted else {
      result.skipped.append(Skipped(path: folder, reason: "a folder already walked (a link leads back to it)"))
      return
    }
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
      guard stat(path, &status) == 0 else {
        let code = errno
        var link = stat()
        let isLink = lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK
        let reason =
          code == ELOOP
          ? "a symbolic link loop"
          : isLink && code == ENOENT
            ? "a broken symbolic link"
            : "cannot be read: \(Errno.describe(code))"
        result.skipped.append(Skipped(path: path, reason: reason))
        continue
      }
      switch status.st_mode & S_IFMT {
      case S_IFDIR:
        guard access(path, R_OK | X_OK) == 0 else {
          result.skipped.append(Skipped(path: path, reason: "a folder that cannot be read: \(Errno.describe(errno))"))
          continue
        }
        try walk(path, identity: FolderIdentity(status), visited: &visited, into: &result)
      case S_IFREG:
        if looksLikePicture(path) {
          result.files.append(path)
        } else {
          result.skipped.append(Skipped(path: path, reason: "not a picture"))
        }
      case S_IFIFO:
        result.skipped.append(Skipped(path: path, reason: "a FIFO (named pipe), not a file"))
      case S_IFSOCK:
        result.skipped.append(Skipped(path: path, reason: "a socket, not a file"))
      default:
        result.skipped.append(Skipped(path: path, reason: "a device, not a file"))
      }
    }
  }

  /// Whether the file starts like an image of any known format (supported or not: an
  /// unsupported one is imported to be refused by name, not skipped in silence).
  static func looksLikePicture(_ path: String) -> Bool {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { return true }  // the import will say why it cannot be read
    defer { close(descriptor) }
    var head = [UInt8](repeating: 0, count: 32)
    let count = head.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, 32) }
    guard count > 0 else { return false }
    return head.withUnsafeBytes { Sniffer.format(of: UnsafeRawBufferPointer(rebasing: $0[0..<count])) } != nil
  }
}
