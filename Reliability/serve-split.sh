#!/usr/bin/env bash
# Runs command-line commands beside a busy `catalogue serve`, round after round, and checks that
# the two never work on two different databases: the server's write-ahead log stays the one in
# the library folder (a command that took itself for the last user of the database would
# checkpoint and delete it, and the server would go on writing to a file no one else sees), a
# reviewer removed or a token revoked by the command line is refused at the server's next
# request, and every review the server answered 201 is in the library after it stops.
#
#   Reliability/serve-split.sh [ROUNDS] [WRITERS] [READERS]
#
# ROUNDS (default 40) rounds of `user add`, `user token`, `list`, `check`, then `user remove` or
# `user token --revoke` (in turn), while WRITERS (default 4) threads add reviews through the API
# and READERS (default 4) threads read pages and searches, all the time. About a minute.
#
# CATALOGUE=/path/to/catalogue uses that binary; otherwise the release build is made (in
# SCRATCH_PATH, default .build).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
rounds=${1:-40}
writers=${2:-4}
readers=${3:-4}

# shellcheck source=../Benchmarks/serve/serve.sh
. "$root/Benchmarks/serve/serve.sh"
catalogue=$(catalogue_binary "$root")

work=$(mktemp -d "${TMPDIR:-/tmp}/serve-split.XXXXXX")
server=
load=
cleanup() {
  [ -n "$load" ] && kill -TERM "$load" 2>/dev/null
  [ -n "$server" ] && kill -KILL "$server" 2>/dev/null
  rm -rf "$work"
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

library=$work/library
cli() { "$catalogue" --library "$library" "$@"; }
cli init "$library" >/dev/null
cli user add writer --password-stdin <<<"a password for the writer" >/dev/null
cli user token writer 2>/dev/null | grep '^cat_' >"$work/token"

start_serve "$work/server.out" "$work/server.err" "$catalogue" --library "$library" serve --port 0 --quiet
url=http://127.0.0.1:$port

# The load: writers add reviews (each 201's id goes to the log), readers read pages and searches,
# until SIGTERM.
python3 - "$url" "$work/token" "$writers" "$readers" "$work/answers" <<'PY' &
import json, signal, sys, threading, urllib.error, urllib.request
url, token_file, writers, readers, log = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
token = open(token_file).read().strip()
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
lock = threading.Lock()
out = open(log, "w", buffering=1)
def note(line):
    with lock:
        out.write(line + "\n")
def send(request):
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError as error:
        return 0, str(error).encode()
def write(number):
    count = 0
    while not stop.is_set():
        body = json.dumps({"title": f"Writer {number} #{count}", "rating": count % 6, "category": "movie"}).encode()
        request = urllib.request.Request(url + "/api/reviews", data=body, method="POST", headers={
            "Authorization": "Bearer " + token, "Content-Type": "application/json"})
        status, text = send(request)
        note(f"{status} {json.loads(text)['id'] if status == 201 else text[:200]!r}")
        count += 1
def read(number):
    count = 0
    while not stop.is_set():
        target = ["/", f"/?q=writer+{count % 50}", "/api/reviews?sort=rating", f"/?page={count % 5 + 1}"][count % 4]
        status, text = send(urllib.request.Request(url + target))
        if status not in (200, 404):
            note(f"{status} read {target} {text[:200]!r}")
        count += 1
threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
threads += [threading.Thread(target=read, args=(n,)) for n in range(readers)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
PY
load=$!

# The status of a request with `token` to the server's session route.
status_with() {
  curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $1" "$url/api/session"
}
wal_inode() { stat -c %i "$library/catalogue.sqlite-wal" 2>/dev/null || echo none; }

sleep 1
wal=$(wal_inode)
[ "$wal" != none ] || { echo "serve-split.sh: the busy server has no write-ahead log" >&2; exit 1; }
failures=0
fail() {
  failures=$((failures + 1))
  echo "round $round: $*" >&2
}
for ((round = 1; round <= rounds; round++)); do
  name=visitor$round
  cli user add "$name" --password-stdin <<<"a password for $name" >/dev/null
  token=$(cli user token "$name" 2>/dev/null)
  [ "$(status_with "$token")" = 200 ] || fail "a new token is refused"
  cli list >/dev/null || fail "list failed"
  cli check >"$work/check.out" 2>&1 || fail "check failed: $(tail -1 "$work/check.out")"
  if ((round % 2)); then
    cli user remove "$name" --yes >/dev/null || fail "user remove failed"
    what="removed"
  else
    cli user token "$name" --revoke >/dev/null 2>&1 || fail "user token --revoke failed"
    what="revoked"
  fi
  [ "$(status_with "$token")" = 401 ] || fail "the $what reviewer's token still works"
  [ "$(wal_inode)" = "$wal" ] || fail "the server's write-ahead log is no longer the one in the folder"
  # A descriptor may close while find looks: its complaint is no finding.
  deleted=$( (find "/proc/$server/fd" -type l -lname '*catalogue.sqlite* (deleted)' 2>/dev/null || true) | wc -l)
  [ "$deleted" -eq 0 ] || fail "the server holds $deleted deleted database file(s) open"
done

kill -TERM "$load"
wait "$load" || true
load=
kill -TERM "$server"
status=0; wait "$server" || status=$?
[ "$status" -eq 0 ] || fail "the server did not stop cleanly on SIGTERM (exit $status): $(tail -2 "$work/server.err")"
server=
answered=$(awk '$1 == 201 {print $2}' "$work/answers" | tr -d "'" | sort)
refused=$(awk '$1 != 201' "$work/answers" | wc -l)
present=$(sqlite3 -readonly "$library/catalogue.sqlite" 'SELECT id FROM reviews ORDER BY id')
lost=$(comm -23 <(echo "$answered") <(echo "$present") | grep -c . || true)
healthy=yes
cli check >/dev/null 2>&1 || healthy=no
echo "rounds: $rounds beside $writers writers and $readers readers"
echo "reviews answered 201: $(echo "$answered" | grep -c .); other answers: $refused; answered 201 but lost: $lost"
echo "failures in the rounds: $failures; check healthy after the stop: $healthy"
[ "$failures" -eq 0 ] && [ "$lost" -eq 0 ] && [ "$refused" -eq 0 ] && [ "$healthy" = yes ]
