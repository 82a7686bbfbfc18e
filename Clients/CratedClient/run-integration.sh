#!/usr/bin/env bash
# The generated Swift client against a live daemon: builds this package (in its own .build here),
# starts `crated serve` on a temporary database holding the sample collection, runs
# crated-client-integration against it, and stops the daemon. Fails on any failure, so that a change
# to openapi.json that breaks the generated client fails CI. Needs the main package built first
# (.build/debug/crated at the repository root).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
ROOT="$(cd ../.. && pwd)"
CRATED="$ROOT/.build/debug/crated"
[ -x "$CRATED" ] || { echo "error: $CRATED is missing: run swift build at the repository root first" >&2; exit 1; }

echo "==> Clients/CratedClient: swift build (generates the client from openapi.json)"
swift build --build-path .build --product crated-client-integration

# The work directory, its cleanup and starting the daemon, as the benchmarks do it (with the debug
# binary named above, so nothing is built in release).
source "$ROOT/Tests/Benchmarks/common.sh"

DB="$WORK/crated.sqlite"
"$CRATED" import "$ROOT/Tests/Fixtures/sample-collection.csv" --database "$DB" --user collector >/dev/null
# A second user, whose crate the first must not see (404).
"$CRATED" import "$ROOT/Tests/Fixtures/sample-collection.csv" --database "$DB" --user other >/dev/null
# The first user's Discogs account, which GET /v1/me gives.
"$CRATED" user link collector collector-on-discogs --database "$DB" >/dev/null
# Tracklists come from a Discogs sync, which this run has none of: give every album two sides. A1
# lasts 4 seconds, so that a play of it counts (half its length heard) within the run.
python3 "$ROOT/Tests/Benchmarks/add-tracklists.py" "$DB" --first-track-ms 4000 --track-ms 600000
export CRATED_TOKEN="$("$CRATED" token create --user collector --name client-integration --database "$DB" | tail -n 1 | tr -d '[:space:]')"
export CRATED_READ_TOKEN="$("$CRATED" token create --user collector --scope read --name client-read --database "$DB" | tail -n 1 | tr -d '[:space:]')"
export CRATED_OTHER_TOKEN="$("$CRATED" token create --user other --name client-other --database "$DB" | tail -n 1 | tr -d '[:space:]')"
# The app's sign-in trades this password for a token of its own.
export CRATED_PASSWORD="client integration password"
printf '%s\n' "$CRATED_PASSWORD" | "$CRATED" user passwd collector --database "$DB" >/dev/null

start_server "$CRATED" "$DB"
export CRATED_URL="$BASE"

echo "==> crated-client-integration against $CRATED_URL"
status=0
.build/debug/crated-client-integration || status=$?
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "error: the daemon died during the run:" >&2
    tail -n 50 "$WORK/serve.log" >&2
    status=1
fi
if [ "$status" -ne 0 ]; then
    echo "==> the generated client failed (exit $status); daemon log, last lines:" >&2
    tail -n 20 "$WORK/serve.log" >&2
fi
exit "$status"
