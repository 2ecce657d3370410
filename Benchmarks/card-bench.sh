#!/usr/bin/env bash
# Times share cards (ShareCard.draw: the cover decoded at the cheapest size that fills the card,
# cropped and resized, the text set by Pango and drawn by Cairo, the JPEG encoded) on one core
# (taskset -c 0), for a 24-megapixel JPEG cover, a 12-megapixel HEIC and none. A large cover's
# card is drawn over its display rendition (1600 pixels, which the review's page has made):
# the first card of a fresh process (Pango, Cairo, fontconfig and the fonts load with it), in
# several fresh processes, then warm cards in one, then the rendition made from the original
# and the card together (a review whose page no one has opened). Also what `catalogue --help` costs with the card code
# linked in, which must be nothing: Pango and Cairo are opened only when a card is drawn.
# See Benchmarks/README.md.
#
#   Benchmarks/card-bench.sh [--runs 20] [--processes 5]
#
# Needs ImageMagick (/usr/bin/convert), heif-enc (libheif-examples), hyperfine and taskset.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
runs=20
processes=5
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --processes) processes=$2; shift 2 ;;
    *) echo "card-bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
for tool in /usr/bin/convert heif-enc hyperfine taskset; do
  command -v "$tool" >/dev/null || { echo "card-bench.sh: needs $tool (see Benchmarks/README.md)" >&2; exit 2; }
done

out=$here/out/card
mkdir -p "$out"
# Pictures as the serve benchmark draws them: a plasma fractal scaled up with grain, as large
# on disk as a camera's photograph of its size.
if [ ! -s "$out/24mp.jpg" ]; then
  /usr/bin/convert -seed 7 -size 600x400 plasma:fractal -resize '6000x4000!' -attenuate 0.6 +noise Gaussian \
    -quality 90 -sampling-factor 2x2 -strip "jpg:$out/24mp.jpg.partial"
  mv "$out/24mp.jpg.partial" "$out/24mp.jpg"
fi
if [ ! -s "$out/12mp.heic" ]; then
  /usr/bin/convert -seed 8 -size 400x300 plasma:fractal -resize '4000x3000!' -attenuate 0.6 +noise Gaussian \
    -strip "png24:$out/12mp.png"
  heif-enc -q 80 -o "$out/12mp.heic.partial" "$out/12mp.png" >/dev/null
  mv "$out/12mp.heic.partial" "$out/12mp.heic"
  rm -f "$out/12mp.png"
fi

cd "$root"
swift build -c release --product catalogue-bench >/dev/null
swift build -c release --product catalogue >/dev/null
bench=$root/.build/release/catalogue-bench

for cover in "$out/24mp.jpg" "$out/12mp.heic" none; do
  echo "== $( [ "$cover" = none ] && echo "no cover" || echo "$(basename "$cover") ($(du -h "$cover" | cut -f1))" )"
  for _ in $(seq "$processes"); do
    taskset -c 0 "$bench" --card "$cover" --runs 1 | grep "first"
  done
  taskset -c 0 "$bench" --card "$cover" --runs "$runs" | grep -v "first"
done

echo "== catalogue --help (Pango and Cairo are not loaded)"
hyperfine -N --warmup 5 --runs 100 "taskset -c 0 $root/.build/release/catalogue --help" 2>/dev/null \
  | grep -E "Time|Range"
