#!/usr/bin/env python3
"""Gives a HEIF file's primary image a clean aperture, a rotation and a mirroring.

    heif_transform.py IN OUT [--clap W H HOFF VOFF] [--irot DEGREES] [--imir AXIS] [--thumbnails]

heif-enc (1.15) writes none of these properties, and avifenc writes them only in its own order.
They are added here to the `ipco` box and associated with the primary image in `ipma` in the
order MIAF requires and libheif applies them: `clap`, then `irot`, then `imir`, each marked
essential. HOFF and VOFF are the aperture centre's offsets from the image centre, an integer or
a fraction "n/d". With --thumbnails, every thumbnail of the primary image gets the same
properties, its aperture scaled by the thumbnail's size, so that it shows the same picture.
"""

import argparse
import sys
from fractions import Fraction

import heifbox


def fraction(text):
    value = Fraction(text)
    return (value.numerator, value.denominator)


def scaled(value, factor):
    value = Fraction(*value) * factor
    return (value.numerator, value.denominator)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--clap", nargs=4, metavar=("W", "H", "HOFF", "VOFF"))
    parser.add_argument("--irot", type=int, choices=(0, 90, 180, 270))
    parser.add_argument("--imir", type=int, choices=(0, 1))
    parser.add_argument("--thumbnails", action="store_true")
    args = parser.parse_args()

    heif = heifbox.HEIF(open(args.input, "rb").read())
    width, height = heif.ispe(heif.primary)
    items = [(heif.primary, Fraction(1))]
    if args.thumbnails:
        for thumbnail in heif.thumbnails_of(heif.primary):
            items.append((thumbnail, Fraction(heif.ispe(thumbnail)[0], width)))
    for item, factor in items:
        if args.clap:
            w, h, hoff, voff = (fraction(v) for v in args.clap)
            heif.add_property(item, heifbox.clap(
                scaled(w, factor), scaled(h, factor), scaled(hoff, factor), scaled(voff, factor)))
        if args.irot is not None:
            heif.add_property(item, heifbox.irot(args.irot))
        if args.imir is not None:
            heif.add_property(item, heifbox.imir(args.imir))
    open(args.output, "wb").write(heif.write())


if __name__ == "__main__":
    sys.exit(main())
