/// A file a command writes where its user asks (`card -o`, `export --format … --to`): whole or
/// not at all, an existing file replaced at once, never a folder or a device.
public enum OutputFile {
  /// Writes `bytes` to `path` durably, by rename; `what` names it in messages ("the card").
  public static func write(_ bytes: [UInt8], to path: String, what: String) throws(CatalogueError) {
    let slash = path.lastIndex(of: "/")
    let folder = slash.map { String(path[..<$0]) } ?? "."
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    let parent = folder.isEmpty ? "/" : folder
    guard FileStatus.at(parent)?.kind == .folder else {
      throw .invalidArgument(
        "cannot write \(what) to \(Shown.path(path)): there is no folder \(Shown.path(parent)); make it first, or name another"
      )
    }
    if let kind = FileStatus.at(path)?.kind, kind != .regular {
      throw .invalidArgument(
        "cannot write \(what) to \(Shown.path(path)): it is \(kind.described), not a file; name a file")
    }
    try DurableWrite.write(
      bytes, to: path, temporary: "\(parent)/\(LibraryLayout.temporaryPrefix)\(randomHex(8))-\(name)")
  }
}
