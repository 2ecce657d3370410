import Catalogue
import Foundation
import HTTP

extension Pages {
  /// The page of the reviewer `name`: their name percent-encoded as one path segment.
  static func reviewerPath(_ name: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return "/reviewers/" + (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
  }

  /// `/reviewers/NAME`: a reviewer's display name, their name when it differs, their bio and
  /// the reviews they wrote, with the home page's filters, order, views and pages (its `by`
  /// is this page's address). The name matches in any case; another case than the stored one
  /// is sent on to it.
  ///
  /// A reader sees published reviews only, counted as such, and no page at all for a name
  /// with none: a reviewer who has published nothing, or a name no one has, is not found in
  /// the same words. A reviewer removed since keeps a page of their name and reviews. A
  /// signed-in reviewer sees drafts too, marked, and may choose with `show` as on `/`.
  @Sendable static func reviewer(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let name = exchange.capture("name")
    let identity = exchange.identity
    var filters: HomeFilters
    do {
      filters = try HomeFilters(exchange.head.query)
    } catch {
      return Pages.error(error, identity: identity)
    }
    if filters.author != nil {
      return Pages.error(
        Failure.badRequest("by does not go with a reviewer's page: it lists their reviews already"),
        identity: identity)
    }
    if identity == nil && filters.asksForDrafts { throw Failure.signInNeeded }
    let reviewer = identity != nil
    let pageSize = exchange.service.options.pageSize
    let found = try exchange.library {
      (library) throws(CatalogueError) -> (ReviewerProfile, Result<(ReviewPage, [Category]), CatalogueError>?)? in
      guard let profile = try library.reviewerProfile(named: name, publishedOnly: !reviewer) else { return nil }
      // Another case of the name: the page is sent on, and not read here.
      guard profile.name == name else { return (profile, nil) }
      let categories = try library.categoriesInUse(publishedOnly: !reviewer)
      var query = filters.reviewQuery(pageSize: pageSize, reviewer: reviewer)
      query.author = profile.name
      do throws(CatalogueError) {
        return (profile, .success((try library.list(query), categories)))
      } catch {
        guard case .invalidQuery = error else { throw error }
        return (profile, .failure(error))
      }
    }
    guard let (profile, listed) = found else {
      throw Failure.notFound(
        "no reviewer \(name) here: the address may be mistyped, or they have published nothing yet")
    }
    filters.base = reviewerPath(profile.name)
    guard let result = listed else { return redirect(to: filters.link()) }

    let shown = profile.shownName
    let heading = filters.search.isEmpty ? shown : "\(shown): reviews matching “\(filters.search)”"
    var main = ["<h1>\(e(shown))</h1>"]
    if profile.displayName != nil && shown != profile.name {
      main.append(#"<p class="facts">Reviewer \#(e(profile.name))</p>"#)
    }
    main += bio(profile.bio)
    main += notice(exchange)
    let categories: [Category]
    let page: ReviewPage?
    switch result {
    case .success(let (listed, used)):
      (page, categories) = (listed, used)
    case .failure(let error):
      (page, categories) = (nil, Category.known)
      main += problems([error.description])
    }
    main += filterForm(filters, categories: categories, reviewer: reviewer)
    let title = "Reviews by \(shown)"
    guard let page else {
      return document(title: heading, identity: identity, main: main, status: 400, search: filters.search)
    }
    if let past = pastTheLastPage(page, filters: filters, pageSize: pageSize) {
      return document(title: title, identity: identity, main: main + past, status: 404, search: filters.search)
    }
    let nothing =
      filters.isUnfiltered
      ? #"<p class="empty" role="status">\#(e(shown)) has published no reviews yet.</p>"# : nothingFound(filters)
    main += reviews(page, filters: filters, pageSize: pageSize, nothing: nothing)
    return document(title: title, identity: identity, main: main, search: filters.search)
  }

  /// A bio as plain text: a paragraph between blank lines, its lines kept.
  static func bio(_ text: String?) -> [String] {
    guard let text else { return [] }
    let paragraphs = text.components(separatedBy: "\n").split { $0.trimmingCharacters(in: .whitespaces).isEmpty }
    return [#"<div class="bio">"#] + paragraphs.map { "<p>" + $0.map(e).joined(separator: "<br>\n") + "</p>" }
      + ["</div>"]
  }
}
