#!/usr/bin/env bash
# Remakes the screenshots in the README: the sample library as a reader sees it in headless
# chromium, driven by Selenium as Tests/Browser/browse.py drives it. The grid and a review, in
# the light look and the dark one (the system's choice, as the browser is told), each whole at
# 1280 pixels wide (docs/grid.png, docs/review.png, docs/grid-dark.png, docs/review-dark.png) and
# as the first screen of a 390 × 844 phone (docs/grid-phone.png, …-dark-phone.png). `catalogue serve` serves a copy of Library/ on a free port: serving upgrades a library's
# schema, and the committed library stays as it is.
#
#   docs/make-screenshots.sh
#
# Uses .build/release/catalogue, built here first; set CATALOGUE=/path/to/catalogue to use
# another binary (nothing is built then). Needs chromium, chromium-driver and Selenium's
# virtual environment, which scripts/install-packages installs.
set -euo pipefail

docs=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$(dirname "$docs")"  # the repository root
python=${XDG_CACHE_HOME:-$HOME/.cache}/catalogue/browser-venv/bin/python
[ -x "$python" ] || { echo "$0: $python is missing: run scripts/install-packages" >&2; exit 1; }

if [ -n "${CATALOGUE:-}" ]; then
  catalogue=$CATALOGUE
else
  swift build -c release --product catalogue
  catalogue=.build/release/catalogue
fi
[ -x "$catalogue" ] || { echo "$0: $catalogue is not an executable" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/screenshots.XXXXXX")
server=''
stop_server() {
  if [ -n "$server" ]; then
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=''
  fi
}
trap 'stop_server; rm -rf "$work"' EXIT

cp -R Library "$work/Library"
rm -f "$work/Library/catalogue.lock"

# The review shown: SuperStore, whose second picture is a HEIC, shown through its rendition.
review=$("$catalogue" --library "$work/Library" --json list --search superstore \
  | "$python" -c 'import json, sys; print(json.load(sys.stdin)["reviews"][0]["id"])')

"$catalogue" --library "$work/Library" serve --port 0 --quiet >"$work/serve.out" 2>"$work/serve.err" &
server=$!
# The first line names the port: "Serving LIB at http://127.0.0.1:PORT/ (Ctrl-C stops)".
url=''
for _ in $(seq 200); do
  url=$(sed -n '1s|.* at \(http://[^ ]*\) .*|\1|p' "$work/serve.out")
  if [ -n "$url" ] || ! kill -0 "$server" 2>/dev/null; then break; fi
  sleep 0.05
done
[ -n "$url" ] || { echo "$0: catalogue serve did not start:" >&2; cat "$work/serve.err" >&2; exit 1; }

"$python" -B - "$url" "$review" "$docs" <<'EOF'
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.getcwd(), "Tests", "Browser"))
from browse import WINDOW, start_browser, wait_for_images  # noqa: E402

url, review, docs = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
PHONE = (390, 844)
with tempfile.TemporaryDirectory(prefix="catalogue-screenshots-") as profile:
    driver = start_browser(profile)
    try:
        for scheme in ["light", "dark"]:
            driver.execute_cdp_cmd(
                "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
            )
            for path, stem in [("/", "grid"), (f"/reviews/{review}", "review")]:
                look = "" if scheme == "light" else "-dark"
                # The desktop: the whole page in one picture, the window as tall as the page,
                # then every (lazily loaded) picture waited for again.
                driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
                driver.set_window_size(*WINDOW)
                driver.get(url + path)
                wait_for_images(driver)
                height = driver.execute_script(
                    "return document.documentElement.scrollHeight + window.outerHeight - window.innerHeight;"
                )
                driver.set_window_size(WINDOW[0], height)
                shots = [(f"{stem}{look}.png", wait_for_images(driver))]
                driver.save_screenshot(os.path.join(docs, shots[0][0]))
                # The phone: its first screen.
                driver.execute_cdp_cmd(
                    "Emulation.setDeviceMetricsOverride",
                    {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 1, "mobile": True},
                )
                driver.get(url + path)
                wait_for_images(driver)
                shots.append((f"{stem}{look}-phone.png", wait_for_images(driver, "main img")))
                driver.save_screenshot(os.path.join(docs, shots[1][0]))
                for name, states in shots:
                    broken = [state["src"] for state in states if state["naturalWidth"] == 0]
                    if broken:
                        sys.exit(f"{path}: pictures not shown: {', '.join(broken)}")
                    print(f"docs/{name}: {url}{path}")
    finally:
        driver.quit()
EOF
stop_server
