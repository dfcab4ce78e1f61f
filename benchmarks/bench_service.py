"""Benchmark the move service (a script, not a test): run ``python benchmarks/bench_service.py``.

Measures, on one uvicorn worker with concurrent keep-alive clients on 127.0.0.1:

- requests/s and p50/p99 latency of ``POST /api/v1/move`` on 3x3 and 4x4k3 (a pool of
  positions from real games, cache on and off), side by side in the same run with a
  trivial FastAPI endpoint (target: the move API at >= 50% of the baseline's throughput);
  also the server's CPU time per request, whose ratio to the baseline's is the
  throughput ratio on a core of its own (robust when other jobs share the machine);
- the Lambda cold start: the CPU time of a new process that imports the handler and
  answers its first ``POST /``, against a new process that runs ``import fastapi`` (the
  anchor, measured in the same run, alternating; target at most 1.15x); alone with
  ``--cold-start-only [--cold-runs N]``;
- resident memory of the idle server, once its start-up warm-up is done (target < 100 MB),
  and with its search workers;
- with ``--burst``: the issue's burst, 64 concurrent Qubic requests on 64 distinct positions
  (``time_ms`` 500, then 1000) against a fresh server after its warm-up, searches in
  worker processes and, alternating, in threads (``NOUGHTS_SEARCH_PROCESSES=0``): answers
  by status, answers later than the budget + 100 ms, the slowest, and a ``/healthz``
  probe every 10 ms meanwhile (target: every answer on time, /healthz p99 < 50 ms).

Servers run one at a time, in rounds that alternate, and figures are medians over the
rounds. The load generator is a minimal asyncio HTTP/1.1 client, so the client costs
far less than the server. Results go to ``service.json`` in ``--out-dir``
(``benchmarks/out/``); ``--burst`` and ``--cold-start-only`` update their part of it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from noughts.position import Position
from noughts.service.memory import resident_mb
from outputs import add_out_dir, read_json, write_json

ROOT = Path(__file__).resolve().parent.parent

BASELINE_APP = """
from typing import Any
import uvicorn
from fastapi import FastAPI
app = FastAPI()

@app.post("/trivial")
async def trivial(body: dict[str, Any]) -> dict[str, bool]:
    return {"ok": True}

uvicorn.run(app, host="127.0.0.1", port={port}, log_level="warning")
"""

LAMBDA_PROBE = """
import json, time
started, cpu_started = time.perf_counter(), time.process_time()
from noughts.service import lambda_handler
imported = time.perf_counter()
event = {{"version": "2.0", "routeKey": "$default", "rawPath": "/", "rawQueryString": "",
  "headers": {{"content-type": "application/json", "host": "x.example"}},
  "requestContext": {{"http": {{"method": "POST", "path": "/", "protocol": "HTTP/1.1",
  "sourceIp": "198.51.100.4", "userAgent": "bench"}}, "stage": "$default", "requestId": "r",
  "routeKey": "$default", "accountId": "1", "apiId": "x", "domainName": "x", "time": "",
  "timeEpoch": 0}},
  "body": json.dumps({{"numX": 3, "numO": 48, "isX": True}}), "isBase64Encoded": False}}
answer = lambda_handler.handler(event, None)
done, cpu_done = time.perf_counter(), time.process_time()
assert answer["statusCode"] == 200 and json.loads(answer["body"]) == [0, 2], answer
print(json.dumps({{"import_ms": (imported - started) * 1000, "total_ms": (done - started) * 1000,
                  "total_cpu_ms": (cpu_done - cpu_started) * 1000}}))
"""

FASTAPI_FLOOR = """
import json, time
started, cpu_started = time.perf_counter(), time.process_time()
import fastapi
imported, cpu_imported = time.perf_counter(), time.process_time()
from typing import Any
from mangum import Mangum
app = fastapi.FastAPI()

@app.post("/")
async def trivial(body: dict[str, Any]) -> list[int]:
    return [0, 2]

event = {"version": "2.0", "routeKey": "$default", "rawPath": "/", "rawQueryString": "",
  "headers": {"content-type": "application/json", "host": "x.example"},
  "requestContext": {"http": {"method": "POST", "path": "/", "protocol": "HTTP/1.1",
  "sourceIp": "198.51.100.4", "userAgent": "bench"}, "stage": "$default", "requestId": "r",
  "routeKey": "$default", "accountId": "1", "apiId": "x", "domainName": "x", "time": "",
  "timeEpoch": 0}, "body": json.dumps({"numX": 3, "numO": 48, "isX": True}),
  "isBase64Encoded": False}
assert Mangum(app, lifespan="off")(event, None)["statusCode"] == 200
done, cpu_done = time.perf_counter(), time.process_time()
print(json.dumps({"total_ms": (imported - started) * 1000,
                  "total_cpu_ms": (cpu_imported - cpu_started) * 1000,
                  "app_ms": (done - started) * 1000,
                  "app_cpu_ms": (cpu_done - cpu_started) * 1000}))
"""


@dataclass
class LoadResult:
    label: str
    requests: int
    seconds: float
    rps: float
    p50_ms: float
    p99_ms: float
    statuses: dict[str, int]
    server_cpu_ms: float
    """Server CPU time (user + system) per request: robust to other load on the machine."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def game_positions(variant: str, count: int, rng: random.Random) -> list[Position]:
    """Distinct non-final positions from random games (what a page's players send)."""
    seen: dict[tuple[int, int], Position] = {}
    while len(seen) < count:
        position = Position("", variant)
        while not position.is_over and len(seen) < count:
            seen.setdefault((position.x, position.o), position)
            position = position.play(rng.choice(list(position.legal_moves)))
    return list(seen.values())


def http_request(path: str, body: dict[str, Any], *, close: bool = False) -> bytes:
    payload = json.dumps(body).encode()
    connection = "Connection: close\r\n" if close else ""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"{connection}Content-Length: {len(payload)}\r\n\r\n"
    )
    return head.encode() + payload


async def _client(
    port: int, requests: list[bytes], start: int, stop_at: float, warm_until: float,
    latencies: list[float], statuses: Counter[str], answered: list[int],
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    index = start
    try:
        while time.perf_counter() < stop_at:
            began = time.perf_counter()
            writer.write(requests[index % len(requests)])
            index += 1
            head = await reader.readuntil(b"\r\n\r\n")
            status = head.split(b" ", 2)[1].decode()
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            answered[0] += 1
            if began >= warm_until:
                latencies.append(time.perf_counter() - began)
                statuses[status] += 1
    finally:
        writer.close()


async def _load(port: int, requests: list[bytes], clients: int, seconds: float, warm: float
                ) -> tuple[list[float], Counter[str], float, int]:
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    answered = [0]
    now = time.perf_counter()
    warm_until, stop_at = now + warm, now + warm + seconds
    await asyncio.gather(*(
        _client(port, requests, i * 7919, stop_at, warm_until, latencies, statuses, answered)
        for i in range(clients)
    ))
    return latencies, statuses, seconds, answered[0]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_load(label: str, pid: int, port: int, requests: list[bytes], clients: int,
             seconds: float, warm: float) -> LoadResult:
    cpu_before = cpu_seconds(pid)
    latencies, statuses, measured, answered = asyncio.run(
        _load(port, requests, clients, seconds, warm))
    cpu_ms = (cpu_seconds(pid) - cpu_before) * 1000 / max(1, answered)
    latencies.sort()
    count = len(latencies)

    def quantile_ms(q: float) -> float:
        return latencies[min(count - 1, int(q * count))] * 1000 if count else 0.0

    return LoadResult(label, count, measured, count / measured, quantile_ms(0.5),
                      quantile_ms(0.99), dict(statuses), cpu_ms)


def wait_ready(port: int, path: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"server on port {port} did not come up")


def wait_warm(port: int, timeout: float = 60.0) -> None:
    """Wait until the server's start-up warm-up has built the featured variants' tables."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/stats") as response:
            if len(json.load(response)["engine"]["warmed"]) >= 4:
                return
        time.sleep(0.2)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def start_noughts(
    port: int, cache_size: int, extra: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    env = {**os.environ, "NOUGHTS_CACHE_SIZE": str(cache_size), **(extra or {})}
    process = subprocess.Popen(
        [sys.executable, "-m", "noughts", "serve", "--port", str(port), "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL,
    )
    wait_ready(port, "/healthz")
    return process


def start_baseline(port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, "-c", BASELINE_APP.replace("{port}", str(port))])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("baseline server did not come up")


def _process_cpu_ms(script: str, env: dict[str, str] | None = None
                    ) -> tuple[float, dict[str, float]]:
    """Run ``python -c script`` in a new process: the CPU time of the whole process (its
    interpreter start included, from ``getrusage`` of children) and its printed figures."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    output = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True,
                            text=True, env=env).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    lines = output.strip().splitlines()
    return cpu, (json.loads(lines[-1]) if lines else {})


COLD_TARGET = 1.15
"""The cold start's target: the new process's CPU at most this times ``import fastapi``'s."""


def lambda_cold_start(runs: int) -> dict[str, Any]:
    """A new process that imports the handler and answers its first ``POST /``, against a
    new process that only runs ``import fastapi`` (the anchor), in alternating runs: the
    CPU time of each whole process (``getrusage`` of children, robust when other jobs
    share the machine) and their ratio, medians; also, as before, the times measured
    inside the process and a one-route FastAPI app on Mangum for scale."""
    # Every module compiled once beforehand, as an installed package is (pip writes the
    # bytecode; a Lambda package ships it): with PYTHONDONTWRITEBYTECODE set, the source
    # tree's modules would be compiled again in every run and the anchor's would not.
    with tempfile.TemporaryDirectory(prefix="noughts-pycache-") as pycache:
        env = {key: value for key, value in os.environ.items()
               if key != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = pycache
        for script in (LAMBDA_PROBE.format(), "import fastapi", FASTAPI_FLOOR):
            _process_cpu_ms(script, env)
        probes, anchors, floors = [], [], []
        for _ in range(runs):
            probes.append(_process_cpu_ms(LAMBDA_PROBE.format(), env))
            anchors.append(_process_cpu_ms("import fastapi", env)[0])
            floors.append(_process_cpu_ms(FASTAPI_FLOOR, env))
    ratios = [cpu / anchor for (cpu, _), anchor in zip(probes, anchors, strict=True)]
    return {
        "process_cpu_ms": statistics.median(cpu for cpu, _ in probes),
        "import_fastapi_process_cpu_ms": statistics.median(anchors),
        "trivial_app_process_cpu_ms": statistics.median(cpu for cpu, _ in floors),
        "ratio": statistics.median(probes_cpu for probes_cpu, _ in probes)
        / statistics.median(anchors),
        "ratio_per_run_median": statistics.median(ratios),
        "target_ratio": COLD_TARGET,
        "import_ms": statistics.median(p["import_ms"] for _, p in probes),
        "import_plus_first_ms": statistics.median(p["total_ms"] for _, p in probes),
        "import_plus_first_cpu_ms": statistics.median(p["total_cpu_ms"] for _, p in probes),
        "import_fastapi_ms": statistics.median(f["total_ms"] for _, f in floors),
        "import_fastapi_cpu_ms": statistics.median(f["total_cpu_ms"] for _, f in floors),
        "trivial_app_ms": statistics.median(f["app_ms"] for _, f in floors),
        "trivial_app_cpu_ms": statistics.median(f["app_cpu_ms"] for _, f in floors),
        "runs": runs,
        "all_total_ms": [p["total_ms"] for _, p in probes],
        "load_average": os.getloadavg(),
    }


def print_cold_start(cold: dict[str, Any]) -> None:
    """The cold start's table: each process's CPU time and its ratio to the anchor."""
    anchor = cold["import_fastapi_process_cpu_ms"]
    print(f"\nLambda cold start, CPU time of a whole new process (median of {cold['runs']} "
          f"alternating runs, load average {cold['load_average'][0]:.1f})")
    print(f"{'process':<58}{'CPU ms':>8}{'ratio':>8}")
    for label, key in (("python -c 'import fastapi' (the anchor)", "import_fastapi_process_cpu_ms"),
                       ("one-route FastAPI app on Mangum + first POST /",
                        "trivial_app_process_cpu_ms"),
                       ("noughts handler import + first POST /", "process_cpu_ms")):
        print(f"{label:<58}{cold[key]:>8.0f}{cold[key] / anchor:>7.2f}x")
    verdict = "met" if cold["ratio"] <= COLD_TARGET else "NOT met"
    print(f"target: at most {COLD_TARGET:.2f}x the anchor: {verdict} "
          f"(median of per-run ratios {cold['ratio_per_run_median']:.2f}x)")


BURST_SIZE = 64
BURST_BUDGETS_MS = (500, 1000)
GRACE_S = 0.1


def qubic_positions(count: int, rng: random.Random) -> list[Position]:
    """Distinct unfinished Qubic positions of 2 to 8 marks."""
    found: dict[str, Position] = {}
    while len(found) < count:
        position = Position("", "qubic")
        for _ in range(rng.randrange(2, 9)):
            if position.is_over:  # (a line of four among the first marks)
                break
            position = position.play(rng.choice(list(position.legal_moves)))
        if not position.is_over:
            found.setdefault(position.board, position)
    return list(found.values())


async def _one_shot(port: int, raw: bytes) -> tuple[str, float]:
    """Status and seconds of one request on a connection of its own."""
    began = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(raw)
    answer = await reader.read()
    writer.close()
    return answer.split(b" ", 2)[1].decode(), time.perf_counter() - began


async def _burst(port: int, requests: list[bytes]) -> tuple[list[tuple[str, float]], list[float]]:
    """Every request at once, and /healthz pinged every 10 ms meanwhile."""
    ping = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    pings: list[float] = []
    done = asyncio.Event()

    async def probe() -> None:
        while not done.is_set():
            pings.append((await _one_shot(port, ping))[1])
            await asyncio.sleep(0.01)

    prober = asyncio.ensure_future(probe())
    await asyncio.sleep(0.05)
    answers = await asyncio.gather(*(_one_shot(port, raw) for raw in requests))
    done.set()
    await prober
    return answers, pings


def burst_run(mode: str, budget_ms: int, rng: random.Random) -> dict[str, Any]:
    """One burst on a fresh server (searches in ``mode``: processes or threads)."""
    extra = {"NOUGHTS_SEARCH_PROCESSES": "0"} if mode == "threads" else {}
    port = free_port()
    server = start_noughts(port, 10_000, extra)
    try:
        wait_warm(port)
        time.sleep(0.5)
        requests = [
            http_request("/api/v1/move", {"variant": "qubic", "board": p.board,
                                          "time_ms": budget_ms}, close=True)
            for p in qubic_positions(BURST_SIZE, rng)
        ]
        load = os.getloadavg()[0]
        answers, pings = asyncio.run(_burst(port, requests))
    finally:
        stop(server)
    due = budget_ms / 1000 + GRACE_S
    pings.sort()
    return {
        "mode": mode, "budget_ms": budget_ms, "load_average": round(load, 2),
        "statuses": dict(Counter(status for status, _ in answers)),
        "late": sum(1 for _, elapsed in answers if elapsed > due),
        "max_ms": round(max(elapsed for _, elapsed in answers) * 1000, 1),
        "healthz_pings": len(pings),
        "healthz_p50_ms": round(pings[len(pings) // 2] * 1000, 1),
        "healthz_p99_ms": round(pings[min(len(pings) - 1, int(0.99 * len(pings)))] * 1000, 1),
        "healthz_max_ms": round(pings[-1] * 1000, 1),
    }


async def _heavy(port: int, requests: list[bytes], clients: int, seconds: float
                 ) -> tuple[Counter[str], list[float]]:
    """``clients`` clients in a closed loop of heavy requests, and /healthz every 20 ms."""
    ping = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    stop_at = time.perf_counter() + seconds
    statuses: Counter[str] = Counter()
    pings: list[float] = []

    async def client(first: int) -> None:
        index = first
        while time.perf_counter() < stop_at:
            status, _ = await _one_shot(port, requests[index % len(requests)])
            statuses[status] += 1
            index += clients

    async def probe() -> None:
        while time.perf_counter() < stop_at:
            pings.append((await _one_shot(port, ping))[1])
            await asyncio.sleep(0.02)

    await asyncio.gather(probe(), *(client(i) for i in range(clients)))
    return statuses, pings


def heavy_run(mode: str, rng: random.Random, seconds: float) -> dict[str, Any]:
    """/healthz while 4 clients keep the searches busy with 1-second Qubic requests."""
    extra = {"NOUGHTS_SEARCH_PROCESSES": "0"} if mode == "threads" else {}
    port = free_port()
    server = start_noughts(port, 10_000, extra)
    try:
        wait_warm(port)
        requests = [
            http_request("/api/v1/move", {"variant": "qubic", "board": p.board, "time_ms": 1000},
                         close=True)
            for p in qubic_positions(400, rng)
        ]
        load = os.getloadavg()[0]
        statuses, pings = asyncio.run(_heavy(port, requests, 4, seconds))
    finally:
        stop(server)
    pings.sort()
    return {
        "mode": mode, "load_average": round(load, 2), "seconds": seconds,
        "statuses": dict(statuses), "healthz_pings": len(pings),
        "healthz_p50_ms": round(pings[len(pings) // 2] * 1000, 1),
        "healthz_p99_ms": round(pings[min(len(pings) - 1, int(0.99 * len(pings)))] * 1000, 1),
        "healthz_max_ms": round(pings[-1] * 1000, 1),
    }


def bursts(rounds: int) -> dict[str, Any]:
    """``rounds`` bursts per budget and mode, alternating; medians per budget and mode."""
    rng = random.Random(14)
    runs = [burst_run(mode, limit, rng) for _ in range(rounds)
            for limit in BURST_BUDGETS_MS for mode in ("processes", "threads")]
    summary = []
    print(f"\n{'searches in':<12}{'time_ms':>8}{'200':>6}{'429':>6}{'late':>6}{'max ms':>8}"
          f"{'healthz p50':>12}{'p99':>7}  load averages")
    for mode in ("processes", "threads"):
        for limit in BURST_BUDGETS_MS:
            mine = [r for r in runs if r["mode"] == mode and r["budget_ms"] == limit]
            row = {
                "mode": mode, "budget_ms": limit, "bursts": len(mine),
                "ok": statistics.median(r["statuses"].get("200", 0) for r in mine),
                "busy": statistics.median(r["statuses"].get("429", 0) for r in mine),
                "other": sum(sum(n for s, n in r["statuses"].items() if s not in ("200", "429"))
                             for r in mine),
                "late": statistics.median(r["late"] for r in mine),
                "late_all": [r["late"] for r in mine],
                "max_ms": statistics.median(r["max_ms"] for r in mine),
                "healthz_p50_ms": statistics.median(r["healthz_p50_ms"] for r in mine),
                "healthz_p99_ms": statistics.median(r["healthz_p99_ms"] for r in mine),
                "load_averages": [r["load_average"] for r in mine],
            }
            summary.append(row)
            print(f"{mode:<12}{limit:>8}{row['ok']:>6}{row['busy']:>6}{row['late']:>6}"
                  f"{row['max_ms']:>8.0f}{row['healthz_p50_ms']:>12.1f}"
                  f"{row['healthz_p99_ms']:>7.1f}  {row['load_averages']}")
    heavy = [heavy_run(mode, rng, 15.0) for _ in range(rounds) for mode in ("processes", "threads")]
    print("\n/healthz every 20 ms while 4 clients keep 1-second Qubic searches going (15 s):")
    for run in heavy:
        print(f"  {run['mode']:<10} p50 {run['healthz_p50_ms']:.1f} ms, p99 "
              f"{run['healthz_p99_ms']:.1f} ms, max {run['healthz_max_ms']:.1f} ms "
              f"({run['healthz_pings']} pings; requests {run['statuses']}; "
              f"load average {run['load_average']})")
    return {"size": BURST_SIZE, "rounds": rounds, "summary": summary, "runs": runs,
            "heavy": heavy}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0, help="measured seconds per load")
    parser.add_argument("--clients", type=int, default=16, help="concurrent connections")
    parser.add_argument("--positions", type=int, default=300, help="positions per variant")
    parser.add_argument("--burst", action="store_true",
                        help="measure only the 64-request Qubic burst; update it in the results")
    parser.add_argument("--cold-start-only", action="store_true",
                        help="measure only the Lambda cold start; update it in the results")
    parser.add_argument("--cold-runs", type=int, default=9,
                        help="runs of each cold-start process (default 9)")
    add_out_dir(parser)
    args = parser.parse_args()
    out = args.out_dir / "service.json"
    if args.burst:
        burst = bursts(args.rounds)
        burst["machine"] = (f"{platform.machine()}, {os.cpu_count()} cores, Python "
                            f"{platform.python_version()}")
        write_json(out, {**read_json(out), "burst": burst})
        return
    if args.cold_start_only:
        cold = lambda_cold_start(args.cold_runs)
        print_cold_start(cold)
        cold["machine"] = (f"{platform.machine()}, {os.cpu_count()} cores, Python "
                           f"{platform.python_version()}")
        write_json(out, {**read_json(out), "lambda_cold_start": cold})
        return
    rng = random.Random(2024)
    trivial = [http_request("/trivial", {"numX": 1, "numO": 2, "isX": True})]
    pools = {
        variant: [http_request("/api/v1/move", {"variant": variant, "numX": p.x, "numO": p.o,
                                                "to_move": p.to_move})
                  for p in game_positions(variant, args.positions, rng)]
        for variant in ("3x3", "4x4k3")
    }
    warm = 1.0
    runs: dict[str, list[LoadResult]] = {}
    idle_rss: list[float] = []
    idle_total: list[float] = []
    hit_rates: list[float] = []
    for round_number in range(args.rounds):
        port = free_port()
        baseline = start_baseline(port)
        try:
            runs.setdefault("trivial FastAPI endpoint", []).append(
                run_load("trivial", baseline.pid, port, trivial, args.clients, args.seconds,
                         warm))
        finally:
            stop(baseline)
        for cache_size, suffix in ((10_000, "cache on"), (0, "cache off")):
            port = free_port()
            server = start_noughts(port, cache_size)
            try:
                if cache_size:
                    wait_warm(port)
                    time.sleep(0.5)
                    idle_rss.append(rss_mb(server.pid))
                    idle_total.append(resident_mb(server.pid) or float("nan"))
                for variant, pool in pools.items():
                    label = f"/api/v1/move {variant}, {suffix}"
                    runs.setdefault(label, []).append(
                        run_load(label, server.pid, port, pool, args.clients, args.seconds,
                                 warm))
                if cache_size:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/stats") as r:
                        hit_rates.append(json.load(r)["hit_rate"] or 0.0)
            finally:
                stop(server)
        print(f"round {round_number + 1}/{args.rounds} done", file=sys.stderr)
    trivial_runs = runs["trivial FastAPI endpoint"]
    baseline_rps = statistics.median(r.rps for r in trivial_runs)
    baseline_cpu = statistics.median(r.server_cpu_ms for r in trivial_runs)
    rows = []
    print(f"\n{'endpoint':<32}{'req/s':>7}{'ratio':>7}{'p50 ms':>8}{'p99 ms':>8}"
          f"{'CPU ms/req':>11}{'CPU ratio':>10}  statuses")
    for label, results in runs.items():
        rps = statistics.median(r.rps for r in results)
        p50 = statistics.median(r.p50_ms for r in results)
        p99 = statistics.median(r.p99_ms for r in results)
        cpu = statistics.median(r.server_cpu_ms for r in results)
        statuses: Counter[str] = Counter()
        for r in results:
            statuses.update(r.statuses)
        ratio, cpu_ratio = rps / baseline_rps, baseline_cpu / cpu
        rows.append({"endpoint": label, "rps": rps, "ratio": ratio, "p50_ms": p50,
                     "p99_ms": p99, "server_cpu_ms_per_request": cpu,
                     "cpu_throughput_ratio": cpu_ratio, "statuses": dict(statuses)})
        print(f"{label:<32}{rps:>7.0f}{ratio:>7.0%}{p50:>8.1f}{p99:>8.1f}{cpu:>11.2f}"
              f"{cpu_ratio:>10.0%}  {dict(statuses)}")
    cold = lambda_cold_start(args.cold_runs)
    print_cold_start(cold)
    print(f"idle server resident memory: {statistics.median(idle_rss):.1f} MB "
          f"(median of {len(idle_rss)}; target < 100 MB); with its search workers "
          f"{statistics.median(idle_total):.1f} MB")
    print(f"move cache hit rate over a round (cache on): {statistics.median(hit_rates):.1%}")
    write_json(out, {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                   f"{platform.python_version()}",
        "load_average_at_end": os.getloadavg(),
        "rounds": args.rounds, "seconds": args.seconds, "clients": args.clients,
        "positions_per_variant": args.positions,
        "rows": rows, "lambda_cold_start": cold, "idle_rss_mb": statistics.median(idle_rss),
        "idle_rss_with_workers_mb": statistics.median(idle_total),
        "idle_rss_all_mb": idle_rss, "cache_hit_rate": statistics.median(hit_rates),
        "raw": {label: [asdict(r) for r in results] for label, results in runs.items()},
    })
    print(f"\nwritten to {out}")


if __name__ == "__main__":
    main()
