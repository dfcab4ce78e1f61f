"""noughts' batched environment against pgx (JAX), moves per second, alternating in one run.

Not a test. Needs pgx, which brings JAX: ``pip install pgx`` (pgx 2.6 with jax 0.10 on
CPU installs in about a minute). pgx has tic_tac_toe and connect_four but no Qubic, so
batched Qubic is set against connect_four.

    python benchmarks/bench_rl_pgx.py                 # N = 64, 1,024, 4,096; 5 rounds
    python benchmarks/bench_rl_pgx.py --rounds 3 --seconds 0.5 --sizes 64 4096

How it is fair (docs/benchmarks.md): pgx steps ``jax.vmap`` of its ``step`` with
``auto_reset`` and the random legal action drawn inside the same ``jax.jit`` (the compile
time left out: each function runs once before the clock starts); noughts steps
``NoughtsVectorEnv`` in self-play (``opponent=None``, ``exact_info=False``) with
``random_actions()``, both drawn from the environment's own generator. Only moves count:
noughts' next-step autoreset spends a step on a finished board without a move, and that
step is not counted. Each round times every size and both engines, one after the other;
the table is the median over rounds. The last rows time creating a 4x4k3 and a 4x4
environment with its exact table (``exact_info=True``), each in a fresh process.
Results: ``rl_pgx.json`` in ``--out-dir`` (``benchmarks/out/``).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from outputs import add_out_dir, write_json

PAIRS = (("3x3", "tic_tac_toe"), ("qubic", "connect_four"))


def _pgx() -> Any:
    try:
        import jax
        import pgx
    except ImportError:
        sys.exit("this benchmark needs pgx (and JAX): pip install pgx")
    return jax, pgx


def pgx_runner(name: str, boards: int) -> Callable[[float], tuple[int, float, float]]:
    """A timer of pgx ``name`` at ``boards``: (moves, wall s, CPU s) in about ``seconds``."""
    jax, pgx = _pgx()
    import jax.numpy as jnp
    from pgx.experimental import auto_reset

    env = pgx.make(name)
    step = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def advance(state: Any, key: Any) -> tuple[Any, Any]:
        key, act, reset = jax.random.split(key, 3)
        logits = jnp.log(state.legal_action_mask.astype(jnp.float32))
        action = jax.random.categorical(act, logits, axis=-1)
        return step(state, action, jax.random.split(reset, boards)), key

    key = jax.random.PRNGKey(0)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(key, boards))
    state, key = advance(state, key)  # compiled here, before any clock
    jax.block_until_ready(state)
    holder = {"state": state, "key": key}

    def run(seconds: float) -> tuple[int, float, float]:
        state, key = holder["state"], holder["key"]
        steps = 0
        wall, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - wall < seconds:
            for _ in range(10):
                state, key = advance(state, key)
            jax.block_until_ready(state)
            steps += 10
        holder["state"], holder["key"] = state, key
        return steps * boards, time.perf_counter() - wall, time.process_time() - cpu

    return run


def noughts_runner(name: str, boards: int) -> Callable[[float], tuple[int, float, float]]:
    """A timer of noughts' batched ``name`` (self-play, random legal moves)."""
    from noughts.rl import NoughtsVectorEnv

    envs = NoughtsVectorEnv(boards, name, opponent=None, exact_info=False)
    envs.reset(seed=0)

    def run(seconds: float) -> tuple[int, float, float]:
        moves = 0
        wall, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - wall < seconds:
            for _ in range(10):
                waiting = int(np.count_nonzero(envs.over))  # these boards only reset
                envs.step(envs.random_actions())
                moves += boards - waiting
        return moves, time.perf_counter() - wall, time.process_time() - cpu

    return run


def ready_seconds(name: str) -> tuple[float, float]:
    """Wall and CPU seconds to create ``name``'s batched env with its exact table, in a
    fresh process (the table is built once per process)."""
    code = (
        "import time; import noughts.rl as r; w, c = time.perf_counter(), time.process_time(); "
        f"r.NoughtsVectorEnv(1, {name!r}, opponent='exact').reset(seed=0); "
        "print(time.perf_counter() - w, time.process_time() - c)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    wall, cpu = out.stdout.split()
    return float(wall), float(cpu)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 1024, 4096])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="each timing's length")
    add_out_dir(parser)
    args = parser.parse_args(argv)
    from noughts.rl.native import available

    print(f"noughts' compiled step: {'built' if available() else 'NOT built (NumPy)'}")
    runners = {}
    for ours, theirs in PAIRS:
        for boards in args.sizes:
            runners[ours, boards] = noughts_runner(ours, boards)
            runners[theirs, boards] = pgx_runner(theirs, boards)
    rates: dict[tuple[str, int], list[tuple[float, float]]] = {key: [] for key in runners}
    for _ in range(args.rounds):
        for key, run in runners.items():
            moves, wall, cpu = run(args.seconds)
            rates[key].append((moves / wall, moves / cpu))
    rows = []
    print(f"{'N':>6} {'noughts':>12} {'pgx':>14} {'moves/s':>12} {'moves/s':>12} {'ratio':>6}"
          f" {'ratio CPU':>9}")  # fmt: skip
    for ours, theirs in PAIRS:
        for boards in args.sizes:
            mine = statistics.median(rate for rate, _ in rates[ours, boards])
            pgxs = statistics.median(rate for rate, _ in rates[theirs, boards])
            mine_cpu = statistics.median(rate for _, rate in rates[ours, boards])
            pgx_cpu = statistics.median(rate for _, rate in rates[theirs, boards])
            rows.append({"n": boards, "noughts": ours, "pgx": theirs, "noughts_moves_s": mine,
                         "pgx_moves_s": pgxs, "noughts_moves_cpu_s": mine_cpu,
                         "pgx_moves_cpu_s": pgx_cpu})  # fmt: skip
            print(f"{boards:>6} {ours:>12} {theirs:>14} {mine:>12,.0f} {pgxs:>12,.0f} "
                  f"{mine / pgxs:>6.2f} {mine_cpu / pgx_cpu:>9.2f}")  # fmt: skip
    ready = {name: ready_seconds(name) for name in ("4x4k3", "4x4")}
    for name, (wall, cpu) in ready.items():
        print(f"a {name} env with its exact table ready in {wall:.2f} s wall, {cpu:.2f} s CPU")
    write_json(args.out_dir / "rl_pgx.json", {"rows": rows, "ready": ready,
                                              "rounds": args.rounds, "seconds": args.seconds})


if __name__ == "__main__":
    main()
