#!/usr/bin/env bash
# What importing one large picture costs in memory: the peak resident size of `catalogue attach`
# (GNU time's "Maximum resident set size") and of `catalogue serve` taking the same picture as an
# upload (the server's VmHWM, the server started fresh for each picture), for a 20-megapixel PNG
# and JPEG drawn with ImageMagick, and a 64 × 64 JPEG for what any import costs. See
# Benchmarks/README.md.
#
#   Benchmarks/import-memory.sh [--runs N] [--target MIB]
#
# RUNS (default 3) attaches of each picture, each into a new library; the median is reported.
# Exits 1 when a 20-megapixel import peaks above TARGET MiB (default 32), or when a stored
# original is not the picture byte for byte. CATALOGUE=/path/to/catalogue uses that binary;
# otherwise the release build is made (in SCRATCH_PATH, default .build). About a minute.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
runs=3
target=32
while (($#)); do
  case $1 in
    --runs) runs=${2:?--runs needs a value}; shift 2 ;;
    --target) target=${2:?--target needs a value}; shift 2 ;;
    -h | --help) sed -n '2,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "import-memory: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "import-memory: --runs must be a positive integer" >&2; exit 2; }
for tool in /usr/bin/time /usr/bin/convert curl python3; do
  command -v "$tool" >/dev/null || { echo "import-memory: $tool not found" >&2; exit 1; }
done

# shellcheck source=serve/serve.sh
. "$here/serve/serve.sh"
catalogue=$(catalogue_binary "$root")

out=$here/out/import-memory
pictures=$out/pictures
mkdir -p "$pictures"
work=$(mktemp -d "${TMPDIR:-/tmp}/import-memory.XXXXXX")
server=
cleanup() {
  [ -n "$server" ] && kill -KILL "$server" 2>/dev/null
  rm -rf "$work"
  return 0
}
trap cleanup EXIT

# The pictures, drawn once: a plasma fractal scaled up with Gaussian grain (smooth areas, edges
# and noise, as in a photograph), 5472 × 3648 as a 20-megapixel camera makes them; the PNG as
# ImageMagick writes it by default (8-bit RGB, zlib 7, adaptive filters), the JPEG at quality 90,
# 4:2:0, from the same pixels.
if [ ! -s "$pictures/20mp.png" ]; then
  /usr/bin/convert -seed 1 -size 547x365 plasma:fractal -resize '5472x3648!' -attenuate 0.6 +noise Gaussian \
    -depth 8 +set date:create +set date:modify -strip "png24:$pictures/20mp.png.partial"
  mv "$pictures/20mp.png.partial" "$pictures/20mp.png"
fi
if [ ! -s "$pictures/20mp.jpg" ]; then
  /usr/bin/convert "$pictures/20mp.png" -quality 90 -sampling-factor 2x2 -strip "jpg:$pictures/20mp.jpg.partial"
  mv "$pictures/20mp.jpg.partial" "$pictures/20mp.jpg"
fi
if [ ! -s "$pictures/64px.jpg" ]; then
  /usr/bin/convert -seed 2 -size 64x64 plasma:fractal -quality 90 -strip "jpg:$pictures/64px.jpg"
fi

# A new library with one review; prints the review's id.
new_library() {
  rm -rf "$1"
  "$catalogue" init "$1" >/dev/null
  "$catalogue" --library "$1" add --title "Import memory" --rating 3 --category other
}

# Whether the library's only original is the picture byte for byte.
stored_whole() {
  local library=$1 picture=$2 originals
  originals=$(find "$library/originals" -type f)
  [ "$(printf '%s\n' "$originals" | wc -l)" -eq 1 ] && cmp -s "$originals" "$picture"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

failed=0
report=$out/summary.txt
{
  echo "catalogue: $catalogue"
  echo "$(nproc) cores; load before the start: $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '\n%-10s %10s %18s %18s %14s\n' picture bytes "attach peak MiB" "serve HWM MiB" "serve before"
} >"$report"

for name in 64px.jpg 20mp.jpg 20mp.png; do
  picture=$pictures/$name
  bytes=$(stat -c %s "$picture")

  # catalogue attach, RUNS times, each into a new library.
  peaks=()
  for _ in $(seq "$runs"); do
    id=$(new_library "$work/library")
    /usr/bin/time -f %M -o "$work/time" "$catalogue" --library "$work/library" attach "$id" "$picture" >/dev/null
    peaks+=("$(tail -1 "$work/time")")
    stored_whole "$work/library" "$picture" || { echo "import-memory: attach did not store $name whole" >&2; failed=1; }
  done
  attach=$(printf '%s\n' "${peaks[@]}" | median)

  # One upload to a server started fresh on a new library, with a reviewer's token.
  id=$(new_library "$work/served")
  head -c 24 /dev/urandom | base64 | "$catalogue" --library "$work/served" user add bench --password-stdin >/dev/null
  token=$("$catalogue" --library "$work/served" user token bench 2>/dev/null | grep '^cat_')
  mkdir -p "$work/uploads"
  start_serve "$work/serve.out" "$work/serve.err" \
    "$catalogue" --library "$work/served" serve --port 0 --upload-folder "$work/uploads"
  before=$(awk '/^VmHWM/ { print $2 }' "/proc/$server/status")
  status=$(curl -s -o "$work/answer" -w '%{http_code}' -H "Authorization: Bearer $token" \
    -F "file=@$picture" "http://127.0.0.1:$port/api/reviews/$id/images")
  hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$server/status")
  kill -TERM "$server"
  wait "$server" || { echo "import-memory: the server did not exit 0 on SIGTERM" >&2; failed=1; }
  server=
  [ "$status" = 201 ] || { echo "import-memory: the upload of $name answered $status: $(cat "$work/answer")" >&2; failed=1; }
  stored_whole "$work/served" "$picture" || { echo "import-memory: the server did not store $name whole" >&2; failed=1; }

  printf '%-10s %10d %18s %18s %14s\n' "$name" "$bytes" "$(mib "$attach")" "$(mib "$hwm")" "$(mib "$before")" >>"$report"
  if [[ $name == 20mp.* ]]; then
    for peak in "$attach" "$hwm"; do
      if ((peak > target * 1024)); then failed=1; fi
    done
  fi
done

{
  echo
  echo "attach: median of $runs runs of \`/usr/bin/time -f %M catalogue --library L attach ID PICTURE\`, a new library each"
  echo "serve: VmHWM of \`catalogue --library L serve --port 0\` after one upload (curl -F file=@PICTURE"
  echo "  POST /api/reviews/ID/images); before: its VmHWM once started, before the upload"
  [ "$failed" = 0 ] && echo "every 20-megapixel import within $target MiB; every original stored byte for byte" \
    || echo "TARGET MISSED (a 20-megapixel import over $target MiB, or an original not stored whole)"
} >>"$report"
cat "$report"
exit "$failed"
