import HTTP

extension CatalogueService {
  /// Whether the request asks for a search (its `parameter` given) that the page cache does not
  /// hold: it then runs on a worker. A search may take a hundred milliseconds and more on a
  /// large library (within the bounds the library sets a search); on the connection's thread, every
  /// thumbnail asked meanwhile would wait behind it, and a client asking one search after
  /// another would starve them. Workers run at a lower priority, so thumbnails keep their pace.
  func searchNeedsWork(_ head: HTTPRequestHead, parameter: String) -> Bool {
    guard let search = head.query[parameter], !search.isEmpty else { return false }
    // Kept pages are answered at once; a request with credentials is never answered from them.
    guard Self.credentials(in: head) == nil, options.pageCacheBytes > 0 else { return true }
    return pages.page(head.target, generation: pages.generation) == nil
  }
}
