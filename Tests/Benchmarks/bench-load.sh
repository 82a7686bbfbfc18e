#!/usr/bin/env bash
# The load benchmark: a release build of crated serving a generated collection of about 200,000
# albums under contention and abuse (bench-load.py says what each scenario does): another process
# holding the write lock, an import of 200,000 rows for another user, grid pages of filter and sort
# combinations each asked for the first time, a flood of half-open connections, and a soak of mixed
# traffic. Prints requests, errors by status, p50/p99 latency, and the server's anonymous and
# file-backed memory at the start and end of each.
#
# Usage: Tests/Benchmarks/bench-load.sh [SCENARIO ...]   (default: lock import filters flood soak)
# SOAK_SECONDS (default 600) sets the soak's length, ROWS (default 207000) the collection's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export CRATED_DISCOGS_BASE_URL="http://127.0.0.1:9"
ROWS="${ROWS:-207000}"
SCENARIOS=("$@")
[ ${#SCENARIOS[@]} -gt 0 ] || SCENARIOS=(lock import filters flood soak)

command -v sqlite3 >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3 >/dev/null; }

echo "==> swift build -c release --product crated"
swift build -c release --product crated >/dev/null
CRATED="$PWD/.build/release/crated"

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

DB="$WORK/bench.sqlite"
echo "==> generating and importing $ROWS rows"
python3 Tests/Benchmarks/gen-discogs-csv.py --rows "$ROWS" --seed 7 --out "$WORK/collection.csv"
python3 Tests/Benchmarks/gen-discogs-csv.py --rows "$ROWS" --seed 8 --out "$WORK/third.csv"
"$CRATED" import "$WORK/collection.csv" --database "$DB" --user bench >/dev/null
TOKEN="$("$CRATED" token create --user bench --database "$DB")"

# The half-open flood needs a file per connection on this side too.
ulimit -n "$(ulimit -Hn)"
"$CRATED" serve --database "$DB" --port 0 > "$WORK/serve.log" 2>&1 &
SERVER_PID=$!
port=""
for _ in $(seq 1 200); do
    port="$(sed -n 's#.*listening on http://127.0.0.1:\([0-9]*\).*#\1#p' "$WORK/serve.log")"
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { cat "$WORK/serve.log"; echo "serve did not start" >&2; exit 1; }

python3 Tests/Benchmarks/bench-load.py "${SCENARIOS[@]}" --base "http://127.0.0.1:$port" --token "$TOKEN" --pid "$SERVER_PID" \
    --database "$DB" --crated "$CRATED" --third-csv "$WORK/third.csv" --soak-seconds "${SOAK_SECONDS:-600}"
echo "==> answers logged with a 5xx status: $(grep -cE ' 5[0-9][0-9] [0-9.]+ ms' "$WORK/serve.log" || true) (503 database_busy is a write told to retry)"
