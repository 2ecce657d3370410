import Foundation

/// Why the upload folder could not be made: one line, what to do included.
public struct UploadFolderError: Error, CustomStringConvertible, Sendable {
  public let description: String
}

/// Where uploads wait until they are imported: a new private folder (mode 0700) in the
/// temporary folder, or in the folder `--upload-folder` gives, removed when the server stops.
///
/// A server that is killed (SIGKILL, the OOM killer, a power cut) cannot remove its folder, and
/// the parts of the uploads it was receiving are in it: so each folder holds the server's
/// process id, and a server starting removes the folders of servers that are gone.
public struct UploadFolder: Sendable {
  static let prefix = "catalogue-uploads-"
  static let owner = "server.pid"

  public let path: String
  /// Folders of servers gone that were removed at the start.
  public let reclaimed: Int

  /// Makes the folder in `given` (a folder that must exist), else in the temporary folder,
  /// having first removed there the folders of servers that are gone.
  public init(given: String?) throws(UploadFolderError) {
    var parent = NSTemporaryDirectory()
    while parent.count > 1 && parent.hasSuffix("/") { parent.removeLast() }
    if let given {
      guard System.isFolder(given) else {
        throw UploadFolderError(description: "--upload-folder \(given) is not a folder: give one that exists")
      }
      parent = given
    }
    reclaimed = Self.reclaim(in: parent)
    switch System.makePrivateFolder(named: "\(parent)/\(Self.prefix)XXXXXX") {
    case .success(let made): path = made
    case .failure(let error):
      throw UploadFolderError(
        description:
          "cannot make a folder for uploads in \(parent): \(System.describe(error.code)); give --upload-folder")
    }
    let pid = Array("\(System.processID())\n".utf8)
    guard FileManager.default.createFile(atPath: "\(path)/\(Self.owner)", contents: Data(pid)) else {
      System.removeEmptyFolder(path)
      throw UploadFolderError(description: "cannot write in \(path): give --upload-folder")
    }
  }

  /// Removes the folder with what is left in it (the server stops). What cannot be removed
  /// (a file another user put there) stays, for the next server to reclaim.
  public func remove() {
    do {
      try FileManager.default.removeItem(atPath: path)
    } catch {
      return
    }
  }

  /// Removes the upload folders in `parent` whose server is gone; how many. A folder is only
  /// taken for a server's when it has the shape this code makes, belongs to this user, and
  /// names a process that no longer exists.
  static func reclaim(in parent: String) -> Int {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return 0 }
    var removed = 0
    for name in names where name.hasPrefix(prefix) && name.utf8.count == prefix.utf8.count + 6 {
      let folder = "\(parent)/\(name)"
      guard System.isOwnFolder(folder),
        let text = try? String(contentsOfFile: "\(folder)/\(owner)", encoding: .utf8),
        let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0,
        !System.processExists(pid)
      else { continue }
      if (try? FileManager.default.removeItem(atPath: folder)) != nil { removed += 1 }
    }
    return removed
  }
}
