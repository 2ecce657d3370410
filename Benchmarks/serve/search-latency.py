#!/usr/bin/env python3
"""How long `catalogue serve` takes to answer searches: one at a time, and ten at once.

    python3 Benchmarks/serve/search-latency.py --catalogue BIN --library LIBRARY \
        [--runs N] [--seconds S] [--orders]

Starts `catalogue serve` on LIBRARY pinned to core 0 (as serve-bench.sh does) and, from the
core this runs on (run it with `taskset -c 1`):

1. asks each search below N times (default 100) through the API
   (`/api/reviews?search=…&sort=relevance&limit=50`), each time at a new offset (0, 1, 2, …) so
   that none is answered from the server's page cache: status, matches, median, p99 and worst
   milliseconds, and the server's CPU time an answer (user and system, from /proc), which other
   work on the machine moves less than the milliseconds;
2. with --orders, the same for the grid page (`/?q=…`, pages 1 to N) in the other orders
   (title, newest, rating) for the broadest searches;
3. ten distinct searches at once: ten client threads, each asking its own search again and
   again for S seconds (default 10), each time at a new offset; the milliseconds of every
   answer (median, p99, worst), the server's CPU time an answer, and each search's own p99.
   Twice: ten words in 3,000 to 7,000 reviews each (the serve benchmark's kind), then ten of the
   kinds of step 1.

The searches are chosen from the library's own text (read with Python's sqlite3, which writes
nothing), so that the script measures any schema: the commonest words and word pairs of the
Latin reviews, a word in about 5,000 reviews and one in about 50, the commonest 3-letter prefix;
with `catalogue-bench --other-scripts`, the commonest and a rarer two-character word of the
Chinese reviews, four characters of one as a phrase, and the commonest Arabic word without its
vowel marks and with them. Document frequencies are counted on a sample and scaled. Python's
standard library only.
"""

import argparse
import collections
import http.client
import json
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
import unicodedata
import urllib.parse

ARABIC_MARKS = re.compile("[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed]")


def documents(db, where, sample):
    rows = db.execute("SELECT body FROM reviews WHERE %s ORDER BY random() LIMIT ?" % where, (sample,)).fetchall()
    return [row[0] for row in rows]


def frequencies(texts, split):
    """How many of `texts` hold each term `split` finds in them."""
    counts = collections.Counter()
    for text in texts:
        counts.update(set(split(text)))
    return counts


def choose(library, sample):
    db = sqlite3.connect("file:%s/catalogue.sqlite?mode=ro" % library, uri=True)
    total = db.execute("SELECT count(*) FROM reviews").fetchone()[0]
    latin_share = db.execute("SELECT count(*) FROM reviews WHERE title GLOB 'Review *'").fetchone()[0]
    latin = documents(db, "title GLOB 'Review *'", sample)
    scale = latin_share / max(1, len(latin))

    def words(text):
        return [w for w in re.findall(r"[a-z]+", text.lower()) if w != "review"]

    word_docs = frequencies(latin, words)
    by_docs = word_docs.most_common()
    pairs = frequencies(latin, lambda text: [" ".join(p) for p in zip(words(text), words(text)[1:])])
    prefixes = frequencies(latin, lambda text: [w[:3] for w in words(text) if len(w) >= 3])

    def near(docs):
        return min(by_docs, key=lambda item: abs(item[1] * scale - docs))[0]

    chosen = [
        ("common word", by_docs[0][0]),
        ("2 common words", by_docs[0][0] + " " + by_docs[1][0]),
        ("phrase of 2 common words", '"%s"' % pairs.most_common(1)[0][0]),
        ("3-letter prefix", prefixes.most_common(1)[0][0] + "*"),
        ("word in ~5,000 reviews", near(5000)),
        ("rare word (~50 reviews)", near(50)),
    ]
    chinese = documents(db, "title GLOB '评论 *'", sample)
    if chinese:
        def bigrams(text):
            runs = re.findall(r"[\u4e00-\u9fff]+", text)
            return [run[i:i + 2] for run in runs for i in range(len(run) - 1)]
        common = frequencies(chinese, bigrams).most_common()
        body = max(chinese, key=len)
        chosen += [
            ("Chinese 2-character word, common", common[0][0]),
            ("Chinese 2-character word, rarer", common[len(common) // 4][0]),
            ("Chinese 4 characters", re.findall(r"[\u4e00-\u9fff]{8,}", body)[0][2:6]),
        ]
    arabic = documents(db, "title GLOB 'مراجعة *'", sample)
    if arabic:
        plain = frequencies(arabic, lambda text: ARABIC_MARKS.sub("", text).split()).most_common()
        marked = [w for text in arabic for w in text.split() if ARABIC_MARKS.search(w)
                  and ARABIC_MARKS.sub("", w) == plain[0][0]]
        chosen.append(("Arabic word, without marks", plain[0][0]))
        if marked:
            chosen.append(("Arabic word, with marks", marked[0]))
    # Ten words in 3,000 to 7,000 reviews each, spread over that range.
    middle = [w for w, docs in by_docs if 3000 <= docs * scale <= 7000]
    random.Random(1).shuffle(middle)
    db.close()
    return total, chosen, middle[:10]


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


def api(search, offset, limit=50):
    return "/api/reviews?limit=%d&sort=relevance&offset=%d&search=%s" % (limit, offset, urllib.parse.quote(search))


def timed(client, target):
    start = time.perf_counter()
    status, body = client.get(target)
    return status, (time.perf_counter() - start) * 1000, body


def cpu_ms(pid):
    """The CPU time the process has used, user and system, in milliseconds."""
    with open("/proc/%d/stat" % pid) as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def summary(times):
    times = sorted(times)
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))], times[-1]


def at_once(port, searches, seconds):
    """Each search on a thread of its own, again and again: every answer's milliseconds."""
    stop = threading.Event()
    times = [[] for _ in searches]
    failures = []

    def load(index):
        client = Client(port)
        offset = 0
        while not stop.is_set():
            status, ms, _ = timed(client, api(searches[index][1], 100 + offset))
            if status != 200:
                failures.append((searches[index][0], status))
            times[index].append(ms)
            offset += 1

    threads = [threading.Thread(target=load, args=(i,)) for i in range(len(searches))]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    return times, failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--catalogue", required=True)
    parser.add_argument("--library", required=True)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--sample", type=int, default=4000)
    parser.add_argument("--orders", action="store_true")
    options = parser.parse_args()

    total, searches, middle = choose(options.library, options.sample)
    server = subprocess.Popen(
        ["taskset", "-c", "0", options.catalogue, "--library", options.library, "serve", "--port", "0", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        banner = server.stdout.readline()
        port = int(banner.split("http://127.0.0.1:")[1].split("/")[0])
        client = Client(port)
        print("%d reviews; %d runs each, a new offset each run" % (total, options.runs))
        print("%-36s %-24s %6s %8s %8s %8s %8s %8s" % ("search", "text", "status", "matches", "p50 ms", "p99 ms",
                                                       "worst", "CPU ms"))
        for name, text in searches:
            # Not timed: the first search of each warms SQLite's page cache.
            status, _, body = timed(client, api(text, 0, limit=49))
            matches = json.loads(body).get("total", "-") if status == 200 else "-"
            before = cpu_ms(server.pid)
            runs = [timed(client, api(text, run)) for run in range(options.runs)]
            cpu = (cpu_ms(server.pid) - before) / options.runs
            median, p99, worst = summary(r[1] for r in runs)
            shown = text if len(text) <= 24 else text[:21] + "..."
            print("%-36s %-24s %6d %8s %8.1f %8.1f %8.1f %8.2f" % (
                name, shown, runs[0][0], matches, median, p99, worst, cpu))
        if options.orders:
            for order in ("title", "newest", "rating"):
                for name, text in searches[:3]:
                    before = cpu_ms(server.pid)
                    runs = [timed(client, "/?q=%s&sort=%s&page=%d" % (urllib.parse.quote(text), order, 1 + run))
                            for run in range(options.runs)]
                    cpu = (cpu_ms(server.pid) - before) / options.runs
                    median, p99, worst = summary(r[1] for r in runs)
                    print("%-36s %-24s %6d %8s %8.1f %8.1f %8.1f %8.2f" % (
                        "page by %s: %s" % (order, name), text[:24], runs[0][0], "", median, p99, worst, cpu))

        for label, group in (("ten words in 3,000-7,000 reviews", [("word %s" % w, w) for w in middle]),
                             ("ten of the searches above", searches[:10])):
            before = cpu_ms(server.pid)
            times, failures = at_once(port, group, options.seconds)
            everything = [ms for one in times for ms in one]
            cpu = (cpu_ms(server.pid) - before) / len(everything)
            median, p99, worst = summary(everything)
            print("at once, %s: %d answers in %.0f s, median %.1f ms, p99 %.1f ms, worst %.1f ms, "
                  "server CPU %.2f ms an answer%s" % (
                label, len(everything), options.seconds, median, p99, worst, cpu,
                ", %d failed: %s" % (len(failures), failures[:3]) if failures else ""))
            for (name, text), one in zip(group, times):
                print("    %-36s %4d answers, p99 %6.1f ms" % (name, len(one), summary(one)[1]))
    finally:
        server.terminate()
        server.wait(timeout=40)


if __name__ == "__main__":
    sys.exit(main())
