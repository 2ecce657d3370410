#!/usr/bin/env python3
"""Writes the hostile WebP fixtures by cutting, patching or re-wrapping valid WebPs
made earlier by make_webp.sh.

    make_webp_hostile.py IMAGES_DIR WORK_DIR HOSTILE_DIR

IMAGES_DIR holds webp-lossy.webp and webp-lossless.webp (the 120 x 80 quadrants);
WORK_DIR holds scene-lossy.webp and scene-lossless.webp (the 640 x 480 scene).
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_hostile import stream  # noqa: E402  (SHA-256 in counter mode, as for the JPEGs)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def chunks(data):
    """The (fourcc, payload) chunks of a well-formed RIFF/WEBP file."""
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    out, offset = [], 12
    while offset + 8 <= len(data):
        fourcc, length = data[offset:offset + 4], struct.unpack("<I", data[offset + 4:offset + 8])[0]
        out.append((fourcc, data[offset + 8:offset + 8 + length]))
        offset += 8 + length + (length & 1)
    return out


def chunk(fourcc, payload, declared=None):
    length = len(payload) if declared is None else declared
    return fourcc + struct.pack("<I", length) + payload + (b"\x00" if len(payload) & 1 else b"")


def riff(body, declared=None):
    """RIFF header + "WEBP" + body; the RIFF size is honest unless `declared` says otherwise."""
    size = 4 + len(body) if declared is None else declared
    return b"RIFF" + struct.pack("<I", size) + b"WEBP" + body


def vp8x(flags, width, height):
    """VP8X payload: flags, 3 reserved bytes, canvas width - 1 and height - 1 (24 bits each)."""
    return bytes([flags, 0, 0, 0]) + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")


ICC_FLAG = 0x20


def main(images, work, hostile):
    lossy = read(os.path.join(images, "webp-lossy.webp"))
    lossless = read(os.path.join(images, "webp-lossless.webp"))
    vp8 = dict(chunks(lossy))[b"VP8 "]

    for kind in ("lossy", "lossless"):
        scene = read(os.path.join(work, "scene-%s.webp" % kind))
        write(hostile, "webp-truncated-%s.webp" % kind, scene[: len(scene) // 2])

    # A whole file whose RIFF header declares 4096 bytes more than there are.
    write(hostile, "webp-riff-size-past-end.webp", riff(lossy[12:], declared=len(lossy) - 8 + 4096))

    # The lossless quadrants' headers (RIFF, chunk, the 5-byte VP8L header), then garbage.
    keep = 12 + 8 + 5
    write(hostile, "webp-garbage-after-header.webp", lossless[:keep] + stream("webp-garbage", len(lossless) - keep))

    # VP8X declaring a 100000 x 100000 canvas around the 120 x 80 VP8 bitstream.
    write(hostile, "webp-huge-canvas.webp", riff(chunk(b"VP8X", vp8x(0, 100000, 100000)) + chunk(b"VP8 ", vp8)))

    # ICCP holding 301 bytes of garbage (odd: one byte of padding follows).
    write(
        hostile,
        "webp-iccp-garbage.webp",
        riff(
            chunk(b"VP8X", vp8x(ICC_FLAG, 120, 80))
            + chunk(b"ICCP", stream("webp-iccp", 301))
            + chunk(b"VP8 ", vp8)
        ),
    )

    # ICCP whose length says 0x7FFFFFF0 bytes inside a RIFF of a few hundred.
    write(
        hostile,
        "webp-iccp-declared-huge.webp",
        riff(
            chunk(b"VP8X", vp8x(ICC_FLAG, 120, 80))
            + chunk(b"ICCP", stream("webp-iccp", 64), declared=0x7FFFFFF0)
            + chunk(b"VP8 ", vp8)
        ),
    )

    # The VP8X ICC flag, but no ICCP chunk.
    write(hostile, "webp-icc-flag-without-chunk.webp", riff(chunk(b"VP8X", vp8x(ICC_FLAG, 120, 80)) + chunk(b"VP8 ", vp8)))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: make_webp_hostile.py IMAGES_DIR WORK_DIR HOSTILE_DIR")
    main(*sys.argv[1:])
