#!/usr/bin/env python3
"""Spoilers in a real browser: what stays hidden until a reader asks, and how a reader asks.

    spoilers.py URL NAME PASSWORD WARNED MARKED DRAFT

Against a running `catalogue serve` at URL with a reviewer NAME with PASSWORD, and three
review pages (paths):

- WARNED, a review marked as containing spoilers, whose body says "butler": its body sits in
  a closed `details.spoiler-warning`, not in the page's text, until the reader opens it with a
  click, Enter or Space (Space closes it again), with script and without; Tab reaches its
  summary, which shows a focus ring, is announced as a collapsed disclosure and then as an
  expanded one, and reads "This review contains spoilers. Show it";
- MARKED, a review whose body has an inline spoiler (`||…||`, hiding "ghost") and a block one
  (`::: spoiler` … `:::`, hiding "sinks"): each closed and out of the page's text until opened
  the same ways, the inline one drawn within its line;
- DRAFT, a draft: signed in, its page, its preview as a reader, the grid of drafts and its
  editor are judged by axe-core with the pages above, in the light look and the dark one.

Prints each check that failed and a closing count; the exit status is 0 only when every check
passed. Tests/ServerTests/BrowserTests.swift runs it inside `swift test`.
"""

import argparse
import os
import sys
import tempfile
import time

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from access import Access  # noqa: E402
from browse import report, start_browser, walk  # noqa: E402

WARNING_SUMMARY = "This review contains spoilers. Show it"
# What chromium calls a <summary> in its accessibility tree (a disclosure triangle, announced
# as a button that expands), and what other engines may call it.
SUMMARY_ROLES = {"DisclosureTriangle", "disclosure-triangle", "button"}


class Spoilers(Access):
    """The checks, with Access's axe and looks, and Browse's browser."""

    def __init__(self, driver, base, name, password, work):
        super().__init__(driver, base, name, password, os.path.join(work, "unused.jpg"), work)

    # What the page shows

    def page_text(self):
        return self.driver.execute_script("return document.body.innerText;")

    def is_open(self, details):
        return self.driver.execute_script("return arguments[0].open;", details)

    def soon(self, condition, timeout=2):
        """Whether `condition()` holds within `timeout` seconds (a key's effect may come a moment
        after the key)."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def focused(self, element):
        return self.driver.execute_script("return document.activeElement === arguments[0];", element)

    def expanded(self, selector):
        """The summary's role and expanded state in chromium's accessibility tree, as a screen
        reader is told them; (None, None) when the tree cannot be read."""
        try:
            document = self.driver.execute_cdp_cmd("DOM.getDocument", {"depth": 0})
            node = self.driver.execute_cdp_cmd(
                "DOM.querySelector", {"nodeId": document["root"]["nodeId"], "selector": selector}
            )
            tree = self.driver.execute_cdp_cmd(
                "Accessibility.getPartialAXTree", {"nodeId": node["nodeId"], "fetchRelatives": False}
            )
        except WebDriverException:
            return None, None
        for found in tree.get("nodes", []):
            if found.get("ignored"):
                continue
            role = found.get("role", {}).get("value")
            states = {item["name"]: item.get("value", {}).get("value") for item in found.get("properties", [])}
            return role, states.get("expanded")
        return None, None

    # One disclosure

    def disclosure(self, selector, word, what, tag=""):
        """The `details` at `selector`, hiding `word`: closed and out of the page's text; Tab
        reaches its summary, Enter opens, Space closes and opens, a click closes and opens."""
        label = f"{tag}{what}"
        found = self.find(selector)
        if not self.check(len(found) == 1, f"{label}: the page has it", f"{len(found)} found at {selector}"):
            return
        details = found[0]
        summary = details.find_element(By.CSS_SELECTOR, ":scope > summary")
        self.check(not self.is_open(details), f"{label}: closed at first")
        self.check(word not in self.page_text(), f"{label}: “{word}” is not in the page's text before it is opened")
        found, drawn = self.driver.execute_script(
            "const walker = document.createTreeWalker(arguments[0], NodeFilter.SHOW_TEXT);"
            "let node, found = false, drawn = false;"
            "while ((node = walker.nextNode())) {"
            "  if (!node.data.includes(arguments[1])) continue;"
            "  found = true;"
            # An element inside: whether the browser would draw it (a closed details's content
            # is `content-visibility: hidden`, laid out on demand but never drawn); text right
            # in the details: whether it has boxes at all.
            "  const range = document.createRange(); range.selectNodeContents(node);"
            "  if (node.parentElement === arguments[0] ? range.getClientRects().length"
            "      : node.parentElement.checkVisibility()) drawn = true;"
            "}"
            "return [found, drawn];",
            details,
            word,
        )
        self.check(found and not drawn, f"{label}: “{word}” is in it, and not drawn", f"found {found}, drawn {drawn}")
        role = summary.aria_role
        self.check(role in SUMMARY_ROLES, f"{label}: its summary has a button-like role", role)
        tree_role, expanded = self.expanded(selector + " > summary")
        self.check(
            tree_role in SUMMARY_ROLES and expanded is False,
            f"{label}: announced as a collapsed disclosure",
            f"role {tree_role}, expanded {expanded}",
        )

        # The keyboard: Tab to it, Enter, Space.
        self.driver.execute_script("document.activeElement.blur(); window.scrollTo(0, 0);")
        self.tab_to(selector + " > summary", f"{label}'s summary", limit=80)
        self.check(self.focused(summary), f"{label}: Tab reaches its summary")
        outline = self.driver.execute_script("return getComputedStyle(document.activeElement).outlineStyle;")
        self.check(outline not in ("none", ""), f"{label}: the focused summary shows it has the focus", outline)
        self.press(Keys.ENTER)
        self.check(self.soon(lambda: self.is_open(details)), f"{label}: Enter opens it")
        self.check(word in self.page_text(), f"{label}: once open, “{word}” is in the page's text")
        tree_role, expanded = self.expanded(selector + " > summary")
        self.check(expanded is True, f"{label}: announced as expanded once open", f"expanded {expanded}")
        self.press(Keys.SPACE)
        self.check(self.soon(lambda: not self.is_open(details)), f"{label}: Space closes it")
        self.check(word not in self.page_text(), f"{label}: closed again, “{word}” is gone from the text")
        self.press(Keys.SPACE)
        self.check(self.soon(lambda: self.is_open(details)), f"{label}: Space opens it")

        # The mouse.
        summary.click()
        self.check(self.soon(lambda: not self.is_open(details)), f"{label}: a click closes it")
        summary.click()
        self.check(self.soon(lambda: self.is_open(details)), f"{label}: a click opens it")
        self.check(word in self.page_text(), f"{label}: opened by a click, “{word}” is in the text")

    # The pages

    def warned(self, path):
        self.open(path)
        summary = self.find("details.spoiler-warning > summary")
        name = summary[0].accessible_name if summary else ""
        self.check(name == WARNING_SUMMARY, "warning: the summary says what it hides and how to see it", name)
        self.check(bool(self.find("article.review h1")), "warning: the title is shown")
        self.check(bool(self.find("article.review .facts .stars")), "warning: the stars are shown")
        self.disclosure("details.spoiler-warning", "butler", "warning")
        # Without script, it is the browser's own: a click still opens it.
        self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        try:
            self.open(path)
            details = self.one("details.spoiler-warning")
            self.check("butler" not in self.page_text(), "warning without script: closed at first")
            self.one("details.spoiler-warning > summary").click()
            self.check(self.is_open(details), "warning without script: a click opens it")
            self.check("butler" in self.page_text(), "warning without script: then the body is in the text")
        finally:
            self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})

    def marked(self, path):
        self.open(path)
        self.disclosure("details.spoiler.spoiler-inline", "ghost", "inline spoiler")
        self.open(path)
        self.disclosure("details.spoiler:not(.spoiler-inline)", "sinks", "block spoiler")
        self.open(path)
        inline = self.find("details.spoiler-inline")
        if inline:
            styles = self.driver.execute_script(
                "const d = arguments[0], s = d.querySelector(':scope > summary');"
                "return [getComputedStyle(d).display, getComputedStyle(s).display,"
                " d.parentElement.tagName.toLowerCase(), d.parentElement.className];",
                inline[0],
            )
            self.check(
                styles[0] == "inline" and styles[1] == "inline",
                "inline spoiler: drawn within its line",
                f"{styles}",
            )
            self.check(
                styles[2] == "div" and styles[3] == "paragraph",
                "inline spoiler: its paragraph is a div.paragraph (a details cannot sit in a p)",
                f"{styles}",
            )
            margins = self.driver.execute_script(
                "const p = document.querySelector('.body p'), d = document.querySelector('.body div.paragraph');"
                "return p && d ? [getComputedStyle(p).marginTop, getComputedStyle(d).marginTop] : null;"
            )
            self.check(
                margins is not None and margins[0] == margins[1],
                "inline spoiler: its paragraph is spaced as the others",
                f"{margins}",
            )

    def shapes(self, path):
        """The markup the Markdown renderer gives spoilers, put into a review page as it is: the
        style sheet's part of them (drawn inline, spaced as a paragraph, closed until asked),
        whether or not the renderer in this build makes them yet."""
        self.open(path)
        self.driver.execute_script(
            "document.querySelector('article.review').insertAdjacentHTML('beforeend', arguments[0]);",
            '<div class="body" id="shapes"><p>Plain words.</p>'
            '<div class="paragraph">Before <details class="spoiler spoiler-inline"><summary>Spoiler</summary>'
            "the phantom</details> and after.</div>"
            '<details class="spoiler"><summary>Spoiler</summary><p>The iceberg wins.</p></details></div>',
        )
        tag = "[shape] "
        self.run_axe(f"{tag}spoilers closed")
        self.driver.execute_script("document.querySelectorAll('#shapes details').forEach(d => d.open = true);")
        self.run_axe(f"{tag}spoilers open")
        self.driver.execute_script("document.querySelectorAll('#shapes details').forEach(d => d.open = false);")
        self.disclosure("#shapes details.spoiler-inline", "phantom", "inline spoiler", tag)
        self.disclosure("#shapes details.spoiler:not(.spoiler-inline)", "iceberg", "block spoiler", tag)
        found = self.driver.execute_script(
            "const d = document.querySelector('#shapes details.spoiler-inline'), s = d.querySelector('summary'),"
            " before = d.parentElement.firstChild, range = document.createRange();"
            "range.selectNodeContents(before);"
            "const line = range.getBoundingClientRect(), box = s.getBoundingClientRect();"
            "return {details: getComputedStyle(d).display, summary: getComputedStyle(s).display,"
            " sameLine: Math.abs(line.top - box.top) < box.height,"
            " p: getComputedStyle(document.querySelector('#shapes p')).marginTop,"
            " div: getComputedStyle(document.querySelector('#shapes div.paragraph')).marginTop};"
        )
        self.check(
            found["details"] == "inline" and found["summary"] == "inline" and found["sameLine"],
            f"{tag}inline spoiler: drawn within its line, open or closed",
            f"{found}",
        )
        self.check(found["p"] == found["div"], f"{tag}div.paragraph is spaced as a paragraph", f"{found}")

    def run(self, warned, marked, draft):
        self.warned(warned)
        self.shapes(warned)
        self.marked(marked)
        self.judge([(warned, "a review with spoilers"), (marked, "a review with spoilers marked in it")], signed=False)
        # Open, in both looks: the summaries and the text revealed have their contrast too.
        for scheme in ["light", "dark"]:
            self.look(scheme, False)
            self.open(warned)
            self.driver.execute_script("document.querySelectorAll('details').forEach(d => d.open = true);")
            self.run_axe(f"a review with spoilers, opened ({scheme})")
        self.look("light", False)
        self.sign_in()
        self.judge(
            [
                (draft, "a draft"),
                (draft + "?preview=reader", "a draft previewed as a reader"),
                ("/?show=drafts", "the drafts"),
                (draft + "/edit", "a draft's editor"),
            ],
            signed=True,
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the server, e.g. http://127.0.0.1:8080/")
    parser.add_argument("name", help="a reviewer's name")
    parser.add_argument("password", help="that reviewer's password")
    parser.add_argument("warned", help="the page of a review marked as containing spoilers")
    parser.add_argument("marked", help="the page of a review with spoilers marked in its body")
    parser.add_argument("draft", help="the page of a draft")
    arguments = parser.parse_args()

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="catalogue-spoilers-") as work:
        driver = start_browser(os.path.join(work, "profile"))
        spoilers = Spoilers(driver, arguments.url, arguments.name, arguments.password, work)
        walk(spoilers, driver, lambda: spoilers.run(arguments.warned, arguments.marked, arguments.draft))
    return report("spoilers", spoilers, started)


if __name__ == "__main__":
    sys.exit(main())
