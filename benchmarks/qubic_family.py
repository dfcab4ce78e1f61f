"""The Qubic family benchmark: the engine as O against a family of fallible X players.

Part ``family`` of ``bench_qubic.py``. noughts plays O (level 10, the engine, at
``--time`` seconds or ``--nodes`` nodes a move) against each member of the family
(:data:`noughts.arena.family.DEFAULT_MEMBERS`: the 4x4x4 seed's bot at look-ahead 1 to
3 with lowest-cell and random ties, the engine's own search as X without the shipped
strategy at 2,000, 20,000 and 100,000 nodes, and the threat player).

The harness places X's first mark on each cell asked for (``--cells``, default all 64)
in turn, then the game goes on normally: one game per member and cell, the member
seeded per game (``seed``, member, cell), so under ``--nodes`` every game replays the
same. A member is any player spec, with ``@N`` for a node budget a move
(:func:`noughts.arena.family.member_player`), so ``--members`` may name others;
``--members outside`` names the players outside the family.

With ``--cli`` (``cli=True``), O answers as a user of the command line does: each O
move is a new ``python -m noughts move BOARD --variant qubic --time T --json`` process
(``--nodes N`` with a node budget), cold, and O's move times are the processes' wall
times (:class:`CliPlayer`). With ``--service`` (``service=URL``), O answers as the page
asks a running ``noughts serve``: each O move a ``POST /api/v1/move`` with ``time_ms``
(:class:`ServicePlayer`). With ``--orient`` (``orient=True``), O is shown each game in
one of Qubic's 192 symmetric orientations, drawn from the game's seed
(:class:`Oriented`): the board is mapped into it before O is asked, and O's answer
mapped back. ``--blunders`` counts O's visible blunders in every game after the games
(:mod:`blunders`).

Run as a script, it reads family results and prints the games by line, the wins O
missed (``--missed-wins``), where the lost games were lost (``--escapes``), O's visible
blunders (``--blunders``) or the games another O book would change
(``--book-changes``)::

    python benchmarks/qubic_family.py benchmarks/out/qubic_family.json --escapes --jobs 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from blunders import game_blunders
from noughts.arena.family import member_player
from noughts.budget import Limit
from noughts.errors import NoughtsError
from noughts.knowledge.obook import OBook
from noughts.knowledge.shipped import SHIPPED, Knowledge
from noughts.players.choice import choice_of
from noughts.players.game import play_game
from noughts.players.protocol import LevelPlayer, Player
from noughts.position import Position
from noughts.results import Mark, MoveChoice
from noughts.search.proof import find_win

CELLS = 64

_T = TypeVar("_T")


@dataclass(frozen=True)
class FamilyTask:
    """One game: the member (spec, ``@N`` for nodes), X's first cell, the run's seed,
    O's budget (seconds or nodes a move), whether O moves through the command line
    (``cli``: a cold process a move) or a running service (``service``: its URL), and
    whether O sees the board in a random orientation (``orient``)."""

    member: str
    cell: int
    seed: int
    time_limit: float | None
    nodes: int | None
    cli: bool = False
    service: str | None = None
    orient: bool = False


class CliPlayer:
    """O (or X) through the command line: each move a new
    ``python -m noughts move BOARD --variant qubic --json`` process with ``--time`` or
    ``--nodes``, as a user runs it (the same interpreter and environment as this one).

    >>> player = CliPlayer(time_limit=None, nodes=2_000)
    >>> player.move(Position("XXX./OOO./..../....|" + "|".join(["..../..../..../...."] * 3),
    ...                      "qubic"), Limit()).move
    3
    """

    name = "noughts move"

    def __init__(self, *, time_limit: float | None, nodes: int | None,
                 seed: int | None = None) -> None:
        self.limit = ["--nodes", str(nodes)] if nodes else ["--time", f"{time_limit:g}"]
        if seed is not None:  # the game's seed, as the page sends it
            self.limit += ["--seed", str(seed)]

    def move(self, position: Position, limit: Limit) -> MoveChoice:
        started = time.perf_counter()
        command = [sys.executable, "-m", "noughts", "move", position.board,
                   "--variant", "qubic", *self.limit, "--json"]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"noughts move exited {done.returncode}: {done.stderr.strip()}")
        return choice_of(position, json.loads(done.stdout)["move"], started=started)


_RETRIES = 5
"""How often :class:`ServicePlayer` asks again when the service is busy."""


class ServicePlayer:
    """O (or X) through a running ``noughts serve`` at ``url``, as the page asks it: each
    move a ``POST /api/v1/move`` with the board, level 10, ``time_ms`` and the game's
    ``seed`` (the page draws one a game); the move time is the request's wall time."""

    name = "noughts serve"

    def __init__(self, url: str, *, time_ms: int, seed: int | None = None) -> None:
        self.url = url.rstrip("/")
        self.time_ms = time_ms
        self.seed = seed

    def move(self, position: Position, limit: Limit) -> MoveChoice:
        started = time.perf_counter()
        body: dict[str, object] = {"variant": position.variant, "board": position.board,
                                   "to_move": position.to_move, "level": 10,
                                   "time_ms": self.time_ms}
        if self.seed is not None:
            body["seed"] = self.seed
        request = urllib.request.Request(f"{self.url}/api/v1/move",
                                         data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        for attempt in range(_RETRIES + 1):
            try:
                with urllib.request.urlopen(request, timeout=30 + self.time_ms / 1000) as got:
                    answer = json.load(got)
                break
            except urllib.error.HTTPError as error:  # busy (429, 503): ask again, as the page
                if error.code not in (429, 503) or attempt == _RETRIES:
                    raise
                time.sleep(0.2 * (attempt + 1))
        return choice_of(position, answer["move"], started=started)


class Oriented:
    """``player`` shown the board in the orientation ``symmetry`` (an index into the
    board's symmetries): each position is mapped into it before ``player`` is asked,
    and the answer mapped back.

    >>> won = Position("XXX./OOO./..../....|" + "|".join(["..../..../..../...."] * 3),
    ...                "qubic")  # X wins on cell 3, wherever the board is turned
    >>> turned = Oriented(LevelPlayer(10, nodes=100), symmetry=77)
    >>> turned.move(won, Limit()).move, won.transform(77).board == won.board
    (3, False)
    """

    def __init__(self, player: Player, symmetry: int) -> None:
        self.player = player
        self.symmetry = symmetry
        self.name = player.name

    def move(self, position: Position, limit: Limit) -> MoveChoice:
        started = time.perf_counter()
        seen = position.transform(self.symmetry)
        answer = self.player.move(seen, limit)
        back = position.geometry.symmetry_group.inverses[self.symmetry][answer.move]
        return choice_of(position, back, started=started)


def orientation(seed: int) -> int:
    """The orientation (a symmetry of Qubic's 192) a game of seed ``seed`` is shown in.

    >>> 0 <= orientation(7) < 192 and orientation(7) == orientation(7)
    True
    """
    group = Position("", "qubic").geometry.symmetry_group
    return random.Random(seed ^ 0x0A1E).randrange(group.count)


def game_seed(seed: int, member: str, cell: int) -> int:
    """The seed of one game: the same for the same run seed, member and cell.

    >>> game_seed(1, "threats", 5) == game_seed(1, "threats", 5) != game_seed(1, "threats", 6)
    True
    """
    return zlib.crc32(f"{seed}/{member}/{cell}".encode()) & 0x7FFF_FFFF


def family_game(task: FamilyTask, start: Position | None = None, *,
                o_knowledge: Knowledge = SHIPPED) -> dict[str, object]:
    """One game of the family: X's first mark on ``task.cell`` (or the game goes on
    from ``start``, a position with X to move or O to move), then the member as X
    against the engine as O (consulting ``o_knowledge``). Runs in a worker process."""
    seed = game_seed(task.seed, task.member, task.cell)
    x = member_player(task.member, seed)
    o: Player
    o_seed = seed ^ 0x5EED  # O's on every path, as the page sends one a game
    if task.service is not None:
        o = ServicePlayer(task.service, time_ms=round(1000 * (task.time_limit or 1.0)),
                          seed=o_seed)
    elif task.cli:
        o = CliPlayer(time_limit=task.time_limit, nodes=task.nodes, seed=o_seed)
    else:
        o = LevelPlayer(10, o_seed, time_limit=task.time_limit, nodes=task.nodes,
                        knowledge=o_knowledge)
    symmetry = orientation(seed) if task.orient else 0
    if symmetry:
        o = Oriented(o, symmetry)
    position = start if start is not None else Position("", "qubic").play(task.cell)
    players: dict[Mark, Player] = {"X": x, "O": o}
    played = play_game(players, position)
    if played.failure is not None:
        raise RuntimeError(f"{task.member} from cell {task.cell}: {played.reason}")
    winner = None if played.result == "draw" else played.result
    return {
        "member": task.member,
        "cell": task.cell,
        "seed": seed,
        "orientation": symmetry,
        "winner": winner,
        "plies": position.ply + len(played.moves),
        "start": position.board,
        "moves": list(played.moves),
        "o_ms": [round(t * 1000, 1) for t in played.times["O"]],
    }


def parse_cells(text: str | None) -> list[int]:
    """Cells from ``--cells``: ``all``, a list and ranges (``0-15,21``), or ``sample:N``
    (N cells spread evenly over the 64, the same every run, in an order where every
    first part of the list is spread too: a run cut short has played a fair sample).

    >>> parse_cells("0-3,21"), parse_cells("sample:4"), len(parse_cells(None))
    ([0, 1, 2, 3, 21], [0, 32, 16, 48], 64)
    """
    if text is None or text == "all":
        return list(range(CELLS))
    if text.startswith("sample:"):
        count = int(text.removeprefix("sample:"))
        if not 1 <= count <= CELLS:
            raise ValueError(f"a sample is 1 to {CELLS} cells, not {count}")
        order = sorted(range(count), key=_spread)
        return [index * CELLS // count for index in order]
    cells: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        cells += range(int(low), int(high or low) + 1)
    if not cells or any(not 0 <= cell < CELLS for cell in cells):
        raise ValueError(f"cells are 0 to {CELLS - 1}, not {text!r}")
    return cells


def _spread(index: int) -> float:
    """``index``'s binary digits mirrored behind the point (0, 1/2, 1/4, 3/4, ...)."""
    value, weight = 0.0, 0.5
    while index:
        value += weight * (index & 1)
        index >>= 1
        weight /= 2
    return value


def tasks_for(
    members: Iterable[str], cells: list[int], seed: int, time_limit: float | None,
    nodes: int | None, cli: bool = False, service: str | None = None, orient: bool = False,
) -> list[FamilyTask]:
    """Every (member, cell) game, cell by cell (a run cut short has played every member
    about as often); ``cli``: O through the command line, ``service``: through the
    service at that URL; ``orient``: each game in a random orientation."""
    return [FamilyTask(member, cell, seed, None if nodes else time_limit, nodes, cli,
                       service, orient)
            for cell in cells for member in members]


def bench_family(
    tasks: list[FamilyTask],
    played: Callable[[Callable[[FamilyTask], dict[str, object]], list[FamilyTask]],
                     Iterator[dict[str, object]]],
    progress: Callable[[dict[str, object]], None] | None = None,
) -> dict[str, object]:
    """Play ``tasks`` through ``played`` (a map, maybe over worker processes), print each
    game, then the table; the summary by member and in total. ``progress`` sees the
    summary so far after every game (to save a run that may be cut short)."""
    records: list[dict[str, object]] = []
    members = list(dict.fromkeys(task.member for task in tasks))
    for record in played(family_game, tasks):
        records.append(record)
        if progress is not None:
            progress(summarize(members, records))
        o_ms = _floats(record["o_ms"])
        word = {"O": "win", "X": "LOSS", None: "draw"}[_winner(record)]
        print(f"  {record['member']:<28} cell {int(str(record['cell'])):2d}: O {word:<4}"
              f" in {record['plies']} plies (O's slowest move {max(o_ms, default=0):.0f} ms)",
              flush=True)
    summary = summarize(members, records)
    rows, total = summary["members"], summary["total"]
    assert isinstance(rows, dict) and isinstance(total, dict)
    print_table(rows, total)
    return summary


def summarize(members: list[str], records: list[dict[str, object]]) -> dict[str, object]:
    """The rows by member (in ``members`` order), the total and the games."""
    rows = {member: _row([r for r in records if r["member"] == member]) for member in members}
    return {"members": rows, "total": _row(records), "games": records}


def _winner(record: dict[str, object]) -> str | None:
    winner = record["winner"]
    return None if winner is None else str(winner)


def _floats(value: object) -> list[float]:
    assert isinstance(value, list)
    return [float(item) for item in value]


def _row(records: list[dict[str, object]]) -> dict[str, object]:
    times = [t for record in records for t in _floats(record["o_ms"])]
    return {
        "games": len(records),
        "o_wins": sum(_winner(r) == "O" for r in records),
        "draws": sum(_winner(r) is None for r in records),
        "o_losses": sum(_winner(r) == "X" for r in records),
        "cells_lost": [r["cell"] for r in records if _winner(r) == "X"],
        "cells_drawn": [r["cell"] for r in records if _winner(r) is None],
        "o_moves": len(times),
        "o_median_ms": round(statistics.median(times), 1) if times else 0.0,
        "o_max_ms": round(max(times, default=0.0), 1),
        "o_blunders": (sum(len(_blunders(r)) for r in records)
                       if all("blunders" in r for r in records) else None),
    }


def _blunders(record: dict[str, object]) -> list[object]:
    found = record["blunders"]
    assert isinstance(found, list)
    return found


def blunders_in(record: dict[str, object]) -> dict[str, object]:
    """``record`` (a family game) with ``blunders``: O's visible blunders in it
    (:func:`blunders.game_blunders`; runs in a worker process)."""
    moves = record["moves"]
    assert isinstance(moves, list)
    found = game_blunders(Position(str(record["start"]), "qubic"),
                          [int(str(move)) for move in moves])
    return {**record, "blunders": [blunder.to_json() for blunder in found]}


def count_blunders(summary: dict[str, object], jobs: int) -> dict[str, object]:
    """``summary`` (of :func:`summarize`) again, every game's visible blunders counted
    (in ``jobs`` worker processes), each game printed as it is checked."""
    records = summary["games"]
    assert isinstance(records, list)
    checked = []
    for record in in_workers(blunders_in, records, jobs):
        checked.append(record)
        shown = ", ".join(f"ply {b['marks']}: O {b['played']}, X {b['reply']} (O had "
                          f"{b['safe']})" for b in _blunders(record) if isinstance(b, dict))
        print(f"  {record['member']:<28} cell {int(str(record['cell'])):2d}: "
              f"{len(_blunders(record))} visible blunders{': ' + shown if shown else ''}",
              flush=True)
    rows = summary["members"]
    assert isinstance(rows, dict)
    return summarize(list(rows), checked)


def print_table(rows: dict[str, dict[str, object]], total: dict[str, object]) -> None:
    """The family table: each member, then the total."""
    header = (f"| {'X (member)':<28} | games | O wins | draws | O losses | O win % | "
              "O blunders | O median ms | O max ms |")
    print(header)
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for name, row in [*rows.items(), ("total", total)]:
        games = int(str(row["games"]))
        wins = int(str(row["o_wins"]))
        share = 100 * wins / games if games else 0.0
        blunders = "-" if row.get("o_blunders") is None else row["o_blunders"]
        print(f"| {name:<28} | {games:5d} | {wins:6d} | {row['draws']!s:>5} | "
              f"{row['o_losses']!s:>8} | {share:6.1f}% | {blunders!s:>10} | "
              f"{row['o_median_ms']!s:>11} | {row['o_max_ms']!s:>8} |")


# -- the games by line: how many different games a member's results hold ----------------
@dataclass(frozen=True)
class Line:
    """A member's games that reach one position (up to the board's symmetries) after
    their first ``plies`` plies: the games, O's wins and losses, and for a line of
    more than one result the ply that parts them (the first after which no position
    is reached by games of different results)."""

    member: str
    games: int
    o_wins: int
    o_losses: int
    parts_at: int | None

    @property
    def parts_by(self) -> str | None:
        """Whose move parted the results (X moves on odd plies)."""
        return None if self.parts_at is None else "XO"[(self.parts_at - 1) % 2]


def _replay(record: dict[str, object]) -> Iterator[tuple[Position, int]]:
    """The game's plies in turn, X's first mark included: each position and the move
    played in it."""
    moves = record["moves"]
    assert isinstance(moves, list)
    position = Position("", "qubic")
    for move in (int(str(m)) for m in [record["cell"], *moves]):
        yield position, move
        position = position.play(move)


def _path(record: dict[str, object]) -> list[tuple[int, int]]:
    """The game's positions up to symmetry, after each of its plies in turn."""
    path = []
    for before, move in _replay(record):
        after = before.play(move)
        x, o, _ = after.geometry.symmetry_group.canonical(after.x, after.o)
        path.append((x, o))
    return path


def _parting(games: list[tuple[list[tuple[int, int]], str | None]]) -> int | None:
    """The first ply after which no position of ``games`` (each its path and winner) is
    reached by games of different results, if the line holds more than one result
    (``None`` otherwise): the move that set the result apart."""
    if len({winner for _, winner in games}) < 2:
        return None
    shortest = min(len(path) for path, _ in games)
    plies = 1
    while plies < shortest:
        results: dict[tuple[int, int], set[str | None]] = {}
        for path, winner in games:
            results.setdefault(path[plies - 1], set()).add(winner)
        if all(len(seen) == 1 for seen in results.values()):
            break
        plies += 1
    return plies


def lines(records: list[dict[str, object]], plies: int = 4) -> list[Line]:
    """The games grouped by member and by their position after ``plies`` plies (4: X's
    first two moves and O's replies), the biggest line of each member first.

    >>> game = {"member": "m", "cell": 0, "winner": "O", "moves": [21, 3, 22, 1]}
    >>> turned = {**game, "cell": 3, "moves": [22, 0, 21, 12], "winner": "X"}
    >>> [(line.games, line.o_wins, line.parts_at, line.parts_by)
    ...  for line in lines([game, turned])]
    [(2, 1, 5, 'X')]
    """
    grouped: dict[tuple[str, tuple[int, int]], list[tuple[list[tuple[int, int]], str | None]]]
    grouped = {}
    for record in records:
        path = _path(record)
        key = (str(record["member"]), path[min(plies, len(path)) - 1])
        grouped.setdefault(key, []).append((path, _winner(record)))
    found = [Line(member, len(games), sum(w == "O" for _, w in games),
                  sum(w == "X" for _, w in games), _parting(games))
             for (member, _), games in grouped.items()]
    return sorted(found, key=lambda line: (line.member, -line.games))


def print_lines(found: list[Line], plies: int) -> None:
    """The lines table: each member's lines, biggest first."""
    print(f"| X (member) | lines after {plies} plies | games a line: O wins of games "
          "(results part at ply, by whom) |")
    print("|---|--:|---|")
    members = list(dict.fromkeys(line.member for line in found))
    for member in members:
        own = [line for line in found if line.member == member]
        shown = ", ".join(
            f"{line.o_wins}/{line.games}"
            + ("" if line.parts_at is None else f" (ply {line.parts_at}, {line.parts_by})")
            for line in own)
        print(f"| {member} | {len(own)} | {shown} |")


def in_workers(
    worker: Callable[[_T], dict[str, object]], tasks: list[_T], jobs: int
) -> Iterator[dict[str, object]]:
    """``worker`` over ``tasks``, ``jobs`` at a time in worker processes, in task order."""
    if jobs <= 1:
        yield from map(worker, tasks)
        return
    with multiprocessing.Pool(jobs) as pool:
        yield from pool.imap(worker, tasks)


@dataclass(frozen=True)
class WinCheck:
    """One position of a game O did not win, O to move: the proof search's question
    whether O had a forced win there (``seconds`` to find it)."""

    member: str
    cell: int
    x: int
    o: int
    played: int
    seconds: float


def win_checks(records: list[dict[str, object]], seconds: float) -> list[WinCheck]:
    """Every position with O to move, from O's second move on, of the games in
    ``records`` that O did not win.

    >>> game = {"member": "m", "cell": 0, "winner": "X", "moves": [21, 3, 22, 1, 42]}
    >>> [(check.x.bit_count(), check.played) for check in win_checks([game], 1.0)]
    [(2, 22), (3, 42)]
    """
    return [WinCheck(str(record["member"]), int(str(record["cell"])), position.x,
                     position.o, move, seconds)
            for record in records if _winner(record) != "O"
            for position, move in _replay(record)
            if position.to_move == "O" and position.ply > 1]


def proven_o_win(check: WinCheck) -> dict[str, object]:
    """The check's answer: O's proven winning move and the plies its proof lets the
    game last, or ``None`` for each (runs in a worker process)."""
    position = Position.from_bitboards(check.x, check.o, "qubic")
    win = find_win(position, limit=Limit.within(seconds=check.seconds))
    return {"member": check.member, "cell": check.cell, "ply": position.ply,
            "played": check.played, "win": None if win is None else win[0],
            "plies": None if win is None else win[1]}


CHECK_NODES = 1_000_000
"""Proof positions of a move's check in ``--escapes``: about what the defence's checks
reach in a move of a second on the compiled core."""
WALK_NODES = 500_000
"""Proof positions of the search that finds, in a game O lost, the first O move after
which X's win is proven (``--escapes``)."""
DEEP_NODES = 2_000_000
"""Proof positions of the deep check of a reply that a move's check leaves open."""


def _x_wins(position: Position, nodes: int) -> bool:
    """Whether X (to move) has a win the proof search proves within ``nodes`` positions."""
    return find_win(position, limit=Limit.within(nodes=nodes)) is not None


def first_lost(record: dict[str, object]) -> dict[str, object]:
    """In a game O lost, ``at``: the position (X's and O's bitboards, O to move) before
    the first O move after which X's win is proven within :data:`WALK_NODES` positions,
    and the move O played there; ``None`` if none is (runs in a worker process)."""
    for position, move in _replay(record):
        if position.to_move == "O" and _x_wins(position.play(move), WALK_NODES):
            return {"at": (position.x, position.o, move)}
    return {"at": None}


def escapes(job: tuple[int, int, int]) -> dict[str, object]:
    """Every reply in a position O lost from (X's and O's bitboards, the move O played):
    refuted within a move's check (:data:`CHECK_NODES` proof positions), and of the
    rest, those a deep check (:data:`DEEP_NODES`) does not refute either (runs in a
    worker process)."""
    x, o, played = job
    position = Position.from_bitboards(x, o, "qubic")
    replies = [move for move in position.legal_moves if not position.play(move).is_over]
    open_ = [move for move in replies if not _x_wins(position.play(move), CHECK_NODES)]
    safe = [move for move in open_ if not _x_wins(position.play(move), DEEP_NODES)]
    return {"ply": position.ply, "played": played, "replies": len(replies),
            "open": open_, "safe": safe}


def print_escapes(records: list[dict[str, object]], jobs: int) -> None:
    """Where O's lost games were lost: for each game, the first O move after which X's
    win is proven; for each such position (up to symmetry), how many replies a move's
    check refutes and which a deep check leaves."""
    lost = [record for record in records if _winner(record) == "X"]
    found = in_workers(first_lost, lost, jobs)
    positions: dict[tuple[int, int], tuple[tuple[int, int, int], list[str]]] = {}
    unproven = 0
    for record, answer in zip(lost, found, strict=True):
        at = answer["at"]
        if not isinstance(at, tuple):
            unproven += 1
            continue
        x, o, _ = Position.from_bitboards(at[0], at[1], "qubic").geometry.symmetry_group \
            .canonical(at[0], at[1])
        entry = positions.setdefault((x, o), (at, []))
        entry[1].append(f"{record['member']} {record['cell']}")
    print(f"| first O move lost after (marks) | replies | open after {CHECK_NODES:,} | "
          f"not refuted by {DEEP_NODES:,} | O played | games |")
    print("|--:|--:|--:|---|--:|---|")
    tasks = [at for at, _ in positions.values()]
    for (_, games), answer in zip(positions.values(), in_workers(escapes, tasks, jobs),
                                  strict=True):
        open_, safe = answer["open"], answer["safe"]
        assert isinstance(open_, list) and isinstance(safe, list)
        print(f"| {answer['ply']} | {answer['replies']} | {len(open_)} | "
              f"{', '.join(map(str, safe)) or 'none'} | {answer['played']} | "
              f"{'; '.join(games)} |")
    print(f"  {len(lost)} games lost, {len(positions)} positions, {unproven} with no "
          f"O move proven lost within {WALK_NODES:,} positions")


def book_changes(records: list[dict[str, object]], book: OBook,
                 before: OBook) -> list[dict[str, object]]:
    """The games in which O, playing ``book`` instead of ``before``, would have moved
    otherwise: in each, the first position where ``book`` has a move other than the one
    O played and ``before`` did not have that move too (a book move O did not play was
    refuted by its check, and would be with either book). Up to that position O plays as
    it did (up to its clock), so only these games can change with the book.

    >>> from noughts.knowledge.obook import shipped_o_book
    >>> shipped = shipped_o_book("4x4x4")
    >>> reply = shipped.lookup(Position("", "qubic").play(0)).move
    >>> game = {"member": "m", "cell": 0, "winner": "X", "moves": [(reply + 1) % 64]}
    >>> [change["book"] == reply for change in book_changes([game], shipped, OBook("4x4x4"))]
    [True]
    >>> book_changes([game], shipped, shipped)
    []
    """
    changes = []
    for record in records:
        for position, move in _replay(record):
            if position.to_move != "O":
                continue
            new, old = book.lookup(position), before.lookup(position)
            if new is not None and new.move != move and (old is None or old.move != new.move):
                changes.append({"member": record["member"], "cell": record["cell"],
                                "ply": position.ply, "played": move, "book": new.move,
                                "winner": _winner(record)})
                break
    return changes


def main(argv: list[str] | None = None) -> int:
    """``python benchmarks/qubic_family.py RESULTS.json [...]``: the lines table of
    family results written by ``bench_qubic.py --parts family``."""
    parser = argparse.ArgumentParser(description="The family's games by line, up to symmetry.")
    parser.add_argument("results", nargs="+", type=Path,
                        help="family results (bench_qubic.py --parts family --out ...)")
    parser.add_argument("--plies", type=int, default=4,
                        help="group the games by their position after this many plies "
                             "(default 4: X's first two moves and O's replies)")
    parser.add_argument("--missed-wins", type=float, default=None, metavar="SECONDS",
                        help="instead: in the games O did not win, a proof search for "
                             "O's forced win at each of O's moves from its second on, "
                             "SECONDS each (did O miss a win?)")
    parser.add_argument("--escapes", action="store_true",
                        help="instead: in the games O lost, the first O move after which "
                             "X's win is proven, and which replies there a proof search "
                             "does not refute (did O have a way out?)")
    parser.add_argument("--book-changes", nargs=2, type=Path, default=None,
                        metavar=("BOOK", "BEFORE"),
                        help="instead: the games in which O would have moved otherwise "
                             "with the O book BOOK than with BEFORE (the book the runs "
                             "played), and where")
    parser.add_argument("--blunders", action="store_true",
                        help="instead: O's visible blunders in every game (an O move after "
                             "which an X reply leaves every O move proven lost, when another "
                             "O move did not; benchmarks/blunders.py), and the table")
    parser.add_argument("--jobs", type=int, default=1,
                        help="--missed-wins, --escapes, --blunders: searches at once "
                             "(worker processes)")
    args = parser.parse_args(argv)
    if args.plies < 1:
        parser.error("--plies: at least 1")
    if args.missed_wins is not None and args.missed_wins <= 0:
        parser.error("--missed-wins: a positive number of seconds")
    books = None
    if args.book_changes is not None:
        try:
            books = [OBook.load(path) for path in args.book_changes]
        except OSError as error:
            parser.error(f"--book-changes: {error.filename}: cannot read it ({error.strerror})")
        except NoughtsError as error:
            parser.error(f"--book-changes: {error}")
    for path in args.results:
        try:
            records = json.loads(path.read_text())["family"]["games"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            parser.error(f"{path}: not family results ({error})")
        print(f"{path}:")
        if books is not None:
            changes = book_changes(records, *books)
            for change in changes:
                print(f"  {change['member']} cell {change['cell']}, ply {change['ply']}: O "
                      f"played {change['played']}, the book {change['book']} "
                      f"(won by {change['winner'] or 'nobody'})")
            print(f"  {len(changes)} of {len(records)} games reach a position where the "
                  f"book moves otherwise")
            continue
        if args.escapes:
            print_escapes(records, args.jobs)
            continue
        if args.blunders:
            members = list(dict.fromkeys(str(record["member"]) for record in records))
            counted = count_blunders(summarize(members, records), args.jobs)
            rows, total = counted["members"], counted["total"]
            assert isinstance(rows, dict) and isinstance(total, dict)
            print_table(rows, total)
            continue
        if args.missed_wins is None:
            print_lines(lines(records, args.plies), args.plies)
            continue
        checks = win_checks(records, args.missed_wins)
        found = [answer for answer in in_workers(proven_o_win, checks, args.jobs)
                 if answer["win"] is not None]
        for answer in found:
            print(f"  {answer['member']} cell {answer['cell']}, {answer['ply']} marks: O "
                  f"played {answer['played']}, {answer['win']} wins in {answer['plies']} plies")
        unwon = sum(_winner(record) != "O" for record in records)
        print(f"  {len(checks)} positions with O to move in the {unwon} games O did not win, "
              f"{args.missed_wins:g} s each: {len(found)} forced wins for O found")
    return 0


if __name__ == "__main__":
    sys.exit(main())
