import Foundation

extension Library {
  /// Repairs the record store itself, before anything a check found through it is acted on: a
  /// copy of what is damaged goes to `lost+found/<time>/` first, then the store repairs itself
  /// (see ``RecordStore/repairDamage(copyingTo:shownAs:)``). What was done, as repair actions;
  /// nothing when the store is whole.
  ///
  /// Stop `catalogue serve` first: a server would see the rebuilt database at its next request,
  /// but a write it makes while the rebuild reads is not in it.
  func repairDatabase(dryRun: Bool, now: Date) throws(CatalogueError) -> [String] {
    let damage = records.damage(quick: false)
    guard !damage.isWhole else { return [] }
    if dryRun {
      return [
        "would keep a copy of the damaged database in \(LibraryLayout.lostAndFound)/, then rebuild its indexes, "
          + "or the whole database from what still reads"
      ]
    }
    let folder = "\(LibraryLayout.lostAndFound)/\(DateText.fileStamp(now))"
    do {
      _ = try FileSystem.makeFolder(files.location(of: LibraryLayout.lostAndFound))
      _ = try FileSystem.makeFolder(files.location(of: folder))
    } catch {
      throw .io(operation: .createFolder, path: files.location(of: folder), code: error.rawValue)
    }
    try requireWritable()
    return try records.repairDamage(copyingTo: files.location(of: folder), shownAs: folder)
  }
}
