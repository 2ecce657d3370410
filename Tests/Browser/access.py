#!/usr/bin/env python3
"""Every page of the catalogue judged in a real browser: axe-core, phones, dark, keyboard only.

    access.py URL NAME PASSWORD JPEG

Against a running `catalogue serve` at URL whose library holds at least one review with a
picture and a reviewer NAME with PASSWORD:

- runs axe-core on every page (the grid, the list view, a search, a search that finds nothing,
  a review, sign-in, the new review form, the editor, the delete question, a page that is not
  there) in the light look and the dark one, at 1280 px and on a 320 px phone, and fails on any
  serious or critical violation, each printed with where it is;
- checks that no page scrolls sideways at 320 px and that controls are at least 24×24 px;
- chooses the dark theme in the page and finds it kept after a reload, and finds no theme
  choice when script is off;
- moves through a filter's choices with the arrow keys and finds no page loaded until its
  button is pressed;
- adds a review with the keyboard alone (Tab, arrow keys, Space and Enter; the star radio
  group included), titled "Written with the keyboard", 4 stars, a favourite (" (typed)" is
  added to its title later), its Markdown previewed on the way;
- drops a tall picture and the JPEG on the editor's upload form and follows its progress until
  the editor shows them, what was typed in its fields meanwhile kept (and then saved), then finds the review's text on the first screen beside the tall cover, and
  goes through the pictures in the viewer with the arrow keys.

Prints each check that failed and a closing count; the exit status is 0 only when every check
passed. Tests/ServerTests/BrowserTests.swift runs it inside `swift test`. axe-core is the
axe.min.js that the axe-playwright-python package ships (scripts/install-packages pins it): it
is read from the virtual environment and run in the page, so nothing is fetched.
"""

import argparse
import base64
import importlib.util
import os
import struct
import sys
import tempfile
import time
import urllib.parse
import zlib

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browse import WAIT, WINDOW, Browse, StepFailed, report, start_browser, wait_for_images, walk  # noqa: E402

PHONE = (320, 640)
KEYBOARD_TITLE = "Written with the keyboard"
# axe's tags for WCAG 2.0, 2.1 and 2.2 at levels A and AA, and its best practices.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def axe_source():
    """axe.min.js from the installed axe-playwright-python, found without importing the package
    (which would import Playwright)."""
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("axe-playwright-python is not installed: run scripts/install-packages")
    with open(os.path.join(list(spec.submodule_search_locations)[0], "axe.min.js"), encoding="utf-8") as file:
        return file.read()


def tall_png(path, width=600, height=1400):
    """A portrait PNG, a gradient of greens, written without any imaging library."""
    rows = b"".join(
        b"\x00" + b"".join(bytes([x * 255 // width, 120 + y * 135 // height, 90]) for x in range(width))
        for y in range(height)
    )

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    with open(path, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 6)))
        file.write(chunk(b"IEND", b""))
    return path


class Access(Browse):
    """The pages judged; the walk of browse.py's `Browse` gives the checks and the browser."""

    def __init__(self, driver, base, name, password, jpeg, work):
        super().__init__(driver, base, name, password, jpeg, jpeg, work)
        self.axe = axe_source()
        self.work = work

    # The look: system colour scheme and viewport

    def look(self, scheme, phone):
        self.driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
        )
        if phone:
            self.driver.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 1, "mobile": True},
            )
        else:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            self.driver.set_window_size(*WINDOW)

    # axe

    def run_axe(self, where):
        """axe on the page as it is; every serious or critical violation a failed check."""
        if not self.driver.execute_script("return typeof window.axe === 'object';"):
            self.driver.execute_script(self.axe)
        result = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, resultTypes: ['violations']})"
            ".then(r => done({violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
            " nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary}))}))}),"
            " e => done({error: String(e)}));",
            AXE_TAGS,
        )
        if "error" in result:
            self.check(False, f"{where}: axe ran", result["error"])
            return
        serious = [v for v in result["violations"] if v["impact"] in ("serious", "critical")]
        for violation in serious:
            places = "; ".join(
                f"{node['target']}: {' '.join(node['summary'].split())}" for node in violation["nodes"][:5]
            )
            self.check(False, f"{where}: axe {violation['impact']} {violation['id']} ({violation['help']})", places)
        if not serious:
            self.passed += 1

    def fits_a_phone(self, where):
        widths = self.driver.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth];"
        )
        self.check(widths[0] <= widths[1], f"{where}: nothing scrolls sideways", f"scrollWidth {widths[0]} > {widths[1]}")
        small = self.driver.execute_script(
            "return Array.from(document.querySelectorAll('button, select, input:not([type=hidden]), label, a'))"
            ".filter(e => {"
            "  const r = e.getBoundingClientRect(); if (r.width === 0 && r.height === 0) return false;"
            "  if (e.closest('.skip') || e.matches('.rating input, .visually-hidden')) return false;"
            "  if (e.matches('a') && e.closest('p, li, h1, h2, h3, td') && !e.closest('.views, .pager, .download, .account, .actions')"
            "      && getComputedStyle(e).display === 'inline') return false;"
            "  if (e.matches('label') && !e.closest('.rating')) return false;"
            "  return r.width < 24 || r.height < 24;"
            "}).map(e => e.outerHTML.slice(0, 90));"
        )
        self.check(not small, f"{where}: every control is at least 24×24 px", "; ".join(small))

    # The pages

    def pages(self, review_path):
        reader = [
            ("/", "the grid"),
            ("/?view=list", "the list view"),
            ("/?q=the", "a search"),
            ("/?q=nothingmatchesthis", "a search that finds nothing"),
            (review_path, "a review"),
            ("/reviewers/" + self.name, "a reviewer's page"),
            ("/sign-in", "sign-in"),
            ("/reviews/0123456789abcdef", "a review that is not there"),
        ]
        reviewer = [
            ("/new", "the new review form"),
            (review_path + "/edit", "the editor"),
            (review_path + "/delete", "the delete question"),
            ("/reviewers/" + self.name + "/edit", "the profile form"),
        ]
        return reader, reviewer

    def judge(self, pages, signed):
        for scheme, phone in [("light", False), ("dark", False), ("light", True), ("dark", True)]:
            self.look(scheme, phone)
            look = f"{scheme}{', 320 px' if phone else ''}{', signed in' if signed else ''}"
            for path, name in pages:
                self.open(path)
                wait_for_images(self.driver, "main img", timeout=5)
                where = f"{name} ({look})"
                background = self.driver.execute_script("return getComputedStyle(document.body).backgroundColor;")
                dark = background == "rgb(16, 20, 18)"
                self.check(dark == (scheme == "dark"), f"{where}: the {scheme} look", background)
                self.run_axe(where)
                if phone:
                    self.fits_a_phone(where)
        self.look("light", False)

    def sign_in(self):
        self.open("/sign-in")
        self.one("form.signin input[name=name]").send_keys(self.name)
        self.one("form.signin input[name=password]").send_keys(self.password)
        self.submit(self.one("form.signin button"), lambda: self.path() == "/", "signing in")

    # The theme

    def theme(self):
        self.open("/")
        chooser = self.find("header.site select[name=theme]")
        if not self.check(len(chooser) == 1, "theme: the header offers a choice of theme"):
            return
        self.check(
            chooser[0].get_attribute("value") == "system", "theme: the system's look unless one was chosen"
        )
        dark_background = "rgb(16, 20, 18)"
        chooser[0].find_element(By.CSS_SELECTOR, "option[value=dark]").click()
        self.check(
            self.driver.execute_script("return document.documentElement.dataset.theme;") == "dark",
            "theme: choosing Dark darkens the page",
        )
        self.open("/?view=list")
        self.check(
            self.driver.execute_script("return getComputedStyle(document.body).backgroundColor;") == dark_background,
            "theme: the dark look is kept on the next page, on a light system",
        )
        self.check(
            self.one("header.site select[name=theme]").get_attribute("value") == "dark", "theme: the choice shows Dark"
        )
        self.one("header.site select[name=theme] option[value=system]").click()
        self.check(
            self.driver.execute_script("return document.documentElement.hasAttribute('data-theme');") is False,
            "theme: back to the system's look",
        )
        self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        try:
            self.open("/")
            self.check(not self.find("select[name=theme]"), "theme: no choice is offered without script")
            self.check(bool(self.find("ul.cards li.card")), "without script: the grid is there")
        finally:
            self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})

    # The keyboard

    def active(self):
        return self.driver.switch_to.active_element

    def press(self, *keys):
        ActionChains(self.driver).send_keys(*keys).perform()

    def tab_to(self, selector, what, limit=40):
        """Tab until the element `selector` has the focus."""
        for _ in range(limit):
            if self.driver.execute_script("return document.activeElement.matches(arguments[0]);", selector):
                return self.active()
            self.press(Keys.TAB)
        raise StepFailed(f"keyboard: Tab never reached {what} ({selector})")

    def rating_focus(self):
        return self.driver.execute_script(
            "const e = document.activeElement;"
            "return e.matches('input[name=rating]') ? [e.value, e.checked] : null;"
        )

    def keyboard_review(self):
        """A new review with the keyboard alone, from the top of /new."""
        self.open("/new")
        self.driver.execute_script("document.activeElement.blur(); window.scrollTo(0, 0);")
        self.tab_to("input[name=title]", "the title")
        self.press(KEYBOARD_TITLE)
        self.press(Keys.TAB)
        focused = self.rating_focus()
        self.check(focused == ["3", True], "keyboard: Tab goes from the title to the chosen star", f"{focused}")
        name = self.active().accessible_name
        self.check(name == "3 of 5 stars", "keyboard: the chosen star is “3 of 5 stars”", name)
        outline = self.driver.execute_script(
            "return getComputedStyle(document.activeElement.nextElementSibling).outlineStyle;"
        )
        self.check(outline not in ("none", ""), "keyboard: the focused star shows it has the focus", outline)
        self.press(Keys.ARROW_LEFT, Keys.ARROW_LEFT, Keys.ARROW_LEFT)
        focused = self.rating_focus()
        self.check(focused == ["0", True], "keyboard: arrow keys reach 0 stars", f"{focused}")
        self.check(
            self.active().accessible_name == "0 of 5 stars",
            "keyboard: 0 is announced “0 of 5 stars”",
            self.active().accessible_name,
        )
        filled = self.driver.execute_script(
            "return Array.from(document.querySelectorAll('.rating .glyph'))"
            ".map(g => getComputedStyle(g, '::before').content);"
        )
        self.check(filled == ['"☆"'] * 5, "keyboard: 0 stars shows five empty stars", f"{filled}")
        self.press(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
        focused = self.rating_focus()
        self.check(focused == ["4", True], "keyboard: arrow keys choose 4 stars", f"{focused}")
        filled = self.driver.execute_script(
            "return Array.from(document.querySelectorAll('.rating .glyph'))"
            ".map(g => getComputedStyle(g, '::before').content);"
        )
        self.check(filled == ['"★"'] * 4 + ['"☆"'], "keyboard: 4 stars shows four filled stars", f"{filled}")
        self.press(Keys.TAB)
        self.check(
            self.driver.execute_script("return document.activeElement.name;") == "category",
            "keyboard: Tab leaves the stars for the category in one press",
        )
        # Tab into a text field selects what is in it: typing replaces "movie".
        self.press("book")
        self.tab_to("input[name=favorite]", "the favourite box")
        self.press(Keys.SPACE)
        self.tab_to("textarea[name=body]", "the review")
        self.press("*Typed*, not clicked.")
        self.tab_to("form.editor button[type=button]", "the preview button")
        self.check(
            self.active().accessible_name == "Preview the review",
            "keyboard: the preview button says what it shows",
            self.active().accessible_name,
        )
        self.press(Keys.ENTER)
        self.wait_until(lambda: bool(self.find("form.editor .preview em")), "the preview")
        self.check(
            self.text("form.editor .preview em") == "Typed", "keyboard: the preview shows the Markdown rendered"
        )
        self.tab_to("form.editor button.primary", "the button that adds the review")
        old = self.one("html")
        self.press(Keys.ENTER)
        self.wait_until(
            lambda: self.stale(old) and self.path().startswith("/reviews/") and bool(self.find("main .notice")),
            "adding the review by keyboard",
        )
        self.check(self.text("main .notice") == "Review published.", "keyboard: the page says “Review published.”")
        self.check(self.text("article.review h1") == KEYBOARD_TITLE, "keyboard: the review is added")
        stars = self.find("article.review .facts .stars")
        self.check(
            bool(stars) and stars[0].get_attribute("aria-label") == "4 of 5 stars",
            "keyboard: the review has 4 stars",
        )
        self.check(bool(self.find("article.review .favorite")), "keyboard: the review is a favourite")
        return self.path()

    def filters_wait(self):
        """Arrow keys in the filters' lists change the choice and load nothing; the button applies."""
        self.open("/")
        old = self.one("html")
        self.one("form.filters select[name=category]").click()
        self.press(Keys.ESCAPE)
        self.tab_to("form.filters select[name=min]", "the stars filter")
        self.press(Keys.ARROW_DOWN, Keys.ARROW_DOWN)
        time.sleep(0.5)
        self.check(not self.stale(old) and self.path() == "/" and not self.query(), "filters: arrow keys load nothing")
        self.tab_to("form.filters button", "the filters' button")
        self.press(Keys.ENTER)
        self.wait_until(lambda: self.stale(old) and self.query().get("min") == ["2"], "applying the filters")
        self.passed += 1

    # Comfort: drop and upload, the viewer

    def drop_pictures(self, review_path, tall):
        """Drops the tall PNG and the JPEG on the editor's upload form, as a file manager would."""
        self.open(review_path + "/edit")
        form = f'form[action="{review_path}/images"]'
        if not self.check(bool(self.find(form + " .drop")), "upload: the form offers to take dropped pictures"):
            return
        # The bytes reach the page as the files of a drop: read here, handed over as base64.
        files = []
        for path, kind in [(tall, "image/png"), (self.jpeg, "image/jpeg")]:
            with open(path, "rb") as file:
                files.append([os.path.basename(path), kind, base64.b64encode(file.read()).decode()])
        # Something typed in the review's fields and not saved: the upload keeps it.
        title = self.one("form.editor input[name=title]")
        title.send_keys(" (typed)")
        typed = title.get_attribute("value")
        progress = self.driver.execute_script(
            "const form = document.querySelector(arguments[0]);"
            "const data = new DataTransfer();"
            "for (const [name, kind, text] of arguments[1]) {"
            "  const bytes = Uint8Array.from(atob(text), c => c.charCodeAt(0));"
            "  data.items.add(new File([bytes], name, {type: kind}));"
            "}"
            "form.dispatchEvent(new DragEvent('dragover', {dataTransfer: data, bubbles: true, cancelable: true}));"
            "form.dispatchEvent(new DragEvent('drop', {dataTransfer: data, bubbles: true, cancelable: true}));"
            "const p = form.querySelector('progress'); return p && !p.hidden;",
            form,
            files,
        )
        self.check(progress, "upload: a progress bar shows while the pictures go up")
        self.wait_until(
            lambda: bool(self.find("section.pictures .notice, section.pictures .problem")), "the dropped pictures uploaded"
        )
        self.check(
            self.text("section.pictures .notice") == "2 pictures added.",
            "upload: the editor says “2 pictures added.”",
            self.text("section.pictures .notice") or self.text("section.pictures .problem"),
        )
        self.check(
            self.driver.execute_script("return document.activeElement.classList.contains('notice');"),
            "upload: the focus is on what was done",
        )
        self.check(
            len(self.find("section.pictures ul.gallery li")) == 2, "upload: both dropped pictures are in the editor"
        )
        self.check(
            self.one("form.editor input[name=title]").get_attribute("value") == typed,
            "upload: what was typed in the title is still there",
        )
        self.check(bool(self.find(form + " .drop")), "upload: the new form takes dropped pictures too")
        self.submit(
            self.one("form.editor button.primary"),
            lambda: self.path() == review_path and bool(self.find("main .notice, main .problem")),
            "saving what was typed",
        )
        self.check(
            self.text("article.review h1") == KEYBOARD_TITLE + " (typed)",
            "upload: what was typed is saved afterwards",
            self.text("main .problem") or self.text("article.review h1"),
        )

    def first_screen(self, review_path):
        self.driver.set_window_size(1280, 800)
        self.open(review_path)
        wait_for_images(self.driver, "article.review img")
        sizes = self.driver.execute_script(
            "const i = document.querySelector('article.review .cover img');"
            "const b = document.querySelector('article.review .body');"
            "return {cover: i && [i.naturalWidth, i.naturalHeight], text: b && b.getBoundingClientRect().top,"
            " screen: window.innerHeight};"
        )
        cover = sizes["cover"]
        self.check(bool(cover) and cover[1] > cover[0], "review: its cover is the tall picture", f"{sizes}")
        self.check(
            sizes["text"] is not None and sizes["text"] < sizes["screen"] - 48,
            "review: the text starts on the first screen beside a tall cover",
            f"{sizes}",
        )
        self.driver.set_window_size(*WINDOW)

    def viewer(self, review_path):
        self.open(review_path)
        links = self.find("article.review .cover a, article.review .gallery a")
        if not self.check(len(links) == 2, "viewer: the review has two pictures", f"{len(links)}"):
            return
        links[0].click()
        dialog = self.find("dialog.viewer[open]")
        if not self.check(bool(dialog), "viewer: a picture opens in the viewer, not a new page"):
            return
        self.check(self.path() == review_path, "viewer: the page stays")
        say = lambda: self.text("dialog.viewer [aria-live]")  # noqa: E731
        self.check(say() == "Picture 1 of 2", "viewer: it says which picture", say())
        self.press(Keys.ARROW_RIGHT)
        self.check(say() == "Picture 2 of 2", "viewer: the right arrow shows the next", say())
        shown = self.driver.execute_script("return document.querySelector('dialog.viewer img').src;")
        second = self.driver.execute_script("return document.querySelectorAll('article.review img')[1].src;")
        self.check(shown == second, "viewer: the second picture is shown", f"{shown} != {second}")
        self.press(Keys.ARROW_LEFT)
        self.check(say() == "Picture 1 of 2", "viewer: the left arrow goes back", say())
        self.press(Keys.ESCAPE)
        self.check(not self.find("dialog.viewer[open]"), "viewer: Escape closes it")
        self.check(
            self.driver.execute_script("return document.activeElement === arguments[0];", links[0]),
            "viewer: the focus is back on the picture it opened from",
        )

    # The walk

    def run(self):
        self.open("/")
        review_links = self.find("ul.cards li.card h2 a")
        if not review_links:
            raise StepFailed("no review in the grid")
        review_path = urllib.parse.urlsplit(review_links[0].get_attribute("href")).path
        reader, reviewer = self.pages(review_path)
        self.judge(reader, signed=False)
        self.theme()
        self.filters_wait()
        self.sign_in()
        self.judge(reviewer + [("/", "the grid")], signed=True)
        new_path = self.keyboard_review()
        self.drop_pictures(new_path, tall_png(os.path.join(self.work, "tall.png")))
        self.judge([(new_path, "a review with a tall cover"), (new_path + "/edit", "its editor")], signed=True)
        self.first_screen(new_path)
        self.viewer(new_path)
        self.collect_console()
        problems = [
            entry["message"]
            for entry in self.console
            if entry.get("level") == "SEVERE"
            and ("Content Security Policy" in entry["message"] or "Uncaught" in entry["message"])
        ]
        self.check(not problems, "no script error or blocked resource in the console", "; ".join(problems))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the server, e.g. http://127.0.0.1:8080/")
    parser.add_argument("name", help="a reviewer's name")
    parser.add_argument("password", help="that reviewer's password")
    parser.add_argument("jpeg", help="a JPEG to upload")
    arguments = parser.parse_args()

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="catalogue-access-") as work:
        profile = os.path.join(work, "profile")
        driver = start_browser(profile)
        access = Access(driver, arguments.url, arguments.name, arguments.password, arguments.jpeg, work)
        walk(access, driver, access.run)
    return report("access", access, started)


if __name__ == "__main__":
    sys.exit(main())
