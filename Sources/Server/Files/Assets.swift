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

  /// Comfort only: every page works without it. Sets the theme chosen in this browser before
  /// the page is drawn (so it is loaded in the head, without `defer`) and offers the choice; asks
  /// before a delete or a detach; uploads dropped pictures with a progress bar; shows a review's
  /// pictures in a viewer. The filters apply only with their button, so that arrow keys in a
  /// list of choices never load a page.
  static let script = Asset(
    stem: "app", fileExtension: "js", contentType: "text/javascript; charset=utf-8", text: scriptText)

  static func named(_ name: String) -> Asset? {
    [style, script].first { $0.name == name }
  }

  /// What only the server's pages have: the bar at the top, forms, the filters, the list view
  /// (cards on a narrow screen), the pager, the star input, the theme chosen in the page (the
  /// `data-theme` the script sets wins over the system's choice), the upload's drop zone and
  /// the picture viewer. Every control is at least 24 pixels each way.
  private static let serverStyle = """
    :root[data-theme=light] { color-scheme: light; \(HTML.customProperties(HTML.lightColours)) }
    :root[data-theme=dark] { color-scheme: dark; \(HTML.customProperties(HTML.darkColours)) }
    .skip { position: absolute; left: -10000px; top: 0.5rem; padding: 0.5rem 0.75rem; background: var(--bg); color: var(--fg); border: 2px solid var(--fg); z-index: 10; }
    .skip:focus { left: 0.5rem; }
    .visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
    .site { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1rem; padding-bottom: 0.75rem; border-bottom: 3px solid var(--accent); margin-bottom: 1rem; }
    .site .home { display: inline-flex; align-items: center; gap: 0.5rem; min-height: 2.5rem; font-weight: 700; font-size: 1.3rem; text-decoration: none; color: var(--fg); }
    .site .home::before { content: ""; width: 1rem; height: 1rem; border-radius: 50%; background: var(--accent); border: 2px solid var(--on-accent); }
    .site form.search { flex: 1 1 14rem; display: flex; gap: 0.4rem; min-width: 0; }
    .site form.search input { flex: 1; min-width: 0; }
    .account { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 0.75rem; }
    .account form { margin: 0; }
    .account a, .views a, .pager a, .download a, .feeds a { display: inline-flex; align-items: center; justify-content: center; min-width: 1.5rem; min-height: 1.5rem; padding: 0.25rem; box-sizing: border-box; }
    .theme { display: inline-flex; align-items: center; gap: 0.4rem; font-size: 0.9rem; color: var(--muted); }
    input, select, textarea, button { font: inherit; color: var(--fg); background: var(--bg); }
    input[type=text], input[type=search], input[type=password], select, textarea { box-sizing: border-box; max-width: 100%; min-height: 2.5rem; padding: 0.35rem 0.5rem; border: 1px solid var(--edge); border-radius: 6px; }
    input[type=file] { max-width: 100%; }
    input[type=checkbox], input[type=radio] { flex: none; width: 1.5rem; height: 1.5rem; margin: 0; accent-color: var(--link); }
    form > a { display: inline-flex; align-items: center; min-height: 2.5rem; padding: 0 0.5rem; }
    button, .button { display: inline-flex; align-items: center; justify-content: center; box-sizing: border-box; min-height: 2.5rem; padding: 0.35rem 0.9rem; border: 1px solid var(--edge); border-radius: 6px; background: var(--surface); color: var(--fg); cursor: pointer; text-decoration: none; font-weight: 500; }
    button:hover, .button:hover { border-color: var(--fg); }
    button.primary { background: var(--accent); color: var(--on-accent); border-color: var(--link); font-weight: 600; }
    button.danger { background: var(--bg); color: var(--danger); border-color: var(--danger); }
    .link-button { min-height: 1.5rem; border: none; background: none; padding: 0.25rem; color: var(--link); text-decoration: underline; font-weight: 400; }
    .filters { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: end; margin: 0.75rem 0 1rem; padding: 0.75rem; border-radius: 8px; background: var(--surface); color: var(--fg); }
    .filters label { display: flex; flex-direction: column; gap: 0.15rem; font-size: 0.9rem; color: var(--muted); }
    .filters label.check { flex-direction: row; align-items: center; gap: 0.4rem; min-height: 2.5rem; }
    .toolbar { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; gap: 0.5rem; }
    .views a[aria-current] { font-weight: 700; text-decoration: none; color: var(--fg); }
    table.list { border-collapse: collapse; width: 100%; }
    table.list th, table.list td { text-align: left; padding: 0.4rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: middle; }
    table.list td.picture { width: 4rem; }
    table.list img { display: block; max-width: 4rem; max-height: 4rem; width: auto; height: auto; border-radius: 4px; }
    @media (max-width: 40rem) {
    table.list thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
    table.list, table.list tbody, table.list tr, table.list td { display: block; }
    table.list tr { display: grid; grid-template-columns: 4.5rem minmax(0, 1fr); column-gap: 0.75rem; padding: 0.75rem 0; border-bottom: 1px solid var(--line); }
    table.list td { border: none; padding: 0.1rem 0; grid-column: 2; overflow-wrap: break-word; }
    table.list td.picture { grid-column: 1; grid-row: 1 / span 5; width: auto; }
    table.list td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
    }
    .pager { display: flex; flex-wrap: wrap; gap: 1rem; justify-content: center; align-items: center; margin: 1.5rem 0; }
    .notice { padding: 0.6rem 0.9rem; border-radius: 6px; border: 1px solid var(--link); background: var(--notice); color: var(--fg); }
    .problem { padding: 0.6rem 0.9rem; border-radius: 6px; border: 1px solid var(--danger); background: var(--problem); color: var(--fg); }
    .problem ul, .notice ul { margin: 0.25rem 0 0; }
    form.editor { display: grid; gap: 1rem; max-width: 44rem; }
    form.editor label, form.signin label { display: flex; flex-direction: column; gap: 0.25rem; font-weight: 500; }
    form.editor label.check { flex-direction: row; align-items: center; gap: 0.5rem; font-weight: 400; }
    form.editor textarea { min-height: 16rem; font-family: ui-monospace, monospace; }
    form.signin { display: grid; gap: 1rem; max-width: 22rem; }
    fieldset.rating { border: none; padding: 0; margin: 0; min-width: 0; }
    fieldset.rating legend { padding: 0; margin-bottom: 0.25rem; font-weight: 500; }
    .rating .choices { display: flex; flex-wrap: wrap; align-items: center; gap: 0.125rem; }
    .rating input { position: absolute; width: 1px; height: 1px; opacity: 0; }
    .rating label { display: inline-flex; align-items: center; justify-content: center; min-width: 2.5rem; min-height: 2.5rem; border-radius: 6px; font-size: 1.75rem; line-height: 1; color: var(--star); cursor: pointer; }
    .rating label.none { min-width: 2rem; margin-right: 0.5rem; border: 1px solid var(--edge); font-size: 1rem; color: var(--fg); }
    .rating .glyph::before { content: "☆"; }
    .rating:has(input:checked) .glyph::before { content: "★"; }
    .rating input:checked + label ~ label .glyph::before { content: "☆"; }
    .rating input:checked + label.none { background: var(--accent); color: var(--on-accent); }
    .rating input:focus-visible + label { outline: 3px solid var(--link); outline-offset: 2px; }
    .editing .gallery form { display: inline; }
    .editing .gallery .actions { display: flex; flex-wrap: wrap; gap: 0.3rem; margin-top: 0.3rem; }
    .review .actions { margin: 0.75rem 0; display: flex; flex-wrap: wrap; gap: 0.5rem; }
    .download { font-size: 0.9rem; color: var(--muted); }
    .drop { margin-top: 0.5rem; padding: 1rem; border: 2px dashed var(--edge); border-radius: 8px; text-align: center; color: var(--muted); }
    .drop.over { border-color: var(--link); background: var(--notice); color: var(--fg); }
    .upload progress { display: block; width: 100%; height: 1rem; margin-top: 0.5rem; accent-color: var(--link); }
    .preview { padding: 0.25rem 1rem; border: 1px solid var(--edge); border-radius: 8px; overflow-wrap: break-word; }
    .preview img { max-width: 100%; height: auto; }
    form.editor > button { justify-self: start; }
    dialog.viewer { max-width: 96vw; max-height: 96vh; padding: 0.75rem; border: 1px solid var(--edge); border-radius: 8px; background: var(--bg); color: var(--fg); }
    dialog.viewer::backdrop { background: rgb(0 0 0 / 0.8); }
    dialog.viewer img { display: block; max-width: calc(96vw - 2rem); max-height: calc(96vh - 7rem); width: auto; height: auto; margin: 0 auto; }
    .versions { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(16rem, 100%), 1fr)); gap: 1rem; margin: 1rem 0; }
    .version dt { font-weight: 600; margin-top: 0.5rem; }
    .version dd { margin: 0.2rem 0 0; overflow-wrap: anywhere; }
    .version pre.body-text { white-space: pre-wrap; font: inherit; margin: 0; }
    .differs { color: var(--danger); font-weight: 600; }
    dialog.viewer .controls { display: flex; flex-wrap: wrap; align-items: center; justify-content: center; gap: 0.5rem 1rem; margin-top: 0.5rem; }
    """

  private static let scriptText = #"""
    // Comfort only: every page works without this script. It runs in the head, before the page
    // is drawn, so that a theme chosen here never flashes the other one first.
    (function () {
      "use strict";
      var root = document.documentElement;
      var themeKey = "catalogue-theme";

      function storedTheme() {
        try {
          var theme = window.localStorage.getItem(themeKey);
          return theme === "light" || theme === "dark" ? theme : "system";
        } catch (error) {
          return "system";
        }
      }

      function applyTheme(theme) {
        if (theme === "system") root.removeAttribute("data-theme");
        else root.setAttribute("data-theme", theme);
      }

      applyTheme(storedTheme());

      function element(name, attributes, text) {
        var made = document.createElement(name);
        Object.keys(attributes || {}).forEach(function (key) { made.setAttribute(key, attributes[key]); });
        if (text) made.textContent = text;
        return made;
      }

      // The theme: as the system says, light or dark, kept in this browser.
      function addThemeChooser() {
        var header = document.querySelector("header.site");
        if (!header) return;
        var label = element("label", { class: "theme" }, "Theme ");
        var select = element("select", { name: "theme" });
        [["system", "As the system"], ["light", "Light"], ["dark", "Dark"]].forEach(function (choice) {
          var option = element("option", { value: choice[0] }, choice[1]);
          if (choice[0] === storedTheme()) option.selected = true;
          select.appendChild(option);
        });
        select.addEventListener("change", function () {
          try {
            if (select.value === "system") window.localStorage.removeItem(themeKey);
            else window.localStorage.setItem(themeKey, select.value);
          } catch (error) {
            // Storage refused: the choice holds for this page only.
          }
          applyTheme(select.value);
        });
        label.appendChild(select);
        header.appendChild(label);
      }

      // What is typed in a review's form and not saved yet: leaving the page (a picture's
      // button, a link) asks first.
      function guardTyping() {
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
      }

      // Asks before a delete or a detach.
      document.addEventListener("submit", function (event) {
        var question = event.target.getAttribute("data-confirm");
        if (question && !window.confirm(question)) event.preventDefault();
      });

      // The editor's upload: pictures dropped on the form or chosen in it go up together with a
      // progress bar. The answer's pictures and notice replace this page's, and nothing else
      // does, so that what is typed in the review's fields stays as it is.
      function enhanceUpload(form) {
        var input = form.querySelector("input[type=file][multiple]");
        var action = form.getAttribute("action") || "";
        if (!input || !/\/images$/.test(action) || form.classList.contains("upload")) return;
        form.classList.add("upload");
        var zone = element("div", { class: "drop" }, "Or drop pictures here");
        var progress = element("progress", { max: "100", value: "0", "aria-label": "Upload progress" });
        progress.hidden = true;
        var status = element("p", { role: "status" });
        form.appendChild(zone);
        form.appendChild(progress);
        form.appendChild(status);
        function send(files) {
          if (!files.length) return;
          var data = new FormData();
          form.querySelectorAll("input[type=hidden]").forEach(function (field) { data.append(field.name, field.value); });
          Array.prototype.forEach.call(files, function (file) { data.append("file", file, file.name); });
          var count = files.length === 1 ? "1 picture" : files.length + " pictures";
          var request = new XMLHttpRequest();
          request.open("POST", form.action);
          progress.hidden = false;
          progress.value = 0;
          status.textContent = "Uploading " + count + "…";
          request.upload.addEventListener("progress", function (event) {
            if (!event.lengthComputable) return;
            progress.value = Math.round((event.loaded / event.total) * 100);
            status.textContent = "Uploading " + count + ": " + progress.value + "%";
          });
          request.addEventListener("load", function () {
            var answered = new URL(request.responseURL || form.action, window.location.href).pathname;
            var here = [window.location.pathname, new URL(form.action, window.location.href).pathname];
            if (here.indexOf(answered) < 0) {
              // Somewhere else (signing in again): go there, as the form would have.
              window.location.assign(request.responseURL);
              return;
            }
            var page = new DOMParser().parseFromString(request.responseText, "text/html");
            if (!showPictures(page)) {
              progress.hidden = true;
              var said = page.querySelector("main .problem") || page.querySelector("main h1");
              status.textContent = said ? said.textContent.trim() : "The upload did not work (" + request.status + ").";
            }
          });
          request.addEventListener("error", function () {
            progress.hidden = true;
            status.textContent = "The pictures did not reach the server: check the connection and upload them again.";
          });
          request.send(data);
        }
        form.addEventListener("submit", function (event) {
          event.preventDefault();
          send(input.files);
        });
        ["dragenter", "dragover"].forEach(function (type) {
          form.addEventListener(type, function (event) {
            event.preventDefault();
            zone.classList.add("over");
          });
        });
        form.addEventListener("dragleave", function (event) {
          if (!form.contains(event.relatedTarget)) zone.classList.remove("over");
        });
        form.addEventListener("drop", function (event) {
          event.preventDefault();
          zone.classList.remove("over");
          send(event.dataTransfer.files);
        });
      }

      // The pictures of an editor page the server answered with, in place of this page's, with
      // what it says about them first, and the focus there. False when it has none.
      function showPictures(page) {
        var fresh = page.querySelector("section.pictures");
        var current = document.querySelector("section.pictures");
        if (!fresh || !current) return false;
        var said = Array.prototype.filter.call(
          page.querySelectorAll("main .notice, main .problem"),
          function (part) { return !fresh.contains(part) && !part.closest("form"); });
        document.querySelectorAll("main .notice, main .problem").forEach(function (part) {
          if (!part.closest("form")) part.remove();
        });
        var section = document.importNode(fresh, true);
        var heading = section.querySelector("h2");
        said.forEach(function (part) {
          var copy = document.importNode(part, true);
          copy.removeAttribute("id");
          copy.removeAttribute("autofocus");
          copy.setAttribute("tabindex", "-1");
          section.insertBefore(copy, heading ? heading.nextSibling : section.firstChild);
          heading = copy;
        });
        current.replaceWith(section);
        enhance();
        var first = section.querySelector(".notice, .problem");
        if (first) first.focus();
        return true;
      }

      // The review page's pictures in a viewer: arrow keys to go from one to the next, Escape
      // to close. A click with a modifier still opens the original. Pictures inside a closed
      // spoiler warning are not among them until the reader opens it.
      function addViewer() {
        var all = Array.prototype.filter.call(
          document.querySelectorAll("article.review .cover a, article.review .gallery a"),
          function (link) { return link.querySelector("img"); });
        if (!all.length || typeof HTMLDialogElement !== "function") return;
        var links = all;
        function shownLinks() {
          return all.filter(function (link) { return !link.closest("details:not([open])"); });
        }
        var dialog = element("dialog", { class: "viewer", "aria-label": "Pictures" });
        var image = element("img", { alt: "" });
        var caption = element("p", { class: "controls" });
        var previous = element("button", { type: "button" }, "← Previous picture");
        var position = element("span", { "aria-live": "polite" });
        var next = element("button", { type: "button" }, "Next picture →");
        var original = element("a", {}, "Open the original");
        var close = element("button", { type: "button" }, "Close the viewer");
        [previous, position, next, original, close].forEach(function (part) { caption.appendChild(part); });
        dialog.appendChild(image);
        dialog.appendChild(caption);
        document.body.appendChild(dialog);
        var shown = 0;
        function show(index) {
          shown = (index + links.length) % links.length;
          var picture = links[shown].querySelector("img");
          image.src = picture.currentSrc || picture.src;
          image.alt = picture.alt;
          position.textContent = "Picture " + (shown + 1) + " of " + links.length;
          original.href = links[shown].href;
          if (links[shown].hasAttribute("download")) original.setAttribute("download", "");
          else original.removeAttribute("download");
          previous.hidden = next.hidden = links.length < 2;
        }
        all.forEach(function (link) {
          link.addEventListener("click", function (event) {
            if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
            event.preventDefault();
            links = shownLinks();
            show(Math.max(0, links.indexOf(link)));
            if (!dialog.open) dialog.showModal();
            close.focus();
          });
        });
        previous.addEventListener("click", function () { show(shown - 1); });
        next.addEventListener("click", function () { show(shown + 1); });
        close.addEventListener("click", function () { dialog.close(); });
        dialog.addEventListener("click", function (event) { if (event.target === dialog) dialog.close(); });
        dialog.addEventListener("keydown", function (event) {
          if (event.key === "ArrowRight") show(shown + 1);
          else if (event.key === "ArrowLeft") show(shown - 1);
          else return;
          event.preventDefault();
        });
        dialog.addEventListener("close", function () { links[shown].focus(); });
      }

      // The editor's Markdown, shown as the review's page will show it, on demand.
      function addPreview() {
        var editor = document.querySelector("form.editor");
        var text = editor && editor.querySelector("textarea[name=body]");
        var token = editor && editor.querySelector("input[name=csrf]");
        if (!text || !token || editor.querySelector(".preview")) return;
        var button = element("button", { type: "button" }, "Preview the review");
        var shown = element("section", { class: "preview", "aria-live": "polite", "aria-label": "Preview" });
        shown.hidden = true;
        var place = text.closest("label") || text;
        place.parentNode.insertBefore(button, place.nextSibling);
        button.parentNode.insertBefore(shown, button.nextSibling);
        button.addEventListener("click", function () {
          var data = new URLSearchParams();
          data.append("csrf", token.value);
          data.append("body", text.value);
          window.fetch("/preview", { method: "POST", body: data, credentials: "same-origin" })
            .then(function (answer) {
              if (!answer.ok) throw new Error("the server answered " + answer.status);
              return answer.text();
            })
            .then(function (html) {
              var body = new DOMParser().parseFromString(html, "text/html").body;
              shown.replaceChildren.apply(shown, Array.prototype.map.call(body.childNodes, function (node) {
                return document.importNode(node, true);
              }));
              if (!shown.childNodes.length) shown.textContent = "Nothing to show yet: the review is empty.";
              shown.hidden = false;
            })
            .catch(function (error) {
              shown.textContent = "No preview (" + error.message + "): the text is still in the field.";
              shown.hidden = false;
            });
        });
      }

      function enhance() {
        document.querySelectorAll("form[enctype='multipart/form-data']").forEach(enhanceUpload);
      }

      document.addEventListener("DOMContentLoaded", function () {
        addThemeChooser();
        guardTyping();
        addPreview();
        enhance();
        addViewer();
      });
    })();
    """#
}
