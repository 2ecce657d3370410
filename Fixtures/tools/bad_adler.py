#!/usr/bin/env python3
"""A PNG whose zlib stream ends with a wrong Adler-32 checksum, every chunk CRC correct.

    bad_adler.py SOURCE.png DAMAGED.png

The image data of a PNG is one zlib stream split across the IDAT chunks; its last four bytes
are the Adler-32 of the inflated rows. This inverts those four bytes (wherever the IDAT
boundaries put them, a chunk or two from the end) and writes every IDAT chunk it touched again
with a correct CRC: only the zlib checksum is wrong, so a decoder that does not verify it sees
a sound file. Standard library only."""

import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pngwriter as W  # noqa: E402


def damage_adler(png):
    layout = W.chunks(png)
    idats = [(at, length) for at, length, kind in layout if kind == "IDAT"]
    assert idats, "no IDAT chunk"
    stream = b"".join(png[at + 8 : at + 8 + length] for at, length in idats)
    inflater = zlib.decompressobj()
    inflater.decompress(stream)
    assert inflater.eof, "the zlib stream does not end inside the IDAT chunks"
    end = len(stream) - len(inflater.unused_data)
    # Where each byte of the stream lies in the file, and which chunk holds it.
    places = [(index, at + 8 + offset) for index, (at, length) in enumerate(idats) for offset in range(length)]
    damaged = bytearray(png)
    touched = set()
    for index, position in places[end - 4 : end]:
        damaged[position] ^= 0xFF
        touched.add(index)
    for index in touched:
        at, length = idats[index]
        crc = zlib.crc32(bytes(damaged[at + 4 : at + 8 + length])) & 0xFFFFFFFF
        damaged[at + 8 + length : at + 12 + length] = struct.pack(">I", crc)
    return bytes(damaged)


def check(png):
    """Every chunk CRC right, the stream whole, its Adler-32 wrong."""
    for at, length, kind in W.chunks(png):
        stored = struct.unpack(">I", png[at + 8 + length : at + 12 + length])[0]
        assert stored == zlib.crc32(png[at + 4 : at + 8 + length]) & 0xFFFFFFFF, "%s CRC wrong" % kind
    stream = b"".join(png[at + 8 : at + 8 + length] for at, length, kind in W.chunks(png) if kind == "IDAT")
    try:
        zlib.decompress(stream)
    except zlib.error as error:
        assert "incorrect data check" in str(error), str(error)
        return
    raise AssertionError("the zlib stream still inflates")


def main(source, target):
    with open(source, "rb") as f:
        damaged = damage_adler(f.read())
    check(damaged)
    with open(target, "wb") as f:
        f.write(damaged)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: bad_adler.py SOURCE.png DAMAGED.png")
    main(sys.argv[1], sys.argv[2])
