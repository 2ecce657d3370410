#!/usr/bin/env bash
# Rebuilds the sample library in Library/ from Samples/ with the catalogue CLI:
# draws the pictures, throws away the library's generated content, creates a fresh
# library and adds the seven sample reviews in order.
#
#   Samples/make-sample-library.sh
#
# Uses .build/release/catalogue, built here first; set CATALOGUE=/path/to/catalogue to
# use another binary (nothing is built then). Needs imagemagick and
# libimage-exiftool-perl for the pictures, and sqlite3 to fold the database's
# write-ahead log back into catalogue.sqlite at the end (see Samples/README.md).
set -euo pipefail

source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$(dirname "$source_dir")"  # the repository root
library=Library

if [ -n "${CATALOGUE:-}" ]; then
  catalogue=$CATALOGUE
else
  swift build -c release --product catalogue
  catalogue=.build/release/catalogue
fi
[ -x "$catalogue" ] || { echo "$0: $catalogue is not an executable" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/sample-library.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Pictures first: if drawing fails, the current library is left as it was.
"$source_dir/make-pictures.sh" "$work/pictures" >/dev/null

# The library is generated content only: all of it goes.
rm -rf "$library"

"$catalogue" init "$library"

# Reads a review file: the header block (key: value lines) up to `---`, then the body.
# Sets title, rating, category, favorite and alt (the cover's description); writes the body to $2.
read_review() {
  local file=$1 body=$2 line key value in_header=1
  title='' rating='' category='' favorite=no alt=''
  : >"$body"
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    if [ "$in_header" = 1 ]; then
      if [ "$line" = '---' ]; then in_header=0; continue; fi
      [ -z "$line" ] && continue
      key=${line%%:*}
      value=${line#*:}
      value=${value#"${value%%[![:space:]]*}"}
      value=${value%"${value##*[![:space:]]}"}
      case $key in
        title) title=$value ;;
        rating) rating=$value ;;
        category) category=$value ;;
        favorite) favorite=$value ;;
        alt) alt=$value ;;
        *) echo "$0: $file: unknown header field '$key'" >&2; return 1 ;;
      esac
    else
      printf '%s\n' "$line" >>"$body"
    fi
  done <"$file"
  if [ "$in_header" = 1 ]; then echo "$0: $file: no '---' after the header" >&2; return 1; fi
  if [ -z "$title" ] || [ -z "$rating" ] || [ -z "$category" ]; then
    echo "$0: $file: title, rating and category are required" >&2
    return 1
  fi
  case $favorite in
    yes | no) ;;
    *) echo "$0: $file: favorite must be yes or no, not '$favorite'" >&2; return 1 ;;
  esac
}

for review in "$source_dir"/reviews/[0-9][0-9]-*.md; do
  name=$(basename "$review" .md)
  picture=''
  for candidate in "$work/pictures/$name.jpg" "$work/pictures/$name.png"; do
    if [ -f "$candidate" ]; then picture=$candidate; fi
  done
  [ -n "$picture" ] || { echo "$0: no picture for $name" >&2; exit 1; }

  body_file=$work/$name.body.md
  read_review "$review" "$body_file"

  args=(--title "$title" --rating "$rating" --category "$category")
  if [ "$favorite" = yes ]; then args+=(--favorite); fi
  args+=(--body-file "$body_file" --image "$picture")

  id=$("$catalogue" --library "$library" add "${args[@]}")
  echo "added $name: $id"
  if [ -n "$alt" ]; then "$catalogue" --library "$library" describe "$id" 1 --alt "$alt" >/dev/null; fi
  for second in "$work/pictures/$name-2".*; do
    if [ -f "$second" ]; then "$catalogue" --library "$library" attach "$id" "$second" >/dev/null; fi
  done
done

# A failed check is reported, but the library is still listed and checkpointed; the
# script then exits with check's status.
check_status=0
"$catalogue" --library "$library" check || check_status=$?
if [ "$check_status" -ne 0 ]; then
  echo "$0: catalogue check reported problems (exit status $check_status)" >&2
fi
"$catalogue" --library "$library" list

# Leave the database as a single file: fold the write-ahead log back in.
if command -v sqlite3 >/dev/null; then
  sqlite3 "$library/catalogue.sqlite" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
  for leftover in "$library/catalogue.sqlite-wal" "$library/catalogue.sqlite-shm"; do
    if [ -f "$leftover" ] && [ ! -s "$leftover" ]; then rm -f "$leftover"; fi
  done
else
  echo "$0: sqlite3 not found: $library/catalogue.sqlite-wal may still hold changes" >&2
fi

exit "$check_status"
