#!/usr/bin/env python3
"""Assembles HEIC files of one picture each (heif-enc's) into a grid, as cameras write them.

    heif_grid.py OUT COLUMNSxROWS WIDTHxHEIGHT PRIMARIES/TRANSFER/MATRIX/FULL TILE...
                 [--thumbnail FILE | --untagged-thumbnail FILE]

The tiles are given row by row; the grid shows WIDTH x HEIGHT of them (the right column and
the bottom row may be cut), and every tile and the grid carry the nclx colour box given by the
four H.273 code points. heif-enc 1.15 writes no grid (its tiling option came with 1.17) and no
colr box for --matrix_coefficients and the like, so both are written here (heifbox.grid).
A thumbnail (one more heif-enc file) is stored for the grid with the same colour box, or with
none."""

import sys

import heifbox


def main():
    arguments = sys.argv[1:]
    thumbnail, tagged = None, True
    for option in ("--thumbnail", "--untagged-thumbnail"):
        if option in arguments:
            at = arguments.index(option)
            thumbnail, tagged = open(arguments[at + 1], "rb").read(), option == "--thumbnail"
            del arguments[at:at + 2]
    if len(arguments) < 5:
        sys.exit(__doc__)
    out, layout, size, nclx = arguments[:4]
    columns, rows = (int(v) for v in layout.split("x"))
    width, height = (int(v) for v in size.split("x"))
    primaries, transfer, matrix, full = (int(v) for v in nclx.split("/"))
    tiles = [open(path, "rb").read() for path in arguments[4:]]
    if len(tiles) != columns * rows:
        sys.exit("heif_grid.py: %d tiles for a %s grid" % (len(tiles), layout))
    data = heifbox.grid(
        tiles, columns, rows, width, height, (primaries, transfer, matrix, bool(full)), thumbnail=thumbnail,
        thumbnail_tagged=tagged)
    open(out, "wb").write(data)


if __name__ == "__main__":
    main()
