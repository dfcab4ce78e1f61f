"""Benchmark the service as an operator runs it (a script, not a test):
``python benchmarks/bench_operations.py [--rounds 3] [--profile]``.

In one run, on 127.0.0.1, each part a table:

- **trivial** ``POST /`` (the 4x4 backend seed's body: an answer from the reply cache)
  on one ``noughts serve`` process against a bare FastAPI app with the same route and
  request model, each server pinned to core 0 and the load tool (``wrk`` if installed,
  else ``load_client.py``) to core 1, alternating, 32 keep-alive connections: requests
  per second, client-side p50/p99, and the server's CPU time a request (the throughput
  ratio on a core of its own, steadier when other jobs share the machine); target 0.8x;
- **latency at the client**: 64 keep-alive clients on one server, 30% of the requests
  Qubic searches (300 ms), the rest 3x3 and 4x4k3 moves and the seed's ``POST /``: p50
  and p99 as the clients see them beside the time the app reports for itself
  (``Server-Timing``);
- **the shared cache**: two ``noughts serve`` processes sharing one ``redis-server``,
  Qubic positions asked once, then asked again in random symmetric forms by 64 clients
  spread over both: hits on the repeats, and "unreachable" events in the logs;
- **SIGTERM under load**: 64 clients, the server told to stop mid-load: connection
  resets, 5xx answers, requests answered after the signal, connections refused after;
- **memory**: resident memory (server, its search workers, its uvicorn workers) idle
  after the warm-up and at its peak under the latency load, for 1, 2 and 4 workers;
- with ``--profile``: py-spy's top entries of one process under the trivial load.

Results go to ``benchmarks/results/operations.json`` (``--out`` elsewhere).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

from bench_service import cpu_seconds, free_port, qubic_positions, wait_ready, wait_warm
from noughts.position import Position
from noughts.runtime.atomic import write_atomic
from noughts.service.memory import resident_mb

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "operations.json"
LOAD_CLIENT = Path(__file__).resolve().parent / "load_client.py"
SEED_BODY = {"numX": 3, "numO": 48, "isX": True}

BARE_APP = """
import sys
import uvicorn
from fastapi import FastAPI
from noughts.service.seed import SeedMoveRequest

app = FastAPI()


@app.post("/")
async def move(body: SeedMoveRequest) -> list[int]:
    return [0, 2]


uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""
"""The bare app: FastAPI with the seed's route and request model, uvicorn's defaults."""

WRK_SCRIPT = """wrk.method = "POST"
wrk.body = '{"numX": 3, "numO": 48, "isX": true}'
wrk.headers["Content-Type"] = "application/json"
"""


def machine() -> str:
    return (f"{platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}")


def pinned(core: int, command: list[str]) -> list[str]:
    taskset = shutil.which("taskset")
    return [taskset, "-c", str(core), *command] if taskset else command


def start_server(port: int, env: dict[str, str] | None = None, *, core: int | None = None,
                 workers: int = 1, log: Path | None = None) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "noughts", "serve", "--port", str(port),
               "--log-level", "warning", "--workers", str(workers)]
    output = open(log, "ab") if log is not None else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(pinned(core, command) if core is not None else command,
                               env={**os.environ, **(env or {})}, stdout=output,
                               stderr=subprocess.STDOUT)
    wait_ready(port, "/healthz")
    wait_warm(port)
    return process


def stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def load_client(port: int, pairs: list[tuple[str, Any]], *, clients: int, seconds: float,
                core: int | None = None, stop_after: float | None = None,
                pid: int | None = None) -> dict[str, Any]:
    command = [sys.executable, str(LOAD_CLIENT), str(port), "--requests",
               "--clients", str(clients), "--seconds", str(seconds)]
    if stop_after is not None and pid is not None:
        command += ["--stop-after", str(stop_after), "--pid", str(pid)]
    run = subprocess.run(pinned(core, command) if core is not None else command,
                         input=json.dumps(pairs), capture_output=True, text=True, check=True)
    report: dict[str, Any] = json.loads(run.stdout)
    return report


def wrk(port: int, seconds: float, script: Path) -> dict[str, Any]:
    """``wrk`` on core 1: requests/s, p50 and p99 (ms), requests."""
    run = subprocess.run(pinned(1, ["wrk", "-t1", "-c32", f"-d{seconds:g}s", "--latency",
                                    "-s", str(script), f"http://127.0.0.1:{port}/"]),
                         capture_output=True, text=True, check=True).stdout
    def found(pattern: str) -> tuple[str, ...]:
        match = re.search(pattern, run)
        if match is None:
            raise RuntimeError(f"wrk said nothing like {pattern!r}: {run}")
        return match.groups()

    figures: dict[str, Any] = {"rps": float(found(r"Requests/sec:\s+([\d.]+)")[0]),
                               "requests": int(found(r"(\d+) requests in")[0])}
    for name, key in (("50%", "client_p50_ms"), ("99%", "client_p99_ms")):
        value, unit = found(rf"{name}\s+([\d.]+)(us|ms|s)")
        figures[key] = float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
    errors = re.search(r"Socket errors: (.*)", run)
    figures["socket_errors"] = errors[1] if errors else None
    return figures


def trivial_load(pid: int, port: int, seconds: float, script: Path | None) -> dict[str, Any]:
    """The trivial POST / load on one server: client figures and server CPU a request."""
    before = cpu_seconds(pid)
    if script is not None:
        figures = wrk(port, seconds, script)
        answered = figures["requests"]
    else:
        figures = load_client(port, [("/", SEED_BODY)], clients=32, seconds=seconds, core=1)
        answered = figures["answered"]
    figures["server_cpu_us"] = (cpu_seconds(pid) - before) * 1e6 / max(1, answered)
    return figures


def trivial(rounds: int, seconds: float, profile: bool) -> dict[str, Any]:
    """noughts against the bare app, alternating, each pinned to core 0."""
    script = None
    if shutil.which("wrk"):
        script = Path(tempfile.mkstemp(suffix=".lua")[1])
        script.write_text(WRK_SCRIPT)
    runs: dict[str, list[dict[str, Any]]] = {"bare FastAPI app": [], "noughts serve": []}
    top: list[str] = []
    for _ in range(rounds):
        port = free_port()
        bare = subprocess.Popen(pinned(0, [sys.executable, "-c", BARE_APP, str(port)]))
        try:
            wait_ready(port, "/docs")
            trivial_load(bare.pid, port, 1.0, script)  # warm-up
            runs["bare FastAPI app"].append(trivial_load(bare.pid, port, seconds, script))
        finally:
            stop(bare)
        port = free_port()
        server = start_server(port, core=0)
        try:
            trivial_load(server.pid, port, 1.0, script)
            runs["noughts serve"].append(trivial_load(server.pid, port, seconds, script))
            if profile and not top:
                top = profile_under_load(server.pid, port, script)
        finally:
            stop(server)
    rows = {label: {key: statistics.median(r[key] for r in found)
                    for key in ("rps", "client_p50_ms", "client_p99_ms", "server_cpu_us")}
            for label, found in runs.items()}
    bare_row, ours = rows["bare FastAPI app"], rows["noughts serve"]
    return {
        "load_tool": "wrk" if script else "load_client.py", "rounds": rounds,
        "seconds": seconds, "rows": rows, "runs": runs,
        "rps_ratio": ours["rps"] / bare_row["rps"],
        "rps_ratios": [n["rps"] / b["rps"] for n, b in
                       zip(runs["noughts serve"], runs["bare FastAPI app"], strict=True)],
        "cpu_ratio": bare_row["server_cpu_us"] / ours["server_cpu_us"],
        "profile_top": top,
    }


def profile_under_load(pid: int, port: int, script: Path | None) -> list[str]:
    """py-spy's top entries (own time, then total time) of the serving thread."""
    spy = shutil.which("py-spy")
    if spy is None:
        return ["py-spy is not installed: pip install py-spy"]
    raw = Path(tempfile.mkstemp(suffix=".txt")[1])
    load = subprocess.Popen(
        pinned(1, ["wrk", "-t1", "-c32", "-d8s", "-s", str(script), f"http://127.0.0.1:{port}/"])
        if script else [sys.executable, str(LOAD_CLIENT), str(port), "--clients", "32",
                        "--seconds", "8"], stdout=subprocess.DEVNULL)
    time.sleep(1)
    subprocess.run([spy, "record", "-p", str(pid), "-d", "5", "-r", "250", "-f", "raw",
                    "-o", str(raw), "--nonblocking"], capture_output=True, check=False)
    load.wait()
    own: Counter[str] = Counter()
    total: Counter[str] = Counter()
    samples = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if "Server.run" not in stack:
            continue  # other threads (idle)
        frames = [frame.split(" (")[0] for frame in stack.split(";")]
        samples += int(count)
        own[frames[-1]] += int(count)
        for frame in set(frames):
            total[frame] += int(count)
    lines = [f"own {100 * n / samples:5.1f}%  {name}" for name, n in own.most_common(12)]
    lines += [f"total {100 * n / samples:5.1f}%  {name}" for name, n in total.most_common(40)
              if n < samples]
    return lines


def mixed_pairs(rng: random.Random, count: int = 300) -> list[tuple[str, Any]]:
    """30% Qubic searches (300 ms), the rest small boards' moves and the seed's POST /."""
    qubic = qubic_positions(count, rng)
    pairs: list[tuple[str, Any]] = []
    for index, position in enumerate(qubic):
        kind = index % 10
        if kind < 3:
            pairs.append(("/api/v1/move", {"variant": "qubic", "board": position.board,
                                           "time_ms": 300}))
        elif kind < 6:
            pairs.append(("/", SEED_BODY))
        else:
            variant = "3x3" if kind < 8 else "4x4k3"
            small = Position("", variant)
            for _ in range(rng.randrange(0, 4)):
                small = small.play(rng.choice(list(small.legal_moves)))
            pairs.append(("/api/v1/move", {"variant": variant, "board": small.board}))
    return pairs


def latency(seconds: float, rng: random.Random, workers: int = 1) -> dict[str, Any]:
    """Client-side against in-app latency under the mixed load, and memory meanwhile."""
    port = free_port()
    server = start_server(port, workers=workers)
    try:
        time.sleep(1.0)
        idle = resident_mb(server.pid)
        peak = [idle or 0.0]
        pairs = mixed_pairs(rng)
        done = asyncio.Event()

        async def sample() -> None:
            while not done.is_set():
                peak.append(resident_mb(server.pid) or 0.0)
                await asyncio.sleep(0.5)

        async def measured() -> dict[str, Any]:
            sampler = asyncio.ensure_future(sample())
            report = await asyncio.to_thread(load_client, port, pairs, clients=64,
                                             seconds=seconds)
            done.set()
            await sampler
            return report

        report = asyncio.run(measured())
    finally:
        stop(server)
    report.update(workers=workers, idle_rss_mb=idle, peak_rss_mb=max(peak),
                  load_average=os.getloadavg()[0])
    return report


def shared_cache(seconds: float, rng: random.Random, positions: int = 24) -> dict[str, Any]:
    """Two servers sharing one Redis: repeats of positions asked once before."""
    redis_server = shutil.which("redis-server")
    if redis_server is None:
        return {"error": "redis-server is not installed"}
    redis_port = free_port()
    cache = subprocess.Popen([redis_server, "--bind", "127.0.0.1", "--port", str(redis_port),
                              "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
    scratch = Path(tempfile.mkdtemp(prefix="noughts-cache-"))
    env = {"NOUGHTS_CACHE_URL": f"redis://127.0.0.1:{redis_port}/0"}
    ports = [free_port(), free_port()]
    logs = [scratch / f"server{i}.log" for i in range(2)]
    servers = [start_server(port, env, log=log) for port, log in zip(ports, logs, strict=True)]
    try:
        boards = qubic_positions(positions, rng)
        first = [("/api/v1/move", {"variant": "qubic", "board": p.board, "time_ms": 300})
                 for p in boards]
        for index, pair in enumerate(first):  # each position once, on either server
            body = json.dumps(pair[1]).encode()
            request = urllib.request.Request(
                f"http://127.0.0.1:{ports[index % 2]}{pair[0]}", data=body,
                headers={"Content-Type": "application/json"})
            urllib.request.urlopen(request, timeout=10).read()
        time.sleep(0.5)  # the stores, done in the background, have reached Redis
        before = [stats(port) for port in ports]
        repeats: list[tuple[str, Any]] = []
        for _ in range(20):
            for position in boards:
                form = position.transform(rng.randrange(position.geometry.symmetry_group.count))
                repeats.append(("/api/v1/move", {"variant": "qubic", "board": form.board,
                                                 "time_ms": 300}))
        rng.shuffle(repeats)
        reports = asyncio.run(_both(ports, repeats, seconds))
        after = [stats(port) for port in ports]
    finally:
        for server in servers:
            stop(server)
        cache.terminate()
        cache.wait(10)
    local = sum(a["hits"] - b["hits"] for a, b in zip(after, before, strict=True))
    shared = sum(a["shared"]["hits"] - b["shared"]["hits"]
                 for a, b in zip(after, before, strict=True))
    answered = sum(r["answered"] for r in reports)
    ok = sum(r["statuses"].get("200", 0) for r in reports)
    events = sum(log.read_text().count("unreachable") for log in logs)
    return {
        "positions": positions, "repeat_requests": answered, "answered_200": ok,
        "hits_local": local, "hits_shared": shared,
        "hit_rate_of_repeats": (local + shared) / max(1, ok),
        "errors": sum(a["shared"]["errors"] for a in after),
        "skipped": sum(a["shared"]["skipped"] for a in after),
        "unreachable_events": events,
        "client_p50_ms": statistics.median(r["client_p50_ms"] for r in reports),
        "client_p99_ms": max(r["client_p99_ms"] for r in reports),
    }


async def _both(ports: list[int], pairs: list[tuple[str, Any]], seconds: float
                ) -> list[dict[str, Any]]:
    halves = [pairs[0::2], pairs[1::2]]
    return list(await asyncio.gather(*(
        asyncio.to_thread(load_client, port, half, clients=32, seconds=seconds)
        for port, half in zip(ports, halves, strict=True))))


def stats(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/stats") as answer:
        cache: dict[str, Any] = json.load(answer)["cache"]
        return cache


def sigterm(rng: random.Random) -> dict[str, Any]:
    """64 clients of the mixed load; SIGTERM at 3 s."""
    port = free_port()
    server = start_server(port)
    began = time.monotonic()
    report = load_client(port, mixed_pairs(rng), clients=64, seconds=30, stop_after=3.0,
                         pid=server.pid)
    code = server.wait(timeout=30)
    report.update(exit_code=code, stopped_after_s=round(time.monotonic() - began - 3.0, 2))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per trivial load")
    parser.add_argument("--load-seconds", type=float, default=10.0,
                        help="seconds of each 64-client load")
    parser.add_argument("--profile", action="store_true", help="py-spy under the trivial load")
    parser.add_argument("--only", nargs="+", default=list(PARTS), choices=PARTS,
                        help="measure only these parts (the others are kept from --out)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    rng = random.Random(47)
    results: dict[str, Any] = json.loads(args.out.read_text()) if args.out.exists() else {}
    results.update(machine=machine(), load_average_at_start=os.getloadavg())
    if "trivial" in args.only:
        results["trivial"] = trivial(args.rounds, args.seconds, args.profile)
        print_trivial(results["trivial"], args.rounds)
    if "latency" in args.only or "memory" in args.only:
        results["latency"] = [latency(args.load_seconds, rng) for _ in range(args.rounds)]
        print_latency(results["latency"])
    if "cache" in args.only:
        results["shared_cache"] = shared_cache(args.load_seconds, rng)
        print_cache(results["shared_cache"])
    if "sigterm" in args.only:
        results["sigterm"] = [sigterm(rng) for _ in range(args.rounds)]
        print_sigterm(results["sigterm"])
    if "memory" in args.only:
        results["memory"] = [
            memory_row(results["latency"][0] if workers == 1
                       else latency(args.load_seconds, rng, workers))
            for workers in (1, 2, 4)
        ]
        print_memory(results["memory"])
    results["load_average_at_end"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out, json.dumps(results, indent=2) + "\n")
    print(f"\nmachine: {machine()}; written to {args.out}")


PARTS = ("trivial", "latency", "cache", "sigterm", "memory")


def memory_row(run: dict[str, Any]) -> dict[str, Any]:
    return {key: run[key] for key in ("workers", "idle_rss_mb", "peak_rss_mb", "load_average")}


def print_trivial(found: dict[str, Any], rounds: int) -> None:
    print(f"\ntrivial POST / ({found['load_tool']}, 32 connections, server on core 0, load on "
          f"core 1; medians of {rounds} alternating rounds)")
    print(f"{'server':<20}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'CPU us/req':>12}")
    for label, row in found["rows"].items():
        print(f"{label:<20}{row['rps']:>9.0f}{row['client_p50_ms']:>9.2f}"
              f"{row['client_p99_ms']:>9.2f}{row['server_cpu_us']:>12.1f}")
    print(f"noughts / bare: {found['rps_ratio']:.2f}x by requests/s (per round: "
          f"{', '.join(f'{r:.2f}' for r in found['rps_ratios'])}), "
          f"{found['cpu_ratio']:.2f}x by server CPU a request; target 0.8x")
    for line in found["profile_top"]:
        print("  " + line)


def print_latency(runs: list[dict[str, Any]]) -> None:
    print("\n64 clients, 30% Qubic searches (300 ms), one server (ms):")
    print(f"{'':<8}{'client p50':>11}{'client p99':>11}{'app p50':>9}{'app p99':>9}"
          f"{'req/s':>8}  statuses")
    for run in runs:
        print(f"{'':<8}{run['client_p50_ms']:>11.1f}{run['client_p99_ms']:>11.1f}"
              f"{run['app_p50_ms']:>9.1f}{run['app_p99_ms']:>9.1f}{run['rps']:>8.0f}"
              f"  {run['statuses']} (load average {run['load_average']:.1f})")


def print_cache(cache: dict[str, Any]) -> None:
    print(f"\nshared cache, two servers, one Redis, 64 clients on repeats of "
          f"{cache.get('positions')} Qubic positions asked once before:")
    print(json.dumps(cache))


def print_sigterm(runs: list[dict[str, Any]]) -> None:
    for run in runs:
        print(f"\nSIGTERM under load (64 clients): {run['resets']} resets, "
              f"{run['server_errors']} 5xx, {run['answered_after_stop']} answered after the "
              f"signal, {run['refused']} refused after; exit {run['exit_code']} "
              f"{run['stopped_after_s']} s after the signal")


def print_memory(rows: list[dict[str, Any]]) -> None:
    print("\nresident memory, server with its search workers (MB):")
    for row in rows:
        print(f"  --workers {row['workers']}: idle {row['idle_rss_mb']:.0f}, "
              f"under load {row['peak_rss_mb']:.0f}")


if __name__ == "__main__":
    main()
