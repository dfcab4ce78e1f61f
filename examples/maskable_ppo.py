"""sb3-contrib's MaskablePPO on noughts (3x3, as X, against random play).

Needs ``pip install sb3-contrib`` (it brings Stable-Baselines3 and PyTorch) besides the
``rl`` extra. MaskablePPO reads the legal moves from ``action_masks()``.

    python examples/maskable_ppo.py --steps 50000             # one NoughtsEnv
    python examples/maskable_ppo.py --steps 50000 --envs 16   # the batched VecEnv
    python examples/maskable_ppo.py --steps 50000 --envs 16 --compare

With ``--envs N`` it trains on ``N`` boards of the batched environment through SB3's own
``VecEnv`` interface (``noughts.rl.sb3.NoughtsSB3VecEnv``); ``--compare`` then trains the
same model on ``N`` single environments (SB3's ``DummyVecEnv``, what ``make_vec_env``
builds) in the same run, and prints both wall times. Each update sees 2,048 steps
(``n_steps`` is 2,048 divided by ``N``). Every trained policy is judged with
``noughts.rl.evaluate``: ``--games`` games as X against random play and 100 against
level 10.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

import noughts.rl
from noughts import Position
from noughts.rl.sb3 import NoughtsSB3VecEnv


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--envs", type=int, default=1, help="boards (1: one NoughtsEnv)")
    parser.add_argument("--compare", action="store_true",
                        help="also train on --envs single environments (DummyVecEnv)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # a small network: more threads only wait on each other
    paths = ["batched" if args.envs > 1 else "single"] + (["singles"] if args.compare else [])
    for path in paths:
        model, wall, cpu = _train(path, args)
        label = {"single": "", "batched": f" on the batched VecEnv of {args.envs} boards",
                 "singles": f" on {args.envs} single envs (DummyVecEnv)"}[path]
        print(f"trained {args.steps} steps{label} in {wall:.1f} s wall, {cpu:.1f} s CPU")
        _judge(model, args)


def _train(path: str, args: argparse.Namespace) -> tuple[MaskablePPO, float, float]:
    """Train on one environment, the batched VecEnv, or N single ones (``path``)."""
    options = {"variant_name": "3x3", "opponent": "random", "agent": "X", "exact_info": False}
    env: Any
    if path == "single":
        env = noughts.rl.NoughtsEnv(**options)
    elif path == "batched":
        env = NoughtsSB3VecEnv(args.envs, **options)
    else:
        env = make_vec_env(noughts.rl.NoughtsEnv, n_envs=args.envs, env_kwargs=options)
    n_steps = max(2048 // args.envs, 8)
    model = MaskablePPO(
        "MultiInputPolicy", env, n_steps=n_steps, seed=args.seed, verbose=0, device="cpu"
    )
    started, started_cpu = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=args.steps)
    return model, time.perf_counter() - started, time.process_time() - started_cpu


def _judge(model: MaskablePPO, args: argparse.Namespace) -> None:
    def greedy(position: Position) -> int:
        seen = noughts.rl.observe(position, position.to_move)
        action, _ = model.predict(
            seen, action_masks=seen["action_mask"].astype(bool), deterministic=True
        )
        return int(np.asarray(action).item())

    for opponent, games in (("random", args.games), (10, 100)):
        judged = noughts.rl.evaluate(
            greedy, "3x3", games=games, opponent=opponent, policy_plays="X", seed=args.seed
        )
        print(
            f"as X against {judged.opponent} over {games} games: {judged.wins} won, "
            f"{judged.draws} drawn, {judged.losses} lost; {judged.blunders} blunders in "
            f"{judged.judged_moves} moves"
        )


if __name__ == "__main__":
    main()
