import Foundation
import Synchronization
import Testing
import TestSupport

/// Maintenance commands run beside each other and beside imports, as two terminals (or a cron
/// job and a user) run them: every thumbnail ends present and of the library's spec, and
/// `check` reports only what is really wrong.
@Suite("Two maintenance commands at once")
struct ConcurrentMaintenanceTests {
  /// Distinct pictures among the fixtures, JPEG and PNG.
  static let pictures: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: Fixture.image(""))) ?? []
    var seen: Set<Data> = []
    return names.filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted().map { Fixture.image($0) }
      .filter { seen.insert((try? Data(contentsOf: URL(fileURLWithPath: $0))) ?? Data()).inserted }
  }()

  /// Runs each command line at once, each in its own process; their results in order.
  func together(_ cli: CLI, _ commands: [[String]]) -> [CLI.Result?] {
    let results = Mutex<[Int: CLI.Result]>([:])
    DispatchQueue.concurrentPerform(iterations: commands.count) { index in
      let result = try? cli(commands[index])
      results.withLock { $0[index] = result }
    }
    return results.withLock { all in commands.indices.map { all[$0] } }
  }

  func checkHealthy(_ cli: CLI, _ round: Int) throws {
    let checked = try cli("check", "--json")
    let report = try cli.json(checked)
    #expect(checked.status == 0, "round \(round): \(checked.output)")
    #expect(report["healthy"] as? Bool == true, "round \(round): \(checked.output)")
  }

  @Test func rebuildsOfTwoSizesBesideAnImportLeaveEveryThumbnail() throws {
    let cli = CLI()
    let first = try cli.withReview("First")
    let second = try cli.withReview("Second")
    let pictures = Self.pictures
    try #require(pictures.count >= 40)
    #expect(try cli(["attach", first] + pictures.prefix(20)).status == 0)
    for round in 0..<3 {
      let batch = Array(pictures.dropFirst(20 + round * 6).prefix(6))
      let sizes = [["--size", "\(96 + round * 8)"], ["--size", "\(150 + round * 8)", "--square"]]
      let results = together(
        cli,
        [
          ["thumbnails", "--rebuild"] + sizes[0], ["thumbnails", "--rebuild"] + sizes[1],
          ["attach", second] + batch,
        ])
      for (index, result) in results.enumerated() {
        #expect(result?.status == 0, "round \(round), command \(index): \(result?.error ?? "did not run")")
      }
      try checkHealthy(cli, round)
    }
  }

  @Test func aRepairBesideARebuildLeavesEveryThumbnail() throws {
    let cli = CLI()
    let id = try cli.withReview()
    #expect(try cli(["attach", id] + Self.pictures.prefix(24)).status == 0)
    for round in 0..<3 {
      // Thumbnails gone, for the repair to make again while the rebuild makes them anew.
      let thumbnails = cli.library + "/thumbnails"
      for folder in try FileManager.default.contentsOfDirectory(atPath: thumbnails).prefix(6) {
        try FileManager.default.removeItem(atPath: thumbnails + "/" + folder)
      }
      let results = together(
        cli, [["thumbnails", "--rebuild", "--size", "\(100 + round * 10)"], ["check", "--repair"]])
      #expect(results[0]?.status == 0, "round \(round): \(results[0]?.error ?? "did not run")")
      #expect(results[1] != nil)
      try checkHealthy(cli, round)
    }
  }

  @Test func aCheckBesideAnImportReportsNoWorkInProgress() throws {
    let cli = CLI()
    let id = try cli.withReview()
    #expect(try cli(["attach", id] + Self.pictures.prefix(4)).status == 0)
    let other = try cli.withReview("Other")
    for round in 0..<4 {
      let batch = Array(Self.pictures.dropFirst(4 + round * 8).prefix(8))
      let results = together(cli, [["attach", other] + batch, ["check", "--json"], ["check", "--quick", "--json"]])
      #expect(results[0]?.status == 0, "round \(round): \(results[0]?.error ?? "did not run")")
      for result in results.dropFirst() {
        let output = result?.output ?? ""
        #expect(result?.status == 0, "round \(round): a check beside an import found: \(output)")
      }
    }
  }
}
