#!/usr/bin/env bash
# Kills `catalogue serve` with SIGKILL in the middle of 20 uploads, again and again, and checks
# after each kill that nothing was lost: `catalogue check` finds nothing but leftover files (which
# `check --repair` clears, after which check is healthy), no record points at a missing file,
# and every upload the server had answered 201 before it died is in the library.
#
#   Reliability/serve-kill.sh [RUNS] [UPLOADS]
#
# RUNS (default 10) kills; UPLOADS (default 20) pictures sent at once each time, photographs of
# 6 and 12 megapixels (2 to 4 MB) drawn by Benchmarks/serve/make-pictures.sh and made distinct by
# Benchmarks/serve/upload.py, one connection each. A first run without a kill times the uploads;
# each kill then comes at a random moment between 20% and 95% of that time (the first fifth is
# mostly the upload script starting). The server runs on every core, with its upload folder
# inside the scratch folder, so that what a kill leaves there is counted too. About a minute.
#
# CATALOGUE=/path/to/catalogue uses that binary; otherwise the release build is made (in
# SCRATCH_PATH, default .build).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
runs=${1:-10}
uploads=${2:-20}
tools=$root/Benchmarks/serve

# shellcheck source=../Benchmarks/serve/serve.sh
. "$root/Benchmarks/serve/serve.sh"
catalogue=$(catalogue_binary "$root")

work=$(mktemp -d "${TMPDIR:-/tmp}/serve-kill.XXXXXX")
server=
uploader=
cleanup() {
  [ -n "$uploader" ] && kill -KILL "$uploader" 2>/dev/null
  [ -n "$server" ] && kill -KILL "$server" 2>/dev/null
  rm -rf "$work"
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

library=$work/library
"$catalogue" init "$library" >/dev/null
head -c 24 /dev/urandom | base64 | "$catalogue" --library "$library" user add kill --password-stdin >/dev/null
"$catalogue" --library "$library" user token kill 2>/dev/null | grep '^cat_' >"$work/token"
"$tools/make-pictures.sh" "$work/pictures" 3000x2000 4000x3000
mkdir -p "$work/uploads"

# Starts the server on the library; sets `server` and `url`.
start_server() {
  start_serve "$work/server.out" "$1" "$catalogue" --library "$library" serve --port 0 --upload-folder "$work/uploads"
  url=http://127.0.0.1:$port
}

# Sends the run's pictures at once to a new review; with a delay in milliseconds, kills the
# server with SIGKILL that long after the uploads started. Sets `review`, and `batch_ms` to how
# long the uploads took.
upload_batch() {
  local run=$1 delay=${2:-}
  review=$(python3 "$tools/upload.py" review --server "$url" --token-file "$work/token" --title "Kill run $run")
  rm -rf "$work/batch"
  python3 "$tools/upload.py" variants --into "$work/batch" --tag "kill-$$-$run" --count "$uploads" "$work"/pictures/*.jpg
  : >"$work/answers-$run"
  local started
  started=$(date +%s%N)
  python3 "$tools/upload.py" parallel --server "$url" --token-file "$work/token" --review "$review" \
    --log "$work/answers-$run" "$work"/batch/*.jpg 2>"$work/uploader.err" &
  uploader=$!
  if [ -n "$delay" ]; then
    sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
    kill -KILL "$server"
    wait "$server" 2>/dev/null || true
    server=
  fi
  wait "$uploader" || { cat "$work/uploader.err" >&2; echo "serve-kill.sh: the upload script failed" >&2; exit 1; }
  uploader=
  batch_ms=$((($(date +%s%N) - started) / 1000000))
}

# The first run is not killed: how long do the uploads take?
start_server "$work/server-0.log"
upload_batch 0
whole_ms=$batch_ms
answered0=$(awk '$1 == 201' "$work/answers-0" | wc -l)
echo "$uploads uploads at once without a kill: $answered0 answered 201 in $whole_ms ms"
[ "$answered0" -eq "$uploads" ] || { cat "$work/answers-0" >&2; echo "serve-kill.sh: uploads failed without a kill" >&2; exit 1; }
kill -TERM "$server"
wait "$server" || { echo "serve-kill.sh: the server did not stop cleanly on SIGTERM" >&2; exit 1; }
server=

problems=0
lost=0
missing_files=0
unhealthy=0
leftovers=0
not_reclaimed=0
killed_folders=
total_answered=0
for ((run = 1; run <= runs; run++)); do
  start_server "$work/server-$run.log"
  for folder in $killed_folders; do
    [ -e "$folder" ] && not_reclaimed=$((not_reclaimed + 1))
  done
  killed_folders=
  delay=$((whole_ms * 20 / 100 + (RANDOM * 32768 + RANDOM) % (whole_ms * 75 / 100 + 1)))
  upload_batch "$run" "$delay"
  answered=$(awk '$1 == 201' "$work/answers-$run" | wc -l)
  total_answered=$((total_answered + answered))

  # What the kill left: only leftovers may be found; no record may point at a missing file; every
  # upload answered 201 must be there.
  "$catalogue" --library "$library" check --json >"$work/check.json" 2>"$work/check.err" || true
  read -r bad kinds < <(python3 - "$work/check.json" <<'PY'
import collections, json, sys
try:
    findings = json.load(open(sys.argv[1]))["findings"]
except (ValueError, KeyError):
    print(1, "check-gave-no-report")
    sys.exit()
kinds = collections.Counter(f["kind"] for f in findings)
bad = [f for f in findings if f["kind"] not in ("unreferenced-file", "temporary-file")]
for f in bad:
    print(f"  {f['kind']}: {f['target']}: {f['problem']}", file=sys.stderr)
print(len(bad), ",".join(f"{k}:{n}" for k, n in sorted(kinds.items())) or "none")
PY
  )
  read -r absent gone < <(python3 - "$catalogue" "$library" "$work"/answers-* <<'PY'
import json, os, subprocess, sys
catalogue, library, *answer_files = sys.argv[1:]
def run(*arguments):
    return json.loads(subprocess.run([catalogue, "--library", library, *arguments], capture_output=True,
                                     text=True, check=True).stdout)
absent = 0
present = set()
for summary in run("list", "--limit", "100000", "--json")["reviews"]:
    review = run("show", "--json", summary["id"])
    for image in review["images"]:
        present.add((review["id"], image["sha256"]))
        for path, size in ((image["original"], image["bytes"]), (image["thumbnail"], None)):
            full = os.path.join(library, path)
            if not os.path.isfile(full) or (size is not None and os.path.getsize(full) != size):
                absent += 1
                print(f"  {review['id']} picture {image['position']}: {path} is missing or cut short", file=sys.stderr)
gone = 0
for answers in answer_files:
    for line in open(answers):
        status, review, sha256 = line.split()[:3]
        if status == "201" and (review, sha256) not in present:
            gone += 1
            print(f"  upload {sha256[:12]} to {review} was answered 201 but is not there", file=sys.stderr)
print(absent, gone)
PY
  )
  # The killed server's folder (its process id, the parts it was receiving) stays until the
  # next server starts, which removes it.
  left=$(find "$work/uploads" -type f -name 'upload-*' | wc -l)
  leftovers=$((leftovers + left))
  killed_folders=$(find "$work/uploads" -mindepth 1 -maxdepth 1 -type d | sort)
  healthy=yes
  if ! "$catalogue" --library "$library" check --repair >/dev/null 2>&1 || ! "$catalogue" --library "$library" check >/dev/null 2>&1; then
    healthy=no
    unhealthy=$((unhealthy + 1))
  fi
  problems=$((problems + bad))
  missing_files=$((missing_files + absent))
  lost=$((lost + gone))
  printf 'run %2d: killed after %5d ms, %2d of %d answered 201; check found %s; %d problem(s), %d missing file(s), %d lost; %d upload file(s) left; healthy after repair: %s\n' \
    "$run" "$delay" "$answered" "$uploads" "$kinds" "$bad" "$absent" "$gone" "$left" "$healthy"
done

echo "runs: $runs; uploads answered 201 before a kill: $total_answered of $((runs * uploads))"
echo "problems found by check after a kill (other than leftover files): $problems"
echo "records pointing at a missing file: $missing_files"
echo "uploads answered 201 but lost: $lost"
echo "libraries not healthy after check --repair: $unhealthy"
# A last server removes the last kill's folder; stopped cleanly, it leaves none of its own.
start_server "$work/server-last.log"
for folder in $killed_folders; do
  [ -e "$folder" ] && not_reclaimed=$((not_reclaimed + 1))
done
kill -TERM "$server"
wait "$server" || { echo "serve-kill.sh: the last server did not stop cleanly on SIGTERM" >&2; exit 1; }
server=
remaining=$(find "$work/uploads" -mindepth 1 | wc -l)
echo "upload parts the kills left in the upload folder (outside the library): $leftovers"
echo "killed servers' upload folders the next server did not remove: $not_reclaimed; anything left at the end: $remaining"
[ "$problems" -eq 0 ] && [ "$missing_files" -eq 0 ] && [ "$lost" -eq 0 ] && [ "$unhealthy" -eq 0 ] \
  && [ "$not_reclaimed" -eq 0 ] && [ "$remaining" -eq 0 ]
