#!/usr/bin/env bash
# What colour management and 4:4:4 chroma cost: thumbnail-bench on one core (taskset -c 0) over
# the corpus' baseline JPEGs as they are (untagged) and with a Display P3 profile spliced into
# each (tagged: same pixels, an APP2 ICC_PROFILE segment), then over the PNG set with the
# thumbnails encoded 4:4:4 (what the pipeline chooses for PNG) and 4:2:0: time and bytes.
# See Benchmarks/README.md. Needs hyperfine, python3 and Benchmarks/make-corpus.sh's corpus.
#
#   Benchmarks/colour-bench.sh [RUNS] [CORPUS]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
runs=${1:-10}
corpus=${2:-$here/corpus}
[ -d "$corpus/baseline" ] || { echo "no corpus in $corpus: run Benchmarks/make-corpus.sh" >&2; exit 1; }
(cd "$root" && swift build -c release --product thumbnail-bench 2>&1 | tail -1)
bench=$root/.build/release/thumbnail-bench
out=$here/out/colour
mkdir -p "$out/tagged" "$out/thumbs"

# Tagged copies: the APP2 segment after APP0, as cameras and editors write it.
python3 - "$corpus/baseline" "$out/tagged" "$root/Fixtures/profiles/display-p3.icc" <<'PY'
import os, struct, sys
source, target, profile = sys.argv[1], sys.argv[2], open(sys.argv[3], "rb").read()
payload = b"ICC_PROFILE\x00\x01\x01" + profile
segment = b"\xff\xe2" + struct.pack(">H", len(payload) + 2) + payload
for name in sorted(os.listdir(source)):
    data = open(os.path.join(source, name), "rb").read()
    at = 2 + 2 + struct.unpack(">H", data[4:6])[0] if data[2:4] == b"\xff\xe0" else 2
    path = os.path.join(target, name)
    if not os.path.exists(path):
        open(path, "wb").write(data[:at] + segment + data[at:])
PY

mapfile -t untagged < <(find "$corpus/baseline" -maxdepth 1 -name '*.jpg' | sort)
mapfile -t tagged < <(find "$out/tagged" -maxdepth 1 -name '*.jpg' | sort)
mapfile -t pngs < <(find "$corpus/png" -maxdepth 1 -name '*.png' | sort)
run() { printf 'taskset -c 0 %q --jobs 1 --size 256 --quality 85 %s --out %q %s' "$bench" "$1" "$out/thumbs/$2" "$3"; }
list() { printf '%q ' "$@"; }
hyperfine -N --warmup 1 --runs "$runs" --export-json "$out/timing.json" \
  -n untagged "$(run "" untagged "$(list "${untagged[@]}")")" \
  -n tagged "$(run "" tagged "$(list "${tagged[@]}")")" \
  -n png-444 "$(run "--chroma 444" png-444 "$(list "${pngs[@]}")")" \
  -n png-420 "$(run "--chroma 420" png-420 "$(list "${pngs[@]}")")" \
  -n jpeg-444 "$(run "--chroma 444" jpeg-444 "$(list "${untagged[@]}")")" \
  -n jpeg-420 "$(run "--chroma 420" jpeg-420 "$(list "${untagged[@]}")")" >"$out/run.log"

python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
results = {r["command"]: r for r in json.load(open(os.path.join(out, "timing.json")))["results"]}
def size(name):
    folder = os.path.join(out, "thumbs", name)
    return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
print("one core, 256 px, Q85; best and median of the runs; thumbnail bytes of the set")
for name in ("untagged", "tagged", "png-444", "png-420", "jpeg-444", "jpeg-420"):
    r = results[name]
    print(f"{name:9} best {r['min']*1000:7.1f} ms  median {r['median']*1000:7.1f} ms  {size(name)/1024:8.1f} KiB")
u, t = results["untagged"], results["tagged"]
print(f"tagged / untagged: {t['min']/u['min']:.3f} (best), {t['median']/u['median']:.3f} (medians)")
for kind in ("png", "jpeg"):
    a, b = results[f"{kind}-444"], results[f"{kind}-420"]
    print(f"{kind}: 4:4:4 / 4:2:0 time {a['median']/b['median']:.3f} (medians), bytes {size(kind + '-444')/size(kind + '-420'):.3f}")
PY
