#!/usr/bin/env bash
# The artwork benchmark, on a release build:
#  1. variants alone: time per variant of a 600x600 JPEG on one thread (crated-artwork-bench);
#  2. a cold grid page of 30 covers: `serve` fetches each original from an image host on 127.0.0.1,
#     makes its variant and sends it; the time until all 30 have arrived, six at a time as a browser
#     loads them;
#  3. one cached variant at 32 connections with wrk, next to /healthz in the same run;
#  4. serve's memory (VmHWM, RssAnon) after making COVERS x 3 variants in WebP, then in JPEG, with
#     8 clients at once.
# Usage: Tests/Benchmarks/bench-artwork.sh [COVERS]   (default 300)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

COVERS="${1:-300}"
DURATION="${DURATION:-10}"
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
command -v sqlite3 >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3 >/dev/null; }

source Tests/Benchmarks/common.sh
echo "==> swift build -c release --product crated-artwork-bench"
swift build -c release --product crated-artwork-bench >/dev/null
BENCH="$PWD/.build/release/crated-artwork-bench"

echo "==> variants alone"
"$BENCH"

echo "==> $COVERS covers on an image host on 127.0.0.1"
"$BENCH" images "$WORK/images" "$COVERS"
python3 -m http.server --bind 127.0.0.1 --directory "$WORK/images" 0 > "$WORK/images.log" 2>&1 &
IMAGES_PID=$!
trap 'kill $IMAGES_PID 2>/dev/null || true; cleanup' EXIT
IMAGES_PORT=""
for _ in $(seq 1 100); do
    IMAGES_PORT="$(sed -n 's#.*port \([0-9]*\).*#\1#p' "$WORK/images.log" | head -1)"
    [ -n "$IMAGES_PORT" ] && break
    sleep 0.1
done
[ -n "$IMAGES_PORT" ] || { cat "$WORK/images.log"; exit 1; }

import_generated "$COVERS"
# One 600x600 cover per album, as sync writes them (the migration's triggers give each its key).
sqlite3 "$DB" "INSERT INTO album_image (album_id, position, kind, uri, uri150, width, height)
               SELECT id, 0, 'primary', 'http://127.0.0.1:$IMAGES_PORT/' || ((id - 1) % $COVERS) || '.jpg', '', 600, 600 FROM album"

# The image host is this machine: no need to pace requests to it as to Discogs' hosts.
export CRATED_ARTWORK_REQUESTS_PER_MINUTE=6000
start_server "$CRATED" "$DB"
python3 Tests/Benchmarks/bench-artwork.py --base "$BASE" --token "$TOKEN" --pid "$SERVER_PID" --duration "$DURATION" --work "$WORK"
