#!/usr/bin/env bash
# Draws the JPEG photographs the upload scripts send (serve-bench.sh, Reliability/serve-kill.sh)
# with ImageMagick: a plasma fractal (smooth areas and edges, as in a photograph) scaled up, with
# Gaussian grain, so that each is as large on disk as a camera's picture of its size.
# upload.py makes each upload distinct from these (a comment segment), so a handful suffice.
#
#   Benchmarks/serve/make-pictures.sh DIR [SIZE...]    (default sizes: 1600x1200 2400x1600 3000x2000 4000x3000)
#
# Idempotent: a picture already in DIR is kept. Needs ImageMagick (/usr/bin/convert).
set -euo pipefail

dir=${1:?give the folder to draw the pictures in}
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1600x1200 2400x1600 3000x2000 4000x3000)
mkdir -p "$dir"
seed=1
for size in "${sizes[@]}"; do
  file=$dir/photo-$size.jpg
  if [ ! -s "$file" ]; then
    width=${size%x*}
    height=${size#*x}
    # The fractal is drawn at a tenth of the size (fast) and scaled up.
    /usr/bin/convert -seed "$seed" -size "$((width / 10))x$((height / 10))" plasma:fractal \
      -resize "${width}x${height}!" -attenuate 0.6 +noise Gaussian -quality 90 -sampling-factor 2x2 \
      "jpg:$file.partial"
    mv "$file.partial" "$file"
  fi
  seed=$((seed + 1))
done
