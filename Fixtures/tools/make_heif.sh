#!/usr/bin/env bash
# Writes the HEIF fixtures: images/heic-*.heic, images/avif-*.avif and hostile/heic-*, avif-*.
#
#   Fixtures/tools/make_heif.sh        (from anywhere)
#
# Needs heif-enc (libheif-examples: x265), avifenc (libavif-bin: aom), exiftool, ImageMagick's
# /usr/bin/convert, python3 with numpy (python3-numpy, for make_hdr.py), and the ICC profiles of
# icc-profiles-free. See Fixtures/README.md.
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
# For the clean aperture (clap), rotation (irot) and mirroring (imir): coded samples that show
# the quadrants once libheif has cropped them, turned them anticlockwise, then mirrored them
# (axis 0 top to bottom, 1 left to right, as libheif 1.15 reads the bit). So they are the
# quadrants mirrored, turned clockwise, and framed in grey by margins of different widths
# (left 16, right 8, top 4, bottom 12), which an aperture centred on the picture would show.
turn_clockwise = {0: pictures.identity, 90: pictures.rotate90, 180: pictures.rotate180, 270: pictures.rotate270}
mirror = {"none": pictures.identity, "0": pictures.flip, "1": pictures.flop}
GREY = (128, 128, 128)
for angle in (0, 90, 180, 270):
    for axis in ("none", "0", "1"):
        inner = turn_clockwise[angle](mirror[axis](q))
        width = 16 + len(inner[0]) + 8
        framed = [[GREY] * width for _ in range(4)] + [[GREY] * 16 + row + [GREY] * 8 for row in inner]
        framed += [[GREY] * width for _ in range(12)]
        png("clap-%d-%s.png" % (angle, axis), framed, 2)
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

# ---------------------------------------------------------------- clap, irot and imir
# Every rotation with every mirroring (or none), after a clean aperture off the centre: the
# aperture keeps 120 x 80 (80 x 120 before a quarter turn) whose centre is 4 right of and 4
# above the coded picture's, which leaves out the grey frame. heif-enc and this avifenc write
# none of these boxes in the order MIAF requires, so tools/heif_transform.py adds them.
for angle in 0 90 180 270; do
  for axis in none 0 1; do
    if ((angle % 180 == 0)); then aperture=(120 80); else aperture=(80 120); fi
    name=clap-irot$angle
    options=(--clap "${aperture[@]}" 4 -4 --irot "$angle")
    if [[ $axis != none ]]; then
      name+=-imir$axis
      options+=(--imir "$axis")
    fi
    heif -q 90 -o "$work/plain.heic" "$work/clap-$angle-$axis.png"
    python3 "$tools/heif_transform.py" "$work/plain.heic" "images/heic-$name.heic" "${options[@]}"
    avif "$work/clap-$angle-$axis.png" "$work/plain.avif"
    python3 "$tools/heif_transform.py" "$work/plain.avif" "images/avif-$name.avif" "${options[@]}"
  done
done
# The same with a stored thumbnail of half the size (72 x 48, or 52 x 68): without the
# picture's transforms, it shows the coded samples (framed, turned, mirrored) in the picture's
# proportions; with them (the aperture halved), the picture.
heif -q 90 --thumb 72 -o "$work/preview.heic" "$work/clap-180-1.png"
python3 "$tools/heif_transform.py" "$work/preview.heic" images/heic-clap-irot180-imir1-preview-untransformed.heic \
  --clap 120 80 4 -4 --irot 180 --imir 1
heif -q 90 --thumb 68 -o "$work/preview.heic" "$work/clap-90-0.png"
python3 "$tools/heif_transform.py" "$work/preview.heic" images/heic-clap-irot90-imir0-preview.heic \
  --clap 80 120 4 -4 --irot 90 --imir 0 --thumbnails

# ---------------------------------------------------------------- 10-bit grids, as cameras write
# Canon's and Sony's .HIF: 2 x 2 tiles of 192 x 128 showing 368 x 248 (the right column and the
# bottom row cut), 10-bit, full range, nclx on every tile and on the grid. PQ as Canon writes
# it (BT.2020, 4:2:2), HLG (BT.2020, 4:2:0), and SDR as Sony's (BT.709 primaries, sRGB transfer,
# BT.601 matrix, 4:2:0). make_hdr.py writes the tiles' 16-bit samples and the references.
python3 "$tools/make_hdr.py" "$work" images
declare -A nclx=([pq]=9/16/9/1 [hlg]=9/18/9/1 [srgb]=1/13/6/1) chroma=([pq]=422 [hlg]=420 [srgb]=420)
for kind in pq hlg srgb; do
  tiles=()
  for tile in 0-0 0-1 1-0 1-1; do
    heif -q 90 -b 10 -p "chroma=${chroma[$kind]}" -o "$work/$kind-$tile.heic" "$work/$kind-tile-$tile.png"
    tiles+=("$work/$kind-$tile.heic")
  done
  python3 "$tools/heif_grid.py" "images/heic-grid-10bit-$kind.heic" 2x2 368x248 "${nclx[$kind]}" "${tiles[@]}"
done
# The PQ grid with a stored thumbnail (184 x 124): the picture halved and coded as it is (PQ,
# the same colour box), or an SDR one made from the reference (8-bit, no colour box).
pq_tiles=("$work"/pq-{0-0,0-1,1-0,1-1}.heic)
heif -q 90 -b 10 -p chroma=422 -o "$work/pq-preview.heic" "$work/pq-preview.png"
python3 "$tools/heif_grid.py" images/heic-grid-10bit-pq-preview.heic 2x2 368x248 "${nclx[pq]}" \
  "${pq_tiles[@]}" --thumbnail "$work/pq-preview.heic"
# The PQ picture as an AVIF (not a grid): avifenc converts with the BT.2020 matrix itself.
avif -d 10 -y 444 --cicp 9/16/9 -r full "$work/pq-signal.png" images/avif-10bit-pq.avif
"$IM" images/hdr-reference-pq.png -scale 50% "${IMCLEAN[@]}" "$work/sdr-preview.png"
heif -q 90 -o "$work/sdr-preview.heic" "$work/sdr-preview.png"
python3 "$tools/heif_grid.py" images/heic-grid-10bit-pq-preview-untagged.heic 2x2 368x248 "${nclx[pq]}" \
  "${pq_tiles[@]}" --untagged-thumbnail "$work/sdr-preview.heic"

# ---------------------------------------------------------------- hostile
python3 "$tools/make_heif_hostile.py" images hostile
