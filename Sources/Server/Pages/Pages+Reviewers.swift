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
    if identity?.reviewer == profile.name && profile.hasAccount {
      main.append(#"<p class="actions"><a class="button" href="\#(e(filters.base))/edit">Edit your profile</a></p>"#)
    }
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
    let scope = Feeds.Scope.reviewer(name: profile.name, shown: shown)
    main.append(Feeds.follow(scope))
    // The page of record is theirs unfiltered, page by page.
    var plain = HomeFilters()
    plain.base = filters.base
    plain.page = filters.page
    let bioLine = profile.bio.map { ReviewText.summary($0, maximumLength: descriptionLength) } ?? ""
    let head = siteHead(
      title: title, description: bioLine.isEmpty ? "Spoiler-free reviews by \(shown)." : bioLine,
      canonical: plain == filters ? plain.link() : nil, site: exchange.site, feeds: [.site, scope])
    return document(title: title, identity: identity, main: main, search: filters.search, head: head)
  }

  /// A bio as plain text: a paragraph between blank lines, its lines kept.
  static func bio(_ text: String?) -> [String] {
    guard let text else { return [] }
    let paragraphs = text.components(separatedBy: "\n").split { $0.trimmingCharacters(in: .whitespaces).isEmpty }
    return [#"<div class="bio">"#] + paragraphs.map { "<p>" + $0.map(e).joined(separator: "<br>\n") + "</p>" }
      + ["</div>"]
  }

  // MARK: A reviewer's own profile

  /// `GET /reviewers/NAME/edit`: the signed-in reviewer's display name and bio in a form; 403
  /// for another reviewer's.
  @Sendable static func profileForm(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let account = try ownAccount(exchange)
    return profilePage(
      exchange, name: account.name, displayName: account.displayName ?? "", bio: account.bio ?? "", problems: [])
  }

  /// `POST /reviewers/NAME/edit` with `display-name` and `bio`: saves both (empty clears one),
  /// then their page says so; a profile that cannot be is shown again in its form, with why,
  /// and nothing changes.
  @Sendable static func saveProfile(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let account = try ownAccount(exchange)
    let shown = exchange.form["display-name"] ?? ""
    let bio = exchange.form["bio"] ?? ""
    do {
      _ = try exchange.library { (library) throws(CatalogueError) in
        try library.editReviewer(account.name, displayName: shown, bio: bio)
      }
    } catch  where error.status == 400 {
      var response = profilePage(exchange, name: account.name, displayName: shown, bio: bio, problems: [error.message])
      response.status = 400
      return response
    }
    return redirect(to: reviewerPath(account.name), notice: Notice(said: "Your profile is saved."), exchange)
  }

  /// The account the path names when it is the signed-in reviewer's, else a failure: a
  /// reviewer changes only their own profile.
  private static func ownAccount(_ exchange: Exchange) throws(Failure) -> Reviewer {
    let name = exchange.capture("name")
    let signedIn = exchange.identity?.reviewer
    let account = try exchange.library { (library) throws(CatalogueError) in try library.reviewer(named: name) }
    guard let account else { throw Failure(CatalogueError.reviewerNotFound(name)) }
    guard account.name == signedIn else {
      throw Failure(403, "a reviewer may change only their own profile, not \(account.name)'s")
    }
    return account
  }

  private static func profilePage(
    _ exchange: Exchange, name: String, displayName: String, bio: String, problems messages: [String]
  ) -> HTTPResponse {
    let path = reviewerPath(name)
    let invalid = messages.isEmpty ? "" : #" aria-invalid="true" aria-describedby="problems""#
    var main = ["<h1>Your profile</h1>"]
    main += problems(messages, focus: true)
    main += [
      #"<form class="editor" method="post" action="\#(e(path))/edit">\#(csrfField(exchange.identity))"#,
      #"<label>Display name (your name, \#(e(name)), when empty) "#
        + #"<input type="text" name="display-name" value="\#(e(displayName))" maxlength="\#(Library.maximumDisplayNameLength)"\#(invalid)></label>"#,
      #"<label>Bio (plain text; a blank line between paragraphs) "#
        + #"<textarea name="bio" rows="6" maxlength="\#(Library.maximumBioLength)"\#(invalid)>\#(e(bio))</textarea></label>"#,
      #"<p class="actions"><button class="primary">Save profile</button> <a class="button" href="\#(e(path))">Back to your page</a></p>"#,
      "</form>",
    ]
    return document(title: "Your profile", identity: exchange.identity, main: main)
  }
}
