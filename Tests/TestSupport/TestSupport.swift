public import Foundation
import Glibc

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
  /// The bytes of a well-formed picture.
  public static func imageBytes(_ name: String) throws -> [UInt8] { try bytes(image(name)) }
  /// The bytes of a deliberately broken file.
  public static func hostileBytes(_ name: String) throws -> [UInt8] { try bytes(hostile(name)) }
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

/// Mounts made for a test (tmpfs, read-only binds), unmounted when it ends. Needs root, as
/// CI and this project's machines run the tests.
public final class Mounts {
  private var points: [String] = []

  public static let available: Bool = {
    guard getuid() == 0 else { return false }
    let folder = TemporaryFolder()
    let mounts = Mounts()
    defer { mounts.unmountAll() }
    return (try? mounts.tmpfs(at: folder.file("probe"), size: "1m")) != nil
  }()

  func run(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(
      fileURLWithPath: arguments[0].hasPrefix("/") ? arguments[0] : "/usr/bin/" + arguments[0])
    process.arguments = Array(arguments.dropFirst())
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw MountFailure(description: "\(arguments.joined(separator: " ")) failed")
    }
  }

  /// A tmpfs of `size` (and `inodes` at most) at `path`.
  public func tmpfs(at path: String, size: String, inodes: Int? = nil) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let options = "size=\(size)" + (inodes.map { ",nr_inodes=\($0)" } ?? "")
    try run(["/bin/mount", "-t", "tmpfs", "-o", options, "tmpfs", path])
    points.append(path)
  }

  /// `source` seen read-only at `path`.
  public func readOnlyBind(_ source: String, at path: String) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    try run(["/bin/mount", "--bind", source, path])
    points.append(path)
    try run(["/bin/mount", "-o", "remount,ro,bind", path])
  }

  /// Takes all but about `room` bytes of the disk holding `folder`, with one file of zeros
  /// in it (`filler`): what is left for the command under test.
  public func fill(_ folder: String, leaving room: Int = 0) throws {
    let path = folder + "/filler"
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    while let free = try FileManager.default.attributesOfFileSystem(forPath: folder)[.systemFreeSize] as? Int,
      free > room
    {
      do {
        try handle.write(contentsOf: Data(count: min(64 << 10, max(4096, free - room))))
      } catch {
        return  // full
      }
    }
  }

  public func unmountAll() {
    for point in points.reversed() { try? run(["/bin/umount", point]) }
    points = []
  }

  public init() {}

  deinit { unmountAll() }
}

public struct MountFailure: Error, CustomStringConvertible {
  public let description: String
}

/// The built `catalogue` executable, run as a user runs it: the one runner every test target
/// that drives the command line goes through.
public enum BuiltCatalogue {
  /// What it printed and how it ended.
  public struct Result: Sendable {
    public let status: Int32
    public let output: String
    public let error: String
  }

  /// The executable beside the test bundle (both are products of the same build).
  public static let path: String = {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for folder in [here, here.deletingLastPathComponent()] {
      let candidate = folder.appendingPathComponent("catalogue").path
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent(".build/debug/catalogue").path
  }()

  /// Runs `executable` (the built `catalogue` unless told) with `arguments` in `directory`,
  /// `input` on standard input, the environment without `CATALOGUE_LIBRARY` plus `environment`.
  /// Output goes to files read after the exit: nothing can block the child, and several
  /// commands may run at once.
  public static func run(
    _ arguments: [String], input: String? = nil, environment: [String: String] = [:], directory: String,
    executable: String = path
  ) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var env = ProcessInfo.processInfo.environment
    env.removeValue(forKey: "CATALOGUE_LIBRARY")
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let outputs = TemporaryFolder()
    let outputPath = outputs.file("out")
    let errorPath = outputs.file("err")
    _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
    let error = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    defer {
      try? output.close()
      try? error.close()
    }
    let standardInput = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = standardInput
    try process.run()
    if let input { standardInput.fileHandleForWriting.write(Data(input.utf8)) }
    try standardInput.fileHandleForWriting.close()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus,
      output: String(decoding: try Data(contentsOf: URL(fileURLWithPath: outputPath)), as: UTF8.self),
      error: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errorPath)), as: UTF8.self))
  }
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
