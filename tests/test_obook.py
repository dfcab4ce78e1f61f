"""O's opening book for Qubic: the built file and its shape, lookups in any orientation,
the engine's use of a book, and the words of a move chosen among moves all proven lost."""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

import pytest

import noughts.builders.o_book as builder_module
import noughts.builders.o_book_deepen as deepen
import noughts.knowledge.shipped as shipped_module
from noughts.arena.family import DEFAULT_MEMBERS, OUTSIDE_MEMBERS
from noughts.builders.checkpoint import Checkpoint
from noughts.cli import main
from noughts.engine import choose_move
from noughts.engine.plan import BOOK_CHECK_NODES
from noughts.errors import NoughtsError
from noughts.geometry import scan_forward
from noughts.knowledge.obook import BookMove, OBook, shipped_o_book
from noughts.knowledge.shipped import SHIPPED, Knowledge
from noughts.position import Position
from noughts.results import MoveChoice
from noughts.search.defence import PROOF_NODE_COST

BUILT = Path(__file__).resolve().parent / "data" / "qubic-o-book-first.json.gz"
"""The first book the builder built, against the engine's own X only (not shipped: it
made O weaker, docs/qubic-o-results.md)."""



NO_BOOK = Knowledge(o_book=False)


def book_move(position: Position) -> BookMove | None:
    """The shipped book's reply where it serves ``position``."""
    book = SHIPPED.o_book_for(position)
    return None if book is None else book.lookup(position)


def _after_x(cell: int) -> Position:
    return Position("", "qubic").play(cell)


@pytest.fixture
def built_book(monkeypatch: pytest.MonkeyPatch) -> OBook:
    """The built book, served to the engine as a shipped one would be."""
    book = OBook.load(BUILT)
    monkeypatch.setattr(shipped_module, "shipped_o_book",
                        lambda name: book if name == "4x4x4" else None)
    return book


def test_the_built_book_loads_and_has_its_shape() -> None:
    book = OBook.load(BUILT)
    assert book.variant == "4x4x4" and book.built["against"] == "level:10:no-strategy"
    # O's reply to each of X's two kinds of first move (corner or centre, the others)
    assert book.lookup(_after_x(0)) is not None and book.lookup(_after_x(1)) is not None
    for (x, o), entry in book.entries.items():
        assert x & o == 0 and x.bit_count() == o.bit_count() + 1 <= 2
        assert not (x | o) >> entry.move & 1 and 0 <= entry.score <= entry.games
        assert (x, o) == book.geometry.symmetry_group.canonical(x, o)[:2]
    shipped = shipped_o_book("4x4x4")
    assert shipped is not None and shipped.entries != book.entries  # (it made O weaker)


def test_the_shipped_book_loads_has_its_shape_and_was_built_off_the_family() -> None:
    family = set(DEFAULT_MEMBERS) | set(OUTSIDE_MEMBERS)
    book = shipped_o_book("4x4x4")
    assert book is not None and shipped_o_book("3x3") is None
    assert book.variant == "4x4x4"
    against = book.built["against"].split(",")  # X players of several kinds, none measured
    assert len(against) >= 3 and not set(against) & family
    for cell in (0, 1):  # O's reply to each of X's two kinds of first move
        booked = book_move(_after_x(cell))
        assert booked is not None and booked.move != cell
        assert 0 < booked.score <= booked.games
    group = book.geometry.symmetry_group
    replied = {group.canonical(x, o | 1 << entry.move)[:2]  # after the book's replies
               for (x, o), entry in book.entries.items()}
    assert sum(x.bit_count() == 1 for x, _ in book.entries) == 2
    # O's first seven moves at most (the lines of games are followed up to ply 14; the
    # sweep leaves a line's later entries unreached where it replaced an earlier move)
    assert set(range(1, 6)) <= {x.bit_count() for x, _ in book.entries} <= set(range(1, 8))
    for (x, o), entry in book.entries.items():
        assert x & o == 0 and x.bit_count() == o.bit_count() + 1 <= 7
        assert not (x | o) >> entry.move & 1
        assert (x, o) == group.canonical(x, o)[:2]
        # O's second and third moves come after X's next move, after O's last reply from
        # the book (later, a line's last O move may be a forced block or the engine's own)
        if 1 < x.bit_count() <= 3:
            assert any(group.canonical(x & ~(1 << cell), o)[:2] in replied
                       for cell in scan_forward(x))
    # after either kind of first mark and O's reply from the book, every second move
    # of X is answered
    for first in (0, 1):
        reply = book_move(_after_x(first))
        assert reply is not None
        after_reply = _after_x(first).play(reply.move)
        for cell in after_reply.legal_moves:
            second = after_reply.play(cell)
            booked = book_move(second)
            assert booked is not None and booked.move in second.legal_moves


def test_a_damaged_or_ill_formed_book_is_refused() -> None:
    book = OBook("4x4x4")
    book.add(_after_x(0), 21, games=6, score=4.5)
    assert OBook.from_bytes(book.to_bytes()).entries == book.entries
    assert book.to_bytes() == OBook.from_bytes(book.to_bytes()).to_bytes()  # deterministic
    record = json.loads(gzip.decompress(book.to_bytes()))
    record["entries"][0][2] = 0  # the reply on X's own mark
    with pytest.raises(NoughtsError, match="no O-to-move position"):
        OBook.from_bytes(gzip.compress(json.dumps(record).encode()))
    record["entries"][0][:3] = [1, 2, 3]  # X to move, not O
    with pytest.raises(NoughtsError, match="no O-to-move position"):
        OBook.from_bytes(gzip.compress(json.dumps(record).encode()))
    with pytest.raises(NoughtsError, match="format"):
        OBook.from_bytes(gzip.compress(b'{"format": 99}'))
    with pytest.raises(NoughtsError, match="damaged"):
        OBook.from_bytes(book.to_bytes()[:-4])


def test_a_book_answers_what_is_added_after_a_lookup() -> None:
    book = OBook("4x4x4")  # as the builder's book grows while it is consulted
    first = _after_x(0)
    assert book.lookup(first) is None
    book.add(first, 42, games=2, score=1.0)
    deeper = first.play(42).play(1)
    assert book.lookup(deeper) is None  # more marks than any entry: skipped
    book.add(deeper, 3, games=2, score=1.0)
    found = book.lookup(deeper)
    assert found is not None and found.move == 3


def test_a_position_is_found_in_every_orientation() -> None:
    book = OBook("4x4x4")
    position = _after_x(0).play(21).play(1)
    book.add(position, 2, games=4, score=3.0)
    group = position.geometry.symmetry_group
    for symmetry in (0, 5, 77, 191):
        perm = group.perms[symmetry]
        image = Position.from_bitboards(group.transform(position.x, symmetry),
                                        group.transform(position.o, symmetry), "qubic")
        found = book.lookup(image)
        assert found is not None and found.move == perm[2] and found.games == 4
    assert book.lookup(_after_x(0).play(22).play(1)) is None


def test_the_engine_answers_o_from_the_book_and_says_so(built_book: OBook) -> None:
    position = _after_x(5)  # a cell of the second kind, in an orientation of its own
    booked = book_move(position)
    assert booked is not None
    choice = choose_move(position, nodes=50_000)
    assert choice.move == booked.move  # after the book check and the threat search's few
    assert choice.nodes <= BOOK_CHECK_NODES * PROOF_NODE_COST + 500
    assert choice.note.startswith("From O's opening book") and choice.method == "anytime"
    assert choice.outcome is None  # X left the strategy's first move: nothing is proven
    corner = choose_move(_after_x(63), nodes=50_000)  # the strategy's own first move
    assert corner.note.startswith("From O's opening book")
    assert corner.outcome == "loss"  # the strategy still proves the reply lost
    record = choice.to_record()
    assert record["note"] == choice.note and MoveChoice.from_record(record, position.game) == choice
    assert NO_BOOK.o_book_for(position) is None
    assert choose_move(position, nodes=20_000, knowledge=NO_BOOK).note != choice.note


def test_a_book_move_that_leaves_x_a_forced_win_is_not_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    position = _fork_on_2(o_marks=(12, 47, 60))  # (O has no forced win of its own here)
    book = OBook("4x4x4")
    book.add(position, 63, games=12, score=12.0)  # games that never found X's win
    monkeypatch.setattr(shipped_module, "shipped_o_book", lambda name: book)
    assert book_move(position) is not None
    choice = choose_move(position, nodes=100_000)
    assert choice.move != 63 and not choice.note.startswith("From O's opening book")
    book.add(position, 2, games=12, score=12.0)  # a sound book move is played
    assert choose_move(position, nodes=100_000).note.startswith("From O's opening book")


def _fork_on_2(o_marks: tuple[int, ...] = (12, 15, 60)) -> Position:
    """X has two lines of two crossing on cell 2 (0, 1 and 6, 10): O must take it."""
    return Position.from_bitboards(sum(1 << c for c in (0, 1, 6, 10)),
                                   sum(1 << c for c in o_marks), "qubic")


def test_a_book_move_chosen_by_proof_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    position = _fork_on_2(o_marks=(12, 47, 60))  # (O has no forced win of its own here)
    book = OBook("4x4x4")
    book.add(position, 2, games=0, score=0.0)  # no games: chosen by a proof search
    monkeypatch.setattr(shipped_module, "shipped_o_book", lambda name: book)
    choice = choose_move(position, nodes=100_000)
    assert choice.move == 2
    assert choice.note == ("From O's opening book: a reply after which a deep proof "
                           "search, run offline, found no forced win for X.")


def test_the_deep_check_keeps_the_first_reply_no_proof_refutes() -> None:
    settings = argparse.Namespace(check=100_000, max_checks=64, o_nodes=20_000,
                                  own_nodes=20_000, lost_checks=0)
    record = deepen.decide(_fork_on_2(), 63, settings)  # the book's move loses
    move = record["move"]
    assert record["book"] == 63 and move in {2, 3, 14}  # one of the fork's lines blocked
    *refuted, last = record["checks"]
    assert refuted[0][0] == 63  # the book's move is checked first
    assert all(plies > 0 and positions > 0 for _, plies, positions in refuted)
    assert last == [move, None, 0]  # the first candidate with no win of X's found
    sound = deepen.decide(_fork_on_2(), 2, settings)  # the book's move stands: kept
    assert sound["move"] == 2 and sound["checks"] == [[2, None, 0]]
    settings.max_checks = 1  # every candidate checked is refuted: the hardest to refute
    assert deepen.decide(_fork_on_2(), 63, settings)["move"] == 63
    settings.lost_checks = 64  # then the rest are checked: a way out is kept
    escaped = deepen.decide(_fork_on_2(), 63, settings)
    assert escaped["checks"] == refuted[:1] and escaped["move"] in {2, 3, 14}
    assert escaped["more_checks"][-1] == [escaped["move"], None, 0]
    assert escaped["lost_checks"] == 64 and not deepen.lost(escaped)
    assert deepen.chosen(escaped, 500_000) == escaped["move"]
    deep = {**escaped, "checks": [[63, 9, 600_000]]}  # kept over a deep refutation too
    assert deepen.chosen(deep, 500_000) == escaped["move"]
    settings.lost_checks = 0
    # entries after a replaced move are dropped: no line of the book reaches them
    book = OBook("4x4x4")
    book.add(_after_x(0), 42, games=1, score=1.0)
    book.add(_after_x(0).play(42).play(1), 2, games=1, score=1.0)  # after the reply: kept
    book.add(_after_x(0).play(63).play(1), 2, games=1, score=1.0)  # after another reply
    assert deepen.drop_unreachable(book) == 1 and len(book) == 2
    assert book.lookup(_after_x(0).play(42).play(1)) is not None
    # no book move: the engine's own move comes first; it stands, so nothing is stored
    settings.max_checks = 64
    unbooked = deepen.decide(_fork_on_2(), None, settings)
    assert unbooked["own"] in {2, 3, 14} and unbooked["move"] is None
    assert unbooked["checks"] == [[unbooked["own"], None, 0]]
    # checks made before are reused (here, a made-up refutation of the engine's move)
    known = [[unbooked["own"], 9, 1234]]
    again = deepen.decide(_fork_on_2(), None, settings, known)
    assert again["checks"][0] == [unbooked["own"], 9, 1234] and again["move"] is not None


def test_the_deep_checks_lines_play_the_book_then_the_decisions() -> None:
    spec = "level:10:no-strategy@500"
    settings = argparse.Namespace(line_players=spec, line_cells=[0], line_plies=6,
                                  from_marks=3, replace_within=500_000, line_branch=1,
                                  line_branch_from=6, lost_games=0, lost_checks=0)
    book = OBook("4x4x4")
    book.add(_after_x(0), 42, games=1, score=1.0)  # O's first move: the book's
    x_moves = {deepen.x_key(spec, _after_x(0).play(42)): 5}
    lines = deepen.Lines(book, {}, x_moves, settings)
    assert lines.games == [(spec, 0)]
    waiting = _after_x(0).play(42).play(5)
    walk = lines.walk()  # O's second move: undecided
    assert list(walk.o_positions) == [deepen.key_text(waiting)] and walk.met == []
    _, stored = book.to_canonical(waiting, 2)  # decided (in the canonical form): 2 stands
    lines.decisions[deepen.key_text(waiting)] = {
        "move": None, "book": None, "own": stored, "checks": [[stored, None, 0]]}
    assert lines.o_move(waiting) == 2
    walk = lines.walk()
    assert list(walk.x_moves) == [deepen.x_key(spec, waiting.play(2))]
    assert walk.met == [waiting] and not walk.o_positions
    x_moves[deepen.x_key(spec, waiting.play(2))] = 10  # X: 0, 5, 10 on a diagonal
    assert deepen.forced_move(waiting.play(2).play(10)) == 15
    walk = lines.walk()  # O's block is played, not decided: the line ends at ply 6
    assert walk == deepen.Walk({}, {}, {}, [waiting])
    # branching from ply 4: X's likeliest other move (ranked in the canonical form) too
    settings.line_branch, settings.line_branch_from = 2, 4
    walk = lines.walk()
    assert list(walk.x_ranks) == [deepen.key_text(waiting.play(2))] and not walk.x_moves
    _, likely = book.to_canonical(waiting.play(2), 63)
    lines.x_ranks[deepen.key_text(waiting.play(2))] = [likely]
    walk = lines.walk()  # after 63, O's third move waits for its decision
    assert list(walk.o_positions) == [deepen.key_text(waiting.play(2).play(63))]
    assert deepen.chosen({"move": 7, "book": None, "own": 2, "checks": [[2, 9, 600_000]]},
                         500_000) == 2  # refuted only by a deep proof: the first stays
    with pytest.raises(SystemExit, match="--line-players: level:10:no-strategy@100000 is "
                                         "in the family"):  # the book is measured on it
        deepen.main(["--line-players", "level:10:no-strategy@100000"])


def test_where_every_reply_is_lost_games_rank_the_hardest_to_refute(tmp_path: Path) -> None:
    checkpoint = Checkpoint(tmp_path / "g.json")
    builder = builder_module.Builder(builder_module.parser().parse_args([
        "--x-players", "level:10:no-strategy@500", "--o-nodes", "2000", "--games", "1",
        "--deep-games", "1", "--finalists", "2"]), checkpoint, "lost")
    position = _fork_on_2()  # made-up checks: 63 (the book's), 5 and 9 all refuted
    record = {"book": 63, "own": None, "move": 5,
              "checks": [[63, 7, 10], [9, 5, 300], [5, 7, 900]]}
    assert deepen.lost(record) and deepen.chosen(record, 500_000) == 5
    record["games"] = deepen.by_games(builder, position, record, 2)
    assert record["games"]["candidates"] == [63, 5]  # the book's, then the hardest
    assert deepen.chosen(record, 500_000, games=True) == record["games"]["move"] in {63, 5}
    assert deepen.chosen(record, 500_000) == 5  # without --lost-games: the checks' move
    assert len(builder.games) == 4  # two rounds of a game each, both candidates
    assert Checkpoint(tmp_path / "g.json").part("lost")["games"] == builder.games  # saved
    assert deepen.games_current(position, record, 2)
    assert not deepen.games_current(position, record, 3)  # 9 too: ranked again
    again = deepen.by_games(builder, position, record, 3)
    assert again["candidates"] == [63, 5, 9]
    assert deepen.games_current(position, {**record, "games": again}, 3)
    assert not deepen.games_current(position, {**record, "games": again}, 3, 2.0)
    builder.args.margin = 2.0  # ranked by the margin's rule: recorded, and current then
    by_margin = deepen.by_games(builder, position, record, 3)
    assert by_margin["margin"] == 2.0 and by_margin["games"] in (2, 4)
    assert deepen.games_current(position, {**record, "games": by_margin}, 3, 2.0)
    assert deepen.stored_games(record, True) == (2, record["games"]["score"])  # stored so
    assert not deepen.lost({"checks": [[63, 7, 10], [2, None, 0]]})


def test_replay_others_plays_again_a_game_recorded_against_another_x(tmp_path: Path) -> None:
    def builder(*extra: str) -> builder_module.Builder:
        return builder_module.Builder(builder_module.parser().parse_args([
            "--x-players", "level:10:no-strategy@500,level:10:no-strategy@700",
            "--o-nodes", "2000", *extra]), Checkpoint(tmp_path / "r.json"))

    after = _fork_on_2().play(2)  # X to move
    recalled = builder()
    name = builder_module.game_name(after, 1)  # game 1 is the second player's
    recalled.games[name] = {"points": 1.0, "x": "seed-qubic:3:aggressive", "symmetry": 0,
                            "plies": 30, "seconds": 0.1}
    assert recalled.game(after, 1) == 1.0  # by default recalled, whoever played X
    replaying = builder("--replay-others")
    replaying.games[name] = dict(recalled.games[name])
    replaying.game(after, 1)
    assert replaying.games[name]["x"] == "level:10:no-strategy@700"  # played again
    assert replaying.recorded(name, 1)


def test_the_book_serves_o_only(built_book: OBook) -> None:
    assert book_move(Position("", "qubic")) is None
    assert book_move(Position("", "qubic", first="O").play(0)) is None


def test_every_reply_lost_o_says_it_plays_the_hardest_to_refute() -> None:
    # without the book, the strategy proves every reply lost
    choice = choose_move(_after_x(0), nodes=60_000, knowledge=NO_BOOK)
    assert choice.outcome == "loss"
    assert choice.note.startswith("Every move is proven lost (the shipped strategy wins")
    assert "hardest to refute" in choice.note or "best try" in choice.note


def test_the_cli_prints_where_the_move_came_from(
    built_book: OBook, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    board = "|".join(["X..." + "." * 12] + ["." * 16] * 3)
    assert main(["move", board, "--nodes", "20000"]) == 0
    out = capsys.readouterr().out
    assert "From O's opening book" in out
    assert main(["move", board, "--nodes", "20000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["note"].startswith("From O's opening book")
    monkeypatch.setattr(shipped_module, "shipped_o_book", lambda name: None)
    assert main(["move", board, "--nodes", "60000"]) == 0  # no book: every reply is lost
    # (the note says which and why)
    assert "Every move is proven lost" in capsys.readouterr().out
