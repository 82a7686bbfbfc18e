"""The serving half of bench-artwork.sh: a cold grid page, a cached variant under wrk, memory."""
import argparse
import concurrent.futures
import json
import re
import subprocess
import time
import urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("--base", required=True)
parser.add_argument("--token", required=True)
parser.add_argument("--pid", type=int, required=True)
parser.add_argument("--duration", type=int, default=10)
parser.add_argument("--work", required=True)
args = parser.parse_args()


def get(path, headers=None, token=True):
    request = urllib.request.Request(args.base + path, headers=headers or {})
    if token:
        request.add_header("Authorization", "Bearer " + args.token)
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.status, response.read()


def memory():
    fields = {}
    with open(f"/proc/{args.pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmHWM", "VmRSS", "RssAnon", "RssFile"):
                fields[name] = int(value.split()[0]) // 1024
    return fields


def grid(query):
    status, body = get("/v1/grid/collection?" + query)
    assert status == 200, status
    return json.loads(body)


def fetch_all(urls, workers, accept="image/webp"):
    def one(url):
        status, body = get(url, {"Accept": accept}, token=False)
        assert status == 200, (url, status)
        return len(body)
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(one, urls))


print(f"serve after start: {memory()} (MB)")

# 2. A cold page: an iPhone in portrait at 3x, 30 items; nothing fetched or made yet.
page = grid("layout=iPhonePortrait&width=390&scale=3&limit=30")
urls = [item["artwork"]["url"] for item in page["items"]][:30]
started = time.monotonic()
sizes = fetch_all(urls, 6)
cold = time.monotonic() - started
print(f"cold grid page: {len(urls)} covers ({urls[0].rsplit('/', 1)[1]} px, {sum(sizes) // len(sizes)} bytes each) "
      f"all served in {cold * 1000:.0f} ms, 6 at a time")
started = time.monotonic()
fetch_all(urls, 6)
print(f"the same page again (made and kept): {(time.monotonic() - started) * 1000:.0f} ms")


# 3. One cached variant at 32 connections, then /healthz, in the same run.
def wrk(path, headers):
    command = ["wrk", "-t2", "-c32", f"-d{args.duration}s", "--latency"]
    for header in headers:
        command += ["-H", header]
    output = subprocess.run(command + [args.base + path], capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p99 = re.search(r"99%\s+([\d.]+\w+)", output).group(1)
    return rate, p99


variant_rate, variant_p99 = wrk(urls[0], ["Accept: image/webp"])
health_rate, health_p99 = wrk("/healthz", [])
print(f"cached variant: {variant_rate:,.0f} req/s (p99 {variant_p99}); /healthz {health_rate:,.0f} req/s (p99 {health_p99}); "
      f"ratio {variant_rate / health_rate:.2f}")

# 4. Every album's cover at three widths, in WebP and then in JPEG (made by different paths),
# 8 clients at once: variants made under load.
before = memory()
keys = set()
cursor = None
while True:
    query = "layout=iPadFullscreen&width=1366&scale=2&limit=500" + (f"&after={cursor}" if cursor else "")
    part = grid(query)
    keys |= {item["artwork"]["url"].split("/")[3] for item in part["items"] if item["artwork"]}
    cursor = part.get("next")
    if not cursor:
        break
targets = [f"/v1/artwork/{key}/{width}" for key in sorted(keys) for width in (128, 320, 640)]
for accept in ("image/webp", "image/jpeg"):
    started = time.monotonic()
    fetch_all(targets, 8, accept=accept)
    elapsed = time.monotonic() - started
    print(f"made {len(targets)} {accept} variants of {len(keys)} covers with 8 clients in {elapsed:.1f} s "
          f"({len(targets) / elapsed:.0f}/s{', originals fetched as needed' if accept == 'image/webp' else ''})")
after = memory()
print(f"serve memory before: {before}; after: {after} (MB; VmHWM is the peak)")
