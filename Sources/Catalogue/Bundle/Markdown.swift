import CCMark

/// Markdown to HTML through cmark, the CommonMark reference library: the only file that calls
/// cmark's C API.
///
/// cmark is safe by default (without `CMARK_OPT_UNSAFE`): raw HTML comes out as
/// `<!-- raw HTML omitted -->`, and links to `javascript:`, `vbscript:`, `file:` and non-image
/// `data:` URLs lose their target. On top of that, pictures from the web become plain links,
/// so that a page never loads anything from outside its folder.
enum Markdown {
  /// The HTML for `text`, a fragment to put inside `<body>`.
  static func html(_ text: String) -> String {
    let options = CMARK_OPT_DEFAULT
    var source = Array(text.utf8)
    // The corresponding C function is `cmark_parse_document`; it copies what it keeps.
    guard
      let document = source.withUnsafeMutableBufferPointer({ buffer in
        buffer.baseAddress.map { base in
          base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            cmark_parse_document($0, buffer.count, options)
          }
        } ?? cmark_parse_document("", 0, options)
      })
    else { return "" }
    defer { cmark_node_free(document) }
    for image in nodes(of: CMARK_NODE_IMAGE, in: document) where isOutside(url(of: image)) {
      linkInstead(of: image)
    }
    // The corresponding C function is `cmark_render_html`; the text is the caller's to free.
    guard let rendered = cmark_render_html(document, options) else { return "" }
    defer { CMemory.free(rendered) }
    return String(cString: rendered)
  }

  /// Every node of `type` below `root`, collected before any is changed.
  private static func nodes(of type: cmark_node_type, in root: OpaquePointer) -> [OpaquePointer] {
    guard let iterator = cmark_iter_new(root) else { return [] }
    defer { cmark_iter_free(iterator) }
    var found: [OpaquePointer] = []
    while cmark_iter_next(iterator) != CMARK_EVENT_DONE {
      if cmark_iter_get_event_type(iterator) == CMARK_EVENT_ENTER,
        let node = cmark_iter_get_node(iterator), cmark_node_get_type(node) == type
      {
        found.append(node)
      }
    }
    return found
  }

  private static func url(of node: OpaquePointer) -> String {
    cmark_node_get_url(node).map { String(cString: $0) } ?? ""
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

  /// Replaces a picture by a link to it, its description becoming the link's text.
  private static func linkInstead(of image: OpaquePointer) {
    guard let link = cmark_node_new(CMARK_NODE_LINK) else { return }
    cmark_node_set_url(link, cmark_node_get_url(image))
    cmark_node_set_title(link, cmark_node_get_title(image))
    while let child = cmark_node_first_child(image) {
      cmark_node_unlink(child)
      cmark_node_append_child(link, child)
    }
    if cmark_node_first_child(link) == nil, let text = cmark_node_new(CMARK_NODE_TEXT) {
      cmark_node_set_literal(text, cmark_node_get_url(image))
      cmark_node_append_child(link, text)
    }
    if cmark_node_replace(image, link) == 1 {
      cmark_node_free(image)
    } else {
      cmark_node_free(link)
    }
  }
}
