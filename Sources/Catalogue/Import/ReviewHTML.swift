/// Review text as Goodreads and Letterboxd export it, as the Markdown the catalogue stores.
///
/// Their exports hold what their editors keep: text with a few HTML tags and entities. The
/// result reads as the review did on the service: every word kept, emphasis, links, quotes
/// and paragraphs as Markdown, and a Goodreads spoiler as the catalogue's own.
///
/// - `<br>`, `<br/>`, `<br />` are a hard line break (`\` at the end of the line); two in a row,
///   or one and a line end of the text, are a paragraph. A line end of the text stays a line end
///   (a soft break: the page shows it as a space, as a Markdown line end), two or more are a
///   paragraph. `<p>` and `</p>` end a paragraph.
/// - `<i>`, `<em>` are `*…*`; `<b>`, `<strong>` are `**…**`; `<a href="u">t</a>` is `[t](u)` for an
///   `http:` or `https:` link, and `t` alone for any other; `<blockquote>` is a quote, its lines
///   starting `> `. Spaces at the edges of emphasis or a link go outside its markers, which
///   Markdown would not read as markers otherwise; each marker and spoiler open at a paragraph
///   break is closed before it and opened again after it, since Markdown spans no paragraphs.
/// - Goodreads' `<spoiler>…</spoiler>` is the catalogue's inline spoiler `||…||`.
/// - Any other tag of HTML, and comments, are dropped, their text kept; block elements (`div`,
///   `ul`, `h1`…) end a paragraph, `li`, `dt`, `dd` and `tr` a line, and `td`, `th` are a space,
///   so that words stay apart. A `<` that starts no tag of HTML (`<3`, `<y and z>`) is text.
/// - Entities are decoded: `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, numeric ones (`&#39;`,
///   `&#x2019;`), typographic ones (`&rsquo;`, `&hellip;`…) and accented letters; `&nbsp;` is a
///   space. A named entity not known here is kept as written, for Markdown decodes it the same.
/// - Spaces and tabs run together into one space, and none is kept at the start or end of a
///   line, where Markdown would read them as code or a break.
///
/// Markdown characters of the text that would change its meaning are escaped with a backslash:
/// `\`, `*`, `_`, `` ` ``, `[`, `]` and `<` anywhere; `&` before what reads as an entity; at the
/// start of a line `#`, `>`, `-`, `+`, `=`, `~` and the `.` or `)` after a number. Two marks
/// cannot be escaped that way, because the catalogue finds spoilers in the text after Markdown
/// has removed the backslashes: a pipe next to another pipe gets a ZERO WIDTH SPACE (U+200B)
/// between them (`||` written is `|\u{200B}|`: it looks the same and is no spoiler marker), and
/// `:::` at the start of a line gets one after its first colon (no spoiler block). Text without
/// tags is returned with only that escaping and those spaces.
enum ReviewHTML {
  /// Goodreads and Letterboxd review text (HTML-ish: `<br>`, `<p>`, `<i>`/`<em>`,
  /// `<b>`/`<strong>`, `<a href>`, `<blockquote>`, `<spoiler>`, entities, stray tags) as the
  /// Markdown the catalogue stores. Never throws; text is never lost.
  static func markdown(_ html: String) -> String {
    var converter = Converter(source: Array(html.utf8))
    converter.run()
    return String(decoding: converter.output, as: UTF8.self)
  }
}

/// A walk over the HTML's bytes that writes Markdown as it goes, with what is pending (a space,
/// a break, markers not yet opened) written only when the next text comes.
private struct Converter {
  /// An inline format open at the current place.
  enum Format: Equatable {
    case emphasis, strong, spoiler
    case link(url: [UInt8])

    var opener: [UInt8] {
      switch self {
      case .emphasis: Array("*".utf8)
      case .strong: Array("**".utf8)
      case .spoiler: Array("||".utf8)
      case .link: Array("[".utf8)
      }
    }

    var closer: [UInt8] {
      switch self {
      case .emphasis: Array("*".utf8)
      case .strong: Array("**".utf8)
      case .spoiler: Array("||".utf8)
      case .link(let url): Array("](".utf8) + url + Array(")".utf8)
      }
    }

    /// Whether `self` and `other` are opened and closed by the same tags.
    func isKind(of other: Format) -> Bool {
      switch (self, other) {
      case (.link, .link): true
      default: self == other
      }
    }
  }

  /// What lies between the text written and the next: nothing, a space, or line ends.
  enum Break: Comparable {
    case none, soft, hard, paragraph
  }

  let source: [UInt8]
  var index = 0
  var output: [UInt8] = []

  /// Open formats, innermost last, each with whether its opener is written yet.
  var formats: [(format: Format, written: Bool)] = []
  var quoteDepth = 0
  /// The quote depth of the line being written.
  var lineDepth = 0
  var pendingBreak = Break.none
  var pendingSpace = false
  /// Whether the last break was a `<br>`, with only spaces since: a line end after it is part
  /// of the same break.
  var afterBreakTag = false
  var wroteText = false
  /// Whether nothing has been written on the current line yet but its quote prefix.
  var atLineStart = true
  /// Whether the last byte written is a pipe of the text (not of a spoiler marker).
  var lastPipeIsText = false
  /// The source offset of a `.` or `)` after a number at the start of a line, to be escaped.
  var escapedPunctuation = -1

  init(source: [UInt8]) { self.source = source }

  mutating func run() {
    while index < source.count {
      let byte = source[index]
      switch byte {
      case UInt8(ascii: "<"):
        if !readTag() {
          text(byte, next: index + 1)
          index += 1
        }
      case UInt8(ascii: "&"):
        readEntity()
      case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
        if byte == UInt8(ascii: "\r"), index + 1 < source.count, source[index + 1] == UInt8(ascii: "\n") { index += 1 }
        index += 1
        if afterBreakTag {
          afterBreakTag = false
        } else {
          lineEnd(hard: false)
        }
      case UInt8(ascii: " "), UInt8(ascii: "\t"):
        pendingSpace = true
        index += 1
      default:
        text(byte, next: index + 1)
        index += 1
      }
    }
    closeWrittenFormats()
  }

  // MARK: Tags

  /// Reads the tag, comment or declaration at `index` and acts on it; false when the `<`
  /// starts none (no name, or no `>` to end it), and is text.
  mutating func readTag() -> Bool {
    let start = index
    if source[start...].starts(with: "<!--".utf8) {
      guard let end = find("-->", from: start + 4) else { return false }
      index = end + 3
      return true
    }
    var cursor = start + 1
    let closing = cursor < source.count && source[cursor] == UInt8(ascii: "/")
    if closing || (cursor < source.count && source[cursor] == UInt8(ascii: "!")) { cursor += 1 }
    guard cursor < source.count, Self.isLetter(source[cursor]) else { return false }
    let nameStart = cursor
    while cursor < source.count, Self.isLetter(source[cursor]) || Self.isDigit(source[cursor]) { cursor += 1 }
    let name = String(decoding: source[nameStart..<cursor], as: UTF8.self).lowercased()
    // `<y and z>` in a sentence is text: only HTML's own elements are tags.
    guard Self.elements.contains(name) || source[start + 1] == UInt8(ascii: "!"),
      cursor == source.count
        || [0x20, 0x09, 0x0A, 0x0D, 0x0C, UInt8(ascii: "/"), UInt8(ascii: ">")].contains(source[cursor])
    else { return false }
    let attributesStart = cursor
    var quote: UInt8?
    while cursor < source.count {
      let byte = source[cursor]
      if let open = quote {
        if byte == open { quote = nil }
      } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
        quote = byte
      } else if byte == UInt8(ascii: ">") {
        break
      }
      cursor += 1
    }
    guard cursor < source.count else { return false }
    index = cursor + 1
    tag(name, closing: closing, attributes: source[attributesStart..<cursor])
    return true
  }

  mutating func tag(_ name: String, closing: Bool, attributes: ArraySlice<UInt8>) {
    switch name {
    case "br": lineEnd(hard: true)
    case "p": paragraph()
    case "blockquote":
      paragraph()
      quoteDepth = closing ? max(0, quoteDepth - 1) : quoteDepth + 1
    case "i", "em": closing ? close(.emphasis) : open(.emphasis)
    case "b", "strong": closing ? close(.strong) : open(.strong)
    case "spoiler": closing ? close(.spoiler) : open(.spoiler)
    case "li", "dt", "dd", "tr": if !closing { lineEnd(hard: true) }
    case "td", "th": if !closing { pendingSpace = true }
    case _ where Self.blockTags.contains(name): paragraph()
    case "a":
      if closing {
        close(.link(url: []))
      } else if !formats.contains(where: { $0.format.isKind(of: .link(url: [])) }),
        let url = Self.attribute("href", in: attributes).flatMap(Self.webURL)
      {
        open(.link(url: url))
      }
    default: break
    }
  }

  /// The elements whose tags are read as tags (the others are text), and those of them that
  /// stand apart from the text around them.
  static let elements: Set<String> = [
    "a", "abbr", "address", "article", "aside", "audio", "b", "big", "blockquote", "body", "br", "button", "caption",
    "center", "cite", "code", "col", "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption",
    "figure", "font", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hr", "html", "i",
    "iframe", "img", "input", "ins", "kbd", "label", "li", "link", "main", "mark", "meta", "nav", "ol", "p",
    "picture", "pre", "q", "s", "samp", "section", "small", "source", "span", "spoiler", "strike", "strong", "sub",
    "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "title", "tr", "tt", "u", "ul", "var", "video",
    "wbr",
  ]
  static let blockTags: Set<String> = [
    "address", "article", "aside", "center", "details", "div", "dl", "figure", "footer", "h1", "h2", "h3", "h4", "h5",
    "h6", "header", "hr", "main", "nav", "ol", "pre", "section", "summary", "table", "ul",
  ]

  mutating func open(_ format: Format) {
    formats.append((format, false))
  }

  /// Closes the innermost open `format` of that kind: those inside it close and open again
  /// after it. A closing tag with nothing open is dropped.
  mutating func close(_ format: Format) {
    guard let position = formats.lastIndex(where: { $0.format.isKind(of: format) }) else { return }
    let inside = formats[(position + 1)...].map(\.format)
    while formats.count > position {
      let last = formats.removeLast()
      if last.written { writeMarker(last.format.closer) }
    }
    formats += inside.map { ($0, false) }
  }

  mutating func closeWrittenFormats() {
    for index in formats.indices.reversed() where formats[index].written {
      writeMarker(formats[index].format.closer)
      formats[index].written = false
    }
  }

  /// The value of attribute `name` (lowercase) in a tag's attributes, entities decoded.
  static func attribute(_ name: String, in attributes: ArraySlice<UInt8>) -> [UInt8]? {
    var cursor = attributes.startIndex
    let end = attributes.endIndex
    func skipSpaces() {
      while cursor < end, [0x20, 0x09, 0x0A, 0x0D, 0x0C, UInt8(ascii: "/")].contains(attributes[cursor]) {
        cursor += 1
      }
    }
    while cursor < end {
      skipSpaces()
      let nameStart = cursor
      while cursor < end,
        ![0x20, 0x09, 0x0A, 0x0D, 0x0C, UInt8(ascii: "="), UInt8(ascii: "/")].contains(attributes[cursor])
      {
        cursor += 1
      }
      let found = String(decoding: attributes[nameStart..<cursor], as: UTF8.self).lowercased()
      while cursor < end, [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(attributes[cursor]) { cursor += 1 }
      var value: ArraySlice<UInt8> = []
      if cursor < end, attributes[cursor] == UInt8(ascii: "=") {
        cursor += 1
        while cursor < end, [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(attributes[cursor]) { cursor += 1 }
        if cursor < end, attributes[cursor] == UInt8(ascii: "\"") || attributes[cursor] == UInt8(ascii: "'") {
          let quote = attributes[cursor]
          let valueStart = cursor + 1
          cursor = attributes[valueStart...].firstIndex(of: quote) ?? end
          value = attributes[valueStart..<cursor]
          if cursor < end { cursor += 1 }
        } else {
          let valueStart = cursor
          while cursor < end, ![0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(attributes[cursor]) { cursor += 1 }
          value = attributes[valueStart..<cursor]
        }
      }
      if found == name { return decodeEntities(value) }
      if cursor == nameStart { cursor += 1 }
    }
    return nil
  }

  /// `url` as a Markdown link destination, when it is an `http:` or `https:` URL: spaces, control
  /// characters and angle brackets percent-encoded, parentheses and backslashes escaped, and an
  /// `&` that would read as an entity encoded.
  static func webURL(_ url: [UInt8]) -> [UInt8]? {
    var trimmed = url[...]
    while let first = trimmed.first, first <= 0x20 { trimmed.removeFirst() }
    while let last = trimmed.last, last <= 0x20 { trimmed.removeLast() }
    let lower = String(decoding: trimmed.prefix(8), as: UTF8.self).lowercased()
    guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), trimmed.count > (lower.hasPrefix("https") ? 8 : 7)
    else { return nil }
    var result: [UInt8] = []
    for position in trimmed.indices {
      let byte = trimmed[position]
      switch byte {
      case 0...0x20, 0x7F, UInt8(ascii: "<"), UInt8(ascii: ">"):
        result += Array("%\(hex(byte))".utf8)
      case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"):
        result += [UInt8(ascii: "\\"), byte]
      case UInt8(ascii: "&") where looksLikeEntity(trimmed, at: position):
        result += Array("%26".utf8)
      default:
        result.append(byte)
      }
    }
    return result
  }

  // MARK: Entities

  /// Reads the entity at `index` (or a lone `&`) as text.
  mutating func readEntity() {
    if let (scalar, end) = Self.entity(in: source, at: index) {
      index = end
      var bytes: [UInt8] = []
      if scalar == "\u{A0}" {
        pendingSpace = true
        return
      }
      bytes += Array(String(scalar).utf8)
      for (offset, byte) in bytes.enumerated() {
        text(byte, next: offset + 1 < bytes.count ? nil : index)
      }
    } else if Self.looksLikeEntity(source[...], at: index), let end = source[index...].firstIndex(of: UInt8(ascii: ";"))
    {
      // A named entity not known here: Markdown decodes it as a page would.
      beginText()
      output += source[index...end]
      lastPipeIsText = false
      index = end + 1
    } else {
      text(UInt8(ascii: "&"), next: index + 1)
      index += 1
    }
  }

  /// The character of the entity at `position` and the offset after it, when it is one known
  /// here: numeric, or named in `named`.
  static func entity(in bytes: [UInt8], at position: Int) -> (Unicode.Scalar, Int)? {
    guard position + 2 < bytes.count, let semicolon = bytes[(position + 1)...].prefix(33).firstIndex(of: 0x3B)
    else { return nil }
    let body = bytes[(position + 1)..<semicolon]
    if body.first == UInt8(ascii: "#") {
      let digits = body.dropFirst()
      let isHex = digits.first == UInt8(ascii: "x") || digits.first == UInt8(ascii: "X")
      let number = String(decoding: isHex ? digits.dropFirst() : digits, as: UTF8.self)
      guard !number.isEmpty, let value = UInt32(number, radix: isHex ? 16 : 10) else { return nil }
      let scalar = value == 0 ? nil : Unicode.Scalar(value)
      return (scalar ?? "\u{FFFD}", semicolon + 1)
    }
    guard let scalar = named[String(decoding: body, as: UTF8.self)] else { return nil }
    return (scalar, semicolon + 1)
  }

  /// Whether `&` at `position` starts what Markdown would read as an entity: letters, digits or
  /// `#`, then `;`.
  static func looksLikeEntity(_ bytes: ArraySlice<UInt8>, at position: Int) -> Bool {
    var cursor = position + 1
    while cursor < bytes.endIndex, cursor - position <= 32,
      isLetter(bytes[cursor]) || isDigit(bytes[cursor]) || bytes[cursor] == UInt8(ascii: "#")
    {
      cursor += 1
    }
    return cursor > position + 1 && cursor < bytes.endIndex && bytes[cursor] == UInt8(ascii: ";")
  }

  static func decodeEntities(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    let array = Array(bytes)
    var result: [UInt8] = []
    var cursor = 0
    while cursor < array.count {
      if array[cursor] == UInt8(ascii: "&"), let (scalar, end) = entity(in: array, at: cursor) {
        result += Array(String(scalar).utf8)
        cursor = end
      } else {
        result.append(array[cursor])
        cursor += 1
      }
    }
    return result
  }

  /// The named entities reviews use: markup, typography, currency, and the accented letters of
  /// Western European languages (each also capitalised, `Eacute`).
  static let named: [String: Unicode.Scalar] = {
    var table: [String: Unicode.Scalar] = [
      "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "hellip": "…", "mdash": "—",
      "ndash": "–", "lsquo": "‘", "rsquo": "’", "sbquo": "‚", "ldquo": "“", "rdquo": "”", "bdquo": "„",
      "laquo": "«", "raquo": "»", "lsaquo": "‹", "rsaquo": "›", "copy": "©", "reg": "®", "trade": "™",
      "deg": "°", "middot": "·", "bull": "•", "times": "×", "divide": "÷", "euro": "€", "pound": "£", "yen": "¥",
      "cent": "¢", "sect": "§", "para": "¶", "iexcl": "¡", "iquest": "¿", "hearts": "♥", "larr": "←",
      "rarr": "→", "frac12": "½", "frac14": "¼", "frac34": "¾", "prime": "′", "Prime": "″", "shy": "\u{AD}",
      "szlig": "ß", "ordf": "ª", "ordm": "º", "star": "☆", "dagger": "†", "minus": "−", "plusmn": "±",
    ]
    let letters: [(String, Unicode.Scalar, Unicode.Scalar)] = [
      ("aacute", "á", "Á"), ("agrave", "à", "À"), ("acirc", "â", "Â"), ("auml", "ä", "Ä"), ("atilde", "ã", "Ã"),
      ("aring", "å", "Å"), ("aelig", "æ", "Æ"), ("ccedil", "ç", "Ç"), ("eacute", "é", "É"), ("egrave", "è", "È"),
      ("ecirc", "ê", "Ê"), ("euml", "ë", "Ë"), ("iacute", "í", "Í"), ("igrave", "ì", "Ì"), ("icirc", "î", "Î"),
      ("iuml", "ï", "Ï"), ("ntilde", "ñ", "Ñ"), ("oacute", "ó", "Ó"), ("ograve", "ò", "Ò"), ("ocirc", "ô", "Ô"),
      ("ouml", "ö", "Ö"), ("otilde", "õ", "Õ"), ("oslash", "ø", "Ø"), ("oelig", "œ", "Œ"), ("uacute", "ú", "Ú"),
      ("ugrave", "ù", "Ù"), ("ucirc", "û", "Û"), ("uuml", "ü", "Ü"), ("yacute", "ý", "Ý"), ("yuml", "ÿ", "Ÿ"),
      ("eth", "ð", "Ð"), ("thorn", "þ", "Þ"), ("scaron", "š", "Š"), ("zcaron", "ž", "Ž"),
    ]
    for (name, lower, upper) in letters {
      table[name] = lower
      table[name.prefix(1).uppercased() + name.dropFirst()] = upper
    }
    return table
  }()

  // MARK: Writing

  /// A line end (`hard`: a `<br>`): a line break, or with the one before it a paragraph.
  mutating func lineEnd(hard: Bool) {
    afterBreakTag = hard
    pendingSpace = false
    guard wroteText else { return }
    pendingBreak = pendingBreak == .none ? (hard ? .hard : .soft) : .paragraph
  }

  mutating func paragraph() {
    afterBreakTag = false
    pendingSpace = false
    if wroteText { pendingBreak = .paragraph }
  }

  /// Writes what is pending before the next text: the break or space, the quote prefix of a new
  /// line, and the openers of formats not yet written.
  mutating func beginText() {
    afterBreakTag = false
    if !wroteText {
      writePrefix()
    } else {
      switch pendingBreak {
      case .none:
        if pendingSpace {
          output.append(0x20)
          lastPipeIsText = false
        }
      case .soft, .hard:
        if pendingBreak == .hard { output.append(UInt8(ascii: "\\")) }
        output.append(0x0A)
        writePrefix()
      case .paragraph:
        closeWrittenFormats()
        output.append(0x0A)
        // Inside a quote the line between paragraphs is `>` alone, without the prefix's space.
        output += Self.prefix(min(lineDepth, quoteDepth))
        while output.last == 0x20 { output.removeLast() }
        output.append(0x0A)
        writePrefix()
      }
    }
    pendingBreak = .none
    pendingSpace = false
    wroteText = true
    for position in formats.indices where !formats[position].written {
      writeMarker(formats[position].format.opener)
      formats[position].written = true
    }
  }

  mutating func writePrefix() {
    output += Self.prefix(quoteDepth)
    lineDepth = quoteDepth
    atLineStart = true
    lastPipeIsText = false
  }

  /// `> ` `depth` times.
  static func prefix(_ depth: Int) -> [UInt8] {
    Array(repeating: Array("> ".utf8), count: depth).flatMap { $0 }
  }

  /// Writes a format's marker, keeping it apart from a pipe of the text before it.
  mutating func writeMarker(_ marker: [UInt8]) {
    if lastPipeIsText, marker.first == UInt8(ascii: "|") { output += Self.zeroWidthSpace }
    output += marker
    lastPipeIsText = false
    atLineStart = false
  }

  static let zeroWidthSpace = Array("\u{200B}".utf8)

  /// Writes one byte of the text, escaped as Markdown needs; `next` is where the text goes on
  /// in the source after it (for what a `&` or a number at the start of a line is followed by),
  /// nil when the byte is not the last of a decoded character.
  mutating func text(_ byte: UInt8, next: Int?) {
    beginText()
    let lineStart = atLineStart
    atLineStart = false
    if Self.escapedAnywhere.contains(byte) || (lineStart && Self.escapedAtLineStart.contains(byte)) {
      output += [UInt8(ascii: "\\"), byte]
    } else if byte == UInt8(ascii: "&"), let next, Self.looksLikeEntity(source[...], at: next - 1) {
      output += [UInt8(ascii: "\\"), byte]
    } else if byte == UInt8(ascii: "|") {
      if output.last == UInt8(ascii: "|") { output += Self.zeroWidthSpace }
      output.append(byte)
    } else if byte == UInt8(ascii: ":"), lineStart, let next, source[next...].starts(with: "::".utf8) {
      output.append(byte)
      output += Self.zeroWidthSpace
    } else if byte == UInt8(ascii: "."), let next, next - 1 == escapedPunctuation {
      output += [UInt8(ascii: "\\"), byte]
    } else if byte == UInt8(ascii: ")"), let next, next - 1 == escapedPunctuation {
      output += [UInt8(ascii: "\\"), byte]
    } else {
      output.append(byte)
      // A number then `.` or `)` at the start of a line starts an ordered list.
      if lineStart, Self.isDigit(byte), let next {
        var cursor = next
        while cursor < source.count, cursor - next < 9, Self.isDigit(source[cursor]) { cursor += 1 }
        if cursor < source.count, source[cursor] == UInt8(ascii: ".") || source[cursor] == UInt8(ascii: ")") {
          escapedPunctuation = cursor
        }
      }
    }
    lastPipeIsText = byte == UInt8(ascii: "|")
  }

  static let escapedAnywhere = Set("\\*_`[]<".utf8)
  static let escapedAtLineStart = Set("#>-+=~".utf8)

  // MARK: Bytes

  func find(_ text: String, from start: Int) -> Int? {
    let needle = Array(text.utf8)
    var cursor = start
    while cursor + needle.count <= source.count {
      if source[cursor..<(cursor + needle.count)].elementsEqual(needle) { return cursor }
      cursor += 1
    }
    return nil
  }

  static func isLetter(_ byte: UInt8) -> Bool {
    (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
  }
  static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

  static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
  }
}
