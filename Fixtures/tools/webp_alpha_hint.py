#!/usr/bin/env python3
"""Takes away what a lossless WebP's headers say of its alpha, leaving its pixels as they are.

    webp_alpha_hint.py IN OUT [--vp8x]

IN is a simple-format lossless WebP (one VP8L chunk, as cwebp writes it). The VP8L header's
alpha_is_used bit is cleared: the WebP specification calls it a hint that a decoder must not
depend on, and the pixels, a palette's alpha included, decode the same. With --vp8x the VP8L
chunk is put in the extended format behind a VP8X chunk whose alpha flag is clear, as a writer
that sets the flag only for an ALPH chunk leaves it."""

import struct
import sys

from make_webp_hostile import chunk, chunks, riff, vp8x


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--vp8x"):
        sys.exit(__doc__)
    data = open(sys.argv[1], "rb").read()
    ((fourcc, payload),) = chunks(data)
    assert fourcc == b"VP8L" and payload[0] == 0x2F, "not a simple-format lossless WebP"
    # After the signature byte: 14 bits width - 1, 14 bits height - 1, alpha_is_used, version.
    bits = struct.unpack("<I", payload[1:5])[0]
    width, height = (bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1
    payload = payload[:1] + struct.pack("<I", bits & ~(1 << 28)) + payload[5:]
    body = chunk(b"VP8L", payload)
    if len(sys.argv) == 4:
        body = chunk(b"VP8X", vp8x(0, width, height)) + body
    open(sys.argv[2], "wb").write(riff(body))


if __name__ == "__main__":
    main()
