#!/usr/bin/env bash
# The weight of the grid page: its HTML, style sheet and script (no pictures), each as sent and
# compressed with gzip -9, for the sample library (Library/, copied) and for a full first page
# of 50 reviews with covers. The target is 30 KB (30,000 bytes) compressed; the exit status is 1
# when a page is over it.
#
#   Benchmarks/page-weight.sh
#
# Uses the release build (made first) or $CATALOGUE; the pages do not depend on which.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/Benchmarks/serve/serve.sh"
catalogue=$(catalogue_binary "$root")
target=30000

work=$(mktemp -d "${TMPDIR:-/tmp}/page-weight.XXXXXX")
server=''
stop_server() {
  if [ -n "$server" ]; then
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=''
  fi
}
trap 'stop_server; rm -rf "$work"' EXIT

# Bytes of URL as sent, then gzip -9 of them.
weigh() {
  curl -sf --noproxy '*' "$1" -o "$work/body"
  echo "$(wc -c <"$work/body") $(gzip -9 -c "$work/body" | wc -c)"
}

over=0
measure() {
  local name=$1 library=$2
  start_serve "$work/serve.out" "$work/serve.err" "$catalogue" --library "$library" serve --port 0 --quiet
  local base="http://127.0.0.1:$port"
  curl -sf --noproxy '*' "$base/" -o "$work/page.html"
  local style script
  style=$(sed -n 's|.*<link rel="stylesheet" href="\([^"]*\)".*|\1|p' "$work/page.html" | head -1)
  script=$(sed -n 's|.*<script src="\([^"]*\)".*|\1|p' "$work/page.html" | head -1)
  local total_raw=0 total_gzip=0
  printf '%s (%s reviews on the page)\n' "$name" "$(grep -c '<li class="card">' "$work/page.html")"
  for part in "/" "$style" "$script"; do
    read -r raw gzipped < <(weigh "$base$part")
    printf '  %-28s %7d bytes  %6d gzip -9\n' "$part" "$raw" "$gzipped"
    total_raw=$((total_raw + raw))
    total_gzip=$((total_gzip + gzipped))
  done
  printf '  %-28s %7d bytes  %6d gzip -9 (target %d)\n' "total" "$total_raw" "$total_gzip" "$target"
  [ "$total_gzip" -le "$target" ] || over=1
  stop_server
}

# The sample library, as the README shows it.
cp -R "$root/Library" "$work/sample"
rm -f "$work/sample/catalogue.lock"
measure "sample library" "$work/sample"

# A full first page: 50 reviews, each with a cover, their titles partly random hex (which gzip
# cannot shrink as it would 50 titles alike: the figure errs on the heavy side).
"$catalogue" --library "$work/full" init >/dev/null
picture=$(find "$work/sample/originals" -name '*.jpg' | head -1)
for number in $(seq 50); do
  words=$(printf 'title %s' "$number" | sha256sum | cut -c1-20)
  "$catalogue" --library "$work/full" add --title "The $words review, number $number" \
    --rating $((number % 6)) --category book --body "Words." --image "$picture" >/dev/null
done
measure "a full page" "$work/full"

exit "$over"
