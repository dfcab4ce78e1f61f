"""O's book moves looked at two X moves ahead: no X reply that leaves O visibly lost.

The sweep (:mod:`noughts.builders.o_book_sweep`) keeps no book move after which the
engine's look one X move ahead (:func:`~noughts.search.defence.killing_reply`) finds X a
win. One X move further, the look ahead may find X a win after *every* O move: O is then
visibly lost a move before any of its moves can be a visible blunder, and an X that
finds that reply wins (in the family's games of 29 November, the engine's own X at
2,000 and 100,000 nodes found such a reply to O's second move after a corner, in every
orientation). This step looks that far for the book's moves in the positions of
``MARKS`` marks: after each X reply (each class up to symmetry, or with ``MARKS:TOP``
X's ``TOP`` likeliest, by the short search of X's own the sweep's extension ranks them
by), it looks for O's *escape*, the first move of the engine's order (a win or a block
alone, where O must play one) after which the look ahead finds X no win, as the sweep's
extension decides O's moves. A reply that leaves O no escape is a *losing reply*. A book
move with one is replaced by the first move of the engine's order that the look ahead
clears and that has none; where every move has one, the book's move stays.

The escapes are the sweep's extension records (``extend@...`` in the checkpoint, made
early where the extension that follows would make them), those where O's move is forced
under ``forced@...``, and the decisions under ``ahead@...``, all in the sweep's part.
Node budgets only: deterministic, and resumable from the checkpoint.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import time
from typing import TYPE_CHECKING, Any

from noughts.builders.checkpoint import SAVE_EVERY
from noughts.builders.o_book import canonical, classes, key_text, ranked
from noughts.builders.o_book_cleared import extend, extent_text, first_cleared, x_likeliest
from noughts.builders.o_book_deepen import forced_move
from noughts.orientation import Orientation
from noughts.position import Position
from noughts.search.defence import killing_reply

if TYPE_CHECKING:
    from noughts.builders.checkpoint import Checkpoint
    from noughts.knowledge.obook import OBook

__all__ = ["escape_forced", "losing", "look_ahead"]

Job = tuple[int, int, int, int]
"""A position's bitboards and the settings (look-ahead nodes, O's order nodes)."""


def escape_forced(position: Position, nodes: int) -> dict[str, Any]:
    """The record of O's escape in ``position`` where O must win or block: ``kept``, the
    forced move if the look ahead (``nodes`` positions) finds X no win after it, else
    ``None``, and ``checks``.

    >>> # X holds 0, 1 and 2: O must block 3
    >>> p = Position.from_bitboards(sum(1 << c for c in (0, 1, 2)),
    ...                             sum(1 << c for c in (12, 15)), "qubic")
    >>> escape_forced(p, 20_000)["kept"]
    3
    """
    forced = forced_move(position)
    assert forced is not None, "O's move is not forced"
    kept, checks = first_cleared(position, [forced], nodes)
    return {"kept": kept, "checks": checks}


def losing(record: dict[str, Any]) -> bool:
    """Whether an escape's ``record`` found none: every move tried has a winning X reply
    (an extension's record with no move tried is a forced position, not decided there).

    >>> losing({"kept": None, "checks": [[3, 7]]}), losing({"kept": 3, "checks": [[3, None]]})
    (True, False)
    """
    return record["kept"] is None and bool(record["checks"])


def _escape(job: Job) -> tuple[str, bool, dict[str, Any]]:
    """A worker's escape in a canonical position (its moves on that image, as the
    extension's records hold them): the position's key, whether O's move is forced,
    the record."""
    x, o, nodes, o_nodes = job
    position = Position.from_bitboards(x, o, "qubic")
    if forced_move(position) is not None:
        return key_text(position), True, escape_forced(position, nodes)
    return key_text(position), False, extend(position, nodes, o_nodes)


class _Ahead:
    """The records and workers of one ``--ahead MARKS[:TOP]`` step."""

    def __init__(self, checkpoint: Checkpoint, part: str, top: int | None, marks: int,
                 nodes: int, o_nodes: int, pool: multiprocessing.pool.Pool) -> None:
        records = checkpoint.part(part)
        after = extent_text(marks + 2, top)
        self.checkpoint, self.top, self.nodes, self.o_nodes, self.pool = (
            checkpoint, top, nodes, o_nodes, pool)
        self.escapes: dict[str, dict[str, Any]] = records.setdefault(
            f"extend@{after}/{nodes}/{o_nodes}", {})
        self.forced: dict[str, dict[str, Any]] = records.setdefault(f"forced@{nodes}", {})
        self.x_moves: dict[str, list[int]] | None = (
            None if top is None else records.setdefault(f"x_moves@{after}/{o_nodes}", {}))

    def replies(self, after: Position) -> list[int]:
        """X's replies looked at in ``after``: one of each class, or the ``top`` likeliest."""
        if self.x_moves is None or self.top is None:
            return classes(after, list(after.legal_moves))
        view = Orientation.of(after)
        key = key_text(after)
        if key not in self.x_moves:
            self.x_moves[key] = x_likeliest(after, self.o_nodes, self.top)
        return [view.to_original(move) for move in self.x_moves[key]]

    def losing_replies(self, after: Position) -> list[int]:
        """X's replies in ``after`` that leave O no escape (each escape looked for once)."""
        reached = {reply: after.play(reply) for reply in self.replies(after)}
        jobs = {key_text(q): (*canonical(q), self.nodes, self.o_nodes)
                for q in reached.values() if not q.is_over and self._record(q) is None}
        for key, forced, record in self.pool.imap(_escape, list(jobs.values())):
            (self.forced if forced else self.escapes)[key] = record
            self.checkpoint.save(SAVE_EVERY)
        return [reply for reply, q in reached.items() if q.is_over or self._lost(q)]

    def _record(self, reached: Position) -> dict[str, Any] | None:
        key = key_text(reached)
        return self.forced.get(key) if forced_move(reached) is not None else self.escapes.get(key)

    def _lost(self, reached: Position) -> bool:
        record = self._record(reached)
        assert record is not None, "an escape was not looked for"
        return losing(record)

    def decide(self, position: Position, move: int) -> dict[str, Any]:
        """The record of the book's ``move`` in ``position`` looked at two X moves ahead:
        ``kept`` and ``checks``: each move tried, with the look ahead's winning X reply
        after it (else ``None``; the book's move, swept already, is not looked at again)
        and the losing replies after it, if it was cleared."""
        start = time.perf_counter()
        checks: list[list[Any]] = []
        for candidate in [move] + [m for m in ranked(position, self.o_nodes) if m != move]:
            after = position.play(candidate)
            if candidate != move:
                found = killing_reply(after, self.nodes, root_nodes=self.nodes)
                if found is not None:
                    checks.append([candidate, found[0], None])
                    continue
            replies = self.losing_replies(after)
            checks.append([candidate, None, replies])
            if not replies:
                return {"kept": candidate, "checks": checks,
                        "seconds": round(time.perf_counter() - start, 1)}
        return {"kept": move, "checks": checks, "lost": True,
                "seconds": round(time.perf_counter() - start, 1)}


def look_ahead(book: OBook, marks: int, top: int | None, *, checkpoint: Checkpoint,
               part: str, nodes: int, o_nodes: int, workers: int) -> int:
    """Look at the moves of ``book`` in its positions of ``marks`` marks two X moves
    ahead (after X's ``top`` likeliest replies, or all), replace those with a losing
    reply where a move without one is found, and return how many were replaced; the
    records go to ``part`` of ``checkpoint``."""
    words = f"{extent_text(marks, top)}/{nodes}/{o_nodes}"
    decided: dict[str, dict[str, Any]] = checkpoint.part(part).setdefault(f"ahead@{words}", {})
    entries = sorted((key, entry.move) for key, entry in book.entries.items()
                     if (key[0] | key[1]).bit_count() == marks)
    replaced = 0
    with multiprocessing.Pool(workers) as pool:
        step = _Ahead(checkpoint, part, top, marks, nodes, o_nodes, pool)
        for (x, o), move in entries:
            position = Position.from_bitboards(x, o, "qubic")
            key = f"{key_text(position)}/{move}"
            if key not in decided:
                decided[key] = step.decide(position, move)
                checkpoint.save(SAVE_EVERY)
                if decided[key]["kept"] != move or decided[key].get("lost"):
                    print(f"  {key}: {decided[key]}", flush=True)
            if decided[key]["kept"] != move:
                book.add(position, decided[key]["kept"], games=0, score=0.0)
                replaced += 1
    checkpoint.save()
    return replaced
