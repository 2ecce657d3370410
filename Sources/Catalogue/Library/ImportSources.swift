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
    var visited: Set<FileIdentity> = []
    for path in paths {
      // A path that cannot be looked at is imported, to be reported with the same words as
      // any unreadable file.
      if let status = FileStatus.at(path), status.kind == .folder {
        try walk(path, identity: status.identity, visited: &visited, into: &result)
      } else {
        result.files.append(path)
      }
    }
    return result
  }

  /// The entry of `files` that is the file `path` names, however it is spelt (relative, with
  /// `./`, absolute, through a link): the same device and inode. `nil` when `path` names no
  /// file, or a file that is not among those to import.
  public func file(naming path: String) -> String? {
    guard let wanted = FileStatus.at(path), wanted.kind == .regular else { return nil }
    if let same = files.first(where: { $0 == path }) { return same }
    return files.first { FileStatus.at($0)?.identity == wanted.identity }
  }

  private static func walk(
    _ folder: String, identity: FileIdentity, visited: inout Set<FileIdentity>, into result: inout ImportSources
  ) throws(CatalogueError) {
    guard visited.insert(identity).inserted else {
      result.skipped.append(Skipped(path: folder, reason: "a folder already walked (a link leads back to it)"))
      return
    }
    let names: [String]
    do {
      names = try FileSystem.names(in: folder).filter { !$0.hasPrefix(".") }
    } catch {
      throw .io(operation: .list, path: folder, code: error.rawValue)
    }
    for name in names {
      let path = folder.hasSuffix("/") ? folder + name : "\(folder)/\(name)"
      let status: FileStatus
      do {
        status = try FileStatus.of(path)
      } catch {
        let isLink = FileStatus.at(path, followingLinks: false)?.kind == .symbolicLink
        let reason =
          error == .tooManySymbolicLinks
          ? "a symbolic link loop"
          : isLink && error == .noEntry ? "a broken symbolic link" : "cannot be read: \(error)"
        result.skipped.append(Skipped(path: path, reason: reason))
        continue
      }
      switch status.kind {
      case .folder:
        do {
          try FileSystem.checkCanEnter(path)
        } catch {
          result.skipped.append(Skipped(path: path, reason: "a folder that cannot be read: \(error)"))
          continue
        }
        try walk(path, identity: status.identity, visited: &visited, into: &result)
      case .regular:
        if looksLikePicture(path) {
          result.files.append(path)
        } else {
          result.skipped.append(Skipped(path: path, reason: "not a picture"))
        }
      case .fifo:
        result.skipped.append(Skipped(path: path, reason: "a FIFO (named pipe), not a file"))
      case .socket:
        result.skipped.append(Skipped(path: path, reason: "a socket, not a file"))
      default:
        result.skipped.append(Skipped(path: path, reason: "a device, not a file"))
      }
    }
  }

  /// Whether the file starts like an image of any known format (supported or not: an
  /// unsupported one is imported to be refused by name, not skipped in silence).
  static func looksLikePicture(_ path: String) -> Bool {
    let head: [UInt8]
    do {
      let descriptor = try FileDescriptor.open(path, .readOnly, options: .nonBlocking)
      defer { descriptor.close() }
      head = try descriptor.read(upTo: 32)
    } catch {
      return true  // the import will say why it cannot be read
    }
    guard !head.isEmpty else { return false }
    return head.withUnsafeBytes { Sniffer.format(of: $0) } != nil
  }
}
