"""What the browser tests and the web benchmark share: a collection made from a generated Discogs
export, a password, a token for "another client", `crated serve` on 127.0.0.1, and headless Chromium
driven through Debian's chromedriver with nothing reaching outside this machine."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "vinyl all the way down"
USER = "collector"

os.environ["SE_AVOID_STATS"] = "true"  # Selenium must not report usage anywhere.


def generate_csv(path: Path, albums: int) -> None:
    """`albums` releases, one copy each, titles and artists spread over the alphabet (and a few
    diacritics) so the jump bar has letters; deterministic."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    lines = ["Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,CollectionFolder,Date Added"]
    for i in range(albums):
        artist = f"{letters[(i * 7) % 26]}{'éa'[i % 2]}rtist {i % 397:03d}"
        title = f"{letters[(i * 11) % 26]}ecord {i:05d}"
        day = 1 + i % 28
        lines.append(f"CAT-{i},{artist},{title},Label {i % 50},\"LP, Album\",{i % 6},{1950 + i % 70},{900000 + i},"
                     f"Uncategorized,2020-{1 + i % 12:02d}-{day:02d} {i % 24:02d}:00:{i % 60:02d}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


class Server:
    """A database with a collection, and `crated serve` on it."""

    def __init__(self, crated: Path, albums: int, work: Path | None = None, csv: Path | None = None):
        self.crated = str(crated)
        self.own_work = work is None
        self.work = work or Path(tempfile.mkdtemp(prefix="crated-web-"))
        self.database = self.work / "crated.sqlite"
        self.process = None
        self.env = dict(os.environ, CRATED_DISCOGS_BASE_URL="http://127.0.0.1:9")
        if csv is None:
            csv = self.work / "collection.csv"
            generate_csv(csv, albums)
        self.run("import", str(csv), "--user", USER)
        self.run("user", "passwd", USER, input=PASSWORD + "\n")
        self.token = self.run("token", "create", "--user", USER, "--name", "other client").strip()

    def run(self, *arguments: str, input: str | None = None) -> str:
        result = subprocess.run([self.crated, *arguments, "--database", str(self.database)], input=input,
                                capture_output=True, text=True, env=self.env, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"crated {' '.join(arguments)} failed: {result.stderr}")
        return result.stdout

    def add_tracks(self, album_id: int, sides: dict[str, list[tuple]]) -> None:
        """A tracklist for one album, as sync would write it (CSV imports bring none), so the player
        has something to play: (title, milliseconds) or (title, milliseconds, the track's own
        artist, one, with its artist row). Written before the daemon reads it."""
        with sqlite3.connect(self.database) as db:
            order = 0
            for side, tracks in sides.items():
                for number, (title, ms, *artist) in enumerate(tracks, start=1):
                    track = db.execute("INSERT INTO track (album_id, position, side, sort_order, title, duration_ms, kind, artist_credit) "
                                       "VALUES (?, ?, ?, ?, ?, ?, 'track', ?)",
                                       (album_id, f"{side}{number}", side, order, title, ms, artist[0] if artist else None)).lastrowid
                    if artist:
                        db.execute("INSERT OR IGNORE INTO artist (name, discogs_name, sort_name) VALUES (?, ?, ?)",
                                   (artist[0], artist[0], artist[0].lower()))
                        db.execute("INSERT INTO track_artist (track_id, position, artist_id, join_phrase) "
                                   "SELECT ?, 0, id, '' FROM artist WHERE discogs_name = ? AND discogs_id IS NULL", (track, artist[0]))
                    order += 1

    def add_credits(self, album_id: int, credits: list[tuple]) -> None:
        """Credits beyond the artists, as sync writes Discogs' `extraartists`: (role, name, Discogs id or
        None, tracks or None, the position of the track it is on or None). A credited Discogs id gets
        an artist row of its own, as if another album of theirs had synced."""
        with sqlite3.connect(self.database) as db:
            for position, (role, name, discogs_id, tracks, on_track) in enumerate(credits):
                track_id = None
                if on_track:
                    track_id = db.execute("SELECT id FROM track WHERE album_id = ? AND position = ?", (album_id, on_track)).fetchone()[0]
                if discogs_id:
                    db.execute("INSERT OR IGNORE INTO artist (name, discogs_name, discogs_id, sort_name) VALUES (?, ?, ?, ?)",
                               (name, name, discogs_id, name.lower()))
                db.execute("INSERT INTO album_credit (album_id, position, track_id, name, discogs_name, discogs_id, role, tracks) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (album_id, position, track_id, name, name, discogs_id, role, tracks))

    def add_cover(self, album_id: int, url: str, width: int, height: int) -> None:
        """A primary image for one album, as sync writes it: crated fetches and resizes it when asked."""
        with sqlite3.connect(self.database) as db:
            db.execute("INSERT INTO album_image (album_id, position, kind, uri, uri150, width, height) "
                       "VALUES (?, 0, 'primary', ?, '', ?, ?)", (album_id, url, width, height))

    def start(self) -> None:
        log = open(self.work / "serve.log", "w")
        self.process = subprocess.Popen([self.crated, "serve", "--database", str(self.database), "--port", "0"],
                                        stdout=log, stderr=subprocess.STDOUT, env=self.env)
        deadline = time.time() + 30
        while time.time() < deadline:
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", (self.work / "serve.log").read_text())
            if match:
                self.base = f"http://127.0.0.1:{match.group(1)}"
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError("crated serve did not start: " + (self.work / "serve.log").read_text())

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        if self.own_work:
            shutil.rmtree(self.work, ignore_errors=True)

    def call(self, method: str, path: str, body=None, token: str | None = "own", headers: dict | None = None):
        """(status, JSON or None, headers) of one API call, by default with the other client's token."""
        request = urllib.request.Request(self.base + path, method=method,
                                         data=None if body is None else json.dumps(body).encode())
        if token == "own":
            token = self.token
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        if body is not None:
            request.add_header("Content-Type", "application/json")
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                data = response.read()
                return response.status, (json.loads(data) if data else None), response.headers
        except urllib.error.HTTPError as error:
            data = error.read()
            return error.code, (json.loads(data) if data else None), error.headers


def chromium(temporary: Path, width: int = 1366, height: int = 1024):
    """Headless Chromium from Debian through its chromedriver: no download, no network but loopback.
    Its temporary files go in `temporary`: Chromium leaves its singleton socket's directory behind."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
                     "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
                     "--metrics-recording-only", "--password-store=basic",
                     f"--window-size={width},{height}"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service("/usr/bin/chromedriver", env={**os.environ, "TMPDIR": str(temporary)})
    return webdriver.Chrome(service=service, options=options)


def set_viewport(driver, width: int, height: int, scale: float = 1) -> None:
    """The page's window in CSS pixels, exactly (a window size would include the browser's frame)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": False})


def solid_png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A PNG of one colour, written by hand (no imaging library in the test environment)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\x00" + bytes(rgb) * width
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * height)) + chunk(b"IEND", b""))


class ImageHost:
    """An image host on 127.0.0.1 serving one cover, as Discogs' image servers would."""

    def __init__(self, body: bytes):
        import http.server
        import threading

        class Handler(http.server.BaseHTTPRequestHandler):
            requests = 0

            def do_GET(self):
                Handler.requests += 1
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        self.handler = Handler
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/cover.png"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
