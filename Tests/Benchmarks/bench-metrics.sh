#!/usr/bin/env bash
# What metrics cost: a release build of crated serving a generated collection (about 20,000 albums)
# with `metrics.enabled` on and off in turn, ROUNDS times (default 3, the order swapped each round),
# measured with wrk on 127.0.0.1 at 32 connections on /healthz and on a grid page. Prints each side's
# requests/s over all its runs, the daemon's CPU time per request, and the ratios on/off per route:
# the target is within 5%. Alternating in one run puts a neighbour's load on this shared 2-core
# machine on both sides of the ratio.
#
# Usage: Tests/Benchmarks/bench-metrics.sh [ROWS] [SECONDS]   (defaults 20700 and 5 per run)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

ROWS="${1:-20700}"
DURATION="${2:-5}"
ROUNDS="${ROUNDS:-3}"
CONNECTIONS=32
THREADS=2

command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

source Tests/Benchmarks/common.sh

import_generated "$ROWS"
cat > "$WORK/auth.lua" <<LUA
wrk.headers["Authorization"] = "Bearer $TOKEN"
LUA

GRID="/v1/grid/collection?layout=iPhonePortrait&width=390&scale=3"

# serve_with on|off: the daemon with metrics on or off (CRATED_METRICS_ENABLED), checked on /metrics.
serve_with() {
    if [ "$1" = on ]; then unset CRATED_METRICS_ENABLED; else export CRATED_METRICS_ENABLED=false; fi
    start_server "$CRATED" "$DB"
    local status expected
    status="$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE/metrics")"
    expected=$([ "$1" = on ] && echo 200 || echo 404)
    [ "$status" = "$expected" ] || { echo "metrics $1: /metrics answered $status, expected $expected" >&2; exit 1; }
    # Warm up: the grid's snapshot and the read connections.
    wrk -t"$THREADS" -c"$CONNECTIONS" -d1s -s "$WORK/auth.lua" "$BASE$GRID" >/dev/null
}

# The daemon's CPU time so far (user + system), in clock ticks.
server_ticks() { awk '{print $14 + $15}' "/proc/$SERVER_PID/stat"; }
# requests MODE ROUTE URL [SCRIPT]: one wrk run; its request count and the daemon's CPU ticks over it
# added to $WORK/counts.
requests() {
    local out before
    before="$(server_ticks)"
    out="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" ${4:+-s "$4"} "$3")"
    if grep -q "Non-2xx" <<<"$out"; then echo "$1 $2: $(grep Non-2xx <<<"$out")" >&2; exit 1; fi
    local count ticks
    count="$(awk '/requests in/ {print $1}' <<<"$out")"
    ticks=$(($(server_ticks) - before))
    echo "$1 $2 $count $ticks" >> "$WORK/counts"
    awk -v route="$2" -v count="$count" -v ticks="$ticks" -v seconds="$DURATION" -v tick="$(getconf CLK_TCK)" \
        'BEGIN { printf "    %-8s %8.0f r/s %8.1f us CPU/request\n", route, count / seconds, 1e6 * ticks / tick / count }'
}
: > "$WORK/counts"
for round in $(seq 1 "$ROUNDS"); do
    order=$([ $((round % 2)) = 1 ] && echo "on off" || echo "off on")
    for mode in $order; do
        echo "==> round $round: metrics $mode"
        serve_with "$mode"
        requests "$mode" healthz "$BASE/healthz"
        requests "$mode" grid "$BASE$GRID" "$WORK/auth.lua"
        stop_server
    done
done

echo
# Requests/s move with whatever else the machine runs; the daemon's CPU time per request much less.
awk -v seconds="$((DURATION * ROUNDS))" -v tick="$(getconf CLK_TCK)" '
    { total[$1 " " $2] += $3; ticks[$1 " " $2] += $4 }
    END {
        printf "%-8s %14s %14s %8s %16s %16s %8s\n", "route", "metrics on", "metrics off", "on/off", "CPU/request on", "CPU/request off", "on/off"
        split("healthz grid", routes, " ")
        for (i = 1; i <= 2; i++) {
            r = routes[i]; on = total["on " r] / seconds; off = total["off " r] / seconds
            cpuOn = 1e6 * ticks["on " r] / tick / total["on " r]; cpuOff = 1e6 * ticks["off " r] / tick / total["off " r]
            printf "%-8s %10.0f r/s %10.0f r/s %7.1f%% %13.1f us %13.1f us %7.1f%%\n", r, on, off, 100 * on / off, cpuOn, cpuOff, 100 * cpuOn / cpuOff
        }
    }' "$WORK/counts"
