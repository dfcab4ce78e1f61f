"""Benchmark the learning environments (a script, not a test): ``python benchmarks/bench_rl.py``.

Steps per second with uniformly random legal moves (drawn from the action mask), each
environment run for ``--seconds`` in the same process, one after another:

- PettingZoo AEC: ``noughts.rl.aec_env`` (with PettingZoo's wrappers, as users get it)
  on 3x3 and Qubic, the bare ``NoughtsAECEnv`` on the same boards, and PettingZoo's own
  ``tictactoe_v3`` (wrapped the same way; it needs ``pygame``) beside them. A step is one
  ``env.step`` call with the usual ``env.last()`` before it, the end-of-game ``None``
  steps included;
- Gymnasium: ``NoughtsEnv`` against the random opponent on 3x3 and Qubic, with and
  without the exact values in ``info``. A step is the agent's move and the opponent's
  answer.

Each row gives the steps, the wall and CPU seconds and steps per CPU second (on a shared
machine the CPU time is what the work costs an idle one). With ``--runs N`` every row is
measured N times (the whole set over again each round, so a change of load touches every
row alike) and the run of median steps per CPU second is kept. Results go to
``benchmarks/results/rl.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from noughts.rl import NoughtsAECEnv, NoughtsEnv, aec_env

RESULTS = Path(__file__).resolve().parent / "results" / "rl.json"


def run_aec(make: Callable[[], Any], seconds: float, seed: int) -> tuple[int, int]:
    """Random games in an AEC environment for ``seconds``: (steps, games)."""
    rng = random.Random(seed)
    env = make()
    steps = games = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=seed if games == 0 else None)
        games += 1
        for _agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[rng.randrange(len(legal))])
            env.step(action)
            steps += 1
    return steps, games


def run_gym(env: NoughtsEnv, seconds: float, seed: int) -> tuple[int, int]:
    """Random games in the Gymnasium environment for ``seconds``: (steps, games)."""
    rng = random.Random(seed)
    steps = games = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        observation, _ = env.reset(seed=seed if games == 0 else None)
        games += 1
        done = False
        while not done:
            legal = np.flatnonzero(observation["action_mask"])
            observation, _, done, _, _ = env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    return steps, games


def tictactoe_v3() -> Any:
    """PettingZoo's own tic-tac-toe module, or why it cannot be measured here."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            from pettingzoo.classic import tictactoe_v3 as module
    except ImportError as error:
        return f"not measured: {error} (pip install pygame-ce)"
    return module


def measure(name: str, variant: str, run: Callable[[], tuple[int, int]]) -> dict[str, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    steps, games = run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    row = {
        "env": name,
        "variant": variant,
        "steps": steps,
        "games": games,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "steps_per_cpu_s": round(steps / cpu) if cpu else None,
    }
    print(
        f"{name:<44} {variant:<6} {steps:>8} {games:>7} {wall:>7.2f} {cpu:>7.2f} "
        f"{row['steps_per_cpu_s']:>10}",
        flush=True,
    )
    return row


HEADER = (
    f"{'env':<44} {'board':<6} {'steps':>8} {'games':>7} {'wall s':>7} {'CPU s':>7} "
    f"{'steps/CPU s':>10}"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per row (default 3)")
    parser.add_argument("--runs", type=int, default=1, help="rounds; each row's median kept")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    seconds, seed = args.seconds, args.seed
    rounds = []
    for number in range(1, args.runs + 1):
        print(f"round {number} of {args.runs}" if args.runs > 1 else "", HEADER, sep="\n")
        rounds.append(one_round(seconds, seed))
    rows = [median_row([round_[index] for round_ in rounds]) for index in range(len(rounds[0]))]
    if args.runs > 1:
        print(f"\nmedians of {args.runs} runs (steps per CPU second)", HEADER, sep="\n")
        for row in rows:
            print(
                f"{row['env']:<44} {row['variant']:<6} {row['steps']:>8} {row['games']:>7} "
                f"{row['wall_s']:>7.2f} {row['cpu_s']:>7.2f} {row['steps_per_cpu_s']:>10}"
            )
    if not args.no_write:
        RESULTS.write_text(
            json.dumps(
                {
                    "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                    f"{platform.python_version()}",
                    "load_average_after": os.getloadavg(),
                    "seconds_per_row": seconds,
                    "runs": args.runs,
                    "rows": rows,
                },
                indent=2,
            )
            + "\n"
        )
        print(f"written to {RESULTS}")


def median_row(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of median steps per CPU second, with every run's figure beside it."""
    ordered = sorted(runs, key=lambda row: row["steps_per_cpu_s"] or 0)
    row = dict(ordered[len(ordered) // 2])
    row["all_steps_per_cpu_s"] = [run["steps_per_cpu_s"] for run in runs]
    return row


def one_round(seconds: float, seed: int) -> list[dict[str, Any]]:
    """Every row once."""
    rows = []
    theirs = tictactoe_v3()
    if isinstance(theirs, str):
        print(f"pettingzoo tictactoe_v3: {theirs}")
    else:
        rows.append(
            measure(
                "pettingzoo tictactoe_v3 (wrapped)",
                "3x3",
                lambda: run_aec(theirs.env, seconds, seed),
            )
        )
        rows.append(
            measure(
                "pettingzoo tictactoe_v3 raw_env (bare)",
                "3x3",
                lambda: run_aec(theirs.raw_env, seconds, seed),
            )
        )
    for variant in ("3x3", "qubic"):
        rows.append(
            measure(
                "noughts aec_env (wrapped)",
                variant,
                lambda v=variant: run_aec(lambda: aec_env(v), seconds, seed),
            )
        )
        rows.append(
            measure(
                "noughts NoughtsAECEnv (bare)",
                variant,
                lambda v=variant: run_aec(lambda: NoughtsAECEnv(v), seconds, seed),
            )
        )
    for variant in ("3x3", "qubic"):
        for exact in (True, False):
            env = NoughtsEnv(variant, opponent="random", exact_info=exact)
            label = f"noughts NoughtsEnv vs random, exact_info={exact!s:.1}"
            rows.append(measure(label, variant, lambda e=env: run_gym(e, seconds, seed)))
    return rows


if __name__ == "__main__":
    main()
