#!/usr/bin/env bash
# Writes the WebP fixtures: images/webp-*.webp (valid) and hostile/webp-*.webp (cut, patched or
# built by hand). Deterministic: rerunning it gives the same bytes. See README.md ("WebP").
#
#   tools/make_webp.sh            (from anywhere; writes below Fixtures/)
#
# Needs (Debian): webp (cwebp, img2webp, webpmux), imagemagick, icc-profiles-free, python3.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PYTHONDONTWRITEBYTECODE=1

# ImageMagick 6 by its real path, as make-fixtures.sh does: a "convert" earlier in PATH may be
# something else.
if [[ -x /usr/bin/convert-im6.q16 ]]; then IM=/usr/bin/convert-im6.q16; else IM=/usr/bin/convert; fi
for tool in cwebp img2webp webpmux python3 "$IM"; do
  command -v "$tool" >/dev/null || { echo "missing tool: $tool" >&2; exit 1; }
done
ICC=/usr/share/color/icc/sRGB.icc
[[ -f $ICC ]] || { echo "missing $ICC (apt-get install icc-profiles-free)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p images hostile
rm -f images/webp-*.webp hostile/webp-*.webp

python3 tools/pictures.py "$work"
Q="$work/quadrants.ppm"
IMCLEAN=(+set date:create +set date:modify -strip)

# Sources with alpha and for the animation, as PAM/PPM (tools/make_webp_sources.py).
python3 tools/make_webp_sources.py "$work"

# ---------------------------------------------------------------- valid
cwebp -quiet -q 95 "$Q" -o images/webp-lossy.webp
cwebp -quiet -lossless -exact "$Q" -o images/webp-lossless.webp
cwebp -quiet -q 95 -alpha_q 100 "$work/quadrants-alpha.pam" -o images/webp-lossy-alpha.webp
cwebp -quiet -lossless -exact "$work/quadrants-alpha.pam" -o images/webp-lossless-alpha.webp
cwebp -quiet -q 80 "$work/scene-1600x1200.ppm" -o images/webp-large-1600x1200.webp

# Transparent through its palette only: cwebp keeps a palette PNG's four colours as VP8L's colour
# indexing, their alpha in the palette. Then the same with its VP8L alpha hint cleared, and in a
# VP8X container whose alpha flag is clear too (tools/webp_alpha_hint.py).
cwebp -quiet -lossless -exact "$work/palette-alpha.png" -o images/webp-lossless-palette-alpha.webp
python3 tools/webp_alpha_hint.py images/webp-lossless-palette-alpha.webp images/webp-lossless-palette-alpha-no-hint.webp
python3 tools/webp_alpha_hint.py images/webp-lossless-palette-alpha.webp \
  images/webp-lossless-palette-alpha-vp8x-no-flag.webp --vp8x

# EXIF orientation: the stored pixels are the upright picture through the inverse of n; the
# EXIF chunk is a bare TIFF block for 6 (big-endian), "Exif\0\0" + TIFF for 3 (little-endian).
"$IM" "$Q" -rotate 270 "${IMCLEAN[@]}" "ppm:$work/stored-6.ppm"
"$IM" "$Q" -rotate 180 "${IMCLEAN[@]}" "ppm:$work/stored-3.ppm"
for n in 3 6; do
  cwebp -quiet -q 95 "$work/stored-$n.ppm" -o "$work/stored-$n.webp"
  webpmux -set exif "$work/orientation-$n.exif" "$work/stored-$n.webp" -o "images/webp-orientation-$n.webp"
done

# An ICC profile (sRGB, from icc-profiles-free) in an ICCP chunk.
webpmux -set icc "$ICC" images/webp-lossy.webp -o images/webp-icc.webp

# Three frames of 120 x 80: the quadrants, then all white, then all black.
img2webp -lossless "$Q" -d 200 "$work/white.ppm" -d 200 "$work/black.ppm" -o images/webp-animated.webp \
  >/dev/null

# ---------------------------------------------------------------- hostile
# 640 x 480 sources for the truncated files.
cwebp -quiet -q 90 "$work/scene-640x480.ppm" -o "$work/scene-lossy.webp"
cwebp -quiet -lossless "$work/scene-640x480.ppm" -o "$work/scene-lossless.webp"
python3 tools/make_webp_hostile.py images "$work" hostile

ls -l images/webp-*.webp hostile/webp-*.webp | awk '{print $5, $9}'
