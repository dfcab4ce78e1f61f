"""Train the learned Qubic evaluation shipped in ``src/noughts/data/qubic-eval.json``.

Two steps, both seeded and resumable:

* ``play``: self-play games of noughts' own search, appended one JSON line a game to
  ``--games-file``. X is the engine without the shipped strategy
  (``level:10:no-strategy``), O the engine with its hand-written evaluation (or, with
  ``--o-eval learned``, the learned one in the package: a second generation). Each
  game draws X's first cell at random from the 64, both node budgets from a few
  values, and plays a random move instead of the search's with probability
  ``--explore`` on each of the first ``--explore-plies`` plies while no line holds
  three marks (exploration). Game ``i`` is seeded by ``(--seed, i)``; a run cut short
  resumes with the next game.
* ``fit``: logistic regression of the game's result (X won or O won; draws left out)
  on the features of :mod:`noughts.knowledge.learned` over the *quiet* positions of the
  games (no line of three open, no fork for the side to move: the positions the
  search evaluates), one regression for each side to move. The weights, in units of
  ``1/SCALE`` of a logit, go to the package data with the fit's figures.

No game against any outside player is used: only the engine against itself.

    python scripts/train_qubic_eval.py play --games 600 --seed 1
    python scripts/train_qubic_eval.py fit
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

from noughts.budget import Limit
from noughts.knowledge.learned import FEATURES, features, parse_learned
from noughts.knowledge.shipped import SHIPPED, Knowledge
from noughts.players.choice import choice_of
from noughts.players.game import play_game
from noughts.players.protocol import LevelPlayer, Player
from noughts.position import Position
from noughts.results import MoveChoice
from noughts.runtime.atomic import write_atomic

ROOT = Path(__file__).resolve().parent.parent
GAMES_FILE = ROOT / "benchmarks" / "data" / "qubic_eval_games.jsonl"
OUT = ROOT / "src" / "noughts" / "data" / "qubic-eval.json"
X_NODES = (1_000, 3_000, 10_000, 30_000)
O_NODES = (3_000, 10_000, 30_000)
SCALE = 1000
"""Evaluation units per logit."""
TERMS = ("bias", "x1", "x2", "o1", "o2", "forks")
"""The regression's terms, one regression for each side to move: a bias, the lines of
one and two marks of each side, and the waiting side's fork points (a line of three
open is a threat, a fork of the side to move a win: neither is quiet)."""


class Exploring:
    """``inner``'s moves, or with probability ``rate`` a random one on the first
    ``plies`` plies while no line holds three marks of one side and none of the other."""

    def __init__(self, inner: Player, rng: random.Random, rate: float, plies: int) -> None:
        self.name = inner.name
        self.inner, self.rng, self.rate, self.plies = inner, rng, rate, plies

    def move(self, position: Position, limit: Limit) -> MoveChoice:
        counts = features(position)
        if (position.ply < self.plies and not counts[2] and not counts[5]
                and self.rng.random() < self.rate):
            return choice_of(position, self.rng.choice(sorted(position.legal_moves)),
                             started=time.perf_counter())
        return self.inner.move(position, limit)


def play(args: argparse.Namespace) -> None:
    """Append games to the games file until it holds ``args.games``."""
    path = Path(args.games_file)
    done = sum(1 for _ in path.open()) if path.exists() else 0
    path.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with path.open("a") as out:
        for index in range(done, args.games):
            rng = random.Random(f"{args.seed}/{index}")
            cell, x_nodes, o_nodes = rng.randrange(64), rng.choice(X_NODES), rng.choice(O_NODES)
            knowledge = Knowledge(learned=False) if args.o_eval == "hand" else SHIPPED
            x = Exploring(LevelPlayer(10, rng.getrandbits(31), nodes=x_nodes, strategy=False,
                                      knowledge=knowledge),
                          rng, args.explore, args.explore_plies)
            o = Exploring(LevelPlayer(10, rng.getrandbits(31), nodes=o_nodes,
                                      knowledge=knowledge),
                          rng, args.explore, args.explore_plies)
            start = Position("", "qubic").play(cell)
            game = play_game({"X": x, "O": o}, start)
            record = {"index": index, "seed": args.seed, "x_nodes": x_nodes,
                      "o_nodes": o_nodes, "o_eval": args.o_eval,
                      "moves": [cell, *game.moves], "result": game.result}
            out.write(json.dumps(record) + "\n")
            out.flush()
            print(f"game {index}: X {x_nodes} O {o_nodes} from {cell}: {game.result} in "
                  f"{1 + len(game.moves)} plies ({time.perf_counter() - started:.0f} s)",
                  flush=True)


def samples(path: Path, min_ply: int) -> tuple[dict[str, list[list[float]]],
                                               dict[str, list[int]], int]:
    """The quiet positions of the decided games by side to move (terms of
    :data:`TERMS`), their labels (1: X won) and the number of games."""
    rows: dict[str, list[list[float]]] = {"X": [], "O": []}
    labels: dict[str, list[int]] = {"X": [], "O": []}
    games = 0
    index = {name: i for i, name in enumerate(FEATURES)}
    for line in path.open():
        record = json.loads(line)
        if record["result"] not in ("X", "O"):
            continue
        games += 1
        position = Position("", "qubic")
        for cell in record["moves"]:
            position = position.play(cell)
            if position.is_over or position.ply < min_ply:
                continue
            counts = features(position)
            mover = position.to_move
            own_fork, their_fork = ("x_forks", "o_forks") if mover == "X" else ("o_forks",
                                                                               "x_forks")
            if counts[index["x3"]] or counts[index["o3"]] or counts[index[own_fork]]:
                continue  # not quiet: the search resolves it
            rows[mover].append([1.0] + [float(counts[index[t]]) for t in TERMS[1:5]]
                               + [float(counts[index[their_fork]])])
            labels[mover].append(1 if record["result"] == "X" else 0)
    return rows, labels, games


def logistic(rows: list[list[float]], labels: list[int], l2: float,
             steps: int = 30) -> tuple[list[float], float]:
    """Newton's method for L2-regularised logistic regression (the bias unpenalised);
    the weights and the mean log-loss."""
    size = len(rows[0])
    w = [0.0] * size
    for _ in range(steps):
        grad = [l2 * w[j] if j else 0.0 for j in range(size)]
        hess = [[(l2 if i == j and i else 0.0) for j in range(size)] for i in range(size)]
        for row, y in zip(rows, labels, strict=True):
            z = sum(a * b for a, b in zip(w, row, strict=True))
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            g, h = p - y, p * (1.0 - p)
            for i in range(size):
                grad[i] += g * row[i]
                hi = hess[i]
                ri = h * row[i]
                for j in range(i, size):
                    hi[j] += ri * row[j]
        for i in range(size):
            for j in range(i):
                hess[i][j] = hess[j][i]
        step = _solve(hess, grad)
        w = [a - b for a, b in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-7:
            break
    loss = 0.0
    for row, y in zip(rows, labels, strict=True):
        z = sum(a * b for a, b in zip(w, row, strict=True))
        p = min(1 - 1e-12, max(1e-12, 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))))
        loss -= math.log(p if y else 1.0 - p)
    return w, loss / len(rows)


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve ``a x = b`` by Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            for c in range(col, n + 1):
                m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


def fit(args: argparse.Namespace) -> None:
    """Fit the weights (one regression for X to move, one for O) and write the package
    data."""
    rows, labels, games = samples(Path(args.games_file), args.min_ply)
    if not rows["X"] or not rows["O"]:
        sys.exit("too few decided games in the games file")
    terms: dict[str, dict[str, float]] = {}
    report: dict[str, object] = {"games": games, "l2": args.l2, "min_ply": args.min_ply}
    for mover in ("X", "O"):
        w, loss = logistic(rows[mover], labels[mover], args.l2)
        terms[mover] = dict(zip(TERMS, w, strict=True))
        base = sum(labels[mover]) / len(labels[mover])
        base_loss = -(base * math.log(base) + (1 - base) * math.log(1 - base))
        print(f"{mover} to move: {len(rows[mover])} quiet positions, X won {base:.1%}; "
              f"log-loss {loss:.4f} (the base rate alone: {base_loss:.4f})")
        print("  " + ", ".join(f"{name} {value:+.3f}" for name, value in terms[mover].items()))
        report[f"{mover.lower()}_to_move"] = {
            "positions": len(rows[mover]), "x_won": round(base, 4), "log_loss": round(loss, 4),
            "base_log_loss": round(base_loss, 4),
            "terms": {name: round(value, 5) for name, value in terms[mover].items()}}
    x, o = terms["X"], terms["O"]  # X's view: positive helps X

    def value(logit: float) -> int:
        return max(1, round(SCALE * logit))

    def lines(move: tuple[float, float], wait: tuple[float, float]) -> tuple[list[int], ...]:
        one, two = (move[0] + wait[0]) / 2, (move[1] + wait[1]) / 2
        three = max(two, 0.002) * max(two / max(one, 0.001), 2.0)  # never quiet: extrapolated
        return tuple([0, value(pair[0]), value(pair[1]), value(three), 0]
                     for pair in (move, wait))

    x_move, x_wait = lines((x["x1"], x["x2"]), (o["x1"], o["x2"]))
    o_move, o_wait = lines((-o["o1"], -o["o2"]), (-x["o1"], -x["o2"]))
    weights = {
        "x_move": x_move, "x_wait": x_wait, "o_move": o_move, "o_wait": o_wait,
        "x_fork": max(0, round(SCALE * o["forks"])),
        "o_fork": max(0, round(SCALE * -x["forks"])),
        # the bias with X to move, and minus the one with O to move: their common part
        "to_move": round(SCALE * (x["bias"] - o["bias"]) / 2),
    }
    parse_learned(weights, 4)
    record = {
        "about": "Learned Qubic evaluation (noughts.knowledge.learned): line and fork weights "
                 "in 1/1000 of a logit of the first player's win, by whose move it is, "
                 "fitted by scripts/train_qubic_eval.py to self-play games of the engine.",
        "weights": weights,
        "fit": report,
    }
    write_atomic(args.out, json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.out}: {weights}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("play", help="append self-play games")
    p.add_argument("--games", type=int, required=True, help="games the file should hold")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--explore", type=float, default=0.15)
    p.add_argument("--explore-plies", type=int, default=10)
    p.add_argument("--o-eval", choices=("hand", "learned"), default="hand")
    p.add_argument("--games-file", default=str(GAMES_FILE))
    f = sub.add_parser("fit", help="fit the weights to the games")
    f.add_argument("--games-file", default=str(GAMES_FILE))
    f.add_argument("--out", default=str(OUT))
    f.add_argument("--l2", type=float, default=1.0)
    f.add_argument("--min-ply", type=int, default=4)
    args = parser.parse_args(argv)
    if args.step == "play":
        if args.games < 1 or not 0.0 <= args.explore <= 1.0:
            sys.exit("play: --games must be positive and --explore between 0 and 1")
        play(args)
    else:
        fit(args)


if __name__ == "__main__":
    main()
