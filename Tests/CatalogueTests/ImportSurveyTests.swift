import Catalogue
import Foundation
import Testing
import TestSupport

/// `ImportSource.survey`: a service's CSV export read as an import reads it, with nothing
/// written, for a script's check of a file and for the fuzzer.
@Suite("Surveying an export")
struct ImportSurveyTests {
  static func bytes(_ name: String) throws -> [UInt8] {
    try Fixture.bytes(Fixture.root.appendingPathComponent("imports/\(name)").path)
  }

  @Test func eachServiceCountsWhatAnImportWould() throws {
    for (source, file, entries, skipped) in [
      (ImportSource.goodreads, "goodreads.csv", 5, 2), (.imdb, "imdb.csv", 9, 0), (.storygraph, "storygraph.csv", 3, 3),
      (.letterboxd, "letterboxd/reviews.csv", 8, 0),
    ] {
      let survey = try source.survey(csv: Self.bytes(file), file: file).get()
      #expect(survey.entries == entries && survey.skipped == skipped && survey.malformed == 0, "\(file): \(survey)")
    }
  }

  @Test func whatCannotBeReadSaysWhy() throws {
    let notText = ImportSource.goodreads.survey(csv: try Self.bytes("hostile/not-utf8.csv"), file: "not-utf8.csv")
    guard case .failure(let error) = notText else {
      Issue.record("a file that is not UTF-8 was read")
      return
    }
    #expect(error.description.contains("not UTF-8"))
    let wrong = ImportSource.imdb.survey(csv: try Self.bytes("goodreads.csv"), file: "goodreads.csv")
    guard case .failure(let other) = wrong else {
      Issue.record("Goodreads' file was read as IMDb's")
      return
    }
    #expect(other.description.contains("has no column Const"))
    // A Letterboxd file with a row short of fields: the other rows read, that one is counted.
    let short = try ImportSource.letterboxd.survey(csv: Self.bytes("hostile/short-row.csv"), file: "short-row.csv")
      .get()
    #expect(short.entries >= 1 && short.malformed == 1, "\(short)")
  }

  /// A rating far past any scale (the fuzzer's find, Fixtures/fuzz/imports/huge-rating.csv:
  /// 1.1e35 stars) is five stars, not a trap converting it to an integer.
  @Test func aRatingPastAnyScaleIsFiveStars() throws {
    let bytes = try Fixture.bytes(Fixture.root.appendingPathComponent("fuzz/imports/huge-rating.csv").path)
    let survey = try ImportSource.letterboxd.survey(csv: bytes, file: "huge-rating.csv").get()
    #expect(survey.entries > 0)
    let cli = TemporaryFolder()
    let library = try Library.create(at: cli.file("Library"))
    let export = cli.file("export")
    try FileManager.default.createDirectory(atPath: export, withIntermediateDirectories: true)
    try Data(bytes).write(to: URL(fileURLWithPath: export + "/reviews.csv"))
    var options = ImportOptions()
    options.skipMalformed = true
    let report = try library.importHistory(.letterboxd, from: export, options: options)
    let added = try report.added.compactMap(\.review).map { try library.review($0) }
    let huge = try #require(added.first { $0.sources.first?.rating == "111111111111111111111111111111111115/5" })
    #expect(huge.rating == 5)
  }
}
