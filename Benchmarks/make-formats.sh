#!/usr/bin/env bash
# The corpus in the formats a photo library holds beside JPEG, made from the same normalised
# pixels as make-corpus.sh's sets (its png/ files), for thumbnail-bench.sh's --sets:
#
#   DIR/webp/NAME.webp         lossy WebP, cwebp -q 90 (the web's posters and screenshots)
#   DIR/heic/NAME.heic         HEIC, heif-enc -q 80 (HEVC through x265), no stored thumbnail
#   DIR/heic-thumb/NAME.heic   the same with a 320 px stored thumbnail (heif-enc --thumb 320),
#                              as phones save their pictures
#   DIR/avif/NAME.avif         AVIF, avifenc --speed 6 --min 20 --max 28 (AV1 through libaom), 4:2:0
#
#   Benchmarks/make-formats.sh [DIR]     (default Benchmarks/corpus; run make-corpus.sh first)
#
# Idempotent: files that exist are kept. Needs webp, libheif-examples and libavif-bin. About
# five minutes on two cores, most of it HEVC and AV1 encoding.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${1:-$here/corpus}
[ -d "$dir/png" ] || { echo "no $dir/png: run Benchmarks/make-corpus.sh first" >&2; exit 1; }
for tool in cwebp heif-enc avifenc; do
  command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install webp libheif-examples libavif-bin)" >&2; exit 1; }
done
mkdir -p "$dir/webp" "$dir/heic" "$dir/heic-thumb" "$dir/avif"
made=0
for source in "$dir"/png/*.png; do
  name=$(basename "$source" .png)
  [ -s "$dir/webp/$name.webp" ] || { cwebp -quiet -q 90 -metadata none "$source" -o "$dir/webp/$name.webp"; made=$((made + 1)); }
  [ -s "$dir/heic/$name.heic" ] || { heif-enc -q 80 -o "$dir/heic/$name.heic" "$source" >/dev/null; made=$((made + 1)); }
  [ -s "$dir/heic-thumb/$name.heic" ] ||
    { heif-enc -q 80 --thumb 320 -o "$dir/heic-thumb/$name.heic" "$source" >/dev/null; made=$((made + 1)); }
  [ -s "$dir/avif/$name.avif" ] ||
    { avifenc -j 2 --speed 6 --min 20 --max 28 -y 420 "$source" "$dir/avif/$name.avif" >/dev/null; made=$((made + 1)); }
done
for set in webp heic heic-thumb avif; do
  printf '%-11s %3d files %7.1f MB\n' "$set" "$(find "$dir/$set" -type f | wc -l)" \
    "$(du -sk "$dir/$set" | awk '{print $1 / 1024}')"
done
echo "made $made files"
