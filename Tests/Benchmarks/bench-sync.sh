#!/usr/bin/env bash
# Benchmark `crated sync` against a fake Discogs on 127.0.0.1 with no rate limit.
#
# Usage: Tests/Benchmarks/bench-sync.sh [RELEASES]        (default 2000)
#
# Builds crated and crated-transport-bench in release mode, starts Tests/Benchmarks/fake-discogs.py
# (one release response, a real one when the tests' Discogs data is there, see below; its id set to
# each one asked for), imports RELEASES albums into a fresh database, then measures in the same
# run, against the same server:
#   - the bare transport: RELEASES GETs through CurlHTTPTransport, 2 at a time (sync's concurrency);
#   - the sync: `crated sync` fetching, parsing and writing every album, with its peak memory.
# Target: sync at least 50% of the bare transport's requests per second.
# Exits non-zero if a build, the server, the import or the sync fails; missing the target is
# reported but does not change the exit status.
set -euo pipefail

RELEASES="${1:-2000}"
if ! [[ "$RELEASES" =~ ^[0-9]+$ ]] || [ "$RELEASES" -eq 0 ]; then
    echo "usage: $0 [RELEASES]   (a positive integer, default 2000)" >&2
    exit 64
fi
CONCURRENCY=2
TARGET_PERCENT=50

cd "$(dirname "${BASH_SOURCE[0]}")/../.."

echo "==> swift build -c release (crated, crated-transport-bench)"
swift build -c release --product crated
swift build -c release --product crated-transport-bench
BIN="$(swift build -c release --show-bin-path)"

if [ ! -x /usr/bin/time ]; then
    echo "==> installing GNU time (/usr/bin/time)"
    SUDO=""
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq time
fi

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# The release served: a real Discogs API response (release 1, as joalla/discogs_client's tests keep
# it) from the real Discogs data the tests read, found as they find it: `discogs` in the folder
# CRATED_SHARED_FIXTURES names, else ../shared/fixtures/discogs beside the checkout (not part of the
# repository). Without it, a small release of the same shape, written here.
if [ -n "${CRATED_SHARED_FIXTURES:-}" ]; then
    SHARED_DISCOGS="$CRATED_SHARED_FIXTURES/discogs"
else
    SHARED_DISCOGS="$PWD/../shared/fixtures/discogs"
fi
RELEASE_JSON="$SHARED_DISCOGS/joalla-discogs_client_releases_1.json"
if [ ! -f "$RELEASE_JSON" ]; then
    if [ -n "${CRATED_SHARED_FIXTURES:-}" ]; then
        echo "error: CRATED_SHARED_FIXTURES is $CRATED_SHARED_FIXTURES, but there is no $RELEASE_JSON;" \
            "name the folder that holds discogs/, or unset it to serve a small built-in release" >&2
        exit 1
    fi
    echo "==> no $RELEASE_JSON (set CRATED_SHARED_FIXTURES to the folder holding discogs/); serving a small built-in release"
    RELEASE_JSON="$WORK/release.json"
    cat >"$RELEASE_JSON" <<'JSON'
{"id": 1, "title": "Stockholm", "year": 1999, "released": "1999-03-00", "country": "Sweden",
 "artists": [{"id": 1, "name": "Persuader, The", "anv": "", "join": ""}], "genres": ["Electronic"],
 "styles": ["Deep House"], "labels": [{"id": 5, "name": "Svek", "catno": "SK032"}],
 "formats": [{"name": "Vinyl", "qty": "2", "descriptions": ["12\""]}],
 "tracklist": [{"position": "A", "title": "Östermalm", "duration": "4:45"},
               {"position": "B1", "title": "Vasastaden", "duration": "6:11"},
               {"position": "B2", "title": "Kungsholmen", "duration": "2:49"}]}
JSON
fi
echo "==> serving $RELEASE_JSON"

python3 Tests/Benchmarks/fake-discogs.py "$RELEASE_JSON" "$WORK/port" &
SERVER_PID=$!
for _ in $(seq 1 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
[ -s "$WORK/port" ] || { echo "error: the fake Discogs server did not start" >&2; exit 1; }
PORT="$(cat "$WORK/port")"
BASE="http://127.0.0.1:$PORT"

echo "==> importing $RELEASES albums"
python3 - "$RELEASES" >"$WORK/collection.csv" <<'PY'
import sys
count = int(sys.argv[1])
print("Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,CollectionFolder,Date Added")
for n in range(1, count + 1):
    print(f"CAT {n},Artist {n},Title {n},Label,\"LP, Album\",,1999,{n},Uncategorized,2020-01-01 00:{n // 60 % 60:02d}:{n % 60:02d}")
PY
DB="$WORK/bench.sqlite"
"$BIN/crated" import "$WORK/collection.csv" --database "$DB" --user bench >/dev/null

cat >"$WORK/crated.json" <<JSON
{"discogs": {"baseURL": "$BASE", "token": "", "requestsPerMinute": 1000000000,
             "unauthenticatedRequestsPerMinute": 1000000000},
 "log": {"level": "error"}}
JSON

echo "==> bare transport: $RELEASES GETs, $CONCURRENCY at a time"
"$BIN/crated-transport-bench" "$BASE/releases/{id}" "$RELEASES" "$CONCURRENCY" | tee "$WORK/transport"
RAW_RPS="$(awk -F': ' '/^requests\/s/ {print $2}' "$WORK/transport")"

echo "==> crated sync"
START="$(date +%s.%N)"
set +e
/usr/bin/time -v -o "$WORK/time" "$BIN/crated" sync --database "$DB" --config "$WORK/crated.json" --json >"$WORK/report.json" 2>"$WORK/stderr"
STATUS=$?
set -e
END="$(date +%s.%N)"
if [ "$STATUS" -ne 0 ]; then
    echo "error: crated sync exited with status $STATUS" >&2
    cat "$WORK/stderr" "$WORK/report.json" >&2
    exit "$STATUS"
fi
SYNCED="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["synced"])' "$WORK/report.json")"
if [ "$SYNCED" -ne "$RELEASES" ]; then
    echo "error: crated sync synced $SYNCED of $RELEASES albums" >&2
    cat "$WORK/report.json" >&2
    exit 1
fi
RSS_KB="$(awk -F': *' '/Maximum resident set size/ {print $2}' "$WORK/time")"

read -r SECONDS_TAKEN SYNC_RPS RATIO RSS_MB MET < <(
    awk -v s="$START" -v e="$END" -v n="$RELEASES" -v raw="$RAW_RPS" -v kb="$RSS_KB" -v target="$TARGET_PERCENT" 'BEGIN {
        secs = e - s; if (secs <= 0) secs = 0.000001
        rps = n / secs; ratio = 100 * rps / raw
        printf "%.3f %.1f %.1f %.1f %s\n", secs, rps, ratio, kb / 1024, (ratio >= target ? "MET" : "MISSED")
    }'
)

echo
echo "== crated sync benchmark =="
printf '%-26s %s\n' "releases:" "$RELEASES"
printf '%-26s %s s\n' "sync wall clock:" "$SECONDS_TAKEN"
printf '%-26s %s\n' "sync releases/s:" "$SYNC_RPS"
printf '%-26s %s\n' "bare transport requests/s:" "$RAW_RPS"
printf '%-26s %s%%\n' "sync / transport:" "$RATIO"
printf '%-26s %s MiB (%s KB)\n' "sync peak RSS:" "$RSS_MB" "$RSS_KB"
printf 'target sync >= %d%% of transport: %s\n' "$TARGET_PERCENT" "$MET"
