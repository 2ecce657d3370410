#!/usr/bin/env bash
# A slow-body flood against `catalogue serve`: from 35 loopback addresses, 128 connections each
# (4,480, past the server's 4,096), request bodies sent a byte every 3 seconds, with a new
# connection for every one the server cuts off; meanwhile a reader from another address asks for
# the grid page again and again. Twice: bodies without credentials (the sign-in form) and bodies
# of a signed-in reviewer (a bearer token on the API). Prints, for each, what the reader was
# served and the server's resident memory before, at the peak and after the flood.
#
#   Benchmarks/slow-body-flood.sh [--duration S] [--addresses N] [--per-address N]
#                                 [--interval S] [--scratch-path DIR] [--no-build]
#
# --duration S      seconds of each flood (default 60)
# --addresses N     source addresses of the flood (default 35)
# --per-address N   connections each address holds (default 128, the server's limit an address)
# --interval S      seconds between two bytes of a body (default 3)
# --scratch-path    the swift build folder (default .build); CATALOGUE=/path/to/catalogue uses
#                   that binary, unbuilt
#
# The server runs on core 0 and the flood (Benchmarks/serve/slow-bodies.py) on core 1, its
# reader in a process of its own. Exits non-zero when the reader was not served every time.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
duration=60
addresses=35
per_address=128
interval=3
scratch=$root/.build
build=1
while [ $# -gt 0 ]; do
  case $1 in
    --duration) duration=$2; shift 2 ;;
    --addresses) addresses=$2; shift 2 ;;
    --per-address) per_address=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --scratch-path) scratch=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "slow-body-flood.sh: unknown argument $1 (see the head of the script)" >&2; exit 2 ;;
  esac
done
for tool in taskset python3; do
  command -v "$tool" >/dev/null || { echo "slow-body-flood.sh: needs $tool" >&2; exit 2; }
done
[ "$(nproc --all)" -ge 2 ] || { echo "slow-body-flood.sh: needs two cores (server on one, flood on the other)" >&2; exit 2; }
case $scratch in /*) ;; *) scratch=$root/$scratch ;; esac

# shellcheck source=serve/serve.sh
. "$here/serve/serve.sh"
if [ "$build" = 1 ] || [ -n "${CATALOGUE:-}" ]; then
  catalogue=$(SCRATCH_PATH=$scratch catalogue_binary "$root")
else
  catalogue=$scratch/release/catalogue
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/slow-body-flood.XXXXXX")
server=
cleanup() {
  [ -n "$server" ] && kill -KILL "$server" 2>/dev/null
  rm -rf "$work"
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

library=$work/library
cp -R "$root/Library" "$library"
rm -f "$library"/catalogue.sqlite-wal "$library"/catalogue.sqlite-shm "$library"/catalogue.lock
head -c 24 /dev/urandom | base64 | "$catalogue" --library "$library" user add flood --password-stdin >/dev/null
token=$("$catalogue" --library "$library" user token flood 2>/dev/null)

rss() { awk '/^VmRSS/ {print int($2 / 1024)}' "/proc/$server/status"; }
peak() { awk '/^VmHWM/ {print int($2 / 1024)}' "/proc/$server/status"; }

failed=0
for kind in anonymous signed-in; do
  start_serve "$work/server.out" "$work/server.err" taskset -c 0 "$catalogue" --library "$library" serve --port 0 --quiet
  # Warm: the grid page made and kept, a few requests served.
  for _ in 1 2 3 4 5; do curl -s -o /dev/null "http://127.0.0.1:$port/"; done
  before=$(rss)
  if [ "$kind" = anonymous ]; then
    target=(--target /sign-in --length 1000)
  else
    target=(--target /api/reviews --token "$token" --length 100000)
  fi
  taskset -c 1 python3 "$here/serve/slow-bodies.py" --port "$port" --duration "$duration" \
    --addresses "$addresses" --per-address "$per_address" --interval "$interval" "${target[@]}" >"$work/flood.json"
  top=$(peak)
  # What the connections held is given back once they are gone: wait up to ten seconds for it.
  after=$(rss)
  for _ in $(seq 20); do
    sleep 0.5
    now=$(rss)
    [ "$now" -lt "$after" ] && after=$now
  done
  kill -TERM "$server"
  wait "$server" || true
  server=
  python3 - "$work/flood.json" "$kind" "$before" "$top" "$after" <<'PY' || failed=1
import json, sys
report = json.load(open(sys.argv[1]))
kind, before, top, after = sys.argv[2], *map(int, sys.argv[3:6])
reader, flood = report["reader"], report["flood"]
print(f"{kind} bodies: {flood['addresses']} addresses x {flood['per_address']} connections, "
      f"{flood['opened']} opened, {flood['cut_by_server']} cut off by the server")
print(f"  reader: {reader['served']} of {reader['requests']} served"
      f" (failures: {reader['failures'] or 'none'}), p50 {reader['p50_ms']} ms, p99 {reader['p99_ms']} ms,"
      f" max {reader['max_ms']} ms")
print(f"  server RSS: {before} MiB before, {top} MiB at the peak, {after} MiB ten seconds after")
sys.exit(0 if reader["requests"] > 0 and reader["served"] == reader["requests"] else 1)
PY
done
exit $failed
