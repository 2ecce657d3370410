#!/usr/bin/env python3
"""Uploads pictures to `catalogue serve` through its JSON API, for serve-bench.sh and
Reliability/serve-kill.sh. Standard library only.

  upload.py loop --server URL --token-file F --pictures DIR --log FILE --stop FILE [--per-review N] [--tag T]
      One upload after another (one connection, kept alive) until FILE --stop exists: each is a
      picture of DIR made distinct (see `distinct`), attached with POST /api/reviews/ID/images
      to a review this script made (a new one every N uploads, default 10).
  upload.py parallel --server URL --token-file F --review ID --log FILE PICTURE...
      Uploads every PICTURE at once, one connection each, to review ID.
  upload.py variants --into DIR --tag T --count N BASE...
      Writes N distinct copies of the BASE pictures into DIR (cycling through them).
  upload.py review --server URL --token-file F --title TITLE
      Makes a review through the API and prints its id.

Every upload writes one line to the log as soon as its answer is in (flushed, so that a line
is there even if the server is killed a moment later):

  STATUS REVIEW SHA256 BYTES MILLISECONDS NAME [ERROR]

STATUS is the HTTP status, or 0 when the connection failed before an answer; SHA256 is that of
the bytes sent, which the library keeps byte for byte.
"""

import argparse
import hashlib
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse


def distinct(picture: bytes, tag: str) -> bytes:
    """The JPEG `picture` with a comment segment (COM, FF FE) after its SOI marker holding
    `tag`: the same pixels, other bytes, so another SHA-256 and another file in the library."""
    if picture[:2] != b"\xff\xd8":
        raise SystemExit("upload.py: the pictures must be JPEG files")
    text = tag.encode()
    return picture[:2] + b"\xff\xfe" + (len(text) + 2).to_bytes(2, "big") + text + picture[2:]


class Client:
    """One kept-alive connection to the server, opened again when the server closed it."""

    def __init__(self, server: str, token: str, timeout: float = 120):
        parsed = urllib.parse.urlsplit(server)
        self.host = parsed.hostname
        self.port = parsed.port
        self.token = token
        self.timeout = timeout
        self.connection = None

    def request(self, method: str, path: str, body: bytes, content_type: str):
        if self.connection is None:
            self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        headers = {
            "Authorization": "Bearer " + self.token,
            "Content-Type": content_type,
            "Content-Length": str(len(body)),
        }
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
            data = response.read()
            if response.getheader("Connection", "").lower() == "close":
                self.close()
            return response.status, data
        except Exception:
            self.close()
            raise

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None


def make_review(client: Client, title: str) -> str:
    body = json.dumps({"title": title, "rating": 3, "category": "other", "body": "Pictures uploaded by a script."})
    status, data = client.request("POST", "/api/reviews", body.encode(), "application/json")
    if status != 201:
        raise SystemExit(f"upload.py: POST /api/reviews answered {status}: {data[:300]!r}")
    return json.loads(data)["id"]


def upload(client: Client, review: str, name: str, picture: bytes):
    """POSTs `picture` as the part `file`; returns (status, error text or '')."""
    boundary = "catalogue-upload-" + hashlib.sha256(picture[:64] + name.encode()).hexdigest()[:24]
    head = (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="file"; filename="{name}"\r\n'
        "Content-Type: image/jpeg\r\n\r\n"
    ).encode()
    body = head + picture + f"\r\n--{boundary}--\r\n".encode()
    status, data = client.request(
        "POST", f"/api/reviews/{review}/images", body, f"multipart/form-data; boundary={boundary}")
    error = ""
    if status != 201:
        try:
            error = json.loads(data).get("error", "")
        except ValueError:
            error = data[:200].decode(errors="replace")
    return status, error


class Log:
    def __init__(self, path: str):
        self.file = open(path, "a", buffering=1)
        self.lock = threading.Lock()

    def write(self, status, review, picture: bytes, started: float, name: str, error: str = ""):
        sha256 = hashlib.sha256(picture).hexdigest()
        milliseconds = (time.monotonic() - started) * 1000
        line = f"{status} {review} {sha256} {len(picture)} {milliseconds:.1f} {name}"
        if error:
            line += " " + " ".join(error.split())
        with self.lock:
            self.file.write(line + "\n")
            self.file.flush()
            os.fsync(self.file.fileno())


def token_of(path: str) -> str:
    with open(path) as file:
        return file.read().strip()


def run_loop(arguments):
    pictures = sorted(
        os.path.join(arguments.pictures, name)
        for name in os.listdir(arguments.pictures)
        if name.endswith(".jpg"))
    if not pictures:
        raise SystemExit(f"upload.py: no .jpg in {arguments.pictures}")
    bases = [open(path, "rb").read() for path in pictures]
    client = Client(arguments.server, token_of(arguments.token_file))
    log = Log(arguments.log)
    count = 0
    review = None
    while not os.path.exists(arguments.stop):
        if count % arguments.per_review == 0:
            review = make_review(client, f"Uploads {arguments.tag} {count // arguments.per_review + 1}")
        name = f"{arguments.tag}-{count}.jpg"
        picture = distinct(bases[count % len(bases)], f"{arguments.tag} upload {count}")
        started = time.monotonic()
        try:
            status, error = upload(client, review, name, picture)
        except (OSError, http.client.HTTPException) as failure:
            status, error = 0, f"{type(failure).__name__}: {failure}"
        log.write(status, review, picture, started, name, error)
        count += 1


def run_parallel(arguments):
    token = token_of(arguments.token_file)
    log = Log(arguments.log)

    def one(path: str):
        picture = open(path, "rb").read()
        name = os.path.basename(path)
        client = Client(arguments.server, token)
        started = time.monotonic()
        try:
            status, error = upload(client, arguments.review, name, picture)
        except (OSError, http.client.HTTPException) as failure:
            status, error = 0, f"{type(failure).__name__}: {failure}"
        client.close()
        log.write(status, arguments.review, picture, started, name, error)

    threads = [threading.Thread(target=one, args=(path,)) for path in arguments.pictures]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def run_variants(arguments):
    bases = [open(path, "rb").read() for path in arguments.bases]
    os.makedirs(arguments.into, exist_ok=True)
    for index in range(arguments.count):
        picture = distinct(bases[index % len(bases)], f"{arguments.tag} picture {index}")
        with open(os.path.join(arguments.into, f"{arguments.tag}-{index:03}.jpg"), "wb") as file:
            file.write(picture)


def run_review(arguments):
    client = Client(arguments.server, token_of(arguments.token_file))
    print(make_review(client, arguments.title))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)

    loop = commands.add_parser("loop")
    loop.add_argument("--server", required=True)
    loop.add_argument("--token-file", required=True)
    loop.add_argument("--pictures", required=True)
    loop.add_argument("--log", required=True)
    loop.add_argument("--stop", required=True)
    loop.add_argument("--per-review", type=int, default=10)
    loop.add_argument("--tag", default=str(os.getpid()))

    parallel = commands.add_parser("parallel")
    parallel.add_argument("--server", required=True)
    parallel.add_argument("--token-file", required=True)
    parallel.add_argument("--review", required=True)
    parallel.add_argument("--log", required=True)
    parallel.add_argument("pictures", nargs="+")

    variants = commands.add_parser("variants")
    variants.add_argument("--into", required=True)
    variants.add_argument("--tag", required=True)
    variants.add_argument("--count", type=int, required=True)
    variants.add_argument("bases", nargs="+")

    review = commands.add_parser("review")
    review.add_argument("--server", required=True)
    review.add_argument("--token-file", required=True)
    review.add_argument("--title", required=True)

    arguments = parser.parse_args()
    {"loop": run_loop, "parallel": run_parallel, "variants": run_variants, "review": run_review}[
        arguments.command](arguments)


if __name__ == "__main__":
    sys.exit(main())
