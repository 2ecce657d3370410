#!/usr/bin/env python3
"""Source pictures and EXIF blocks for the WebP fixtures (tools/make_webp.sh).

    make_webp_sources.py WORKDIR

Writes into WORKDIR:
  quadrants-alpha.pam   the quadrants with alpha 255 (TL), 192 (TR), 128 (BL), 0 (BR)
  palette-alpha.png     the quadrants as a palette PNG whose tRNS gives its entries alpha
                        255, 170, 85 and 0: transparent through its palette only
  white.ppm, black.ppm  solid 120 x 80 frames for the animation
  orientation-6.exif    a big-endian TIFF block: IFD0 with Orientation = 6
  orientation-3.exif    "Exif\\0\\0" and a little-endian TIFF block: Orientation = 3
"""

import os
import struct
import sys

import pictures as P
import pngwriter as W

ALPHAS = (255, 192, 128, 0)  # TL, TR, BL, BR
PALETTE_ALPHAS = (255, 170, 85, 0)  # the palette's entries, TL, TR, BL, BR


def write_pam(path, picture):
    height, width = len(picture), len(picture[0])
    data = bytes(v for row in picture for px in row for v in px)
    with open(path, "wb") as f:
        f.write(b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n" % (width, height))
        f.write(data)


def tiff_orientation(n, big_endian):
    """A TIFF header and IFD0 holding one entry, Orientation (SHORT, count 1) = n."""
    e = ">" if big_endian else "<"
    order = b"MM" if big_endian else b"II"
    header = order + struct.pack(e + "HI", 42, 8)
    ifd = struct.pack(e + "H", 1) + struct.pack(e + "HHIHH", 0x0112, 3, 1, n, 0) + struct.pack(e + "I", 0)
    return header + ifd


def main(work):
    colours = tuple(c + (a,) for c, a in zip(P.QUADRANT_COLOURS, ALPHAS))
    write_pam(os.path.join(work, "quadrants-alpha.pam"), P.quadrants(colours))
    indices = P.quadrants(((0,), (1,), (2,), (3,)))
    palette = W.chunk("PLTE", bytes(v for colour in P.QUADRANT_COLOURS for v in colour))
    with open(os.path.join(work, "palette-alpha.png"), "wb") as f:
        f.write(W.encode(indices, 8, W.PALETTE, before_idat=[palette, W.chunk("tRNS", bytes(PALETTE_ALPHAS))]))
    P.write_pnm(os.path.join(work, "white.ppm"), P.quadrants(((255, 255, 255),) * 4))
    P.write_pnm(os.path.join(work, "black.ppm"), P.quadrants(((0, 0, 0),) * 4))
    with open(os.path.join(work, "orientation-6.exif"), "wb") as f:
        f.write(tiff_orientation(6, big_endian=True))
    with open(os.path.join(work, "orientation-3.exif"), "wb") as f:
        f.write(b"Exif\x00\x00" + tiff_orientation(3, big_endian=False))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_webp_sources.py WORKDIR")
    main(sys.argv[1])
