#!/usr/bin/env python3
"""Synthetic source pictures for the fixture images.

Every fixture starts from one of the pictures defined here, so this module is
the single place that says what the pixels are.  Pictures are lists of rows,
each row a list of pixel tuples: (v,) for gray, (r, g, b) for colour and
(r, g, b, a) with alpha.  Values are 8-bit unless a function says otherwise.

Run as a script it writes the PNM inputs that cjpeg and ImageMagick start from:

    pictures.py OUTDIR
"""

import math
import os
import sys

# The base picture: 120 x 80, four solid quadrants.
WIDTH, HEIGHT = 120, 80
RED, GREEN, BLUE, YELLOW = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)
QUADRANT_COLOURS = (RED, GREEN, BLUE, YELLOW)  # TL, TR, BL, BR
GRAY_LEVELS = (0, 85, 170, 255)  # TL, TR, BL, BR

# Sample points at the centre of each quadrant of the upright picture.
CENTRES = {"TL": (30, 20), "TR": (90, 20), "BL": (30, 60), "BR": (90, 60)}


def quadrant_of(x, y, width=WIDTH, height=HEIGHT):
    """0..3 for TL, TR, BL, BR."""
    return (2 if y >= height // 2 else 0) + (1 if x >= width // 2 else 0)


def quadrants(values=QUADRANT_COLOURS, width=WIDTH, height=HEIGHT):
    """A picture whose quadrants TL, TR, BL, BR take values[0..3]."""
    return [[values[quadrant_of(x, y, width, height)] for x in range(width)] for y in range(height)]


def gray_quadrants(levels=GRAY_LEVELS):
    return quadrants(tuple((v,) for v in levels))


# Geometric transforms, named as ImageMagick names them.  Each returns a new
# picture.  For EXIF orientation n the stored pixels are the upright picture
# put through INVERSE[n]; a viewer applies FORWARD[n] to get it back upright.
def flop(p):  # mirror left-right
    return [list(reversed(row)) for row in p]


def flip(p):  # mirror top-bottom
    return [list(row) for row in reversed(p)]


def transpose(p):  # mirror along the top-left to bottom-right diagonal
    return [list(col) for col in zip(*p)]


def rotate90(p):  # clockwise
    return flop(transpose(p))


def rotate180(p):
    return flop(flip(p))


def rotate270(p):  # clockwise by 270, i.e. counter-clockwise by 90
    return flip(transpose(p))


def transverse(p):  # mirror along the top-right to bottom-left diagonal
    return rotate180(transpose(p))


def identity(p):
    return [list(row) for row in p]


INVERSE = {1: identity, 2: flop, 3: rotate180, 4: flip, 5: transpose, 6: rotate270, 7: transverse, 8: rotate90}
FORWARD = {1: identity, 2: flop, 3: rotate180, 4: flip, 5: transpose, 6: rotate90, 7: transverse, 8: rotate270}


# The "photo-like" scene for the large fixtures and the 640 x 480 hostile
# sources: smooth gradients with four solid patches, one per quadrant colour.
def scene_patches(width, height):
    """(x0, y0, x1, y1, colour) for each patch; x1 and y1 are exclusive.

    Patch side is width / 8 and the inset from the two nearest edges is
    width / 16: for 1600 x 1200 that is 200 x 200 patches, 100 px in."""
    side, inset = width // 8, width // 16
    left, right = inset, width - inset - side
    top, bottom = inset, height - inset - side
    return [
        (left, top, left + side, top + side, RED),
        (right, top, right + side, top + side, GREEN),
        (left, bottom, left + side, bottom + side, BLUE),
        (right, bottom, right + side, bottom + side, YELLOW),
    ]


def scene_background(x, y, width, height):
    """Mid-tone gradients, never a pure primary: R follows x, G follows y,
    B is a soft radial fall-off from the centre.  All channels stay in 48..208."""
    u, v = x / (width - 1), y / (height - 1)
    r = 48 + 160 * u
    g = 48 + 160 * v
    d = math.hypot(u - 0.5, v - 0.5) / math.hypot(0.5, 0.5)
    b = 208 - 160 * d * d
    return (int(r + 0.5), int(g + 0.5), int(b + 0.5))


def scene(width, height):
    rows = [[scene_background(x, y, width, height) for x in range(width)] for y in range(height)]
    for x0, y0, x1, y1, colour in scene_patches(width, height):
        for y in range(y0, y1):
            row = rows[y]
            for x in range(x0, x1):
                row[x] = colour
    return rows


def write_pnm(path, picture):
    """Binary PGM for 1-channel pictures, PPM for 3-channel ones."""
    height, width = len(picture), len(picture[0])
    channels = len(picture[0][0])
    magic = {1: b"P5", 3: b"P6"}[channels]
    data = bytes(v for row in picture for px in row for v in px)
    with open(path, "wb") as f:
        f.write(b"%s\n%d %d\n255\n" % (magic, width, height))
        f.write(data)


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    write_pnm(os.path.join(outdir, "quadrants.ppm"), quadrants())
    write_pnm(os.path.join(outdir, "gray-quadrants.pgm"), gray_quadrants())
    write_pnm(os.path.join(outdir, "scene-640x480.ppm"), scene(640, 480))
    write_pnm(os.path.join(outdir, "scene-1600x1200.ppm"), scene(1600, 1200))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: pictures.py OUTDIR")
    main(sys.argv[1])
