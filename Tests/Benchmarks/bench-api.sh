#!/usr/bin/env bash
# The API benchmark: a release build of crated serving a generated collection of about 200,000
# albums, measured with wrk on 127.0.0.1 at 32 connections: album detail, crate list, search, and
# grid pages (first, 150,000 items deep by cursor, around= a deep album) for iPhonePortrait and
# iPadFullscreen, next to /healthz in the same run, and iPad pages at random places (cells the daemon
# has not kept). Prints requests/s, p50/p99 latency and the server's CPU time per request (user +
# system, from /proc) of each. Each grid route runs in turn with /healthz, PAIRS times (default 3), and
# its share of /healthz is taken over those runs: throughput on a shared 2-core machine moves from one
# minute to the next, and a neighbour's load then weighs on both sides of the ratio.
#
# Usage: Tests/Benchmarks/bench-api.sh [ROWS] [SECONDS]   (defaults 207000, about 200,000 albums, and 10)
# With BASELINE=path/to/another/crated, that binary serves the same database in turn with this one,
# ROUNDS times (default 2), so that the two are compared in one run. It must know the database's
# migrations.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

ROWS="${1:-207000}"
DURATION="${2:-10}"
# Grid pages are measured in turn with /healthz, this many times (see `measure_share`).
PAIRS="${PAIRS:-3}"
CONNECTIONS=32
THREADS=2

command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

source Tests/Benchmarks/common.sh

import_generated "$ROWS"

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
cat > "$WORK/auth-gzip.lua" <<LUA
wrk.headers["Authorization"] = "Bearer $TOKEN"
wrk.headers["Accept-Encoding"] = "gzip"
LUA

# The server's CPU time so far, in clock ticks (user + system).
server_ticks() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }

# One wrk run: sets RPS, P50, P99, REQUESTS, TICKS (the server's CPU clock ticks) and NON2XX.
run_wrk() {
    local url="$1" script="$2" seconds="$3" before after out
    before="$(server_ticks)"
    out="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${seconds}s" --latency ${script:+-s "$script"} "$url")"
    after="$(server_ticks)"
    RPS="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
    P50="$(awk '$1 == "50%" {print $2}' <<<"$out")"
    P99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
    NON2XX="$(awk '/Non-2xx/ {print $NF}' <<<"$out")"
    REQUESTS="$(awk '/requests in/ {print $1}' <<<"$out")"
    TICKS=$((after - before))
}

cpu_per_request() { awk -v ticks="$1" -v hz="$(getconf CLK_TCK)" -v n="$2" 'BEGIN {printf "%.0f", ticks / hz * 1e6 / n}'; }

# One route under wrk: requests/s, latency, and the server's CPU time per request.
measure() {
    local name="$1" url="$2" script="$3"
    run_wrk "$url" "$script" "$DURATION"
    printf '%-26s %10s req/s   p50 %8s   p99 %8s   %5s us CPU/request   %s\n' \
        "$name" "$RPS" "$P50" "$P99" "$(cpu_per_request "$TICKS" "$REQUESTS")" "${NON2XX:+non-2xx: $NON2XX}"
    echo "$name|$RPS" >> "$WORK/rates"
}

# A grid route and /healthz in turn, PAIRS times, DURATION/PAIRS seconds each (rounded up): its share of /healthz
# is measured against /healthz of the same minute, so that a neighbour's load on this shared machine
# weighs on both. Prints the route's requests/s and share over all its runs, its median p50 and its
# worst p99 (and /healthz's median p50 beside it), and its CPU time per request.
measure_share() {
    local name="$1" url="$2" script="$3" seconds=$(( (DURATION + PAIRS - 1) / PAIRS ))
    local route_requests=0 health_requests=0 route_ticks=0 p50s="" health_p50s="" p99s=""
    for _ in $(seq 1 "$PAIRS"); do
        run_wrk "$BASE/healthz" "" "$seconds"
        health_requests=$((health_requests + REQUESTS)); health_p50s="$health_p50s $P50"
        run_wrk "$url" "$script" "$seconds"
        route_requests=$((route_requests + REQUESTS)); route_ticks=$((route_ticks + TICKS))
        p50s="$p50s $P50"; p99s="$p99s $P99"
        [ -n "$NON2XX" ] && echo "$name: non-2xx responses: $NON2XX"
    done
    # wrk prints latencies as 850.00us, 1.20ms or 1.01s: in microseconds for sorting.
    local in_us='{ v = $1; if (v ~ /us$/) v += 0; else if (v ~ /ms$/) v *= 1000; else if (v ~ /s$/) v *= 1e6; print v }'
    local p50 health_p50 p99
    p50="$(tr ' ' '\n' <<<"$p50s" | grep . | awk "$in_us" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')"
    health_p50="$(tr ' ' '\n' <<<"$health_p50s" | grep . | awk "$in_us" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')"
    p99="$(tr ' ' '\n' <<<"$p99s" | grep . | awk "$in_us" | sort -n | tail -1)"
    awk -v name="$name" -v r="$route_requests" -v h="$health_requests" -v s="$((seconds * PAIRS))" -v p50="$p50" -v hp50="$health_p50" \
        -v p99="$p99" -v cpu="$(cpu_per_request "$route_ticks" "$route_requests")" 'BEGIN {
        printf "%-26s %10.0f req/s   p50 %6.2fms   p99 %6.2fms   %5s us CPU/request   %3.0f%% of /healthz (its p50 %.2fms)\n",
            name, r / s, p50 / 1000, p99 / 1000, cpu, 100 * r / h, hp50 / 1000 }'
    echo "$name|$((100 * route_requests / health_requests))|$p50|$p99" >> "$WORK/shares"
}

# Grid positions: a cursor 150,000 items deep and an album there, read off the daemon itself.
json_field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
deep_cursor() { curl -s -H "Authorization: Bearer $TOKEN" "$BASE/v1/grid/collection?layout=$1&at=150000" | json_field "d['next']"; }
ALBUM_COUNT="$(sqlite3 "$DB" "SELECT COUNT(*) FROM album")"

# Every route against the binary $1.
measure_all() {
    start_server "$1" "$DB"
    local deep_album
    deep_album="$(curl -s -H "Authorization: Bearer $TOKEN" "$BASE/v1/grid/collection?layout=iPhonePortrait&at=150000" | json_field "d['items'][0]['albumId']")"
    : > "$WORK/rates"
    measure "/healthz" "$BASE/healthz" ""
    measure "album detail" "$BASE/v1/albums/1" "$WORK/album.lua"
    measure "crate list" "$BASE/v1/crates" "$WORK/auth.lua"
    measure "search" "$BASE/v1/search?q=$SEARCH_WORD" "$WORK/auth.lua"
    measure "search typing" "$BASE/v1/search" "$WORK/typing.lua"
    awk -F'|' '$1 == "/healthz" {h = $2} $1 == "album detail" {printf "album detail / healthz = %.0f%% (target >= 40%%)\n", 100 * $2 / h}' "$WORK/rates"
    echo "--> grid pages, each in turn with /healthz ($PAIRS times)"
    : > "$WORK/shares"
    for layout in iPhonePortrait iPadFullscreen; do
        measure_share "grid first $layout" "$BASE/v1/grid/collection?layout=$layout" "$WORK/auth.lua"
        measure_share "grid deep $layout" "$BASE/v1/grid/collection?layout=$layout&cursor=$(deep_cursor "$layout")" "$WORK/auth.lua"
        measure_share "grid around $layout" "$BASE/v1/grid/collection?layout=$layout&around=$deep_album" "$WORK/auth.lua"
    done
    awk -F'|' '{p50[$1] = $3} END {
        for (name in p50) if (name ~ /^grid deep/) {
            first = name; sub(/deep/, "first", first)
            printf "%s p50 / first page p50 = %.2fx (target <= 1.25x)\n", name, p50[name] / p50[first]
        } }' "$WORK/shares" | sort
    awk -F'|' '$2 < 40 {low = low " " $1} $4 >= 10000 {slow = slow " " $1} END {
        print "every grid page >= 40% of /healthz: " (low == "" ? "yes" : "no:" low)
        print "every grid p99 < 10 ms: " (slow == "" ? "yes" : "no:" slow) }' "$WORK/shares"
    # Not one of the targets: pages at random places in the whole grid, so that their cells are
    # rarely among those the daemon keeps: what a page costs when none of its albums was shown before.
    measure "grid random at= iPad" "$BASE/v1/grid/collection" "$WORK/random-at.lua"
    # Nor this: a page gzipped, as URLSession asks for it (`Accept-Encoding: gzip`), beside the same
    # page plain, for an iPhone's page and a page of 500 cells.
    local page
    for page in "layout=iPhonePortrait" "layout=iPadFullscreen&limit=500"; do
        local plain_bytes gzip_bytes
        plain_bytes="$(curl -s -o /dev/null -w '%{size_download}' -H "Authorization: Bearer $TOKEN" "$BASE/v1/grid/collection?$page")"
        gzip_bytes="$(curl -s -o /dev/null -w '%{size_download}' -H "Authorization: Bearer $TOKEN" -H "Accept-Encoding: gzip" "$BASE/v1/grid/collection?$page")"
        measure "grid $page plain" "$BASE/v1/grid/collection?$page" "$WORK/auth.lua"
        measure "grid $page gzip" "$BASE/v1/grid/collection?$page" "$WORK/auth-gzip.lua"
        awk -F'|' -v page="$page" -v plain="$plain_bytes" -v gz="$gzip_bytes" '
            $1 == "grid " page " plain" {p = $2} $1 == "grid " page " gzip" {g = $2}
            END {printf "grid %s gzipped: %d of %d bytes (%.0f%%), %.2fx the requests/s of the plain page\n", page, gz, plain, 100 * gz / plain, g / p}' "$WORK/rates"
    done
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
