import Catalogue
import Foundation
import HTTP
import ImagePipeline

/// The fields of the review form, as typed (kept when the form comes back with problems).
struct ReviewForm: Sendable {
  var title = ""
  var body = ""
  var rating = "3"
  var category = "movie"
  var favorite = false
  var newCategory = false

  init() {}

  init(_ review: Review) {
    title = review.title
    body = review.body
    rating = String(review.rating)
    category = review.category.rawValue
    favorite = review.favorite
  }

  init(_ fields: FormFields) {
    title = fields["title"] ?? ""
    body = fields["body"] ?? ""
    rating = fields["rating"] ?? ""
    category = (fields["category"] ?? "").trimmingCharacters(in: .whitespaces)
    favorite = fields.has("favorite")
    newCategory = fields.has("new-category")
  }

  /// The draft, or the problem with the rating (the library reports the others).
  func draft() throws(CatalogueError) -> ReviewDraft {
    guard let stars = Int(rating.trimmingCharacters(in: .whitespaces)) else {
      throw .invalidReview(["rating \"\(rating)\" is not a whole number of stars (0 to 5)"])
    }
    return ReviewDraft(title: title, body: body, rating: stars, category: category, favorite: favorite)
  }
}

extension Pages {
  // MARK: New review

  /// `GET /new`: an empty review form, pictures included.
  @Sendable static func newReviewForm(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let categories = try exchange.library { (library) throws(CatalogueError) in try library.categoriesInUse() }
    return newReviewPage(exchange, form: ReviewForm(), categories: categories, problems: [], status: 200)
  }

  /// `POST /new`: adds the review with its pictures, all or nothing, as `catalogue add` does.
  @Sendable static func createReview(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let form = ReviewForm(exchange.form)
    let uploads = exchange.files(named: "file")
    let outcome = try exchange.library { (library) throws(CatalogueError) -> Result<Review, CatalogueError> in
      do throws(CatalogueError) {
        let draft = try form.draft()
        if !form.newCategory { try library.checkNewCategory(draft.category) }
        if uploads.isEmpty { return .success(try library.create(draft)) }
        let created = try library.create(
          draft, attaching: uploads.map(\.file.path), named: uploads.map(\.filename), jobs: importJobs)
        return .success(created.review)
      } catch {
        guard Failure.status(of: error) < 500 else { throw error }
        return .failure(error)
      }
    }
    switch outcome {
    case .success(let review):
      return redirect(to: reviewPath(review.id) + "?done=created")
    case .failure(let error):
      let categories = try exchange.library { (library) throws(CatalogueError) in try library.categoriesInUse() }
      return newReviewPage(
        exchange, form: form, categories: categories, problems: messages(of: error), status: Failure.status(of: error))
    }
  }

  static func newReviewPage(
    _ exchange: Exchange, form: ReviewForm, categories: [Category], problems messages: [String], status: Int
  ) -> HTTPResponse {
    var main = ["<h1>New review</h1>"]
    main += problems(messages)
    main.append(#"<form class="editor" method="post" action="/new" enctype="multipart/form-data">"#)
    main.append(csrfField(exchange.identity))
    main += fields(form, categories: categories)
    main.append(
      #"<label>Pictures <input type="file" name="file" multiple accept="image/*,.heic,.heif,.avif,.webp"></label>"#)
    main.append(#"<p><button class="primary">Add review</button> <a href="/">Cancel</a></p>"#)
    main.append("</form>")
    return document(title: "New review", identity: exchange.identity, main: main, status: status)
  }

  /// The review's fields as form controls.
  static func fields(_ form: ReviewForm, categories: [Category]) -> [String] {
    var ratings: [String] = []
    for stars in 0...5 {
      let selected = form.rating == String(stars) ? " selected" : ""
      let label = String(repeating: "★", count: stars) + String(repeating: "☆", count: 5 - stars)
      ratings.append(#"<option value="\#(stars)"\#(selected)>\#(label) (\#(stars))</option>"#)
    }
    var labels = Category.known
    for category in categories where !labels.contains(category) { labels.append(category) }
    let options = labels.map { #"<option value="\#(e($0.rawValue))">\#(e($0.displayName))</option>"# }.joined()
    return [
      #"<label>Title <input type="text" name="title" value="\#(e(form.title))" maxlength="\#(ReviewDraft.maximumTitleLength)" required></label>"#,
      #"<label>Stars <select name="rating">\#(ratings.joined())</select></label>"#,
      #"<label>Category <input type="text" name="category" value="\#(e(form.category))" list="categories" required></label>"#,
      #"<datalist id="categories">\#(options)</datalist>"#,
      #"<label class="check"><input type="checkbox" name="new-category" value="1"\#(form.newCategory ? " checked" : "")> A new category of my own (not a typo of one in use)</label>"#,
      #"<label class="check"><input type="checkbox" name="favorite" value="1"\#(form.favorite ? " checked" : "")> Favourite</label>"#,
      #"<label>Review (Markdown) <textarea name="body" rows="16">\#(e(form.body))</textarea></label>"#,
    ]
  }

  // MARK: Editing

  /// `GET /reviews/ID/edit`: the fields, the pictures (cover, order, replace, detach) and an
  /// upload form.
  @Sendable static func editForm(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let reference = exchange.capture("id")
    let (review, categories) = try exchange.library { (library) throws(CatalogueError) in
      (try library.review(reference), try library.categoriesInUse())
    }
    if review.id != reference { return redirect(to: reviewPath(review.id) + "/edit") }
    return editPage(
      exchange, review: review, form: ReviewForm(review), categories: categories,
      notices: notice(exchange.head.query["done"]), problems: [], status: 200)
  }

  /// `POST /reviews/ID/edit`: saves the fields, in one transaction with what is read.
  @Sendable static func saveReview(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let reference = exchange.capture("id")
    let form = ReviewForm(exchange.form)
    let outcome = try exchange.library { (library) throws(CatalogueError) -> Result<Review, CatalogueError> in
      do throws(CatalogueError) {
        let draft = try form.draft()
        let current = try library.review(reference)
        if !form.newCategory && draft.category != current.category.rawValue {
          try library.checkNewCategory(draft.category)
        }
        let changes = ReviewChanges(
          title: draft.title, body: draft.body, rating: draft.rating, category: draft.category, favorite: draft.favorite
        )
        return .success(try library.update(current.id, changes: changes))
      } catch {
        switch error {
        case .reviewNotFound, .badReviewReference, .ambiguousReview: throw error
        default:
          guard Failure.status(of: error) < 500 else { throw error }
          return .failure(error)
        }
      }
    }
    switch outcome {
    case .success(let review):
      return redirect(to: reviewPath(review.id) + "?done=saved")
    case .failure(let error):
      let (review, categories) = try exchange.library { (library) throws(CatalogueError) in
        (try library.review(reference), try library.categoriesInUse())
      }
      return editPage(
        exchange, review: review, form: form, categories: categories, notices: [], problems: messages(of: error),
        status: Failure.status(of: error))
    }
  }

  static func editPage(
    _ exchange: Exchange, review: Review, form: ReviewForm, categories: [Category], notices: [String],
    problems messages: [String], status: Int
  ) -> HTTPResponse {
    let path = reviewPath(review.id)
    let csrf = csrfField(exchange.identity)
    var main = [#"<div class="editing">"#, "<h1>Edit “\(e(review.title))”</h1>"]
    main += notices
    main += problems(messages)
    main.append(#"<form class="editor" method="post" action="\#(path)/edit">"#)
    main.append(csrf)
    main += fields(form, categories: categories)
    main.append(#"<p><button class="primary">Save</button> <a href="\#(path)">Back to the review</a></p>"#)
    main.append("</form>")

    main.append(#"<section class="pictures">"#)
    main.append("<h2>Pictures</h2>")
    if review.images.isEmpty { main.append("<p>No pictures yet.</p>") }
    main.append(#"<ul class="gallery">"#)
    for item in review.images {
      main += galleryItem(item, count: review.images.count, path: path, csrf: csrf)
    }
    main.append("</ul>")
    main.append(#"<form method="post" action="\#(path)/images" enctype="multipart/form-data">"#)
    main.append(csrf)
    main.append(
      #"<label>Add pictures <input type="file" name="file" multiple required accept="image/*,.heic,.heif,.avif,.webp"></label> <button class="primary">Upload</button>"#
    )
    main.append("</form>")
    main.append("</section>")
    main.append(#"<p><a class="button" href="\#(path)/delete">Delete this review…</a></p>"#)
    main.append("</div>")
    return document(title: "Edit \(review.title)", identity: exchange.identity, main: main, status: status)
  }

  // MARK: Deleting

  /// `GET /reviews/ID/delete`: asks first.
  @Sendable static func deleteForm(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let reference = exchange.capture("id")
    let review = try exchange.library { (library) throws(CatalogueError) in try library.review(reference) }
    let path = reviewPath(review.id)
    let pictures = review.images.count
    return document(
      title: "Delete \(review.title)", identity: exchange.identity,
      main: [
        "<h1>Delete “\(e(review.title))”?</h1>",
        "<p>The review\(pictures == 0 ? "" : " and its \(pictures == 1 ? "picture" : "\(pictures) pictures")") will be deleted for good.</p>",
        #"<form method="post" action="\#(path)/delete">\#(csrfField(exchange.identity))<button class="danger">Delete for good</button> <a href="\#(path)">Keep it</a></form>"#,
      ])
  }

  /// `POST /reviews/ID/delete`.
  @Sendable static func deleteReview(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let reference = exchange.capture("id")
    try exchange.library { (library) throws(CatalogueError) in _ = try library.delete(reference) }
    return redirect(to: "/?done=deleted")
  }

  // MARK: Pictures

  /// `POST /reviews/ID/images`: attaches the uploaded pictures, as `catalogue attach` does:
  /// the ones that cannot be used are named, the others attached.
  @Sendable static func uploadPictures(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let reference = exchange.capture("id")
    let uploads = exchange.files(named: "file")
    guard !uploads.isEmpty else {
      return try editPageAfter(exchange, reference, problems: ["choose at least one picture to upload"], status: 400)
    }
    let report = try exchange.library { (library) throws(CatalogueError) in
      try library.attach(
        files: uploads.map(\.file.path), named: uploads.map(\.filename), to: reference, jobs: importJobs)
    }
    if report.failures.isEmpty && report.warnings.isEmpty {
      return redirect(to: reviewPath(report.review.id) + "/edit?done=uploaded")
    }
    let status = report.attached.isEmpty ? report.failures.first.map { Failure.status(of: $0.error) } ?? 400 : 200
    var notices: [String] = []
    if !report.attached.isEmpty {
      notices.append(
        #"<p class="notice" role="status">\#(report.attached.count == 1 ? "1 picture added." : "\(report.attached.count) pictures added.")</p>"#
      )
    }
    if !report.warnings.isEmpty {
      notices.append(
        #"<div class="notice"><ul>"# + report.warnings.map { "<li>\(e("\($0.source): \($0.message)"))</li>" }.joined()
          + "</ul></div>")
    }
    return try editPageAfter(
      exchange, reference, notices: notices, problems: report.failures.map { $0.error.description }, status: status)
  }

  /// `POST /reviews/ID/images/N/cover`.
  @Sendable static func makeCover(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    try pictureChange(exchange, done: "cover") { (library, review, image) throws(CatalogueError) in
      _ = try library.setCover(review, image: image)
    }
  }

  /// `POST /reviews/ID/images/N/move` with `to`, the new position.
  @Sendable static func movePicture(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    guard let text = exchange.form["to"], let position = Int(text) else {
      throw Failure.badRequest("say where to move the picture: a position (1, 2, …)")
    }
    return try pictureChange(exchange, done: "moved") { (library, review, image) throws(CatalogueError) in
      _ = try library.move(review, image: image, to: position)
    }
  }

  /// `POST /reviews/ID/images/N/detach`.
  @Sendable static func detachPicture(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    try pictureChange(exchange, done: "detached") { (library, review, image) throws(CatalogueError) in
      _ = try library.detach(review, image: image)
    }
  }

  /// `POST /reviews/ID/images/N/replace` with one file.
  @Sendable static func replacePicture(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let uploads = exchange.files(named: "file")
    guard uploads.count == 1, let upload = uploads.first else {
      return try editPageAfter(
        exchange, exchange.capture("id"), problems: ["choose one picture to put in its place"], status: 400)
    }
    return try pictureChange(exchange, done: "replaced") { (library, review, image) throws(CatalogueError) in
      _ = try library.replace(review, image: image, with: upload.file.path, named: upload.filename)
    }
  }

  /// Runs a change to one picture, then back to the editor with a notice, or with the problem.
  private static func pictureChange(
    _ exchange: Exchange, done: String,
    _ change: (Library, String, String) throws(CatalogueError) -> Void
  ) throws(Failure) -> HTTPResponse {
    let reference = exchange.capture("id")
    let image = exchange.capture("image")
    let problem = try exchange.library { (library) throws(CatalogueError) -> CatalogueError? in
      do throws(CatalogueError) {
        try change(library, reference, image)
        return nil
      } catch {
        // No such review is a page of its own; a problem with the picture shows in the editor.
        switch error {
        case .reviewNotFound, .badReviewReference, .ambiguousReview: throw error
        default:
          guard Failure.status(of: error) < 500 else { throw error }
          return error
        }
      }
    }
    if let problem {
      return try editPageAfter(
        exchange, reference, problems: messages(of: problem), status: Failure.status(of: problem))
    }
    let id = try exchange.library { (library) throws(CatalogueError) in try library.resolve(reference) }
    return redirect(to: reviewPath(id) + "/edit?done=\(done)")
  }

  /// The editor as it is now, with what just happened.
  private static func editPageAfter(
    _ exchange: Exchange, _ reference: String, notices: [String] = [], problems: [String], status: Int
  ) throws(Failure) -> HTTPResponse {
    let (review, categories) = try exchange.library { (library) throws(CatalogueError) in
      (try library.review(reference), try library.categoriesInUse())
    }
    return editPage(
      exchange, review: review, form: ReviewForm(review), categories: categories, notices: notices, problems: problems,
      status: status)
  }
}

extension Pages {
  // MARK: A picture in the editor

  /// One picture of the editor's gallery: its thumbnail linking to the original, its actions,
  /// each button named for the picture it acts on ("Move picture 2 left"), and the form for
  /// its description and caption.
  static func galleryItem(_ item: ReviewImage, count: Int, path: String, csrf: String) -> [String] {
    let image = item.image
    let number = item.position
    let base = "\(path)/images/\(number)"
    var actions: [String] = []
    if item.isCover {
      actions.append(#"<span class="badge">Cover</span>"#)
    } else {
      actions.append(
        #"<form method="post" action="\#(base)/cover">\#(csrf)<button>Make picture \#(number) the cover</button></form>"#
      )
    }
    if number > 1 {
      actions.append(
        #"<form method="post" action="\#(base)/move">\#(csrf)\#(hidden("to", String(number - 1)))<button aria-label="Move picture \#(number) left" title="Move picture \#(number) left">←</button></form>"#
      )
    }
    if number < count {
      actions.append(
        #"<form method="post" action="\#(base)/move">\#(csrf)\#(hidden("to", String(number + 1)))<button aria-label="Move picture \#(number) right" title="Move picture \#(number) right">→</button></form>"#
      )
    }
    actions.append(
      #"<form method="post" action="\#(base)/detach" data-confirm="Remove picture \#(number) from this review?">\#(csrf)<button class="danger" aria-label="Remove picture \#(number)">Remove</button></form>"#
    )
    let alt = item.alt ?? ""
    let caption = item.caption ?? ""
    return [
      "<li>",
      #"<a href="\#(e(Files.downloadURL(item)))" \#(downloadAttribute(item)) aria-label="Download original of picture \#(number)"><img src="\#(e(Files.thumbnailURL(image)))" width="\#(image.thumbnailWidth)" height="\#(image.thumbnailHeight)" alt="\#(e(item.alt ?? "Picture \(number)"))"></a>"#,
      #"<p class="download">\#(number). \#(image.format.name) \#(image.width)×\#(image.height)\#(item.name.map { " · " + e($0) } ?? "")</p>"#,
      #"<div class="actions">\#(actions.joined(separator: " "))</div>"#,
      #"<form class="describe" method="post" action="\#(base)/describe">\#(csrf)"#
        + #"<label>Description of picture \#(number), for readers who cannot see it <input type="text" name="alt" value="\#(e(alt))"></label>"#
        + #"<label>Caption of picture \#(number) <textarea name="caption" rows="2">\#(e(caption))</textarea></label>"#
        + #"<button aria-label="Save the description and caption of picture \#(number)">Save</button></form>"#,
      #"<form method="post" action="\#(base)/replace" enctype="multipart/form-data">\#(csrf)<input type="file" name="file" accept="image/*,.heic,.heif,.avif,.webp" required aria-label="Replacement for picture \#(number)"> <button aria-label="Replace picture \#(number)">Replace</button></form>"#,
      "</li>",
    ]
  }

  /// `POST /reviews/ID/images/N/describe` with `alt` and `caption`: sets both (an empty field
  /// clears one), as `catalogue describe` does, then back to the editor. Text the library
  /// refuses comes back in the picture's fields, as typed, with why.
  @Sendable static func describePicture(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let alt = exchange.form["alt"]
    let caption = exchange.form["caption"]
    guard alt != nil || caption != nil else {
      throw Failure.badRequest("nothing to change: send alt, caption or both")
    }
    let reference = exchange.capture("id")
    let image = exchange.capture("image")
    let refused = try exchange.library {
      (library) throws(CatalogueError) -> (problem: CatalogueError, review: Review, categories: [Category])? in
      let id = try library.resolve(reference)
      do throws(CatalogueError) {
        _ = try PictureText(alt: alt, caption: caption).validated(for: "picture \(image) of review \(id)")
        return nil
      } catch {
        var review = try library.review(id)
        if let position = try? library.image(image, of: id).position {
          let said = review.images[position - 1].text
          review.images[position - 1].text = PictureText(alt: alt ?? said.alt, caption: caption ?? said.caption)
        }
        return (error, review, try library.categoriesInUse())
      }
    }
    if let refused {
      return editPage(
        exchange, review: refused.review, form: ReviewForm(refused.review), categories: refused.categories,
        notices: [], problems: messages(of: refused.problem), status: Failure.status(of: refused.problem))
    }
    return try pictureChange(exchange, done: "described") { (library, review, image) throws(CatalogueError) in
      _ = try library.describe(review, image: image, alt: alt, caption: caption)
    }
  }
}
