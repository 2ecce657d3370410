import Catalogue
import Foundation

/// A scratch library for this process, and the file each input is written to.
let scratch = NSTemporaryDirectory() + "/fuzz-bundle-\(ProcessInfo.processInfo.processIdentifier)"
// libFuzzer calls the harness from one thread only.
nonisolated(unsafe) let library: Library = {
  try? FileManager.default.removeItem(atPath: scratch)
  do {
    return try Library.create(at: scratch + "/library")
  } catch {
    fatalError("cannot create the scratch library: \(error)")
  }
}()

/// Feeds libFuzzer's input to `import-bundle` as a tar archive: every input must be imported
/// or refused with an error, never crash, hang or write outside the library. A review that
/// does get in is removed again, so that the next input meets the same library.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let library = library  // made on first use, with the scratch folder
  let archive = scratch + "/input.tar"
  let bytes = start.map { Data(bytes: $0, count: count) } ?? Data()
  guard FileManager.default.createFile(atPath: archive, contents: bytes) else { return 0 }
  if let report = try? library.importBundles(at: archive) {
    for imported in report.imported { _ = try? library.delete(imported.review.id) }
  }
  return 0
}
