public import Foundation

/// A fresh temporary folder per test, removed with everything in it afterwards.
public final class TemporaryFolder: @unchecked Sendable {
  public let path: String

  public init() {
    var template = Array("\(NSTemporaryDirectory())/catalogue-test-XXXXXX".utf8CString)
    path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// The path of `name` inside the folder.
  public func file(_ name: String) -> String { "\(path)/\(name)" }
}

/// The committed test images (see Fixtures/README.md), found from this file's path so that the
/// tests do not depend on the working directory.
public enum Fixture {
  public static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

  /// The path of a well-formed picture.
  public static func image(_ name: String) -> String { root.appendingPathComponent("images/\(name)").path }
  /// The path of a deliberately broken file.
  public static func hostile(_ name: String) -> String { root.appendingPathComponent("hostile/\(name)").path }
  /// The bytes of the file at `path`.
  public static func bytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  }
}

/// Every file below `folder` with its bytes, by path relative to it: what a refused command or
/// request must leave exactly as it was.
public func fileSnapshot(_ folder: String) throws -> [String: Data] {
  var result: [String: Data] = [:]
  let enumerator = FileManager.default.enumerator(atPath: folder)
  while let relative = enumerator?.nextObject() as? String {
    var isFolder: ObjCBool = false
    let full = "\(folder)/\(relative)"
    _ = FileManager.default.fileExists(atPath: full, isDirectory: &isFolder)
    if isFolder.boolValue { continue }
    result[relative] = try Data(contentsOf: URL(fileURLWithPath: full))
  }
  return result
}

/// Bytes that no encoder can shrink much, the same in every run: the pixels of a picture whose
/// file must be large (a PNG of them is about as large as they are).
public func noiseBytes(count: Int) -> [UInt8] {
  var state: UInt64 = 0x9E37_79B9_7F4A_7C15
  return (0..<count).map { _ in
    // xorshift64
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    return UInt8(truncatingIfNeeded: state)
  }
}
