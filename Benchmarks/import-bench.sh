#!/usr/bin/env bash
# Imports a Letterboxd export of N reviews (default 10,000, made by
# Fixtures/imports/make-imports.py --letterboxd-bench) into a new library, on one core
# (taskset -c 0), with hyperfine: each run into a library made afresh, on the disk of the
# temporary folder (fsync included). Then the same export again (everything unchanged), and a
# dry run. The issue's target: 10,000 reviews in 5 s or less. See Benchmarks/README.md.
#
#   Benchmarks/import-bench.sh [--reviews N] [--runs N] [--scratch-path DIR]
#
# Needs hyperfine, taskset and python3. CATALOGUE=/path/to/catalogue uses that binary, unbuilt.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
reviews=10000
runs=5
export SCRATCH_PATH=$root/.build
while [ $# -gt 0 ]; do
  case $1 in
    --reviews) reviews=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --scratch-path) SCRATCH_PATH=$2; shift 2 ;;
    *) echo "import-bench.sh: unknown argument $1 (see the head of the script)" >&2; exit 2 ;;
  esac
done
for tool in hyperfine taskset python3; do
  command -v "$tool" >/dev/null || { echo "import-bench.sh: needs $tool (see Benchmarks/README.md)" >&2; exit 2; }
done
. "$here/serve/serve.sh"
catalogue=$(catalogue_binary "$root")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$root/Fixtures/imports/make-imports.py" --letterboxd-bench "$reviews" "$work/export"
echo "import-bench: a Letterboxd export of $reviews reviews ($(du -sh "$work/export/reviews.csv" | cut -f1) of reviews.csv), one core"
library=$work/library
hyperfine --runs "$runs" --style basic \
  --prepare "rm -rf '$library' && '$catalogue' --library '$library' init >/dev/null" \
  -n "import into a new library" "taskset -c 0 '$catalogue' --library '$library' import letterboxd '$work/export' >/dev/null"
hyperfine --runs "$runs" --style basic \
  -n "the same export again (all unchanged)" "taskset -c 0 '$catalogue' --library '$library' import letterboxd '$work/export' >/dev/null" \
  -n "a dry run" "taskset -c 0 '$catalogue' --library '$library' import letterboxd '$work/export' --dry-run >/dev/null"
/usr/bin/time -f "peak memory of one import into a new library: %M KB" bash -c \
  "rm -rf '$library' && '$catalogue' --library '$library' init >/dev/null && taskset -c 0 '$catalogue' --library '$library' import letterboxd '$work/export' >/dev/null"
