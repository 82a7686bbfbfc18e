# Sourced by the scripts that run `crated serve` (the benchmarks, the generated client's integration
# run): a release build unless CRATED names a binary already, a work directory that is removed on
# exit with the daemon it started, a generated collection, and starting and stopping the daemon.

# The daemon syncs in the background: keep it on this machine (a closed port on loopback).
export CRATED_DISCOGS_BASE_URL="http://127.0.0.1:9"

if [ -z "${CRATED:-}" ]; then
    echo "==> swift build -c release --product crated"
    swift build -c release --product crated >/dev/null
    CRATED="$PWD/.build/release/crated"
fi

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# start_server BINARY DATABASE: `serve` on a free port, its log in $WORK/serve.log; sets SERVER_PID,
# PORT and BASE.
start_server() {
    # The log exists before the daemon starts: the polling below must never read a missing file, which
    # under `set -e` ends the calling script.
    : > "$WORK/serve.log"
    "$1" serve --database "$2" --port 0 >> "$WORK/serve.log" 2>&1 &
    SERVER_PID=$!
    PORT=""
    for _ in $(seq 1 300); do
        PORT="$(sed -n 's#.*listening on http://127.0.0.1:\([0-9]*\).*#\1#p' "$WORK/serve.log")"
        [ -n "$PORT" ] && break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    [ -n "$PORT" ] || { cat "$WORK/serve.log"; echo "serve did not start" >&2; exit 1; }
    BASE="http://127.0.0.1:$PORT"
}

stop_server() {
    kill "$SERVER_PID" && wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

# import_generated ROWS: a generated Discogs export of ROWS rows (Tests/Benchmarks/gen-discogs-csv.py,
# seed 7) imported for user `bench` into $WORK/bench.sqlite; sets DB and TOKEN (write scope).
import_generated() {
    DB="$WORK/bench.sqlite"
    echo "==> generating and importing $1 rows"
    python3 Tests/Benchmarks/gen-discogs-csv.py --rows "$1" --seed 7 --out "$WORK/collection.csv"
    "$CRATED" import "$WORK/collection.csv" --database "$DB" --user bench >/dev/null
    TOKEN="$("$CRATED" token create --user bench --database "$DB")"
}
