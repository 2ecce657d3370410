#!/usr/bin/python3
"""Reads a feed as a feed reader would and prints what it found as one JSON object.

Atom goes through feedparser (Debian's python3-feedparser), which flags anything it had to work
around as "bozo". feedparser 6.0 reads no JSON Feed, so a JSON Feed is checked here against the
JSON Feed 1.1 specification (https://jsonfeed.org/version/1.1): its required members and their
types, unique item ids, RFC 3339 dates; every departure is a problem, as a bozo flag is.

Usage: feedcheck.py URL [ETAG]   (with ETAG, asks with If-None-Match and reports the status)
"""
import json
import re
import sys
import urllib.error
import urllib.request

RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def fetch(url, etag=None):
    request = urllib.request.Request(url, headers={"If-None-Match": etag} if etag else {})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def atom(url, body, headers):
    import feedparser

    parsed = feedparser.parse(body, response_headers={"content-location": url, **headers})
    return {
        "version": parsed.version,
        "bozo": bool(parsed.bozo),
        "problems": [str(parsed.get("bozo_exception"))] if parsed.bozo else [],
        "title": parsed.feed.get("title"),
        "link": parsed.feed.get("link"),
        "entries": [
            {
                "id": entry.get("id"),
                "title": entry.get("title"),
                "link": entry.get("link"),
                "summary": entry.get("summary"),
                "content": "".join(part.value for part in entry.get("content", [])),
                "published": entry.get("published"),
                "updated": entry.get("updated"),
                "author": entry.get("author"),
                "tags": [tag.term for tag in entry.get("tags", [])],
                "enclosures": [link.href for link in entry.get("links", []) if link.rel == "enclosure"],
            }
            for entry in parsed.entries
        ],
    }


def json_feed(body):
    problems = []
    try:
        feed = json.loads(body)
    except ValueError as error:
        return {"version": "", "bozo": True, "problems": [str(error)], "entries": []}

    def need(value, kind, where):
        if not isinstance(value, kind):
            problems.append(f"{where} must be a {kind.__name__}, not {value!r}")
            return False
        return True

    if feed.get("version") != "https://jsonfeed.org/version/1.1":
        problems.append(f"version is {feed.get('version')!r}")
    need(feed.get("title"), str, "title")
    for key in ("home_page_url", "feed_url", "description", "language"):
        if key in feed:
            need(feed[key], str, key)
    for author in feed.get("authors", []):
        need(author.get("name"), str, "an author's name")
    entries, ids = [], set()
    if need(feed.get("items"), list, "items"):
        for index, item in enumerate(feed["items"]):
            where = f"item {index}"
            if need(item.get("id"), str, f"{where}'s id"):
                if item["id"] in ids:
                    problems.append(f"{where}'s id {item['id']} is not unique")
                ids.add(item["id"])
            if "content_html" not in item and "content_text" not in item:
                problems.append(f"{where} has neither content_html nor content_text")
            for key in ("date_published", "date_modified"):
                if key in item and not RFC3339.match(str(item[key])):
                    problems.append(f"{where}'s {key} {item[key]!r} is not RFC 3339")
            for key in ("url", "title", "summary", "image", "content_html"):
                if key in item:
                    need(item[key], str, f"{where}'s {key}")
            for attachment in item.get("attachments", []):
                need(attachment.get("url"), str, f"{where}'s attachment url")
                need(attachment.get("mime_type"), str, f"{where}'s attachment mime_type")
            entries.append(
                {
                    "id": item.get("id"),
                    "title": item.get("title"),
                    "link": item.get("url"),
                    "summary": item.get("summary"),
                    "content": item.get("content_html", ""),
                    "published": item.get("date_published"),
                    "updated": item.get("date_modified"),
                    "author": ", ".join(a.get("name", "") for a in item.get("authors", [])) or None,
                    "tags": item.get("tags", []),
                    "enclosures": [a.get("url") for a in item.get("attachments", [])],
                }
            )
    return {
        "version": "json11",
        "bozo": bool(problems),
        "problems": problems,
        "title": feed.get("title"),
        "link": feed.get("home_page_url"),
        "entries": entries,
    }


def main():
    url = sys.argv[1]
    status, headers, body = fetch(url, sys.argv[2] if len(sys.argv) > 2 else None)
    headers = {key.lower(): value for key, value in headers.items()}
    result = {"status": status, "etag": headers.get("etag"), "type": headers.get("content-type", "")}
    if status == 200:
        if result["type"].startswith("application/feed+json"):
            result.update(json_feed(body))
        else:
            result.update(atom(url, body, headers))
    print(json.dumps(result))


main()
