#!/usr/bin/env bash
# Feeds and the sitemap under load: `catalogue serve` pinned to one core, wrk on the other.
# Each of /feed.atom, /feed.json and /sitemap.xml is asked again and again (kept by the page
# cache after the first: what a crowd of feed readers costs), then with a query that changes
# every request, which the page cache keys apart and the feed ignores (each one made afresh:
# 50 reviews read whole and rendered). See Benchmarks/README.md.
#
#   Benchmarks/feed-bench.sh [--duration S] [--library DIR] [--scratch-path DIR]
#
# --duration S        seconds of each wrk run (default 10)
# --library DIR       the library to serve, copied first (default: the sample library)
# --scratch-path DIR  the swift build folder (default .build); CATALOGUE=/path/to/catalogue uses
#                     that binary, unbuilt
#
# Exits non-zero when a feed from the cache is under 1,000 a second or any answer was not 200.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
duration=10
library=$root/Library
export SCRATCH_PATH=$root/.build
while [ $# -gt 0 ]; do
  case $1 in
    --duration) duration=$2; shift 2 ;;
    --library) library=$2; shift 2 ;;
    --scratch-path) SCRATCH_PATH=$2; shift 2 ;;
    *) echo "feed-bench.sh: unknown argument $1 (see the head of the script)" >&2; exit 2 ;;
  esac
done
for tool in wrk taskset; do
  command -v "$tool" >/dev/null || { echo "feed-bench.sh: needs $tool (see Benchmarks/README.md)" >&2; exit 2; }
done
[ "$(nproc --all)" -ge 2 ] || { echo "feed-bench.sh: needs two cores (server on one, load on the other)" >&2; exit 2; }
. "$here/serve/serve.sh"
catalogue=$(catalogue_binary "$root")

work=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
cp -a "$library" "$work/library"
start_serve "$work/out" "$work/err" taskset -c 0 "$catalogue" --library "$work/library" serve --port 0 --quiet \
  --threads 1 --public-url https://reviews.example
url=http://127.0.0.1:$port
reviews=$(curl -s "$url/api/reviews?limit=0" | sed -n 's/.*"total":\([0-9]*\).*/\1/p')

cat >"$work/afresh.lua" <<'LUA'
-- A new query string every request: the page cache keys each apart, the feed ignores it.
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", wrk.path .. "?n=" .. n)
end
LUA

failed=0
rate=0
# run NAME PATH [afresh]: wrk for $duration seconds; prints requests a second and p99, and
# leaves the rate in $rate.
run() {
  local name=$1 path=$2 script=()
  [ "${3:-}" = afresh ] && script=(-s "$work/afresh.lua")
  local report
  report=$(taskset -c 1 wrk -t1 -c8 -d"${duration}s" --latency "${script[@]}" "$url$path")
  local p99 errors
  rate=$(awk '/^Requests\/sec/ {printf "%d", $2}' <<<"$report")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$report")
  errors=$(awk '/Non-2xx/ {print $5}' <<<"$report")
  printf '%-34s %8s/s  p99 %s%s\n' "$name" "$rate" "$p99" "${errors:+  ($errors not 200)}"
  [ -z "$errors" ] || failed=1
}

echo "feed-bench: $reviews published reviews, server on core 0, wrk (8 connections) on core 1, ${duration} s a run"
for path in /feed.atom /feed.json /sitemap.xml; do
  curl -s -o /dev/null "$url$path"
  run "$path from the cache" "$path"
  if [ "$path" != /sitemap.xml ] && [ "$rate" -lt 1000 ]; then
    echo "feed-bench: $path from the cache: $rate/s, under the 1,000/s target" >&2
    failed=1
  fi
  run "$path made afresh" "$path" afresh
done
echo "feed sizes: atom $(curl -s "$url/feed.atom" | wc -c) bytes, json $(curl -s "$url/feed.json" | wc -c) bytes"
exit $failed
