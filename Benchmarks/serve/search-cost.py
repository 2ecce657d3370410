#!/usr/bin/env python3
"""What the costliest searches cost `catalogue serve`, and what they do to thumbnails.

    python3 Benchmarks/serve/search-cost.py --catalogue BIN --library LIBRARY [--seconds S] [--runs N]

Starts `catalogue serve` on LIBRARY pinned to core 0 (as serve-bench.sh does), and from the
core this runs on (run it with `taskset -c 1`):

1. times each search below through the API (`/api/reviews?search=…&sort=relevance`, a new
   offset each run) and the grid page (`/?q=…`, a new order each run), N runs each (default
   5), so that none is answered from the server's memory: status, median and worst ms;
2. asks one thumbnail again and again for S seconds (default 10) on one connection, alone and
   then while two clients ask the costliest search the server answers (200) again and again,
   each time at a new offset: median, p99 and worst milliseconds of the thumbnails, and how
   many searches were answered.

The searches are built from the library's own vocabulary (the full-text index's, read with
Python's sqlite3 through a temporary fts5vocab table, which writes nothing): its commonest
words, whose posting lists are the longest. Python's standard library only.
"""

import argparse
import http.client
import os
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse


def vocabulary(library):
    db = sqlite3.connect("file:%s/catalogue.sqlite?mode=ro" % library, uri=True)
    db.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, 'reviews_fts', 'row')")
    words = [row[0] for row in db.execute(
        "SELECT term, doc FROM temp.v WHERE term NOT GLOB '*[^a-z]*' ORDER BY doc DESC, term")]

    def prefixes(length):
        return [row[0] for row in db.execute(
            "SELECT substr(term, 1, ?) AS p, sum(doc) FROM temp.v WHERE term NOT GLOB '*[^a-z]*' "
            "AND length(term) >= ? GROUP BY p ORDER BY 2 DESC", (length, length))]

    found = words, prefixes(1), prefixes(2), prefixes(3)
    db.close()
    return found


def searches(words, one, two, three):
    common = [w for w in words if w != "review"]
    return [
        ("one common word", common[0]),
        # Past the caps (32 words, 1,000 characters, 3 letters before a *): refused.
        ("2,000 OR terms", " OR ".join(common[:1000])),
        ("2,000 words", " ".join(common[:2000])),
        ("a 1-letter prefix", one[0] + "*"),
        ("32 1-letter prefixes", " ".join(p + "*" for p in one[:26] + one[:6])),
        ("32 2-letter prefixes", " ".join(p + "*" for p in two[:32])),
        ("8 2-letter prefixes", " ".join(p + "*" for p in two[:8])),
        # Within them.
        ("2 commonest words", " ".join(common[:2])),
        ("8 commonest words", " ".join(common[:8])),
        ("32 commonest words", " ".join(common[:32])),
        ("a 3-letter prefix", three[0] + "*"),
        ("4 3-letter prefixes", " ".join(p + "*" for p in three[:4])),
        ("8 3-letter prefixes", " ".join(p + "*" for p in three[:8])),
        ("32 3-letter prefixes", " ".join(p + "*" for p in three[:32])),
        ("a phrase of 32 common words", '"' + " ".join(common[:32]) + '"'),
        ("16 common words, 16 3-letter prefixes", " ".join(common[:16] + [p + "*" for p in three[:16]])),
        # The costliest found by trying mixtures: their lists meet in few reviews, after long walks.
        ("16 common words, 6 3-letter prefixes", " ".join(common[:16] + [p + "*" for p in three[:6]])),
        ("8 common words, 12 3-letter prefixes", " ".join(common[:8] + [p + "*" for p in three[:12]])),
    ]


class Client:
    def __init__(self, port):
        self.port = port
        self.connection = None

    def get(self, target):
        for attempt in (0, 1):
            try:
                if self.connection is None:
                    self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
                self.connection.request("GET", target)
                response = self.connection.getresponse()
                body = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.connection.close()
                    self.connection = None
                return response.status, body
            except (http.client.HTTPException, OSError):
                self.connection = None
                if attempt:
                    raise


def timed(client, target):
    start = time.perf_counter()
    status, body = client.get(target)
    return status, (time.perf_counter() - start) * 1000, body


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--catalogue", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()

    vocabularies = vocabulary(options.library)
    server = subprocess.Popen(
        ["taskset", "-c", "0", options.catalogue, "--library", options.library, "serve", "--port", "0", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        banner = server.stdout.readline()
        port = int(banner.split("http://127.0.0.1:")[1].split("/")[0])
        client = Client(port)
        status, body = client.get("/api/reviews?limit=1")
        thumbnail = "/thumbnails/" + body.decode().split('"thumbnail":"/thumbnails/')[1].split('"')[0]

        print("%-40s %6s %10s %10s %6s %10s %10s" % ("search", "chars", "API ms", "worst", "page", "page ms", "worst"))
        allowed = []
        for name, text in searches(*vocabularies):
            quoted = urllib.parse.quote(text)
            rows = []
            # Each run asks something no run asked before (another offset, another order): the
            # server keeps readers' answers until the library changes, and a client that wants
            # to cost it something asks a new one every time.
            sorts = ["relevance", "newest", "oldest", "title", "title-desc", "rating", "rating-asc", "updated"]
            for make in (lambda run: "/api/reviews?limit=50&sort=relevance&offset=%d&search=%s" % (run, quoted),
                         lambda run: "/?q=%s&sort=%s" % (quoted, sorts[run % len(sorts)])):
                runs = [timed(client, make(run)) for run in range(options.runs)]
                rows.append((runs[0][0], statistics.median(r[1] for r in runs), max(r[1] for r in runs)))
            print("%-40s %6d %4d %5.1f %10.1f %6d %10.1f %10.1f" % (
                name, len(text), rows[0][0], rows[0][1], rows[0][2], rows[1][0], rows[1][1], rows[1][2]))
            if rows[0][0] == 200:
                allowed.append((rows[0][1], name, "/api/reviews?limit=50&sort=relevance&search=" + quoted))

        def thumbnails(label):
            times = []
            end = time.monotonic() + options.seconds
            thumbs = Client(port)
            while time.monotonic() < end:
                status, ms, _ = timed(thumbs, thumbnail)
                assert status == 200, status
                times.append(ms)
            times.sort()
            print("thumbnails %-44s %6d answered, median %.2f ms, p99 %.2f ms, worst %.1f ms" % (
                label, len(times), times[len(times) // 2], times[int(len(times) * 0.99)], times[-1]))

        thumbnails("alone")
        worst = max(allowed)
        stop = threading.Event()
        answered = [0, 0]

        def load(index):
            search = Client(port)
            while not stop.is_set():
                search.get("%s&offset=%d" % (worst[2], 1000 + 2 * answered[index] + index))
                answered[index] += 1

        threads = [threading.Thread(target=load, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        time.sleep(0.5)
        thumbnails("while 2 clients ask: " + worst[1])
        stop.set()
        for thread in threads:
            thread.join()
        print("searches answered meanwhile: %d" % sum(answered))
    finally:
        server.terminate()
        server.wait(timeout=40)


if __name__ == "__main__":
    sys.exit(main())
