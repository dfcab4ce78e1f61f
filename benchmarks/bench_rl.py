"""Benchmark the learning environments (a script, not a test): ``python benchmarks/bench_rl.py``.

Steps per second with uniformly random legal moves (drawn from the action mask), each
environment run for ``--seconds`` of CPU time in the same process, one after another (a
CPU budget, not a wall clock: on a shared machine every row gets the same work whatever
the load):

- PettingZoo AEC: ``noughts.rl.aec_env`` (as users get it: the checks of PettingZoo's
  usual wrappers, done in the class) on 3x3 and Qubic, the bare ``NoughtsAECEnv`` on the
  same boards, and PettingZoo's own ``tictactoe_v3`` (``env()``, in those wrappers, and
  ``raw_env``; it needs ``pygame``) beside them. A step is one
  ``env.step`` call with the usual ``env.last()`` before it, the end-of-game ``None``
  steps included;
- the same AEC loop with ``reset(seed=i)`` before every episode (``seeded``);
- Gymnasium: ``NoughtsEnv`` against the random opponent on 3x3 and Qubic, with and
  without the exact values in ``info``. A step is the agent's move and the opponent's
  answer;
- batched: ``NoughtsVectorEnv`` with ``--boards`` boards (4096), random legal moves drawn
  from the batched masks in NumPy, in self-play (a step is one move on one board) and
  against the random opponent computed in the batch (a step is the agent's move and the
  answer). Only moves count: the step that resets a finished board does not.

Then the targets, each figure beside its anchor measured in the same round (the ratio is
taken round by round and the median of the rounds is printed).

Each row gives the steps, the wall and CPU seconds and steps per CPU second (on a shared
machine the CPU time is what the work costs an idle one). With ``--runs N`` every row is
measured N times (the whole set over again each round, so a change of load touches every
row alike) and the run of median steps per CPU second is kept. Results go to
``rl.json`` in ``--out-dir`` (``benchmarks/out/``).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from noughts.rl import NoughtsAECEnv, NoughtsEnv, NoughtsVectorEnv, aec_env
from outputs import add_out_dir, write_json


def run_aec(make: Callable[[], Any], seconds: float, seed: int, *,
            seed_every_reset: bool = False) -> tuple[int, int]:
    """Random games in an AEC environment for ``seconds``: (steps, games); the first
    reset is seeded, or every one with ``seed_every_reset``."""
    rng = random.Random(seed)
    env = make()
    steps = games = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        if seed_every_reset:
            env.reset(seed=seed + games)
        else:
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


def run_aec_seeded(make: Callable[[], Any], seconds: float, seed: int) -> tuple[int, int]:
    """As :func:`run_aec`, with ``reset(seed=...)`` before every episode."""
    return run_aec(make, seconds, seed, seed_every_reset=True)


def run_vector(env: NoughtsVectorEnv, seconds: float, seed: int) -> tuple[int, int]:
    """Random moves on every board of the batched environment: (moves, finished games)."""
    rng = np.random.default_rng(seed)
    observation, _ = env.reset(seed=seed)
    steps = games = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        mask = observation["action_mask"]
        steps += int(mask.any(axis=1).sum())  # boards that move (not those being reset)
        actions = np.where(mask.astype(bool), rng.random(mask.shape), -1.0).argmax(axis=1)
        observation, _, terminated, _, _ = env.step(actions)
        games += int(terminated.sum())
    return steps, games


def run_gym(env: NoughtsEnv, seconds: float, seed: int) -> tuple[int, int]:
    """Random games in the Gymnasium environment for ``seconds``: (steps, games)."""
    rng = random.Random(seed)
    steps = games = 0
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
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
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="CPU seconds per row (default 3)"
    )
    parser.add_argument("--runs", type=int, default=1, help="rounds; each row's median kept")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--boards", type=int, default=4096, help="batched boards (4096)")
    parser.add_argument("--no-write", action="store_true", help="print only")
    add_out_dir(parser)
    args = parser.parse_args()
    seconds, seed = args.seconds, args.seed
    rounds = []
    for number in range(1, args.runs + 1):
        print(f"round {number} of {args.runs}" if args.runs > 1 else "", HEADER, sep="\n")
        rounds.append(one_round(seconds, seed, args.boards))
    rows = [median_row([round_[index] for round_ in rounds]) for index in range(len(rounds[0]))]
    if args.runs > 1:
        print(f"\nmedians of {args.runs} runs (steps per CPU second)", HEADER, sep="\n")
        for row in rows:
            print(
                f"{row['env']:<44} {row['variant']:<6} {row['steps']:>8} {row['games']:>7} "
                f"{row['wall_s']:>7.2f} {row['cpu_s']:>7.2f} {row['steps_per_cpu_s']:>10}"
            )
    targets = print_targets(rounds)
    if not args.no_write:
        out = args.out_dir / "rl.json"
        write_json(
            out,
            {
                "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                f"{platform.python_version()}",
                "load_average_after": os.getloadavg(),
                "seconds_per_row": seconds,
                "runs": args.runs,
                "rows": rows,
                "targets": targets,
            },
        )
        print(f"written to {out}")


TARGETS = [
    # (what, the row, its anchor in the same round, the target ratio, the target figure)
    (
        "batched 3x3 random play",
        "noughts NoughtsVectorEnv x{b}, self-play",
        "3x3",
        "pettingzoo tictactoe_v3 (wrapped)",
        "3x3",
        30.0,
        1_000_000,
    ),
    (
        "batched Qubic random play",
        "noughts NoughtsVectorEnv x{b}, self-play",
        "qubic",
        "noughts aec_env (wrapped)",
        "qubic",
        None,
        200_000,
    ),
    (
        "single 3x3 env (wrapped)",
        "noughts aec_env (wrapped)",
        "3x3",
        "pettingzoo tictactoe_v3 (wrapped)",
        "3x3",
        1.5,
        None,
    ),
    (
        "single 3x3 env (wrapped), seeded resets",
        "noughts aec_env (wrapped, seeded)",
        "3x3",
        "pettingzoo tictactoe_v3 (wrapped, seeded)",
        "3x3",
        1.5,
        None,
    ),
    (
        "single 3x3 env (bare)",
        "noughts NoughtsAECEnv (bare)",
        "3x3",
        "pettingzoo tictactoe_v3 raw_env (bare)",
        "3x3",
        1.5,
        None,
    ),
    (
        "single 3x3 env (bare), seeded resets",
        "noughts NoughtsAECEnv (bare, seeded)",
        "3x3",
        "pettingzoo tictactoe_v3 raw_env (bare, seeded)",
        "3x3",
        1.5,
        None,
    ),
]


def print_targets(rounds: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Each target's figure beside its anchor; ratios taken within each round, medians
    of the rounds printed."""
    boards = next(
        (row["env"].split(" x")[1].split(",")[0] for row in rounds[0] if " x" in row["env"]), "?"
    )
    print(
        f"\ntargets (steps per CPU second, medians of {len(rounds)} rounds; each ratio is "
        "taken within a round, figure and anchor measured one after the other)"
    )
    print(f"{'what':<42} {'figure':>10} {'anchor':<44} {'anchor /s':>10} {'ratio':>7} target")
    out = []
    for what, name, variant, anchor, anchor_variant, ratio_target, figure_target in TARGETS:
        name = name.format(b=boards)
        figures, anchors = [], []
        for round_ in rounds:
            found = {(row["env"], row["variant"]): row["steps_per_cpu_s"] for row in round_}
            if (name, variant) in found and (anchor, anchor_variant) in found:
                figures.append(found[(name, variant)])
                anchors.append(found[(anchor, anchor_variant)])
        if not figures:
            continue
        ratios = sorted(f / a for f, a in zip(figures, anchors, strict=True))
        figure, anchor_figure = (
            sorted(figures)[len(figures) // 2],
            sorted(anchors)[len(anchors) // 2],
        )
        ratio = ratios[len(ratios) // 2]
        goal = " and ".join(
            part
            for part in (
                f">= {figure_target:,}/s" if figure_target else "",
                f">= {ratio_target}x" if ratio_target else "",
            )
            if part
        )
        print(
            f"{what:<42} {figure:>10,} {anchor + ' ' + anchor_variant:<44} "
            f"{anchor_figure:>10,} {ratio:>6.2f}x {goal}"
        )
        out.append(
            {
                "what": what,
                "figure": figure,
                "anchor": f"{anchor} {anchor_variant}",
                "anchor_figure": anchor_figure,
                "ratio": round(ratio, 2),
                "all_ratios": [round(r, 2) for r in ratios],
                "target": goal,
            }
        )
    return out


def median_row(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of median steps per CPU second, with every run's figure beside it."""
    ordered = sorted(runs, key=lambda row: row["steps_per_cpu_s"] or 0)
    row = dict(ordered[len(ordered) // 2])
    row["all_steps_per_cpu_s"] = [run["steps_per_cpu_s"] for run in runs]
    return row


def one_round(seconds: float, seed: int, boards: int) -> list[dict[str, Any]]:
    """Every row once."""
    rows = []
    theirs = tictactoe_v3()
    if isinstance(theirs, str):
        print(f"pettingzoo tictactoe_v3: {theirs}")
    else:
        for runner, tag in ((run_aec, ""), (run_aec_seeded, ", seeded")):
            rows.append(
                measure(
                    f"pettingzoo tictactoe_v3 (wrapped{tag})",
                    "3x3",
                    lambda r=runner: r(theirs.env, seconds, seed),
                )
            )
            rows.append(
                measure(
                    f"pettingzoo tictactoe_v3 raw_env (bare{tag})",
                    "3x3",
                    lambda r=runner: r(theirs.raw_env, seconds, seed),
                )
            )
    for runner, tag in ((run_aec_seeded, ", seeded"),):
        rows.append(
            measure(
                f"noughts aec_env (wrapped{tag})",
                "3x3",
                lambda r=runner: r(lambda: aec_env("3x3"), seconds, seed),
            )
        )
        rows.append(
            measure(
                f"noughts NoughtsAECEnv (bare{tag})",
                "3x3",
                lambda r=runner: r(lambda: NoughtsAECEnv("3x3"), seconds, seed),
            )
        )
    for variant in ("3x3", "qubic"):
        for opponent in (None, "random"):
            vector = NoughtsVectorEnv(boards, variant, opponent, exact_info=False)
            label = f"noughts NoughtsVectorEnv x{boards}, " + (
                "self-play" if opponent is None else "vs random"
            )
            rows.append(measure(label, variant, lambda e=vector: run_vector(e, seconds, seed)))
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
