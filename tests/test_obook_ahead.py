"""The O book's look two X moves ahead (noughts.builders.o_book_ahead), on a stand-in for
the engine's look ahead whose verdicts are known: X wins once it holds three strong
cells (corners and centres) while O holds fewer than two."""

from __future__ import annotations

from pathlib import Path

import pytest

import noughts.builders.o_book_ahead as ahead
import noughts.builders.o_book_cleared as cleared
from noughts.builders.checkpoint import Checkpoint
from noughts.knowledge.obook import OBook
from noughts.position import Position
from noughts.search.openings import strong_cells

STRONG = sum(1 << cell for cell in strong_cells(Position("", "qubic").geometry))


def _stand_in_look_ahead(after: Position, nodes: int | None = None, *,
                         root_nodes: int | None = None,
                         exhaustive: bool = False) -> tuple[int, int] | None:
    """X's winning reply in ``after`` (X to move) by the stand-in's rule, and its plies."""
    if (after.x & STRONG).bit_count() >= 3 and (after.o & STRONG).bit_count() < 2:
        return next(iter(after.legal_moves)), 3
    return None


def _lowest_first(position: Position, nodes: int) -> list[int]:
    """The stand-in for the engine's order of moves: lowest cell first."""
    return list(position.legal_moves)


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (ahead, cleared):  # (the workers are forked: they inherit the stand-in)
        monkeypatch.setattr(module, "killing_reply", _stand_in_look_ahead)
        monkeypatch.setattr(module, "ranked", _lowest_first)


def test_a_book_move_with_a_losing_reply_gives_way_to_the_first_without(
        stand_in: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # X on two corners, O on a weak cell; the book's weak move 1 lets X take a third
    # strong cell, after which no O move saves it: a losing reply. O's corner 3 (the
    # first strong cell of the order) leaves none: O answers a third with a second.
    position = Position.from_bitboards(1 << 0 | 1 << 63, 1 << 2, "qubic")
    book = OBook("4x4x4")
    book.add(position, 1, games=12, score=9.0)
    checkpoint = Checkpoint(tmp_path / "records.json.gz")
    replaced = ahead.look_ahead(book, 3, None, checkpoint=checkpoint, part="sweep",
                                nodes=1_000, o_nodes=1_000, workers=1)
    assert replaced == 1
    answer = book.lookup(position)
    assert answer is not None and answer.games == 0 and STRONG >> answer.move & 1
    (record,) = checkpoint.part("sweep")["ahead@3/1000/1000"].values()
    (book_move, killer, losing), *others, (kept, clear, none) = record["checks"]
    assert book_move == book.to_canonical(position, 1)[1]  # (on the canonical image)
    assert killer is None and losing  # the book's move is not looked at again
    assert (kept, clear, none) == (record["kept"], None, [])
    assert all(STRONG >> move & 1 == 0 for move, _, _ in others)  # weak moves, each losing
    # the escapes are the extension's records, their moves on the canonical images
    escapes = checkpoint.part("sweep")["extend@5/1000/1000"]
    assert escapes
    for key, escape in escapes.items():
        x, o = (int(bits, 16) for bits in key.split(":"))
        assert escape["kept"] is None or not (x | o) >> escape["kept"] & 1
    # run again, every record at hand: the same decision, no search
    again = OBook("4x4x4")
    again.add(position, 1, games=12, score=9.0)
    for module in (ahead, cleared):
        monkeypatch.setattr(module, "killing_reply", _no_search)
        monkeypatch.setattr(module, "ranked", _no_search)
    assert ahead.look_ahead(again, 3, None, checkpoint=checkpoint, part="sweep",
                            nodes=1_000, o_nodes=1_000, workers=1) == 1
    assert again.entries == book.entries


def test_where_every_move_has_a_losing_reply_the_book_move_stays(
        stand_in: None, tmp_path: Path) -> None:
    # X already holds three strong cells: O's one move cannot make two of its own
    position = Position.from_bitboards(1 << 0 | 1 << 3 | 1 << 63, 1 << 1 | 1 << 2, "qubic")
    book = OBook("4x4x4")
    book.add(position, 4, games=12, score=3.0)
    checkpoint = Checkpoint(tmp_path / "records.json.gz")
    assert ahead.look_ahead(book, 5, None, checkpoint=checkpoint, part="sweep",
                            nodes=1_000, o_nodes=1_000, workers=1) == 0
    (record,) = checkpoint.part("sweep")["ahead@5/1000/1000"].values()
    answer = book.lookup(position)
    assert record["lost"] and answer is not None and (answer.move, answer.games) == (4, 12)


def _no_search(*args: object, **kwargs: object) -> None:
    raise AssertionError("a search ran: a record is missing")
