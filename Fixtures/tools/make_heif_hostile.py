#!/usr/bin/env python3
"""Hostile HEIF/AVIF files, cut or patched from the valid fixtures.

    make_heif_hostile.py IMAGES HOSTILE

Boxes are found by walking the ISO-BMFF structure (size, type, children), never by searching
for their names in the bytes, so a patch lands on the box it means."""

import hashlib
import os
import struct
import sys

CONTAINERS = {b"meta": 4, b"iprp": 0, b"ipco": 0, b"iinf": 6, b"dinf": 0}  # header bytes to skip


def boxes(data, start=0, end=None):
    """(offset, size, type) of each box in data[start:end]."""
    end = len(data) if end is None else end
    offset = start
    while offset + 8 <= end:
        size, kind = struct.unpack(">I4s", data[offset:offset + 8])
        if size == 0:
            size = end - offset
        yield offset, size, kind
        offset += size


def find(data, path, start=0, end=None):
    """Every box at the end of `path` (a list of types), depth first."""
    found = []
    for offset, size, kind in boxes(data, start, end):
        if kind != path[0]:
            continue
        if len(path) == 1:
            found.append((offset, size))
        else:
            skip = CONTAINERS.get(kind, 0)
            found += find(data, path[1:], offset + 8 + skip, offset + size)
    return found


def pseudo_random(label, count):
    out = b""
    counter = 0
    while len(out) < count:
        out += hashlib.sha256(b"%s-%d" % (label.encode(), counter)).digest()
        counter += 1
    return out[:count]


def patch_ispe(data, size, only=None):
    """Sets the width and height of the ispe properties to `size`; with `only`, just those
    that declare that size."""
    data = bytearray(data)
    for offset, _ in find(data, [b"meta", b"iprp", b"ipco", b"ispe"]):
        if only is None or struct.unpack(">II", data[offset + 12:offset + 20]) == only:
            data[offset + 12:offset + 20] = struct.pack(">II", *size)
    return bytes(data)


def main(images, hostile):
    def read(name):
        return open(os.path.join(images, name), "rb").read()

    def write(name, data):
        open(os.path.join(hostile, name), "wb").write(data)

    heic, avif = read("heic-8bit.heic"), read("avif-8bit.avif")
    # Cut in half: the meta box is whole, the coded picture in mdat is not.
    write("heic-truncated.heic", heic[: len(heic) // 2])
    write("avif-truncated.avif", avif[: len(avif) // 2])
    # Only the ftyp box and the first bytes of meta.
    (meta, _), = find(heic, [b"meta"])
    write("heic-truncated-header.heic", heic[: meta + 24])
    # A primary image declaring 100000 x 100000 (10 gigapixels) in its ispe.
    write("heic-huge-dimensions.heic", patch_ispe(heic, (100000, 100000)))
    # Sizes (ispe) that are not the coded picture's (120 x 80), which libheif 1.15 decodes
    # whatever ispe says: none at all, larger, and smaller (which the pixel budget, checked
    # against ispe, would not see).
    write("heic-ispe-zero.heic", patch_ispe(heic, (0, 0)))
    write("heic-ispe-larger.heic", patch_ispe(heic, (240, 160)))
    write("heic-ispe-smaller.heic", patch_ispe(heic, (60, 40)))
    write("avif-ispe-zero.avif", patch_ispe(avif, (0, 0)))
    write("avif-ispe-larger.avif", patch_ispe(avif, (240, 160)))
    # A picture of 480 x 320 declaring 960 x 640, with a stored thumbnail of 120 x 80 that
    # declares its true size: the thumbnail alone would agree with the lie.
    thumbnailed = read("heic-thumbnail.heic")
    write("heic-thumbnail-ispe-larger.heic", patch_ispe(thumbnailed, (960, 640), only=(480, 320)))
    # A 2 x 2 grid whose output is 256 x 128 (its descriptor) declaring 512 x 256.
    write("avif-grid-ispe-larger.avif", patch_ispe(read("avif-grid-2x2.avif"), (512, 256), only=(256, 128)))
    # A 2 x 2 grid whose output is 256 x 128 but whose four tiles each declare 20000 x 20000.
    grid = read("avif-grid-2x2.avif")
    write("avif-grid-huge-tiles.avif", patch_ispe(grid, (20000, 20000), only=(128, 64)))
    # The grid's last tile reference pointing back at the grid itself (found by Fuzz/fuzz-heif:
    # libheif 1.15 recurses, starting threads, for minutes).
    looped = bytearray(grid)
    (iref, _), = find(grid, [b"meta", b"iref"])
    for offset, size, kind in boxes(grid, iref + 12, iref + struct.unpack(">I", grid[iref:iref + 4])[0]):
        if kind == b"dimg":  # version 0: 16-bit from, count, to...
            looped[offset + size - 2:offset + size] = grid[offset + 8:offset + 10]
    write("avif-grid-loop.avif", bytes(looped))
    # An nclx colour box whose primaries code point (99) H.273 does not define. libheif 1.15
    # refuses the box but had allocated the profile it returns (found by Fuzz/fuzz-heif).
    patched = bytearray(avif)
    for offset, _ in find(avif, [b"meta", b"iprp", b"ipco", b"colr"]):
        if avif[offset + 8:offset + 12] == b"nclx":
            patched[offset + 12:offset + 14] = struct.pack(">H", 99)
    write("avif-nclx-unknown-primaries.avif", bytes(patched))
    # The ftyp box, then pseudo-random bytes.
    (ftyp, ftyp_size), = find(heic, [b"ftyp"])
    write("heic-garbage-after-ftyp.heic", heic[: ftyp + ftyp_size] + pseudo_random("heic-garbage", 2048))
    # The meta box's item location box (iloc) overwritten with pseudo-random bytes, its size and
    # type kept: the pictures' data cannot be found.
    (iloc, iloc_size), = find(heic, [b"meta", b"iloc"])
    damaged = bytearray(heic)
    damaged[iloc + 8:iloc + iloc_size] = pseudo_random("heic-iloc", iloc_size - 8)
    write("heic-damaged-meta.heic", bytes(damaged))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: make_heif_hostile.py IMAGES HOSTILE")
    main(sys.argv[1], sys.argv[2])
