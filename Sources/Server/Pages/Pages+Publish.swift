import Catalogue
import HTTP

extension Pages {
  // MARK: Publishing

  /// `POST /reviews/ID/publish`: readers can see the review from now on (a draft's
  /// published time is now; its updated time stays). Back to the review's page, which says so.
  @Sendable static func publishReview(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    try setPublished(exchange, true)
  }

  /// `POST /reviews/ID/unpublish`: the review goes back to being a draft, which readers no
  /// longer see (nor learn it was there). Back to its page, which offers to publish it again.
  @Sendable static func unpublishReview(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    try setPublished(exchange, false)
  }

  /// Publishes the review the path names, or takes it back to a draft, then says what was
  /// done (or that it was so already: a second press, another tab) on the review's page.
  private static func setPublished(_ exchange: Exchange, _ publish: Bool) throws(Failure) -> HTTPResponse {
    let reference = exchange.capture("id")
    let (wasDraft, review) = try exchange.library { (library) throws(CatalogueError) -> (Bool, Review) in
      let before = try library.review(reference)
      return (before.isDraft, try library.update(before.id, changes: ReviewChanges(publish: publish)))
    }
    let said: String
    switch (publish, wasDraft) {
    case (true, true): said = "Published: readers can see this review now."
    case (true, false): said = "This review was published already."
    case (false, false): said = "Back to a draft: only reviewers can see this review now."
    case (false, true): said = "This review was a draft already."
    }
    return redirect(to: reviewPath(review.id), notice: Notice(said: said), exchange)
  }

  /// Where a review stands (published, or a draft only reviewers see), with the button that
  /// changes it and the link to the page as readers see it: for the editor, below its fields
  /// (a form of its own, since forms cannot nest).
  static func publishing(_ review: Review, identity: Identity?) -> [String] {
    let path = reviewPath(review.id)
    let csrf = csrfField(identity)
    let preview = #"<a href="\#(path)?preview=reader">Preview as a reader</a>"#
    if review.isDraft {
      return [
        #"<section class="publishing" aria-label="Publishing">"#,
        "<p><strong>Draft:</strong> only reviewers can see this review.</p>",
        #"<form method="post" action="\#(path)/publish">\#(csrf)<button>Publish</button> \#(preview)</form>"#,
        "</section>",
      ]
    }
    return [
      #"<section class="publishing" aria-label="Publishing">"#,
      "<p><strong>Published:</strong> readers can see this review.</p>",
      #"<form method="post" action="\#(path)/unpublish">\#(csrf)<button>Back to draft</button> \#(preview)</form>"#,
      "</section>",
    ]
  }
}
