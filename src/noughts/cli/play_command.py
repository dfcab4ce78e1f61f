"""``noughts play``: a game in the terminal against the engine, another person, or itself.

Modes: you against the AI (the default), ``--two-players`` (two people at one keyboard)
and ``--watch`` (the AI against itself). ``--level`` takes one level for every AI seat or
two, ``X,O``, for ``--watch`` (e.g. ``--level 3,10``). Rich and the game loop are
imported only when the command runs.
"""

from __future__ import annotations

import argparse
import math
import random
from dataclasses import dataclass
from typing import Literal

from noughts.cli import fail, limits
from noughts.position import Mark
from noughts.results import MAX_LEVEL

__all__ = ["add_arguments", "run", "parse_levels", "GameSetup", "plan_game", "human_mark"]

DEFAULT_TIME = 1.0
DEFAULT_WATCH_DELAY = 0.6


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Play a tic-tac-toe-family game in the terminal. At the prompt type a move "
        "(b3 on 2-D boards, also 1-9 from the top left on 3x3; 2b3 on Qubic) or u (undo), "
        "h (hint), "
        "a (analysis), q (quit). In a pipe, moves are read line by line."
    )
    parser.add_argument(
        "--variant",
        "-v",
        metavar="V",
        default="3x3",
        type=limits.variant_name,
        help="board: 3x3, 4x4k3, 4x4, qubic, 7x6k4...; add -misere for the misère game "
        "(completing a line loses): 3x3-misere",
    )
    parser.add_argument(
        "--level",
        default=None,
        metavar="L[,L]",
        help=(
            f"AI strength 0-{MAX_LEVEL} or easy/medium/hard/impossible (default {MAX_LEVEL});"
            " with --watch 'X,O' sets each side, e.g. 3,10"
        ),
    )
    parser.add_argument(
        "--mark",
        type=str.upper,
        choices=("X", "O", "RANDOM"),
        metavar="{X,O,random}",
        default=None,
        help="your mark against the AI; X moves first, so O answers the AI's first "
        "move (default X)",
    )
    parser.add_argument(
        "--first",
        choices=("you", "ai", "random"),
        default=None,
        help="the same choice said the other way: who moves first, and so plays X "
        "(you: --mark X, ai: --mark O); with --mark, both must agree",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--watch", action="store_true", help="watch the AI play itself")
    mode.add_argument("--two-players", action="store_true", help="two people, one keyboard")
    parser.add_argument("--seed", type=int, default=None, help="seed for random choices")
    parser.add_argument(
        "--time",
        type=limits.seconds,
        default=DEFAULT_TIME,
        metavar="S",
        help=f"seconds per AI move and hint on boards too large to solve (default {DEFAULT_TIME})",
    )
    parser.add_argument(
        "--delay",
        type=float,
        default=None,
        metavar="S",
        help=f"pause between moves with --watch at a terminal (default {DEFAULT_WATCH_DELAY})",
    )


def parse_levels(text: str | None, count: int) -> list[int]:
    """The AI levels in ``text`` (``"7"`` or ``"3,10"``), one per AI seat.

    >>> parse_levels(None, 2), parse_levels("7", 2), parse_levels("3,10", 2)
    ([10, 10], [7, 7], [3, 10])
    >>> parse_levels("Easy,impossible", 2)
    [2, 10]
    >>> parse_levels("3,10", 1)
    Traceback (most recent call last):
    ...
    noughts.cli.UsageError: --level 3,10 names 2 levels but this game has 1 AI player
    """
    if text is None:
        return [MAX_LEVEL] * count
    parts = [part.strip() for part in text.split(",")]
    levels = []
    for part in parts:
        levels.append(_level(part))
    if len(levels) == 1:
        return levels * count
    if len(levels) != count:
        players = "player" if count == 1 else "players"
        raise fail(
            f"--level {text} names {len(levels)} levels but this game has {count} AI {players}"
        )
    return levels


def _level(text: str) -> int:
    """A level number, or a preset name (easy, medium, hard, impossible)."""
    try:
        return limits.level(text)
    except argparse.ArgumentTypeError as error:
        raise fail(f"--level: {error}") from None


@dataclass(frozen=True)
class GameSetup:
    """Who sits where: the level of each AI mark (``None`` for a human) and who starts
    (X, always, on the empty board)."""

    levels: dict[Mark, int | None]
    first: Mark


def plan_game(args: argparse.Namespace, rng: random.Random) -> GameSetup:
    """Seats and first mover from the options; bad combinations raise a usage error.

    >>> ns = argparse.Namespace(watch=False, two_players=False, level=None, first="ai", mark=None)
    >>> plan_game(ns, random.Random(0))
    GameSetup(levels={'X': 10, 'O': None}, first='X')
    """
    if args.watch or args.two_players:
        mode = "--watch" if args.watch else "--two-players"
        for option, value in (("--first", args.first), ("--mark", args.mark)):
            if value is not None:
                raise fail(f"{option} is for a game against the AI, not {mode} (X moves first)")
        if args.two_players:
            if args.level is not None:
                raise fail("--level needs an AI player, and --two-players has none")
            return GameSetup({"X": None, "O": None}, "X")
        x_level, o_level = parse_levels(args.level, 2)
        return GameSetup({"X": x_level, "O": o_level}, "X")
    (level,) = parse_levels(args.level, 1)
    choice = human_mark(args.mark, args.first)
    human: Mark = rng.choice(("X", "O")) if choice == "random" else choice
    marks: tuple[Mark, Mark] = ("X", "O")
    levels: dict[Mark, int | None] = {mark: None if mark == human else level for mark in marks}
    return GameSetup(levels, "X")


_MARK_OF_FIRST: dict[str, Mark | Literal["random"]] = {"you": "X", "ai": "O", "random": "random"}


def human_mark(mark: str | None, first: str | None) -> Mark | Literal["random"]:
    """The human's mark from ``--mark`` and ``--first``, one choice said two ways: X
    moves first, so moving first is playing X. Both given must agree.

    >>> human_mark("O", None), human_mark(None, "ai"), human_mark(None, None)
    ('O', 'O', 'X')
    >>> human_mark("RANDOM", "random")
    'random'
    >>> human_mark("O", "you")
    Traceback (most recent call last):
    ...
    noughts.cli.UsageError: --mark O contradicts --first you: X always moves first, so O answers
    """
    chosen: Mark | Literal["random"] = "X"
    if mark is not None:
        chosen = "random" if mark == "RANDOM" else ("O" if mark == "O" else "X")
    if first is not None:
        implied = _MARK_OF_FIRST[first]
        if mark is not None and implied != chosen:
            said = "random" if mark == "RANDOM" else mark
            answers = "" if chosen == "random" else ", so O answers"
            raise fail(f"--mark {said} contradicts --first {first}: X always moves first{answers}")
        chosen = implied
    return chosen


def run(name: str, args: argparse.Namespace) -> int:
    from noughts.play.loop import GameLoop, Terminal
    from noughts.play.session import Seat, Session
    from noughts.variants import variant

    geometry = variant(args.variant)
    if args.delay is not None and not (math.isfinite(args.delay) and args.delay >= 0):
        raise fail(f"--delay must not be negative, not {args.delay}")
    setup = plan_game(args, random.Random(args.seed))
    seats = {
        mark: Seat.human() if level is None else Seat.ai(level)
        for mark, level in setup.levels.items()
    }
    session = Session(geometry, seats, first=setup.first, time_limit=args.time, seed=args.seed)
    terminal = Terminal.standard()
    delay = args.delay
    if delay is None:
        delay = DEFAULT_WATCH_DELAY if terminal.interactive else 0.0
    return GameLoop(session, terminal, delay=delay).run()
