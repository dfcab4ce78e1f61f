"""Soak the move service (a script, not a test): ``python benchmarks/bench_soak.py``.

Starts one ``noughts serve`` on 127.0.0.1 and drives it with mixed traffic for a bounded
time and number of requests (loopback only):

- moves on the featured variants, a few larger ones and a stream of distinct small
  variant names (degenerate ones included), with budgets of 50-1000 ms;
- analyses, the seed client's ``POST /``, ``/healthz``, ``/api/v1/variants`` and
  ``/api/v1/stats``;
- a lone probe that pings ``/healthz`` every 50 ms (the event loop's responsiveness);
- bad input: malformed and deeply nested JSON, unknown variants, out-of-range fields,
  a body over the size limit;
- clients that disconnect mid-search and slow clients that send half a request.

It reports requests and errors by status, p50/p99 latency per endpoint, deadline misses
(an engine answer, 200 or 429, later than its budget + 100 ms) and the resident memory
of the server and its search workers over time. Results go to
``soak.json`` in ``--out-dir`` (``benchmarks/out/``) and a Markdown table to stdout.

    python benchmarks/bench_soak.py --seconds 45 --clients 16
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noughts.service.memory import resident_mb as resident_tree_mb
from outputs import add_out_dir, write_json

ROOT = Path(__file__).resolve().parent.parent
GRACE_S = 0.1

MOVE_VARIANTS = ["3x3", "4x4k3", "4x4", "qubic", "5x5k4", "7x7k5", "15x15k5", "3x3x3"]
BUDGETS_MS = [50, 200, 500, 1000]


@dataclass
class Call:
    """One request to make: its endpoint label, raw HTTP bytes and engine budget."""

    label: str
    raw: bytes
    budget_ms: int | None = None
    hang_up_after_s: float | None = None
    """Close the connection this long after sending (a client that leaves)."""
    slow: bool = False
    """Send half the request and then nothing (a slow client; the server should cut it)."""


@dataclass
class Tally:
    statuses: dict[str, Counter[int]] = field(default_factory=lambda: defaultdict(Counter))
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    deadline_misses: Counter[str] = field(default_factory=Counter)
    late_by_budget: Counter[int] = field(default_factory=Counter)
    worst_overrun_ms: float = 0.0
    engine_answers: Counter[str] = field(default_factory=Counter)
    hung_up: int = 0
    slow_cut_off: int = 0
    slow_not_cut: int = 0
    transport_errors: Counter[str] = field(default_factory=Counter)


def _post(path: str, body: bytes, content_type: str = "application/json") -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def _get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()


def _random_board(rng: random.Random, name: str) -> str | None:
    """A position a few random moves into a game on ``name`` (None: the empty board)."""
    from noughts.position import Position

    position = Position("", name)
    for _ in range(rng.randrange(0, 5)):
        moves = [m for m in position.legal_moves if not position.play(m).is_over]
        if not moves:
            break
        position = position.play(rng.choice(moves))
    return position.board if position.ply else None


def _distinct_variants() -> list[str]:
    names = []
    for rows in range(3, 10):
        for cols in range(3, 10):
            for k in range(3, max(rows, cols) + 1):
                names.append(f"{rows}x{cols}k{k}")
    return names


def _new_variant(rng: random.Random, distinct: list[str]) -> str:
    """A variant name not asked for yet (once all have been, any of them again)."""
    if not distinct:
        distinct.extend(_distinct_variants())
        rng.shuffle(distinct)
    return distinct.pop()


def make_call(rng: random.Random, distinct: list[str]) -> Call:
    roll = rng.random()
    if roll < 0.40:
        name = rng.choice(MOVE_VARIANTS) if rng.random() < 0.8 else _new_variant(rng, distinct)
        limit = rng.choice(BUDGETS_MS)
        body: dict[str, Any] = {"variant": name, "time_ms": limit}
        board = _random_board(rng, name)
        if board:
            body["board"] = board
        if rng.random() < 0.2:
            body["level"], body["seed"] = rng.randrange(0, 10), rng.randrange(1 << 30)
        call = Call("POST /api/v1/move", _post("/api/v1/move", json.dumps(body).encode()), limit)
        if rng.random() < 0.05:
            call.hang_up_after_s = rng.uniform(0.01, limit / 2000)
        return call
    if roll < 0.50:
        name = rng.choice(["3x3", "4x4k3", "4x4", "qubic"])
        limit = rng.choice(BUDGETS_MS)
        body = {"variant": name, "time_ms": limit}
        board = _random_board(rng, name)
        if board:
            body["board"] = board
        return Call(
            "POST /api/v1/analyze", _post("/api/v1/analyze", json.dumps(body).encode()), limit
        )
    if roll < 0.58:
        x = rng.choice([0, 1, 3, 16, 33])
        o = rng.choice([0, 2, 48, 64])
        seed = {"numX": x, "numO": o if not x & o else 0, "isX": None}
        return Call("POST / (seed)", _post("/", json.dumps(seed).encode(), "text/plain"), 1000)
    if roll < 0.68:
        return Call("GET /healthz", _get("/healthz"))
    if roll < 0.72:
        return Call("GET /api/v1/variants", _get("/api/v1/variants"))
    if roll < 0.76:
        return Call("GET /api/v1/stats", _get("/api/v1/stats"))
    if roll < 0.97:
        bad = rng.choice(
            [
                b'{"board": ',
                b"[" * 5000 + b"]" * 5000,
                json.dumps({"variant": "hexagon"}).encode(),
                json.dumps({"variant": ""}).encode(),
                json.dumps({"time_ms": -5}).encode(),
                json.dumps({"numX": -1637, "numO": 0}).encode(),
                json.dumps({"board": "XXX/OOO/..."}).encode(),
                b'{"board": "' + b"." * 20_000 + b'"}',
                b"\xff\xfe\x00garbage",
            ]
        )
        path = rng.choice(["/api/v1/move", "/api/v1/analyze", "/"])
        return Call(f"bad input ({path})", _post(path, bad))
    return Call("slow client", _get("/healthz")[:20], slow=True)


async def perform(call: Call, port: int, tally: Tally, slow_wait_s: float) -> None:
    began = time.monotonic()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError as error:
        tally.transport_errors[type(error).__name__] += 1
        return
    try:
        writer.write(call.raw)
        await writer.drain()
        if call.slow:
            try:
                data = await asyncio.wait_for(reader.read(), timeout=slow_wait_s)
                if data == b"":
                    tally.slow_cut_off += 1
                else:
                    tally.slow_not_cut += 1
            except TimeoutError:
                tally.slow_not_cut += 1
            return
        if call.hang_up_after_s is not None:
            await asyncio.sleep(call.hang_up_after_s)
            tally.hung_up += 1
            return
        data = await asyncio.wait_for(reader.read(), timeout=30)
    except (OSError, TimeoutError) as error:
        tally.transport_errors[type(error).__name__] += 1
        return
    finally:
        writer.close()
    elapsed = time.monotonic() - began
    try:
        status = int(data.split(b" ", 2)[1])
    except (IndexError, ValueError):
        tally.transport_errors["unparsable response"] += 1
        return
    tally.statuses[call.label][status] += 1
    tally.latencies[call.label].append(elapsed)
    if call.budget_ms is not None and status in (200, 429):
        tally.engine_answers[call.label] += 1
        if elapsed > call.budget_ms / 1000 + GRACE_S:
            tally.deadline_misses[call.label] += 1
            tally.late_by_budget[call.budget_ms] += 1
            overrun = (elapsed - call.budget_ms / 1000) * 1000
            tally.worst_overrun_ms = max(tally.worst_overrun_ms, round(overrun, 1))


def resident_mb(pid: int) -> float:
    """Resident memory of the server and its search workers, in MB."""
    return resident_tree_mb(pid) or float("nan")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_server(port: int, request_timeout_s: float) -> subprocess.Popen[bytes]:
    env = {**os.environ, "NOUGHTS_REQUEST_TIMEOUT_S": str(request_timeout_s)}
    process = subprocess.Popen(
        [sys.executable, "-m", "noughts", "serve", "--port", str(port), "--log-level", "error"],
        env=env,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/stats", timeout=2) as r:
                if "4x4x4" in json.loads(r.read())["engine"]["warmed"]:
                    return process
        except OSError:
            pass
        time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not come up (and warm) within 60 s")


async def soak(port: int, pid: int, args: argparse.Namespace) -> tuple[Tally, list[Any]]:
    rng = random.Random(args.seed)
    distinct = _distinct_variants()
    rng.shuffle(distinct)
    tally = Tally()
    memory: list[tuple[float, float]] = []
    stop_at = time.monotonic() + args.seconds
    issued = 0
    began = time.monotonic()

    async def client() -> None:
        nonlocal issued
        while time.monotonic() < stop_at and issued < args.max_requests:
            issued += 1
            await perform(make_call(rng, distinct), port, tally, args.request_timeout + 3)

    async def probe() -> None:
        """A lone client pinging /healthz every 50 ms: how long the event loop makes it wait."""
        call = Call("GET /healthz (probe, every 50 ms)", _get("/healthz"))
        while time.monotonic() < stop_at:
            await perform(call, port, tally, 0)
            await asyncio.sleep(0.05)

    async def sampler() -> None:
        while time.monotonic() < stop_at:
            memory.append((round(time.monotonic() - began, 1), round(resident_mb(pid), 1)))
            await asyncio.sleep(1.0)

    await asyncio.gather(sampler(), probe(), *(client() for _ in range(args.clients)))
    memory.append((round(time.monotonic() - began, 1), round(resident_mb(pid), 1)))
    return tally, memory


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(
    tally: Tally, memory: list[Any], args: argparse.Namespace, seconds: float
) -> dict[str, Any]:
    rows = []
    for label in sorted(tally.statuses):
        latencies = tally.latencies[label]
        statuses = tally.statuses[label]
        rows.append(
            {
                "endpoint": label,
                "requests": sum(statuses.values()),
                "statuses": dict(sorted(statuses.items())),
                "p50_ms": round(statistics.median(latencies) * 1000, 1),
                "p99_ms": round(_percentile(latencies, 0.99) * 1000, 1),
                "deadline_misses": tally.deadline_misses[label],
                "engine_answers": tally.engine_answers[label],
            }
        )
    total = sum(r["requests"] for r in rows)
    by_status: Counter[int] = Counter()
    for label in tally.statuses:
        by_status.update(tally.statuses[label])
    return {
        "machine": (
            f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
        ),
        "load_average_at_start": os.getloadavg()[0],
        "seconds": round(seconds, 1),
        "clients": args.clients,
        "requests": total,
        "requests_per_s": round(total / seconds, 1),
        "by_status": dict(sorted(by_status.items())),
        "server_errors_5xx": sum(c for s, c in by_status.items() if s >= 500),
        "deadline_misses": sum(tally.deadline_misses.values()),
        "late_by_budget_ms": dict(sorted(tally.late_by_budget.items())),
        "worst_overrun_ms": tally.worst_overrun_ms,
        "hung_up_clients": tally.hung_up,
        "slow_clients_cut_off": tally.slow_cut_off,
        "slow_clients_not_cut_off": tally.slow_not_cut,
        "transport_errors": dict(tally.transport_errors),
        "endpoints": rows,
        "resident_mb": memory,
    }


def markdown(data: dict[str, Any]) -> str:
    lines = [
        f"{data['requests']} requests in {data['seconds']} s from {data['clients']} clients "
        f"({data['requests_per_s']}/s) on {data['machine']} (load average "
        f"{data['load_average_at_start']:.1f} at the start)",
        "",
        "| endpoint | requests | statuses | p50 ms | p99 ms | late (of engine answers) |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for row in data["endpoints"]:
        statuses = ", ".join(f"{s}: {c}" for s, c in row["statuses"].items())
        answers = row["engine_answers"]
        late = f"{row['deadline_misses']} of {answers}" if answers else ""
        lines.append(
            f"| {row['endpoint']} | {row['requests']} | {statuses} | {row['p50_ms']} | "
            f"{row['p99_ms']} | {late} |"
        )
    memory = data["resident_mb"]
    peak = max(mb for _, mb in memory)
    lines += [
        "",
        f"5xx: {data['server_errors_5xx']}; deadline misses: {data['deadline_misses']} (by "
        f"budget in ms: {data['late_by_budget_ms'] or 'none'}; worst: budget + "
        f"{data['worst_overrun_ms']} ms); clients "
        f"that hung up mid-request: {data['hung_up_clients']}; slow clients cut off: "
        f"{data['slow_clients_cut_off']} (not cut off: {data['slow_clients_not_cut_off']}); "
        f"transport errors: {data['transport_errors'] or 'none'}",
        "resident memory (MB) at 0, 25, 50, 75, 100% of the run: "
        + ", ".join(str(memory[i * (len(memory) - 1) // 4][1]) for i in range(5))
        + f"; peak {peak}",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=180.0, help="how long (default 180)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (default 16)")
    parser.add_argument("--max-requests", type=int, default=100_000, help="stop after this many")
    parser.add_argument("--request-timeout", type=float, default=2.0,
                        help="the server's NOUGHTS_REQUEST_TIMEOUT_S (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-save", action="store_true", help="do not write soak.json")
    add_out_dir(parser)
    args = parser.parse_args()
    port = free_port()
    process = start_server(port, args.request_timeout)
    try:
        began = time.monotonic()
        tally, memory = asyncio.run(soak(port, process.pid, args))
        seconds = time.monotonic() - began
        alive = process.poll() is None
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    data = report(tally, memory, args, seconds)
    data["server_alive_at_the_end"] = alive
    print(markdown(data))
    if not args.no_save:
        write_json(args.out_dir / "soak.json", data)
        print(f"\nwritten to {args.out_dir / 'soak.json'}")


if __name__ == "__main__":
    main()
