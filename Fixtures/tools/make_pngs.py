#!/usr/bin/env python3
"""Writes every PNG fixture, valid and hostile, with the encoder in pngwriter.

    make_pngs.py IMAGES_DIR HOSTILE_DIR
"""

import os
import struct
import sys
import zlib

import exif
import pictures as P
import pngwriter as W

# The mid-gray patch in gamma-1.0.png: x 50..69, y 30..49 (20 x 20, centred
# on the picture centre, touching none of the quadrant centres).
GAMMA_PATCH = (50, 30, 70, 50)
GAMMA_GRAY = 128

# Alpha of the bottom-right quadrant in the translucent fixtures.
ALPHA8 = 128
ALPHA16 = 128 * 257  # 32896 = 0x8080, which is 128 when cut to 8 bits


def with_alpha(picture, alpha_br, opaque):
    """Adds an alpha channel: opaque everywhere, alpha_br on the bottom-right quadrant."""
    h, w = len(picture), len(picture[0])
    return [
        [px + ((alpha_br if P.quadrant_of(x, y, w, h) == 3 else opaque),) for x, px in enumerate(row)]
        for y, row in enumerate(picture)
    ]


def widen(picture):
    """8-bit samples to 16-bit (v * 257, so 255 becomes 65535)."""
    return [[tuple(v * 257 for v in px) for px in row] for row in picture]


def gray_levels(depth):
    """0, 1/3, 2/3 and full of the sample range, for depths 2, 4, 8 and 16."""
    top = (1 << depth) - 1
    return tuple(top * k // 3 for k in range(4))


def palette_chunk(colours):
    return W.chunk("PLTE", b"".join(bytes(c) for c in colours))


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def valid(d):
    def out(name, data):
        write(os.path.join(d, name), data)

    rgb = P.quadrants()
    out("rgb-8.png", W.encode(rgb, 8, W.RGB))
    out("rgb-16.png", W.encode(widen(rgb), 16, W.RGB))
    out("rgba-8.png", W.encode(with_alpha(rgb, ALPHA8, 255), 8, W.RGBA))
    out("rgba-16.png", W.encode(with_alpha(widen(rgb), ALPHA16, 65535), 16, W.RGBA))

    # 1-bit gray: TL black, TR white, BL white, BR black.
    out("gray-1.png", W.encode(P.quadrants(((0,), (1,), (1,), (0,))), 1, W.GRAY))
    for depth in (2, 4, 8, 16):
        levels = tuple((v,) for v in gray_levels(depth))
        out("gray-%d.png" % depth, W.encode(P.quadrants(levels), depth, W.GRAY))
    out("gray-alpha-8.png", W.encode(with_alpha(P.quadrants(tuple((v,) for v in gray_levels(8))), ALPHA8, 255), 8, W.GRAY_ALPHA))
    out(
        "gray-alpha-16.png",
        W.encode(with_alpha(P.quadrants(tuple((v,) for v in gray_levels(16))), ALPHA16, 65535), 16, W.GRAY_ALPHA),
    )

    # Palettes.  1-bit holds two colours: red on the left half, blue on the right.
    halves = [[(0 if x < P.WIDTH // 2 else 1,) for x in range(P.WIDTH)] for _ in range(P.HEIGHT)]
    out("palette-1.png", W.encode(halves, 1, W.PALETTE, before_idat=[palette_chunk([P.RED, P.BLUE])]))
    indices = P.quadrants(((0,), (1,), (2,), (3,)))
    plte = palette_chunk(P.QUADRANT_COLOURS)
    for depth in (2, 4, 8):
        out("palette-%d.png" % depth, W.encode(indices, depth, W.PALETTE, before_idat=[plte]))
    out(
        "palette-trns.png",
        W.encode(indices, 8, W.PALETTE, before_idat=[plte, W.chunk("tRNS", bytes([255, 255, 255, 0]))]),
    )

    # Colour-key transparency.
    out("rgb-trns.png", W.encode(rgb, 8, W.RGB, before_idat=[W.chunk("tRNS", struct.pack(">HHH", *P.YELLOW))]))
    gray8 = P.quadrants(tuple((v,) for v in gray_levels(8)))
    out("gray-trns.png", W.encode(gray8, 8, W.GRAY, before_idat=[W.chunk("tRNS", struct.pack(">H", 255))]))

    # Adam7.
    out("interlaced.png", W.encode(rgb, 8, W.RGB, interlace=1))
    out("interlaced-rgba-16.png", W.encode(with_alpha(widen(rgb), ALPHA16, 65535), 16, W.RGBA, interlace=1))
    # Adam7 twins of other colour types and depths: each must decode exactly like its
    # non-interlaced twin (libpng's simplified API got 16-bit interlaced wrong).
    gray_levels_picture = lambda depth: P.quadrants(tuple((v,) for v in gray_levels(depth)))
    out("interlaced-gray-1.png", W.encode(P.quadrants(((0,), (1,), (1,), (0,))), 1, W.GRAY, interlace=1))
    out("interlaced-gray-4.png", W.encode(gray_levels_picture(4), 4, W.GRAY, interlace=1))
    out("interlaced-gray-16.png", W.encode(gray_levels_picture(16), 16, W.GRAY, interlace=1))
    out(
        "interlaced-gray-alpha-16.png",
        W.encode(with_alpha(gray_levels_picture(16), ALPHA16, 65535), 16, W.GRAY_ALPHA, interlace=1),
    )
    out("interlaced-palette-4.png", W.encode(indices, 4, W.PALETTE, interlace=1, before_idat=[plte]))
    out(
        "interlaced-palette-trns.png",
        W.encode(indices, 8, W.PALETTE, interlace=1, before_idat=[plte, W.chunk("tRNS", bytes([255, 255, 255, 0]))]),
    )
    out("interlaced-rgb-16.png", W.encode(widen(rgb), 16, W.RGB, interlace=1))
    out(
        "interlaced-rgb-trns.png",
        W.encode(rgb, 8, W.RGB, interlace=1, before_idat=[W.chunk("tRNS", struct.pack(">HHH", *P.YELLOW))]),
    )

    # Colour management chunks.
    patched = [list(row) for row in rgb]
    x0, y0, x1, y1 = GAMMA_PATCH
    for y in range(y0, y1):
        for x in range(x0, x1):
            patched[y][x] = (GAMMA_GRAY,) * 3
    out("gamma-1.0.png", W.encode(patched, 8, W.RGB, before_idat=[W.chunk("gAMA", struct.pack(">I", 100000))]))
    out("srgb.png", W.encode(rgb, 8, W.RGB, before_idat=[W.chunk("sRGB", bytes([0]))]))

    # EXIF orientation in an eXIf chunk (before IDAT), stored like orientation-6.jpg.
    out(
        "orientation-6.png",
        W.encode(P.INVERSE[6](rgb), 8, W.RGB, before_idat=[W.chunk("eXIf", exif.orientation(6, ">"))]),
    )

    # The large picture, 8-bit RGB with adaptive filtering.
    out("large-1600x1200.png", W.encode(P.scene(1600, 1200), 8, W.RGB, filtering="adaptive"))


def hostile(d):
    def out(name, data):
        write(os.path.join(d, name), data)

    good = W.encode(P.quadrants(), 8, W.RGB)  # same bytes as images/rgb-8.png
    layout = W.chunks(good)

    # Cut inside IHDR: signature, length, type and 5 of the 13 data bytes.
    out("truncated-header.png", good[: 8 + 8 + 5])

    # No IEND: drop the final 12-byte chunk.
    assert layout[-1][2] == "IEND"
    out("no-iend.png", good[: layout[-1][0]])

    # First byte of the IDAT CRC flipped.
    at, length, kind = next(c for c in layout if c[2] == "IDAT")
    crc_at = at + 8 + length
    bad = bytearray(good)
    bad[crc_at] ^= 0xFF
    out("bad-crc.png", bytes(bad))

    # An ancillary tEXt chunk with a bad CRC, inserted after IHDR.
    text = W.chunk("tEXt", b"Comment\x00ancillary chunk with a damaged CRC")
    text = text[:-4] + bytes([text[-4] ^ 0xFF]) + text[-3:]
    ihdr_end = layout[1][0]
    out("bad-crc-ancillary.png", good[:ihdr_end] + text + good[ihdr_end:])

    # 640 x 480 RGB cut half way through its IDAT payload.
    big = W.encode(P.scene(640, 480), 8, W.RGB, filtering="adaptive")
    idats = [c for c in W.chunks(big) if c[2] == "IDAT"]
    payload = sum(c[1] for c in idats)
    remaining = payload // 2
    for at, length, _ in idats:
        if remaining < length:
            cut = at + 8 + remaining
            break
        remaining -= length
    out("truncated-idat.png", big[:cut])

    # IHDR says 20000 x 20000 RGB (400 megapixels); IDAT holds one row of zeros.
    row = bytes(1 + 20000 * 3)
    out(
        "huge-dimensions.png",
        W.SIGNATURE + W.ihdr(20000, 20000, 8, W.RGB) + W.chunk("IDAT", zlib.compress(row, 9)) + W.chunk("IEND", b""),
    )

    # 100 x 100 gray, 10,100 bytes of image data expected; the zlib stream
    # inflates to 64 MiB of zeros.  Compressed in 1 MiB pieces to keep memory low.
    z = zlib.compressobj(9)
    compressed = bytearray()
    piece = bytes(1 << 20)
    for _ in range(64):
        compressed += z.compress(piece)
    compressed += z.flush()
    out("decompression-bomb.png", W.SIGNATURE + W.ihdr(100, 100, 8, W.GRAY) + W.idat_chunks(bytes(compressed)) + W.chunk("IEND", b""))

    memory_bombs(d, good, layout)


MEMORY_BOMB_CHUNKS = ("tEXt", "zTXt", "iTXt", "sPLT", "pCAL", "sCAL")
INFLATION_BOMB_MIB = 64


def deflated_zeros(mib):
    """A zlib stream of `mib` MiB of zeros, compressed a MiB at a time to keep memory low."""
    z = zlib.compressobj(9)
    compressed = bytearray()
    piece = bytes(1 << 20)
    for _ in range(mib):
        compressed += z.compress(piece)
    return bytes(compressed + z.flush())


def memory_bombs(d, good, layout):
    """Small files whose ancillary chunks would make a reader allocate or inflate far more
    than the picture needs."""
    ihdr_end = layout[1][0]
    # A chunk that declares 1 GiB of data, in a file of a hundred bytes: the file ends inside it.
    for kind in MEMORY_BOMB_CHUNKS:
        header = struct.pack(">I", 1 << 30) + kind.encode("ascii")
        write(os.path.join(d, "declared-huge-%s.png" % kind), good[:ihdr_end] + header + b"keyword\x00" + bytes(32))
    # Complete, valid files whose compressed text or profile inflates to 64 MiB.
    zeros = deflated_zeros(INFLATION_BOMB_MIB)
    bombs = {
        "ztxt-bomb.png": W.chunk("zTXt", b"Comment\x00\x00" + zeros),
        "itxt-bomb.png": W.chunk("iTXt", b"Comment\x00\x01\x00\x00\x00" + zeros),
        "iccp-bomb.png": W.chunk("iCCP", b"Profile\x00\x00" + zeros),
    }
    for name, chunk in bombs.items():
        write(os.path.join(d, name), good[:ihdr_end] + chunk + good[ihdr_end:])


def main(images, hostile_dir):
    os.makedirs(images, exist_ok=True)
    os.makedirs(hostile_dir, exist_ok=True)
    valid(images)
    hostile(hostile_dir)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: make_pngs.py IMAGES_DIR HOSTILE_DIR")
    main(sys.argv[1], sys.argv[2])
