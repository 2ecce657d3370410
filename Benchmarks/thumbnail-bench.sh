#!/usr/bin/env bash
# Thumbnail benchmark: our thumbnailer (the thumbnail-bench executable) against
# vipsthumbnail, on the corpus made by make-corpus.sh. See Benchmarks/README.md.
#
#   Benchmarks/thumbnail-bench.sh [--sets baseline,progressive,png] [--runs N]
#                                 [--no-quality] [CORPUS]
#
# CORPUS defaults to Benchmarks/corpus. Results and thumbnails go to
# Benchmarks/out/. THUMBNAIL_BENCH=/path/to/executable skips the swift build and
# benchmarks that executable instead of .build/release/thumbnail-bench.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
out=$here/out

SIZE=256
JPEG_Q=85
CONVERT=/usr/bin/convert
IDENTIFY=/usr/bin/identify
GNU_TIME=/usr/bin/time

usage() { sed -n '2,10s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }
die() { echo "thumbnail-bench: $*" >&2; exit 1; }
say() { echo "$*" >&2; }

sets_arg=baseline,progressive,png
runs=3
quality=1
corpus=
while (($#)); do
  case $1 in
    --sets) [[ $# -ge 2 ]] || die "--sets needs a value"; sets_arg=$2; shift 2 ;;
    --sets=*) sets_arg=${1#*=}; shift ;;
    --runs) [[ $# -ge 2 ]] || die "--runs needs a value"; runs=$2; shift 2 ;;
    --runs=*) runs=${1#*=}; shift ;;
    --no-quality) quality=0; shift ;;
    -h | --help) usage; exit 0 ;;
    -*) usage >&2; die "unknown option $1" ;;
    *) [[ -z $corpus ]] || die "only one CORPUS directory"; corpus=$1; shift ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer"
corpus=${corpus:-$here/corpus}
[[ -d $corpus ]] || die "no corpus at $corpus (run Benchmarks/make-corpus.sh first)"
corpus=$(cd "$corpus" && pwd)
IFS=, read -r -a sets <<<"$sets_arg"
for s in "${sets[@]}"; do
  case $s in baseline | progressive | png | webp | heic | heic-thumb | avif) ;;
    *) die "unknown set '$s' (baseline, progressive, png; webp, heic, heic-thumb, avif from make-formats.sh)" ;;
  esac
done

for tool in vipsthumbnail hyperfine python3; do
  command -v "$tool" >/dev/null || die "$tool not found (see Benchmarks/README.md for the packages)"
done
[[ -x $CONVERT && -x $IDENTIFY ]] || die "ImageMagick not found at $CONVERT"
[[ -x $GNU_TIME ]] || die "GNU time not found at $GNU_TIME (apt-get install time)"

ncpu=$(nproc)
start_s=$SECONDS
mkdir -p "$out"
# Per-run files; the cached references (out/ref/) and source sizes (out/pixels.tsv) stay.
rm -rf "$out/timing" "$out/thumbs" "$out"/psnr-*.json "$out"/ours-*.std{out,err}
log=$out/run.log
: >"$log"
results=$out/results.tsv
printf 'set\tconfig\tstatus\tfiles\tmegapixels\tbest_s\tmedian_s\tcpu_pct\toutputs\n' >"$results"
rss=$out/rss.tsv
printf 'tool\tpeak_rss_kb\twall_s\tstatus\n' >"$rss"
: >"$out/notes.txt"
note() { echo "$*" >>"$out/notes.txt"; say "  note: $*"; }

# --- our executable --------------------------------------------------------
if [[ -n ${THUMBNAIL_BENCH:-} ]]; then
  ours=$THUMBNAIL_BENCH
  [[ -x $ours ]] || die "THUMBNAIL_BENCH=$ours is not an executable"
  say "ours: $ours (from THUMBNAIL_BENCH, not built)"
else
  command -v swift >/dev/null || die "swift not found (or set THUMBNAIL_BENCH)"
  say "building thumbnail-bench (swift build -c release) ..."
  if ! (cd "$root" && swift build -c release --product thumbnail-bench) >"$out/build.log" 2>&1; then
    tail -n 30 "$out/build.log" >&2
    die "swift build failed; full log in $out/build.log"
  fi
  ours=$root/.build/release/thumbnail-bench
  [[ -x $ours ]] || die "$ours missing after the build"
fi

# --- source sizes, cached per file (path, mtime) ----------------------------
pixcache=$out/pixels.tsv
declare -A pix=()
if [[ -f $pixcache ]]; then
  while IFS=$'\t' read -r p m w h; do pix[$p]="$m $w $h"; done <"$pixcache"
fi
# set_files SET -> fills the array `files`
set_files() {
  shopt -s nullglob nocaseglob
  files=("$corpus/$1"/*.jpg "$corpus/$1"/*.jpeg "$corpus/$1"/*.png "$corpus/$1"/*.webp "$corpus/$1"/*.heic "$corpus/$1"/*.avif)
  shopt -u nullglob nocaseglob
  if ((${#files[@]} > 0)); then mapfile -t files < <(printf '%s\n' "${files[@]}" | sort); fi
}
# set_megapixels FILE... -> prints the sum of width*height / 1e6, identifying only new or changed files
set_megapixels() {
  local f m stale=() w h
  for f in "$@"; do
    m=$(stat -c %Y "$f")
    [[ ${pix[$f]:-} == "$m "* ]] || stale+=("$f")
  done
  if ((${#stale[@]} > 0)); then
    local i=0
    while read -r w h; do
      f=${stale[i]}
      pix[$f]="$(stat -c %Y "$f") $w $h"
      i=$((i + 1))
    done < <("$IDENTIFY" -quiet -ping -format '%w %h\n' "${stale[@]/%/[0]}")
    ((i == ${#stale[@]})) || die "identify returned $i sizes for ${#stale[@]} files"
    for f in "${!pix[@]}"; do
      read -r m w h <<<"${pix[$f]}"
      printf '%s\t%s\t%s\t%s\n' "$f" "$m" "$w" "$h"
    done | sort >"$pixcache"
  fi
  for f in "$@"; do echo "${pix[$f]}"; done | awk '{ s += $2 * $3 } END { printf "%.3f\n", s / 1e6 }'
}

# --- timing ----------------------------------------------------------------
q() { printf '%q' "$1"; }
# bench SET CONFIG OUTDIR NFILES MP -- COMMAND...
# Times COMMAND (whole process, wall clock) RUNS times with hyperfine, emptying
# OUTDIR before each run, and appends a row to results.tsv.
bench() {
  local set=$1 cfg=$2 dir=$3 n=$4 mp=$5
  shift 6
  local json=$out/timing/$set-$cfg.json cmd
  cmd=$(printf '%q ' "$@")
  mkdir -p "$out/timing"
  echo "== $set $cfg: $cmd" >>"$log"
  if ! hyperfine --shell=bash --style=basic --runs "$runs" --export-json "$json" \
      --command-name "$set $cfg" --prepare "rm -rf $(q "$dir") && mkdir -p $(q "$dir")" \
      "$cmd" >>"$log" 2>&1; then
    printf '%s\t%s\tfailed\t%s\t%s\t\t\t\t\n' "$set" "$cfg" "$n" "$mp" >>"$results"
    say "  $cfg: FAILED (see $log)"
    failures=$((failures + 1))
    return 0
  fi
  local nout stats
  nout=$(find "$dir" -maxdepth 1 -type f | wc -l)
  stats=$(python3 - "$json" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"][0]
t = r["times"]
cpu = 100.0 * (r["user"] + r["system"]) / r["mean"] if r["mean"] > 0 else 0.0
print(f"{min(t):.4f}\t{statistics.median(t):.4f}\t{cpu:.0f}")
PY
)
  local status=ok
  ((nout == n)) || { status=incomplete; failures=$((failures + 1)); }
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$set" "$cfg" "$status" "$n" "$mp" "$stats" "$nout" >>"$results"
  local best=${stats%%$'\t'*}
  say "$(printf '  %-8s best %7.3f s  %6.1f img/s  %6.1f MP/s  %s/%s thumbnails' "$cfg" "$best" \
    "$(awk -v n="$n" -v t="$best" 'BEGIN { print n / t }')" \
    "$(awk -v m="$mp" -v t="$best" 'BEGIN { print m / t }')" "$nout" "$n")"
}

# same_outputs DIR_A DIR_B -> prints how many files differ (or are missing on one side)
same_outputs() {
  local a=$1 b=$2 d=0 name
  while read -r name; do
    cmp -s "$a/$name" "$b/$name" || d=$((d + 1))
  done < <({ ls -A "$a"; ls -A "$b"; } | sort -u)
  echo "$d"
}

failures=0
# Other work on the machine skews every figure: check that the CPUs are idle
# (over one second) and say so in the report when they are not.
cpu_busy() {
  local a b
  a=$(head -n1 /proc/stat)
  sleep 1
  b=$(head -n1 /proc/stat)
  # fields: cpu user nice system idle iowait irq softirq steal ...
  printf '%s\n%s\n' "$a" "$b" | awk '
    { idle[NR] = $5 + $6; total[NR] = 0; for (i = 2; i <= 9; i++) total[NR] += $i }
    END { dt = total[2] - total[1]; printf "%.0f\n", (dt > 0) ? 100 * (1 - (idle[2] - idle[1]) / dt) : 0 }'
}
busy=$(cpu_busy)
if ((busy > 10)); then
  note "the CPUs were ${busy}% busy with other work when the benchmark started: timings may be low"
fi
vips_version=$(vipsthumbnail --vips-version 2>/dev/null | head -n1 || true)
say "corpus: $corpus; sets: ${sets[*]}; $runs run(s) each; $ncpu core(s)"

for set in "${sets[@]}"; do
  set_files "$set"
  if ((${#files[@]} == 0)); then
    note "set $set: no images in $corpus/$set; skipped"
    continue
  fi
  n=${#files[@]}
  mp=$(set_megapixels "${files[@]}")
  say "$set: $n images, $mp MP"
  thumbs=$out/thumbs/$set
  rm -rf "$thumbs"
  mkdir -p "$thumbs"

  # One untimed run of ours on all cores: checks it works on this set (exit
  # status, one thumbnail per file), records its summary line, warms the page cache.
  ours_ok=1
  mkdir -p "$thumbs/check"
  if "$ours" --jobs "$ncpu" --size "$SIZE" --quality "$JPEG_Q" --out "$thumbs/check" "${files[@]}" \
      >"$out/ours-$set.stdout" 2>"$out/ours-$set.stderr"; then
    got=$(find "$thumbs/check" -maxdepth 1 -type f | wc -l)
    ((got == n)) || note "set $set: ours wrote $got thumbnails for $n files in its check run"
  else
    ours_ok=0
    failures=$((failures + 1))
    note "set $set: ours exited non-zero in its check run; not timed (stderr: $out/ours-$set.stderr)"
    tail -n 5 "$out/ours-$set.stderr" >&2 || true
    for cfg in ours-1 "ours-$ncpu"; do
      printf '%s\t%s\tfailed\t%s\t%s\t\t\t\t\n' "$set" "$cfg" "$n" "$mp" >>"$results"
    done
  fi
  rm -rf "$thumbs/check"

  if ((ours_ok)); then
    bench "$set" ours-1 "$thumbs/ours-1" "$n" "$mp" -- \
      taskset -c 0 "$ours" --jobs 1 --size "$SIZE" --quality "$JPEG_Q" --out "$thumbs/ours-1" "${files[@]}"
    if ((ncpu > 1)); then
      bench "$set" "ours-$ncpu" "$thumbs/ours-$ncpu" "$n" "$mp" -- \
        "$ours" --jobs "$ncpu" --size "$SIZE" --quality "$JPEG_Q" --out "$thumbs/ours-$ncpu" "${files[@]}"
    fi
  fi
  # vipsthumbnail: one process for the whole set; `-o` must be absolute (a
  # relative one is taken relative to each input's directory). The output is a
  # JPEG at Q85 without metadata whatever the input format. The 1-core rows are
  # pinned to CPU 0 with taskset: with VIPS_CONCURRENCY=1 vipsthumbnail still
  # encodes on a write-behind thread, and would otherwise use ~1.3 cores.
  bench "$set" vips-1 "$thumbs/vips-1" "$n" "$mp" -- \
    taskset -c 0 env VIPS_CONCURRENCY=1 vipsthumbnail --size "${SIZE}x${SIZE}>" \
    -o "$thumbs/vips-1/%s.jpg[Q=$JPEG_Q,strip]" "${files[@]}"
  if ((ncpu > 1)); then
    bench "$set" "vips-$ncpu" "$thumbs/vips-$ncpu" "$n" "$mp" -- \
      env -u VIPS_CONCURRENCY vipsthumbnail --size "${SIZE}x${SIZE}>" \
      -o "$thumbs/vips-$ncpu/%s.jpg[Q=$JPEG_Q,strip]" "${files[@]}"
  fi

  if ((ncpu > 1)); then
    for tool in ours vips; do
      [[ -d $thumbs/$tool-1 && -d $thumbs/$tool-$ncpu ]] || continue
      d=$(same_outputs "$thumbs/$tool-1" "$thumbs/$tool-$ncpu")
      ((d == 0)) || note "set $set: $tool wrote $d thumbnail(s) differing between 1 and $ncpu cores"
    done
  fi

  if ((quality)); then
    say "  scoring thumbnails (PSNR against ImageMagick Lanczos references) ..."
    cands=()
    ((ours_ok)) && cands+=("ours=$thumbs/ours-1")
    cands+=("vips=$thumbs/vips-1")
    python3 "$here/psnr.py" --sources "$corpus/$set" --refs "$out/ref/$set" --size "$SIZE" \
      --jobs "$ncpu" --json "$out/psnr-$set.json" "${cands[@]}" 2>>"$log" | sed 's/^/  /' >&2 ||
      note "set $set: PSNR scoring failed (see $log)"
  fi
done

# --- peak memory on one 20-megapixel JPEG -----------------------------------
big=$corpus/big/20mp.jpg
# peak_rss TOOL COMMAND... : median over RUNS of GNU time's %M (max RSS, KiB)
peak_rss() {
  local tool=$1 i vals=() status=ok
  shift
  for ((i = 0; i < runs; i++)); do
    rm -rf "$out/rss-out" && mkdir -p "$out/rss-out"
    if ! "$GNU_TIME" -f '%M %e' -o "$out/rss.time" "$@" >>"$log" 2>&1; then status=failed; fi
    vals+=("$(tail -n1 "$out/rss.time")")
  done
  local med
  med=$(printf '%s\n' "${vals[@]}" | sort -n | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }')
  printf '%s\t%s\t%s\t%s\n' "$tool" "${med%% *}" "${med##* }" "$status" >>"$rss"
  say "$(printf '  %-12s %6.0f MB peak RSS  (%s s)  %s' "$tool" "$(awk -v k="${med%% *}" 'BEGIN { print k / 1024 }')" "${med##* }" "$status")"
}
if [[ -f $big ]]; then
  say "peak memory, $(basename "$big") ($("$IDENTIFY" -ping -format '%wx%h' "$big")) -> ${SIZE} px:"
  echo "== peak RSS" >>"$log"
  peak_rss ours "$ours" --jobs 1 --size "$SIZE" --quality "$JPEG_Q" --out "$out/rss-out" "$big"
  peak_rss vipsthumbnail env VIPS_CONCURRENCY=1 vipsthumbnail --size "${SIZE}x${SIZE}>" \
    -o "$out/rss-out/%s.jpg[Q=$JPEG_Q,strip]" "$big"
  peak_rss imagemagick "$CONVERT" "$big" -thumbnail "${SIZE}x${SIZE}" "$out/rss-out/20mp.jpg"
  rm -rf "$out/rss-out" "$out/rss.time"
else
  note "no $big; peak-memory figures skipped"
fi

# --- report ----------------------------------------------------------------
elapsed=$((SECONDS - start_s))
cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
[[ -n $cpu_model ]] || cpu_model=$(uname -m)
python3 - "$out" "$ncpu" "$runs" "$SIZE" "$JPEG_Q" "$cpu_model" "$vips_version" \
  "$elapsed" "${sets[@]}" <<'PY' | tee "$out/summary.txt"
import csv, json, os, sys

out, ncpu, runs, size, q, cpu_model, vips_version, elapsed = sys.argv[1:9]
sets = sys.argv[9:]
ncpu = int(ncpu)

rows = {}
with open(os.path.join(out, "results.tsv")) as f:
    for r in csv.DictReader(f, delimiter="\t"):
        rows[(r["set"], r["config"])] = r
sets = [s for s in sets if any(k[0] == s for k in rows)]

def best(s, cfg):
    r = rows.get((s, cfg))
    if not r or r["status"] == "failed" or not r["best_s"]:
        return None
    return float(r["best_s"])

def rate(s, cfg):
    r, t = rows.get((s, cfg)), best(s, cfg)
    if t is None:
        return None
    return int(r["files"]) / t, float(r["megapixels"]) / t

psnr = {}
for s in sets:
    p = os.path.join(out, f"psnr-{s}.json")
    if os.path.exists(p):
        psnr[s] = json.load(open(p))["summary"]

configs = [("ours-1", "ours, 1 core")]
if ncpu > 1:
    configs.append((f"ours-{ncpu}", f"ours, {ncpu} cores"))
configs.append(("vips-1", "vipsthumbnail, 1 core"))
if ncpu > 1:
    configs.append((f"vips-{ncpu}", f"vipsthumbnail, {ncpu} cores"))

def ratio(a, b):
    return f"{a / b:.2f}x" if a and b else "n/a"

print()
print("== details")
for s in sets:
    print(f"{s}:")
    for cfg, label in configs:
        r = rows.get((s, cfg))
        if not r:
            continue
        if r["status"] == "failed":
            print(f"  {label:<26} FAILED")
            continue
        n, mp = int(r["files"]), float(r["megapixels"])
        t, med = float(r["best_s"]), float(r["median_s"])
        extra = "" if r["status"] == "ok" else f"  ({r['outputs']}/{n} thumbnails!)"
        print(f"  {label:<26} best {t:7.3f} s  median {med:7.3f} s  {n / t:7.1f} img/s  {mp / t:7.1f} MP/s"
              f"  CPU {r['cpu_pct']:>3}%{extra}")
    t1, tv = best(s, "ours-1"), best(s, "vips-1")
    check = os.path.join(out, f"ours-{s}.stdout")
    if os.path.exists(check) and os.path.getsize(check):
        print(f"  ours' check run ({ncpu} jobs) printed: {open(check).readline().strip()}")
    print(f"  ours/vips, 1 core: {ratio(tv, t1)} (throughput; >1 = ours faster)")
    if ncpu > 1:
        print(f"  ours {ncpu} cores/1 core: {ratio(t1, best(s, f'ours-{ncpu}'))}"
              f"   vips {ncpu} cores/1 core: {ratio(tv, best(s, f'vips-{ncpu}'))}")
    for tool, sm in psnr.get(s, {}).items():
        mean = f"{sm['mean_psnr']:.2f}" if sm["mean_psnr"] is not None else "n/a"
        low = f"{sm['min_psnr']:.2f} ({sm['min_name']})" if sm["min_psnr"] is not None else "n/a"
        print(f"  PSNR {tool}: mean {mean} dB, min {low}; resized to the reference size: "
              f"{sm['resized']}/{sm['scored']}; missing: {sm['missing']}")

rss = {}
with open(os.path.join(out, "rss.tsv")) as f:
    for r in csv.DictReader(f, delimiter="\t"):
        rss[r["tool"]] = r

notes = open(os.path.join(out, "notes.txt")).read().split("\n")
notes = [n for n in notes if n]

# Compact table for a note.
print()
print("== summary")
head = f"| {size} px, JPEG Q{q}, best of {runs} | " + " | ".join(sets) + " |"
print(head)
print("|---" * (len(sets) + 1) + "|")
cells = []
for s in sets:
    r = next(rows[k] for k in rows if k[0] == s)
    cells.append(f"{r['files']} / {float(r['megapixels']):.0f}")
print("| photos / megapixels | " + " | ".join(cells) + " |")
for cfg, label in configs:
    vals = []
    for s in sets:
        rt = rate(s, cfg)
        vals.append(f"{rt[0]:.1f} img/s, {rt[1]:.0f} MP/s" if rt else "n/a")
    print(f"| {label} | " + " | ".join(vals) + " |")
print("| ours/vips, 1 core | " + " | ".join(ratio(best(s, "vips-1"), best(s, "ours-1")) for s in sets) + " |")
if ncpu > 1:
    print(f"| ours {ncpu} cores/1 core | "
          + " | ".join(ratio(best(s, "ours-1"), best(s, f"ours-{ncpu}")) for s in sets) + " |")
if psnr:
    def ps(s, tool):
        sm = psnr.get(s, {}).get(tool)
        return f"{sm['mean_psnr']:.2f}" if sm and sm["mean_psnr"] is not None else "n/a"
    print("| mean PSNR ours / vips (dB) | " + " | ".join(f"{ps(s, 'ours')} / {ps(s, 'vips')}" for s in sets) + " |")
print()
if rss:
    def mb(tool):
        r = rss.get(tool)
        if not r or r["status"] != "ok":
            return "failed"
        return f"{int(r['peak_rss_kb']) / 1024:.0f} MB"
    print(f"Peak RSS, 20mp.jpg (5472x3648) -> {size} px: ours {mb('ours')}, "
          f"vipsthumbnail {mb('vipsthumbnail')} (1 thread), ImageMagick convert -thumbnail {mb('imagemagick')}")
print(f"Machine: nproc {ncpu}, CPU: {cpu_model}; {vips_version or 'vips ?'}")
print(f"Benchmark wall time: {int(elapsed) // 60} min {int(elapsed) % 60} s")
for n in notes:
    print(f"Note: {n}")
PY

if ((failures > 0)); then
  say "thumbnail-bench: $failures failure(s); see $log"
  exit 1
fi
