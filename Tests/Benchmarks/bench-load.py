#!/usr/bin/env python3
"""crated under contention and abuse: the scenarios of the load benchmark (see bench-load.sh).

Each scenario runs against a live `crated serve` and prints the requests it made, errors by status,
read latency p50/p99, and the server's anonymous and file-backed memory (RssAnon, RssFile from
/proc) at its start and end.

  lock     another process holds SQLite's write lock for 8 s while writes wait and reads go on
  import   a 200,000-row import for another user runs while reads and writes go on
  filters  grid pages of random filter and sort combinations, each combination asked for once
  herd     after each change to the listings, four clients ask at once for the same grid page
  flood    19,000 half-open connections while /healthz is asked on fresh connections
  soak     mixed traffic (grids, album pages, searches, crate edits, player commands, event streams)
"""
import argparse
import http.client
import json
import random
import socket
import sqlite3
import statistics
import subprocess
import threading
import time


def memory(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("RssAnon", "RssFile", "VmHWM"):
                fields[key] = int(value.split()[0]) // 1024
    return fields


def cpu_ms(pid):
    """The process's user and system CPU time so far, in ms (Linux: 100 ticks a second)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 10


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Tally:
    """Answers by kind: status counts and latencies, shared by the threads of a scenario."""

    def __init__(self):
        self.lock = threading.Lock()
        self.statuses = {}
        self.latencies = {}

    def add(self, kind, status, seconds):
        with self.lock:
            self.statuses.setdefault(kind, {}).setdefault(status, 0)
            self.statuses[kind][status] += 1
            self.latencies.setdefault(kind, []).append(seconds)

    def report(self, name):
        for kind in sorted(self.statuses):
            latencies = self.latencies[kind]
            statuses = " ".join(f"{status}:{count}" for status, count in sorted(self.statuses[kind].items(), key=lambda item: str(item[0])))
            print(f"  {name:8} {kind:14} requests {len(latencies):7}  p50 {percentile(latencies, 0.5) * 1000:8.1f} ms"
                  f"  p99 {percentile(latencies, 0.99) * 1000:8.1f} ms  max {max(latencies) * 1000:8.1f} ms  statuses {statuses}")


class Client:
    """One keep-alive connection; a failed connection is counted as status `error` and reopened."""

    def __init__(self, base, token, timeout=30):
        host, port = base.replace("http://", "").split(":")
        self.host, self.port, self.token, self.timeout = host, int(port), token, timeout
        self.connection = None

    def request(self, method, path, body=None, token=True):
        headers = {"Authorization": f"Bearer {self.token}"} if token else {}
        if body is not None:
            body = json.dumps(body)
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        try:
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
            data = response.read()
            status = response.status
            if response.getheader("Connection", "").lower() == "close":
                self.connection.close()
                self.connection = None
        except (OSError, http.client.HTTPException):
            if self.connection is not None:
                self.connection.close()
            self.connection = None
            return "error", None, time.perf_counter() - started
        return status, data, time.perf_counter() - started


def run_threads(targets, seconds):
    stop = threading.Event()
    threads = [threading.Thread(target=target, args=(stop,), daemon=True) for target in targets]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)


class Bench:
    def __init__(self, args):
        self.args = args
        self.base = args.base
        self.token = args.token
        probe = Client(self.base, self.token)
        self.albums = json.loads(probe.request("GET", "/v1/grid/collection?layout=iPadFullscreen&limit=1")[1])["total"]
        crates = json.loads(probe.request("GET", "/v1/crates")[1])["crates"]
        self.crate_ids = [crate["id"] for crate in crates]
        self.rng = random.Random(7)
        page = json.loads(probe.request("GET", "/v1/grid/collection?layout=iPadFullscreen&at=1000")[1])
        self.album_ids = [item["albumId"] for item in page["items"]]
        self.copy_ids = [copy["id"] for album in self.album_ids
                         for copy in json.loads(probe.request("GET", f"/v1/albums/{album}")[1])["copies"]]

    def reader(self, tally, kind="read"):
        client = Client(self.base, self.token)
        rng = random.Random()
        paths = ["/healthz", "/v1/me", "/v1/crates",
                 lambda: f"/v1/albums/{rng.choice(self.album_ids)}",
                 lambda: f"/v1/grid/collection?layout=iPhonePortrait&at={rng.randrange(self.albums)}",
                 lambda: f"/v1/search?q={rng.choice(['blue', 'love', 'night', 'the', 'mi'])}"]

        def loop(stop):
            while not stop.is_set():
                path = rng.choice(paths)
                path = path() if callable(path) else path
                status, _, seconds = client.request("GET", path)
                tally.add(kind, status, seconds)
        return loop

    def writer(self, tally, pause=0.05):
        client = Client(self.base, self.token)
        rng = random.Random()

        def loop(stop):
            while not stop.is_set():
                status, data, seconds = client.request("POST", "/v1/crates", {"name": f"load {rng.random()}"})
                tally.add("write", status, seconds)
                if status == 201:
                    crate = json.loads(data)["id"]
                    status, _, seconds = client.request("DELETE", f"/v1/crates/{crate}")
                    tally.add("write", status, seconds)
                time.sleep(pause)
        return loop

    def header(self, name):
        print(f"==> {name}: memory at start {memory(self.args.pid)}")

    def footer(self, name, tally):
        tally.report(name)
        print(f"    {name}: memory at end {memory(self.args.pid)}")

    def lock(self):
        self.header("lock")
        tally = Tally()
        holder = subprocess.Popen(["sqlite3", self.args.database, "BEGIN IMMEDIATE; UPDATE listing_generation SET value = value;",
                                   ".shell sleep 8", "COMMIT;"], stdout=subprocess.DEVNULL)
        time.sleep(0.2)
        run_threads([self.reader(tally) for _ in range(4)] + [self.writer(tally, pause=0) for _ in range(4)], 8)
        holder.wait()
        self.footer("lock", tally)

    def import_while_serving(self):
        self.header("import")
        tally = Tally()
        started = time.time()
        importer = subprocess.Popen([self.args.crated, "import", self.args.third_csv, "--database", self.args.database, "--user", "third"],
                                    stdout=subprocess.DEVNULL)
        stop = threading.Event()
        threads = [threading.Thread(target=target, args=(stop,), daemon=True)
                   for target in [self.reader(tally) for _ in range(4)] + [self.writer(tally, pause=0.2)]]
        for thread in threads:
            thread.start()
        code = importer.wait()
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
        print(f"    import: exit {code} after {time.time() - started:.1f} s")
        self.footer("import", tally)

    def filters(self, seconds):
        self.header("filters")
        tally = Tally()
        rng = random.Random(11)
        lock = threading.Lock()
        asked = set()

        def combination():
            while True:
                parameters = [("layout", rng.choice(["iPhonePortrait", "iPadFullscreen"])),
                              ("sort", rng.choice(["artist", "title", "year", "dateAdded", "rating"]))]
                if rng.random() < 0.4:
                    parameters.append(("format", rng.choice(["LP", "CD", '12"', '7"', "Cassette"])))
                if rng.random() < 0.4:
                    start = rng.randrange(1950, 2020)
                    parameters += [("yearFrom", start), ("yearTo", start + rng.randrange(0, 15))]
                if rng.random() < 0.3 and self.crate_ids:
                    parameters.append(("crate", rng.choice(self.crate_ids)))
                if rng.random() < 0.3:
                    parameters.append(("q", rng.choice(["blue", "love", "night", "a", "th", "mi", "jazz", "live", "b"])))
                if rng.random() < 0.3:
                    parameters.append(("at", rng.randrange(0, 2000)))
                path = "/v1/grid/collection?" + "&".join(f"{key}={value}" for key, value in parameters).replace('"', "%22")
                with lock:
                    if path not in asked:
                        asked.add(path)
                        return path

        def loop(stop):
            client = Client(self.base, self.token)
            while not stop.is_set():
                status, _, latency = client.request("GET", combination())
                tally.add("grid combo", status, latency)
        run_threads([loop for _ in range(4)], seconds)
        self.footer("filters", tally)

    def herd(self, rounds, clients=4):
        """A copy's rating changes (a new listing generation), then `clients` clients ask at once for
        the same grid page, whose order is walked anew: the slowest's latency and the server's CPU."""
        self.header("herd")
        sorts = ["rating", "artist", "title", "dateAdded", "year"]
        connections = [Client(self.base, self.token) for _ in range(clients)]
        for connection in connections:
            connection.request("GET", "/v1/me")
        editor = Client(self.base, self.token)
        database = sqlite3.connect(f"file:{self.args.database}?mode=ro", uri=True)
        generation = lambda: database.execute("SELECT value FROM listing_generation").fetchone()[0]
        slowest, everyone, cpu = [], [], []
        for round in range(rounds):
            before = generation()
            status, _, _ = editor.request("PATCH", f"/v1/copies/{self.copy_ids[round % len(self.copy_ids)]}", {"rating": 1 + round % 5})
            assert status == 200 and generation() != before, f"the edit did not change the listings: {status}"
            path = f"/v1/grid/collection?layout=iPadFullscreen&sort={sorts[round % len(sorts)]}"
            barrier = threading.Barrier(clients)
            results = [None] * clients

            def ask(index):
                barrier.wait()
                status, _, seconds = connections[index].request("GET", path)
                results[index] = seconds if status == 200 else None
            threads = [threading.Thread(target=ask, args=(index,)) for index in range(clients)]
            started = cpu_ms(self.args.pid)
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            cpu.append(cpu_ms(self.args.pid) - started)
            assert None not in results, "a grid request failed"
            slowest.append(max(results))
            everyone += results
        print(f"    herd: {rounds} rounds of {clients} clients: slowest p50 {statistics.median(slowest) * 1000:.1f} ms, "
              f"every request p50 {statistics.median(everyone) * 1000:.1f} ms, server CPU per round {statistics.mean(cpu):.1f} ms")
        print(f"    herd: memory at end {memory(self.args.pid)}")

    def flood(self, count):
        self.header("flood")
        tally = Tally()
        host, port = self.base.replace("http://", "").split(":")
        sockets = []
        opened = refused = 0
        done = threading.Event()

        def probe(stop):
            while not stop.is_set():
                started = time.perf_counter()
                try:
                    with socket.create_connection((host, int(port)), timeout=10) as probe_socket:
                        probe_socket.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        answer = probe_socket.recv(64)
                        status = int(answer.split()[1]) if answer.startswith(b"HTTP/1.1") else "error"
                except OSError:
                    status = "error"
                tally.add("healthz", status, time.perf_counter() - started)
                time.sleep(0.02)

        prober = threading.Thread(target=probe, args=(done,), daemon=True)
        prober.start()
        started = time.time()
        for _ in range(count):
            try:
                half = socket.create_connection((host, int(port)), timeout=5)
                half.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
                sockets.append(half)
                opened += 1
            except OSError:
                refused += 1
        print(f"    flood: {opened} half-open connections made ({refused} refused) in {time.time() - started:.1f} s")
        time.sleep(2)
        still_open = 0
        for half in sockets:
            half.setblocking(False)
            try:
                still_open += 1 if half.recv(1) is None else 0
            except BlockingIOError:
                still_open += 1
            except OSError:
                pass
        print(f"    flood: {still_open} of them still open 2 s later")
        done.set()
        prober.join()
        for half in sockets:
            half.close()
        self.footer("flood", tally)

    def soak(self, seconds):
        self.header(f"soak ({seconds} s)")
        tally = Tally()
        rng = random.Random(5)
        stream_events = [0]

        def streams(stop):
            # Event streams open for the whole soak, reopened when they end.
            while not stop.is_set():
                try:
                    connection = http.client.HTTPConnection(self.base.replace("http://", "").split(":")[0],
                                                            int(self.base.rsplit(":", 1)[1]), timeout=5)
                    connection.request("GET", "/v1/player/events", headers={"Authorization": f"Bearer {self.token}"})
                    response = connection.getresponse()
                    tally.add("stream open", response.status, 0)
                    while not stop.is_set():
                        line = response.fp.readline()
                        if not line:
                            break
                        if line.startswith(b"event:"):
                            stream_events[0] += 1
                    connection.close()
                except (OSError, http.client.HTTPException):
                    time.sleep(0.2)

        def editor(stop):
            client = Client(self.base, self.token)
            crate = None
            while not stop.is_set():
                if crate is None:
                    status, data, latency = client.request("POST", "/v1/crates", {"name": f"soak {rng.random()}"})
                    tally.add("crate edit", status, latency)
                    if status == 201:
                        crate = json.loads(data)["id"]
                        copies = rng.sample(self.copy_ids, min(10, len(self.copy_ids)))
                        if copies:
                            status, _, latency = client.request("POST", f"/v1/crates/{crate}/copies", {"copyIds": copies})
                            tally.add("crate edit", status, latency)
                            if len(copies) > 1:
                                status, _, latency = client.request("PATCH", f"/v1/crates/{crate}/copies/{copies[0]}", {"after": copies[-1]})
                                tally.add("crate edit", status, latency)
                else:
                    status, _, latency = client.request("DELETE", f"/v1/crates/{crate}")
                    tally.add("crate edit", status, latency)
                    crate = None
                time.sleep(0.1)

        def player(stop):
            client = Client(self.base, self.token)
            while not stop.is_set():
                command = rng.choice(["play", "pause", "resume", "next", "stop"])
                body = {"albumId": rng.choice(self.album_ids)} if command == "play" else None
                status, _, latency = client.request("POST", f"/v1/player/{command}", body)
                tally.add("player", status, latency)
                time.sleep(0.1)

        run_threads([self.reader(tally) for _ in range(4)] + [editor, player] + [streams for _ in range(4)], seconds)
        print(f"    soak: {stream_events[0]} events received on the streams")
        self.footer("soak", tally)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenarios", nargs="+")
    parser.add_argument("--base", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--pid", required=True, type=int)
    parser.add_argument("--database", required=True)
    parser.add_argument("--crated", required=True)
    parser.add_argument("--third-csv")
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--soak-seconds", type=int, default=600)
    parser.add_argument("--flood", type=int, default=19000)
    args = parser.parse_args()
    bench = Bench(args)
    for scenario in args.scenarios:
        if scenario == "lock":
            bench.lock()
        elif scenario == "import":
            bench.import_while_serving()
        elif scenario == "filters":
            bench.filters(args.seconds)
        elif scenario == "herd":
            bench.herd(25)
        elif scenario == "flood":
            bench.flood(args.flood)
        elif scenario == "soak":
            bench.soak(args.soak_seconds)
        else:
            raise SystemExit(f"unknown scenario {scenario}")


if __name__ == "__main__":
    main()
