#!/usr/bin/env bash
# Fuzz the live daemon against its own OpenAPI document with schemathesis (PyPI).
#
# Usage: Tests/Contract/schemathesis.sh [EXTRA SCHEMATHESIS RUN OPTIONS...]
#        (schemathesis runs in a temporary directory: give file paths in extra options as absolute paths)
#
# Builds crated (debug), imports Tests/Fixtures/sample-collection.csv for the user `collector` into
# a temporary database, creates a write token, starts `crated serve --port 0`, and runs
# `schemathesis run` against http://127.0.0.1:PORT/v1/openapi.json with that token. The checks:
# no 5xx, every status code, content type, documented header and response body as the document
# says. Exits non-zero when schemathesis finds a failure (or the build, import or daemon fails).
#
# Environment:
#   MAX_EXAMPLES   test cases per operation and phase (default 50)
#   TIME_LIMIT     hard limit in seconds for the schemathesis run (default 900)
#   SEED           a fixed seed, to reproduce a run (default: random; `./dev.sh test` fixes one)
set -euo pipefail

MAX_EXAMPLES="${MAX_EXAMPLES:-50}"
TIME_LIMIT="${TIME_LIMIT:-900}"
SEED="${SEED:-}"
STARTUP_TIMEOUT=60

# 1. Repository root (this script lives in Tests/Contract/).
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# The daemon syncs in the background: keep it on this machine (a closed port on loopback).
export CRATED_DISCOGS_BASE_URL="http://127.0.0.1:9"

# 2. schemathesis from PyPI in a virtual environment of its own, installed when missing. One version,
#    so that a seed gives the same cases everywhere; 4.32 is the first to read an event stream event
#    by event (max-stream-events, below).
VENV=.build/contract-venv
if ! "$VENV/bin/schemathesis" --version 2>/dev/null | grep -q "4.32.5"; then
    echo "==> installing schemathesis 4.32.5 into $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q 'schemathesis==4.32.5'
fi
ST=("$PWD/$VENV/bin/schemathesis")
echo "==> $("${ST[@]}" --version)"

# 3. Debug build (schemathesis looks for wrong answers, not speed).
echo "==> swift build --product crated"
swift build --product crated
CRATED=".build/debug/crated"

# 4. A temporary database with the sample collection; everything removed, the daemon stopped, on exit.
WORK="$(mktemp -d)"
DB="$WORK/crated.sqlite"
SERVE_LOG="$WORK/serve.log"
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$SERVER_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "==> crated import Tests/Fixtures/sample-collection.csv --user collector"
"$CRATED" import Tests/Fixtures/sample-collection.csv --database "$DB" --user collector
# Tracklists come from a Discogs sync, which this run has none of: give every album sides A and B,
# so that a play body the document allows can be played.
python3 Tests/Benchmarks/add-tracklists.py "$DB"
TOKEN="$("$CRATED" token create --user collector --database "$DB" --name schemathesis | tail -n 1 | tr -d '[:space:]')"
if [ -z "$TOKEN" ]; then
    echo "error: crated token create printed no token" >&2
    exit 1
fi

# 5. The daemon on a free port; port 0 makes it print the port it got.
echo "==> crated serve --host 127.0.0.1 --port 0"
"$CRATED" serve --database "$DB" --host 127.0.0.1 --port 0 >"$SERVE_LOG" 2>&1 &
SERVER_PID=$!
BASE_URL=""
deadline=$((SECONDS + STARTUP_TIMEOUT))
while [ "$SECONDS" -lt "$deadline" ]; do
    BASE_URL="$(grep -Eo 'listening on http://127\.0\.0\.1:[0-9]+' "$SERVE_LOG" 2>/dev/null | head -n 1 | sed 's/^listening on //' || true)"
    [ -n "$BASE_URL" ] && break
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        echo "error: crated serve exited before listening:" >&2
        cat "$SERVE_LOG" >&2
        exit 1
    fi
    sleep 0.2
done
if [ -z "$BASE_URL" ]; then
    echo "error: crated serve did not report its port within ${STARTUP_TIMEOUT}s:" >&2
    cat "$SERVE_LOG" >&2
    exit 1
fi
echo "==> daemon at $BASE_URL (pid $SERVER_PID)"

# 6. Settings for single operations, in a schemathesis.toml of the run's own (in the work directory).
#  - The event stream never ends by design. schemathesis (4.x) reads an event stream until it has sent
#    `max-stream-events` events or the request timeout passes, and checks each event against the
#    document's event schema: two events (the current state, and a change if one comes), or 3 s of
#    silence (a `Last-Event-ID` that is already the current revision opens a quiet stream).
#  - PUT /v1/crates/{id}/copies takes only the crate's own copies, each once, in any order: a rule on
#    the crate as it is when the request arrives, which no schema can state. Generated lists are
#    refused with 422 unless the crate is empty and the list too (stateful testing gets there through
#    the document's link from POST /v1/crates), so the "schema validation mismatch" warning says
#    nothing about the document there and is not shown for that operation alone.
CONFIG="$WORK/schemathesis.toml"
cat >"$CONFIG" <<'TOML'
[[operations]]
include-path = "/v1/player/events"
max-stream-events = 2
request-timeout = 3

[[operations]]
include-name = "PUT /v1/crates/{id}/copies"
warnings = ["missing_auth", "missing_test_data", "missing_deserializer", "unsupported_regex"]
TOML

# 7. schemathesis: every operation, positive and negative data, all phases (stateful testing follows
#    the Location of created crates and the document's links), bounded examples per operation and a
#    hard time limit. Not checked: negative_data_rejection/positive_data_acceptance (the server counts
#    characters, JSON Schema code points, and trims crate names before checking them). Left out:
#    DELETE /v1/tokens/current, which would revoke the run's own token (the route tests cover it).
ARGS=(
    --config-file "$CONFIG"
    run "$BASE_URL/v1/openapi.json"
    --url "$BASE_URL"
    --exclude-operation-id revokeCurrentToken
    --header "Authorization: Bearer $TOKEN"
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,unsupported_method,allow_header_conformance
    --max-examples "$MAX_EXAMPLES"
    --request-timeout 10
    --generation-database none
    --no-color
)
if [ -n "$SEED" ]; then ARGS+=(--seed "$SEED"); fi
echo "==> ${ST[*]} ${ARGS[*]//$TOKEN/***} $*"
status=0
# Run from the temporary directory: schemathesis and hypothesis leave caches (.hypothesis/,
# .schemathesis/) in the working directory, which should not land in the repository.
(cd "$WORK" && timeout --signal=INT --kill-after=30 "$TIME_LIMIT" "${ST[@]}" "${ARGS[@]}" "$@") || status=$?

if [ "$status" -eq 124 ]; then
    echo "error: schemathesis did not finish within ${TIME_LIMIT}s" >&2
fi
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "error: the daemon died during the run:" >&2
    tail -n 50 "$SERVE_LOG" >&2
    [ "$status" -ne 0 ] || status=1
fi
if [ "$status" -ne 0 ]; then
    echo "==> schemathesis found failures (exit $status); daemon log: last lines" >&2
    tail -n 20 "$SERVE_LOG" >&2
    exit "$status"
fi
echo "==> schemathesis: no failures"
