"""An example: tabular Q-learning by self-play in the PettingZoo environment.

One table serves both sides: it is keyed by what the mover sees (its own marks, the
opponent's), and the two sides take turns, so the value of a move is minus the best value
the opponent then has (the negamax form of the Q-learning update)::

    Q(s, a) += alpha * (target - Q(s, a))
    target  = r                          if the move ended the game (+1 win, 0 draw)
            = -max_a' Q(s', a')          otherwise (s' is what the opponent sees)

Moves are epsilon-greedy while training (ties broken at random, so every opening
gets played); the trained :class:`QTable` plays greedily and is a player
(``move(position, limit) -> MoveChoice``), so :func:`noughts.rl.evaluate` can judge it.

:func:`blunders` judges the table in every position it can meet (as X and as O, every
reply of the other side followed) by exact values; :func:`train_until_sound` trains until
it finds none. Run it: ``python -m noughts.rl.qlearning`` (3x3, trained until sound, then
judged against level 10).

>>> table = train(3000, seed=1)
>>> len(table) > 1000
True
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence

import numpy as np

from noughts.budget import Limit
from noughts.players.choice import choice_of
from noughts.position import Position
from noughts.results import MoveChoice
from noughts.rl.aec import NoughtsAECEnv
from noughts.rl.exact import exact_view
from noughts.rl.judge import evaluate
from noughts.rl.observation import Observation, observe

__all__ = ["QTable", "train", "train_until_sound", "blunders", "main"]


class QTable:
    """Action values by observation; a greedy player of the board it was trained on."""

    def __init__(self, cells: int, name: str = "q-learning") -> None:
        self.name = name
        self.cells = cells
        self.values: dict[bytes, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.values)

    def row(self, seen: Observation) -> np.ndarray:
        """The action values of observation ``seen`` (zeros when new; kept for updates)."""
        key = seen["observation"].tobytes()
        row = self.values.get(key)
        if row is None:
            row = self.values[key] = np.zeros(self.cells)
        return row

    def best(self, seen: Observation) -> tuple[int, float]:
        """The legal move of highest value (lowest cell among equals) and its value."""
        row = self.row(seen)
        legal = np.flatnonzero(seen["action_mask"])
        move = int(legal[np.argmax(row[legal])])
        return move, float(row[move])

    def move(self, position: Position, limit: Limit) -> MoveChoice:
        """The greedy move in ``position`` (the player protocol; a table lookup needs no
        limit)."""
        started = time.perf_counter()
        cell, _ = self.best(observe(position, position.to_move))
        return choice_of(position, cell, started=started)


def train(
    episodes: int,
    *,
    variant_name: str = "3x3",
    seed: int = 0,
    alpha: float = 0.5,
    epsilon: float = 0.3,
    table: QTable | None = None,
    rng: random.Random | None = None,
) -> QTable:
    """A table trained by ``episodes`` games of epsilon-greedy self-play (``table`` and
    ``rng`` carry training on; ``seed`` seeds a new generator)."""
    rng = rng or random.Random(seed)
    env = NoughtsAECEnv(variant_name)
    table = table if table is not None else QTable(env.geometry.cells)
    for _ in range(episodes):
        env.reset()
        while True:
            agent = env.agent_selection
            seen = env.observe(agent)
            row = table.row(seen)
            legal = np.flatnonzero(seen["action_mask"])
            if rng.random() >= epsilon:  # greedy, ties broken at random
                legal = legal[row[legal] == row[legal].max()]
            action = int(legal[rng.randrange(len(legal))])
            env.step(action)
            if env.terminations[agent]:
                row[action] += alpha * (env.rewards[agent] - row[action])
                break
            reply_value = table.best(env.observe(env.agent_selection))[1]
            row[action] += alpha * (-reply_value - row[action])
    return table


def blunders(
    table: QTable, variant_name: str = "3x3", *, everywhere: bool = False
) -> list[tuple[Position, int]]:
    """Every position the table can meet where its greedy move throws the result away.

    The table plays each side in turn; every reply of the other side is followed, so the
    positions are all those of games the table can play. Each greedy move is judged by
    exact values (:func:`~noughts.rl.exact_view`). Returns (position, move) pairs; none
    means the table never loses a game it could draw or win, whoever it meets.
    ``everywhere=True`` judges every reachable position instead, those the table's own
    moves never lead to included.
    """
    found: list[tuple[Position, int]] = []
    for side in ("X", "O"):
        seen: set[Position] = set()
        stack = [Position("", variant_name)]
        while stack:
            position = stack.pop()
            if position in seen or position.is_over:
                continue
            seen.add(position)
            if position.to_move == side:
                move, _ = table.best(observe(position, side))
                view = exact_view(position)
                if view is not None and view.is_blunder(move):
                    found.append((position, move))
                if not everywhere:
                    stack.append(position.play(move))
                    continue
            stack.extend(position.play(move) for move in position.legal_moves)
    return found


def train_until_sound(
    max_episodes: int = 300_000,
    *,
    check_every: int = 10_000,
    variant_name: str = "3x3",
    seed: int = 0,
    alpha: float = 0.5,
    epsilon: float = 0.3,
) -> tuple[QTable, int]:
    """Train in rounds of ``check_every`` games until :func:`blunders` finds none (or
    ``max_episodes`` are played): the table and the games it took."""
    rng = random.Random(seed)
    table: QTable | None = None
    played = 0
    while played < max_episodes:
        table = train(
            check_every,
            variant_name=variant_name,
            alpha=alpha,
            epsilon=epsilon,
            table=table,
            rng=rng,
        )
        played += check_every
        if not blunders(table, variant_name):
            break
    assert table is not None
    return table, played


def main(argv: Sequence[str] | None = None) -> int:
    """Train on 3x3 (or ``--variant``), then judge the table against an engine level."""
    parser = argparse.ArgumentParser(prog="python -m noughts.rl.qlearning", description=__doc__)
    parser.add_argument(
        "--episodes", type=int, default=0, help="train this many games (default: until sound)"
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--level", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", default="3x3")
    args = parser.parse_args(argv)
    started, started_cpu = time.perf_counter(), time.process_time()
    if args.episodes:
        played = args.episodes
        table = train(played, variant_name=args.variant, seed=args.seed)
    else:
        table, played = train_until_sound(seed=args.seed, variant_name=args.variant)
    seconds, cpu = time.perf_counter() - started, time.process_time() - started_cpu
    print(
        f"trained {played} self-play games in {seconds:.1f} s ({cpu:.1f} s CPU): "
        f"{len(table)} states"
    )
    found = blunders(table, args.variant)
    print(
        f"blunders in the positions it can meet, as X or O, against any play: {len(found)}; "
        f"in every reachable position: {len(blunders(table, args.variant, everywhere=True))}"
    )
    result = evaluate(table, args.variant, args.games, args.level, seed=args.seed)
    print(
        f"against {result.opponent} over {result.games} games: {result.wins} won, "
        f"{result.draws} drawn, {result.losses} lost; {result.blunders} blunders "
        f"({result.note})"
    )
    return 0 if result.losses == 0 and result.blunders == 0 and not found else 1


if __name__ == "__main__":
    sys.exit(main())
