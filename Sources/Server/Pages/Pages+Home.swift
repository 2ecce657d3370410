import Catalogue
import Foundation
import HTTP

/// What the home page shows: its filters, search, order, view and page, from the query.
struct HomeFilters: Sendable, Equatable {
  enum View: String, Sendable { case grid, list }

  /// The orders offered, as the page names them: the library's sort and whether it is reversed.
  static let orders: [(key: String, label: String, sort: ReviewQuery.Sort, reversed: Bool)] = [
    ("newest", "Newest first", .created, false),
    ("oldest", "Oldest first", .created, true),
    ("title", "Title A–Z", .title, false),
    ("title-desc", "Title Z–A", .title, true),
    ("rating", "Most stars", .rating, false),
    ("rating-asc", "Fewest stars", .rating, true),
    ("updated", "Recently changed", .updated, false),
    ("relevance", "Best match", .relevance, false),
  ]

  var search = ""
  var category: Category?
  var minimumRating: Int?
  var favoritesOnly = false
  var order: String?
  var view = View.grid
  var page = 1
  /// Which reviews a reviewer asked for (`show`): nil is the reviewer's default, published
  /// reviews and drafts together. Readers only ever see published reviews: asking for drafts
  /// without signing in leads to the sign-in (see ``Pages/home(_:)``).
  var showing: ReviewQuery.Showing?
  /// Whose reviews (`by`): a reviewer's name, or nil for everyone's.
  var author: String?
  /// The page these filters are of, which their links and form go to: `/`, or a reviewer's.
  var base = "/"

  /// The choices of `show`, as the filters offer them to a reviewer: the default first.
  static let showings: [(showing: ReviewQuery.Showing?, label: String)] = [
    (nil, "Published and drafts"), (.drafts, "Drafts only"), (.published, "Published only"),
  ]

  /// What the page calls the library's query parameters, in its messages.
  static let names = ReviewQuery.Names(
    category: "category", minimumRating: "minimum stars", favorites: "favorites", search: "a search", sort: "sort",
    reverse: "reverse", limit: "limit", offset: "offset")

  /// Every review, newest first, as a grid: the page `/` shows.
  init() {}

  /// Reads the query; a value that cannot be one is a failure that says which and why. The
  /// filters are read by the library's rules; the view, the page and the names of the orders
  /// are the page's own.
  init(_ query: QueryParameters) throws(Failure) {
    search = (query["q"] ?? "").trimmingCharacters(in: .whitespaces)
    if let key = query["sort"], !key.isEmpty {
      guard Self.orders.contains(where: { $0.key == key }) else {
        throw Failure.badRequest(
          "sort must be one of \(Self.orders.map(\.key).joined(separator: ", ")), not \(key)")
      }
      order = key
    }
    if let text = query["view"], !text.isEmpty {
      guard let view = View(rawValue: text) else { throw Failure.badRequest("view must be grid or list, not \(text)") }
      self.view = view
    }
    if let text = query["page"], !text.isEmpty {
      guard let page = Int(text), page >= 1, page <= 1_000_000 else {
        throw Failure.badRequest("page must be a number from 1, not \(text)")
      }
      self.page = page
    }
    if let text = query["show"], !text.isEmpty {
      guard let showing = ReviewQuery.Showing(rawValue: text) else {
        throw Failure.badRequest("show must be published, drafts or all, not \(text)")
      }
      // `all` is the default, and said by no parameter: one address for one page.
      self.showing = showing == .all ? nil : showing
    }
    var input = ReviewQueryInput()
    input.category = query["category"].flatMap { $0.isEmpty ? nil : $0 }
    input.minimumRating = query["min"].flatMap { $0.isEmpty ? nil : $0 }
    input.favorites = query["favorites"]
    input.by = query["by"].flatMap { $0.isEmpty ? nil : $0 }
    input.search = search.isEmpty ? nil : search
    if let order, let chosen = Self.orders.first(where: { $0.key == order }) {
      input.sort = chosen.sort.rawValue
    }
    do {
      let parsed = try ReviewQuery(input, names: Self.names)
      category = parsed.category
      minimumRating = parsed.minimumRating
      favoritesOnly = parsed.favoritesOnly
      author = parsed.author
    } catch {
      throw Failure(error)
    }
  }

  /// Whether nothing narrows the reviews down.
  var isUnfiltered: Bool {
    search.isEmpty && category == nil && minimumRating == nil && !favoritesOnly && showing == nil && author == nil
  }

  /// Whether the page asks for drafts, which only a reviewer may see.
  var asksForDrafts: Bool { showing != nil && showing != .published }

  /// The library's query for this page: for a reader (`reviewer` false) published reviews
  /// only, whatever the address says.
  func reviewQuery(pageSize: Int, reviewer: Bool) -> ReviewQuery {
    var query = ReviewQuery(
      category: category, minimumRating: minimumRating, favoritesOnly: favoritesOnly,
      search: search.isEmpty ? nil : search, limit: pageSize, offset: (page - 1) * pageSize,
      showing: reviewer ? (showing ?? .all) : .published, author: author)
    let key = order ?? (search.isEmpty ? "newest" : "relevance")
    if let chosen = Self.orders.first(where: { $0.key == key }) {
      query.sort = chosen.sort
      query.reversed = chosen.reversed
    }
    return query
  }

  /// The query string for these filters with some changed (nil leaves a parameter out).
  func link(view: View? = nil, page: Int? = nil) -> String {
    let view = view ?? self.view
    let page = page ?? self.page
    return base
      + Pages.query([
        ("q", search), ("by", author), ("category", category?.rawValue), ("min", minimumRating.map(String.init)),
        ("favorites", favoritesOnly ? "1" : nil), ("sort", order), ("show", showing?.rawValue),
        ("view", view == .grid ? nil : view.rawValue), ("page", page == 1 ? nil : String(page)),
      ])
  }
}

extension Pages {
  /// `/`: the reviews as a grid of covers (or a list), with filters, search, order and pages.
  ///
  /// A reader sees published reviews only, and of the categories only those published reviews
  /// use: nothing on the page (its counts, its choices, its pages) tells that a draft exists.
  /// A signed-in reviewer sees drafts too, each marked "Draft", and may narrow the grid with
  /// `show`: `drafts` (drafts only), `published`, or `all` (the default). A reader asking for
  /// drafts is sent to sign in first, as for any reviewer's page.
  @Sendable static func home(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let identity = exchange.identity
    let filters: HomeFilters
    do {
      filters = try HomeFilters(exchange.head.query)
    } catch {
      return Pages.error(error, identity: identity)
    }
    if identity == nil && filters.asksForDrafts { throw Failure.signInNeeded }
    let reviewer = identity != nil
    let pageSize = exchange.service.options.pageSize
    let result = try exchange.library {
      (library) throws(CatalogueError) -> Result<(ReviewPage, [Category]), CatalogueError> in
      let categories = try library.categoriesInUse(publishedOnly: !reviewer)
      do throws(CatalogueError) {
        return .success((try library.list(filters.reviewQuery(pageSize: pageSize, reviewer: reviewer)), categories))
      } catch {
        // A search that cannot be asked ("*") is the reader's to fix: the page says why.
        guard case .invalidQuery = error else { throw error }
        return .failure(error)
      }
    }
    var main: [String] = []
    let everyone = filters.search.isEmpty ? "Reviews" : "Reviews matching “\(filters.search)”"
    let heading = filters.author.map { everyone + " by \($0)" } ?? everyone
    main.append("<h1>\(e(heading))</h1>")
    main += notice(exchange)
    let categories: [Category]
    let page: ReviewPage?
    switch result {
    case .success(let (found, used)):
      (page, categories) = (found, used)
    case .failure(let error):
      (page, categories) = (nil, Category.known)
      main += problems([error.description])
    }
    main += filterForm(filters, categories: categories, reviewer: reviewer)
    guard let page else {
      return document(title: heading, identity: identity, main: main, status: 400, search: filters.search)
    }
    if let past = pastTheLastPage(page, filters: filters, pageSize: pageSize) {
      return document(title: heading, identity: identity, main: main + past, status: 404, search: filters.search)
    }
    main += reviews(page, filters: filters, pageSize: pageSize, nothing: nothingFound(filters))
    main.append(Feeds.follow(filters.category.map(Feeds.Scope.category) ?? .site))
    return document(
      title: heading, identity: identity, main: main, search: filters.search,
      head: homeHead(filters, categories: categories, site: exchange.site))
  }

  /// What a page past the last says (a link from before some reviews went): where the last
  /// one is; nil for a page that is not past it.
  static func pastTheLastPage(_ page: ReviewPage, filters: HomeFilters, pageSize: Int) -> [String]? {
    if page.reviews.isEmpty && page.total > 0 {
      // A page past the last (a link from before some reviews went): where the last one is.
      let last = (page.total + pageSize - 1) / pageSize
      let fit = page.total == 1 ? "the review fits" : "the \(page.total) reviews fit"
      let pages = last == 1 ? "one page" : "\(last) pages"
      // An estimated total says only roughly where the last page is: the first is certain.
      let link = e(filters.link(page: page.totalIsEstimate ? 1 : last))
      return [
        page.totalIsEstimate
          ? #"<p class="problem">There is no page \#(filters.page): the matches end before it. "#
            + #"<a href="\#(link)">Go to the first page</a>.</p>"#
          : #"<p class="problem">There is no page \#(filters.page): \#(fit) on \#(pages). "#
            + #"<a href="\#(link)">Go to the \#(last == 1 ? "first" : "last") page</a>.</p>"#
      ]
    }
    return nil
  }

  /// A page of reviews as the home page and a reviewer's page show it: how many, the choice of
  /// view, the grid of cards (or the list), and the links to the other pages; `nothing` when
  /// none is found.
  static func reviews(_ page: ReviewPage, filters: HomeFilters, pageSize: Int, nothing: String) -> [String] {
    var main = [#"<div class="toolbar">"#]
    // With nothing found, the message below says so, once.
    if page.total > 0 { main.append(#"<p class="count">\#(e(countText(page, pageSize: pageSize)))</p>"#) }
    main.append(
      #"<p class="views">View: "# + viewLink("Grid", .grid, filters) + " · " + viewLink("List", .list, filters) + "</p>"
    )
    main.append("</div>")
    if page.reviews.isEmpty {
      main.append(nothing)
    } else if filters.view == .grid {
      main.append(#"<ul class="cards">"#)
      for summary in page.reviews { main.append(HTML.cardItem(card(summary), lazy: true, heading: 2)) }
      main.append("</ul>")
    } else {
      main += listTable(page.reviews)
    }
    main += pager(page, filters: filters, pageSize: pageSize)
    return main
  }

  /// The home page's head: what the site holds, the canonical address of the pages a search
  /// engine should keep (every review, or one category's, page by page; not searches, nor
  /// other filters and orders), and the feeds of the reviews shown.
  static func homeHead(_ filters: HomeFilters, categories: [Category], site: PublicURL?) -> [String] {
    var plain = HomeFilters()
    plain.category = filters.category
    plain.page = filters.page
    let canonical = plain == filters ? plain.link() : nil
    let description: String
    var feeds = [Feeds.Scope.site]
    if let category = filters.category {
      description = "Spoiler-free reviews in \(category.displayName)."
      feeds.append(.category(category))
    } else if categories.isEmpty {
      description = "Spoiler-free reviews."
    } else {
      description = "Spoiler-free reviews: " + categories.map(\.displayName).joined(separator: ", ") + "."
    }
    let title = filters.category.map { "\(siteName): \($0.displayName)" } ?? siteName
    return siteHead(title: title, description: description, canonical: canonical, site: site, feeds: feeds)
  }

  static func card(_ summary: ReviewSummary) -> HTML.Card {
    HTML.Card(
      title: summary.title, rating: summary.rating, category: summary.category, favorite: summary.favorite,
      page: reviewPath(summary.id),
      cover: summary.cover.map { image in
        HTML.Picture(
          original: Files.originalURL(image), format: image.format, shown: Files.thumbnailURL(image),
          width: image.thumbnailWidth, height: image.thumbnailHeight, text: PictureText(alt: summary.coverAlt),
          highDensity: Files.highDensityThumbnailURL(image))
      }, containsSpoilers: summary.containsSpoilers, draft: summary.isDraft)
  }

  /// What an empty page says, once, with the way out: clearing the search, the filters, or
  /// both.
  static func nothingFound(_ filters: HomeFilters) -> String {
    if filters.isUnfiltered { return #"<p class="empty" role="status">No reviews yet.</p>"# }
    var withoutSearch = filters
    withoutSearch.search = ""
    if withoutSearch.order == "relevance" { withoutSearch.order = nil }
    var unfiltered = withoutSearch
    unfiltered.category = nil
    unfiltered.minimumRating = nil
    unfiltered.favoritesOnly = false
    unfiltered.showing = nil
    unfiltered.author = nil
    let all = #"<a href="\#(e(unfiltered.link(page: 1)))">show every review</a>"#
    guard !filters.search.isEmpty else {
      return #"<p class="empty" role="status">No review matches these filters. Clear them to \#(all).</p>"#
    }
    let clear = #"<a href="\#(e(withoutSearch.link(page: 1)))">Clear the search</a>"#
    let more = withoutSearch.isUnfiltered ? "" : #", or \#(all)"#
    return #"<p class="empty" role="status">No review matches “\#(e(filters.search))”. \#(clear)\#(more).</p>"#
  }

  static func countText(_ page: ReviewPage, pageSize: Int) -> String {
    if page.total == 0 { return "No reviews" }
    let total = page.totalIsEstimate ? "about \(page.total)" : "\(page.total)"
    if page.total <= pageSize && page.offset == 0 { return page.total == 1 ? "1 review" : "\(total) reviews" }
    if page.reviews.isEmpty { return "\(total) reviews" }
    return "\(page.offset + 1)–\(page.offset + page.reviews.count) of \(total) reviews"
  }

  static func viewLink(_ label: String, _ view: HomeFilters.View, _ filters: HomeFilters) -> String {
    filters.view == view
      ? #"<a href="\#(e(filters.link(view: view, page: 1)))" aria-current="page">\#(label)</a>"#
      : #"<a href="\#(e(filters.link(view: view, page: 1)))">\#(label)</a>"#
  }

  /// The filters as a form that works without script: its button applies them, and nothing else
  /// does, so that arrow keys in a list of choices never load a page. A reviewer's has a choice
  /// of published reviews, drafts or both.
  static func filterForm(_ filters: HomeFilters, categories: [Category], reviewer: Bool) -> [String] {
    var lines = [#"<form class="filters" method="get" action="\#(e(filters.base))">"#]
    if !filters.search.isEmpty { lines.append(hidden("q", filters.search)) }
    if let author = filters.author { lines.append(hidden("by", author)) }
    if filters.view != .grid { lines.append(hidden("view", filters.view.rawValue)) }
    var options = [#"<option value="">All</option>"#]
    var shown = Category.known
    for category in categories where !shown.contains(category) { shown.append(category) }
    if let chosen = filters.category, !shown.contains(chosen) { shown.append(chosen) }
    for category in shown {
      let selected = filters.category == category ? " selected" : ""
      options.append(#"<option value="\#(e(category.rawValue))"\#(selected)>\#(e(category.displayName))</option>"#)
    }
    lines.append(#"<label>Category <select name="category">\#(options.joined())</select></label>"#)
    var stars = [#"<option value="">Any</option>"#]
    for count in 1...5 {
      let selected = filters.minimumRating == count ? " selected" : ""
      stars.append(#"<option value="\#(count)"\#(selected)>\#(count)+ ★</option>"#)
    }
    lines.append(#"<label>Stars <select name="min">\#(stars.joined())</select></label>"#)
    var orders: [String] = []
    let current = filters.order ?? (filters.search.isEmpty ? "newest" : "relevance")
    for order in HomeFilters.orders where order.key != "relevance" || !filters.search.isEmpty {
      let selected = order.key == current ? " selected" : ""
      orders.append(#"<option value="\#(order.key)"\#(selected)>\#(e(order.label))</option>"#)
    }
    lines.append(#"<label>Order <select name="sort">\#(orders.joined())</select></label>"#)
    if reviewer {
      let shows = HomeFilters.showings.map { choice in
        let selected = choice.showing == filters.showing ? " selected" : ""
        return #"<option value="\#(choice.showing?.rawValue ?? "")"\#(selected)>\#(choice.label)</option>"#
      }
      lines.append(#"<label>Show <select name="show">\#(shows.joined())</select></label>"#)
    }
    lines.append(
      #"<label class="check"><input type="checkbox" name="favorites" value="1"\#(filters.favoritesOnly ? " checked" : "")> Favourites only</label>"#
    )
    lines.append("<button>Apply filters</button>")
    lines.append("</form>")
    return lines
  }

  /// The list view: a row a review, with a small cover (hidden from screen readers and the tab
  /// order, as it repeats the title's link); on a narrow screen each row is a card, its cells
  /// named by their `data-label`.
  static func listTable(_ reviews: [ReviewSummary]) -> [String] {
    var lines = [
      #"<table class="list">"#,
      "<thead><tr><th></th><th>Title</th><th>Stars</th><th>Category</th><th>Pictures</th><th>Reviewed</th></tr></thead>",
      "<tbody>",
    ]
    for summary in reviews {
      let path = e(reviewPath(summary.id))
      var picture = ""
      if let cover = summary.cover {
        let shown = HTML.Picture(
          original: Files.originalURL(cover), format: cover.format, shown: Files.thumbnailURL(cover),
          width: cover.thumbnailWidth, height: cover.thumbnailHeight, highDensity: Files.highDensityThumbnailURL(cover))
        picture =
          #"<a href="\#(path)" aria-hidden="true" tabindex="-1"><img \#(shown.sourceAttributes) alt="\#(e(summary.coverAlt ?? ""))" loading="lazy"></a>"#
      }
      let filled = min(max(summary.rating, 0), 5)
      let stars =
        #"<span class="stars" role="img" aria-label="\#(filled) of 5 stars">"#
        + String(repeating: "★", count: filled) + String(repeating: "☆", count: 5 - filled) + "</span>"
      let created = DateText.format(summary.created)
      var badges = ""
      if summary.isDraft || summary.containsSpoilers {
        badges = " "
        HTML.appendBadges(draft: summary.isDraft, containsSpoilers: summary.containsSpoilers, to: &badges)
      }
      lines.append(
        #"<tr><td class="picture">\#(picture)</td><td><a href="\#(path)">\#(e(summary.title))</a>\#(summary.favorite ? #" <span class="favorite" title="Favourite">♥</span>"# : "")\#(badges)</td>"#
          + #"<td data-label="Stars">\#(stars)</td><td data-label="Category">\#(e(summary.category.displayName))</td>"#
          + #"<td data-label="Pictures">\#(summary.imageCount)</td>"#
          + #"<td data-label="Reviewed"><time datetime="\#(created)">\#(created.prefix(10))</time></td></tr>"#)
    }
    lines += ["</tbody>", "</table>"]
    return lines
  }

  static func pager(_ page: ReviewPage, filters: HomeFilters, pageSize: Int) -> [String] {
    let pages = max(1, (page.total + pageSize - 1) / pageSize)
    guard pages > 1 else { return [] }
    var parts: [String] = []
    if filters.page > 1 {
      parts.append(#"<a rel="prev" href="\#(e(filters.link(page: min(filters.page - 1, pages))))">← Previous page</a>"#)
    }
    parts.append("<span>Page \(filters.page) of \(page.totalIsEstimate ? "about " : "")\(pages)</span>")
    if filters.page < pages {
      parts.append(#"<a rel="next" href="\#(e(filters.link(page: filters.page + 1)))">Next page →</a>"#)
    }
    return [#"<nav class="pager" aria-label="Pages">"#] + parts + ["</nav>"]
  }
}
