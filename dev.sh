#!/usr/bin/env bash
# crated's developer entry point: installs what is missing, then builds and runs or tests.
#   ./dev.sh run    build, import the sample collection, start the daemon on 127.0.0.1:8080
#   ./dev.sh test   build and run the whole test suite, the generated Swift client against a live
#                   daemon, the web client's tests in headless Chromium, then schemathesis against
#                   the OpenAPI document
#   ./dev.sh bench import [ROWS]   the import benchmark (release build)
#   ./dev.sh bench sync [RELEASES] the sync benchmark against a local fake Discogs (release build)
#   ./dev.sh bench api [ROWS] [SECONDS]   the HTTP API and grid benchmark with wrk (release build)
#   ./dev.sh bench player          200 event streams of 20 users under 200 commands/s (release build)
#   ./dev.sh bench load [SCENARIO ...]   lock holder, import while serving, filter mix, a herd
#                                  after a change, half-open flood and a soak, on 200,000 albums
#                                  (release build)
#   ./dev.sh bench web [ALBUMS] [RUNS]   the web client's first visit and reload in headless
#                                  Chromium on 200,000 albums (release build)
#   ./dev.sh bench artwork [COVERS] libvips variants, a cold grid page of covers, a cached variant
#                                  under wrk, memory while making variants (release build)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# System packages crated builds against: SQLite (GRDB), libcurl (sync), libvips, libjpeg-turbo and
# libswscale (covers); python3 for the benchmarks.
# With arguments, those packages too (the tests add chromium and chromium-driver for the web client,
# python3-venv for the Python tools they install from PyPI).
ensure_system_packages() {
    # Swift first: without it there is nothing to install packages for.
    local version
    version=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | head -n 1)
    if [ -z "$version" ] || ! printf '6.2\n%s\n' "$version" | sort -V -C; then
        echo "crated needs Swift 6.2 or later on PATH (found: ${version:-none})" >&2
        exit 1
    fi
    local missing=()
    for package in libsqlite3-dev libcurl4-openssl-dev libvips-dev libturbojpeg0-dev libjpeg62-turbo-dev \
                   libswscale-dev libwebp-dev pkg-config python3 "$@"; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    if ((${#missing[@]})); then
        echo "==> installing ${missing[*]}"
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

case "${1:-}" in
run)
    ensure_system_packages
    swift build --product crated
    data="${CRATED_DEV_DATA:-.build/dev}"
    database="$data/crated.sqlite"
    mkdir -p "$data"
    crated=".build/debug/crated"
    # The kept token and password belong to the database they were made in: a fresh one gets new ones.
    [ -e "$database" ] || rm -f "$data/token" "$data/password"
    # The sample collection (importing it again changes nothing), and one token kept for the
    # next runs so the curl line below stays valid.
    "$crated" import Tests/Fixtures/sample-collection.csv --database "$database" --user collector
    if [ ! -s "$data/token" ]; then
        "$crated" token create --user collector --name dev.sh --database "$database" > "$data/token"
    fi
    # A password for the web client, made once and kept beside the token.
    if [ ! -s "$data/password" ]; then
        head -c 12 /dev/urandom | base64 | tr -d '/+=' > "$data/password"
        "$crated" user passwd collector --database "$database" < "$data/password" >/dev/null
    fi
    port="${CRATED_SERVER_PORT:-8080}"
    cat <<EOF2

Open http://127.0.0.1:$port/ and sign in as 'collector' with the password $(cat "$data/password")
(also in $data/password).

Token for user 'collector' (also in $data/token):
  $(cat "$data/token")
Try:
  curl -s -H "Authorization: Bearer $(cat "$data/token")" 'http://127.0.0.1:$port/v1/search?q=blue'
  curl -s 'http://127.0.0.1:$port/v1/openapi.json'

EOF2
    # The sample's release ids are those of the recorded Discogs responses the tests use, not of its
    # albums: a sync against Discogs would rename them, so the demo runs with sync off.
    CRATED_SYNC_ENABLED=false exec "$crated" serve --database "$database" --port "$port"
    ;;
test)
    ensure_system_packages chromium chromium-driver python3-venv
    # Build the tests once, then run them without rebuilding (building and testing separately
    # would rebuild the dependencies each time).
    swift build --build-tests
    swift test --skip-build
    # The Swift client generated from openapi.json, against a live daemon (its own package and
    # .build in Clients/CratedClient): a document change that breaks the generated client fails here.
    Clients/CratedClient/run-integration.sh
    # The web client in a real browser (Selenium from PyPI in .build/web-venv, installed when missing).
    Tests/WebTests/run.sh
    # The live daemon against its own OpenAPI document (schemathesis from PyPI in .build/contract-venv):
    # a fixed seed and few cases per operation, so the run is the same every time and takes minutes.
    MAX_EXAMPLES=10 SEED=20261126 TIME_LIMIT=900 Tests/Contract/schemathesis.sh
    ;;
bench)
    ensure_system_packages
    shift
    case "${1:-}" in
    import) shift; exec Tests/Benchmarks/bench-import.sh "$@" ;;
    sync) shift; exec Tests/Benchmarks/bench-sync.sh "$@" ;;
    api) shift; exec Tests/Benchmarks/bench-api.sh "$@" ;;
    player) shift; exec Tests/Benchmarks/bench-player.sh "$@" ;;
    load) shift; exec Tests/Benchmarks/bench-load.sh "$@" ;;
    web) shift; exec Tests/Benchmarks/bench-web.sh "$@" ;;
    metrics) shift; exec Tests/Benchmarks/bench-metrics.sh "$@" ;;
    artwork) shift; exec Tests/Benchmarks/bench-artwork.sh "$@" ;;
    *) echo "usage: ./dev.sh bench import [ROWS] | bench sync [RELEASES] | bench api [ROWS] [SECONDS] | bench player | bench load [SCENARIO ...] | bench artwork [COVERS] | bench web [ALBUMS] [RUNS] | bench metrics [ROWS] [SECONDS]" >&2; exit 64 ;;
    esac
    ;;
*)
    echo "usage: ./dev.sh run | test | bench import|sync|api ..." >&2
    exit 64
    ;;
esac
