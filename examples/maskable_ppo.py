"""sb3-contrib's MaskablePPO on the single Gymnasium environment (3x3, as X, against random play).

Needs ``pip install sb3-contrib`` (it brings Stable-Baselines3 and PyTorch) besides the
``rl`` extra. MaskablePPO reads the legal moves from ``NoughtsEnv.action_masks()``.

    python examples/maskable_ppo.py --steps 50000

It trains for ``--steps`` agent steps, then judges the greedy policy with
``noughts.rl.evaluate``: 1,000 games as X against random play and 100 against level 10.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO

import noughts.rl
from noughts import Position


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=1000)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # a small network: more threads only wait on each other
    env = noughts.rl.NoughtsEnv("3x3", opponent="random", agent="X", exact_info=False)
    model = MaskablePPO("MultiInputPolicy", env, seed=args.seed, verbose=0, device="cpu")
    started, started_cpu = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=args.steps)
    wall, cpu = time.perf_counter() - started, time.process_time() - started_cpu

    def greedy(position: Position) -> int:
        seen = noughts.rl.observe(position, position.to_move)
        action, _ = model.predict(
            seen, action_masks=seen["action_mask"].astype(bool), deterministic=True
        )
        return int(np.asarray(action).item())

    print(f"trained {args.steps} steps in {wall:.1f} s wall, {cpu:.1f} s CPU")
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
