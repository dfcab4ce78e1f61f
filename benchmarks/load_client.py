"""A load client for one server, run as a process of its own (not a test):
``python benchmarks/load_client.py PORT [--clients 64] [--seconds 6] [--stop-after 3 --pid PID]``.

Each client keeps one keep-alive connection busy with requests taken in turn from a JSON
list of ``[path, body]`` pairs on stdin (default: the 4x4 backend seed's ``POST /``). It
prints, as JSON: statuses, the latency seen by the client (p50, p99: from writing the
request to the last byte of the answer) beside the time the app reports for itself
(``Server-Timing: app;dur=``), and what went wrong on the wire:

- ``resets``: a connection reset, or closed before a whole answer came, while a request
  was on it (a request lost);
- ``refused``: a new connection refused (after a stop: the expected way to say "not
  here any more").

With ``--stop-after T --pid PID`` the client sends the server SIGTERM at T seconds and
goes on until the server has closed every connection (or ``--seconds`` pass): the test
of a graceful stop under load (0 resets, 0 5xx).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from collections import Counter
from typing import Any

SEED_BODY = {"numX": 3, "numO": 48, "isX": True}


def encode(path: str, body: Any) -> bytes:
    payload = json.dumps(body).encode()
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n").encode() + payload


class Tally:
    def __init__(self) -> None:
        self.statuses: Counter[str] = Counter()
        self.client_s: list[float] = []
        self.app_ms: list[float] = []
        self.resets = 0
        self.reset_details: Counter[str] = Counter()
        self.refused = 0
        self.after_stop = 0
        self.stopped_at: float | None = None


async def client(port: int, requests: list[bytes], first: int, until: float,
                 tally: Tally) -> None:
    index = first
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    while time.perf_counter() < until:
        if writer is None:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                tally.refused += 1
                if tally.stopped_at is not None:
                    return  # the server is gone, as it should be
                await asyncio.sleep(0.05)
                continue
        assert reader is not None
        began = time.perf_counter()
        try:
            writer.write(requests[index % len(requests)])
            index += 1
            head = await reader.readuntil(b"\r\n\r\n")
            length, close, app_ms = 0, False, None
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value)
                elif name == b"connection":
                    close = value.strip().lower() == b"close"
                elif name == b"server-timing" and b"dur=" in value:
                    app_ms = float(value.split(b"dur=", 1)[1].split(b";")[0])
            await reader.readexactly(length)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as error:
            tally.resets += 1
            tally.reset_details[type(error).__name__] += 1
            writer.close()
            writer = None
            continue
        done = time.perf_counter()
        status = head.split(b" ", 2)[1].decode()
        tally.statuses[status] += 1
        tally.client_s.append(done - began)
        if app_ms is not None:
            tally.app_ms.append(app_ms)
        if tally.stopped_at is not None and began > tally.stopped_at:
            tally.after_stop += 1
        if close:
            writer.close()
            writer = None
    if writer is not None:
        writer.close()


def quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(port: int, requests: list[bytes], clients: int, seconds: float,
              stop_after: float | None, pid: int | None) -> dict[str, Any]:
    tally = Tally()
    started = time.perf_counter()
    until = started + seconds

    async def stopper() -> None:
        assert stop_after is not None and pid is not None
        await asyncio.sleep(stop_after)
        tally.stopped_at = time.perf_counter()
        os.kill(pid, signal.SIGTERM)

    tasks = [client(port, requests, i * 7, until, tally) for i in range(clients)]
    if stop_after is not None:
        tasks.append(stopper())
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - started
    answered = sum(tally.statuses.values())
    p50, p99 = quantile(tally.client_s, 0.5), quantile(tally.client_s, 0.99)
    return {
        "clients": clients, "seconds": round(elapsed, 3), "answered": answered,
        "rps": round(answered / elapsed, 1), "statuses": dict(tally.statuses),
        "server_errors": sum(n for s, n in tally.statuses.items() if s.startswith("5")),
        "client_p50_ms": None if p50 is None else round(p50 * 1000, 2),
        "client_p99_ms": None if p99 is None else round(p99 * 1000, 2),
        "app_p50_ms": quantile(tally.app_ms, 0.5), "app_p99_ms": quantile(tally.app_ms, 0.99),
        "resets": tally.resets, "reset_kinds": dict(tally.reset_details),
        "refused": tally.refused, "answered_after_stop": tally.after_stop,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("port", type=int)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--stop-after", type=float)
    parser.add_argument("--pid", type=int)
    parser.add_argument("--requests", action="store_true",
                        help="read a JSON list of [path, body] pairs on stdin")
    args = parser.parse_args()
    pairs = json.load(sys.stdin) if args.requests else [["/", SEED_BODY]]
    requests = [encode(str(path), body) for path, body in pairs]
    print(json.dumps(asyncio.run(run(args.port, requests, args.clients, args.seconds,
                                     args.stop_after, args.pid))))


if __name__ == "__main__":
    main()
