import Catalogue

/// The server's style sheet and script, served under names that carry their hash, so that
/// they are cached for good and a new build's are fetched at once.
struct Asset: Sendable {
  let name: String
  let contentType: String
  let bytes: [UInt8]

  init(stem: String, fileExtension: String, contentType: String, text: String) {
    bytes = Array(text.utf8)
    name = "\(stem)-\(SHA256.hex(bytes).prefix(12)).\(fileExtension)"
    self.contentType = contentType
  }
}

enum Assets {
  /// The export pages' style sheet, one source for both, and what only the server's pages
  /// have: the bar at the top, forms, the filters, the list view, the pager.
  static let style = Asset(
    stem: "style", fileExtension: "css", contentType: "text/css; charset=utf-8", text: HTML.style + "\n" + serverStyle)

  /// Comfort only: every page works without it. Asks before a delete or a detach, and applies
  /// the filters as soon as one changes.
  static let script = Asset(
    stem: "app", fileExtension: "js", contentType: "text/javascript; charset=utf-8", text: scriptText)

  static func named(_ name: String) -> Asset? {
    [style, script].first { $0.name == name }
  }

  private static let serverStyle = """
    .skip { position: absolute; left: -10000px; top: 0.5rem; padding: 0.5rem 0.75rem; background: #fff; color: #222; border: 2px solid #222; z-index: 10; }
    .skip:focus { left: 0.5rem; }
    .site { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1rem; padding-bottom: 0.75rem; border-bottom: 1px solid #ddd; margin-bottom: 1rem; }
    .site .home { font-weight: 600; font-size: 1.2rem; text-decoration: none; color: #222; }
    .site form.search { flex: 1 1 16rem; display: flex; gap: 0.25rem; }
    .site form.search input { flex: 1; }
    .account { display: flex; align-items: center; gap: 0.75rem; }
    .account form { margin: 0; }
    input, select, textarea, button { font: inherit; }
    input[type=text], input[type=search], input[type=password], select, textarea { padding: 0.3rem 0.4rem; border: 1px solid #aaa; border-radius: 4px; }
    button, .button { padding: 0.3rem 0.8rem; border: 1px solid #888; border-radius: 4px; background: #f4f4f4; color: #222; cursor: pointer; text-decoration: none; display: inline-block; }
    button.primary { background: #0645ad; color: #fff; border-color: #0645ad; }
    button.danger { background: #fff; color: #b00; border-color: #b00; }
    .link-button { border: none; background: none; padding: 0; color: #0645ad; text-decoration: underline; cursor: pointer; }
    .filters { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: end; margin: 0.5rem 0 1rem; }
    .filters label { display: flex; flex-direction: column; font-size: 0.9rem; color: #555; }
    .filters label.check { flex-direction: row; align-items: center; gap: 0.3rem; }
    .toolbar { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: baseline; gap: 0.5rem; }
    .views a[aria-current] { font-weight: 600; text-decoration: none; color: #222; }
    table.list { border-collapse: collapse; width: 100%; }
    table.list th, table.list td { text-align: left; padding: 0.35rem 0.5rem; border-bottom: 1px solid #eee; vertical-align: middle; }
    table.list td.picture { width: 4rem; }
    table.list img { max-width: 4rem; max-height: 4rem; width: auto; height: auto; border-radius: 3px; }
    .pager { display: flex; gap: 1rem; justify-content: center; margin: 1.5rem 0; }
    .notice { padding: 0.5rem 0.75rem; border-radius: 4px; background: #eef6ee; border: 1px solid #9c9; }
    .problem { padding: 0.5rem 0.75rem; border-radius: 4px; background: #fbeeee; border: 1px solid #d99; }
    .problem ul, .notice ul { margin: 0.25rem 0 0; }
    form.editor { display: grid; gap: 0.75rem; max-width: 44rem; }
    form.editor label { display: flex; flex-direction: column; gap: 0.2rem; }
    form.editor label.check { flex-direction: row; align-items: center; gap: 0.4rem; }
    form.editor textarea { min-height: 16rem; font-family: ui-monospace, monospace; }
    form.signin { display: grid; gap: 0.75rem; max-width: 22rem; }
    form.signin label { display: flex; flex-direction: column; gap: 0.2rem; }
    .editing .gallery li { width: 14rem; }
    .editing .gallery form { display: inline; }
    .editing .gallery .actions { display: flex; flex-wrap: wrap; gap: 0.3rem; margin-top: 0.3rem; }
    .badge { font-size: 0.8rem; padding: 0 0.4rem; border-radius: 3px; background: #946b00; color: #fff; }
    .review .actions { margin: 0.5rem 0; display: flex; gap: 0.75rem; }
    .review .pictures .gallery li { max-width: 100%; }
    .download { font-size: 0.9rem; color: #555; }
    .versions { display: grid; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); gap: 1rem; margin: 1rem 0; }
    .version dt { font-weight: 600; margin-top: 0.5rem; }
    .version dd { margin: 0.2rem 0 0; overflow-wrap: anywhere; }
    .version pre.body-text { white-space: pre-wrap; font: inherit; margin: 0; }
    .differs { color: #b00; font-weight: 600; }
    """

  private static let scriptText = """
    // Comfort only: every form works without this script.
    document.addEventListener("submit", function (event) {
      var question = event.target.getAttribute("data-confirm");
      if (question && !window.confirm(question)) event.preventDefault();
    });
    document.addEventListener("change", function (event) {
      var form = event.target.form;
      if (form && form.classList.contains("filters")) form.submit();
    });
    // What is typed in a review's form and not saved yet: leaving the page (a picture's
    // button, a link) asks first.
    (function () {
      var editor = document.querySelector("form.editor");
      if (!editor) return;
      // The form's token and the version it was opened on belong to this entry of the history:
      // Back to it (the page fetched again, with what was typed put back by the browser) sends
      // them as they were, so that a review is not added twice, nor an old form saved over a
      // change made since.
      var carried = ["token", "version"].map(function (name) { return editor.elements[name]; })
        .filter(function (field) { return field; });
      var kept = history.state && history.state.form;
      if (kept) {
        carried.forEach(function (field) { if (kept[field.name]) field.value = kept[field.name]; });
      } else if (carried.length) {
        var state = {};
        carried.forEach(function (field) { state[field.name] = field.value; });
        history.replaceState(Object.assign({}, history.state, { form: state }), "");
      }
      var typed = false;
      editor.addEventListener("input", function () { typed = true; });
      editor.addEventListener("submit", function () { typed = false; });
      window.addEventListener("beforeunload", function (event) {
        if (!typed) return;
        event.preventDefault();
        event.returnValue = "";
      });
    })();
    """
}
