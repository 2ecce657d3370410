import Foundation

/// What the full-text index sees of a text, and what a search looks for: the same words,
/// normalised the same way, so that a search matches however the text was typed.
///
/// SQLite's `unicode61` tokenizer folds case and Latin accents but takes every letter for
/// itself: full-width `ＡＢＣ` is not `abc`, `ß` is not `ss`, Arabic and Hebrew vowel marks split
/// a word into letters, and a run of Chinese or Japanese (written without spaces) is one word,
/// in which no word can be found. So the index is not given the text but its words as this type
/// normalises them, one space between them:
///
/// 1. NFKC: compatibility forms become their plain letters (`ＡＢＣ` → `ABC`, `ﬁ` → `fi`,
///    half-width katakana → katakana);
/// 2. `ß` and `ẞ` → `ss`; Arabic and Hebrew vowel and cantillation marks (harakat, niqqud) and
///    the Arabic tatweel are dropped, and the usual Arabic search normalisation is made (alef
///    with hamza or madda → alef, alef maksura → yeh, teh marbuta → heh); invisible format
///    characters (soft hyphen, zero-width joiners, direction marks) and variation selectors
///    are dropped, so that they split no word;
/// 3. a word is a run of letters, digits and marks (`unicode61`'s `categories 'L* N* Co M*'`,
///    so that a Devanagari vowel sign no longer splits a word either), and a run of Chinese,
///    Japanese or Korean characters is a segment of its own;
/// 4. such a segment is indexed as its overlapping pairs of characters (`東京都` → `東京 京都`),
///    and its last character alone (`都`): a word of two characters is then one pair, and a
///    longer one the phrase of its pairs, wherever it stands in unsegmented text; a single
///    character is the prefix of the pair it starts, or the last character.
///
/// Case and Latin accents are left to `unicode61` (`remove_diacritics 2`), on both sides.
///
/// Any change to what this type produces changes the index: it needs a schema migration that
/// rebuilds it (an index built with other rules would not find its own words; `check` reports
/// it as out of step).
enum SearchText {
  /// A run of letters, digits and marks that SQLite indexes whole, or a run of Chinese,
  /// Japanese or Korean characters, which it is given in pairs.
  struct Segment: Equatable {
    var text: String
    var cjk: Bool
  }

  /// `text` as the index is given it: its words, normalised, one space between them.
  static func indexed(_ text: String) -> String {
    if let words = asciiWords(text) { return words.joined(separator: " ") }
    return indexTokens(segments(of: text)).joined(separator: " ")
  }

  /// How many words the index keeps for `texts`: the length that relevance is measured
  /// against (`bm25`'s document length).
  static func wordCount(_ texts: String...) -> Int {
    texts.reduce(0) { count, text in
      segments(of: text).reduce(count) { $0 + ($1.cjk ? $1.text.unicodeScalars.count : 1) }
    }
  }

  /// The words the index keeps for `segments`.
  static func indexTokens(_ segments: [Segment]) -> [String] {
    var tokens: [String] = []
    for segment in segments {
      guard segment.cjk else {
        tokens.append(segment.text)
        continue
      }
      let characters = Array(segment.text.unicodeScalars)
      for index in characters.indices.dropLast() {
        tokens.append(String(String.UnicodeScalarView(characters[index...index + 1])))
      }
      tokens.append(String(characters[characters.count - 1]))
    }
    return tokens
  }

  /// The words a search looks for in `segments` (a word or a phrase as typed), in order, as the
  /// index keeps them. A Chinese, Japanese or Korean segment is its pairs, and its last
  /// character alone when more of the search follows it (the text must end a segment there
  /// too); a single such character at the end of the search is looked for as a prefix
  /// (`lastIsPrefix`): the first of a pair, or a last character.
  static func searchTokens(_ segments: [Segment]) -> (tokens: [String], lastIsPrefix: Bool) {
    var tokens: [String] = []
    for (index, segment) in segments.enumerated() {
      let last = index == segments.count - 1
      guard segment.cjk else {
        tokens.append(segment.text)
        continue
      }
      let characters = Array(segment.text.unicodeScalars)
      if characters.count == 1 && last { return (tokens + [segment.text], true) }
      for index in characters.indices.dropLast() {
        tokens.append(String(String.UnicodeScalarView(characters[index...index + 1])))
      }
      if !last { tokens.append(String(characters[characters.count - 1])) }
    }
    return (tokens, false)
  }

  /// The segments of `text` once normalised (steps 1 to 3 above).
  static func segments(of text: String) -> [Segment] {
    var segments: [Segment] = []
    var current = String.UnicodeScalarView()
    var currentCJK = false
    func end() {
      if !current.isEmpty { segments.append(Segment(text: String(current), cjk: currentCJK)) }
      current = String.UnicodeScalarView()
    }
    if let words = asciiWords(text) { return words.map { Segment(text: $0, cjk: false) } }
    for original in text.precomposedStringWithCompatibilityMapping.unicodeScalars {
      // ASCII, most of any text: a letter or digit is a word's, anything else a separator;
      // none is dropped, a mark or Chinese. (Unicode's tables cost a lookup a character.)
      if original.value < 0x80 {
        let value = original.value
        guard (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value) else {
          end()
          continue
        }
        if currentCJK { end() }
        currentCJK = false
        current.append(original)
        continue
      }
      let scalar: Unicode.Scalar
      switch original.value {
      case 0xDF, 0x1E9E:
        // ß, ẞ: "ss", as German writes it without the letter.
        if currentCJK { end() }
        currentCJK = false
        current.append("s")
        current.append("s")
        continue
      case 0x622, 0x623, 0x625, 0x671: scalar = "\u{627}"  // alef with madda, hamza, wasla → alef
      case 0x649: scalar = "\u{64A}"  // alef maksura → yeh
      case 0x629: scalar = "\u{647}"  // teh marbuta → heh
      default: scalar = original
      }
      if isDropped(scalar) { continue }
      guard isWordScalar(scalar) else {
        end()
        continue
      }
      // A mark belongs to the character before it, whatever its script.
      let cjk = isCJK(scalar) || (!current.isEmpty && currentCJK && isMark(scalar))
      if cjk != currentCJK { end() }
      currentCJK = cjk
      current.append(scalar)
    }
    end()
    return segments
  }

  /// The words of `text` when it is ASCII, which is its own NFKC and needs none of the rest:
  /// its runs of letters and digits. `nil` for any other text.
  private static func asciiWords(_ text: String) -> [String]? {
    var words: [String] = []
    var start: String.UTF8View.Index?
    let utf8 = text.utf8
    var index = utf8.startIndex
    while index != utf8.endIndex {
      let byte = utf8[index]
      if byte >= 0x80 { return nil }
      let isWord = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
      if isWord && start == nil { start = index }
      if !isWord, let first = start {
        words.append(String(decoding: utf8[first..<index], as: UTF8.self))
        start = nil
      }
      index = utf8.index(after: index)
    }
    if let first = start { words.append(String(decoding: utf8[first...], as: UTF8.self)) }
    return words
  }

  /// Whether `unicode61` (with `categories 'L* N* Co M*'`) keeps `scalar` in a word: letters,
  /// numbers, marks and private-use characters.
  static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
      .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark, .privateUse:
      return true
    default:
      return false
    }
  }

  private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .spacingMark, .enclosingMark: return true
    default: return false
    }
  }

  /// Scalars the index never sees: Hebrew and Arabic vowel and cantillation marks, the Arabic
  /// tatweel (which only stretches a word), invisible format characters and variation
  /// selectors.
  private static func isDropped(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0591...0x05C7, 0x0610...0x061A, 0x064B...0x065F, 0x0670, 0x06D6...0x06ED, 0x0898...0x089F,
      0x08CA...0x08FF:
      return scalar.properties.generalCategory == .nonspacingMark
    case 0x0640, 0xFE00...0xFE0F, 0xE0100...0xE01EF: return true
    // A zero-width space separates words (in Thai and Khmer, say): it stays a separator.
    case 0x200B: return false
    default: return scalar.properties.generalCategory == .format
    }
  }

  /// Whether `scalar` is written in Chinese, Japanese or Korean, whose words have no spaces
  /// between them: Han ideographs, kana, Hangul, Bopomofo and their iteration marks.
  static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x1100...0x11FF,  // Hangul Jamo
      0x3005...0x3007, 0x3021...0x3029, 0x3031...0x3035, 0x3038...0x303C,  // 々〆〇, numerals, marks
      0x3041...0x30FF,  // Hiragana, Katakana
      0x3105...0x312F, 0x3131...0x318E, 0x31A0...0x31BF, 0x31F0...0x31FF,  // Bopomofo, Jamo, kana
      0x3400...0x4DBF, 0x4E00...0x9FFF,  // CJK Unified Ideographs and Extension A
      0xA960...0xA97F, 0xAC00...0xD7FF,  // Hangul
      0xF900...0xFAFF,  // CJK Compatibility Ideographs
      0xFF66...0xFFDC,  // half-width katakana and Hangul (NFKC has made most of them full-width)
      0x1AFF0...0x1B16F,  // kana supplements
      0x20000...0x323AF:  // CJK Extensions B to H and Compatibility Supplement
      return true
    default:
      return false
    }
  }
}
