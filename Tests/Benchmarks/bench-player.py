#!/usr/bin/env python3
"""Player event fan-out load for a running `crated serve` (started by bench-player.sh).

Opens SUBSCRIBERS event streams per user (`GET /v1/player/events`), waits for each one's first event
(the current state), then sends commands for DURATION seconds at RATE per second in total,
round-robin over the users, on one keep-alive connection per user (so a user's commands are
sequential and the revision each produced is known): play the album, then pause, resume, pause, ...
Every stream must then receive every revision its user's commands produced, once and in order.

Standard library only: raw asyncio connections, HTTP/1.1 and chunked transfer coding parsed here.
Exits 1 when an event was lost or a command failed.
"""

import argparse
import asyncio
import json
import math
import sys
import time
from collections import Counter

HOST = "127.0.0.1"
now = time.monotonic


# --- HTTP/1.1 ---------------------------------------------------------------------------------------

async def read_head(reader):
    """The status and (lowercased) headers of a response."""
    line = await reader.readline()
    if not line:
        raise ConnectionError("connection closed before the response")
    parts = line.decode("latin-1").split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
        raise ConnectionError(f"bad status line {line!r}")
    status = int(parts[1])
    headers = {}
    while True:
        line = await reader.readline()
        if not line:
            raise ConnectionError("connection closed in the headers")
        if line in (b"\r\n", b"\n"):
            return status, headers
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()


def is_chunked(headers):
    return "chunked" in headers.get("transfer-encoding", "").lower()


async def read_chunk(reader):
    """The next chunk of a chunked body, or None after the last (zero-size) one and its trailers."""
    line = await reader.readline()
    if not line:
        raise ConnectionError("connection closed inside a chunked body")
    size = int(line.split(b";", 1)[0].strip(), 16)
    if size == 0:
        while True:  # trailers, up to the blank line
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                return None
    data = await reader.readexactly(size)
    if await reader.readexactly(2) != b"\r\n":
        raise ConnectionError("chunk not followed by CRLF")
    return data


async def read_body(reader, headers):
    if is_chunked(headers):
        parts = []
        while (chunk := await read_chunk(reader)) is not None:
            parts.append(chunk)
        return b"".join(parts)
    if "content-length" in headers:
        return await reader.readexactly(int(headers["content-length"]))
    return await reader.read()  # delimited by the end of the connection


def request_bytes(method, path, token, port, body=b"", extra=""):
    return (f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n{extra}\r\n").encode() + body


class Connection:
    """One keep-alive connection, one request at a time; reconnects when the server closed it."""

    def __init__(self, port, token):
        self.port, self.token = port, token
        self.reader = self.writer = None
        self.connects = 0

    async def request(self, method, path, body=b""):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
            self.connects += 1
        try:
            self.writer.write(request_bytes(method, path, self.token, self.port, body))
            await self.writer.drain()
            status, headers = await read_head(self.reader)
            data = await read_body(self.reader, headers)
        except BaseException:
            self.close()
            raise
        if headers.get("connection", "").lower() == "close":
            self.close()
        return status, data

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


# --- Event streams ------------------------------------------------------------------------------------

class Subscriber:
    def __init__(self, user, index, port, token):
        self.user, self.index, self.port, self.token = user, index, port, token
        self.first_revision = None
        self.first = asyncio.Event()
        self.received = []        # (revision, receive time), in arrival order
        self.seen = set()
        self.max_revision = -1
        self.duplicates = 0
        self.out_of_order = 0
        self.data_mismatches = 0  # data's "revision" differs from the event id, or data is not JSON
        self.other_events = 0
        self.comments = 0
        self.error = None
        self.ended = False        # the server ended the stream
        self.writer = None

    async def run(self):
        try:
            await self._run()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - reported
            self.error = f"{type(error).__name__}: {error}"
        finally:
            self.first.set()

    async def _run(self):
        reader, self.writer = await asyncio.open_connection(HOST, self.port)
        self.writer.write(request_bytes("GET", "/v1/player/events", self.token, self.port,
                                        extra="Accept: text/event-stream\r\n"))
        await self.writer.drain()
        status, headers = await read_head(reader)
        if status != 200:
            body = await read_body(reader, headers)
            raise ConnectionError(f"HTTP {status}: {body[:200]!r}")
        if not headers.get("content-type", "").startswith("text/event-stream"):
            raise ConnectionError(f"content-type {headers.get('content-type')!r}")
        chunked = is_chunked(headers)
        pending = b""
        event_id = event_type = None
        data_lines = []
        while True:
            if chunked:
                chunk = await read_chunk(reader)
            else:
                chunk = await reader.read(65536) or None
            if chunk is None:
                self.ended = True
                return
            received_at = now()
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if line.endswith(b"\r"):
                    line = line[:-1]
                if not line:  # dispatch
                    if data_lines:
                        self._event(event_id, event_type, b"\n".join(data_lines), received_at)
                    event_type = None
                    data_lines = []
                    continue
                if line.startswith(b":"):
                    self.comments += 1
                    continue
                field, _, value = line.partition(b":")
                if value.startswith(b" "):
                    value = value[1:]
                if field == b"id":
                    event_id = value
                elif field == b"event":
                    event_type = value
                elif field == b"data":
                    data_lines.append(value)

    def _event(self, event_id, event_type, data, received_at):
        if event_type != b"player" or event_id is None:
            self.other_events += 1
            return
        revision = int(event_id)
        try:
            if json.loads(data).get("revision") != revision:
                self.data_mismatches += 1
        except ValueError:
            self.data_mismatches += 1
        if self.first_revision is None:
            self.first_revision = revision
            self.first.set()
        if revision in self.seen:
            self.duplicates += 1
        elif revision < self.max_revision:
            self.out_of_order += 1
        self.seen.add(revision)
        self.max_revision = max(self.max_revision, revision)
        self.received.append((revision, received_at))

    def close(self):
        if self.writer is not None:
            self.writer.close()


# --- Commands -----------------------------------------------------------------------------------------

class Command:
    __slots__ = ("user", "kind", "sent", "done", "status", "revision", "detail")

    def __init__(self, user, kind, sent, done, status, revision, detail):
        self.user, self.kind, self.sent, self.done = user, kind, sent, done
        self.status, self.revision, self.detail = status, revision, detail


async def commander(user, connection, album_id, start, interval, offset, duration, commands):
    """The user's commands: the j-th is due at start + offset + j * interval; a late one goes at once."""
    kind = "play"
    j = 0
    while True:
        due = start + offset + j * interval
        if due >= start + duration:
            return
        delay = due - now()
        if delay > 0:
            await asyncio.sleep(delay)
        body = json.dumps({"albumId": album_id}).encode() if kind == "play" else b""
        sent = now()
        status = revision = detail = None
        try:
            status, data = await connection.request("POST", f"/v1/player/{kind}", body)
            if status == 200:
                revision = json.loads(data)["revision"]
            else:
                detail = data[:300].decode("utf-8", "replace")
        except Exception as error:  # noqa: BLE001 - counted as a failure
            detail = f"{type(error).__name__}: {error}"
        commands.append(Command(user, kind, sent, now(), status, revision, detail))
        if revision is not None:  # the next command follows the last one that took effect
            kind = "pause" if kind in ("play", "resume") else "resume"
        j += 1


async def loop_lag(samples, stop):
    """How late the client's own event loop wakes up: a bound on how much of a delay is the client's."""
    while not stop.is_set():
        asked = now()
        await asyncio.sleep(0.01)
        samples.append(now() - asked - 0.01)


# --- Report -------------------------------------------------------------------------------------------

def memory(pid):
    values = {}
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                key, _, value = line.partition(":")
                if key in ("VmHWM", "VmRSS"):
                    values[key] = int(value.split()[0]) / 1024  # kB -> MiB
    except OSError:
        pass
    return values


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, math.ceil(p / 100 * len(sorted_values)) - 1))  # nearest rank
    return sorted_values[index]


def ms(seconds):
    return f"{seconds * 1000:.1f} ms"


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True, help="the daemon's process, for its memory")
    parser.add_argument("--tokens", required=True, help="file of 'user token' lines, one per user")
    parser.add_argument("--album-id", type=int, required=True)
    parser.add_argument("--subscribers", type=int, default=10, help="event streams per user")
    parser.add_argument("--rate", type=float, default=200, help="commands per second, all users together")
    parser.add_argument("--duration", type=float, default=20, help="seconds of commands")
    parser.add_argument("--grace", type=float, default=5, help="seconds to wait for late events")
    args = parser.parse_args()

    with open(args.tokens) as file:
        users = [tuple(line.split()) for line in file if line.strip()]
    names = [name for name, _ in users]
    memory_before = memory(args.pid)

    # Each user's state before the run, which also checks the tokens.
    connections = {}
    initial_revision = {}
    for name, token in users:
        connections[name] = Connection(args.port, token)
        status, data = await connections[name].request("GET", "/v1/player")
        if status != 200:
            print(f"GET /v1/player for {name}: HTTP {status} {data[:300]!r}", file=sys.stderr)
            return 1
        initial_revision[name] = json.loads(data)["revision"]

    subscribers = [Subscriber(name, i, args.port, token) for name, token in users for i in range(args.subscribers)]
    opened = now()
    tasks = [asyncio.create_task(s.run()) for s in subscribers]
    try:
        await asyncio.wait_for(asyncio.gather(*(s.first.wait() for s in subscribers)), timeout=30)
    except asyncio.TimeoutError:
        pass
    connected = [s for s in subscribers if s.first_revision is not None]
    print(f"==> {len(connected)}/{len(subscribers)} event streams had their first event after {ms(now() - opened)}")
    for s in subscribers:
        if s.first_revision is None:
            print(f"    {s.user}#{s.index}: {s.error or 'no first event in 30 s'}")
    memory_subscribed = memory(args.pid)

    lag = []
    stop_lag = asyncio.Event()
    lag_task = asyncio.create_task(loop_lag(lag, stop_lag))
    print(f"==> commands: {args.rate:g}/s for {args.duration:g} s over {len(users)} users")
    commands = []
    interval = len(users) / args.rate
    start = now() + 0.05
    await asyncio.gather(*(
        commander(name, connections[name], args.album_id, start, interval, u / args.rate, args.duration, commands)
        for u, name in enumerate(names)))
    commands_done = now()

    # Every revision each user's commands produced, and when its command was sent.
    sent_at = {name: {} for name in names}
    for c in commands:
        if c.revision is not None:
            sent_at[c.user][c.revision] = c.sent
    last_revision = {name: max(sent_at[name], default=-1) for name in names}
    deadline = now() + args.grace
    while now() < deadline and any(s.error is None and not s.ended and s.max_revision < last_revision[s.user]
                                   for s in subscribers):
        await asyncio.sleep(0.05)
    stop_lag.set()
    await lag_task
    memory_end = memory(args.pid)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for s in subscribers:
        s.close()
    for connection in connections.values():
        connection.close()

    # Commands.
    failed = [c for c in commands if c.status != 200]
    statuses = Counter(c.status if c.status is not None else "no response" for c in failed)
    first_sent = min((c.sent for c in commands), default=start)
    last_sent = max((c.sent for c in commands), default=start)
    rate = (len(commands) - 1) / (last_sent - first_sent) if len(commands) > 1 else 0.0
    latencies = sorted(c.done - c.sent for c in commands if c.status == 200)
    # A user's commands are sequential, so their revisions should follow one another; a gap is a
    # revision made by something else (the scheduler settling a state), a repeat is a bug.
    gaps = repeats = 0
    for name in names:
        revisions = [c.revision for c in sorted(commands, key=lambda c: c.sent) if c.user == name and c.revision is not None]
        previous = initial_revision[name]
        for revision in revisions:
            if revision <= previous:
                repeats += 1
            elif revision != previous + 1:
                gaps += 1
            previous = max(previous, revision)

    # Events.
    expected = delivered = lost = 0
    delays = []
    lost_by_user = Counter()
    for s in subscribers:
        first = s.first_revision if s.first_revision is not None else -1
        wanted = {r for r in sent_at[s.user] if r > first}
        expected += len(wanted)
        got = wanted & s.seen
        delivered += len(got)
        lost += len(wanted) - len(got)
        lost_by_user[s.user] += len(wanted) - len(got)
        counted = set()
        for revision, received_at in s.received:
            if revision in wanted and revision not in counted:
                counted.add(revision)
                delays.append(received_at - sent_at[s.user][revision])
    delays.sort()
    duplicates = sum(s.duplicates for s in subscribers)
    out_of_order = sum(s.out_of_order for s in subscribers)
    extra = sum(len(s.seen) for s in subscribers) - delivered - sum(1 for s in subscribers if s.first_revision is not None)
    errors = [s for s in subscribers if s.error is not None]
    ended = sum(1 for s in subscribers if s.ended)
    lag.sort()

    print()
    print(f"commands sent            {len(commands)} in {commands_done - start:.1f} s "
          f"(achieved {rate:.1f}/s, target {args.rate:g}/s)")
    print(f"commands failed          {len(failed)}" + (f"  {dict(statuses)}" if failed else ""))
    for c in failed[:5]:
        print(f"    {c.user} {c.kind}: {c.status} {c.detail}")
    print(f"command latency          p50 {ms(percentile(latencies, 50))}   p99 {ms(percentile(latencies, 99))}   "
          f"max {ms(latencies[-1] if latencies else float('nan'))}")
    print(f"command revisions        {gaps} gaps, {repeats} repeats (per user, in send order)")
    print(f"event streams            {len(subscribers)} ({args.subscribers} per user), {len(errors)} failed, "
          f"{ended} ended by the server, {sum(s.comments for s in subscribers)} keep-alive comments")
    for s in errors[:5]:
        print(f"    {s.user}#{s.index}: {s.error}")
    print(f"events expected          {expected}")
    print(f"events delivered         {delivered}")
    print(f"events lost              {lost}" + (f"  by user: {dict(+lost_by_user)}" if lost else ""))
    print(f"duplicates/out-of-order  {duplicates}/{out_of_order}   (other revisions seen: {extra}, "
          f"id/data mismatches: {sum(s.data_mismatches for s in subscribers)}, "
          f"other events: {sum(s.other_events for s in subscribers)})")
    print(f"delivery delay           p50 {ms(percentile(delays, 50))}   p99 {ms(percentile(delays, 99))}   "
          f"max {ms(delays[-1] if delays else float('nan'))}   (event received - command sent)")
    print(f"client loop lag          p99 {ms(percentile(lag, 99))}   max {ms(lag[-1] if lag else float('nan'))}   "
          f"(the client's share of those delays)")

    def mib(values, key):
        return f"{values[key]:.1f} MiB" if key in values else "n/a"

    print(f"server memory            RSS {mib(memory_before, 'VmRSS')} before, "
          f"{mib(memory_subscribed, 'VmRSS')} with streams open, {mib(memory_end, 'VmRSS')} at the end; "
          f"peak (VmHWM) {mib(memory_end, 'VmHWM')}")
    ok = lost == 0 and not failed
    print("PASS" if ok else "FAIL: " + ", ".join(
        part for part in (f"{lost} events lost" if lost else "", f"{len(failed)} commands failed" if failed else "") if part))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
