#!/usr/bin/env bash
# Regenerates every image under Fixtures/images and Fixtures/hostile from
# synthetic pictures, then checks them (tools/verify.sh).  Deterministic:
# rerunning it gives the same bytes.  See README.md for what each file is.
#
# Needs (Debian): imagemagick libimage-exiftool-perl libjpeg-turbo-progs
#                 pngcheck gcc libjpeg-dev libpng-dev liblcms2-dev webp libheif-examples libavif-bin icc-profiles-free python3
#                 python3-numpy (make_hdr.py and verify.py: the 10-bit grids and their references)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ next to the tools

# ImageMagick 6, called by its real path: a "convert" earlier in PATH may be
# something else (Windows' convert.exe, a wrapper script).
if [[ -x /usr/bin/convert-im6.q16 ]]; then
  IM=/usr/bin/convert-im6.q16
elif [[ -x /usr/bin/convert ]]; then
  IM=/usr/bin/convert
else
  echo "ImageMagick 6 (convert) not found" >&2
  exit 1
fi
for tool in cjpeg djpeg jpegtran exiftool pngcheck python3 cc; do
  command -v "$tool" >/dev/null || { echo "missing tool: $tool" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

rm -rf images hostile
mkdir -p images hostile

# Source pictures (PPM/PGM), all from tools/pictures.py.
python3 tools/pictures.py "$work"
Q="$work/quadrants.ppm"

# ImageMagick options: no timestamps or other metadata that would change the bytes.
IMCLEAN=(+set date:create +set date:modify -strip)

# ---------------------------------------------------------------- valid JPEGs
cjpeg -quality 95 -sample 2x2 -outfile images/baseline.jpg "$Q"
cjpeg -quality 95 -sample 1x1 -outfile images/baseline-444.jpg "$Q"
cjpeg -quality 95 -sample 2x2 -progressive -outfile images/progressive.jpg "$Q"
cjpeg -quality 95 -sample 2x2 -restart 1 -outfile images/restart-markers.jpg "$Q"
cjpeg -quality 95 -grayscale -outfile images/grayscale.jpg "$work/gray-quadrants.pgm"

# Adobe-style inverted CMYK: APP14 transform 0 (CMYK) and transform 2 (YCCK),
# from a small libjpeg program (ImageMagick 6 always writes CMYK as YCCK).
cc -O2 -Wall -o "$work/adobe-cmyk" tools/adobe-cmyk.c -ljpeg
"$work/adobe-cmyk" cmyk "$Q" images/cmyk-adobe.jpg 95
"$work/adobe-cmyk" ycck "$Q" images/ycck-adobe.jpg 95

# EXIF orientation: stored pixels = upright picture through the inverse of orientation n.
inverse=([1]="" [2]="-flop" [3]="-rotate 180" [4]="-flip" [5]="-transpose" [6]="-rotate 270" [7]="-transverse" [8]="-rotate 90")
for n in 1 2 3 4 5 6 7 8; do
  # shellcheck disable=SC2086  # the transform is two words, or none
  "$IM" "$Q" ${inverse[$n]} "${IMCLEAN[@]}" "ppm:$work/stored-$n.ppm"
  cjpeg -quality 95 -sample 2x2 -outfile "images/orientation-$n.jpg" "$work/stored-$n.ppm"
  exiftool -q -overwrite_original -ExifByteOrder=MM "-Orientation#=$n" "images/orientation-$n.jpg"
done
for n in 3 6; do
  cjpeg -quality 95 -sample 2x2 -outfile "images/orientation-$n-intel.jpg" "$work/stored-$n.ppm"
  exiftool -q -overwrite_original -ExifByteOrder=II "-Orientation#=$n" "images/orientation-$n-intel.jpg"
done

# The large picture.
cjpeg -quality 90 -sample 2x2 -outfile images/large-1600x1200.jpg "$work/scene-1600x1200.ppm"

# ---------------------------------------------------------------- PNGs (valid and hostile)
python3 tools/make_pngs.py images hostile
# A zlib stream whose Adler-32 is wrong under correct chunk CRCs: one PNG for each decoder (the
# strip decoder takes 8-bit RGB, libpng an interlaced palette picture).
python3 tools/bad_adler.py images/rgb-8.png hostile/bad-adler32.png
python3 tools/bad_adler.py images/interlaced-palette-4.png hostile/bad-adler32-interlaced-palette.png

# ---------------------------------------------------------------- hostile
# Other formats, real files written by ImageMagick from the quadrants picture.
"$IM" "$Q" "${IMCLEAN[@]}" hostile/picture.gif
"$IM" "$Q" "${IMCLEAN[@]}" -define webp:lossless=true hostile/picture.webp
"$IM" "$Q" "${IMCLEAN[@]}" -quality 80 hostile/picture.heic
"$IM" "$Q" "${IMCLEAN[@]}" -quality 80 hostile/picture.avif
"$IM" "$Q" "${IMCLEAN[@]}" -compress lzw -define tiff:endian=lsb hostile/picture-le.tif
"$IM" "$Q" "${IMCLEAN[@]}" -compress lzw -define tiff:endian=msb hostile/picture-be.tif
"$IM" "$Q" "${IMCLEAN[@]}" BMP3:hostile/picture.bmp

# 640 x 480 sources for the truncated and corrupted JPEGs.
cjpeg -quality 95 -sample 2x2 -outfile "$work/scene-baseline.jpg" "$work/scene-640x480.ppm"
cjpeg -quality 95 -sample 2x2 -progressive -outfile "$work/scene-progressive.jpg" "$work/scene-640x480.ppm"
python3 tools/make_hostile.py images/baseline.jpg "$work/scene-baseline.jpg" "$work/scene-progressive.jpg" hostile

# ---------------------------------------------------------------- WebP, HEIF and AVIF
tools/make_webp.sh
tools/make_heif.sh

# ---------------------------------------------------------------- colour
# ICC profiles made with LittleCMS, patches tagged with them, broken profile segments.
tools/make_colour.sh

# ---------------------------------------------------------------- check
tools/verify.sh
