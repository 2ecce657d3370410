#!/usr/bin/env bash
# Builds the libFuzzer harnesses (with AddressSanitizer) and runs each for SECONDS.
#
#   Fuzz/run.sh [SECONDS] [TARGET...]      (default 600 seconds; targets: jpeg png webp heif icc exif bundle markdown imports)
#
# Each target's corpus starts from the fixtures and grows in Fuzz/corpus/TARGET (not
# committed). A crashing input is written to Fuzz/crashes/TARGET/; copy it into
# Fixtures/fuzz/TARGET/ so that the regression tests keep it (see Fixtures/README.md).
# Two targets run at once on a two-core machine.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(jpeg png webp heif icc exif bundle markdown imports)
fixtures=$(dirname "$here")/Fixtures

(cd "$here" && swift build -c release --sanitize=fuzzer --sanitize=address 2>&1 | tail -1)
# Some builds link the catalogue's modules without coverage (seen after an incremental build,
# and now and then from scratch), and libFuzzer then finds nothing new however long it runs: a
# harness must count the catalogue's code, tens of thousands of counters, not its own few
# hundred. Such a build is made again from scratch, up to three times, and never run.
counters() {
  "$here/.build/release/fuzz-${targets[0]}" -runs=0 2>&1 | sed -n 's/.*(\([0-9]*\) inline 8-bit counters).*/\1/p' |
    head -1
}
for attempt in 1 2 3; do
  count=$(counters)
  [ "${count:-0}" -ge 5000 ] && break
  echo "run.sh: the harnesses count ${count:-no} coverage counters, not the catalogue's: building them again" >&2
  rm -rf "$here/.build"
  (cd "$here" && swift build -c release --sanitize=fuzzer --sanitize=address 2>&1 | tail -1)
done
count=$(counters)
if [ "${count:-0}" -lt 5000 ]; then
  echo "run.sh: the harnesses still count ${count:-no} coverage counters: fuzzing them would find nothing" >&2
  exit 1
fi

seed() {
  local target=$1 corpus=$here/corpus/$1
  mkdir -p "$corpus" "$here/crashes/$target"
  case $target in
    jpeg) cp -n "$fixtures"/images/*.jpg "$fixtures"/hostile/*.jpg "$corpus"/ 2>/dev/null || true ;;
    png) cp -n "$fixtures"/images/*.png "$fixtures"/hostile/*.png "$corpus"/ 2>/dev/null || true ;;
    webp) cp -n "$fixtures"/images/*.webp "$fixtures"/hostile/*.webp "$corpus"/ 2>/dev/null || true ;;
    icc) cp -n "$fixtures"/profiles/*.icc "$corpus"/ 2>/dev/null || true ;;
    heif)
      cp -n "$fixtures"/images/heic-* "$fixtures"/images/avif-* "$fixtures"/hostile/heic-* "$fixtures"/hostile/avif-* \
        "$fixtures"/hostile/picture.heic "$fixtures"/hostile/picture.avif "$corpus"/ 2>/dev/null || true
      ;;
    exif)
      # The TIFF blocks of the fixtures' EXIF segments (after "Exif\0\0").
      for file in "$fixtures"/images/orientation-*.jpg "$fixtures"/hostile/exif-*.jpg; do
        python3 - "$file" "$corpus/$(basename "$file" .jpg).tiff" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
start = data.find(b"Exif\x00\x00")
if start >= 0:
    length = int.from_bytes(data[start - 2:start], "big")
    open(sys.argv[2], "wb").write(data[start + 6:start - 2 + length])
PY
      done
      ;;
    imports)
      # The services' exports and the broken files of the import fixtures.
      cp -n "$fixtures"/imports/*.csv "$fixtures"/imports/letterboxd/*.csv "$fixtures"/imports/hostile/*.csv "$corpus"/ \
        2>/dev/null || true
      ;;
    markdown)
      # Review bodies with every kind of spoiler markup, and the sample library's bodies.
      if [ -z "$(ls -A "$corpus")" ]; then
        printf 'A ||hidden *word*|| and [a link](https://example.org) ||\n\n`||code||`\n' >"$corpus/inline.md"
        printf '::: spoiler The ending\nHe was **dead**.\n\n- a\n- ||b||\n:::\n\n> ::: spoiler\n> quoted\n> :::\n' >"$corpus/block.md"
        printf '```\n::: spoiler\n```\n:::\n||unclosed\n::: spoiler\n::: spoiler inner\nx\n:::\n' >"$corpus/nested.md"
        sqlite3 "$(dirname "$here")/Library/catalogue.sqlite" "SELECT body FROM reviews" >"$corpus/sample.md" || true
      fi
      ;;
    bundle)
      # Tar bundles exported from a small library of the fixtures, made once by the CLI.
      if [ -z "$(ls -A "$corpus")" ]; then
        local work catalogue=$(dirname "$here")/.build/release/catalogue
        work=$(mktemp -d)
        (cd "$(dirname "$here")" && swift build -c release --product catalogue >/dev/null)
        "$catalogue" init "$work/library" >/dev/null
        id=$("$catalogue" --library "$work/library" add --title "Seed" --rating 3 --category other --body "*Seed*")
        "$catalogue" --library "$work/library" attach "$id" "$fixtures/images/baseline.jpg" "$fixtures/images/palette-trns.png" >/dev/null
        "$catalogue" --library "$work/library" export "$id" --to "$work/out" --archive >/dev/null
        cp "$work"/out/*.tar "$corpus/"
        rm -rf "$work"
      fi
      ;;
  esac
  if [ -d "$fixtures/fuzz/$target" ]; then cp -n "$fixtures/fuzz/$target"/* "$corpus"/ 2>/dev/null || true; fi
}

run() {
  local target=$1 log=$here/crashes/$1.log
  seed "$target"
  # Leaks inside the system libraries, not ours, would stop the run at once (see the file).
  local suppressions=$here/lsan-$target.supp
  [ -f "$suppressions" ] && export LSAN_OPTIONS=suppressions=$suppressions
  "$here/.build/release/fuzz-$target" "$here/corpus/$target" \
    -max_total_time="$seconds" -max_len=262144 -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$here/crashes/$target/" -print_final_stats=1 >"$log" 2>&1 || true
  local runs crashes
  runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  crashes=$(find "$here/crashes/$target" -type f | wc -l)
  printf '%-5s %10s executions in %ss, corpus %s files, %s crashing inputs (log: %s)\n' \
    "$target" "${runs:-?}" "$seconds" "$(find "$here/corpus/$target" -type f | wc -l)" "$crashes" "$log"
}

jobs=$(nproc)
running=0
for target in "${targets[@]}"; do
  run "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
