"""Seeds replay the same games under load (issue 52, point 3): every opponent an
environment offers searches a node budget, not a time, so two busy processes beside the
environment change nothing."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from noughts.errors import NoughtsError
from noughts.rl import NoughtsEnv, NoughtsVectorEnv, evaluate
from noughts.rl.opponents import OPPONENT_NODES, opponent_allowance

BUSY_SECONDS = 120  # each busy process stops itself after this long, whatever happens here


@pytest.fixture
def busy_machine() -> Iterator[None]:
    """Two processes spinning on a core each beside the test (bounded: they exit on
    their own after BUSY_SECONDS, and are ended when the test ends)."""
    spin = f"import time\nend = time.time() + {BUSY_SECONDS}\nwhile time.time() < end: pass"
    spinners = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(2)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait(timeout=10)


def _single_trajectory(opponent: object, seed: int, steps: int = 5) -> list[Any]:
    env = NoughtsEnv("qubic", opponent=opponent, agent="X", exact_info=False)
    rng = np.random.default_rng(seed)
    observation, _ = env.reset(seed=seed)
    moves = []
    for _ in range(steps):
        legal = np.flatnonzero(observation["action_mask"])
        observation, _, terminated, _, info = env.step(int(rng.choice(legal)))
        moves.append(info.get("opponent_move"))
        if terminated:
            break
    return moves


@pytest.mark.usefixtures("busy_machine")
@pytest.mark.parametrize("opponent", [10, "level:6"])
def test_the_single_env_replays_a_seed_under_load(opponent: object) -> None:
    first = _single_trajectory(opponent, seed=7)
    assert all(move is not None for move in first)
    for _ in range(2):
        assert _single_trajectory(opponent, seed=7) == first


@pytest.mark.usefixtures("busy_machine")
def test_the_batched_qubic_x_and_the_judge_replay_under_load() -> None:
    def batched_run() -> list[list[int]]:
        envs = NoughtsVectorEnv(3, "qubic", opponent="exact", agent="O", exact_info=False)
        rng = np.random.default_rng(7)
        observation, info = envs.reset(seed=7)
        seen = [info["opponent_move"].tolist()]
        for _ in range(12):  # past the strategy's entries on some boards: the engine's move
            mask = observation["action_mask"].astype(bool)
            actions = np.where(mask, rng.random(mask.shape), -1).argmax(axis=1)
            observation, _, _, _, info = envs.step(actions)
            answered = info.get("_opponent_move", np.zeros(3, bool))
            seen.append(np.where(answered, info.get("opponent_move", -1), -1).tolist())
        return seen

    assert batched_run() == batched_run()
    judged = [evaluate("level:6", "4x4", games=2, opponent="level:5", seed=3) for _ in range(2)]
    assert judged[0] == judged[1]


def test_a_time_bounded_opponent_is_asked_for_by_name() -> None:
    timed = NoughtsEnv("qubic", opponent=10, opponent_nodes=None, opponent_seconds=0.05)
    counted = NoughtsEnv("qubic", opponent=10)
    for env in (timed, counted):
        env.reset(seed=1)
    bounds = [(env._opponent.time_limit, env._opponent.nodes) for env in (timed, counted)]  # type: ignore[union-attr]
    assert bounds == [(pytest.approx(0.05), None), (None, OPPONENT_NODES)]
    assert opponent_allowance().node_limit == OPPONENT_NODES
    with pytest.raises(NoughtsError, match="needs a bound"):
        NoughtsEnv("3x3", opponent=5, opponent_nodes=None)
    with pytest.raises(NoughtsError, match="node budget"):
        NoughtsEnv("3x3", opponent=5, opponent_nodes=0)
