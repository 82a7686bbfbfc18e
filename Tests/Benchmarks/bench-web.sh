#!/usr/bin/env bash
# The web client's speed (issue 16): bytes of the first visit before covers, and navigation to the
# first grid rows drawn in headless Chromium, cold and after a reload, against ALBUMS albums
# (default 200,000) on 127.0.0.1. Release build. Usage: Tests/Benchmarks/bench-web.sh [ALBUMS] [RUNS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
albums="${1:-200000}"
runs="${2:-5}"
# Installs chromium, chromium-driver and Selenium when missing (the browser tests' runner does it).
Tests/WebTests/run.sh --install-only
source Tests/Benchmarks/common.sh
export SE_AVOID_STATS=true
.build/web-venv/bin/python Tests/Benchmarks/bench-web.py --crated "$CRATED" --work "$WORK" --albums "$albums" --runs "$runs"
