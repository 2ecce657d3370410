#!/usr/bin/env python3
"""The catalogue in a real browser: Debian's chromium, driven through chromedriver by Selenium.

    browse.py URL NAME PASSWORD JPEG HEIC SCREENSHOTS

Against a running `catalogue serve` at URL whose library holds at least one review with a
picture and a reviewer NAME with PASSWORD: browses as a reader, is refused an edit page, signs
in, adds a review with the JPEG, uploads the HEIC to it, finds the new review's cover in the
grid and both pictures on its page (the HEIC through its JPEG display rendition), then signs
out and is refused the edit page again; then, in a browser with a screen of twice the density,
checks that the grid's covers come from their 2× thumbnails. Writes grid.png and review.png
(and failure.png when a step cannot go on) into SCREENSHOTS.

Prints each check that failed and a closing count; the exit status is 0 only when every check
passed. Tests/ServerTests/BrowserTests.swift runs it inside `swift test`; scripts/install-packages
installs what it needs.
"""

import argparse
import os
import re
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WINDOW = (1280, 900)
DISPLAY_EDGE = 1600  # the longest edge of the pictures of a review page
WAIT = 20  # seconds: the machine may be shared, and a display rendition is made on first sight


def start_browser(profile, script=True, scale=1):
    """Headless chromium with the driver Debian ships, so that Selenium never looks for one
    online. `--no-sandbox` because tests run as root, where chromium's sandbox refuses to
    start. `script=False` turns the pages' JavaScript off (as a reader may); `scale` is the
    screen's density (2 for a phone's or a laptop's sharp screen)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in [
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-proxy-server",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--force-device-scale-factor={scale}",
        "--lang=en-GB",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        f"--user-data-dir={profile}",
    ]:
        options.add_argument(argument)
    if not script:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=CHROMEDRIVER)
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_window_size(*WINDOW)
    driver.set_page_load_timeout(60)
    return driver


def fits(shown, size, edge):
    """Whether `shown` is `size` fitted into `edge` pixels, never enlarged (a pixel of rounding
    either way)."""
    scale = min(1.0, edge / max(size))
    return all(abs(got - round(side * scale)) <= 1 for got, side in zip(shown, size)) and min(shown) > 0


def image_state(driver, image):
    """What the browser made of an <img>: loaded, its decoded size and the size the page says."""
    return driver.execute_script(
        "const i = arguments[0];"
        "return {complete: i.complete, naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight,"
        " width: Number(i.getAttribute('width')), height: Number(i.getAttribute('height')),"
        " src: i.getAttribute('src')};",
        image,
    )


def wait_for_image(driver, image, timeout=WAIT):
    """Scrolls a (possibly lazy) image into view and waits until it has loaded or broken."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", image)
    deadline = time.monotonic() + timeout
    state = image_state(driver, image)
    while time.monotonic() < deadline:
        if state["complete"] and state["naturalWidth"] > 0:
            break
        time.sleep(0.1)
        state = image_state(driver, image)
    return state


def wait_for_images(driver, selector="main img", timeout=WAIT):
    """Every image of the page loaded (or given up on), then the page back at its top."""
    states = [wait_for_image(driver, image, timeout) for image in driver.find_elements(By.CSS_SELECTOR, selector)]
    driver.execute_script("window.scrollTo(0, 0);")
    return states


class Browse:
    """The walk through the site, counting the checks that passed and naming those that failed."""

    def __init__(self, driver, base, name, password, jpeg, heic, screenshots):
        self.driver = driver
        self.base = base.rstrip("/")
        self.name = name
        self.password = password
        self.jpeg = os.path.abspath(jpeg)
        self.heic = os.path.abspath(heic)
        self.screenshots = screenshots
        self.passed = 0
        self.failed = []
        self.console = []
        # Straight to the server, whatever proxy the environment names.
        self.http = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    # Checks

    def check(self, condition, what, detail=""):
        if condition:
            self.passed += 1
        else:
            message = what if not detail else f"{what} ({detail})"
            self.failed.append(message)
            print(f"FAILED: {message}", flush=True)
        return condition

    # The browser

    def open(self, path):
        self.driver.get(self.base + path)
        self.collect_console()

    def path(self):
        return urllib.parse.urlsplit(self.driver.current_url).path

    def query(self):
        return urllib.parse.parse_qs(urllib.parse.urlsplit(self.driver.current_url).query)

    def find(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def one(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def text(self, selector):
        found = self.find(selector)
        return found[0].text.strip() if found else ""

    def link_texts(self, selector="header.site nav a"):
        return [link.text.strip() for link in self.find(selector)]

    def wait_until(self, condition, what):
        try:
            WebDriverWait(self.driver, WAIT, poll_frequency=0.1).until(lambda _: condition())
        except TimeoutException:
            raise StepFailed(f"{what}: still not so after {WAIT} s at {self.driver.current_url}") from None
        self.collect_console()

    def submit(self, button, then, what):
        """Clicks a link or a form's button and waits for a new page on which `then()` holds."""
        old = self.one("html")
        button.click()
        self.wait_until(lambda: self.stale(old) and then(), what)

    @staticmethod
    def stale(element):
        try:
            element.tag_name
            return False
        except WebDriverException:
            return True

    def collect_console(self):
        try:
            self.console += self.driver.get_log("browser")
        except WebDriverException:
            pass

    def screenshot(self, name):
        path = os.path.join(self.screenshots, name)
        self.driver.save_screenshot(path)
        return path

    def images_loaded(self, states, where):
        self.check(len(states) > 0, f"{where}: there are pictures")
        for state in states:
            self.check(
                state["complete"] and state["naturalWidth"] > 0,
                f"{where}: picture {state['src']} is shown",
                f"complete={state['complete']}, naturalWidth={state['naturalWidth']}",
            )

    def signed_out_header(self, where):
        links = self.link_texts()
        self.check("Sign in" in links, f"{where}: the header offers “Sign in”", f"links {links}")
        self.check("New review" not in links, f"{where}: the header offers no “New review”", f"links {links}")
        self.check(not self.find("header.site .signed-in"), f"{where}: nobody is shown as signed in")

    def refused_edit_page(self, edit_path, where):
        """A reader asking for an editor gets the sign-in form instead, which goes back there."""
        self.open(edit_path)
        self.check(self.path() == "/sign-in", f"{where}: the edit page sends a reader to /sign-in", self.path())
        self.check(self.text("main h1") == "Sign in", f"{where}: the sign-in form is shown", self.text("main h1"))
        self.check(
            len(self.find("form.signin input[name=name]")) == 1
            and len(self.find("form.signin input[name=password]")) == 1,
            f"{where}: the form asks for a name and a password",
        )
        self.check(not self.find("form.editor"), f"{where}: no editor is shown")
        nexts = self.find("form.signin input[name=next]")
        self.check(
            bool(nexts) and nexts[0].get_attribute("value") == edit_path,
            f"{where}: signing in goes back to the edit page",
            nexts[0].get_attribute("value") if nexts else "no next field",
        )

    def fetch(self, path):
        with self.http.open(self.base + path, timeout=WAIT) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read()

    # The walk

    def run(self):
        # A reader: the grid of covers, then a review, with nothing to change.
        self.open("/")
        self.check(self.driver.title == "Reviews", "home: the title is “Reviews”", self.driver.title)
        cards = self.find("ul.cards li.card")
        self.check(len(cards) > 0, "home: the grid shows the library's reviews")
        self.signed_out_header("home as a reader")
        self.images_loaded(wait_for_images(self.driver, "ul.cards img"), "home as a reader")
        if not cards:
            raise StepFailed("home: no review to open")
        first = cards[0].find_element(By.CSS_SELECTOR, "h2 a")
        first_title = first.text.strip()
        self.submit(first, lambda: self.path().startswith("/reviews/"), "opening a review from the grid")
        review_path = self.path()
        self.check(
            self.text("article.review h1") == first_title, "review: the page shows the review opened", review_path
        )
        self.check(not self.find("p.actions a"), "review as a reader: no Edit or Delete")
        self.images_loaded(wait_for_images(self.driver, "article.review img"), "review as a reader")

        # Refused: the edit page and the new review page ask for a sign-in.
        edit_path = review_path + "/edit"
        self.refused_edit_page(edit_path, "before signing in")
        self.open("/new")
        self.check(self.path() == "/sign-in", "before signing in: /new sends a reader to /sign-in", self.path())

        # Signing in: a wrong password first, then the right one, back to the edit page.
        self.open("/sign-in?next=" + urllib.parse.quote(edit_path, safe=""))
        self.one("form.signin input[name=name]").send_keys(self.name)
        self.one("form.signin input[name=password]").send_keys(self.password + "-wrong")
        self.submit(self.one("form.signin button"), lambda: bool(self.find("main .problem")), "a wrong password")
        self.check(
            "wrong name or password" in self.text("main .problem"),
            "a wrong password: the page says “wrong name or password”",
            self.text("main .problem"),
        )
        self.check(
            self.one("form.signin input[name=name]").get_attribute("value") == self.name,
            "a wrong password: the name is kept in the form",
        )
        self.one("form.signin input[name=password]").send_keys(self.password)
        self.submit(
            self.one("form.signin button"),
            lambda: self.path() == edit_path or bool(self.find("main .problem")),
            "signing in",
        )
        if self.find("main .problem"):
            raise StepFailed(f"signing in: refused with “{self.text('main .problem')}”")
        self.check(
            self.text("main h1").startswith("Edit “"), "signed in: back on the edit page", self.text("main h1")
        )
        self.check(
            self.text("header.site .signed-in") == f"Signed in as {self.name}",
            "signed in: the header names the reviewer",
            self.text("header.site .signed-in"),
        )
        self.check("Sign in" not in self.link_texts(), "signed in: no “Sign in” link")

        # A new review with the JPEG.
        new_link = [link for link in self.find("header.site nav a") if link.text.strip() == "New review"]
        if not self.check(bool(new_link), "signed in: the header offers “New review”"):
            raise StepFailed("no way to a new review")
        self.submit(new_link[0], lambda: self.path() == "/new", "opening the new review form")
        title = "Arrival, seen in a browser"
        self.one("form.editor input[name=title]").send_keys(title)
        self.one("form.editor label[for=rating-4]").click()
        self.check(
            self.one("form.editor input[name=rating][value='4']").is_selected(), "new review: a click chooses 4 stars"
        )
        category = self.one("form.editor input[name=category]")
        category.clear()
        category.send_keys("movie")
        self.one("form.editor textarea[name=body]").send_keys(
            "A linguist learns to *read* time.\n\nQuiet, patient and kind."
        )
        self.one("form.editor input[type=file][name=file]").send_keys(self.jpeg)
        self.submit(
            self.one("form.editor button.primary"),
            lambda: self.path().startswith("/reviews/") and bool(self.find("main .notice")),
            "adding the review",
        )
        new_path = self.path()
        self.check(self.text("main .notice") == "Review published.", "added: the page says “Review published.”")
        self.check(not self.query(), "added: no notice rides in the address", self.driver.current_url)
        self.check(
            self.driver.execute_script("return document.activeElement.classList.contains('notice')"),
            "added: the focus is on what was done",
        )
        self.check(self.text("article.review h1") == title, "added: the page shows the new title", self.text("main h1"))
        emphasis = self.find("article.review .body em")
        self.check(bool(emphasis) and emphasis[0].text == "read", "added: the body's Markdown is rendered")
        self.check(len(self.find("article.review img")) == 1, "added: the review has its one picture")

        # The HEIC, uploaded from the editor.
        edit_links = [link for link in self.find("p.actions a") if link.accessible_name == "Edit this review"]
        if not self.check(bool(edit_links), "added: the review page offers “Edit this review” to its reviewer"):
            raise StepFailed("no way to the editor")
        self.submit(edit_links[0], lambda: self.path() == new_path + "/edit", "opening the editor")
        self.one(f'form[action="{new_path}/images"] input[type=file]').send_keys(self.heic)
        # The script sends the picture itself and puts the editor's new pictures in place: the
        # page stays (what is typed in the fields with it).
        self.one(f'form[action="{new_path}/images"] button').click()
        self.wait_until(
            lambda: bool(self.find("section.pictures .notice")) or bool(self.find("main .problem")),
            "uploading the HEIC",
        )
        self.check(not self.find("main .problem"), "uploaded: no problem reported", self.text("main .problem"))
        self.check(self.text("main .notice") == "1 picture added.", "uploaded: the page says “1 picture added.”")
        items = self.find("section.pictures ul.gallery li")
        self.check(len(items) == 2, "uploaded: the editor lists two pictures", f"{len(items)} listed")
        facts = [item.find_element(By.CSS_SELECTOR, "p.download").text for item in items]
        self.check(
            len(facts) == 2 and "JPEG" in facts[0] and "HEIC" in facts[1],
            "uploaded: the JPEG first, then the HEIC",
            f"{facts}",
        )
        heic_size = re.search(r"HEIC (\d+)×(\d+)", facts[1]) if len(facts) == 2 else None
        heic_size = (int(heic_size[1]), int(heic_size[2])) if heic_size else None
        states = wait_for_images(self.driver, "section.pictures ul.gallery img")
        self.images_loaded(states, "the editor's thumbnails")
        for state in states:
            self.check(state["src"].startswith("/thumbnails/"), "the editor shows thumbnails", state["src"])
        cover_thumbnail = states[0]["src"] if states else None

        # The grid: the new review, its cover thumbnail shown.
        self.submit(self.one("header.site a.home"), lambda: self.path() == "/", "going home")
        cards = [
            card for card in self.find("ul.cards li.card") if card.find_element(By.CSS_SELECTOR, "h2").text == title
        ]
        self.check(len(cards) == 1, "grid: the new review has a card")
        if cards:
            images = cards[0].find_elements(By.CSS_SELECTOR, "img")
            self.check(len(images) == 1, "grid: the new review's card has a cover")
            if images:
                state = wait_for_image(self.driver, images[0])
                self.images_loaded([state], "grid: the new review's cover")
                self.check(
                    state["src"] == cover_thumbnail,
                    "grid: the cover is the JPEG's thumbnail",
                    f"{state['src']} != {cover_thumbnail}",
                )
                self.check(
                    (state["naturalWidth"], state["naturalHeight"]) == (state["width"], state["height"]),
                    "grid: the thumbnail has the size the page gives it",
                    f"{state}",
                )
        self.images_loaded(wait_for_images(self.driver, "ul.cards img"), "grid after the upload")
        self.screenshot("grid.png")

        # The review page: both pictures, the HEIC as its JPEG display rendition.
        self.submit(
            cards[0].find_element(By.CSS_SELECTOR, "h2 a") if cards else self.one("ul.cards h2 a"),
            lambda: self.path() == new_path,
            "opening the new review",
        )
        pictures = self.find("article.review img")
        self.check(len(pictures) == 2, "review: both pictures are on the page", f"{len(pictures)} shown")
        states = wait_for_images(self.driver, "article.review img")
        self.images_loaded(states, "review")
        for state in states:
            self.check(
                state["src"].startswith("/display/"), "review: pictures show as display renditions", state["src"]
            )
            self.check(
                (state["naturalWidth"], state["naturalHeight"]) == (state["width"], state["height"]),
                "review: each picture has the size the page gives it",
                f"{state}",
            )
        heic_links = self.find('article.review a[href$=".heic"]')
        self.check(len(heic_links) == 1, "review: the HEIC original is linked")
        if heic_links:
            self.check(
                heic_links[0].get_attribute("download") is not None,
                "review: the HEIC original is offered as a download",
            )
            shown = heic_links[0].find_elements(By.CSS_SELECTOR, "img")
            if self.check(len(shown) == 1, "review: the HEIC has a picture on the page"):
                state = image_state(self.driver, shown[0])
                shown_size = (state["naturalWidth"], state["naturalHeight"])
                self.check(
                    heic_size is not None and fits(shown_size, heic_size, DISPLAY_EDGE),
                    f"review: the HEIC shows upright at its own size, at most {DISPLAY_EDGE} px",
                    f"shown {shown_size[0]}×{shown_size[1]}, the editor says {heic_size}",
                )
                status, content_type, body = self.fetch(state["src"])
                self.check(
                    status == 200 and content_type.startswith("image/jpeg") and body[:3] == b"\xff\xd8\xff",
                    "review: the HEIC's display rendition is a JPEG",
                    f"{status} {content_type} {body[:4]!r}",
                )
        self.screenshot("review.png")

        # Signing out: the reader's header again, and the editor refused again.
        sign_out = self.find("header.site form[action='/sign-out'] button")
        if not self.check(len(sign_out) == 1, "signed in: the header offers “Sign out”"):
            raise StepFailed("no way to sign out")
        self.submit(sign_out[0], lambda: bool(self.find("main .notice")), "signing out")
        self.check(self.path() == "/", "signed out: back home", self.path())
        self.check(self.text("main .notice") == "Signed out.", "signed out: the page says “Signed out.”")
        self.signed_out_header("signed out")
        self.check(self.driver.get_cookie("catalogue_session") is None, "signed out: the session cookie is gone")
        self.refused_edit_page(new_path + "/edit", "after signing out")

        # Nothing the pages did was refused or broke.
        self.collect_console()
        problems = [
            entry["message"]
            for entry in self.console
            if entry.get("level") == "SEVERE"
            and ("Content Security Policy" in entry["message"] or "Uncaught" in entry["message"])
        ]
        self.check(not problems, "no script error or blocked resource in the console", "; ".join(problems))


def dense_screen(browse, profile):
    """On a screen of twice the density, the grid's covers come from the 2× thumbnails: the
    file the browser chose (`currentSrc`) and the pixels it decoded, twice the size shown; a
    cover with nothing sharper is its 1× file."""
    driver = start_browser(profile, scale=2)
    try:
        driver.get(browse.base + "/")
        states = []
        for image in driver.find_elements(By.CSS_SELECTOR, "ul.cards img"):
            wait_for_image(driver, image)
            states.append(
                driver.execute_script(
                    "const i = arguments[0];"
                    "return {current: i.currentSrc, srcset: i.getAttribute('srcset'), src: i.src,"
                    " naturalWidth: i.naturalWidth, width: Number(i.getAttribute('width'))};",
                    image,
                )
            )
        sharp = [state for state in states if state["srcset"]]
        browse.check(bool(sharp), "at 2×: the grid offers a cover at 2×", f"{len(states)} covers")
        for state in states:
            name = state["src"].rsplit("/", 1)[-1]
            if state["srcset"]:
                # `naturalWidth` is divided by the density the browser chose: the file's own
                # width is read from a picture loaded without one.
                pixels = driver.execute_async_script(
                    "const done = arguments[arguments.length - 1], i = new Image();"
                    "i.onload = () => done(i.naturalWidth); i.onerror = () => done(0); i.src = arguments[0];",
                    state["current"],
                )
                browse.check(
                    "@2x." in state["current"] and abs(pixels - 2 * state["width"]) <= 1,
                    f"at 2×: {name} is shown from its 2× thumbnail, at twice its width",
                    f"{state['current']}, {pixels} pixels wide for {state['width']}",
                )
            else:
                browse.check(
                    state["current"] == state["src"] and state["naturalWidth"] > 0,
                    f"at 2×: {name}, with nothing sharper, is its 1× file",
                    state["current"],
                )
    finally:
        driver.quit()


class StepFailed(Exception):
    """A step the rest of the walk depends on could not be done."""


def walk(checker, driver, run, where=lambda: ""):
    """Runs `run()` in `driver`, then quits it: a step that cannot go on is one failed check of
    `checker`'s, said with the page it stopped at (and what `where()` adds)."""
    try:
        run()
    except (StepFailed, WebDriverException, OSError) as error:
        checker.check(False, "the walk could not go on", f"{type(error).__name__}: {error}".strip())
        try:
            print(f"at {driver.current_url}{where()}")
        except WebDriverException:
            pass
    finally:
        driver.quit()


def report(name, checker, started):
    """Prints the closing count of `checker`'s checks and the time since `started`; the exit
    status: 0 only when every check passed."""
    print(f"{name}: {checker.passed} passed, {len(checker.failed)} failed")
    print(f"in {time.monotonic() - started:.1f} s")
    return 0 if not checker.failed else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the server, e.g. http://127.0.0.1:8080/")
    parser.add_argument("name", help="a reviewer's name")
    parser.add_argument("password", help="that reviewer's password")
    parser.add_argument("jpeg", help="a JPEG to add a review with")
    parser.add_argument("heic", help="a HEIC to upload to it")
    parser.add_argument("screenshots", help="the folder for grid.png and review.png")
    arguments = parser.parse_args()
    os.makedirs(arguments.screenshots, exist_ok=True)

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="catalogue-browser-") as profile:
        driver = start_browser(profile)
        browse = Browse(
            driver,
            arguments.url,
            arguments.name,
            arguments.password,
            arguments.jpeg,
            arguments.heic,
            arguments.screenshots,
        )
        walk(browse, driver, browse.run, lambda: f"; screenshot {browse.screenshot('failure.png')}")
    with tempfile.TemporaryDirectory(prefix="catalogue-browser-") as profile:
        try:
            dense_screen(browse, profile)
        except WebDriverException as error:
            browse.check(False, "at 2×: the grid could not be looked at", f"{type(error).__name__}: {error}".strip())
    return report("browser", browse, started)


if __name__ == "__main__":
    sys.exit(main())
