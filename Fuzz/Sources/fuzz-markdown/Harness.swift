import Catalogue

/// Feeds libFuzzer's input to the review body's renderings: the page's HTML with each spoiler
/// in a closed disclosure, the HTML with spoilers replaced by a notice, what `show` prints and
/// what the search index is given. The spoiler markup moves cmark's nodes about by hand, so
/// every input must come through without a crash, a leak or a hang, and each disclosure opened
/// must be closed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let bytes =
    start.map { UnsafeRawBufferPointer(start: $0, count: count) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
  let body = String(decoding: bytes, as: UTF8.self)
  let html = HTML.markdown(body)
  let opened = html.components(separatedBy: "<details").count
  let closed = html.components(separatedBy: "</details>").count
  if opened != closed { fatalError("unbalanced disclosures: \(opened - 1) opened, \(closed - 1) closed") }
  let hidden = ReviewText.htmlHidingSpoilers(body)
  if hidden.contains("<details") { fatalError("a spoiler kept its words where they are to be hidden") }
  _ = ReviewText.masked(body)
  _ = ReviewText.searchable(body)
  return 0
}
