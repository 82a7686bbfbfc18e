#!/usr/bin/env bash
# The load benchmark: a release build of crated serving a generated collection of about 200,000
# albums under contention and abuse (bench-load.py says what each scenario does): another process
# holding the write lock, an import of 200,000 rows for another user, grid pages of filter and sort
# combinations each asked for the first time, four clients at once asking for each new grid after a
# change (herd), a flood of half-open connections, and a soak of mixed traffic. Prints requests,
# errors by status, p50/p99 latency, and the server's anonymous and file-backed memory at the start
# and end of each.
#
# Usage: Tests/Benchmarks/bench-load.sh [SCENARIO ...]   (default: lock import filters herd flood soak)
# SOAK_SECONDS (default 600) sets the soak's length, ROWS (default 207000) the collection's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROWS="${ROWS:-207000}"
SCENARIOS=("$@")
[ ${#SCENARIOS[@]} -gt 0 ] || SCENARIOS=(lock import filters herd flood soak)

command -v sqlite3 >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3 >/dev/null; }

source Tests/Benchmarks/common.sh

DB="$WORK/bench.sqlite"
echo "==> generating and importing $ROWS rows"
python3 Tests/Benchmarks/gen-discogs-csv.py --rows "$ROWS" --seed 7 --out "$WORK/collection.csv"
python3 Tests/Benchmarks/gen-discogs-csv.py --rows "$ROWS" --seed 8 --out "$WORK/third.csv"
"$CRATED" import "$WORK/collection.csv" --database "$DB" --user bench >/dev/null
TOKEN="$("$CRATED" token create --user bench --database "$DB")"

# The half-open flood needs a file per connection on this side too.
ulimit -n "$(ulimit -Hn)"
start_server "$CRATED" "$DB"

python3 Tests/Benchmarks/bench-load.py "${SCENARIOS[@]}" --base "$BASE" --token "$TOKEN" --pid "$SERVER_PID" \
    --database "$DB" --crated "$CRATED" --third-csv "$WORK/third.csv" --soak-seconds "${SOAK_SECONDS:-600}"
echo "==> answers logged with a 5xx status: $(grep -cE ' 5[0-9][0-9] [0-9.]+ ms' "$WORK/serve.log" || true) (503 database_busy is a write told to retry)"
