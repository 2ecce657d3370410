#!/usr/bin/env python3
"""A slow-body flood against `catalogue serve`, with a reader measuring what it is served.

From ADDRESSES loopback addresses (127.0.1.1, 127.0.1.2, ...), each holding up to PER_ADDRESS
connections, the flood sends request heads at once and then their bodies one byte every
INTERVAL seconds, opening a new connection whenever the server closes one. Meanwhile a reader
from 127.0.2.1 asks for PAGES (the grid, by default) one after another, each with a deadline of
TIMEOUT seconds, and counts what it was served. At the end one JSON object goes to standard
output: the reader's requests, successes, failures by kind and latency percentiles, and the
flood's connections opened, refused at connect, and cut by the server.

    slow-bodies.py --port PORT [--addresses 35] [--per-address 128] [--interval 3]
                   [--duration 60] [--target /sign-in] [--token TOKEN] [--page /]

--target is the route the bodies go to (a form POST, /sign-in by default); with --token the
bodies carry `Authorization: Bearer TOKEN` (a signed-in reviewer's upload, say
/api/reviews/ID/images) instead of being anonymous.
"""
import argparse
import asyncio
import json
import multiprocessing
import resource
import socket
import statistics
import time


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--addresses", type=int, default=35)
    parser.add_argument("--per-address", type=int, default=128)
    parser.add_argument("--interval", type=float, default=3.0)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--target", default="/sign-in")
    parser.add_argument("--token", default=None)
    parser.add_argument("--length", type=int, default=100_000, help="the Content-Length each body announces")
    parser.add_argument("--page", action="append", default=None, help="what the reader asks for (repeatable)")
    parser.add_argument("--timeout", type=float, default=5.0)
    return parser.parse_args()


class Flood:
    def __init__(self, options):
        self.options = options
        self.opened = 0
        self.refused = 0
        self.cut = 0
        self.bytes = 0
        self.live = 0
        self.peak = 0

    def head(self):
        options = self.options
        lines = [
            f"POST {options.target} HTTP/1.1",
            "Host: 127.0.0.1",
            "Content-Type: application/x-www-form-urlencoded",
            f"Content-Length: {options.length}",
        ]
        if options.token:
            lines.append(f"Authorization: Bearer {options.token}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode()

    async def connection(self, source, stop):
        """One slot of an address: a connection that trickles its body, made again when cut."""
        while time.monotonic() < stop:
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", self.options.port, local_addr=(source, 0)), 5)
            except (OSError, asyncio.TimeoutError):
                self.refused += 1
                await asyncio.sleep(0.5)
                continue
            self.opened += 1
            self.live += 1
            self.peak = max(self.peak, self.live)
            try:
                writer.write(self.head())
                await writer.drain()
                sent = 0
                while time.monotonic() < stop and sent < self.options.length:
                    # A closed connection shows as data (an answer) or end of stream.
                    try:
                        data = await asyncio.wait_for(reader.read(4096), self.options.interval)
                        if not data:
                            break
                        break
                    except asyncio.TimeoutError:
                        pass
                    writer.write(b"a")
                    await writer.drain()
                    sent += 1
                    self.bytes += 1
                if time.monotonic() < stop:
                    self.cut += 1
            except (OSError, ConnectionError):
                if time.monotonic() < stop:
                    self.cut += 1
            finally:
                self.live -= 1
                writer.close()


def read_pages(options, duration, pipe):
    """The reader, in a process of its own (the flood's event loop must not slow it): one page
    after another, each on a new connection, within the timeout."""
    pages = options.page or ["/"]
    results = []
    stop = time.monotonic() + duration
    count = 0
    while time.monotonic() < stop:
        page = pages[count % len(pages)]
        count += 1
        started = time.monotonic()
        outcome = "ok"
        try:
            with socket.create_connection(("127.0.0.1", options.port), options.timeout, ("127.0.2.1", 0)) as client:
                client.sendall(f"GET {page} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
                answer = b""
                while True:
                    client.settimeout(max(0.001, options.timeout - (time.monotonic() - started)))
                    data = client.recv(65536)
                    if not data:
                        break
                    answer += data
            status = answer.split(b" ", 2)[1] if answer.startswith(b"HTTP/1.1 ") else b"none"
            if status != b"200":
                outcome = "status " + status.decode(errors="replace")
        except socket.timeout:
            outcome = "timeout"
        except OSError as error:
            outcome = type(error).__name__
        results.append((outcome, time.monotonic() - started))
        time.sleep(0.05)
    pipe.send(results)


async def main():
    options = parse()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    flood = Flood(options)
    started = time.monotonic()
    stop = started + options.duration
    tasks = []
    for address in range(options.addresses):
        source = f"127.0.1.{address + 1}"
        for _ in range(options.per_address):
            tasks.append(asyncio.create_task(flood.connection(source, stop)))
    # The reader starts once the flood has had time to take its connections.
    await asyncio.sleep(min(5.0, options.duration / 4))
    receiving, sending = multiprocessing.Pipe(duplex=False)
    reader = multiprocessing.Process(target=read_pages, args=(options, stop - time.monotonic(), sending))
    reader.start()
    await asyncio.gather(*tasks, return_exceptions=True)
    results = await asyncio.get_running_loop().run_in_executor(None, receiving.recv)
    reader.join()
    times = sorted(seconds for outcome, seconds in results if outcome == "ok")
    failures = {}
    for outcome, _ in results:
        if outcome != "ok":
            failures[outcome] = failures.get(outcome, 0) + 1

    def percentile(p):
        return round(times[min(len(times) - 1, int(len(times) * p))] * 1000, 1) if times else None

    print(json.dumps({
        "reader": {
            "requests": len(results), "served": len(times), "failures": failures,
            "p50_ms": percentile(0.5), "p99_ms": percentile(0.99),
            "max_ms": round(times[-1] * 1000, 1) if times else None,
            "mean_ms": round(statistics.mean(times) * 1000, 1) if times else None,
        },
        "flood": {
            "addresses": options.addresses, "per_address": options.per_address, "opened": flood.opened,
            "refused_at_connect": flood.refused, "cut_by_server": flood.cut, "most_at_once": flood.peak,
            "body_bytes_sent": flood.bytes,
        },
    }))


if __name__ == "__main__":
    asyncio.run(main())
