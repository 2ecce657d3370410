#!/usr/bin/env bash
# What `catalogue thumbnails --rebuild` costs beyond making thumbnails: on one core (taskset -c 0),
# the rebuild of a library holding the corpus' baseline JPEGs, against the pipeline alone
# (thumbnail-bench) and vipsthumbnail on the same files, and against openssl hashing them (the
# rebuild verifies every original against its SHA-256 before it trusts it). See
# Benchmarks/README.md. Needs hyperfine, libvips-tools, openssl and Benchmarks/make-corpus.sh's
# corpus.
#
#   Benchmarks/rebuild-bench.sh [RUNS] [CORPUS]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
runs=${1:-10}
corpus=${2:-$here/corpus}
[ -d "$corpus/baseline" ] || { echo "no corpus in $corpus: run Benchmarks/make-corpus.sh" >&2; exit 1; }
mapfile -t files < <(find "$corpus/baseline" -maxdepth 1 -name '*.jpg' | sort)

(cd "$root" && swift build -c release --product catalogue 2>&1 | tail -1)
(cd "$root" && swift build -c release --product thumbnail-bench 2>&1 | tail -1)
bin=$root/.build/release
out=$here/out/rebuild
library=$out/library
mkdir -p "$out/bench" "$out/vips"
if [ ! -f "$library/catalogue.sqlite" ]; then
  "$bin/catalogue" init "$library" >/dev/null
  id=$("$bin/catalogue" --library "$library" add --title Corpus --rating 3 --category other)
  "$bin/catalogue" --library "$library" attach "$id" "${files[@]}" >/dev/null
fi

list=$(printf '%q ' "${files[@]}")
hyperfine -N --warmup 2 --runs "$runs" --export-json "$out/timing.json" \
  -n rebuild "taskset -c 0 $bin/catalogue --library $library thumbnails --rebuild --size 256 --jobs 1" \
  -n pipeline "taskset -c 0 $bin/thumbnail-bench --jobs 1 --size 256 --quality 85 --out $out/bench $list" \
  -n vipsthumbnail "taskset -c 0 env VIPS_CONCURRENCY=1 vipsthumbnail --size 256x256> -o $out/vips/%s.jpg[Q=85,strip] $list" \
  -n sha256 "taskset -c 0 openssl dgst -sha256 $list" >"$out/run.log"

python3 - "$out/timing.json" "${#files[@]}" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
def line(name):
    r = results[name]
    cpu = r["user"] + r["system"]
    return f"{name:14} best {r['min']*1000:7.1f} ms   median {r['median']*1000:7.1f} ms   CPU {cpu*1000:7.1f} ms"
print(f"{sys.argv[2]} baseline JPEGs, one core, 256 px, Q85")
for name in ("rebuild", "pipeline", "vipsthumbnail", "sha256"):
    print(line(name))
best = {name: results[name]["min"] for name in results}
median = {name: results[name]["median"] for name in results}
print(f"rebuild / vipsthumbnail speed: {best['vipsthumbnail'] / best['rebuild']:.2f}x (best runs), "
      f"{median['vipsthumbnail'] / median['rebuild']:.2f}x (medians)")
print(f"rebuild beyond the pipeline: {(best['rebuild'] - best['pipeline'])*1000:.1f} ms, "
      f"of which hashing the originals is about {best['sha256']*1000:.1f} ms")
PY
