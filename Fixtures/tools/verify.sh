#!/usr/bin/env bash
# Checks every fixture against what README.md says of it and prints a table.
# Exit status 0 only if every check passed.  Run from anywhere.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PYTHONDONTWRITEBYTECODE=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/pngprobe" tools/pngprobe.c -lpng
python3 tools/verify.py --pngprobe "$work/pngprobe" "$@"
