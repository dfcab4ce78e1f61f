"""Past one machine, measured on one: Ray against local processes, Redis against none.

Three measurements (each a subcommand; ``all`` runs them in turn), printed as tables
and written to ``cluster.json`` in ``--out-dir`` (``benchmarks/out/``):

- ``arena``: the same node-budgeted games on the arena's local worker pool and as jobs
  on a local Ray with as many CPUs; games per second and Ray's overhead as a ratio
  (Ray's start-up is reported apart). The two runs' games are checked to be identical.
- ``cache``: a replayed stream of Qubic move requests (positions from random games, each
  asked several times in random symmetric forms) spread over 2 service processes, once
  with each keeping its own cache and once sharing a Redis (a ``redis-server`` started
  here on 127.0.0.1); the share of answers served from a cache and the median latency.
- ``jobs``: proof-build-shaped jobs (a plain function of plain values: search one Qubic
  position for a fixed time, return a frozen dataclass) on a local process pool and on
  a local Ray, both with the same number of CPUs; jobs per hour.

    python benchmarks/bench_cluster.py all --games 40 --positions 15 --jobs 12
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import FIRST_COMPLETED, Executor, wait
from dataclasses import dataclass
from typing import Any

from bench_service import free_port, game_positions, stop, wait_ready, wait_warm
from noughts.arena.match import run_match
from noughts.position import Position
from noughts.runtime.cluster import executor_for
from outputs import add_out_dir, read_json, write_json


# -- arena ----------------------------------------------------------------------------------
def bench_arena(
    players: list[str], games: int, variant: str, nodes: int, cpus: int, rounds: int
) -> dict[str, Any]:
    """Games per second on the local pool and on a local Ray, same games, in alternating
    rounds (medians: other load on the machine comes and goes)."""
    first, second = players
    options: dict[str, Any] = {"variant": variant, "games": games, "nodes": nodes, "seed": 7,
                               "openings": 2}
    started = time.perf_counter()
    executor = executor_for("ray", workers=cpus)
    startup_s = time.perf_counter() - started
    local_times, ray_times, same = [], [], True
    try:
        run_match(first, second, executor=executor, **{**options, "games": cpus})  # warm
        for _ in range(rounds):
            started = time.perf_counter()
            local = run_match(first, second, workers=cpus, **options)
            local_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            remote = run_match(first, second, executor=executor, **options)
            ray_times.append(time.perf_counter() - started)
            same = same and [(r.moves, r.result) for r in local.records] == [
                (r.moves, r.result) for r in remote.records
            ]
    finally:
        executor.shutdown()
    local_s, ray_s = statistics.median(local_times), statistics.median(ray_times)
    row = {
        "players": players, "variant": variant, "games": games, "nodes": nodes, "cpus": cpus,
        "rounds": rounds, "local_games_per_s": games / local_s, "ray_games_per_s": games / ray_s,
        "ray_time_ratio": ray_s / local_s, "ray_startup_s": startup_s, "same_games": same,
        "local_seconds": local_times, "ray_seconds": ray_times,
    }
    print(f"arena {first} v {second} on {variant}, {games} games, {nodes} nodes a move,"
          f" {cpus} CPUs, median of {rounds} rounds:")
    print(f"  local pool  {row['local_games_per_s']:8.2f} games/s")
    ratio = row["ray_time_ratio"]
    print(f"  local Ray   {row['ray_games_per_s']:8.2f} games/s  (time x{ratio:.2f};"
          f" start-up {startup_s:.1f} s apart; same games: {same})")
    return row


# -- shared cache ---------------------------------------------------------------------------
def start_redis(port: int) -> subprocess.Popen[bytes]:
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit("needs redis-server (apt-get install redis-server)")
    process = subprocess.Popen(
        [server, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    time.sleep(0.3)
    return process


def start_worker(port: int, cache_url: str | None, timeout_ms: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "NOUGHTS_MAX_SEARCHES": "1", "NOUGHTS_CACHE_TIMEOUT_MS": str(timeout_ms)}
    env.pop("NOUGHTS_CACHE_URL", None)
    if cache_url is not None:
        env["NOUGHTS_CACHE_URL"] = cache_url
    process = subprocess.Popen(
        [sys.executable, "-m", "noughts", "serve", "--port", str(port), "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL,
    )
    wait_ready(port, "/healthz")
    wait_warm(port)
    return process


def request_stream(positions: int, repeats: int, time_ms: int, seed: int) -> list[dict[str, Any]]:
    """Qubic move requests: each position ``repeats`` times, in random symmetric forms."""
    rng = random.Random(seed)
    distinct = [p for p in game_positions("4x4x4", positions * 3, rng) if p.x or p.o]
    distinct = rng.sample(distinct, positions)
    symmetries = distinct[0].geometry.symmetry_group.count
    stream = []
    for position in distinct:
        for _ in range(repeats):
            image = position.transform(rng.randrange(symmetries))
            stream.append({"board": image.board, "variant": "qubic", "time_ms": time_ms})
    rng.shuffle(stream)
    return stream


def replay(ports: list[int], stream: list[dict[str, Any]], seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    latencies, cached, errors = [], 0, 0
    for body in stream:
        port = rng.choice(ports)
        data = json.dumps(body).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/v1/move", data=data,
            headers={"Content-Type": "application/json"},
        )
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                answer = json.load(response)
        except urllib.error.HTTPError:  # 503: no move in time on a loaded machine
            errors += 1
            answer = {"cached": False}
        latencies.append((time.perf_counter() - started) * 1000)
        cached += bool(answer["cached"])
    return {"requests": len(stream), "hit_ratio": cached / len(stream),
            "median_ms": statistics.median(latencies), "errors": errors}


def bench_cache(positions: int, repeats: int, time_ms: int, timeout_ms: int) -> dict[str, Any]:
    """Hit ratio and median latency over 2 workers, without and with a shared Redis."""
    stream = request_stream(positions, repeats, time_ms, seed=11)
    redis_port = free_port()
    redis = start_redis(redis_port)
    rows: dict[str, Any] = {"positions": positions, "repeats": repeats, "time_ms": time_ms,
                            "cache_timeout_ms": timeout_ms}
    try:
        for label, url in (("own caches", None), ("shared Redis", f"redis://127.0.0.1:{redis_port}/0")):
            ports = [free_port(), free_port()]
            workers = [start_worker(port, url, timeout_ms) for port in ports]
            try:
                rows[label] = replay(ports, stream, seed=5)
            finally:
                for worker in workers:
                    stop(worker)
    finally:
        redis.terminate()
        redis.wait(10)
    print(f"shared cache: {positions} Qubic positions x {repeats} (random symmetric forms), "
          f"{time_ms} ms a search, 2 workers:")
    for label in ("own caches", "shared Redis"):
        row = rows[label]
        print(f"  {label:12}  hit ratio {row['hit_ratio']:.2f}  median {row['median_ms']:.1f} ms"
              f"  ({row['errors']} of {row['requests']} answered 5xx)")
    return rows


# -- proof-build-shaped jobs ---------------------------------------------------------------
@dataclass(frozen=True)
class JobResult:
    """What a proof-build job hands back: plain values only."""

    variant: str
    x: int
    o: int
    move: int
    nodes: int
    seconds: float


def run_job(variant_name: str, x: int, o: int, seconds: float) -> JobResult:
    """Search one position for ``seconds`` (the proof build's job shape, CPU-bound)."""
    from noughts.engine import choose_move

    position = Position.from_bitboards(x, o, variant_name)
    started = time.perf_counter()
    choice = choose_move(position, time_limit=seconds)
    return JobResult(variant_name, x, o, choice.move, choice.nodes, time.perf_counter() - started)


def jobs_per_hour(executor: Executor, jobs: list[tuple[str, int, int, float]]) -> float:
    started = time.perf_counter()
    pending = {executor.submit(run_job, *job) for job in jobs}
    while pending:
        _, pending = wait(pending, return_when=FIRST_COMPLETED)
    return len(jobs) * 3600 / (time.perf_counter() - started)


def bench_jobs(count: int, seconds: float, cpus: int) -> dict[str, Any]:
    rng = random.Random(3)
    positions = [p for p in game_positions("4x4x4", count * 3, rng) if p.x and p.o][:count]
    jobs = [("4x4x4", p.x, p.o, seconds) for p in positions]
    row: dict[str, Any] = {"jobs": count, "seconds_per_job": seconds, "cpus": cpus,
                           "ideal_per_hour": cpus * 3600 / seconds}
    for label, cluster in (("local processes", "none"), ("local Ray", "ray")):
        with executor_for(cluster, workers=cpus) as executor:
            warm = [executor.submit(run_job, *jobs[0][:3], 0.05) for _ in range(2 * cpus)]
            for future in warm:  # every worker started, its Qubic tables built
                future.result()
            row[label] = jobs_per_hour(executor, jobs)
    print(f"proof-build-shaped jobs: {count} Qubic searches of {seconds} s, {cpus} CPUs "
          f"(ideal {row['ideal_per_hour']:.0f}/h):")
    for label in ("local processes", "local Ray"):
        print(f"  {label:15}  {row[label]:8.0f} jobs/hour")
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["arena", "cache", "jobs", "all"])
    parser.add_argument("--cpus", type=int, default=2, help="worker processes / Ray CPUs")
    parser.add_argument("--games", type=int, default=40, help="arena games")
    parser.add_argument(
        "--players", nargs=2, default=["level:10", "level:9"], help="the arena's two players"
    )
    parser.add_argument("--variant", default="qubic", help="arena board")
    parser.add_argument("--rounds", type=int, default=3, help="alternating arena rounds")
    parser.add_argument("--nodes", type=int, default=2000, help="arena nodes a move")
    parser.add_argument("--positions", type=int, default=15, help="distinct Qubic positions")
    parser.add_argument("--repeats", type=int, default=3, help="requests per position")
    parser.add_argument("--time-ms", type=int, default=200, help="search budget a request")
    parser.add_argument(
        "--cache-timeout-ms", type=int, default=50, help="NOUGHTS_CACHE_TIMEOUT_MS of the workers"
    )
    parser.add_argument("--jobs", type=int, default=12, help="proof-build-shaped jobs")
    parser.add_argument("--job-seconds", type=float, default=0.5, help="seconds a job")
    add_out_dir(parser)
    args = parser.parse_args()
    command = " ".join(sys.argv)
    results: dict[str, Any] = {}
    if args.what in ("arena", "all"):
        results["arena"] = bench_arena(
            args.players, args.games, args.variant, args.nodes, args.cpus, args.rounds
        )
    if args.what in ("cache", "all"):
        results["cache"] = bench_cache(
            args.positions, args.repeats, args.time_ms, args.cache_timeout_ms
        )
    if args.what in ("jobs", "all"):
        results["jobs"] = bench_jobs(args.jobs, args.job_seconds, args.cpus)
    for row in results.values():
        row["command"] = command
    out = args.out_dir / "cluster.json"
    previous = read_json(out)  # the other measurements of an earlier run stay
    previous.pop("command", None)
    write_json(out, {**previous, **results})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
