import Catalogue
import Foundation
import HTTP
import ImagePipeline

/// The fields of the review form, as typed (kept when the form comes back with problems), and
/// what the form carries besides: the version of the review it was opened on, a new review's
/// token, the id of the kept form it came back from.
struct ReviewForm: Sendable, Codable {
  var title = ""
  var body = ""
  var rating = "3"
  var category = "movie"
  var favorite = false
  var newCategory = false
  /// The whole-review spoiler warning (``Review/containsSpoilers``), a box on the form.
  var containsSpoilers = false
  /// Which button sent a new review's form: Publish (`true`) or Save draft (`false`); nil for
  /// an edit, which leaves the review published or a draft as it was, and for a form sent
  /// by neither (a script's), which saves a draft: nothing reaches readers unless asked.
  var publish: Bool?
  /// The ``Review/version`` the form was opened on (an edit).
  var version: String?
  /// The form's own token (a new review): sent twice, it adds one review.
  var token: String?
  /// The kept form (see ``FormMemory``) this one was filled from.
  var kept: String?

  init() {}

  init(_ review: Review) {
    title = review.title
    body = review.body
    rating = String(review.rating)
    category = review.category.rawValue
    favorite = review.favorite
    containsSpoilers = review.containsSpoilers
    version = review.version
  }

  init(_ fields: FormFields) {
    title = fields["title"] ?? ""
    body = fields["body"] ?? ""
    rating = fields["rating"] ?? ""
    category = (fields["category"] ?? "").trimmingCharacters(in: .whitespaces)
    favorite = fields.has("favorite")
    newCategory = fields.has("new-category")
    containsSpoilers = fields.has("contains-spoilers")
    publish = fields["publish"].map { $0 == "1" }
    version = fields["version"].flatMap { $0.isEmpty ? nil : $0 }
    token = fields["token"].flatMap { FormMemory.isToken($0) ? $0 : nil }
    kept = fields["kept"].flatMap { FormMemory.isToken($0) ? $0 : nil }
  }

  /// The hidden fields that carry the version, the token and the kept form's id.
  var hiddenFields: String {
    [("version", version), ("token", token), ("kept", kept)].compactMap { name, value in
      value.map { Pages.hidden(name, $0) }
    }.joined()
  }

  /// The fields of the form that `error` finds fault with ("title", "rating", "category",
  /// "body"), in the form's order.
  static func faulty(_ error: CatalogueError) -> [String] {
    let order = ["title", "rating", "category", "body"]
    switch error {
    case .invalidReview(let problems):
      let named = Set(problems.compactMap { problem in order.first { problem.hasPrefix($0) } })
      return order.filter(named.contains)
    case .unknownCategory:
      return ["category"]
    default:
      return []
    }
  }

  /// The draft, or the problem with the rating (the library reports the others).
  func draft() throws(CatalogueError) -> ReviewDraft {
    guard let stars = Int(rating.trimmingCharacters(in: .whitespaces)) else {
      throw .invalidReview(["rating \"\(rating)\" is not a whole number of stars (0 to 5)"])
    }
    return ReviewDraft(
      title: title, body: body, rating: stars, category: category, favorite: favorite,
      containsSpoilers: containsSpoilers, publish: publish ?? false, newCategory: newCategory)
  }
}

extension Pages {
  // MARK: New review

  /// `GET /new`: an empty review form, pictures included, with a token of its own; or, with
  /// `kept`, the form as it was typed before its session ended.
  @Sendable static func newReviewForm(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let categories = try exchange.library { (library) throws(CatalogueError) in try library.categoriesInUse() }
    var form = ReviewForm()
    var notices: [String] = []
    if let (kept, id) = keptForm(exchange), let typed = kept.form {
      form = typed
      form.kept = id
      notices = keptNotice(kept, pictures: true, pressed: typed.publish)
    }
    if form.token == nil { form.token = Secrets.make() }
    // Kept by the browser for Back (the route is `keptOnBack`): asked afresh, the page would
    // come with a new token, and Add pressed again would add the review twice.
    return newReviewPage(exchange, form: form, categories: categories, notices: notices, problems: [], status: 200)
  }

  /// `POST /new`: adds the review with its pictures, all or nothing, as `catalogue add` does:
  /// published when the form's Publish button sent it (`publish=1`), else a draft, which only
  /// reviewers see. A form sent again (Back, then Publish; a double click) adds no second
  /// review: the second sending waits for the first and is led to the review it added.
  @Sendable static func createReview(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let form = ReviewForm(exchange.form)
    let forms = exchange.service.forms
    if let token = form.token {
      switch forms.claim(token) {
      case .claimed:
        break
      case .made(let review):
        return redirect(
          to: reviewPath(review), notice: Notice(said: "This review was added already: its form was sent twice."),
          exchange)
      case .busy:
        throw Failure(503, "this review is still being added from the first sending of its form: wait, then reload")
      }
    }
    var made: String?
    defer { if let token = form.token { forms.finish(token, review: made) } }
    let uploads = exchange.files(named: "file")
    let outcome = try exchange.library { (library) throws(CatalogueError) -> Result<Review, CatalogueError> in
      do throws(CatalogueError) {
        let draft = try form.draft()
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
      made = review.id
      if let kept = form.kept { forms.forget(kept) }
      let said =
        review.isDraft
        ? "Draft saved: only reviewers can see it until it is published." : "Review published."
      return redirect(to: reviewPath(review.id), notice: Notice(said: said), exchange)
    case .failure(let error):
      let categories = try exchange.library { (library) throws(CatalogueError) in try library.categoriesInUse() }
      return newReviewPage(
        exchange, form: form, categories: categories, problems: messages(of: error), faulty: ReviewForm.faulty(error),
        status: Failure.status(of: error))
    }
  }

  static func newReviewPage(
    _ exchange: Exchange, form: ReviewForm, categories: [Category], notices: [String] = [],
    problems messages: [String], faulty: [String] = [], status: Int
  ) -> HTTPResponse {
    var main = ["<h1>New review</h1>"]
    main += notices
    main += problems(messages, focus: faulty.isEmpty && notices.isEmpty)
    main.append(#"<form class="editor" method="post" action="/new" enctype="multipart/form-data">"#)
    main.append(csrfField(exchange.identity) + form.hiddenFields)
    main += fields(form, categories: categories, faulty: faulty)
    main.append(
      #"<label>Pictures <input type="file" name="file" multiple accept="image/*,.heic,.heif,.avif,.webp"></label>"#)
    // Publish first: it is the button Enter in a field presses (a form's first), and the one a
    // reviewer most often means; Save draft keeps the review from readers.
    main.append(
      #"<p class="buttons"><button class="primary" name="publish" value="1">Publish</button> "#
        + #"<button name="publish" value="0">Save draft</button> <a href="/">Cancel</a></p>"#)
    main.append("</form>")
    return document(title: "New review", identity: exchange.identity, main: main, status: status)
  }

  /// The review's fields as form controls; those in `faulty` marked invalid and pointing to the
  /// problems, the first of them taking the focus.
  static func fields(_ form: ReviewForm, categories: [Category], faulty: [String] = []) -> [String] {
    func state(_ name: String) -> String {
      guard faulty.contains(name) else { return "" }
      return #" aria-invalid="true" aria-describedby="problems""# + (faulty.first == name ? " autofocus" : "")
    }
    var labels = Category.known
    for category in categories where !labels.contains(category) { labels.append(category) }
    let options = labels.map { #"<option value="\#(e($0.rawValue))">\#(e($0.displayName))</option>"# }.joined()
    return [
      #"<label>Title <input type="text" name="title" value="\#(e(form.title))" maxlength="\#(ReviewDraft.maximumTitleLength)" required\#(state("title"))></label>"#,
      ratingControl(form.rating, faulty: faulty.contains("rating"), focus: faulty.first == "rating"),
      #"<label>Category <input type="text" name="category" value="\#(e(form.category))" list="categories" required\#(state("category"))></label>"#,
      #"<datalist id="categories">\#(options)</datalist>"#,
      #"<label class="check"><input type="checkbox" name="new-category" value="1"\#(form.newCategory ? " checked" : "")> A new category of my own (not a typo of one in use)</label>"#,
      #"<label class="check"><input type="checkbox" name="favorite" value="1"\#(form.favorite ? " checked" : "")> Favourite</label>"#,
      #"<label class="check"><input type="checkbox" name="contains-spoilers" value="1"\#(form.containsSpoilers ? " checked" : "")> Contains spoilers (readers are asked before the review is shown)</label>"#,
      #"<label>Review (Markdown) <textarea name="body" rows="16"\#(state("body"))>\#(e(form.body))</textarea></label>"#,
    ]
  }

  // MARK: Editing

  /// `GET /reviews/ID/edit`: the fields, the pictures (cover, order, replace, detach) and an
  /// upload form; with `kept`, the fields as they were typed before the session ended.
  @Sendable static func editForm(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let reference = exchange.capture("id")
    let found = keptForm(exchange)
    let (saved, categories, keptPosition) = try exchange.library {
      (library) throws(CatalogueError) -> (Review, [Category], Int?) in
      let review = try library.review(reference)
      // The picture a kept description names, by the library's own rule (a position, or a
      // prefix of its hash); nil when it is no longer the review's.
      var position: Int?
      if let picture = found?.0.picture {
        position = try? library.image(picture.image, of: review.id).position
      }
      return (review, try library.categoriesInUse(), position)
    }
    var review = saved
    var form = ReviewForm(review)
    var notices = notice(exchange)
    var keptPicture: (position: Int, id: String)?
    if let (kept, id) = found {
      if let picture = kept.picture {
        // A picture's description and caption: the review's fields as saved, and the picture's
        // form with what was typed, to send again.
        if let position = keptPosition, let index = review.images.firstIndex(where: { $0.position == position }) {
          let said = review.images[index].text
          review.images[index].text = PictureText(
            alt: picture.alt ?? said.alt, caption: picture.caption ?? said.caption)
          notices = keptNotice(kept, pictures: false, what: "picture \(position)’s description")
          keptPicture = (position, id)
        } else {
          notices = keptNotice(kept, pictures: false, gone: picture)
        }
      } else if let typed = kept.form {
        form = typed
        form.kept = id
        notices = keptNotice(kept, pictures: false)
      }
    }
    if review.id != reference {
      return redirect(to: reviewPath(review.id) + "/edit" + (form.kept.map { "?kept=\($0)" } ?? ""))
    }
    return editPage(
      exchange, review: review, form: form, categories: categories, notices: notices, problems: [],
      keptPicture: keptPicture, status: 200)
  }

  /// `POST /reviews/ID/edit`: saves the fields, in one transaction with what is read. A form
  /// opened on a version of the review that has been changed since is not saved over it: the
  /// page shows both versions.
  @Sendable static func saveReview(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    let reference = exchange.capture("id")
    let form = ReviewForm(exchange.form)
    let outcome = try exchange.library { (library) throws(CatalogueError) -> Result<Review, CatalogueError> in
      do throws(CatalogueError) {
        let draft = try form.draft()
        // Published or a draft, the review stays as it was: the editor's own buttons change that.
        var changes = ReviewChanges(
          title: draft.title, body: draft.body, rating: draft.rating, category: draft.category,
          favorite: draft.favorite, containsSpoilers: draft.containsSpoilers)
        changes.newCategory = draft.newCategory
        return .success(try library.update(reference, changes: changes, from: form.version))
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
      if let kept = form.kept { exchange.service.forms.forget(kept) }
      return redirect(to: reviewPath(review.id), notice: Notice(said: "Saved."), exchange)
    case .failure(let error):
      let (review, categories) = try exchange.library { (library) throws(CatalogueError) in
        (try library.review(reference), try library.categoriesInUse())
      }
      if case .reviewChanged = error {
        return conflictPage(exchange, review: review, form: form, categories: categories)
      }
      return editPage(
        exchange, review: review, form: form, categories: categories, notices: [], problems: messages(of: error),
        faulty: ReviewForm.faulty(error), status: Failure.status(of: error))
    }
  }

  /// `keptPicture`: the picture whose description form was filled from a kept form, and that
  /// form's id, which the picture's form carries so that saving it forgets the kept one.
  static func editPage(
    _ exchange: Exchange, review: Review, form: ReviewForm, categories: [Category], notices: [String],
    problems messages: [String], faulty: [String] = [], keptPicture: (position: Int, id: String)? = nil, status: Int
  ) -> HTTPResponse {
    let path = reviewPath(review.id)
    let csrf = csrfField(exchange.identity)
    var main = [#"<div class="editing">"#, "<h1>Edit “\(e(review.title))”</h1>"]
    main += notices
    main += problems(messages, focus: faulty.isEmpty && notices.isEmpty)
    main.append(#"<form class="editor" method="post" action="\#(path)/edit">"#)
    main.append(csrf + form.hiddenFields)
    main += fields(form, categories: categories, faulty: faulty)
    main.append(#"<p><button class="primary">Save</button> <a href="\#(path)">Back to the review</a></p>"#)
    main.append("</form>")
    main += publishing(review, identity: exchange.identity)

    main.append(#"<section class="pictures">"#)
    main.append("<h2>Pictures</h2>")
    if review.images.isEmpty { main.append("<p>No pictures yet.</p>") }
    main.append(#"<ul class="gallery">"#)
    for item in review.images {
      let kept = keptPicture.flatMap { $0.position == item.position ? $0.id : nil }
      main += galleryItem(item, count: review.images.count, path: path, csrf: csrf, kept: kept)
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
    let deleted = try exchange.library { (library) throws(CatalogueError) in try library.delete(reference) }
    return redirect(to: "/", notice: Notice(said: "“\(deleted.title)” deleted."), exchange)
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
    let problems = report.failures.map { $0.error.description }
    if report.attached.isEmpty {
      let status = report.failures.first.map { Failure.status(of: $0.error) } ?? 400
      return try editPageAfter(exchange, reference, problems: problems, status: status)
    }
    let count = report.attached.count
    let notice = Notice(
      said: count == 1 ? "1 picture added." : "\(count) pictures added.",
      details: report.warnings.map { "\($0.source): \($0.message)" }, problems: problems)
    return redirect(to: reviewPath(report.review.id) + "/edit", notice: notice, exchange)
  }

  /// `POST /reviews/ID/images/N/cover`.
  @Sendable static func makeCover(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    try pictureChange(exchange, done: "Cover changed.") { (library, review, image) throws(CatalogueError) in
      _ = try library.setCover(review, image: image)
    }
  }

  /// `POST /reviews/ID/images/N/move` with `to`, the new position.
  @Sendable static func movePicture(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    guard let text = exchange.form["to"], let position = Int(text) else {
      throw Failure.badRequest("say where to move the picture: a position (1, 2, …)")
    }
    return try pictureChange(exchange, done: "Picture moved.") { (library, review, image) throws(CatalogueError) in
      _ = try library.move(review, image: image, to: position)
    }
  }

  /// `POST /reviews/ID/images/N/detach`.
  @Sendable static func detachPicture(_ exchange: Exchange) throws(Failure) -> HTTPResponse {
    try pictureChange(exchange, done: "Picture removed from the review.") {
      (library, review, image) throws(CatalogueError) in
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
    return try pictureChange(exchange, done: "Picture replaced.") { (library, review, image) throws(CatalogueError) in
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
    return redirect(to: reviewPath(id) + "/edit", notice: Notice(said: done), exchange)
  }

  // MARK: Kept forms and conflicts

  /// The form kept for this page under the `kept` query, with its id.
  private static func keptForm(_ exchange: Exchange) -> (KeptForm, String)? {
    guard let id = exchange.head.query["kept"],
      let kept = exchange.service.forms.kept(id, path: exchange.head.path)
    else { return nil }
    return (kept, id)
  }

  /// Keeps the form of `passage`, of the `kind` its route takes, for its reviewer to save once
  /// back: its id, and the page that shows it again (the page the form was sent to, or for a
  /// picture's description the review's edit page); nil when it could not be kept.
  static func keep(_ kind: KeptForm.Kind, _ passage: Passage, in forms: FormMemory, reason: KeptForm.Reason)
    -> (id: String, path: String)?
  {
    switch kind {
    case .review:
      let path = passage.head.path
      return forms.keep(ReviewForm(passage.form), path: path, reason: reason).map { ($0, path) }
    case .pictureText:
      guard let review = passage.captures["id"], let image = passage.captures["image"] else { return nil }
      let path = reviewPath(review) + "/edit"
      let picture = KeptPicture(image: image, alt: passage.form["alt"], caption: passage.form["caption"])
      return forms.keep(picture, path: path, reason: reason).map { ($0, path) }
    }
  }

  /// What a page filled from a kept form says first; `what` names what was not saved, when it
  /// is not the whole page's form.
  /// `gone`: a picture's text kept for a picture no longer in the review, said in the notice
  /// itself since it has no form to go back to.
  /// `pressed`: for a new review, whether Publish (`true`) or Save draft sent it, which the
  /// notice says, since the page cannot press it again for the reviewer.
  private static func keptNotice(
    _ kept: KeptForm, pictures: Bool, what: String? = nil, gone: KeptPicture? = nil, pressed: Bool? = nil
  ) -> [String] {
    let unsaved = what.map { "so \($0) was not saved" } ?? "so nothing was saved"
    let why = kept.reason == .signedOut ? "Your session had ended" : "This form was older than your last sign-in"
    var text: String
    if let gone {
      let typed = [("description", gone.alt), ("caption", gone.caption)].compactMap { name, value in
        value.flatMap { $0.isEmpty ? nil : "\(name) “\($0)”" }
      }
      text =
        "\(why), so the description of picture \(gone.image) was not saved, and that picture is no longer in "
        + "this review. What you typed: " + (typed.isEmpty ? "nothing" : typed.joined(separator: ", ")) + "."
    } else {
      let then: String
      switch pressed {
      case true?: then = "publish it"
      case false?: then = "save it as a draft"
      case nil: then = "save it"
      }
      text = "\(why), \(unsaved). What you typed is below: check it, then \(then)."
    }
    if pictures { text += " Pictures cannot be kept: choose them again." }
    return [#"<div class="notice" role="status" tabindex="-1" autofocus><p>\#(e(text))</p></div>"#]
  }

  /// `409`: the review was changed after the form was opened. Both versions side by side, and
  /// the form again with what was typed, now on the version saved, to save over it or leave.
  static func conflictPage(_ exchange: Exchange, review: Review, form: ReviewForm, categories: [Category])
    -> HTTPResponse
  {
    let path = reviewPath(review.id)
    var yours = form
    yours.version = review.version
    let by = review.updatedBy.map { "\($0) changed" } ?? "Someone changed"
    let saved = ReviewForm(review)
    var main = [
      #"<div class="editing">"#, "<h1>“\(e(review.title))” was changed while you were editing</h1>",
      #"<div class="problem" id="problems" role="alert" tabindex="-1" autofocus>\#(e(by)) this review after you opened it, so nothing was saved. Compare the two versions, then save yours over it, or keep the saved one.</div>"#,
      #"<div class="versions">"#,
      versionList("Saved now", saved, other: form),
      versionList("Yours, not saved", form, other: saved),
      "</div>",
      "<h2>Save yours</h2>",
      #"<form class="editor" method="post" action="\#(path)/edit">"#,
      csrfField(exchange.identity) + yours.hiddenFields,
    ]
    main += fields(yours, categories: categories)
    main.append(
      #"<p><button class="primary">Save mine over it</button> <a href="\#(path)">Keep the saved version</a></p>"#)
    main += ["</form>", "</div>"]
    return document(title: "Changed meanwhile: \(review.title)", identity: exchange.identity, main: main, status: 409)
  }

  /// One version of a review's fields as a list, each that differs from `other` marked.
  private static func versionList(_ heading: String, _ form: ReviewForm, other: ReviewForm) -> String {
    let rows: [(String, String, String)] = [
      ("Title", form.title, other.title),
      ("Stars", form.rating, other.rating),
      ("Category", form.category, other.category),
      ("Favourite", form.favorite ? "yes" : "no", other.favorite ? "yes" : "no"),
      ("Contains spoilers", form.containsSpoilers ? "yes" : "no", other.containsSpoilers ? "yes" : "no"),
      (
        "Review", form.body.replacingOccurrences(of: "\r\n", with: "\n"),
        other.body.replacingOccurrences(of: "\r\n", with: "\n")
      ),
    ]
    var lines = [#"<section class="version"><h2>\#(e(heading))</h2><dl>"#]
    for (name, value, otherValue) in rows {
      let differs =
        value.trimmingCharacters(in: .whitespacesAndNewlines)
        != otherValue.trimmingCharacters(in: .whitespacesAndNewlines)
      let mark = differs ? #" <strong class="differs">(differs)</strong>"# : ""
      let shown = name == "Review" ? #"<pre class="body-text">\#(e(value))</pre>"# : e(value)
      lines.append("<dt>\(name)\(mark)</dt><dd>\(shown)</dd>")
    }
    lines.append("</dl></section>")
    return lines.joined()
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
  static func galleryItem(_ item: ReviewImage, count: Int, path: String, csrf: String, kept: String? = nil)
    -> [String]
  {
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
      #"<form class="describe" method="post" action="\#(base)/describe">\#(csrf)\#(kept.map { hidden("kept", $0) } ?? "")"#
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
    let response = try pictureChange(exchange, done: "Description saved.") {
      (library, review, image) throws(CatalogueError) in
      _ = try library.describe(review, image: image, alt: alt, caption: caption)
    }
    // Saved: the form it was filled from, if kept, is done with.
    if response.status == 303, let kept = exchange.form["kept"] { exchange.service.forms.forget(kept) }
    return response
  }
}
