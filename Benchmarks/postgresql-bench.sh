#!/usr/bin/env bash
# Lists and searches on a library of N reviews (default 100,000) whose records are in
# PostgreSQL: a throwaway cluster (scripts/postgresql-test-cluster) in Benchmarks/out, the
# library made once by catalogue-bench (Zipf-distributed prose, as the SQLite benchmark's) and
# kept for later runs, then each list and search timed --runs times on the open library, as a
# server asks them, with the median, the 99th percentile and the worst. The issue's target:
# p99 of 50 ms or less. The same library on SQLite is timed after it, for comparison.
#
#   Benchmarks/postgresql-bench.sh [--reviews N] [--runs N] [--no-sqlite]
#
# Needs PostgreSQL 15 (scripts/install-packages). The cluster is stopped at the end; the
# library folders and the cluster's data stay in Benchmarks/out/postgresql for the next run.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
reviews=100000
runs=100
sqlite=1
while [ $# -gt 0 ]; do
  case $1 in
    --reviews) reviews=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --no-sqlite) sqlite=0; shift ;;
    *) echo "postgresql-bench.sh: unknown argument $1 (see the head of the script)" >&2; exit 2 ;;
  esac
done

swift build -c release --package-path "$root" --product catalogue-bench >/dev/null
bench=$(swift build -c release --package-path "$root" --show-bin-path)/catalogue-bench

out=$root/Benchmarks/out/postgresql
mkdir -p "$out"
chmod 755 "$root/Benchmarks/out" "$out"
cluster=$out/cluster-$reviews
library=$out/library-$reviews
# A cluster of its own each run (the script starts one afresh); the library's records are
# made again when the cluster is new.
rm -rf "$cluster"
url=$("$root/scripts/postgresql-test-cluster" start "$cluster" --watch $$)
trap '"$root/scripts/postgresql-test-cluster" stop "$cluster" >/dev/null 2>&1 || true' EXIT
# The test cluster's 16 MB of shared buffers would measure the disk cache; a server of a team
# has PostgreSQL's default (128 MB) or more.
psql -XqtA "$url" -c "ALTER SYSTEM SET shared_buffers = '256MB'" >/dev/null
"$root/scripts/postgresql-test-cluster" restart "$cluster" >/dev/null
rm -rf "$library"
echo "postgresql-bench: $reviews reviews, PostgreSQL $(psql -XtA "$url" -c 'SHOW server_version'), $runs runs each"
"$bench" --reviews "$reviews" --library "$library" --database "$url" --make-only
# What autovacuum does soon after a bulk load: the statistics, and the visibility map that lets
# a page be read from an index alone.
psql -XqtA "$url" -c "VACUUM ANALYZE" >/dev/null
"$bench" --reviews "$reviews" --library "$library" --database "$url" --runs "$runs"

if [ "$sqlite" = 1 ]; then
  echo
  echo "the same lists and searches on SQLite (each opening the library, as a command does):"
  "$bench" --reviews "$reviews" --library "$out/sqlite-$reviews" --runs "$runs"
fi
