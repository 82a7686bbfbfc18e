#!/usr/bin/env python3
"""A minimal stand-in for api.discogs.com, for bench-sync.sh. Standard library only.

Usage:
    python3 Tests/Benchmarks/fake-discogs.py RELEASE_JSON PORT_FILE

Serves GET /releases/{id} on 127.0.0.1 (a port the system picks, written to PORT_FILE): the
release JSON given, with its "id" set to the one asked for, and an ETag. HTTP/1.1 keep-alive, a
thread per connection, no rate limit. Runs until killed.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main() -> None:
    release_path, port_file = sys.argv[1], sys.argv[2]
    with open(release_path, encoding="utf-8") as handle:
        template = json.load(handle)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out in two writes; with Nagle's algorithm the second waits for the
        # client's delayed ACK (40 ms), which would measure TCP timers instead of crated.
        disable_nagle_algorithm = True

        def do_GET(self) -> None:  # noqa: N802 (the http.server name)
            parts = self.path.split("?")[0].strip("/").split("/")
            if len(parts) != 2 or parts[0] != "releases" or not parts[1].isdigit():
                self.send_error(404)
                return
            release = dict(template, id=int(parts[1]))
            body = json.dumps(release).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("ETag", '"%d-%d"' % (int(parts[1]), len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(port_file, "w", encoding="utf-8") as handle:
        handle.write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
