#!/usr/bin/env bash
# Writes the HEIF fixtures: images/heic-*.heic, images/avif-*.avif and hostile/heic-*, avif-*.
#
#   Fixtures/tools/make_heif.sh        (from anywhere)
#
# Needs heif-enc (libheif-examples: x265), avifenc (libavif-bin: aom), exiftool, ImageMagick's
# /usr/bin/convert, python3, and the ICC profiles of icc-profiles-free. See Fixtures/README.md.
set -euo pipefail

fixtures=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools=$fixtures/tools
cd "$fixtures"
IM=/usr/bin/convert-im6.q16
[ -x "$IM" ] || IM=/usr/bin/convert
IMCLEAN=(-strip +set date:create +set date:modify)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$tools/pictures.py" "$work"
python3 - "$work" "$tools" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import exif, pictures, pngwriter
work = sys.argv[1]
q = pictures.quadrants()
def png(name, picture, colour_type):
    with open("%s/%s" % (work, name), "wb") as f:
        f.write(pngwriter.encode(picture, 8, colour_type))
png("quadrants.png", q, 2)
# Alpha 255, 170, 85 and 0 in TL, TR, BL, BR, over the quadrant colours.
alphas = (255, 170, 85, 0)
png("quadrants-alpha.png", [[px + (alphas[pictures.quadrant_of(x, y)],) for x, px in enumerate(row)]
                            for y, row in enumerate(q)], 6)
# Stored so that the file's transform makes them upright: irot 1 turns the stored picture 90°
# anticlockwise, so it is stored turned 90° clockwise; imir mirrors it, so it is stored mirrored.
png("quadrants-cw.png", pictures.rotate90(q), 2)
png("quadrants-ccw.png", pictures.rotate270(q), 2)
png("quadrants-flop.png", pictures.flop(q), 2)
png("quadrants-flip.png", pictures.flip(q), 2)
png("quadrants-256x128.png", pictures.quadrants(width=256, height=128), 2)
png("quadrants-480x320.png", pictures.quadrants(width=480, height=320), 2)
png("quadrants-121x81.png", pictures.quadrants(width=121, height=81), 2)
big = pictures.quadrants(width=480, height=320)
png("quadrants-alpha-480x320.png", [[px + (alphas[pictures.quadrant_of(x, y, 480, 320)],) for x, px in enumerate(row)]
                                    for y, row in enumerate(big)], 6)
open("%s/orientation-6.tiff" % work, "wb").write(exif.orientation(6))
PY
"$IM" "$work/quadrants.png" -depth 16 "${IMCLEAN[@]}" "PNG48:$work/quadrants-16.png"

# x265 on one thread, so that the bytes do not depend on scheduling.
X265=(-p x265:pools=none -p x265:frame-threads=1)
heif() { heif-enc "${X265[@]}" "$@" >/dev/null; }
avif() { avifenc -j 1 -s 6 --min 0 --max 12 --minalpha 0 --maxalpha 0 "$@" >/dev/null; }

# ---------------------------------------------------------------- valid HEIC
heif -q 90 -o images/heic-8bit.heic "$work/quadrants.png"
heif -q 90 -o images/heic-alpha.heic "$work/quadrants-alpha.png"
heif -q 90 -b 10 -o images/heic-10bit.heic "$work/quadrants-16.png"
heif -q 90 --thumb 120 -o images/heic-thumbnail.heic "$work/quadrants-480x320.png"
# A transparent picture whose thumbnail has no alpha: the thumbnail would show it opaque.
heif -q 90 --thumb 120 --no-thumb-alpha -o images/heic-thumbnail-no-alpha.heic "$work/quadrants-alpha-480x320.png"
# An odd size, which 4:2:0 HEVC cannot code: heif-enc codes 122 x 82 as a hidden item and shows
# it through a 1 x 1 grid of 121 x 81, whose descriptor it keeps in the idat box.
heif -q 90 -o images/heic-odd-size.heic "$work/quadrants-121x81.png"
# An EXIF orientation (6, "turn 90° clockwise") inside a HEIC whose pixels are already upright:
# libheif shows it as stored, and so must we.
cp images/heic-8bit.heic "$work/exif.heic"
exiftool -q -overwrite_original -n -Orientation=6 "$work/exif.heic"
mv "$work/exif.heic" images/heic-exif-orientation-6.heic

# ---------------------------------------------------------------- valid AVIF
avif "$work/quadrants.png" images/avif-8bit.avif
avif -d 10 "$work/quadrants.png" images/avif-10bit.avif
avif -d 12 "$work/quadrants.png" images/avif-12bit.avif
avif "$work/quadrants-alpha.png" images/avif-alpha.avif
avif --irot 1 "$work/quadrants-cw.png" images/avif-irot-1.avif
avif --imir 0 "$work/quadrants-flip.png" images/avif-imir-0.avif
avif --imir 1 "$work/quadrants-flop.png" images/avif-imir-1.avif
# EXIF orientation 6 alone, pixels upright (as heic-exif-orientation-6.heic): shown as stored.
cp images/avif-8bit.avif "$work/exif.avif"
exiftool -q -overwrite_original -n -Orientation=6 "$work/exif.avif"
mv "$work/exif.avif" images/avif-exif-orientation-6.avif
# What a camera writes: pixels as the sensor saw them (turned 90° anticlockwise), EXIF
# orientation 6, and the irot that libavif derives from it (irot 3): upright once, not twice.
avif --exif "$work/orientation-6.tiff" "$work/quadrants-ccw.png" images/avif-irot-exif-6.avif
avif --icc /usr/share/color/icc/compatibleWithAdobeRGB1998.icc "$work/quadrants.png" images/avif-icc.avif
avif --cicp 1/13/1 -r full "$work/quadrants.png" images/avif-nclx.avif
avif --grid 2x2 "$work/quadrants-256x128.png" images/avif-grid-2x2.avif

# ---------------------------------------------------------------- hostile
python3 "$tools/make_heif_hostile.py" images hostile
