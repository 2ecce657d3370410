# Sourced by the scripts that run `catalogue serve` (Benchmarks/, Reliability/), not run itself.
#
#   catalogue_binary ROOT   prints the catalogue to use: $CATALOGUE when set, else the release
#                           build, made first in $SCRATCH_PATH (default ROOT/.build)
#   start_serve OUT ERR COMMAND...
#                           starts COMMAND (a `catalogue … serve --port 0 …`) in the background,
#                           its output in OUT and ERR, and waits (30 s at most) for the line
#                           that names its port; sets `server` (its process id) and `port`.
#                           Exits with the server's messages when it does not start.

catalogue_binary() {
  if [ -n "${CATALOGUE:-}" ]; then
    echo "$CATALOGUE"
    return
  fi
  local scratch=${SCRATCH_PATH:-$1/.build}
  # The build's last line says whether it worked; its status decides.
  (cd "$1" && swift build -c release --scratch-path "$scratch" --product catalogue 2>&1 | tail -1) >&2
  echo "$scratch/release/catalogue"
}

start_serve() {
  local out=$1 err=$2
  shift 2
  : >"$out"
  "$@" >"$out" 2>"$err" &
  server=$!
  for _ in $(seq 300); do
    grep -q '^Serving ' "$out" && break
    kill -0 "$server" 2>/dev/null || { cat "$err" >&2; echo "$(basename "$0"): the server did not start" >&2; exit 1; }
    sleep 0.1
  done
  port=$(sed -n 's|^Serving .* at http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$out")
  [ -n "$port" ] || { cat "$err" >&2; echo "$(basename "$0"): the server named no port" >&2; exit 1; }
}
