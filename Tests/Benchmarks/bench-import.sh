#!/usr/bin/env bash
# Benchmark `crated import` on a synthetic Discogs collection export.
#
# Usage: Tests/Benchmarks/bench-import.sh [ROWS]        (default 200000)
#
# Builds crated in release mode, generates ROWS rows with Tests/Benchmarks/gen-discogs-csv.py
# (fixed seed, so runs are comparable), imports them into a fresh SQLite database and
# reports wall-clock time, rows per second and peak resident memory.
# With BASELINE=path/to/another/crated, that binary imports the same file into a fresh database in
# turn with this one, ROUNDS times each (default 3), and the medians of both are printed: a shared
# machine's load moves single runs by 10-20%.
# Targets: >= 60000 rows/s and peak RSS < 150 MB (MiB, as reported by /usr/bin/time).
# Exits non-zero if the build, the generator or the import fails; missing a target is
# reported but does not change the exit status.
set -euo pipefail

ROWS="${1:-200000}"
if ! [[ "$ROWS" =~ ^[0-9]+$ ]] || [ "$ROWS" -eq 0 ]; then
    echo "usage: $0 [ROWS]   (ROWS a positive integer, default 200000)" >&2
    exit 64
fi
SEED=1
TARGET_RPS=60000
TARGET_RSS_MB=150

# 1. Repository root (this script lives in Tests/Benchmarks/).
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# 2. Release build.
echo "==> swift build -c release --product crated"
swift build -c release --product crated
CRATED=".build/release/crated"

# /usr/bin/time (GNU time) for the peak RSS figure.
if [ ! -x /usr/bin/time ]; then
    echo "==> installing GNU time (/usr/bin/time)"
    SUDO=""
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq time
fi

# 3. Input file in a temporary directory, removed on exit.
TMPDIR_BENCH="$(mktemp -d)"
trap 'rm -rf "$TMPDIR_BENCH"' EXIT
CSV="$TMPDIR_BENCH/discogs-$ROWS.csv"
DB="$TMPDIR_BENCH/bench.sqlite"

echo "==> generating $ROWS rows (seed $SEED)"
python3 Tests/Benchmarks/gen-discogs-csv.py --rows "$ROWS" --seed "$SEED" --out "$CSV"
SIZE_BYTES="$(wc -c <"$CSV" | tr -d ' ')"

# 4. Timed import of the file by the binary $1 into a fresh database; sets SECONDS_TAKEN, RPS, RSS_KB.
run_import() {
    local binary="$1"
    rm -f "$DB" "$DB-wal" "$DB-shm"
    STDOUT_FILE="$TMPDIR_BENCH/stdout"
    STDERR_FILE="$TMPDIR_BENCH/stderr"
    TIME_FILE="$TMPDIR_BENCH/time"
    local start end status
    start="$(date +%s.%N)"
    set +e
    /usr/bin/time -v -o "$TIME_FILE" \
        "$binary" import "$CSV" --database "$DB" --user bench --json \
        >"$STDOUT_FILE" 2>"$STDERR_FILE"
    status=$?
    set -e
    end="$(date +%s.%N)"

    # A failed import fails the benchmark.
    if [ "$status" -ne 0 ]; then
        echo "error: $binary import failed with exit status $status" >&2
        echo "--- stderr ---" >&2
        cat "$STDERR_FILE" >&2
        if [ -s "$STDOUT_FILE" ]; then
            echo "--- stdout ---" >&2
            cat "$STDOUT_FILE" >&2
        fi
        exit "$status"
    fi
    RSS_KB="$(awk -F': *' '/Maximum resident set size/ {print $2}' "$TIME_FILE")"
    if [ -z "$RSS_KB" ]; then
        echo "error: no 'Maximum resident set size' in /usr/bin/time output:" >&2
        cat "$TIME_FILE" >&2
        exit 1
    fi
    read -r SECONDS_TAKEN RPS < <(awk -v s="$start" -v e="$end" -v rows="$ROWS" 'BEGIN {
        secs = e - s; if (secs <= 0) secs = 0.000001; printf "%.3f %d\n", secs, int(rows / secs) }')
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

if [ -n "${BASELINE:-}" ]; then
    ROUNDS="${ROUNDS:-3}"
    [ -x "$BASELINE" ] || { echo "BASELINE=$BASELINE is not an executable" >&2; exit 64; }
    this_rps=(); base_rps=(); this_rss=(); base_rss=()
    for round in $(seq 1 "$ROUNDS"); do
        run_import "$CRATED"; this_rps+=("$RPS"); this_rss+=("$RSS_KB")
        echo "    round $round: this build  $RPS rows/s ($SECONDS_TAKEN s, peak $((RSS_KB / 1024)) MiB)"
        run_import "$BASELINE"; base_rps+=("$RPS"); base_rss+=("$RSS_KB")
        echo "    round $round: baseline    $RPS rows/s ($SECONDS_TAKEN s, peak $((RSS_KB / 1024)) MiB)"
    done
    this_median="$(printf '%s\n' "${this_rps[@]}" | median)"
    base_median="$(printf '%s\n' "${base_rps[@]}" | median)"
    echo
    echo "== crated import benchmark, $ROUNDS rounds in turn =="
    printf '%-22s %s rows/s (median), peak %s MiB\n' "this build:" "$this_median" "$(( $(printf '%s\n' "${this_rss[@]}" | sort -n | tail -1) / 1024 ))"
    printf '%-22s %s rows/s (median), peak %s MiB\n' "baseline:" "$base_median" "$(( $(printf '%s\n' "${base_rss[@]}" | sort -n | tail -1) / 1024 ))"
    awk -v a="$this_median" -v b="$base_median" 'BEGIN { printf "%-22s %.2fx\n", "this / baseline:", a / b }'
    exit 0
fi

run_import "$CRATED"

# 5. Report.
read -r SIZE_MB RSS_MB RPS_OK RSS_OK < <(
    awk -v rps="$RPS" -v bytes="$SIZE_BYTES" -v kb="$RSS_KB" -v trps="$TARGET_RPS" -v trss="$TARGET_RSS_MB" 'BEGIN {
        rss = kb / 1024
        printf "%.1f %.1f %s %s\n", bytes / 1048576, rss, (rps >= trps ? "yes" : "no"), (rss < trss ? "yes" : "no")
    }'
)

echo
echo "== crated import benchmark =="
printf '%-14s %s\n' "rows:" "$ROWS"
printf '%-14s %s MiB\n' "file size:" "$SIZE_MB"
printf '%-14s %s s\n' "wall clock:" "$SECONDS_TAKEN"
printf '%-14s %s\n' "rows/s:" "$RPS"
printf '%-14s %s MiB (%s KB)\n' "peak RSS:" "$RSS_MB" "$RSS_KB"
echo "summary (crated stdout):"
cat "$STDOUT_FILE"
[ -z "$(tail -c 1 "$STDOUT_FILE")" ] || echo
echo
printf 'target >= %d rows/s:  %s (%s)\n' "$TARGET_RPS" "$([ "$RPS_OK" = yes ] && echo MET || echo MISSED)" "$RPS"
printf 'target peak < %d MB: %s (%s MiB)\n' "$TARGET_RSS_MB" "$([ "$RSS_OK" = yes ] && echo MET || echo MISSED)" "$RSS_MB"
