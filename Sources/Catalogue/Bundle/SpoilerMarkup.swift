/// The spoilers of a review, found in the tree cmark parsed from its Markdown and made into
/// custom nodes there, which hold their content.
///
/// cmark has no extensions, and a pass over the text before cmark could not tell a marker from
/// two pipes in a code span, a URL or raw HTML. The tree can: markers are looked for only in
/// text nodes, so code, raw HTML, autolinks and link destinations never hold one.
///
/// - Inline, `||hidden||` pairs two markers in the text of one paragraph, heading, emphasis or
///   link text, the first with the next, like emphasis: a spoiler cannot cross a link's edge. A
///   marker left without a partner, or a pair around nothing but spaces, stays text; so do
///   markers in a picture's description, which becomes an `alt` attribute and cannot hold a
///   `<details>`.
/// - As blocks, a paragraph line `::: spoiler` (or `:::spoiler`, in any case, with an optional
///   label after it) opens a spoiler and a line `:::` closes the nearest one open in the same
///   container (document, block quote, list item or spoiler), so they nest. cmark gives such
///   lines as paragraphs, or as lines of one: matched lines split their paragraph; unmatched
///   ones change nothing.
struct SpoilerMarkup {
  /// A spoiler: the custom node that now holds its content, and where its markers were.
  struct Spoiler {
    enum Kind: Equatable {
      case inline
      /// A block spoiler, with the label written after `::: spoiler`, as plain text.
      case block(label: String?)
    }

    let node: Markdown.Node
    let kind: Kind
    /// Where the markers are in the source, when that is certain; see `Mark`.
    let opener: Mark?
    let closer: Mark?
  }

  /// A marker's place in the source: its line (from 1) and, for `||`, which of the `||` that
  /// the tree's text has on that line it is (from 0).
  ///
  /// cmark's positions of inline nodes are wrong inside block quotes, after code spans over two
  /// lines or link reference definitions, so only the lines of blocks are taken from cmark, and
  /// a text's line is counted in line breaks from its paragraph's first line.
  struct Mark: Equatable {
    let line: Int
    let ordinal: Int
  }

  let document: Markdown.Document
  /// Every spoiler found, nested ones included, in no particular order.
  private(set) var spoilers: [Spoiler] = []
  /// How many `||` the tree's text has on each source line it could place (with
  /// `tracingSource`).
  private(set) var pipesPerLine: [Int: Int] = [:]
  /// The line of each text node that could be placed, and the ordinal of its first `||`.
  private var origins: [Markdown.Node: Mark] = [:]

  /// Finds the spoilers of `document` and changes its tree to hold them. With `tracingSource`,
  /// it also records where their markers were in the source, for `SpoilerText`.
  init(in document: Markdown.Document, tracingSource: Bool) {
    self.document = document
    if tracingSource { traceSource() }
    findBlocks()
    findInlines()
  }

  /// The spoilers that no other spoiler holds, in document order.
  var outermost: [Spoiler] {
    let indices = Dictionary(spoilers.indices.map { (spoilers[$0].node, $0) }, uniquingKeysWith: { first, _ in first })
    var depth = 0
    var result: [Spoiler] = []
    document.root.walk { node, entering in
      guard let index = indices[node] else { return }
      if entering {
        if depth == 0 { result.append(spoilers[index]) }
        depth += 1
      } else {
        depth -= 1
      }
    }
    return result
  }

  // MARK: HTML

  /// Sets every spoiler to render as a closed `<details>`, and every paragraph holding an inline
  /// one to render as `<div class="paragraph">`: an HTML parser ends an open `<p>` at
  /// `<details>`, which would leave the rest of the paragraph outside it.
  func disclose() {
    for spoiler in spoilers {
      switch spoiler.kind {
      case .inline:
        spoiler.node.setCustomText(
          onEnter: #"<details class="spoiler spoiler-inline"><summary>Spoiler</summary>"#, onExit: "</details>")
      case .block(let label):
        let summary = label.map { "Spoiler: \(HTML.escape($0))" } ?? "Spoiler"
        spoiler.node.setCustomText(
          onEnter: #"<details class="spoiler"><summary>\#(summary)</summary>"#, onExit: "</details>")
      }
    }
    var paragraphs: [Markdown.Node] = []
    var paragraph: Markdown.Node?
    document.root.walk { node, entering in
      if node.kind == .paragraph {
        paragraph = entering ? node : nil
      } else if entering, node.kind == .customInline, let paragraph, paragraphs.last != paragraph {
        paragraphs.append(paragraph)
      }
    }
    for paragraph in paragraphs {
      // cmark writes the paragraphs of a tight list's items without `<p>`: nothing to end.
      if let list = paragraph.parent?.parent, list.kind == .list, list.isTightList { continue }
      guard let division = document.insert(.customBlock, before: paragraph) else { continue }
      division.setCustomText(onEnter: #"<div class="paragraph">"#, onExit: "</div>")
      for child in paragraph.children { document.move(child, to: division) }
      document.discard(paragraph)
    }
  }

  /// Replaces every spoiler by a notice that holds none of its words.
  func replaceByNotices() {
    for spoiler in outermost {
      for child in spoiler.node.children { document.discard(child) }
      switch spoiler.kind {
      case .inline:
        spoiler.node.setCustomText(onEnter: #"<span class="spoiler-notice">[spoiler hidden]</span>"#, onExit: "")
      case .block(let label):
        let notice = label.map { "[spoiler hidden: \(HTML.escape($0))]" } ?? "[spoiler hidden]"
        spoiler.node.setCustomText(onEnter: #"<p class="spoiler-notice">\#(notice)</p>"#, onExit: "")
      }
    }
  }

  // MARK: Source lines

  /// Records the source line of every text node whose paragraph's lines are certain, and how
  /// many `||` each line has, before the tree changes.
  private mutating func traceSource() {
    var leaves: [Markdown.Node] = []
    document.root.walk { node, entering in
      if entering, node.kind == .paragraph || node.kind == .heading { leaves.append(node) }
    }
    for leaf in leaves {
      let start = leaf.startLine
      guard start > 0 else { continue }
      var texts: [(node: Markdown.Node, offset: Int)] = []
      var breaks = 0
      leaf.walk { node, entering in
        guard entering else { return }
        if node.kind == .text {
          texts.append((node, breaks))
        } else if node.kind.isBreak {
          breaks += 1
        }
      }
      // Each newline of a paragraph is a break in the tree, unless a code span, raw HTML, a
      // link's destination or a link reference definition took it: then lines are unknown.
      if leaf.kind == .paragraph, leaf.endLine - start != breaks { continue }
      for text in texts {
        let line = start + text.offset
        let count = Self.pipes(in: text.node.literalBytes).count
        origins[text.node] = Mark(line: line, ordinal: pipesPerLine[line, default: 0])
        pipesPerLine[line, default: 0] += count
      }
    }
  }

  // MARK: Blocks

  /// A line of a paragraph: its nodes, the break that ends it, and how many lines after the
  /// paragraph's first it starts.
  private struct Line {
    var nodes: [Markdown.Node] = []
    var breakAfter: Markdown.Node?
    var offset: Int
    /// Whether a node of the line (an emphasis, a link) holds a break: then it is not one
    /// source line, and cannot be a marker.
    var spansLines = false
  }

  /// A marker line: `::: spoiler` with its label, or `:::`.
  private enum Marker {
    case opener(label: String?)
    case closer
  }

  /// A marker line of a paragraph, with its source line when known.
  private struct MarkerLine {
    let paragraph: Markdown.Node
    let line: Int
    let marker: Marker
    let sourceLine: Int?
  }

  /// Finds the block spoilers of every container, outer ones first.
  private mutating func findBlocks() {
    var containers = [document.root]
    while let container = containers.popLast() {
      findBlocks(in: container)
      for child in container.children {
        switch child.kind {
        case .blockQuote, .item, .customBlock: containers.append(child)
        case .list: containers += child.children
        default: break
        }
      }
    }
  }

  /// Pairs the marker lines among the paragraphs directly in `container`, splits their
  /// paragraphs, and moves what lies between each pair into a custom block.
  private mutating func findBlocks(in container: Markdown.Node) {
    bringOutLazyClosers(in: container)
    var markers: [MarkerLine] = []
    var linesOf: [Markdown.Node: [Line]] = [:]
    for paragraph in container.children where paragraph.kind == .paragraph {
      let (lines, breaks) = Self.lines(of: paragraph)
      let start = paragraph.startLine
      let placed = start > 0 && paragraph.endLine - start == breaks
      for (index, line) in lines.enumerated() where !line.spansLines {
        guard let marker = Self.marker(line.nodes) else { continue }
        markers.append(
          MarkerLine(paragraph: paragraph, line: index, marker: marker, sourceLine: placed ? start + line.offset : nil))
        linesOf[paragraph] = lines
      }
    }
    var open: [Int] = []
    var pairs: [(opener: Int, closer: Int)] = []
    for (index, line) in markers.enumerated() {
      switch line.marker {
      case .opener: open.append(index)
      case .closer: if let opener = open.popLast() { pairs.append((opener, index)) }
      }
    }
    guard !pairs.isEmpty else { return }

    var matched: [Markdown.Node: [Int: Int]] = [:]
    for pair in pairs {
      for index in [pair.opener, pair.closer] {
        matched[markers[index].paragraph, default: [:]][markers[index].line] = index
      }
    }
    var placeholders: [Int: Markdown.Node] = [:]
    for paragraph in container.children {
      guard let lines = linesOf[paragraph], let matchedLines = matched[paragraph] else { continue }
      split(paragraph, lines: lines, at: matchedLines, placeholders: &placeholders)
    }
    // Inner pairs come first, so an outer one moves the inner's finished block.
    for pair in pairs {
      guard let opener = placeholders[pair.opener], let closer = placeholders[pair.closer],
        let block = document.insert(.customBlock, before: opener)
      else { continue }
      var next = opener.next
      while let node = next, node != closer {
        next = node.next
        document.move(node, to: block)
      }
      document.discard(opener)
      document.discard(closer)
      guard case .opener(let label) = markers[pair.opener].marker else { continue }
      spoilers.append(
        Spoiler(
          node: block, kind: .block(label: label),
          opener: markers[pair.opener].sourceLine.map { Mark(line: $0, ordinal: 0) },
          closer: markers[pair.closer].sourceLine.map { Mark(line: $0, ordinal: 0) }))
    }
  }

  /// A closer written on the line after a list or a block quote, with no blank line between,
  /// is to CommonMark a lazy continuation of the block's last paragraph: the reviewer wrote it
  /// in `container`, to close the spoiler open there. Such a closer, and the lines after it in
  /// that paragraph, become a paragraph of `container` after the block, when a spoiler is open
  /// in `container` at the block and the block opens none of its own. The source says which
  /// lines are lazy: they start with `:::` (after up to three spaces), without a quote's `>`
  /// or a list item's indent.
  private func bringOutLazyClosers(in container: Markdown.Node) {
    var open = 0
    func count(_ paragraph: Markdown.Node) {
      for line in Self.lines(of: paragraph).lines where !line.spansLines {
        switch Self.marker(line.nodes) {
        case .opener?: open += 1
        case .closer?: open = max(0, open - 1)
        case nil: break
        }
      }
    }
    for child in container.children {
      if child.kind == .paragraph {
        count(child)
      } else if open > 0, child.kind == .list || child.kind == .blockQuote,
        let brought = bringOutLazyCloser(endingIn: child, into: container)
      {
        count(brought)
      }
    }
  }

  /// Moves the lazy closer that ends `block` (see ``bringOutLazyClosers(in:)``), with the
  /// lines after it, into a new paragraph of `container` after `block`; that paragraph.
  private func bringOutLazyCloser(endingIn block: Markdown.Node, into container: Markdown.Node) -> Markdown.Node? {
    var last = block
    while last.kind != .paragraph {
      guard [.list, .item, .blockQuote].contains(last.kind), let child = last.children.last else { return nil }
      last = child
    }
    let (lines, breaks) = Self.lines(of: last)
    let start = last.startLine
    // Without each line's place in the source, no line can be told lazy.
    guard lines.count > 1, start > 0, last.endLine - start == breaks else { return nil }
    let lazy = lines.indices.dropFirst().first { index in
      guard !lines[index].spansLines, case .closer? = Self.marker(lines[index].nodes),
        let source = document.sourceLine(start + lines[index].offset)
      else { return false }
      let indent = source.prefix { $0 == UInt8(ascii: " ") }.count
      return indent <= 3 && source.dropFirst(indent).starts(with: ":::".utf8)
    }
    guard let lazy else { return nil }
    var opens = false
    block.walk { node, entering in
      guard entering, !opens, node.kind == .paragraph else { return }
      opens = Self.lines(of: node).lines.contains { line in
        guard !line.spansLines, case .opener? = Self.marker(line.nodes) else { return false }
        return true
      }
    }
    guard !opens,
      let brought = block.next.flatMap({ document.insert(.paragraph, before: $0) })
        ?? document.append(.paragraph, to: container)
    else { return nil }
    if let lineBreak = lines[lazy - 1].breakAfter { document.discard(lineBreak) }
    for line in lines[lazy...] {
      for node in line.nodes { document.move(node, to: brought) }
      if let lineBreak = line.breakAfter { document.move(lineBreak, to: brought) }
    }
    return brought
  }

  /// Replaces `paragraph` by paragraphs of its lines between matched markers, and each matched
  /// marker line by an empty custom block recorded in `placeholders`.
  private func split(
    _ paragraph: Markdown.Node, lines: [Line], at matchedLines: [Int: Int], placeholders: inout [Int: Markdown.Node]
  ) {
    var run: [Markdown.Node] = []
    func flush() {
      // The break before a marker line ends no line of the new paragraph.
      while let last = run.last, last.kind.isBreak { run.removeLast() }
      if !run.isEmpty, let part = document.insert(.paragraph, before: paragraph) {
        for node in run { document.move(node, to: part) }
      }
      run = []
    }
    for (index, line) in lines.enumerated() {
      if let marker = matchedLines[index] {
        flush()
        placeholders[marker] = document.insert(.customBlock, before: paragraph)
      } else {
        run += line.nodes
        if let lineBreak = line.breakAfter { run.append(lineBreak) }
      }
    }
    flush()
    document.discard(paragraph)
  }

  /// The lines of a paragraph, split at its own breaks, and how many breaks it holds in all.
  private static func lines(of paragraph: Markdown.Node) -> (lines: [Line], breaks: Int) {
    var lines = [Line(offset: 0)]
    var breaks = 0
    for child in paragraph.children {
      if child.kind.isBreak {
        breaks += 1
        lines[lines.count - 1].breakAfter = child
        lines.append(Line(offset: breaks))
        continue
      }
      if child.firstChild != nil {
        var inner = 0
        child.walk { node, entering in
          if entering, node.kind.isBreak { inner += 1 }
        }
        if inner > 0 {
          breaks += inner
          lines[lines.count - 1].spansLines = true
        }
      }
      lines[lines.count - 1].nodes.append(child)
    }
    return (lines, breaks)
  }

  /// The marker a line is, if any: its first node a text starting `:::`, then for an opener
  /// `spoiler` and a label, for a closer nothing else.
  private static func marker(_ nodes: [Markdown.Node]) -> Marker? {
    guard let first = nodes.first, first.kind == .text else { return nil }
    let text = first.literalBytes
    guard text.starts(with: ":::".utf8) else { return nil }
    var index = 3
    while index < text.count, isSpace(text[index]) { index += 1 }
    if index == text.count, nodes.count == 1 { return .closer }
    let keyword = Array("spoiler".utf8)
    guard text.count - index >= keyword.count,
      zip(text[index...], keyword).allSatisfy({ $0 | 0x20 == $1 })
    else { return nil }
    index += keyword.count
    if index < text.count {
      // `::: spoilers` is no marker.
      guard isSpace(text[index]) else { return nil }
    } else if nodes.count > 1 {
      return nil
    }
    let label = (String(decoding: text[index...], as: UTF8.self) + nodes.dropFirst().map(plainText).joined())
      .trimmingSpaces()
    return .opener(label: label.isEmpty ? nil : label)
  }

  /// The text a reader sees of `node`: its text and code, without raw HTML.
  static func plainText(_ node: Markdown.Node) -> String {
    var result = ""
    node.walk { node, entering in
      guard entering else { return }
      switch node.kind {
      case .text, .code: result += node.literal
      case .softBreak, .lineBreak: result += " "
      default: break
      }
    }
    return result
  }

  // MARK: Inlines

  /// Finds the inline spoilers of every paragraph, heading, emphasis and link text.
  private mutating func findInlines() {
    var nodes = [document.root]
    while let node = nodes.popLast() {
      switch node.kind {
      case .paragraph, .heading, .emphasis, .strong, .customInline: pairPipes(in: node)
      case .link where !Self.isAutolink(node): pairPipes(in: node)
      default: break
      }
      for child in node.children {
        switch child.kind {
        case .blockQuote, .list, .item, .customBlock, .paragraph, .heading, .emphasis, .strong, .link, .customInline:
          nodes.append(child)
        default: break
        }
      }
    }
  }

  /// Whether a link is an autolink (`<https://…>`), whose text is its destination: cmark gives
  /// it as a link holding the URL as text, which is no text of the reviewer's.
  private static func isAutolink(_ link: Markdown.Node) -> Bool {
    guard let text = link.firstChild, text.kind == .text, text.next == nil else { return false }
    let url = link.url
    let literal = text.literal
    return url == literal || url == "mailto:" + literal
  }

  /// A `||` in the text directly in a container: the child, the byte offset in its text, and
  /// which `||` of that text it is.
  private struct Pipe {
    let child: Int
    let offset: Int
    let rank: Int
  }

  /// Pairs the `||` of the text directly in `container`, each with the next, and moves what
  /// lies between each pair into a custom inline, cutting text nodes at the markers.
  private mutating func pairPipes(in container: Markdown.Node) {
    let children = container.children
    var texts: [Int: [UInt8]] = [:]
    var pipes: [Pipe] = []
    for (index, child) in children.enumerated() where child.kind == .text {
      let text = child.literalBytes
      let found = Self.pipes(in: text)
      guard !found.isEmpty else { continue }
      texts[index] = text
      pipes += found.enumerated().map { Pipe(child: index, offset: $1, rank: $0) }
    }
    guard pipes.count >= 2 else { return }

    var cuts: [Int: [(offset: Int, opens: Bool)]] = [:]
    var pairs: [(opener: Pipe, closer: Pipe)] = []
    var index = 0
    while index + 1 < pipes.count {
      let (opener, closer) = (pipes[index], pipes[index + 1])
      index += 2
      if isBlank(from: opener, to: closer, children: children, texts: texts) { continue }
      pairs.append((opener, closer))
      cuts[opener.child, default: []].append((opener.offset, true))
      cuts[closer.child, default: []].append((closer.offset, false))
    }
    guard !pairs.isEmpty else { return }

    // Every child moves to the end of the container or of the spoiler being built, in order,
    // and texts with markers are replaced by their pieces.
    var target = container
    var made: [(node: Markdown.Node, pair: (opener: Pipe, closer: Pipe))] = []
    var opened = 0
    for (index, child) in children.enumerated() {
      guard let marks = cuts[index], let text = texts[index] else {
        document.move(child, to: target)
        continue
      }
      var from = 0
      for mark in marks {
        if mark.offset > from {
          document.append(.text, to: target, literal: String(decoding: text[from..<mark.offset], as: UTF8.self))
        }
        from = mark.offset + 2
        if mark.opens {
          let pair = pairs[opened]
          opened += 1
          target = document.append(.customInline, to: container) ?? container
          if target != container { made.append((target, pair)) }
        } else {
          target = container
        }
      }
      if from < text.count {
        document.append(.text, to: target, literal: String(decoding: text[from...], as: UTF8.self))
      }
      document.discard(child)
    }
    for (node, pair) in made {
      spoilers.append(
        Spoiler(
          node: node, kind: .inline, opener: mark(of: pair.opener, in: children),
          closer: mark(of: pair.closer, in: children)))
    }
  }

  /// Where a `||` is in the source, if its text node could be placed.
  private func mark(of pipe: Pipe, in children: [Markdown.Node]) -> Mark? {
    origins[children[pipe.child]].map { Mark(line: $0.line, ordinal: $0.ordinal + pipe.rank) }
  }

  /// Whether nothing but spaces and line breaks lies between two `||`.
  private func isBlank(from opener: Pipe, to closer: Pipe, children: [Markdown.Node], texts: [Int: [UInt8]]) -> Bool {
    let blank: (ArraySlice<UInt8>) -> Bool = { $0.allSatisfy(Self.isSpace) }
    guard let first = texts[opener.child], let last = texts[closer.child] else { return false }
    if opener.child == closer.child { return blank(first[(opener.offset + 2)..<closer.offset]) }
    guard blank(first[(opener.offset + 2)...]), blank(last[..<closer.offset]) else { return false }
    return children[(opener.child + 1)..<closer.child].allSatisfy { child in
      child.kind.isBreak || (child.kind == .text && blank(child.literalBytes[...]))
    }
  }

  /// The byte offsets of the `||` in `text`, read from the left without overlap: `|||` is one
  /// marker and a pipe.
  static func pipes(in text: [UInt8]) -> [Int] {
    var found: [Int] = []
    var index = 0
    while index + 1 < text.count {
      if text[index] == UInt8(ascii: "|"), text[index + 1] == UInt8(ascii: "|") {
        found.append(index)
        index += 2
      } else {
        index += 1
      }
    }
    return found
  }

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
  }
}

extension String {
  /// The string without spaces and tabs at either end.
  fileprivate func trimmingSpaces() -> String {
    let bytes = Array(utf8)
    guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
      let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
    else { return "" }
    return String(decoding: bytes[first...last], as: UTF8.self)
  }
}
