#!/usr/bin/env python3
"""The web client's first visit and reload in headless Chromium against a large collection on
127.0.0.1: bytes transferred before covers, and the time from navigation to the first grid rows
drawn (the page marks `crated:grid-drawn` in the frame that shows them). Run by bench-web.sh."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "WebTests"))
import harness  # noqa: E402

MEASURE = """
const done = arguments[arguments.length - 1];
const poll = () => {
  const mark = performance.getEntriesByName('crated:grid-drawn')[0];
  if (!mark) return setTimeout(poll, 20);
  const navigation = performance.getEntriesByType('navigation')[0];
  const resources = performance.getEntriesByType('resource').filter((r) => !r.name.includes('/v1/artwork/'));
  done({
    drawnMs: mark.startTime,
    bytes: navigation.transferSize + resources.reduce((sum, r) => sum + r.transferSize, 0),
    requests: 1 + resources.length,
    cached: resources.filter((r) => r.transferSize === 0).length,
  });
};
poll();
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--crated", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--albums", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--width", type=int, default=1366)
    parser.add_argument("--height", type=int, default=1024)
    options = parser.parse_args()

    started = time.time()
    server = harness.Server(Path(options.crated), options.albums, work=Path(options.work))
    print(f"collection: {options.albums} albums imported in {time.time() - started:.1f} s")
    server.start()
    status, body, headers = server.call("POST", "/v1/session", {"name": harness.USER, "password": harness.PASSWORD}, token=None)
    assert status == 201, body
    cookie = headers["Set-Cookie"].split(";")[0].split("=", 1)[1]

    driver = harness.chromium(server.work, options.width, options.height)
    try:
        harness.set_viewport(driver, options.width, options.height)
        driver.set_script_timeout(30)
        driver.get(server.base + "/healthz")
        driver.add_cookie({"name": "crated_session", "value": cookie, "path": "/", "httpOnly": True, "sameSite": "Strict"})
        driver.execute_cdp_cmd("Network.enable", {})
        first, reload = [], []
        for _ in range(options.runs):
            driver.execute_cdp_cmd("Network.clearBrowserCache", {})
            driver.get(server.base + "/healthz")
            driver.execute_script("sessionStorage.clear()")
            driver.get(server.base + "/collection")
            first.append(driver.execute_async_script(MEASURE))
            driver.refresh()
            reload.append(driver.execute_async_script(MEASURE))
    finally:
        driver.quit()
        server.stop()

    def report(name, runs):
        drawn = [run["drawnMs"] for run in runs]
        print(f"{name}: first grid row drawn after {statistics.median(drawn):.0f} ms median "
              f"(min {min(drawn):.0f}, max {max(drawn):.0f}, {len(runs)} runs); "
              f"{runs[-1]['bytes'] / 1024:.1f} KB transferred before covers in {runs[-1]['requests']} requests "
              f"({runs[-1]['cached']} from the cache)")
    print(f"window {options.width}x{options.height}, headless Chromium, crated on 127.0.0.1")
    report("first visit (empty cache)", first)
    report("reload (cached files)", reload)
    print(json.dumps({"first": first, "reload": reload}))


if __name__ == "__main__":
    main()
