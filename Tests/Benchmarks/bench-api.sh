#!/usr/bin/env bash
# The API benchmark: a release build of crated serving a generated collection of about 200,000
# albums, measured with wrk on 127.0.0.1 at 32 connections: album detail, crate list, search, and
# grid pages (first, 150,000 items deep by cursor, around= a deep album) for iPhonePortrait and
# iPadFullscreen, next to /healthz in the same run, and iPad pages at random places (cells the daemon
# has not kept). Prints requests/s, p50/p99 latency and the server's CPU time per request (user +
# system, from /proc) of each, then each grid route's share of /healthz. Throughput on a shared 2-core
# machine moves from one hour to the next; CPU per request, measured in turn, moves much less.
#
# Usage: Tests/Benchmarks/bench-api.sh [ROWS] [SECONDS]   (defaults 207000, about 200,000 albums, and 10)
# With BASELINE=path/to/another/crated, that binary serves the same database in turn with this one,
# ROUNDS times (default 2), so that the two are compared in one run. It must know the database's
# migrations.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# The daemon syncs in the background: keep it on this machine (a closed port on loopback).
export CRATED_DISCOGS_BASE_URL="http://127.0.0.1:9"

ROWS="${1:-207000}"
DURATION="${2:-10}"
CONNECTIONS=32
THREADS=2

command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

echo "==> swift build -c release --product crated"
swift build -c release --product crated >/dev/null
CRATED=.build/release/crated

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
"$CRATED" import "$WORK/collection.csv" --database "$DB" --user bench >/dev/null
TOKEN="$("$CRATED" token create --user bench --database "$DB")"

# Starts `crated serve` of the binary $1 on a free port; sets SERVER_PID and BASE.
start_server() {
    "$1" serve --database "$DB" --port 0 > "$WORK/serve.log" 2>&1 &
    SERVER_PID=$!
    local port=""
    for _ in $(seq 1 200); do
        port="$(sed -n 's#.*listening on http://127.0.0.1:\([0-9]*\).*#\1#p' "$WORK/serve.log")"
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { cat "$WORK/serve.log"; echo "serve did not start" >&2; exit 1; }
    BASE="http://127.0.0.1:$port"
}

stop_server() {
    kill "$SERVER_PID" && wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

# Album ids to ask for: spread over the whole catalogue, read from the database.
ALBUMS="$(sqlite3 "$DB" "SELECT MAX(id) FROM album")"
# A crate and a search word that exist in the generated collection.
SEARCH_WORD="$(sqlite3 "$DB" "SELECT lower(substr(title, 1, instr(title || ' ', ' ') - 1)) FROM album WHERE id >= 1000 AND title GLOB '[A-Za-z][a-z][a-z]*' LIMIT 1")"

cat > "$WORK/album.lua" <<LUA
math.randomseed(42)
request = function()
    return wrk.format("GET", "/v1/albums/" .. math.random(1, $ALBUMS), { ["Authorization"] = "Bearer $TOKEN" })
end
LUA
# Searches as clients type them: every prefix (two letters or more) of the catalogue's title words and
# 500 two-word queries, in random order. Rankings are kept for 256 expressions, so most of these rank
# their matches afresh: next to the one repeated word above, this is search without the kept rankings.
sqlite3 "$DB" "SELECT DISTINCT lower(title) FROM album" | python3 -c '
import random, re, sys
words = sorted({w for line in sys.stdin for w in re.findall(r"[a-z]{2,}", line)})
queries = {w[:n] for w in words for n in range(2, len(w) + 1)}
rng = random.Random(11)
queries |= {a + "%20" + b for a, b in (rng.sample(words, 2) for _ in range(500))}
print("\n".join(sorted(queries)))' > "$WORK/queries"
cat > "$WORK/typing.lua" <<LUA
local queries = {}
for line in io.lines("$WORK/queries") do queries[#queries + 1] = line end
math.randomseed(42)
request = function()
    return wrk.format("GET", "/v1/search?q=" .. queries[math.random(#queries)], { ["Authorization"] = "Bearer $TOKEN" })
end
LUA
cat > "$WORK/random-at.lua" <<LUA
math.randomseed(42)
request = function()
    return wrk.format("GET", "/v1/grid/collection?layout=iPadFullscreen&at=" .. math.random(0, $ALBUMS - 1), { ["Authorization"] = "Bearer $TOKEN" })
end
LUA
cat > "$WORK/auth.lua" <<LUA
wrk.headers["Authorization"] = "Bearer $TOKEN"
LUA

# The server's CPU time so far, in clock ticks (user + system).
server_ticks() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }

# One route under wrk: requests/s, latency, and the server's CPU time per request.
measure() {
    local name="$1" url="$2" script="$3"
    local out before after
    before="$(server_ticks)"
    out="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency ${script:+-s "$script"} "$url")"
    after="$(server_ticks)"
    local rps p50 p99 non2xx requests cpu
    rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
    p50="$(awk '$1 == "50%" {print $2}' <<<"$out")"
    p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
    non2xx="$(awk '/Non-2xx/ {print $NF}' <<<"$out")"
    requests="$(awk '/requests in/ {print $1}' <<<"$out")"
    cpu="$(awk -v ticks="$((after - before))" -v hz="$(getconf CLK_TCK)" -v n="$requests" 'BEGIN {printf "%.0f", ticks / hz * 1e6 / n}')"
    printf '%-26s %10s req/s   p50 %8s   p99 %8s   %5s us CPU/request   %s\n' \
        "$name" "$rps" "$p50" "$p99" "$cpu" "${non2xx:+non-2xx: $non2xx}"
    echo "$name|$rps" >> "$WORK/rates"
}

# Grid positions: a cursor 150,000 items deep and an album there, read off the daemon itself.
json_field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
deep_cursor() { curl -s -H "Authorization: Bearer $TOKEN" "$BASE/v1/grid/collection?layout=$1&at=150000" | json_field "d['next']"; }
ALBUM_COUNT="$(sqlite3 "$DB" "SELECT COUNT(*) FROM album")"

# Every route against the binary $1.
measure_all() {
    start_server "$1"
    local deep_album
    deep_album="$(curl -s -H "Authorization: Bearer $TOKEN" "$BASE/v1/grid/collection?layout=iPhonePortrait&at=150000" | json_field "d['items'][0]['albumId']")"
    : > "$WORK/rates"
    measure "/healthz" "$BASE/healthz" ""
    measure "album detail" "$BASE/v1/albums/1" "$WORK/album.lua"
    measure "crate list" "$BASE/v1/crates" "$WORK/auth.lua"
    measure "search" "$BASE/v1/search?q=$SEARCH_WORD" "$WORK/auth.lua"
    measure "search typing" "$BASE/v1/search" "$WORK/typing.lua"
    for layout in iPhonePortrait iPadFullscreen; do
        measure "grid first $layout" "$BASE/v1/grid/collection?layout=$layout" "$WORK/auth.lua"
        measure "grid deep $layout" "$BASE/v1/grid/collection?layout=$layout&cursor=$(deep_cursor "$layout")" "$WORK/auth.lua"
        measure "grid around $layout" "$BASE/v1/grid/collection?layout=$layout&around=$deep_album" "$WORK/auth.lua"
    done
    # Not one of the targets: pages at random places in the whole grid, so that their cells are
    # rarely among those the daemon keeps: what a page costs when none of its albums was shown before.
    measure "grid random at= iPad" "$BASE/v1/grid/collection" "$WORK/random-at.lua"
    awk -F'|' '$1 == "/healthz" {h = $2} $1 == "album detail" {a = $2} $1 ~ /^grid (first|deep|around)/ {g[$1] = $2} END {
        printf "album detail / healthz = %.0f%% (target >= 40%%)\n", 100 * a / h
        for (name in g) printf "%s / healthz = %.0f%% (target >= 40%%)\n", name, 100 * g[name] / h }' "$WORK/rates" | sort
    stop_server
}

echo "==> wrk, $CONNECTIONS connections, ${DURATION}s each, $ROWS rows ($ALBUM_COUNT albums), search for '$SEARCH_WORD', typing $(wc -l < "$WORK/queries") distinct queries"
if [ -z "${BASELINE:-}" ]; then
    measure_all "$CRATED"
else
    for round in $(seq 1 "${ROUNDS:-2}"); do
        echo "==> round $round: this build ($CRATED)"
        measure_all "$CRATED"
        echo "==> round $round: baseline ($BASELINE)"
        measure_all "$BASELINE"
    done
fi
