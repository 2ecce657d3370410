#!/usr/bin/env bash
# Load benchmark of `catalogue serve` on a library of 100,000 reviews with pictures: the server
# pinned to one core, wrk (and the upload script) on the other: thumbnails, the grid page and a
# search page (asked again and again, and many distinct ones in turn), then thumbnails and grid
# pages while a script uploads pictures. See Benchmarks/README.md.
#
#   Benchmarks/serve-bench.sh [--duration S] [--connections N] [--page-connections N]
#                             [--reviews N] [--covers N] [--drafts N] [--scratch-path DIR] [--no-build]
#
# --duration S           seconds of each measured wrk run (default 20)
# --connections N        wrk's connections for thumbnails, all from one thread (default 50)
# --page-connections N   wrk's connections for the grid and search pages (default 10)
# --reviews N            reviews in the library (default 100000)
# --covers N             distinct cover pictures the reviews share (default 1000)
# --drafts N             make every Nth review of this run's copy a draft, which readers' pages
#                        and searches then leave out (default 0: none, every review published)
# --scratch-path DIR     the swift build folder (default .build); CATALOGUE=/path/to/catalogue
#                        and CATALOGUE_BENCH=/path/to/catalogue-bench use those binaries, unbuilt
#
# Made once and kept in Benchmarks/out/serve/ (git-ignored): the library (made in /dev/shm
# when it has room, where fsync costs nothing, then copied), with a reviewer `bench` and an API
# token, and the photographs the upload script sends. Each run works on a fresh copy of the
# library, so every run starts from the same one. Beside the server, the same thumbnail is
# served by serve/static-file.c (libmicrohttpd and nothing else, in C) as a yardstick for what
# the machine gives. Exits non-zero when a figure misses its target or anything failed;
# everything it started is stopped when it ends, however it ends.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
duration=20
connections=50
page_connections=10
reviews=100000
covers=1000
drafts=0
scratch=$root/.build
build=1
while [ $# -gt 0 ]; do
  case $1 in
    --duration) duration=$2; shift 2 ;;
    --connections) connections=$2; shift 2 ;;
    --page-connections) page_connections=$2; shift 2 ;;
    --reviews) reviews=$2; shift 2 ;;
    --covers) covers=$2; shift 2 ;;
    --drafts) drafts=$2; shift 2 ;;
    --scratch-path) scratch=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    *) echo "serve-bench.sh: unknown argument $1 (see the head of the script)" >&2; exit 2 ;;
  esac
done
for tool in wrk taskset python3 sqlite3 /usr/bin/convert; do
  command -v "$tool" >/dev/null || { echo "serve-bench.sh: needs $tool (see Benchmarks/README.md)" >&2; exit 2; }
done
[ "$(nproc --all)" -ge 2 ] || { echo "serve-bench.sh: needs two cores (server on one, load on the other)" >&2; exit 2; }

case $scratch in /*) ;; *) scratch=$root/$scratch ;; esac
out=$root/Benchmarks/out/serve
run=$out/run
mkdir -p "$out"

# --- Build ----------------------------------------------------------------------------------
catalogue=${CATALOGUE:-}
bench=${CATALOGUE_BENCH:-}
if [ -z "$catalogue" ] || [ -z "$bench" ]; then
  if [ "$build" = 1 ]; then
    echo "building (release) in $scratch ..."
    (cd "$root" && swift build -c release --scratch-path "$scratch" --product catalogue >"$out/build.log" 2>&1 &&
      swift build -c release --scratch-path "$scratch" --product catalogue-bench >>"$out/build.log" 2>&1) ||
      { tail -20 "$out/build.log" >&2; echo "serve-bench.sh: the build failed ($out/build.log)" >&2; exit 1; }
  fi
  catalogue=${catalogue:-$scratch/release/catalogue}
  bench=${bench:-$scratch/release/catalogue-bench}
fi

# --- Everything started here is stopped on the way out -----------------------------------------
server=
yardstick=
uploader=
stage=
cleanup() {
  [ -n "$uploader" ] && kill -KILL "$uploader" 2>/dev/null
  [ -n "$server" ] && kill -KILL "$server" 2>/dev/null
  [ -n "$yardstick" ] && kill -KILL "$yardstick" 2>/dev/null
  [ -n "$stage" ] && rm -rf "$stage"
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- The library, made once -----------------------------------------------------------------
# Named by the schema too: a library made by an older schema would lack its indexes.
schema=$(sha256sum "$root/Sources/Catalogue/Library/Schema.swift" | cut -c1-8)
pristine=$out/library-$reviews-$covers-$schema
if [ ! -f "$pristine/catalogue.sqlite" ] || [ ! -s "$pristine.token" ]; then
  rm -rf "$pristine" "$pristine.token"
  where=$out
  # About 1 KiB a review and 160 KiB a cover picture, with room to spare.
  need=$(((reviews * 3 + covers * 400) / 1024 + 200))
  if [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$(df -Pm /dev/shm | awk 'NR == 2 { print $4 }')" -gt "$need" ]; then
    where=/dev/shm
  fi
  stage=$(mktemp -d "$where/serve-bench-library.XXXXXX")
  echo "making the library ($reviews reviews, $covers cover pictures) in $stage ..."
  "$bench" --reviews "$reviews" --covers "$covers" --make-only --library "$stage/library"
  head -c 24 /dev/urandom | base64 | "$catalogue" --library "$stage/library" user add bench --password-stdin >/dev/null
  "$catalogue" --library "$stage/library" user token bench 2>/dev/null | grep '^cat_' >"$stage/token"
  cp -a "$stage/library" "$pristine.partial"
  mv "$pristine.partial" "$pristine"
  mv "$stage/token" "$pristine.token"
  rm -rf "$stage"
  stage=
fi
"$here/serve/make-pictures.sh" "$out/pictures"

# --- A fresh copy for this run ----------------------------------------------------------------
rm -rf "$run"
mkdir -p "$run"
cp -a "$pristine" "$run/library"
if [ "$drafts" -gt 0 ]; then
  # As `catalogue edit --draft` leaves a review (the search index is not touched by it).
  sqlite3 "$run/library/catalogue.sqlite" \
    "UPDATE reviews SET draft = 1, published = NULL WHERE seq % $drafts = 0" >/dev/null
  echo "drafts: every ${drafts}th review of this run's library is a draft"
fi
library=$run/library
cp "$pristine.token" "$run/token"

# Paths for wrk: one thumbnail; every thumbnail (the covers of the grid's pages); the grid; a
# search for the word in closest to one review in twenty (from the full-text index's
# vocabulary). The server keeps readers' pages until the library changes, so a page asked again
# is answered from memory; the other lists ask for more distinct pages than it keeps (a few
# MiB), in turn, so that each is made afresh: the grid's first 300 pages (newest first), the
# grid under every sort, category and minimum of stars (8 x 8 x 6 first pages), and searches
# for the 200 words closest to that frequency.
find "$library/thumbnails" -type f -name '*.jpg' | sort | sed "s|^$library/thumbnails/[0-9a-f][0-9a-f]/|/thumbnails/|" >"$run/thumbnails.txt"
head -1 "$run/thumbnails.txt" >"$run/thumbnail.txt"
echo / >"$run/grid.txt"
grid_pages=$((reviews / 50 < 300 ? (reviews + 49) / 50 : 300))
seq 1 "$grid_pages" | sed 's|^|/?page=|' >"$run/grid-pages.txt"
vocabulary="CREATE VIRTUAL TABLE temp.vocabulary USING fts5vocab(main, 'reviews_fts', 'row');
  SELECT term, doc FROM temp.vocabulary WHERE term NOT GLOB '*[^a-z]*' ORDER BY abs(doc - $((reviews / 20))), term"
read -r word matches < <(sqlite3 -readonly -separator ' ' "$library/catalogue.sqlite" "$vocabulary LIMIT 1;")
echo "/?q=$word" >"$run/search.txt"
sqlite3 -readonly -separator ' ' "$library/catalogue.sqlite" "$vocabulary LIMIT 200;" >"$run/words.txt"
awk '{ print "/?q=" $1 }' "$run/words.txt" >"$run/search-mix.txt"
read -r fewest most < <(awk 'NR == 1 || $2 < min { min = $2 } $2 > max { max = $2 } END { print min, max }' "$run/words.txt")
mapfile -t categories < <(sqlite3 -readonly "$library/catalogue.sqlite" "SELECT DISTINCT category FROM reviews ORDER BY 1;")
for sort in newest oldest title title-desc rating rating-asc updated ""; do
  for category in "" "${categories[@]}"; do
    for stars in "" 1 2 3 4 5; do
      query=""
      [ -n "$sort" ] && query="$query&sort=$sort"
      [ -n "$category" ] && query="$query&category=$category"
      [ -n "$stars" ] && query="$query&min=$stars"
      echo "/?${query#&}"
    done
  done
done | sed 's|^/?$|/?view=grid|' >"$run/grid-mix.txt"

# --- The machine before we start -------------------------------------------------------------
busy=$(python3 - <<'PY'
import time
def sample():
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return sum(fields), fields[3] + fields[4]
t0, i0 = sample(); time.sleep(1); t1, i1 = sample()
print(round(100 * (1 - (i1 - i0) / max(1, t1 - t0))))
PY
)

results=$run/results.tsv
printf 'name\tconnections\trequests_per_s\tp50_ms\tp99_ms\tmax_ms\tfailed\tnot_200\tserver_cpu_pct\tcpu_us\tserver_p50_ms\n' >"$results"
ticks_per_second=$(getconf CLK_TCK)

# run_wrk NAME PATHS SECONDS CONNECTIONS [record]: wrk over the paths against $url; with
# `record`, a row of the results. Failures: wrk's socket errors and statuses over 399, and every
# GET $log shows in the meantime with another status than 200 (but for the requests wrk left
# unanswered as it stopped, one a connection at most). The CPU time is $pid's; the
# server's own median time on a request (made afresh, or given from memory) is from $log.
run_wrk() {
  local name=$1 paths=$2 seconds=$3 connections=$4 record=${5:-}
  local before after ticks_before ticks_after not_200 aborted server_p50
  before=$(wc -l <"$log")
  ticks_before=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  taskset -c 1 wrk -t1 -c"$connections" -d"${seconds}s" --timeout 10s --latency -s "$here/serve/urls.lua" \
    "$url" -- "$paths" >"$run/wrk-$name.txt" 2>&1 || { cat "$run/wrk-$name.txt" >&2; return 1; }
  ticks_after=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  after=$(wc -l <"$log")
  # A request wrk gave up on as its run ended (one a connection at most) is logged "aborted":
  # the client went away, nothing failed. More than that would be aborts during the run.
  not_200=$(sed -n "$((before + 1)),${after}p" "$log" | awk '$3 == "GET" && $5 != 200 && $NF != "aborted"' | wc -l)
  aborted=$(sed -n "$((before + 1)),${after}p" "$log" | awk '$3 == "GET" && $NF == "aborted"' | wc -l)
  [ "$aborted" -le "$connections" ] || not_200=$((not_200 + aborted))
  server_p50=$(sed -n "$((before + 1)),${after}p" "$log" | awk '$3 == "GET" { sub(/ms$/, "", $7); print $7 }' |
    sort -n | awk '{ a[NR] = $1 } END { print NR ? a[int((NR + 1) / 2)] : 0 }')
  [ -n "$record" ] || return 0
  python3 - "$run/wrk-$name.txt" "$name" "$connections" "$not_200" "$((ticks_after - ticks_before))" \
    "$ticks_per_second" "$server_p50" >>"$results" <<'PY'
import sys
path, name, connections, not_200, ticks, per_second, server_p50 = sys.argv[1:]
line = next(l for l in open(path) if l.startswith("FIGURES "))
f = {k: float(v) for k, v in (kv.split("=") for kv in line.split()[1:])}
seconds = f["duration_us"] / 1e6
failed = int(f["connect"] + f["read"] + f["write"] + f["status"] + f["timeout"])
cpu_seconds = int(ticks) / int(per_second)
print(f"{name}\t{connections}\t{f['requests'] / seconds:.0f}\t{f['p50_us'] / 1000:.2f}\t{f['p99_us'] / 1000:.2f}\t"
      f"{f['max_us'] / 1000:.1f}\t{failed}\t{not_200}\t{100 * cpu_seconds / seconds:.0f}\t"
      f"{1e6 * cpu_seconds / max(1, f['requests']):.0f}\t{server_p50}")
PY
}

# wait_for_line FILE PID: waits until FILE has its first line, or fails if PID ends first.
wait_for_line() {
  for _ in $(seq 600); do
    [ -s "$1" ] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

echo "cores busy before the start: $busy%"

# --- The yardstick: the same thumbnail from libmicrohttpd alone ---------------------------------
if command -v cc >/dev/null && pkg-config --exists libmicrohttpd; then
  cc -O2 -o "$out/static-file" "$here/serve/static-file.c" $(pkg-config --cflags --libs libmicrohttpd)
  thumbnail_file=$library/thumbnails/$(sed 's|^/thumbnails/\(..\)|\1/\1|' "$run/thumbnail.txt")
  taskset -c 0 "$out/static-file" "$thumbnail_file" >"$run/static-file.out" 2>"$run/static-file.log" &
  yardstick=$!
  wait_for_line "$run/static-file.out" "$yardstick" || { echo "serve-bench.sh: static-file did not start" >&2; exit 1; }
  url=http://127.0.0.1:$(awk '{ print $3 }' "$run/static-file.out")
  pid=$yardstick
  log=$run/static-file.log
  echo "run: the yardstick (libmicrohttpd alone, in C) ..."
  run_wrk warm-yardstick "$run/thumbnail.txt" 3 "$connections"
  run_wrk yardstick "$run/thumbnail.txt" "$duration" "$connections" record
  kill -TERM "$yardstick"
  wait "$yardstick" || true
  yardstick=
fi

# --- The server -----------------------------------------------------------------------------
taskset -c 0 "$catalogue" --library "$library" serve --port 0 >"$run/server.out" 2>"$run/server.log" &
server=$!
wait_for_line "$run/server.out" "$server" || { cat "$run/server.log" >&2; echo "serve-bench.sh: the server did not start" >&2; exit 1; }
port=$(sed -n 's|^Serving .* at http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$run/server.out")
[ -n "$port" ] || { echo "serve-bench.sh: no port in $(cat "$run/server.out")" >&2; exit 1; }
url=http://127.0.0.1:$port
pid=$server
log=$run/server.log
echo "server: pid $server on core 0, $url; library $library ($reviews reviews, $(wc -l <"$run/thumbnails.txt") thumbnails)"
echo "search: /?q=$word ($matches reviews); wrk: 1 thread on core 1, ${duration}s a run"

# --- Warm-up: the files into the page cache, the server's code and the database's pages in ----
echo "warming up ..."
cat "$library"/thumbnails/*/* >/dev/null
run_wrk warm-thumbnails "$run/thumbnails.txt" 3 "$connections"
for paths in grid grid-pages grid-mix search search-mix; do
  run_wrk "warm-$paths" "$run/$paths.txt" 3 "$page_connections"
done

# --- Measured runs --------------------------------------------------------------------------
for paths in thumbnail thumbnails; do
  echo "run: $paths ..."
  run_wrk "$paths" "$run/$paths.txt" "$duration" "$connections" record
done
for paths in grid grid-pages grid-mix search search-mix; do
  echo "run: $paths ..."
  run_wrk "$paths" "$run/$paths.txt" "$duration" "$page_connections" record
done

# The same while a script uploads pictures (one after another, each a photograph of 2 to 12
# megapixels made distinct), from core 1 too.
echo "run: thumbnails and grid pages while uploading ..."
rm -f "$run/stop-uploads"
: >"$run/uploads.log"
taskset -c 1 python3 "$here/serve/upload.py" loop --server "$url" --token-file "$run/token" \
  --pictures "$out/pictures" --log "$run/uploads.log" --stop "$run/stop-uploads" --tag "bench-$$" \
  >"$run/uploader.out" 2>&1 &
uploader=$!
wait_for_line "$run/uploads.log" "$uploader" ||
  { cat "$run/uploader.out" >&2; echo "serve-bench.sh: the upload script did not start" >&2; exit 1; }
run_wrk "thumbnails-uploading" "$run/thumbnails.txt" "$duration" "$connections" record
run_wrk "grid-uploading" "$run/grid.txt" "$duration" "$page_connections" record
run_wrk "grid-pages-uploading" "$run/grid-pages.txt" "$duration" "$page_connections" record
touch "$run/stop-uploads"
uploader_status=0
wait "$uploader" || uploader_status=$?
uploader=
# Requests of the upload script the server answered with another status than 201.
uploads_refused=$(awk '$3 == "POST" && $5 != 201' "$run/server.log" | wc -l)

# --- Memory, then a clean stop ----------------------------------------------------------------
# Resident memory as the kernel counts it, and what it is made of: anonymous memory (the
# heap, stacks), and files mapped (the code, and SQLite's memory-mapped reads of the database).
read -r rss_kib hwm_kib anon_kib file_kib < <(awk '
  /^VmRSS:/ { rss = $2 } /^VmHWM:/ { hwm = $2 } /^RssAnon:/ { anon = $2 } /^RssFile:/ { file = $2 }
  END { print rss, hwm, anon, file }' "/proc/$server/status")
database_kib=$(awk -v db="$library/catalogue.sqlite" '
  /^[0-9a-f]+-[0-9a-f]+ / { mapped = ($6 == db) } /^Rss:/ && mapped { total += $2 } END { print total + 0 }' \
  "/proc/$server/smaps")
stop_started=$(date +%s.%N)
kill -TERM "$server"
for _ in $(seq 450); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$server" 2>/dev/null; then
  kill -KILL "$server"
  wait "$server" || true
  server_status="killed (still running after 45 s)"
else
  wait "$server" && server_status=0 || server_status=$?
fi
server=
stop_seconds=$(python3 -c "import time, sys; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$stop_started")

# --- Every upload answered 201 is in the library; the library is healthy -------------------------
"$catalogue" --library "$library" check >"$run/check.txt" 2>&1 && check_status=0 || check_status=$?
python3 - "$run/uploads.log" "$catalogue" "$library" >"$run/uploads.txt" <<'PY'
import json, subprocess, sys
log, catalogue, library = sys.argv[1:]
answered = {}
failed = []
for line in open(log):
    status, review, sha256 = line.split()[:3]
    if status == "201":
        answered.setdefault(review, []).append(sha256)
    else:
        failed.append(line.strip())
lost = 0
for review, hashes in answered.items():
    shown = subprocess.run([catalogue, "--library", library, "show", "--json", review], capture_output=True, text=True)
    present = {image["sha256"] for image in json.loads(shown.stdout)["images"]} if shown.returncode == 0 else set()
    lost += sum(1 for h in hashes if h not in present)
print(sum(len(h) for h in answered.values()), len(failed), lost)
for line in failed[:5]:
    print("failed upload:", line, file=sys.stderr)
PY
read -r uploads_ok uploads_failed uploads_lost <"$run/uploads.txt"
upload_seconds=$(awk '{ total += $5 } END { printf "%.0f", total / 1000 }' "$run/uploads.log")
upload_median_ms=$(awk '$1 == 201 { print $5 }' "$run/uploads.log" | sort -n |
  awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print 0 }')

# --- The report -----------------------------------------------------------------------------
report_status=0
python3 - "$results" "$busy" "$word" "$matches" "$duration" "$(wc -l <"$run/grid-mix.txt")" \
  "$(wc -l <"$run/search-mix.txt")" "$fewest" "$most" "$grid_pages" <<'PY' >"$run/summary.txt" || report_status=$?
import sys
results, busy, word, matches, duration, combinations, words, fewest, most, pages = sys.argv[1:]
rows = {}
lines = open(results).read().split("\n")
header = lines[0].split("\t")
for line in lines[1:]:
    if line:
        values = dict(zip(header, line.split("\t")))
        rows[values["name"]] = values
runs = [
    ("yardstick", "yardstick: one thumbnail from libmicrohttpd alone (C)", None, None),
    ("thumbnail", "one thumbnail, again and again", 10000, 10),
    ("thumbnails", "every thumbnail in turn", 10000, 10),
    ("grid", "the grid page (/, 50 covers), again and again", 1000, 20),
    ("grid-pages", f"the grid's pages 1-{pages} in turn", 1000, 20),
    ("grid-mix", f"{combinations} first pages in turn: every sort x category x stars", None, None),
    ("search", f"a search page (/?q={word}, {matches} matches), again and again", None, 50),
    ("search-mix", f"searches for {words} words in turn ({fewest}-{most} matches each)", None, 50),
    ("thumbnails-uploading", "every thumbnail, while uploading", 10000, 10),
    ("grid-uploading", "the grid page, while uploading", 1000, 20),
    ("grid-pages-uploading", f"the grid's pages 1-{pages} in turn, while uploading", 1000, 20),
]
misses = 0
print(f"wrk: 1 thread on core 1, {duration} s a run; the server on core 0 (taskset)")
print(f"cores busy before the start: {busy}% (other work on the machine skews every figure)")
print()
print("| run | conns | responses/s | target | p50 ms | p99 ms | target | max ms | failed | server CPU % "
      "| CPU µs/response | server p50 ms |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for name, title, rate_target, p99_target in runs:
    row = rows.get(name)
    if row is None:
        if name != "yardstick":
            print(f"| {title} | | (not run) | | | | | | | | | |")
            misses += 1
        continue
    rate = float(row["requests_per_s"]); p99 = float(row["p99_ms"])
    failed = int(row["failed"]) + int(row["not_200"])
    rate_ok = rate_target is None or rate >= rate_target
    p99_ok = p99_target is None or p99 <= p99_target
    if name != "yardstick" and not (rate_ok and p99_ok and failed == 0):
        misses += 1
    mark = lambda ok: "" if ok else " ✗"
    rate_text = "" if rate_target is None else f"≥ {rate_target:,}"
    p99_text = "" if p99_target is None else f"≤ {p99_target}"
    print(f"| {title} | {row['connections']} | {rate:,.0f}{mark(rate_ok)} | {rate_text} | {row['p50_ms']} "
          f"| {p99:.2f}{mark(p99_ok)} | {p99_text} | {row['max_ms']} | {failed}{mark(failed == 0)} "
          f"| {row['server_cpu_pct']} | {row['cpu_us']} | {row['server_p50_ms']} |")
sys.exit(misses)
PY
misses=$report_status
{
  echo
  verdict() { # verdict 1|"" TEXT
    if [ "$1" = 1 ]; then echo "  ok    $2"; else echo "  MISS  $2"; misses=$((misses + 1)); fi
  }
  verdict "$([ "$uploads_ok" -gt 0 ] && echo 1)" \
    "uploads answered 201 during the loaded runs: $uploads_ok (median $upload_median_ms ms each, $upload_seconds s uploading)"
  verdict "$([ "$uploads_failed" -eq 0 ] && [ "$uploads_refused" -eq 0 ] && [ "$uploader_status" -eq 0 ] && echo 1)" \
    "uploads that failed: $uploads_failed by the script's count, $uploads_refused by the server's log (target 0)"
  verdict "$([ "$uploads_lost" -eq 0 ] && echo 1)" "uploads answered 201 but not in the library: $uploads_lost (target 0)"
  verdict "$([ "$rss_kib" -le $((64 * 1024)) ] && echo 1)" \
    "$(awk -v rss="$rss_kib" -v hwm="$hwm_kib" -v anon="$anon_kib" -v file="$file_kib" -v db="$database_kib" 'BEGIN {
      printf "server RSS after the load: %.1f MiB (target ≤ 64; peak %.1f MiB): anonymous %.1f MiB, files mapped %.1f MiB, of which the database %.1f MiB",
        rss / 1024, hwm / 1024, anon / 1024, file / 1024, db / 1024 }')"
  verdict "$([ "$server_status" = 0 ] && echo 1)" "SIGTERM: exit status $server_status after $stop_seconds s (target 0)"
  verdict "$([ "$check_status" = 0 ] && echo 1)" "catalogue check: exit status $check_status: $(tail -1 "$run/check.txt")"
  echo
  if [ "$misses" -eq 0 ]; then echo "all targets met"; else echo "$misses target(s) missed"; fi
} >>"$run/summary.txt"
cat "$run/summary.txt"
echo "(details in $run: wrk-*.txt, server.log, uploads.log, check.txt, results.tsv, summary.txt)"
[ "$misses" -eq 0 ]
