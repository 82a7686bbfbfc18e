#!/usr/bin/env bash
# The player fan-out benchmark: a release build of crated with 20 users, each with 10 open
# `GET /v1/player/events` streams (200 in all), while commands (play, then pause/resume in turn)
# arrive at 200 per second in total for 20 seconds. Checks that every stream receives every revision
# of its user, in order and once, and reports the delivery delay (event received − command sent),
# the achieved command rate and the daemon's memory. The load itself is Tests/Benchmarks/bench-player.py.
#
# Usage: Tests/Benchmarks/bench-player.sh [extra options for bench-player.py, e.g. --duration 5]
# Exits non-zero when an event was lost or a command failed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

USERS=20

source Tests/Benchmarks/common.sh

DB="$WORK/bench.sqlite"
echo "==> importing Tests/Fixtures/sample-collection.csv for $USERS users"
for n in $(seq 0 $((USERS - 1))); do
    "$CRATED" import Tests/Fixtures/sample-collection.csv --database "$DB" --user "user$n" >/dev/null
done

# One album with a tracklist (the fixture's albums have none until a sync): three 10-minute tracks,
# so nothing changes by itself during the run.
ALBUM_ID="$(sqlite3 "$DB" "SELECT id FROM album WHERE discogs_release_id = 1")"
[ -n "$ALBUM_ID" ] || { echo "no album with discogs_release_id 1" >&2; exit 1; }
sqlite3 "$DB" "INSERT INTO track (album_id, position, side, sort_order, title, duration_ms, kind) VALUES
    ($ALBUM_ID,'A1','A',0,'One',600000,'track'),($ALBUM_ID,'A2','A',1,'Two',600000,'track'),($ALBUM_ID,'B1','B',2,'Three',600000,'track')"

: > "$WORK/tokens"
for n in $(seq 0 $((USERS - 1))); do
    echo "user$n $("$CRATED" token create --user "user$n" --database "$DB")" >> "$WORK/tokens"
done

start_server "$CRATED" "$DB"

echo "==> crated serve on port $PORT (pid $SERVER_PID), album $ALBUM_ID"
status=0
python3 Tests/Benchmarks/bench-player.py --port "$PORT" --pid "$SERVER_PID" --tokens "$WORK/tokens" \
    --album-id "$ALBUM_ID" "$@" || status=$?
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "crated serve is no longer running; its log:" >&2
    cat "$WORK/serve.log" >&2
    status=1
elif grep -qi "error\|critical" "$WORK/serve.log"; then
    echo "==> errors in the daemon's log:"
    grep -i "error\|critical" "$WORK/serve.log" | head -20
fi
exit "$status"
