#!/usr/bin/env bash
# Kills catalogue commands with SIGKILL at random moments and checks after each kill that
# nothing was lost: no record points at a missing or damaged file, every review a finished
# command reported is there, and `check --repair` leaves the library healthy.
#
#   Reliability/crash-loop.sh [RUNS] [PHOTOS_FOLDER]
#
# RUNS (default 120) cycle through four operations: a folder import (add + attach), a
# replace, a delete, and a thumbnail rebuild. PHOTOS_FOLDER defaults to the benchmark
# corpus' baseline JPEGs (Benchmarks/make-corpus.sh), else the fixtures.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
runs=${1:-120}
photos=${2:-$root/Benchmarks/corpus/baseline}
[ -d "$photos" ] || photos=$root/Fixtures/images

# CATALOGUE=/path/to/catalogue uses that binary; otherwise the release build is made.
catalogue=${CATALOGUE:-}
if [ -z "$catalogue" ]; then
  # The build's last line says whether it worked ("Build of product 'catalogue' complete!");
  # its status decides.
  (cd "$root" && swift build -c release --product catalogue 2>&1 | tail -1)
  catalogue=$root/.build/release/catalogue
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/crash-loop.XXXXXX")
trap 'rm -rf "$work"' EXIT
library=$work/library
"$catalogue" init "$library" >/dev/null

# Photo sets: a few folders of different photos, so that imports write new originals.
mapfile -t all < <(find "$photos" -maxdepth 1 -type f \( -name '*.jpg' -o -name '*.png' \) | sort)
sets=4
for ((s = 0; s < sets; s++)); do
  mkdir -p "$work/set$s"
  for ((i = s; i < ${#all[@]}; i += sets)); do ln -s "${all[i]}" "$work/set$s/"; done
done

reported=$work/reported   # ids of reviews whose add finished, one a line
removed=$work/removed     # ids whose remove finished
: >"$reported"
: >"$removed"
problems=0
lost=0
unhealthy=0
declare -A count=()

random_ms() { echo $((RANDOM % $1)); }

# Runs a command in the background and kills it with SIGKILL after a random delay (unless
# it finished). Prints "finished" or "killed".
kill_at_random() {
  local limit=$1
  shift
  "$@" >"$work/out" 2>"$work/err" &
  local pid=$!
  sleep "0.$(printf '%03d' "$(random_ms "$limit")")"
  if kill -9 "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null || true
    echo killed
  else
    wait "$pid" && echo finished || echo failed
  fi
}

# The oldest review, or with `images` the oldest that has pictures ("" when there is none).
any_review() {
  "$catalogue" --library "$library" list --limit 100000 --sort created --reverse --json |
    python3 -c 'import json,sys; r=[x for x in json.load(sys.stdin)["reviews"] if sys.argv[1] != "images" or x["imageCount"]]; print(r[0]["id"] if r else "")' "${1:-}"
}

for ((run = 1; run <= runs; run++)); do
  operation=$(((run - 1) % 4))
  case $operation in
    0)
      name=import
      id=$("$catalogue" --library "$library" add --title "Run $run" --rating 3 --category other)
      echo "$id" >>"$reported"
      outcome=$(kill_at_random 300 "$catalogue" --library "$library" attach "$id" "$work/set$((run % sets))")
      ;;
    1)
      name=replace
      id=$(any_review images)
      if [ -z "$id" ]; then
        outcome=skipped
      else
        outcome=$(kill_at_random 80 "$catalogue" --library "$library" replace "$id" 1 "${all[RANDOM % ${#all[@]}]}")
      fi
      ;;
    2)
      name=delete
      id=$(any_review)
      if [ -z "$id" ]; then outcome=skipped; else
        outcome=$(kill_at_random 50 "$catalogue" --library "$library" remove "$id" --yes)
        [ "$outcome" = finished ] && echo "$id" >>"$removed"
        # A delete that was killed may or may not have happened; either is fine.
        [ "$outcome" = killed ] && echo "$id" >>"$removed"
      fi
      ;;
    3)
      name=rebuild
      size=$((run % 8 == 3 ? 200 : 256))
      outcome=$(kill_at_random 400 "$catalogue" --library "$library" thumbnails --rebuild --size "$size")
      ;;
  esac
  count[$name-$outcome]=$((${count[$name-$outcome]:-0} + 1))

  # After the crash: only leftovers (unreferenced or temporary files) may be found.
  "$catalogue" --library "$library" check --json >"$work/check.json" || true
  bad=$(python3 - "$work/check.json" <<'PY'
import json, sys
findings = json.load(open(sys.argv[1]))["findings"]
print(sum(1 for f in findings if f["kind"] not in ("unreferenced-file", "temporary-file")))
for f in findings:
    if f["kind"] not in ("unreferenced-file", "temporary-file"):
        print(f"  {f['kind']}: {f['target']}: {f['problem']}", file=sys.stderr)
PY
  )
  if [ "$bad" -gt 0 ]; then
    echo "run $run ($name, $outcome): $bad problem(s) after the crash" >&2
    problems=$((problems + bad))
  fi
  # Every review an add reported (and no remove touched) is there.
  "$catalogue" --library "$library" list --limit 100000 --json | python3 -c 'import json,sys; print("\n".join(r["id"] for r in json.load(sys.stdin)["reviews"]))' | sort >"$work/present"
  missing=$(sort "$reported" | comm -23 - <(sort "$removed") | comm -23 - "$work/present" | wc -l)
  if [ "$missing" -gt 0 ]; then
    echo "run $run ($name, $outcome): $missing reported review(s) missing" >&2
    lost=$((lost + missing))
  fi
  if ! "$catalogue" --library "$library" check --repair >/dev/null || ! "$catalogue" --library "$library" check >/dev/null; then
    echo "run $run ($name, $outcome): not healthy after check --repair" >&2
    unhealthy=$((unhealthy + 1))
  fi
done

echo "runs: $runs ($(for key in "${!count[@]}"; do printf '%s %s, ' "$key" "${count[$key]}"; done | sed 's/, $//'))"
echo "reviews reported: $(wc -l <"$reported"), present at the end: $(wc -l <"$work/present")"
echo "problems after a crash (other than leftover files): $problems"
echo "reported reviews lost: $lost"
echo "libraries not healthy after check --repair: $unhealthy"
[ "$problems" -eq 0 ] && [ "$lost" -eq 0 ] && [ "$unhealthy" -eq 0 ]
