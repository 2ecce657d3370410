#!/usr/bin/env bash
# Several catalogue processes writing one library at once: two and then four importers of
# different photos, then one importer while another process lists and checks. Afterwards
# every import that reported success must be there, once, and no command may have failed
# with "database is locked".
#
#   Reliability/concurrency.sh [REVIEWS_PER_WRITER] [PHOTOS_FOLDER]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
per_writer=${1:-12}
photos=${2:-$root/Benchmarks/corpus/baseline}
[ -d "$photos" ] || photos=$root/Fixtures/images

catalogue=${CATALOGUE:-}
if [ -z "$catalogue" ]; then
  # The build's last line says whether it worked ("Build of product 'catalogue' complete!");
  # its status decides.
  (cd "$root" && swift build -c release --product catalogue 2>&1 | tail -1)
  catalogue=$root/.build/release/catalogue
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/concurrency.XXXXXX")
trap 'rm -rf "$work"' EXIT
mapfile -t all < <(find "$photos" -maxdepth 1 -type f \( -name '*.jpg' -o -name '*.png' \) | sort)

# One writer: adds reviews and attaches its own share of the photos, logging each id whose
# add and attach both reported success.
writer() {
  local library=$1 writer=$2 writers=$3 log=$4
  : >"$log"
  for ((i = 0; i < per_writer; i++)); do
    local photo=${all[(writer + i * writers) % ${#all[@]}]}
    local id
    if id=$("$catalogue" --library "$library" add --title "Writer $writer review $i" --rating 3 --category other 2>>"$log.err"); then
      if "$catalogue" --library "$library" attach "$id" "$photo" >/dev/null 2>>"$log.err"; then
        echo "$id $(sha256sum "$photo" | cut -c1-64)" >>"$log"
      fi
    fi
  done
}

verify() {
  local library=$1 expected=$2 label=$3
  "$catalogue" --library "$library" list --limit 100000 --json >"$work/list.json"
  python3 - "$work/list.json" "$expected" "$label" "$library" "$catalogue" <<'PY'
import json, subprocess, sys
listing = json.load(open(sys.argv[1]))["reviews"]
expected = [line.split() for line in open(sys.argv[2]) if line.strip()]
label, library, catalogue = sys.argv[3], sys.argv[4], sys.argv[5]
present = {r["id"]: r for r in listing}
lost = [i for i, _ in expected if i not in present]
wrong = 0
for review_id, sha in expected:
    if review_id in present:
        shown = json.loads(subprocess.run([catalogue, "--library", library, "show", review_id, "--json"], capture_output=True, text=True).stdout)
        if [image["sha256"] for image in shown["images"]] != [sha]:
            wrong += 1
titles = [r["title"] for r in listing]
duplicated = len(titles) - len(set(titles))
print(f"{label}: {len(expected)} imports reported, {len(listing)} reviews present, lost {len(lost)}, duplicated {duplicated}, wrong images {wrong}")
sys.exit(1 if lost or duplicated or wrong else 0)
PY
}

status=0
for writers in 2 4; do
  library=$work/library-$writers
  "$catalogue" init "$library" >/dev/null
  for ((w = 0; w < writers; w++)); do writer "$library" "$w" "$writers" "$work/w$writers-$w.log" & done
  wait
  cat "$work"/w"$writers"-*.log >"$work/expected-$writers"
  verify "$library" "$work/expected-$writers" "$writers writers" || status=1
  if grep -h "locked" "$work"/w"$writers"-*.log.err; then echo "$writers writers: 'database is locked' seen" >&2; status=1; fi
  "$catalogue" --library "$library" check >/dev/null || { echo "$writers writers: check found problems" >&2; status=1; }
done

# One importer while another process lists and checks the whole time.
library=$work/library-mixed
"$catalogue" init "$library" >/dev/null
writer "$library" 0 1 "$work/mixed.log" &
importer=$!
readers=0
reader_failures=0
while kill -0 "$importer" 2>/dev/null; do
  "$catalogue" --library "$library" list >/dev/null 2>>"$work/reader.err" || reader_failures=$((reader_failures + 1))
  # A check may meet files an import has written but not yet linked: those are reported as
  # unreferenced, which is right; anything else is not.
  "$catalogue" --library "$library" check --json >"$work/check.json" 2>>"$work/reader.err" || true
  python3 -c '
import json, sys
bad = [f for f in json.load(open(sys.argv[1]))["findings"] if f["kind"] not in ("unreferenced-file", "temporary-file")]
sys.exit(1 if bad else 0)' "$work/check.json" || reader_failures=$((reader_failures + 1))
  readers=$((readers + 1))
done
wait "$importer"
verify "$library" "$work/mixed.log" "1 writer with a reader" || status=1
echo "reader: $readers list+check rounds during the import, $reader_failures failed"
[ "$reader_failures" -eq 0 ] || status=1
if grep -h "locked" "$work"/mixed.log.err "$work/reader.err"; then echo "'database is locked' seen" >&2; status=1; fi
exit $status
