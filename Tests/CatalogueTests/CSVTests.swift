@testable import Catalogue
import Foundation
import Testing
import TestSupport

/// The CSV reader and writer under the imports from Letterboxd, Goodreads, IMDb and StoryGraph:
/// RFC 4180, with each malformed record reported where it is and left out.
@Suite("CSV")
struct CSVTests {
  static func table(_ text: String, file: String = "test.csv") throws -> CSVTable {
    try CSVTable(bytes: Array(text.utf8), file: file)
  }

  /// Each record's fields.
  static func fields(_ table: CSVTable) -> [[String]] { table.records.map(\.fields) }

  /// `text` with each CRLF and each CR left as a line feed.
  static func lineFeeds(_ text: String) -> String {
    var bytes: [UInt8] = []
    var previous: UInt8 = 0
    for byte in text.utf8 {
      if !(byte == 0x0A && previous == 0x0D) { bytes.append(byte == 0x0D ? 0x0A : byte) }
      previous = byte
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  // MARK: Records

  @Test func readsHeaderAndRecords() throws {
    let table = try Self.table("Name,Year\nAmélie,2001\nÇa,2017\n")
    #expect(table.header == ["Name", "Year"])
    #expect(
      table.records == [
        CSVRecord(line: 2, fields: ["Amélie", "2001"], columns: [1, 8]),
        CSVRecord(line: 3, fields: ["Ça", "2017"], columns: [1, 4]),
      ])
    #expect(table.problems.isEmpty)
  }

  @Test func columnsCountCharactersNotBytes() throws {
    let table = try Self.table("a,b,c\n千と千尋,\"x\",y\n")
    #expect(table.records[0].columns == [1, 6, 10])
  }

  @Test func headerIsTrimmedAndLooksUpCaseInsensitively() throws {
    let table = try Self.table(" Date , Letterboxd URI ,Rating\n2024-01-02,https://boxd.it/abc1,4.5\n")
    #expect(table.header == ["Date", "Letterboxd URI", "Rating"])
    #expect(table.column("letterboxd uri") == 1)
    #expect(table.column("  RATING ") == 2)
    #expect(table.column("Review") == nil)
    let record = table.records[0]
    #expect(table.value("letterboxd URI", in: record) == "https://boxd.it/abc1")
    #expect(table.value("Review", in: record) == nil)
    #expect(table.value("Rating", in: CSVRecord(line: 9, fields: ["x"], columns: [1])) == nil)
  }

  @Test func fieldsAreNotTrimmed() throws {
    let table = try Self.table("a,b\n  x , y\n")
    #expect(Self.fields(table) == [["  x ", " y"]])
  }

  @Test func emptyFields() throws {
    let table = try Self.table("a,b,c\n,,\n\"\",x,\n")
    #expect(Self.fields(table) == [["", "", ""], ["", "x", ""]])
    #expect(table.records[0].columns == [1, 2, 3])
  }

  @Test func quotedFieldsHoldCommasQuotesAndLineBreaks() throws {
    let table = try Self.table(
      "Name,Review,Tags\r\n\"Amélie\",\"Sweet, \"\"whimsical\"\"\r\nand\nvery\rParis\",x\r\nNext,\"\",\"\"\"\"\r\n")
    #expect(
      table.records == [
        CSVRecord(line: 2, fields: ["Amélie", "Sweet, \"whimsical\"\nand\nvery\nParis", "x"], columns: [1, 10, 8]),
        CSVRecord(line: 6, fields: ["Next", "", "\""], columns: [1, 6, 9]),
      ])
    #expect(table.problems.isEmpty)
  }

  @Test(arguments: [("LF", "\n"), ("CRLF", "\r\n"), ("CR", "\r")])
  func lineEnds(name: String, end: String) throws {
    let text = ["a,b", "1,2", "", "3,\"x\(end)y\"", "5,6"].joined(separator: end) + end
    let table = try Self.table(text)
    #expect(table.records.map(\.line) == [2, 4, 6], "\(name)")
    #expect(Self.fields(table) == [["1", "2"], ["3", "x\ny"], ["5", "6"]], "\(name)")
  }

  @Test func lastLineWithoutLineEnd() throws {
    #expect(Self.fields(try Self.table("a,b\n1,2")) == [["1", "2"]])
    #expect(Self.fields(try Self.table("a,b\n1,\"2\"")) == [["1", "2"]])
    #expect(Self.fields(try Self.table("a,b\n1,")) == [["1", ""]])
  }

  @Test func byteOrderMarkIsRemoved() throws {
    let table = try CSVTable(bytes: [0xEF, 0xBB, 0xBF] + Array("Title,Author\r\nÇa,King\r\n".utf8), file: "b.csv")
    #expect(table.header == ["Title", "Author"])
    #expect(table.column("title") == 0)
    #expect(table.records == [CSVRecord(line: 2, fields: ["Ça", "King"], columns: [1, 4])])
  }

  @Test func blankLinesAreSkipped() throws {
    let table = try Self.table("\n\r\n  \na,b\n\n1,2\n \t\n\r\n3,4\n\n")
    #expect(table.header == ["a", "b"])
    #expect(table.records.map(\.line) == [6, 9])
    #expect(table.problems.isEmpty)
  }

  @Test func aLoneQuotedEmptyFieldIsNoBlankLine() throws {
    let table = try Self.table("a\n\"\"\n\" \"\nx\n")
    #expect(Self.fields(table) == [[""], [" "], ["x"]])
  }

  // MARK: Problems

  @Test func recordWithTooManyOrTooFewFieldsIsLeftOut() throws {
    let table = try Self.table("a,b,c\n1,2,3\n1,2\n1,2,3,4,5\n4\n7,8,9\n", file: "reviews.csv")
    #expect(table.records.map(\.line) == [2, 6])
    #expect(
      table.problems.map(\.description) == [
        "reviews.csv, line 3, column 1: has 2 fields where the header has 3",
        "reviews.csv, line 4, column 1: has 5 fields where the header has 3",
        "reviews.csv, line 5, column 1: has 1 field where the header has 3",
      ])
  }

  @Test func quoteInsideAnUnquotedField() throws {
    let table = try Self.table("a,b\n1,He said \"hi\"\n2,3\n", file: "x.csv")
    #expect(Self.fields(table) == [["2", "3"]])
    #expect(
      table.problems.map(\.description) == ["x.csv, line 2, column 11: a quote inside a field that is not quoted"])
    #expect(
      table.problems[0]
        == CSVProblem(file: "x.csv", line: 2, column: 11, message: "a quote inside a field that is not quoted"))
  }

  @Test func quoteAfterSpacesIsInsideAnUnquotedField() throws {
    let table = try Self.table("a,b\n1, \"x\"\n")
    #expect(table.records.isEmpty)
    #expect(table.problems.map(\.column) == [4])
  }

  @Test func textAfterAClosingQuote() throws {
    let table = try Self.table("a,b,c\n1,\"Amélie\" (2001),3\n4,5,6\n", file: "r.csv")
    #expect(Self.fields(table) == [["4", "5", "6"]])
    #expect(
      table.problems.map(\.description) == [
        "r.csv, line 2, column 11: text after a closing quote, before the next comma"
      ])
  }

  @Test func textAfterAClosingQuoteOnALaterLine() throws {
    // The field's line breaks count: the text is on line 3.
    let table = try Self.table("a,b\n1,\"x\ny\"z,\"q\nr\"\n2,3\n")
    #expect(table.problems.map { [$0.line, $0.column] } == [[3, 3]])
    #expect(table.records == [CSVRecord(line: 5, fields: ["2", "3"], columns: [1, 3])])
  }

  @Test func onlyTheFirstProblemOfARecordIsReported() throws {
    let table = try Self.table("a,b\nx\"y,\"p\"q\n1,2\n")
    #expect(table.problems.map(\.column) == [2])
    #expect(Self.fields(table) == [["1", "2"]])
  }

  @Test func unterminatedQuoteAtEndOfFile() throws {
    let text = "a,b,c\n1,2,3\nx,\"never closed,4\n5,6,7\n"
    let table = try Self.table(text, file: "reviews.csv")
    #expect(
      table.problems.map(\.description) == [
        "reviews.csv, line 3, column 3: a quoted field is not closed before the end of the file"
      ])
    // The lines it swallowed are read again, as the quote was most likely stray.
    #expect(table.records.map(\.line) == [2, 4])
    #expect(Self.fields(table) == [["1", "2", "3"], ["5", "6", "7"]])
  }

  @Test func unterminatedQuoteAfterAMultilineField() throws {
    let table = try Self.table("a,b\r\n\"x\r\ny\",\"z\r\n1,2\r\n")
    #expect(table.problems.map { [$0.line, $0.column] } == [[3, 4]])
    #expect(table.records == [CSVRecord(line: 4, fields: ["1", "2"], columns: [1, 3])])
  }

  @Test func unterminatedQuoteOnTheLastLine() throws {
    let table = try Self.table("a,b\n1,\"2")
    #expect(table.problems.map { [$0.line, $0.column] } == [[2, 3]])
    #expect(table.records.isEmpty)
  }

  // MARK: Files that cannot be read

  @Test(arguments: ["", "\n\n", "\r\n  \r\n", "\u{FEFF}"])
  func noHeaderLine(text: String) {
    #expect(throws: CSVProblem(file: "e.csv", line: 1, column: 1, message: "the file has no header line")) {
      try Self.table(text, file: "e.csv")
    }
  }

  @Test func malformedHeaderIsThrown() {
    #expect(
      throws: CSVProblem(
        file: "h.csv", line: 1, column: 3, message: "a quoted field is not closed before the end of the file")
    ) { try Self.table("a,\"b\n1,2\n", file: "h.csv") }
  }

  @Test func notUTF8SaysWhere() {
    // "Amélie" in Latin-1 on line 3.
    let bytes = Array("Name,Year\r\nÇa,2017\r\nAm".utf8) + [0xE9] + Array("lie,2001\r\n".utf8)
    #expect(
      throws: CSVProblem(
        file: "w.csv", line: 3, column: 3, message: "the file is not UTF-8 text (byte 0xE9); save it as UTF-8")
    ) { try CSVTable(bytes: bytes, file: "w.csv") }
  }

  @Test(
    arguments: [
      [0xC0, 0xAF],  // overlong
      [0xED, 0xA0, 0x80],  // a surrogate
      [0xF4, 0x90, 0x80, 0x80],  // past U+10FFFF
      [0xE2, 0x82],  // cut short
      [0x80],  // a lone continuation byte
      [0xFF],
    ] as [[UInt8]])
  func notUTF8Sequences(bad: [UInt8]) {
    #expect(throws: CSVProblem.self) { try CSVTable(bytes: Array("a,b\nx,".utf8) + bad, file: "u.csv") }
    #expect(throws: CSVProblem.self) { try CSVTable(bytes: Array("a,b\nx,".utf8) + bad + [0x41, 0x0A], file: "u.csv") }
  }

  @Test func everyUTF8LengthIsRead() throws {
    let table = try Self.table("a\né\n€\n😀\n\u{10FFFF}\n")
    #expect(Self.fields(table) == [["é"], ["€"], ["😀"], ["\u{10FFFF}"]])
  }

  // MARK: The committed exports (Fixtures/imports, made by make-imports.py)

  /// The committed export at `path` below `Fixtures/imports`, read under its last name.
  static func export(_ path: String) throws -> CSVTable {
    let bytes = try Fixture.bytes(Fixture.root.appendingPathComponent("imports/\(path)").path)
    return try CSVTable(bytes: bytes, file: String(path.split(separator: "/").last!))
  }

  @Test func letterboxdReviews() throws {
    let table = try Self.export("letterboxd/reviews.csv")
    #expect(
      table.header == ["Date", "Name", "Year", "Letterboxd URI", "Rating", "Rewatch", "Review", "Tags", "Watched Date"])
    #expect(table.problems.isEmpty)
    #expect(table.records.map(\.line) == [2, 3, 7, 8, 9, 11, 14, 15])
    let rewatch = table.records[4]
    #expect(table.value("Name", in: rewatch) == "Paddington 2")
    #expect(table.value("Rewatch", in: rewatch) == "Yes")
    #expect(
      table.value("Review", in: rewatch) == "Still perfect on a rewatch.\nHugh Grant, \"the\" villain of the decade.")
    #expect(table.value("Tags", in: rewatch) == "christmas, rewatch")
    #expect(table.records[2].fields[1] == "千と千尋の神隠し")
    #expect(table.records[2].columns == [1, 12, 21, 26, 47, 49, 50, 200, 201])
    #expect(table.records.map { table.value("Rating", in: $0)! } == ["5", "4.5", "5", "3", "5", "", "0.5", "4.5"])
  }

  @Test func letterboxdFolder() throws {
    // diary.csv has CRLF line ends, ratings.csv a byte order mark.
    let diary = try Self.export("letterboxd/diary.csv")
    #expect(diary.records.count == 8)
    #expect(
      diary.records.last?.fields == [
        "2024-03-10", "Mad Max: Fury Road", "2015", "https://boxd.it/abc8", "4.5", "", "", "2024-03-09",
      ])
    let ratings = try Self.export("letterboxd/ratings.csv")
    #expect(ratings.header == ["Date", "Name", "Year", "Letterboxd URI", "Rating"])
    #expect(
      ratings.records.map { ratings.value("name", in: $0)! } == [
        "Paddington 2", "Amélie", "千と千尋の神隠し", "Ça", "Cats", "Mad Max: Fury Road", "Heat",
      ])
    let watched = try Self.export("letterboxd/watched.csv")
    #expect(watched.records.map(\.fields[1]).last == "Stalker")
    #expect(watched.records.count == 8)
    for name in ["profile.csv", "watchlist.csv", "likes/films.csv"] {
      let table = try Self.export("letterboxd/\(name)")
      #expect(table.records.count == 1 && table.problems.isEmpty, "\(name)")
    }
  }

  @Test func goodreads() throws {
    let table = try Self.export("goodreads.csv")
    #expect(table.header.count == 24)
    #expect(table.header.first == "Book Id")
    #expect(table.problems.isEmpty)
    #expect(table.records.map(\.line) == [2, 3, 5, 6, 7, 8, 9])
    let (dune, miserables, santi) = (table.records[0], table.records[1], table.records[2])
    #expect(table.value("ISBN", in: dune) == "=\"0441013597\"")
    #expect(table.value("ISBN13", in: dune) == "=\"9780441013593\"")
    #expect(table.value("isbn", in: santi) == "=\"\"")
    #expect(table.value("Title", in: santi) == "三体")
    #expect(table.value("Author l-f", in: santi) == "刘, 慈欣")
    #expect(table.value("Title", in: miserables) == "Les Misérables")
    #expect(table.value("Spoiler", in: miserables) == "true")
    #expect(
      table.value("My Review", in: miserables)
        == "Long, and the Waterloo chapter is a detour.<br/><br/><spoiler>Javert's last walk to the bridge</spoiler> stayed with me for weeks.\nThe sewers &amp; the barricade: unforgettable."
    )
    #expect(table.records.map { table.value("My Rating", in: $0)! } == ["5", "4", "4", "0", "5", "0", "4"])
    #expect(table.records.map { table.value("Exclusive Shelf", in: $0)! }.filter { $0 == "to-read" }.count == 1)
  }

  @Test func imdb() throws {
    let table = try Self.export("imdb.csv")
    #expect(table.records.count == 9)
    #expect(table.problems.isEmpty)
    let spirited = table.records[2]
    #expect(table.value("Const", in: spirited) == "tt0245429")
    #expect(table.value("Original Title", in: spirited) == "千と千尋の神隠し")
    #expect(table.value("Genres", in: spirited) == "Animation, Adventure, Family, Fantasy")
    #expect(
      Set(table.records.map { table.value("Title Type", in: $0)! }) == [
        "Movie", "TV Series", "TV Mini Series", "TV Episode", "Video Game", "Short", "TV Movie",
      ])
  }

  @Test func storyGraph() throws {
    let table = try Self.export("storygraph.csv")
    #expect(table.header.count == 23)
    #expect(table.records.map(\.line) == [2, 5, 7, 8, 9, 10])
    #expect(table.records.map { table.value("Star Rating", in: $0)! } == ["4.25", "3.75", "", "", "", ""])
    #expect(table.value("Dates Read", in: table.records[0]) == "2023/01/02-2023/01/10")
    #expect(table.value("Read Status", in: table.records[3]) == "to-read")
    #expect(table.value("character- or plot-driven?", in: table.records[1]) == "Plot")
  }

  @Test func hostileExports() throws {
    let expected: [(String, [Int], [String])] = [
      (
        "unterminated-quote.csv", [2, 4],
        ["unterminated-quote.csv, line 3, column 44: a quoted field is not closed before the end of the file"]
      ),
      ("short-row.csv", [2, 4], ["short-row.csv, line 3, column 1: has 5 fields where the header has 9"]),
      ("stray-quote.csv", [2, 4], ["stray-quote.csv, line 3, column 52: a quote inside a field that is not quoted"]),
      (
        "text-after-closing-quote.csv", [2, 4],
        ["text-after-closing-quote.csv, line 3, column 16: text after a closing quote, before the next comma"]
      ),
      ("header-only.csv", [], []),
    ]
    for (name, lines, problems) in expected {
      let table = try Self.export("hostile/\(name)")
      #expect(table.header.count == 9, "\(name)")
      #expect(table.records.map(\.line) == lines, "\(name)")
      #expect(table.problems.map(\.description) == problems, "\(name)")
    }
    #expect(
      throws: CSVProblem(
        file: "not-utf8.csv", line: 2, column: 14, message: "the file is not UTF-8 text (byte 0xE9); save it as UTF-8")
    ) { try Self.export("hostile/not-utf8.csv") }
    #expect(throws: CSVProblem(file: "empty.csv", line: 1, column: 1, message: "the file has no header line")) {
      try Self.export("hostile/empty.csv")
    }
  }

  // MARK: Writing

  @Test func writerQuotesOnlyWhatNeedsIt() {
    #expect(CSVWriter.line(["a", "b c", ""]) == "a,b c,\r\n")
    #expect(
      CSVWriter.line(["1,2", "say \"hi\"", "x\ny", "x\ry", " lead", "trail "])
        == "\"1,2\",\"say \"\"hi\"\"\",\"x\ny\",\"x\ry\",\" lead\",\"trail \"\r\n")
    #expect(CSVWriter.line([""]) == "\"\"\r\n")
    #expect(CSVWriter.line(["Amélie"]) == "Amélie\r\n")
  }

  @Test func writerRoundTrip() throws {
    var generator = SplitMix(seed: 4180)
    let pieces = ["a", "é", "千", ",", "\"", "\n", "\r\n", "\r", " ", "\t", "x y", "||", "=\"0441013597\""]
    for _ in 0..<200 {
      let width = Int(generator.next() % 6) + 1
      let rows = (0..<Int(generator.next() % 5 + 1)).map { _ in
        (0..<width).map { _ in
          (0..<Int(generator.next() % 6)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
        }
      }
      let header = (0..<width).map { "h\($0)" }
      let text = ([header] + rows).map(CSVWriter.line).joined()
      let table = try Self.table(text)
      #expect(table.problems.isEmpty)
      #expect(table.header == header)
      // A CR in a field comes back as a line feed.
      let expected = rows.map { $0.map(Self.lineFeeds) }
      #expect(Self.fields(table) == expected, "\(text.debugDescription)")
    }
  }
}
