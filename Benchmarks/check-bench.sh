#!/usr/bin/env bash
# Times `catalogue check` over a library holding the photo corpus, in the same run as the C
# tools doing the same work on one core: `openssl dgst -sha256` over every original, plus
# `djpeg -scale 1/8` over the JPEGs and a full PNG decode over the PNGs (tools/pngdecode.c, a
# few lines of C around libpng, built here; netpbm's pngtopnm and `vips avg` are slower still,
# so they would flatter us).
#
#   Benchmarks/check-bench.sh [CORPUS]        (default Benchmarks/corpus; make it first
#                                              with Benchmarks/make-corpus.sh)
#
# Needs openssl, libjpeg-turbo-progs (djpeg), gcc with libpng-dev, and hyperfine.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
corpus=${1:-$here/corpus}
library=$here/out/check-library
runs=${RUNS:-3}

for tool in openssl djpeg gcc hyperfine taskset; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is missing" >&2; exit 1; }
done
[ -d "$corpus/baseline" ] && [ -d "$corpus/png" ] || { echo "$0: no corpus in $corpus (run Benchmarks/make-corpus.sh)" >&2; exit 1; }

(cd "$root" && swift build -c release --product catalogue >/dev/null)
catalogue=$root/.build/release/catalogue
mkdir -p "$here/out"
pngdecode=$here/out/pngdecode
gcc -O2 -o "$pngdecode" "$here/tools/pngdecode.c" $(pkg-config --cflags --libs libpng)

# The library: the baseline JPEGs and the PNGs of the corpus, ten photos a review.
if [ ! -f "$library/catalogue.sqlite" ]; then
  rm -rf "$library"
  "$catalogue" init "$library" >/dev/null
  mapfile -t photos < <(ls "$corpus"/baseline/*.jpg "$corpus"/png/*.png)
  for ((i = 0; i < ${#photos[@]}; i += 10)); do
    id=$("$catalogue" --library "$library" add --title "Photos $i" --rating 3 --category other)
    "$catalogue" --library "$library" attach "$id" "${photos[@]:i:10}" >/dev/null
  done
fi

mapfile -t jpegs < <(find "$library/originals" -name '*.jpg' | sort)
mapfile -t pngs < <(find "$library/originals" -name '*.png' | sort)
bytes=$(cat "${jpegs[@]}" "${pngs[@]}" | wc -c)
echo "library: ${#jpegs[@]} JPEG and ${#pngs[@]} PNG originals, $((bytes / 1048576)) MB"

# The C tools' share, on one core: one openssl over every file, djpeg per JPEG, one pngdecode.
reference=$here/out/check-reference.sh
{
  echo '#!/bin/sh'
  echo 'set -e'
  printf 'openssl dgst -sha256'; printf ' %q' "${jpegs[@]}" "${pngs[@]}"; echo ' >/dev/null'
  for file in "${jpegs[@]}"; do printf 'djpeg -scale 1/8 -outfile /dev/null %q\n' "$file"; done
  printf '%q' "$pngdecode"; printf ' %q' "${pngs[@]}"; echo
} >"$reference"
chmod +x "$reference"

"$catalogue" --library "$library" check --jobs 1 >/dev/null  # warm the page cache
hyperfine --runs "$runs" --warmup 1 --export-json "$here/out/check-bench.json" \
  -n "catalogue check, 1 core" "taskset -c 0 $catalogue --library $library check --jobs 1" \
  -n "C tools, 1 core" "taskset -c 0 $reference" \
  -n "catalogue check, 2 cores" "$catalogue --library $library check" \
  -n "catalogue check --quick" "$catalogue --library $library check --quick"

python3 - "$here/out/check-bench.json" "$bytes" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
size = int(sys.argv[2])
ours = results["catalogue check, 1 core"]["median"]
tools = results["C tools, 1 core"]["median"]
both = results["catalogue check, 2 cores"]["median"]
print()
print(f"| check, {size / 1e6:.0f} MB of originals | median s | MB/s |")
print("|---|---|---|")
for name, r in results.items():
    print(f"| {name} | {r['median']:.3f} | {size / 1e6 / r['median']:.0f} |")
print(f"\nours / C tools on one core: {ours / tools:.2f}x the time (target: at most 1.25x)")
print(f"ours on 2 cores: {ours / both:.2f}x faster than on 1")
PY
