import Foundation
import Testing
import TestSupport

/// The README's examples are true: each `$ catalogue …` line of its console blocks, run on
/// the sample library, prints what the README shows, and its JSON example is a real review.
@Suite("The README's examples come from the sample library")
struct ReadmeTests {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The console blocks: each command after `$ ` with the lines the README shows for it.
  static func examples() throws -> [(command: String, shown: [String])] {
    let text = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    var examples: [(String, [String])] = []
    var inConsole = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      if line.hasPrefix("```") {
        inConsole = line == "```console"
        continue
      }
      guard inConsole else { continue }
      if line.hasPrefix("$ ") {
        examples.append((String(line.dropFirst(2)), []))
      } else if !examples.isEmpty {
        examples[examples.count - 1].1.append(line)
      }
    }
    return examples
  }

  /// Whether `shown` appears in `actual` in order: each line whole, or up to its "…" when the
  /// README shortens it, with blank lines and the lines the README leaves out between.
  static func appears(_ shown: [String], in actual: [String]) -> Bool {
    var index = 0
    for line in shown where !line.isEmpty {
      let wanted = line.hasSuffix("…") ? String(line.dropLast().trimmingCharacters(in: .whitespaces)) : line
      while index < actual.count && !(line.hasSuffix("…") ? actual[index].hasPrefix(wanted) : actual[index] == wanted) {
        index += 1
      }
      guard index < actual.count else { return false }
      index += 1
    }
    return true
  }

  @Test func consoleExamplesPrintWhatTheyShow() throws {
    let cli = CLI()
    // A copy, so that the examples that write (repairs, exports) leave the sample alone.
    let library = cli.folder.file("Library")
    try FileManager.default.copyItem(atPath: Self.root.appendingPathComponent("Library").path, toPath: library)
    let shared = cli.folder.file("Shared")
    var ran = 0
    for (command, shown) in try Self.examples() {
      var words = command.components(separatedBy: "#")[0].split(separator: " ").map(String.init)
      guard words.first == "catalogue" else { continue }
      words.removeFirst()
      // Quoted words ("time travel") are one argument.
      var arguments: [String] = []
      var quoted: String?
      for word in words {
        if let open = quoted {
          let joined = open + " " + word
          if word.hasSuffix("\"") {
            arguments.append(String(joined.dropFirst().dropLast())); quoted = nil
          } else {
            quoted = joined
          }
        } else if word.hasPrefix("\"") && !word.hasSuffix("\"") {
          quoted = word
        } else {
          arguments.append(word.replacingOccurrences(of: "~/Shared", with: shared))
        }
      }
      if arguments.first == "--library" { continue }  // examples on another library
      let result = try cli.run(["--library", library] + arguments)
      let expected = shown.map { $0.replacingOccurrences(of: "/home/me/Shared", with: shared) }
      let actual = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      #expect(Self.appears(expected, in: actual), "\(command) printed:\n\(result.output)\(result.error)")
      ran += 1
    }
    #expect(ran >= 6)
  }

  @Test func theJSONExampleIsASampleReview() throws {
    let text = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
    let start = try #require(text.range(of: "```json\n"))
    let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
    let example = String(text[start.upperBound..<end.lowerBound])
    let id = try #require(example.firstMatch(of: /"id" : "([0-9a-f]{16})"/)).1
    let cli = CLI()
    let result = try cli.run([
      "--library", Self.root.appendingPathComponent("Library").path, "show", String(id), "--json",
    ])
    #expect(result.status == 0, "\(result.error)")
    // Every line of the example that the README does not shorten is a line of the real record.
    let actual = Set(result.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
    for line in example.split(separator: "\n") where !line.contains("…") {
      #expect(actual.contains(line.trimmingCharacters(in: .whitespaces)), "\(line)")
    }
  }
}
