#!/usr/bin/env bash
# The web client's tests in a real browser: Debian's chromium and chromium-driver, Selenium from
# PyPI in a virtual environment under .build. Installs what is missing (only that with
# --install-only). Needs `swift build` first.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

missing=()
for package in chromium chromium-driver; do dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package"); done
if ((${#missing[@]})); then
    echo "==> installing ${missing[*]}"
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
venv=.build/web-venv
if ! "$venv/bin/python" -c 'import selenium' 2>/dev/null; then
    echo "==> installing selenium into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q selenium
fi
[ "${1:-}" = "--install-only" ] && exit 0
export SE_AVOID_STATS=true
exec "$venv/bin/python" Tests/WebTests/test_web.py "$@"
