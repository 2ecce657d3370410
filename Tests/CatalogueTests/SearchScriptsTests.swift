@testable import Catalogue
import Foundation
import Testing

/// A search finds a word however its script writes it: inside Chinese and Japanese text, which
/// has no spaces between words; in Arabic and Hebrew with or without their vowel marks; in
/// full-width Latin; and with German ß or ss.
@Suite("Searching in every script")
struct SearchScriptsTests {
  static let reviews: [(title: String, body: String)] = [
    ("北京之行", "我们在北京吃了烤鸭，然后去了故宫博物院。"),
    ("東京の夜", "昨日は東京都庁の展望台から夜景を見ました。ｶﾀｶﾅの看板も。"),
    ("فيلم", "شَاهَدْتُ الفِيلْمَ فِي السِّينَمَا مَعَ أَصْدِقَائِي"),
    ("كتاب", "الكتاب جميل جدا وقصته أخرى"),
    ("ספר", "הַסֵּפֶר הַזֶּה נֶהְדָּר"),
    ("מוזיקה", "המוזיקה יפה מאוד"),
    ("Ｆｕｌｌ ｗｉｄｔｈ", "ＮＩＮＴＥＮＤＯ Ｓｗｉｔｃｈ ２ review"),
    ("Mario", "Super Mario Odyssey"),
    ("Berlin", "Die Straße war voll, eine große Überraschung."),
    ("Fussball", "Das Fussballspiel war lang."),
  ]

  static func library() throws -> TestLibrary {
    let test = try TestLibrary()
    for (index, review) in reviews.enumerated() {
      try test.library.create(
        draft(review.title, body: review.body), now: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60))
    }
    return test
  }

  /// The titles a search finds, in order.
  static func found(_ search: String, in library: Library) throws -> [String] {
    try library.list(ReviewQuery(search: search)).reviews.map(\.title)
  }

  @Test(arguments: [
    // A two-character word inside a sentence, and one across the title's and the body's.
    ("烤鸭", ["北京之行"]), ("北京", ["北京之行"]), ("博物院", ["北京之行"]), ("故宫博物院", ["北京之行"]),
    // A single character is a word too.
    ("鸭", ["北京之行"]),
    // Two words anywhere, and a phrase.
    ("北京 烤鸭", ["北京之行"]), ("\"北京吃了\"", ["北京之行"]),
    // Not there in that order.
    ("鸭烤", []), ("\"烤鸭北京\"", []),
  ])
  func aChineseWordIsFoundInsideASentence(search: String, titles: [String]) throws {
    let test = try Self.library()
    #expect(try Self.found(search, in: test.library) == titles, "\(search)")
  }

  @Test(arguments: [
    ("都庁", ["東京の夜"]), ("展望台", ["東京の夜"]), ("夜景", ["東京の夜"]), ("見ました", ["東京の夜"]),
    // Half-width katakana in the text is the same word as the full-width one.
    ("カタカナ", ["東京の夜"]), ("ｶﾀｶﾅ", ["東京の夜"]),
    // Not in the text (京都 would be: it is inside 東京都, and a word is found wherever it stands).
    ("大阪", []),
  ])
  func aJapaneseWordIsFoundInsideASentence(search: String, titles: [String]) throws {
    let test = try Self.library()
    #expect(try Self.found(search, in: test.library) == titles, "\(search)")
  }

  @Test(arguments: [
    // Written with its vowel marks, searched without, and the other way round.
    ("الفيلم", ["فيلم"]), ("السينما", ["فيلم"]), ("الفِيلْمَ", ["فيلم"]),
    ("الكتاب", ["كتاب"]), ("الكِتَابُ", ["كتاب"]), ("جَمِيلٌ", ["كتاب"]),
    // Alef with hamza, alef maksura: as the usual Arabic search normalisation writes them.
    ("اصدقائي", ["فيلم"]), ("اخري", ["كتاب"]),
    ("הספר", ["ספר"]), ("נהדר", ["ספר"]), ("הַסֵּפֶר", ["ספר"]),
    ("המוזיקה", ["מוזיקה"]), ("הַמּוּזִיקָה", ["מוזיקה"]),
  ])
  func arabicAndHebrewMatchWithAndWithoutVowelMarks(search: String, titles: [String]) throws {
    let test = try Self.library()
    #expect(try Self.found(search, in: test.library) == titles, "\(search)")
  }

  @Test(arguments: [
    ("nintendo switch 2", ["Ｆｕｌｌ ｗｉｄｔｈ"]), ("full width", ["Ｆｕｌｌ ｗｉｄｔｈ"]), ("ＦＵＬＬ", ["Ｆｕｌｌ ｗｉｄｔｈ"]),
    ("ｓｕｐｅｒ ｍａｒｉｏ", ["Mario"]), ("\"ｓｕｐｅｒ ｍａｒｉｏ\"", ["Mario"]), ("ｏｄｙ*", ["Mario"]),
  ])
  func fullWidthLatinMatchesASCII(search: String, titles: [String]) throws {
    let test = try Self.library()
    #expect(try Self.found(search, in: test.library) == titles, "\(search)")
  }

  @Test(arguments: [
    ("strasse", ["Berlin"]), ("Straße", ["Berlin"]), ("STRASSE", ["Berlin"]), ("grosse", ["Berlin"]),
    ("Fußball", ["Fussball"]), ("fußballspiel", ["Fussball"]), ("fußb*", ["Fussball"]),
  ])
  func germanSharpSMatchesSS(search: String, titles: [String]) throws {
    let test = try Self.library()
    #expect(try Self.found(search, in: test.library) == titles, "\(search)")
  }

  /// A Chinese word counts toward the limits as the pairs it is looked for as; a single
  /// character needs no three before a `*`.
  @Test func theLimitsStillHoldInEveryScript() throws {
    let test = try Self.library()
    #expect(try Self.found("北*", in: test.library) == ["北京之行"])
    #expect(
      throws: CatalogueError.invalidQuery(
        "a search of 33 words is too many: at most 32 are looked for; leave some out")
    ) {
      try test.library.list(ReviewQuery(search: String(repeating: "北京", count: 17)))
    }
    #expect(
      throws: CatalogueError.invalidQuery(
        "search term \"ｓｕ*\" is too short a prefix: give at least 3 letters or digits before the *")
    ) {
      try test.library.list(ReviewQuery(search: "ｓｕ*"))
    }
  }

  /// An edit and a delete keep the index in step, in every script.
  @Test func searchFollowsEditsInEveryScript() throws {
    let test = try Self.library()
    let beijing = try #require(try test.library.list(ReviewQuery(search: "烤鸭")).reviews.first)
    try test.library.update(beijing.id, changes: ReviewChanges(body: "上海的小笼包很好吃。"))
    #expect(try Self.found("烤鸭", in: test.library) == [])
    #expect(try Self.found("小笼包", in: test.library) == ["北京之行"])
    try test.library.delete(beijing.id)
    #expect(try Self.found("小笼包", in: test.library) == [])
    #expect(try test.library.check().isHealthy)
  }
}
