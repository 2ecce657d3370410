import Foundation
import CCMark

/// Markdown to HTML through cmark, the CommonMark reference library: the only file that calls
/// cmark's C API.
///
/// cmark is safe by default (without `CMARK_OPT_UNSAFE`): raw HTML comes out as
/// `<!-- raw HTML omitted -->`, and links to `javascript:`, `vbscript:`, `file:` and non-image
/// `data:` URLs lose their target. On top of that, pictures from the web become plain links,
/// so that a page never loads anything from outside its folder.
///
/// Reviews can hide spoilers, which cmark knows nothing of: `SpoilerMarkup` finds them in the
/// tree cmark parsed, so that code, raw HTML, autolinks and URLs can never hold one. Inline, a
/// spoiler is `||hidden text||` inside one paragraph, heading, emphasis or link text; as blocks,
/// a line `::: spoiler` (optionally followed by a label) and a line `:::` around any blocks, in
/// the same container. A lone `||` (one without a second in its paragraph), an empty `||||` and
/// `||` in a picture's description stay text as written.
///
/// To write two pipes as text, a reviewer puts them in a code span: `` `||` ``. A backslash does
/// not help: cmark removes escapes (and decodes entities such as `&#124;`) before it builds the
/// tree, so `\|\|` is a marker like `||`.
enum Markdown {
  /// How a page shows a spoiler.
  enum SpoilerStyle {
    /// Closed inside a `<details>`: the reader opens it.
    case disclosed
    /// A notice with none of its words, for feeds and previews that should not carry them.
    case notice
  }

  /// The HTML for `text`, a fragment to put inside `<body>`, with spoilers closed in
  /// `<details>` elements.
  static func html(_ text: String) -> String { html(text, spoilers: .disclosed) }

  /// The HTML for `text`, a fragment to put inside `<body>`, with spoilers shown as `style` says.
  ///
  /// A block spoiler is `<details class="spoiler"><summary>Spoiler: label</summary>…</details>`;
  /// an inline one `<details class="spoiler spoiler-inline"><summary>Spoiler</summary>…</details>`,
  /// and its paragraph becomes `<div class="paragraph">` since an HTML parser ends a `<p>` at a
  /// `<details>` (a tight list's item, written without `<p>`, stays as it is). As notices: `<p class="spoiler-notice">[spoiler hidden: label]</p>` and
  /// `<span class="spoiler-notice">[spoiler hidden]</span>`.
  static func html(_ text: String, spoilers style: SpoilerStyle) -> String {
    guard let document = Document(parsing: text) else { return "" }
    if mayHaveSpoilers(text) {
      let markup = SpoilerMarkup(in: document, tracingSource: false)
      switch style {
      case .disclosed: markup.disclose()
      case .notice: markup.replaceByNotices()
      }
    }
    for image in document.root.descendants(of: .image) where isOutside(image.url) {
      document.linkInstead(of: image)
    }
    return document.html()
  }

  /// The first sentence of `text` a preview may show: plain text (no markup, code blocks or
  /// raw HTML) from the first paragraph or heading, the first sentence that holds no spoiler
  /// and does not run into one, cut at a word to at most `maximumLength` characters with `…`.
  /// Empty when every sentence has a spoiler in it or there is no text.
  static func summary(_ text: String, maximumLength: Int) -> String {
    guard let document = Document(parsing: text) else { return "" }
    var hidden: Set<Node> = []
    if mayHaveSpoilers(text) {
      hidden = Set(SpoilerMarkup(in: document, tracingSource: false).spoilers.map(\.node))
    }
    // Each paragraph's and heading's text, a spoiler standing as U+FFFC wherever it was.
    var blocks: [String] = []
    var current: String?
    var insideSpoiler = 0
    document.root.walk { node, entering in
      if hidden.contains(node) {
        if entering {
          if insideSpoiler == 0 { current? += "\u{FFFC}" }
          insideSpoiler += 1
        } else {
          insideSpoiler -= 1
          // A hidden sentence ends the one it is in.
          let hiddenText = SpoilerMarkup.plainText(node).trimmingCharacters(in: .whitespaces)
          if insideSpoiler == 0, let last = hiddenText.last, ".!?…。！？".contains(last) { current? += "\u{2029}" }
        }
        // A block spoiler ends the sentence before it.
        if node.kind == .customBlock, !entering, insideSpoiler == 0 { blocks.append("\u{FFFC}") }
        return
      }
      guard insideSpoiler == 0 else { return }
      switch node.kind {
      case .paragraph, .heading:
        if entering {
          current = ""
        } else if let text = current {
          blocks.append(text)
          current = nil
        }
      case .text, .code: if entering { current? += node.literal }
      case .softBreak, .lineBreak: if entering { current? += " " }
      default: break
      }
    }
    for block in blocks {
      for sentence in sentences(in: block) where !sentence.contains("\u{FFFC}") {
        let clean = sentence.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard clean.contains(where: { $0.isLetter || $0.isNumber }) else { continue }
        return shortened(clean, to: maximumLength)
      }
    }
    return ""
  }

  /// `text` split after each `.`, `!`, `?` or `…` that is followed by a space (closing quotes
  /// and brackets kept with it), and after each `。`, `！`, `？` and U+2029 (where a hidden
  /// sentence ended).
  static func sentences(in text: String) -> [Substring] {
    var result: [Substring] = []
    var start = text.startIndex
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      var end = text.index(after: index)
      if "。！？\u{2029}".contains(character) {
        result.append(text[start..<end])
        start = end
      } else if ".!?…".contains(character) {
        while end < text.endIndex, "\"'”’»)]".contains(text[end]) { end = text.index(after: end) }
        if end == text.endIndex || text[end].isWhitespace {
          result.append(text[start..<end])
          start = end
        }
      }
      index = end
    }
    if start < text.endIndex { result.append(text[start...]) }
    return result
  }

  /// `text` at most `limit` characters long: cut after the last whole word that fits, with `…`.
  static func shortened(_ text: String, to limit: Int) -> String {
    guard text.count > limit else { return text }
    let room = text.prefix(max(limit - 1, 1))
    let endsAtWord = text[room.endIndex].isWhitespace
    let cut = endsAtWord ? room : room.lastIndex(where: \.isWhitespace).map { room[..<$0] } ?? room
    return cut.trimmingCharacters(in: .whitespaces.union(.punctuationCharacters)) + "…"
  }

  /// Whether `text` holds at least one spoiler that `html` would hide.
  static func hasSpoilers(_ text: String) -> Bool {
    guard mayHaveSpoilers(text), let document = Document(parsing: text) else { return false }
    return !SpoilerMarkup(in: document, tracingSource: false).spoilers.isEmpty
  }

  /// What the full-text index is given of a review's body: `text` as written when it holds no
  /// spoiler, otherwise `text` without the words of its spoilers (a block spoiler's label, which
  /// readers see, stays).
  ///
  /// A body without `||` or `:::` (see `mayHaveSpoilers`) is returned at once, unparsed: the
  /// index is rebuilt from every review.
  static func searchable(_ text: String) -> String {
    SpoilerText(text)?.searchable ?? text
  }

  /// `text` for a terminal that should not show spoilers: each replaced by
  /// `[spoiler: 12 words]` (`[spoiler: The ending, 40 words]` for a block with a label, on its
  /// own line), the rest as the reviewer wrote it. `text` without spoilers is returned as it is.
  static func masked(_ text: String) -> String {
    SpoilerText(text)?.masked ?? text
  }

  /// Whether `text` may hold a spoiler: whether it holds `||` or `:::`, or what cmark reads as
  /// a pipe or a colon (`\|`, `\:`, `&#124;`, `&vert;`, `&colon;`…). One pass over the bytes, so
  /// that the many bodies without markers are never parsed for them; the escapes and entities
  /// are counted because markers are found in the text as cmark reads it, and a body must not
  /// hold a spoiler or not depending on whether it also holds a `||` somewhere else.
  static func mayHaveSpoilers(_ text: String) -> Bool {
    /// Bytes as a number, the last lowest, to compare with the last bytes read at once.
    func tail(_ text: StaticString) -> UInt32 {
      UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount).reduce(0) { $0 << 8 | UInt32($1) }
    }
    let (pipes, escapedPipe, colons, escapedColon) = (tail("||"), tail("\\|"), tail(":::"), tail("\\:"))
    let (number, vert, capitalVert, colon) = (tail("&#"), tail("&ver"), tail("&Ver"), tail("&col"))
    func scan(_ bytes: some Sequence<UInt8>) -> Bool {
      var window: UInt32 = 0
      for byte in bytes {
        window = window << 8 | UInt32(byte)
        // Only the last byte of each sequence looks back.
        switch byte {
        case UInt8(ascii: "|"): if window & 0xFFFF == pipes || window & 0xFFFF == escapedPipe { return true }
        case UInt8(ascii: ":"): if window & 0xFF_FFFF == colons || window & 0xFFFF == escapedColon { return true }
        case UInt8(ascii: "#"): if window & 0xFFFF == number { return true }
        case UInt8(ascii: "r"): if window == vert || window == capitalVert { return true }
        case UInt8(ascii: "l"): if window == colon { return true }
        default: break
        }
      }
      return false
    }
    // Reading a native string's bytes in place is about twice as fast as through its view.
    return text.utf8.withContiguousStorageIfAvailable(scan) ?? scan(text.utf8)
  }

  /// Whether a picture's URL leads outside the page's folder: a scheme other than `data:`, or
  /// a network path (`//host/…`).
  static func isOutside(_ url: String) -> Bool {
    let trimmed = url.drop { $0 == " " }
    if trimmed.hasPrefix("//") || trimmed.hasPrefix("\\\\") { return true }
    guard let colon = trimmed.firstIndex(of: ":") else { return false }
    let scheme = trimmed[..<colon]
    guard let first = scheme.unicodeScalars.first, first.properties.isAlphabetic,
      scheme.unicodeScalars.allSatisfy({
        $0.isASCII && ($0.properties.isAlphabetic || "0123456789+-.".unicodeScalars.contains($0))
      })
    else { return false }
    return scheme.lowercased() != "data"
  }
}

// MARK: - cmark's tree

extension Markdown {
  /// The kinds of node in cmark's tree. The corresponding C type is `cmark_node_type`.
  enum Kind {
    case document, blockQuote, list, item, codeBlock, htmlBlock, customBlock, paragraph, heading
    case thematicBreak, text, softBreak, lineBreak, code, htmlInline, customInline, emphasis
    case strong, link, image, unknown

    fileprivate init(_ type: cmark_node_type) {
      switch type {
      case CMARK_NODE_DOCUMENT: self = .document
      case CMARK_NODE_BLOCK_QUOTE: self = .blockQuote
      case CMARK_NODE_LIST: self = .list
      case CMARK_NODE_ITEM: self = .item
      case CMARK_NODE_CODE_BLOCK: self = .codeBlock
      case CMARK_NODE_HTML_BLOCK: self = .htmlBlock
      case CMARK_NODE_CUSTOM_BLOCK: self = .customBlock
      case CMARK_NODE_PARAGRAPH: self = .paragraph
      case CMARK_NODE_HEADING: self = .heading
      case CMARK_NODE_THEMATIC_BREAK: self = .thematicBreak
      case CMARK_NODE_TEXT: self = .text
      case CMARK_NODE_SOFTBREAK: self = .softBreak
      case CMARK_NODE_LINEBREAK: self = .lineBreak
      case CMARK_NODE_CODE: self = .code
      case CMARK_NODE_HTML_INLINE: self = .htmlInline
      case CMARK_NODE_CUSTOM_INLINE: self = .customInline
      case CMARK_NODE_EMPH: self = .emphasis
      case CMARK_NODE_STRONG: self = .strong
      case CMARK_NODE_LINK: self = .link
      case CMARK_NODE_IMAGE: self = .image
      default: self = .unknown
      }
    }

    /// The C value, for the few kinds this file creates.
    fileprivate var cType: cmark_node_type {
      switch self {
      case .paragraph: CMARK_NODE_PARAGRAPH
      case .customBlock: CMARK_NODE_CUSTOM_BLOCK
      case .customInline: CMARK_NODE_CUSTOM_INLINE
      case .text: CMARK_NODE_TEXT
      case .link: CMARK_NODE_LINK
      default: CMARK_NODE_NONE
      }
    }

    /// A line break inside a paragraph: soft (a newline) or hard.
    var isBreak: Bool { self == .softBreak || self == .lineBreak }
  }

  /// One node of a `Document`'s tree, borrowed: valid while its document lives and holds it.
  struct Node: Hashable {
    fileprivate let pointer: OpaquePointer

    var kind: Kind { Kind(cmark_node_get_type(pointer)) }
    var parent: Node? { cmark_node_parent(pointer).map(Node.init) }
    var firstChild: Node? { cmark_node_first_child(pointer).map(Node.init) }
    var next: Node? { cmark_node_next(pointer).map(Node.init) }

    /// The node's children, collected before any is moved.
    var children: [Node] {
      var result: [Node] = []
      var child = firstChild
      while let node = child {
        result.append(node)
        child = node.next
      }
      return result
    }

    /// The text of a text, code, code block or raw HTML node; empty for the others.
    var literal: String { cmark_node_get_literal(pointer).map { String(cString: $0) } ?? "" }

    /// `literal` as UTF-8, read straight from cmark's copy.
    var literalBytes: [UInt8] {
      guard let text = cmark_node_get_literal(pointer) else { return [] }
      var count = 0
      while text[count] != 0 { count += 1 }
      return Array(UnsafeRawBufferPointer(start: text, count: count))
    }

    /// A link's or picture's destination; empty for the others.
    var url: String { cmark_node_get_url(pointer).map { String(cString: $0) } ?? "" }

    /// A link's or picture's title; empty for the others.
    var title: String { cmark_node_get_title(pointer).map { String(cString: $0) } ?? "" }

    /// The source lines (from 1) the node spans, as cmark records them: exact for blocks, not
    /// for inlines inside containers; 0 for nodes made after parsing.
    var startLine: Int { Int(cmark_node_get_start_line(pointer)) }
    var endLine: Int { Int(cmark_node_get_end_line(pointer)) }

    /// Whether a list is tight: cmark then writes its items' paragraphs without `<p>`.
    var isTightList: Bool { cmark_node_get_list_tight(pointer) != 0 }

    /// Sets what a custom node writes before and after its children, verbatim, in every output.
    func setCustomText(onEnter: String, onExit: String) {
      cmark_node_set_on_enter(pointer, onEnter)
      cmark_node_set_on_exit(pointer, onExit)
    }

    /// Calls `body` for each node of the subtree in document order, once entering and (for
    /// nodes that can have children) once leaving, without recursion: a body can nest
    /// thousands of block quotes. The tree must not change meanwhile.
    func walk(_ body: (_ node: Node, _ entering: Bool) -> Void) {
      guard let iterator = cmark_iter_new(pointer) else { return }
      defer { cmark_iter_free(iterator) }
      while true {
        let event = cmark_iter_next(iterator)
        if event == CMARK_EVENT_DONE { break }
        if let node = cmark_iter_get_node(iterator) {
          body(Node(pointer: node), event == CMARK_EVENT_ENTER)
        }
      }
    }

    /// Every node of `kind` in the subtree, collected before any is changed.
    func descendants(of kind: Kind) -> [Node] {
      var found: [Node] = []
      walk { node, entering in
        if entering, node.kind == kind { found.append(node) }
      }
      return found
    }
  }

  /// A parsed document: cmark's tree, owned, with the nodes taken out of it, all freed with it.
  final class Document {
    let root: Node
    /// The text parsed, as bytes: a spoiler's marker line is read there to tell a line that
    /// CommonMark continued lazily from one written inside a list or a quote.
    let source: [UInt8]
    /// Nodes unlinked from the tree: freed only at the end, so that no new node can take the
    /// address of one that a caller still has in a dictionary.
    private var discarded: [OpaquePointer] = []

    /// Parses `text` with cmark's safe defaults; nil only if cmark cannot allocate.
    init?(parsing text: String) {
      let options = CMARK_OPT_DEFAULT
      var source = Array(text.utf8)
      // The corresponding C function is `cmark_parse_document`; it copies what it keeps.
      let parsed = source.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress.map { base in
          base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            cmark_parse_document($0, buffer.count, options)
          }
        } ?? cmark_parse_document("", 0, options)
      }
      guard let parsed else { return nil }
      root = Node(pointer: parsed)
      self.source = source
    }

    /// The byte ranges of the source's lines, line 1 first; made when first asked.
    private(set) lazy var lines = Self.lineRanges(of: source)

    /// The bytes of the source's line `number` (from 1, as cmark counts), without its line
    /// ending; nil past the end.
    func sourceLine(_ number: Int) -> ArraySlice<UInt8>? {
      lines.indices.contains(number - 1) ? source[lines[number - 1]] : nil
    }

    /// The byte ranges of the source's lines, without their ends: `\n`, `\r\n` or `\r`, as cmark
    /// counts lines.
    static func lineRanges(of source: [UInt8]) -> [Range<Int>] {
      var lines: [Range<Int>] = []
      var start = 0
      var index = 0
      while index < source.count {
        let byte = source[index]
        if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
          lines.append(start..<index)
          if byte == UInt8(ascii: "\r"), index + 1 < source.count, source[index + 1] == UInt8(ascii: "\n") {
            index += 1
          }
          start = index + 1
        }
        index += 1
      }
      lines.append(start..<source.count)
      return lines
    }

    deinit {
      for node in discarded { cmark_node_free(node) }
      cmark_node_free(root.pointer)
    }

    /// A new node of `kind` (paragraph, custom block or inline, text) put before `sibling`;
    /// nil if cmark refuses it there.
    func insert(_ kind: Kind, before sibling: Node, literal: String? = nil) -> Node? {
      guard let node = make(kind, literal: literal) else { return nil }
      guard cmark_node_insert_before(sibling.pointer, node) == 1 else {
        cmark_node_free(node)
        return nil
      }
      return Node(pointer: node)
    }

    /// A new node of `kind` put last in `parent`; nil if cmark refuses it there.
    @discardableResult
    func append(_ kind: Kind, to parent: Node, literal: String? = nil) -> Node? {
      guard let node = make(kind, literal: literal) else { return nil }
      guard cmark_node_append_child(parent.pointer, node) == 1 else {
        cmark_node_free(node)
        return nil
      }
      return Node(pointer: node)
    }

    private func make(_ kind: Kind, literal: String?) -> OpaquePointer? {
      guard let node = cmark_node_new(kind.cType) else { return nil }
      if let literal { cmark_node_set_literal(node, literal) }
      return node
    }

    /// Moves `node`, with its children, to the end of `parent`. cmark refuses (and leaves it
    /// where it was) a child that `parent` cannot hold.
    @discardableResult
    func move(_ node: Node, to parent: Node) -> Bool {
      cmark_node_append_child(parent.pointer, node.pointer) == 1
    }

    /// Takes `node` and its children out of the tree.
    func discard(_ node: Node) {
      cmark_node_unlink(node.pointer)
      discarded.append(node.pointer)
    }

    /// Replaces a picture by a link to it, its description becoming the link's text.
    func linkInstead(of image: Node) {
      guard let link = insert(.link, before: image) else { return }
      cmark_node_set_url(link.pointer, cmark_node_get_url(image.pointer))
      cmark_node_set_title(link.pointer, cmark_node_get_title(image.pointer))
      for child in image.children { move(child, to: link) }
      if link.firstChild == nil { append(.text, to: link, literal: image.url) }
      discard(image)
    }

    /// The tree as HTML, raw HTML left out. The corresponding C function is `cmark_render_html`.
    func html() -> String {
      // The text is the caller's to free.
      guard let rendered = cmark_render_html(root.pointer, CMARK_OPT_DEFAULT) else { return "" }
      defer { CMemory.free(rendered) }
      return String(cString: rendered)
    }

    /// The tree as CommonMark, lines unwrapped. The corresponding C function is
    /// `cmark_render_commonmark`.
    func commonMark() -> String {
      guard let rendered = cmark_render_commonmark(root.pointer, CMARK_OPT_DEFAULT, 0) else { return "" }
      defer { CMemory.free(rendered) }
      return String(cString: rendered)
    }
  }
}
