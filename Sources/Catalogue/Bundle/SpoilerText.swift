/// A review's body as text without the words of its spoilers: masked for a terminal, or cut
/// for the search index.
///
/// Both keep the rest of the body as the reviewer wrote it, by cutting the spoilers' ranges out
/// of the source. cmark's positions of inline nodes cannot be trusted, so a range is found from
/// its markers' lines (see `SpoilerMarkup.Mark`) and which `||` of the line each is; and the
/// ranges are checked by parsing the masked text again, which must read as the tree does with
/// the masks in place of the spoilers. When they cannot be found or fail the check (a paragraph
/// opening with a link reference definition, `||` in raw HTML or a URL on a marker's line, a
/// mask that makes a link), both texts are CommonMark that cmark writes from the tree instead:
/// the same words, with the reviewer's line breaks and some punctuation changed.
struct SpoilerText {
  /// Each spoiler replaced by `[spoiler: 12 words]`, a block one with its label if it has one.
  let masked: String
  /// Each spoiler cut out, a block one leaving its label.
  let searchable: String

  /// The texts of `text`; nil when it has no spoiler, so that the caller keeps it as it is.
  init?(_ text: String) {
    guard Markdown.mayHaveSpoilers(text), let document = Markdown.Document(parsing: text) else { return nil }
    let markup = SpoilerMarkup(in: document, tracingSource: true)
    let spoilers = markup.outermost
    guard !spoilers.isEmpty else { return nil }
    let masks = spoilers.map { spoiler in
      let words = Self.words(in: spoiler.node)
      let count = words == 1 ? "1 word" : "\(words) words"
      if case .block(let label?) = spoiler.kind { return "[spoiler: \(label), \(count)]" }
      return "[spoiler: \(count)]"
    }
    let labels = spoilers.map { spoiler in
      if case .block(let label?) = spoiler.kind { return label }
      return ""
    }
    let source = document.source
    if let ranges = Self.ranges(of: spoilers, pipesPerLine: markup.pipesPerLine, lines: document.lines, in: source) {
      let masked = Self.replacing(ranges, with: masks, in: source)
      let expected = Self.reading(document.root, replacing: Dictionary(zip(spoilers.map(\.node), masks)) { $1 })
      if let again = Markdown.Document(parsing: masked),
        SpoilerMarkup(in: again, tracingSource: false).spoilers.isEmpty,
        Self.reading(again.root, replacing: [:]) == expected
      {
        self.masked = masked
        searchable = Self.replacing(ranges, with: labels, in: source)
        return
      }
    }
    // The spoilers as plain custom nodes: cmark writes their text as it is, in place.
    for (spoiler, mask) in zip(spoilers, masks) {
      for child in spoiler.node.children { document.discard(child) }
      spoiler.node.setCustomText(onEnter: mask, onExit: "")
    }
    let ending = text.utf8.last == UInt8(ascii: "\n")
    masked = Self.ending(document.commonMark(), withNewline: ending)
    for (spoiler, label) in zip(spoilers, labels) { spoiler.node.setCustomText(onEnter: label, onExit: "") }
    searchable = Self.ending(document.commonMark(), withNewline: ending)
  }

  // MARK: Ranges in the source

  /// The source's byte range of each spoiler, in order: from an inline one's first `||` to the
  /// end of its second, from a block one's `:::` to the end of its closing line; nil when one
  /// cannot be placed for sure.
  private static func ranges(
    of spoilers: [SpoilerMarkup.Spoiler], pipesPerLine: [Int: Int], lines: [Range<Int>], in source: [UInt8]
  ) -> [Range<Int>]? {
    var pipesOfLine: [Int: [Int]] = [:]
    func pipe(_ mark: SpoilerMarkup.Mark) -> Int? {
      guard lines.indices.contains(mark.line - 1) else { return nil }
      let found = pipesOfLine[mark.line] ?? sourcePipes(in: source[lines[mark.line - 1]])
      pipesOfLine[mark.line] = found
      // A `||` that the tree has and the source not (or the other way) would shift the count.
      guard found.count == pipesPerLine[mark.line], found.indices.contains(mark.ordinal) else { return nil }
      return found[mark.ordinal]
    }
    var result: [Range<Int>] = []
    for spoiler in spoilers {
      guard let opener = spoiler.opener, let closer = spoiler.closer else { return nil }
      let range: Range<Int>
      switch spoiler.kind {
      case .inline:
        guard let start = pipe(opener), let end = pipe(closer), start + 2 <= end else { return nil }
        range = start..<(end + 2)
      case .block:
        guard lines.indices.contains(opener.line - 1), lines.indices.contains(closer.line - 1),
          opener.line < closer.line, let start = firstColons(in: source[lines[opener.line - 1]])
        else { return nil }
        range = start..<lines[closer.line - 1].upperBound
      }
      if let last = result.last, last.upperBound > range.lowerBound { return nil }
      result.append(range)
    }
    return result
  }

  /// The offset of the first `:::` of a line: a marker line's prefix (block quote marks, list
  /// bullets and numbers, spaces) holds no colon.
  private static func firstColons(in line: ArraySlice<UInt8>) -> Int? {
    line.indices.first { index in
      index + 2 < line.endIndex && line[index] == UInt8(ascii: ":") && line[index + 1] == UInt8(ascii: ":")
        && line[index + 2] == UInt8(ascii: ":")
    }
  }

  /// The offsets of the `||` of a source line outside code spans and backslash escapes, read as
  /// `SpoilerMarkup.pipes(in:)` reads a text node.
  private static func sourcePipes(in line: ArraySlice<UInt8>) -> [Int] {
    let (pipe, backtick, backslash) = (UInt8(ascii: "|"), UInt8(ascii: "`"), UInt8(ascii: "\\"))
    func run(at start: Int) -> Int {
      var end = start
      while end < line.endIndex, line[end] == backtick { end += 1 }
      return end - start
    }
    var found: [Int] = []
    var index = line.startIndex
    while index < line.endIndex {
      let byte = line[index]
      if byte == backslash, index + 1 < line.endIndex, line[index + 1] != pipe, isPunctuation(line[index + 1]) {
        index += 2
      } else if byte == backtick {
        // A code span closes at the next run of as many backticks; without one, the run is text.
        let length = run(at: index)
        index += length
        var probe = index
        while probe < line.endIndex {
          guard line[probe] == backtick else {
            probe += 1
            continue
          }
          let closing = run(at: probe)
          if closing == length {
            index = probe + closing
            break
          }
          probe += closing
        }
      } else if byte == pipe, index + 1 < line.endIndex, line[index + 1] == pipe {
        found.append(index)
        index += 2
      } else {
        index += 1
      }
    }
    return found
  }

  /// Whether `byte` is ASCII punctuation, which a backslash escapes.
  private static func isPunctuation(_ byte: UInt8) -> Bool {
    (0x21...0x2F).contains(byte) || (0x3A...0x40).contains(byte) || (0x5B...0x60).contains(byte)
      || (0x7B...0x7E).contains(byte)
  }

  /// `source` with each of `ranges` (in order, apart) replaced by its replacement.
  private static func replacing(_ ranges: [Range<Int>], with replacements: [String], in source: [UInt8]) -> String {
    var result: [UInt8] = []
    result.reserveCapacity(source.count)
    var from = 0
    for (range, replacement) in zip(ranges, replacements) {
      result += source[from..<range.lowerBound]
      result += replacement.utf8
      from = range.upperBound
    }
    result += source[from...]
    return String(decoding: result, as: UTF8.self)
  }

  /// cmark's CommonMark, which ends with a newline, ending like the reviewer's text.
  private static func ending(_ rendered: String, withNewline: Bool) -> String {
    guard !withNewline else { return rendered }
    var result = Substring(rendered)
    while result.last == "\n" { result.removeLast() }
    return String(result)
  }

  // MARK: Reading

  /// What a tree reads as, in single spaces: its text, code, raw HTML and link destinations,
  /// with `replacements` in place of their nodes. Two trees that read alike hold the same
  /// words in the same order, whatever their paragraphs.
  private static func reading(_ root: Markdown.Node, replacing replacements: [Markdown.Node: String]) -> [UInt8] {
    var text: [UInt8] = []
    var skipped: Markdown.Node?
    let space = UInt8(ascii: " ")
    root.walk { node, entering in
      if let skipping = skipped {
        if node == skipping, !entering { skipped = nil }
        return
      }
      if entering, let replacement = replacements[node] {
        let block = node.kind == .customBlock
        if block { text.append(space) }
        text += replacement.utf8
        if block { text.append(space) }
        skipped = node
        return
      }
      switch node.kind {
      case .text, .code, .htmlInline: text += node.literalBytes
      case .codeBlock, .htmlBlock: text += [space] + node.literalBytes + [space]
      case .link, .image: text += entering ? [space] : Array(" <\(node.url) \(node.title)> ".utf8)
      default: text.append(space)
      }
    }
    // Spaces, tabs and line ends in runs, as one space.
    var collapsed: [UInt8] = []
    collapsed.reserveCapacity(text.count)
    for byte in text {
      let isSpace =
        byte == space || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
      if isSpace {
        if collapsed.last != space { collapsed.append(space) }
      } else {
        collapsed.append(byte)
      }
    }
    if collapsed.last == space { collapsed.removeLast() }
    if collapsed.first == space { collapsed.removeFirst() }
    return collapsed
  }

  /// How many words a reader counts in a spoiler: runs of letters and digits, an apostrophe
  /// between letters (`don't`) joining its two.
  static func words(in node: Markdown.Node) -> Int {
    var text = ""
    node.walk { node, entering in
      guard entering else { return }
      switch node.kind {
      case .text, .code: text += node.literal
      case .codeBlock: text += " \(node.literal) "
      case .htmlInline, .htmlBlock: break
      default: text += " "
      }
    }
    return words(in: text)
  }

  /// How many words a reader counts in `text`; see `words(in:)` for a node.
  static func words(in text: String) -> Int {
    var count = 0
    var inWord = false
    // An apostrophe just read inside a word: the word goes on if a letter follows.
    var apostrophe = false
    for scalar in text.unicodeScalars {
      let isLetter: Bool
      if scalar.isASCII {
        let value = scalar.value
        isLetter = (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
      } else {
        let properties = scalar.properties
        switch properties.generalCategory {
        // Accents written as marks after their letter belong to it.
        case .nonspacingMark, .spacingMark, .enclosingMark: isLetter = inWord && !apostrophe
        default: isLetter = properties.isAlphabetic || properties.numericType != nil
        }
      }
      if isLetter {
        if !inWord { count += 1 }
        inWord = true
        apostrophe = false
      } else if inWord, !apostrophe, scalar == "'" || scalar == "\u{2019}" {
        apostrophe = true
      } else {
        inWord = false
        apostrophe = false
      }
    }
    return count
  }
}
