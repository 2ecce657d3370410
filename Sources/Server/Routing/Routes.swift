import HTTP

/// Every route of the server, in one table: what each method and path does, who may use it,
/// what it takes and where it runs.
enum Routes {
  static let all: [Route] = pictures + pages + reach + api + reviewers

  /// The library's pictures and the server's assets: content-addressed, immutable, served
  /// from the file (sendfile) without looking at who asks.
  static let pictures: [Route] = [
    Route("GET", "/originals/:name", file: true, Files.original),
    Route(
      "GET", "/thumbnails/:name", file: true,
      needsWork: { service, _, captures in Files.thumbnailNeedsMaking(captures["name"] ?? "", service: service) },
      Files.thumbnail),
    Route(
      "GET", "/display/:name", file: true,
      needsWork: { service, _, captures in Files.displayNeedsMaking(captures["name"] ?? "", service: service) },
      Files.display),
    Route("GET", "/cards/:name", file: true, needsWork: { _, _, _ in true }, Files.card),
    Route("GET", "/assets/:name", file: true, Files.asset),
    Route("GET", "/favicon.ico", file: true, Files.favicon),
  ]

  /// Pages for readers and reviewers: HTML that works without JavaScript.
  static let pages: [Route] = [
    Route("GET", "/", cacheable: true, Pages.home),
    Route("GET", "/reviews/:id", cacheable: true, Pages.review),
    Route("GET", "/sign-in", Pages.signInForm),
    Route("POST", "/sign-in", body: .form, checksOwnForgery: true, Pages.signIn),
    Route("POST", "/sign-out", body: .form, Pages.signOut),
    Route("GET", "/new", access: .reviewer, keptOnBack: true, Pages.newReviewForm),
    Route("POST", "/new", access: .reviewer, body: .upload, keepsForm: .review, Pages.createReview),
    Route("GET", "/reviews/:id/edit", access: .reviewer, Pages.editForm),
    Route("POST", "/reviews/:id/edit", access: .reviewer, body: .form, keepsForm: .review, Pages.saveReview),
    Route("GET", "/reviews/:id/delete", access: .reviewer, Pages.deleteForm),
    Route("POST", "/reviews/:id/delete", access: .reviewer, body: .form, Pages.deleteReview),
    Route("POST", "/reviews/:id/publish", access: .reviewer, body: .form, Pages.publishReview),
    Route("POST", "/reviews/:id/unpublish", access: .reviewer, body: .form, Pages.unpublishReview),
    Route("POST", "/reviews/:id/images", access: .reviewer, body: .upload, Pages.uploadPictures),
    Route("POST", "/reviews/:id/images/:image/cover", access: .reviewer, body: .form, Pages.makeCover),
    Route("POST", "/reviews/:id/images/:image/move", access: .reviewer, body: .form, Pages.movePicture),
    Route("POST", "/reviews/:id/images/:image/replace", access: .reviewer, body: .upload, Pages.replacePicture),
    Route("POST", "/reviews/:id/images/:image/detach", access: .reviewer, body: .form, Pages.detachPicture),
    Route(
      "POST", "/reviews/:id/images/:image/describe", access: .reviewer, body: .form, keepsForm: .pictureText,
      Pages.describePicture),
    Route("POST", "/preview", access: .reviewer, body: .form, Pages.preview),
  ]

  /// What lets readers follow and share the site: feeds, and what search engines read. Readers'
  /// pages, kept by the page cache.
  static let reach: [Route] = [
    Route("GET", "/feed.atom", cacheable: true, Feeds.siteAtom),
    Route("GET", "/feed.json", cacheable: true, Feeds.siteJSON),
    Route("GET", "/categories/:category/feed.atom", cacheable: true, Feeds.categoryAtom),
    Route("GET", "/categories/:category/feed.json", cacheable: true, Feeds.categoryJSON),
    Route("GET", "/reviewers/:name/feed.atom", cacheable: true, Feeds.reviewerAtom),
    Route("GET", "/reviewers/:name/feed.json", cacheable: true, Feeds.reviewerJSON),
    Route("GET", "/robots.txt", cacheable: true, Pages.robots),
    Route("GET", "/sitemap.xml", cacheable: true, Pages.sitemap),
  ]

  /// Reviewers' pages, with their reviews, and their profiles in the API.
  static let reviewers: [Route] = [
    Route("GET", "/reviewers/:name", cacheable: true, Pages.reviewer),
    Route("GET", "/reviewers/:name/edit", access: .reviewer, Pages.profileForm),
    Route("POST", "/reviewers/:name/edit", access: .reviewer, body: .form, Pages.saveProfile),
    Route("GET", "/api/reviewers/:name", cacheable: true, API.reviewer),
    Route("PATCH", "/api/reviewers/:name", access: .reviewer, body: .json, API.editReviewer),
  ]

  /// The JSON API, with the shapes of the command line's `--json`.
  static let api: [Route] = [
    Route("GET", "/api/reviews", cacheable: true, API.list),
    Route("POST", "/api/reviews", access: .reviewer, body: .json, API.create),
    Route("GET", "/api/reviews/:id", cacheable: true, API.show),
    Route("PATCH", "/api/reviews/:id", access: .reviewer, body: .json, API.edit),
    Route("DELETE", "/api/reviews/:id", access: .reviewer, API.remove),
    Route("POST", "/api/reviews/:id/images", access: .reviewer, body: .upload, API.attach),
    Route("PUT", "/api/reviews/:id/images/:image", access: .reviewer, body: .upload, API.replace),
    Route("PATCH", "/api/reviews/:id/images/:image", access: .reviewer, body: .json, API.move),
    Route("DELETE", "/api/reviews/:id/images/:image", access: .reviewer, API.detach),
    Route("PUT", "/api/reviews/:id/cover", access: .reviewer, body: .json, API.cover),
    Route("GET", "/api/session", API.currentSession),
    Route("POST", "/api/session", body: .json, checksOwnForgery: true, API.signIn),
    Route("DELETE", "/api/session", API.signOut),
  ]
}
