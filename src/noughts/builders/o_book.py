"""Build the Qubic O book by games: in each position of its scope, O's replies ranked
by games against fallible X players the book is never measured on.

The scope grows with ``--depth`` (the positions are O to move, keyed up to symmetry):

1. after X's first move (its 2 classes): every class of O's reply, or the engine's
   ``--first-candidates`` best;
2. after each class of X's second move, against the book's first reply;
3. and 4. after X's ``--x-moves`` likeliest third and fourth moves in each line (by a
   short search of X's own without the strategy), for X's first cells of
   ``--second-after``, ``--third-after`` and ``--fourth-after`` (0 a corner or centre,
   1 another cell); with ``--players-moves``, also the moves the X players play there.

From X's second move on, the candidates are the engine's own move and the ``--top`` best
of a short search (``evaluate_moves``). A candidate after which the proof search
finds a forced win for X within ``--check`` positions is dropped (unless every one is).
Each plays ``--games`` games (``--deep-games`` from X's second move on; a win is 1
point, a draw 1/2), the ``--finalists`` best as many again, and the reply with the most
points in all is kept, ties to the engine's order (with ``--margin Z``, the first in the
engine's order that no finalist beats by more than Z standard errors: :func:`kept_reply`).

In the games, X is each of ``--x-players`` in turn (player specs, ``@N`` for N nodes a
move; a member of the family benchmark or of the players outside it is refused,
:func:`noughts.arena.family.measured`), or without it the engine's own X without the
strategy at the node budgets of ``--x-nodes``, scaled game by game by a seeded factor
from 0.8 to 1.25; with ``--vary-budgets`` the ``@N`` budgets are scaled so too (and a
spec whose scaled budgets reach a measured player's is refused). The engine answers a
position the same way in every orientation, so at one budget its games from a position
are all one game. O is the engine at ``--o-nodes`` nodes a move without the book. Each
game starts in a seeded random orientation of the board (other players break ties by
cell).

Resumable and deterministic (node budgets only; a game's seed comes from its position,
its reply and its number): every game, check and list of moves (O's candidates, X's
likeliest moves, on the position's canonical image, so that a line that reaches it
turned finds them) goes to the ``build`` part of ``--checkpoint``
(:class:`noughts.builders.checkpoint.Checkpoint`; saved every ten seconds while they are
made, and at the end), a new run plays only what is not there, and the book is written
from the records. ``--minutes`` stops a run after the game under way and writes the book of what
is decided; ``--workers`` plays a round's games and checks on several processes.

The shipped book (``src/noughts/data/qubic-o-book.json.gz``) is this builder's book,
checked and extended by the deep step (:mod:`noughts.builders.o_book_deepen`). From the
repository's root, with the records of its build in the default checkpoint
(``checkpoints/qubic-o-book-build.json.gz``; they hold the first replies' games from a
run against six other X players, which this command recalls), the first of its two
commands writes the builder's book in seconds, every game and check recalled::

    python scripts/build_o_book.py --depth 4 --x-moves 2,1 --fourth-after 0,1 \
        --first-candidates 3 --games 12 --finalists 2 --deep-games 6 --top 2 \
        --o-nodes 300000 --workers 2 \
        --x-players level:10:no-strategy@10000,level:10:no-strategy@50000,\
level:10:no-strategy@200000,seed-qubic:3:defensive,seed-qubic:3:aggressive,\
seed-qubic:3:aggressive:random

The steps that led to this command, and the books built and not shipped, are in
docs/qubic-o-results.md.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from noughts.arena.family import (
    DEFAULT_MEMBERS,
    OUTSIDE_MEMBERS,
    measured,
    member_player,
    split_budget,
)
from noughts.budget import Limit
from noughts.builders.checkpoint import SAVE_EVERY, Checkpoint
from noughts.engine import choose_move, evaluate_moves
from noughts.knowledge.obook import OBook
from noughts.knowledge.shipped import Knowledge
from noughts.orientation import Orientation
from noughts.players.game import play_game
from noughts.players.protocol import LevelPlayer, Player
from noughts.position import Position
from noughts.results import Mark, MoveEval
from noughts.runtime.atomic import write_if_changed
from noughts.search.proof import find_win

BOOK = Path("src") / "noughts" / "data" / "qubic-o-book.json.gz"
"""The book written by default (from the repository's root): the shipped one."""
CHECKPOINT = Path("checkpoints") / "qubic-o-book-build.json.gz"
"""The checkpoint by default: the records of the shipped book's build."""
PART = "build"
"""The checkpoint's part that holds the builder's records."""
SCALE = (0.8, 1.25)
"""The range of the seeded factor that scales X's node budget in each game."""
FIRST_CHECK = 20_000
"""The proof positions of a candidate's check by default (the checks of that size are
kept under the position's key alone, those of another size under the key and size)."""

NO_O_BOOK = Knowledge(o_book=False)
"""The engine's knowledge less the O book: how O plays while the book is built."""
SEARCH_ALONE = Knowledge(strategy=False, o_book=False)
"""Neither the O book nor the strategy: the short search that ranks candidates."""


def canonical(position: Position) -> tuple[int, int]:
    """``position``'s key up to the board's symmetries."""
    x, o, _ = position.geometry.symmetry_group.canonical(position.x, position.o)
    return x, o


def classes(position: Position, moves: list[int]) -> list[int]:
    """The first of ``moves`` (in their order) of each class of the position after it."""
    seen: set[tuple[int, int]] = set()
    kept = []
    for move in moves:
        key = canonical(position.play(move))
        if key not in seen:
            seen.add(key)
            kept.append(move)
    return kept


def best_first(values: list[MoveEval]) -> list[int]:
    """The moves of a short search's ``values``, best first, ties to the lower cell."""
    return [v.move for v in sorted(values, key=lambda v: (-(v.score or 0), v.move))]


def kept_reply(finalists: list[int], order: list[int], points: dict[int, list[float]],
               margin: float) -> int:
    """The reply kept of ``finalists`` (best first by the ``points`` of their games): the
    first; with a ``margin`` above 0, the first in the engine's ``order`` that no finalist
    beats by more than ``margin`` standard errors of the difference of their mean points
    (so that the noise of a few games does not overrule the engine's own order).

    >>> games = {42: [1.0] * 10 + [0.0] * 2, 3: [1.0] * 11 + [0.5]}
    >>> kept_reply([3, 42], [42, 23, 3], games, 0), kept_reply([3, 42], [42, 23, 3], games, 2)
    (3, 42)
    >>> kept_reply([3, 42], [42, 23, 3], {42: [0.0] * 12, 3: [1.0] * 12}, 2)  # past any noise
    3
    """
    if margin <= 0:
        return finalists[0]

    def mean(move: int) -> float:
        return sum(points[move]) / len(points[move])

    def error(move: int) -> float:  # the squared standard error of its mean
        games = points[move]
        return statistics.variance(games) / len(games) if len(games) > 1 else 0.0

    return next(move for move in sorted(finalists, key=order.index)
                if all(mean(other) - mean(move) <= margin * math.sqrt(error(other) + error(move))
                       for other in finalists))


def ranked(position: Position, nodes: int) -> list[int]:
    """Every class of move in ``position``, best first for the side to move by a short
    search of ``nodes`` nodes without the O book or the strategy."""
    return classes(position, best_first(evaluate_moves(position, nodes=nodes,
                                                       knowledge=SEARCH_ALONE)))


def refuse_measured(option: str, specs: list[str], varied: bool = False) -> None:
    """Stop (naming ``option``) if ``specs`` name a player the book is measured on: a
    member of the family benchmark or one of the players outside it; with ``varied``
    (node budgets scaled game by game), also if a spec's scaled budgets reach one.

    >>> refuse_measured("--x-players", ["threats:5000"])
    >>> refuse_measured("--x-players", ["threats"])
    Traceback (most recent call last):
    ...
    SystemExit: --x-players: threats is in the family
    >>> refuse_measured("--x-players", ["level:10:no-strategy@90000"], varied=True)
    Traceback (most recent call last):
    ...
    SystemExit: --x-players: level:10:no-strategy@90000 scaled reaches level:10:no-strategy@100000
    >>> refuse_measured("--x-players", ["threats@x"])
    Traceback (most recent call last):
    ...
    SystemExit: --x-players: bad member 'threats@x': after @ comes a node budget
    """
    try:
        budgets = [split_budget(spec) for spec in specs]
    except ValueError as error:
        raise SystemExit(f"{option}: {error}") from None
    why = measured(specs)
    if why is not None:  # the book is measured on these: it must not be built on them
        raise SystemExit(f"{option}: {why}")
    low, high = SCALE
    for spec, (player, nodes) in zip(specs, budgets, strict=True) if varied else []:
        for member in (*DEFAULT_MEMBERS, *OUTSIDE_MEMBERS):  # nor what they become, scaled
            name, budget = split_budget(member)
            if nodes and budget and name == player and low * nodes <= budget <= high * nodes:
                raise SystemExit(f"{option}: {spec} scaled reaches {member}")


def key_text(position: Position) -> str:
    x, o = canonical(position)
    return f"{x:x}:{o:x}"


def game_name(after: Position, index: int) -> str:
    """Game ``index`` from ``after``: its key in the checkpoint, and its seed's source."""
    return f"{key_text(after)}/{index}"


def game_draws(name: str) -> tuple[random.Random, float]:
    """The seeded draws of the game named ``name``, and the first of them: the factor
    (0.8 to 1.25) that scales X's node budget in that game."""
    rng = random.Random(zlib.crc32(name.encode()))
    return rng, rng.uniform(*SCALE)


def scaled(spec: str, factor: float) -> str:
    """The player spec ``spec`` with its node budget (``@N``), if it has one, times
    ``factor``: at a fixed budget the engine plays the same game from a position in every
    orientation, so that games against it would repeat one game.

    >>> scaled("level:10:no-strategy@50000", 0.9)
    'level:10:no-strategy@45000'
    >>> scaled("threats:5000", 0.9)
    'threats:5000'
    """
    player, nodes = split_budget(spec)
    return f"{player}@{max(1, int(nodes * factor))}" if nodes else spec


class Builder:
    """The build's settings, its records (games, checks and candidates, kept in the part
    ``part`` of ``checkpoint``), and the decisions."""

    def __init__(self, args: argparse.Namespace, checkpoint: Checkpoint,
                 part: str = PART) -> None:
        self.args = args
        self.x_nodes = [int(n) for n in args.x_nodes.split(",")]
        self.x_players = [spec for spec in (args.x_players or "").split(",") if spec]
        refuse_measured("--x-players", self.x_players, args.vary_budgets)
        self.checkpoint = checkpoint
        self.records = checkpoint.part(part)
        self.games: dict[str, dict[str, Any]] = self.records.setdefault("games", {})
        self.checks: dict[str, bool] = self.records.setdefault("checks", {})
        # O's candidates and X's moves by position, on canonical images
        self.moves: dict[str, list[int]] = self.records.setdefault("moves", {})
        self.stop_at = time.monotonic() + args.minutes * 60 if args.minutes else None
        self.undecided: set[str] = set()  # positions whose games the stop cut short
        self.book = OBook("4x4x4", built=self.settings())

    def settings(self) -> dict[str, Any]:
        a = self.args
        against = ",".join(self.x_players) or "level:10:no-strategy"
        settings = {"by": "scripts/build_o_book.py", "against": against,
                "x_nodes": self.x_nodes, "o_nodes": a.o_nodes, "games": a.games,
                "deep_games": a.deep_games, "finalists": a.finalists, "check": a.check,
                "top": a.top, "depth": a.depth, "orientation": "random"}
        if a.vary_budgets:
            settings["vary_budgets"] = True
        if a.margin > 0:
            settings["margin"] = a.margin
        if a.first_candidates is not None:
            settings["first_candidates"] = a.first_candidates
        if a.second_after is not None:
            settings["second_after"] = a.second_after
        if a.depth >= 3:
            settings["x_moves"] = a.x_moves[0] if len(a.x_moves) == 1 else a.x_moves
            if a.third_after is not None:
                settings["third_after"] = a.third_after
        if a.depth >= 4 and a.fourth_after is not None:
            settings["fourth_after"] = a.fourth_after
        if a.players_moves:
            settings["players_moves"] = a.players_moves
        return settings

    def save(self, at_most_every: float = 0.0) -> None:
        """Save the records, with the settings of the run that made the last of them
        (``at_most_every``: see :meth:`Checkpoint.save`)."""
        self.records["settings"] = self.settings()
        self.checkpoint.save(at_most_every)

    def out_of_time(self) -> bool:
        return self.stop_at is not None and time.monotonic() > self.stop_at

    # -- the steps ---------------------------------------------------------------------
    def check_key(self, after: Position) -> str:
        """The cache key of the check after O's reply (a check of another size than
        :data:`FIRST_CHECK` is kept apart)."""
        key = key_text(after)
        return key if self.args.check == FIRST_CHECK else f"{key}@{self.args.check}"

    def refuted(self, after: Position) -> bool:
        """True if the proof search proves X's win after O's reply (not cached)."""
        return find_win(after, limit=Limit(node_limit=self.args.check)) is not None

    def lost(self, after: Position) -> bool:
        """True if the proof search proves X's win after O's reply (cached)."""
        key = self.check_key(after)
        if key not in self.checks:
            self.checks[key] = self.refuted(after)
            self.save(at_most_every=SAVE_EVERY)
        return self.checks[key]

    def check_ahead(self, afters: list[Position]) -> None:
        """Run the checks of ``afters`` not yet cached on ``--workers`` processes."""
        missing = [after for after in afters if self.check_key(after) not in self.checks]
        if self.args.workers < 2 or len(missing) < 2:
            return
        global _BUILDER
        _BUILDER = self  # the forked workers read it
        with multiprocessing.get_context("fork").Pool(self.args.workers) as pool:
            jobs = [(after.x, after.o) for after in missing]  # a Position is not pickled
            for after, refuted in zip(missing, pool.imap(_check, jobs), strict=True):
                self.checks[self.check_key(after)] = refuted
        self.save()

    def candidates_of(self, position: Position, every_class: bool) -> list[int]:
        """O's candidate replies in ``position``, in the engine's order (cached)."""
        wanted = self.args.first_candidates if every_class else self.args.top + 1

        def find(image: Position) -> list[int]:
            own = choose_move(image, nodes=self.args.o_nodes, seed=1, knowledge=NO_O_BOOK).move
            values = evaluate_moves(image, nodes=self.args.o_nodes, knowledge=NO_O_BOOK)
            order = classes(image, [own, *best_first(values)])
            return order if wanted is None else order[:wanted]

        return self.cached_moves(key_text(position), position, find)

    def cached_moves(self, key: str, position: Position,
                     find: Callable[[Position], list[int]]) -> list[int]:
        """The moves ``find`` gives on ``position``'s canonical image, on ``position``'s
        board: kept under ``key`` on that image, so that a position met again turned
        (another line reaching it) finds them."""
        view = Orientation.of(position)
        if key not in self.moves:
            self.moves[key] = find(view.canonical)
            self.save(at_most_every=SAVE_EVERY)
        return [view.to_original(move) for move in self.moves[key]]

    def keep_moves(self, key: str, position: Position, moves: list[int]) -> None:
        """Keep ``moves`` (on ``position``'s board) under ``key``, where
        :meth:`cached_moves` finds them."""
        view = Orientation.of(position)
        self.moves[key] = [view.to_canonical(move) for move in moves]

    def game(self, after: Position, index: int) -> float | None:
        """O's points in game ``index`` from ``after`` (X to move), played or recalled
        (:meth:`recorded`)."""
        name = game_name(after, index)
        if not self.recorded(name, index):
            if self.out_of_time():
                return None
            self.record(name, self.play(after, index))
        return float(self.games[name]["points"])

    def recorded(self, name: str, index: int) -> bool:
        """Whether game ``index`` (named ``name``) has a record that may stand for it: any
        record, but with ``--replay-others`` only one played against the X player this
        build gives that game."""
        game = self.games.get(name)
        if game is None or not (self.args.replay_others and self.x_players):
            return game is not None
        return bool(game.get("x") == self.x_against(name, index))

    def x_against(self, name: str, index: int) -> str:
        """The X player of game ``index`` (named ``name``) of ``--x-players``: its spec,
        with ``--vary-budgets`` its node budget scaled by the game's seeded factor."""
        spec = self.x_players[index % len(self.x_players)]
        return scaled(spec, game_draws(name)[1]) if self.args.vary_budgets else spec

    def play(self, after: Position, index: int) -> dict[str, Any]:
        """Game ``index`` from ``after`` (X to move): its record, from its name alone."""
        name = game_name(after, index)
        rng, factor = game_draws(name)
        x_nodes = int(self.x_nodes[index % len(self.x_nodes)] * factor)
        # the game starts in an orientation of its own: players other than the engine
        # break ties by cell, so one orientation alone would rank the replies by its ties
        group = after.geometry.symmetry_group
        symmetry = rng.randrange(group.count)
        start = Position.from_bitboards(group.transform(after.x, symmetry),
                                        group.transform(after.o, symmetry), "qubic")
        x_player: Player = LevelPlayer(10, rng.getrandbits(31), nodes=x_nodes,
                                       strategy=False)
        against = f"{x_nodes} nodes"
        if self.x_players:  # X players of other kinds, game by game
            against = self.x_against(name, index)
            x_player = member_player(against, rng.getrandbits(31))
        players: dict[Mark, Player] = {
            "X": x_player,
            "O": LevelPlayer(10, rng.getrandbits(31), nodes=self.args.o_nodes,
                             knowledge=NO_O_BOOK),
        }
        started = time.perf_counter()
        played = play_game(players, start)
        if played.failure is not None:
            raise RuntimeError(f"game {name}: {played.reason}")
        points = {"O": 1.0, "X": 0.0}.get(str(played.result), 0.5)
        record: dict[str, Any] = {"x": against} if self.x_players else {"x_nodes": x_nodes}
        return {"points": points, **record, "symmetry": symmetry,
                "plies": after.ply + len(played.moves),
                "seconds": round(time.perf_counter() - started, 1)}

    def record(self, name: str, game: dict[str, Any]) -> None:
        self.games[name] = game
        self.save(at_most_every=SAVE_EVERY)
        print(f"    {name}: O {game['points']} in {game['plies']} plies "
              f"(X {game.get('x', game.get('x_nodes'))}, symmetry {game['symmetry']}, "
              f"{game['seconds']} s)", flush=True)

    def play_ahead(self, games: list[tuple[Position, int]]) -> None:
        """Play the games of ``games`` not yet played on ``--workers`` processes (their
        records do not depend on the process), before :meth:`game` recalls them."""
        missing = [(after, i) for after, i in games if not self.recorded(game_name(after, i), i)]
        if self.args.workers < 2 or len(missing) < 2 or self.out_of_time():
            return
        global _BUILDER
        _BUILDER = self  # the forked workers read it
        with multiprocessing.get_context("fork").Pool(self.args.workers) as pool:
            jobs = [(after.x, after.o, i) for after, i in missing]  # a Position is not pickled
            for name, game in pool.imap_unordered(_play, jobs):
                self.record(name, game)
        self.save()

    def decide(self, position: Position, every_class: bool) -> int | None:
        """The reply kept for ``position`` (stored in the book), or ``None`` when the
        run stopped before its games were played."""
        print(f"  position {key_text(position)} ({position.ply} marks)", flush=True)
        known = self.book.lookup(position)
        if known is not None:  # reached before by another line, perhaps turned: the
            return known.move  # cached moves are in that first orientation
        if key_text(position) in self.undecided:  # and left undecided then, as now
            return None
        candidates = self.candidates_of(position, every_class)
        self.check_ahead([position.play(m) for m in candidates])
        alive = [m for m in candidates if not self.lost(position.play(m))] or candidates
        order = list(alive)  # the engine's order
        results: dict[int, list[float]] = {move: [] for move in alive}
        count = self.args.games if every_class else self.args.deep_games
        # two rounds: every candidate, then the best few again (the best of many
        # candidates on a few games each is lucky more often than good)
        for rounds in (range(count), range(count, 2 * count)):
            self.play_ahead([(position.play(move), i) for move in alive for i in rounds])
            for move in alive:
                after = position.play(move)
                points = [self.game(after, i) for i in rounds]
                if any(p is None for p in points):
                    self.undecided.add(key_text(position))
                    return None
                results[move] += [p for p in points if p is not None]
                print(f"   reply {move}: {sum(results[move])} of {len(results[move])}",
                      flush=True)
            alive = sorted(alive, key=lambda m: (-sum(results[m]), alive.index(m)))
            alive = alive[: self.args.finalists]
        best = kept_reply(alive, order, results, self.args.margin)
        self.book.add(position, best, games=len(results[best]), score=sum(results[best]))
        return best

    def x_moves(self, position: Position) -> list[int]:
        """X's moves in ``position`` (X to move), one a class, best first for X by a
        short search without the strategy (cached)."""
        return self.cached_moves(key_text(position), position,
                                 lambda image: ranked(image, self.args.o_nodes))

    def played_moves(self, position: Position) -> list[int]:
        """X's moves in ``position`` (X to move) that the X players (``--x-players``)
        play there, one move each from an orientation and seed of its own, one a class,
        the most played first (cached)."""
        key = f"played:{key_text(position)}"
        group = position.geometry.symmetry_group

        def find(image: Position) -> list[int]:
            counts: dict[tuple[int, int], tuple[int, int]] = {}  # class: (times, a move)
            for spec in self.x_players:
                rng = random.Random(zlib.crc32(f"{key}/{spec}".encode()))
                symmetry = rng.randrange(group.count)
                turned = Position.from_bitboards(group.transform(image.x, symmetry),
                                                 group.transform(image.o, symmetry), "qubic")
                move = member_player(spec, rng.getrandbits(31)).move(turned, Limit()).move
                move = group.inverses[symmetry][move]
                kind = canonical(image.play(move))
                times, first = counts.get(kind, (0, move))
                counts[kind] = (times + 1, first)
            return [move for _, move in sorted(counts.values(), key=lambda played: -played[0])]

        return self.cached_moves(key, position, find)

    def line_moves(self, position: Position, depth: int, wanted: int | None) -> list[int]:
        """X's moves the book answers in ``position``: the ``wanted`` likeliest by the
        short search, then (``--players-moves``) those the X players play."""
        moves = self.x_moves(position)[:wanted]
        if depth in (self.args.players_moves or ()):
            moves = classes(position, moves + self.played_moves(position))
        return moves

    def run(self) -> int:
        empty = Position("", "qubic")
        firsts = classes(empty, list(range(64)))
        replies = {first: self.decide(empty.play(first), every_class=True) for first in firsts}
        undecided = sum(reply is None for reply in replies.values())
        scope = {2: self.args.second_after, 3: self.args.third_after,
                 4: self.args.fourth_after}
        # O to move after its book reply, by X's first cell: X's moves come next
        frontier = [(first, empty.play(first).play(reply))
                    for first, reply in replies.items() if reply is not None]
        x_moves = self.args.x_moves  # by depth from the third; the last goes on
        for depth in range(2, self.args.depth + 1):
            # every class of X's second move; from the third on, the --x-moves likeliest
            wanted = None if depth == 2 else x_moves[min(depth - 3, len(x_moves) - 1)]
            firsts_in_scope = scope[depth]
            queues = [[(first, before.play(move))
                       for move in self.line_moves(before, depth, wanted)]
                      for first, before in frontier
                      if firsts_in_scope is None or first in firsts_in_scope]
            # the next step's positions, once each (two lines may meet in one)
            following: dict[str, tuple[int, Position]] = {}
            # X's likeliest moves first, taking the positions before them in turn
            for rank in range(max(map(len, queues), default=0)):
                for queue in queues:
                    if rank < len(queue):
                        first, position = queue[rank]
                        reply = self.decide(position, every_class=False)
                        if reply is None:
                            undecided += 1
                        else:
                            after = position.play(reply)
                            following.setdefault(key_text(after), (first, after))
            frontier = list(following.values())
        self.save()  # (the last games' records)
        self.book.built["positions"] = len(self.book)
        write_if_changed(Path(self.args.out), self.book.to_bytes())
        print(f"book: {len(self.book)} positions ({undecided} left undecided) -> {self.args.out}")
        return 0


_BUILDER: Builder | None = None


def _play(job: tuple[int, int, int]) -> tuple[str, dict[str, Any]]:
    """A worker's game (X's and O's bitboards and the game's number): its name and record."""
    assert _BUILDER is not None
    x, o, index = job
    after = Position.from_bitboards(x, o, "qubic")
    return game_name(after, index), _BUILDER.play(after, index)


def _check(job: tuple[int, int]) -> bool:
    """A worker's check (X's and O's bitboards after O's reply): is it refuted?"""
    assert _BUILDER is not None
    return _BUILDER.refuted(Position.from_bitboards(*job, "qubic"))


def numbers(text: str) -> list[int]:
    """A comma-separated list of whole numbers (cells, or counts by depth)."""
    return [int(cell) for cell in text.split(",")]


def parser() -> argparse.ArgumentParser:
    """The builder's command line (the deep step plays its games by it too)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, choices=(1, 2, 3, 4), default=1,
                        help="X's moves the book answers: 1 to 4 (default 1)")
    parser.add_argument("--x-moves", type=numbers, default=[3],
                        help="with --depth 3 or 4: X's third moves answered in each position, "
                             "the likeliest by a short search (default 3); N,M: N third "
                             "moves and M fourth moves")
    parser.add_argument("--second-after", default=None, type=numbers,
                        help="with --depth 2 to 4: X's first cells (comma-separated, of the "
                             "classes' first cells: 0 a corner, 1 another cell) whose "
                             "second moves the book answers (default both)")
    parser.add_argument("--third-after", default=None, type=numbers,
                        help="with --depth 3 or 4: X's first cells whose third moves the "
                             "book answers (default both)")
    parser.add_argument("--fourth-after", default=None, type=numbers,
                        help="with --depth 4: X's first cells whose fourth moves the book "
                             "answers (default both)")
    parser.add_argument("--players-moves", default=None, type=numbers,
                        help="at these depths (3, 4; comma-separated), X's moves the X "
                             "players (--x-players) play are answered too, besides the "
                             "--x-moves likeliest")
    parser.add_argument("--games", type=int, default=8, help="games a candidate (default 8)")
    parser.add_argument("--finalists", type=int, default=3,
                        help="candidates that play a second round of games (default 3)")
    parser.add_argument("--margin", type=float, default=0.0,
                        help="keep the engine's order of the finalists unless another beats "
                             "it by more than this many standard errors of the difference "
                             "of their mean points (default 0: the most points)")
    parser.add_argument("--deep-games", type=int, default=4,
                        help="games a candidate at X's second move (default 4)")
    parser.add_argument("--x-nodes", default="100000,20000,50000,2000",
                        help="X's node budgets, game by game (default 100000,20000,50000,2000)")
    parser.add_argument("--x-players", default=None,
                        help="X's players instead, game by game: comma-separated player specs, "
                             "@N for N nodes a move (never the family benchmark's members)")
    parser.add_argument("--vary-budgets", action="store_true",
                        help="scale each --x-players node budget (@N) game by game by a "
                             "seeded factor from 0.8 to 1.25, as --x-nodes are (at one "
                             "budget the engine's games from a position are one game)")
    parser.add_argument("--first-candidates", type=int, default=None,
                        help="at X's first move, the engine's N best reply classes only "
                             "(default every class)")
    parser.add_argument("--o-nodes", type=int, default=100_000,
                        help="O's node budget a move in the games (default 100000)")
    parser.add_argument("--check", type=int, default=FIRST_CHECK,
                        help="proof positions of the check of each reply (default 20000)")
    parser.add_argument("--top", type=int, default=2,
                        help="candidates besides the engine's own at X's second move (default 2)")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes that play a round's games (default 1; the book "
                             "does not depend on it)")
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
    parser.add_argument("--replay-others", action="store_true",
                        help="play again each recorded game whose X player is not the one "
                             "--x-players gives that game (by default a game is recalled "
                             "by its position and number, whoever played X)")
    parser.add_argument("--checkpoint", default=str(CHECKPOINT),
                        help=f"the build's records, read and added to (default {CHECKPOINT})")
    parser.add_argument("--out", default=str(BOOK),
                        help=f"the book written (default {BOOK})")
    return parser


def main(argv: list[str] | None = None) -> int:
    """The builder's command line (``scripts/build_o_book.py``)."""
    args = parser().parse_args(argv)
    return Builder(args, Checkpoint(Path(args.checkpoint))).run()
