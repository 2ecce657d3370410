#!/usr/bin/env bash
# The colour fixtures: writes Fixtures/profiles/*.icc with LittleCMS (tools/make-profiles.c),
# then the tagged patches and hostile profile segments (tools/make_colour.py) into images/ and
# hostile/, with images/colour-expected.txt. Deterministic. Called by make-fixtures.sh; can be
# run alone. Needs: gcc, liblcms2-dev, libjpeg-dev, libjpeg-turbo-progs (cjpeg), python3.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -Wall -o "$work/make-profiles" tools/make-profiles.c -llcms2 -lm
cc -O2 -Wall -o "$work/adobe-cmyk" tools/adobe-cmyk.c -ljpeg
mkdir -p profiles images hostile
"$work/make-profiles" profiles
PYTHONDONTWRITEBYTECODE=1 python3 tools/make_colour.py profiles "$work" images hostile "$work/make-profiles" "$work/adobe-cmyk"
