#!/usr/bin/env python3
"""What a reviewer types is never lost, in a real browser (Debian's chromium through Selenium).

    forms.py URL NAME PASSWORD REVIEW

Against a running `catalogue serve` at URL whose library holds the review REVIEW (an id) and a
reviewer NAME with PASSWORD: signs in, then
- adds a review, goes Back and presses Add again: the library holds one review of that title;
  the same in a browser with JavaScript turned off;
- edits REVIEW in two tabs: the second save meets the first on a conflict page showing both
  versions, and saving from it keeps what the second tab typed;
- types in the editor, then follows a link away: the page asks first, and staying keeps the text;
- types in the editor while the session ends on the server, presses Save: the sign-in page says
  what happened, and after signing in the form comes back as typed, and saves.

Prints each check that failed and a closing count; exits 0 only when every check passed.
Tests/ServerTests/BrowserFormsTests.swift runs it inside `swift test`.
"""

import json
import os
import sys
import tempfile
import urllib.parse


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browse import WAIT, Browse, start_browser  # noqa: E402


class Forms(Browse):
    """The walks of this script; browse.py's `Browse` gives the checks and the browser. Its
    `wait_until` raises `StepFailed`, which fails the step it stops."""

    def __init__(self, driver, base, name, password, review, work):
        super().__init__(driver, base, name, password, "", "", work)
        self.review = review

    def api(self, path):
        with self.http.open(self.base + path, timeout=WAIT) as answer:
            return json.load(answer)

    def titled(self, title):
        found = self.api("/api/reviews?" + urllib.parse.urlencode({"search": f'"{title}"', "limit": "50"}))
        return [review for review in found["reviews"] if review["title"] == title]

    def type_into(self, selector, text):
        field = self.one(selector)
        field.clear()
        field.send_keys(text)

    def press(self, selector, then, what):
        self.one(selector).click()
        return self.wait_until(then, what)

    def sign_in(self):
        self.type_into("form.signin input[name=name]", self.name)
        self.type_into("form.signin input[name=password]", self.password)
        self.one("form.signin button").click()
        return self.wait_until(lambda: not self.path().startswith("/sign-in"), "signing in")

    # The walks

    def back_and_add_again(self, title="Added once, though sent twice"):
        self.open("/new")
        self.type_into("form.editor input[name=title]", title)
        self.type_into("form.editor input[name=category]", "game")
        self.press("form.editor button.primary", lambda: self.path().startswith("/reviews/"), "adding a review")
        added = self.path()
        self.driver.back()
        self.wait_until(lambda: self.path() == "/new", "going back to the form")
        kept = self.one("form.editor input[name=title]").get_attribute("value")
        self.press(
            "form.editor button.primary",
            lambda: self.path() != "/new" or bool(self.find("main .problem")),
            "adding it again",
        )
        self.check(len(self.titled(title)) == 1, "Back and Add again: one review", f"the form came back with {kept!r}")
        if kept == title:
            self.check(self.path() == added, "Back and Add again: led to the review added first", self.path())

    def two_tabs(self):
        edit = f"/reviews/{self.review}/edit"
        self.open(edit)
        first = self.driver.current_window_handle
        self.driver.switch_to.new_window("tab")
        self.open(edit)
        self.type_into("form.editor textarea[name=body]", "Saved first, from the other tab.")
        self.press("form.editor button.primary", lambda: self.path() == f"/reviews/{self.review}", "saving in tab two")
        self.driver.close()
        self.driver.switch_to.window(first)
        self.type_into("form.editor input[name=title]", "Typed in the first tab")
        self.press("form.editor button.primary", lambda: bool(self.find("div.versions")), "saving the stale form")
        heading = self.one("main h1").text
        self.check("was changed while you were editing" in heading, "a stale form: the conflict page", heading)
        versions = self.one("div.versions").text
        self.check("Saved first, from the other tab." in versions, "a stale form: the version saved now is shown")
        self.check(
            self.one("form.editor input[name=title]").get_attribute("value") == "Typed in the first tab",
            "a stale form: what was typed is in the form again",
        )
        focused = self.driver.execute_script("return document.activeElement.id")
        self.check(focused == "problems", "a stale form: the focus is on what happened", focused)
        review = self.api(f"/api/reviews/{self.review}")
        self.check(review["body"] == "Saved first, from the other tab.", "a stale form: nothing saved over the change")
        self.press("form.editor button.primary", lambda: self.path() == f"/reviews/{self.review}", "saving mine")
        review = self.api(f"/api/reviews/{self.review}")
        self.check(review["title"] == "Typed in the first tab", "a stale form: saved once asked", review["title"])

    def leaving(self):
        """Whether leaving the page now would ask first: a `beforeunload` the page cancels (the
        browser then asks; a driven browser accepts such a question by itself)."""
        return self.driver.execute_script(
            "const event = new Event('beforeunload', {cancelable: true});"
            "window.dispatchEvent(event); return event.defaultPrevented;"
        )

    def leaving_asks_first(self):
        self.open(f"/reviews/{self.review}/edit")
        self.check(not self.leaving(), "nothing typed: leaving asks nothing")
        self.one("form.editor input[name=title]").send_keys(" (typed, not saved)")
        self.check(self.leaving(), "typed, not saved: leaving asks first")
        self.press("form.editor button.primary", lambda: self.path() == f"/reviews/{self.review}", "saving")
        self.check(self.api(f"/api/reviews/{self.review}")["title"].endswith("(typed, not saved)"), "typed: saved")

    def session_ends_while_typing(self):
        # Anything typed is given up here on purpose: a fresh page.
        self.driver.execute_script("window.onbeforeunload = null;")
        self.open(f"/reviews/{self.review}/edit")
        typed = "Typed for an hour while the session ran out."
        self.type_into("form.editor textarea[name=body]", typed)
        # The server forgets the session (as after a week away); the browser still sends its cookie.
        self.driver.delete_cookie("catalogue_session")
        self.driver.add_cookie({"name": "catalogue_session", "value": "ended-on-the-server", "path": "/"})
        self.press("form.editor button.primary", lambda: self.path() == "/sign-in", "saving after the session ended")
        said = self.one("main .problem").text
        self.check("what you typed comes back" in said, "session ended: the sign-in page says why", said)
        self.sign_in()
        self.check(self.path() == f"/reviews/{self.review}/edit", "session ended: back to the editor", self.path())
        body = self.one("form.editor textarea[name=body]").get_attribute("value")
        self.check(body == typed, "session ended: the form comes back as typed", body[:80])
        self.check(self.api(f"/api/reviews/{self.review}")["body"] != typed, "session ended: not saved unasked")
        self.press("form.editor button.primary", lambda: self.path() == f"/reviews/{self.review}", "saving")
        self.check(self.api(f"/api/reviews/{self.review}")["body"] == typed, "session ended: saved once asked")


def main():
    base, name, password, review = sys.argv[1:5]
    with tempfile.TemporaryDirectory(prefix="catalogue-forms-") as profile:
        driver = start_browser(profile)
        walk = Forms(driver, base, name, password, review, profile)
        try:
            walk.open("/sign-in")
            walk.sign_in()
            for step in [walk.back_and_add_again, walk.two_tabs, walk.leaving_asks_first, walk.session_ends_while_typing]:
                try:
                    step()
                except Exception as error:  # a step that cannot go on fails alone
                    walk.check(False, f"{step.__name__} could not go on", repr(error))
        finally:
            driver.quit()
    # Without script, the form's token cannot ride in the history's state: the page itself must
    # come back as it was sent.
    with tempfile.TemporaryDirectory(prefix="catalogue-forms-") as profile:
        driver = start_browser(profile, script=False)
        plain = Forms(driver, base, name, password, review, profile)
        try:
            plain.open("/sign-in")
            plain.sign_in()
            plain.back_and_add_again("Added once without script, though sent twice")
        except Exception as error:
            plain.check(False, "back_and_add_again without script could not go on", repr(error))
        finally:
            driver.quit()
        walk.passed += plain.passed
        walk.failed += plain.failed
    print(f"{walk.passed} checks passed, {len(walk.failed)} failed", flush=True)
    sys.exit(0 if not walk.failed else 1)


if __name__ == "__main__":
    main()
