"""The O book's build: its checkpoint, and the shipped book rebuilt byte for byte from
the records kept in git by the three commands its builders' docstrings give."""

from __future__ import annotations

import gzip
import shlex
from pathlib import Path
from typing import NoReturn

import pytest

import noughts.builders.o_book as builder
import noughts.builders.o_book_ahead as ahead
import noughts.builders.o_book_cleared as cleared
import noughts.builders.o_book_deepen as deepen
import noughts.builders.o_book_sweep as sweep
from noughts.builders.checkpoint import Checkpoint
from noughts.errors import NoughtsError
from noughts.knowledge.obook import OBook
from noughts.orientation import Orientation
from noughts.position import Position

ROOT = Path(__file__).resolve().parent.parent
RECORDS = ROOT / "checkpoints" / "qubic-o-book-build.json.gz"
SHIPPED = ROOT / "src" / "noughts" / "data" / "qubic-o-book.json.gz"


def _command(docstring: str | None, script: str) -> list[str]:
    """The arguments of the command for ``script`` in a builder's docstring."""
    assert docstring is not None
    text = docstring.replace("\\\n", "")  # the shell's line continuations
    line = next(line for line in text.splitlines() if f"python {script}" in line)
    words = shlex.split(line)
    return words[words.index(script) + 1:]


def _no_search(*args: object, **kwargs: object) -> NoReturn:
    raise AssertionError("the rebuild ran a search: a record is missing")


def test_the_shipped_book_rebuilds_byte_for_byte_from_the_kept_records(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # every game, check, ranking and decision is recalled: no search, no game is played
    # (the engine's entry points by their names before and after the one-plan engine)
    searches = ("anytime_evaluate", "anytime_move", "choose_move", "evaluate_moves",
                "find_win", "member_player", "play_game", "ProofDefence")
    for module in (builder, deepen):
        found = [name for name in searches if hasattr(module, name)]
        assert len(found) >= 3, f"{module.__name__} plays through other names: {found}"
        for name in found:
            monkeypatch.setattr(module, name, _no_search)
    for module in (sweep, cleared, ahead):  # the look ahead and O's order
        for name in ("killing_reply", "ranked"):
            monkeypatch.setattr(module, name, _no_search)
    records = tmp_path / "records.json.gz"
    records.write_bytes(RECORDS.read_bytes())
    built, shipped = tmp_path / "built.json.gz", tmp_path / "shipped.json.gz"
    build = _command(builder.__doc__, "scripts/build_o_book.py")
    assert builder.main([*build, "--checkpoint", str(records), "--out", str(built)]) == 0
    deep = _command(deepen.__doc__, "scripts/deepen_o_book.py")
    deepened = tmp_path / "deepened.json.gz"
    assert deepen.main([*deep, "--checkpoint", str(records), "--book", str(built),
                        "--out", str(deepened)]) == 0
    swept = _command(sweep.__doc__, "scripts/sweep_o_book.py")
    assert sweep.main([*swept, "--checkpoint", str(records), "--book", str(deepened),
                       "--out", str(shipped)]) == 0
    assert shipped.read_bytes() == SHIPPED.read_bytes()
    assert records.read_bytes() == RECORDS.read_bytes()  # nothing new was recorded


def test_a_checkpoint_keeps_its_parts_and_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    plain = Checkpoint(tmp_path / "plain.json")
    plain.part("build")["games"] = {"a/0": {"points": 0.5}}
    plain.part("deep")
    plain.save()
    assert b'"format": 1' in plain.path.read_bytes()  # not compressed: its name says so
    again = Checkpoint(plain.path)
    assert again.parts == {"build": {"games": {"a/0": {"points": 0.5}}}, "deep": {}}
    packed = Checkpoint(tmp_path / "packed.json.gz")
    packed.parts = again.parts
    packed.save()
    first = packed.path.read_bytes()
    packed.save()
    assert packed.path.read_bytes() == first and gzip.decompress(first).startswith(b"{")
    (tmp_path / "bad.json.gz").write_bytes(b"not gzip")
    with pytest.raises(NoughtsError, match=r"bad\.json\.gz: damaged checkpoint"):
        Checkpoint(tmp_path / "bad.json.gz")
    (tmp_path / "old.json").write_text('{"games": {}, "checks": {}}')
    with pytest.raises(NoughtsError, match=r"old\.json: not a checkpoint of format 1"):
        Checkpoint(tmp_path / "old.json")


def test_an_extension_after_x_s_likeliest_moves_reads_them_on_canonical_images() -> None:
    # X's moves are kept on the canonical image of the position before them (two of the
    # book's lines may meet there turned): the extension maps them onto each line's board
    book = OBook.load(SHIPPED)
    before = sweep.lines_before(book, 7)
    assert before and all((p.x | p.o).bit_count() == 6 for p in before)
    likeliest: dict[str, list[int]] = {}
    for after in before:
        image = Orientation.of(after).canonical
        likeliest[builder.key_text(after)] = [min(image.legal_moves)]
    reached = sweep.extension(book, 7, likeliest)
    assert 0 < len(reached) <= len(before)
    expected = {builder.key_text(after.play(Orientation.of(after).to_original(
        likeliest[builder.key_text(after)][0]))) for after in before}
    assert {builder.key_text(p) for p in reached} <= expected
    assert all(book.lookup(p) is None and (p.x | p.o).bit_count() == 7 for p in reached)


def test_a_checkpoint_saved_at_most_so_often_keeps_the_rest_for_the_last_save(
        tmp_path: Path) -> None:
    checkpoint = Checkpoint(tmp_path / "records.json")
    checkpoint.part("build")["games"] = {"a/0": {"points": 1.0}}
    checkpoint.save(at_most_every=60.0)  # the first save is made
    checkpoint.part("build")["games"]["a/1"] = {"points": 0.0}
    checkpoint.save(at_most_every=60.0)  # a second within the minute is not
    assert list(Checkpoint(checkpoint.path).part("build")["games"]) == ["a/0"]
    checkpoint.save()
    assert list(Checkpoint(checkpoint.path).part("build")["games"]) == ["a/0", "a/1"]


def test_the_builder_keeps_a_position_s_moves_on_its_canonical_image(tmp_path: Path) -> None:
    # a position reached again turned (by another line) finds the moves found before,
    # on its own board; none of them is searched twice
    args = builder.parser().parse_args(["--checkpoint", str(tmp_path / "records.json")])
    build = builder.Builder(args, Checkpoint(tmp_path / "records.json"))
    position = Position("", "qubic").play(0).play(21).play(1)
    group = position.geometry.symmetry_group
    turned = [Position.from_bitboards(group.transform(position.x, s),
                                      group.transform(position.o, s), "qubic")
              for s in range(1, group.count)]
    found: list[Position] = []

    def find(image: Position) -> list[int]:
        found.append(image)
        return sorted(image.legal_moves)[:3]

    first = build.cached_moves("key", position, find)
    assert found == [Orientation.of(position).canonical]
    for image in turned[::17]:
        moves = build.cached_moves("key", image, find)
        assert len(found) == 1 and all(move in image.legal_moves for move in moves)
        # the same cells of the same position: each is the image of one found first
        assert sorted(builder.canonical(image.play(m)) for m in moves) == sorted(
            builder.canonical(position.play(m)) for m in first)


def test_varied_budgets_make_the_engine_s_games_from_a_position_differ(tmp_path: Path) -> None:
    players = "level:10:no-strategy@60000,threats:5000"
    args = builder.parser().parse_args(["--checkpoint", str(tmp_path / "records.json"),
                                        "--x-players", players, "--vary-budgets"])
    build = builder.Builder(args, Checkpoint(tmp_path / "records.json"))
    after = Position("", "qubic").play(0).play(42)
    names = [builder.game_name(after, index) for index in range(20)]
    engine = {build.x_against(names[index], index) for index in range(0, 20, 2)}
    assert len(engine) == 10 and all(48_000 <= int(spec.split("@")[1]) <= 75_000
                                     for spec in engine)
    assert build.x_against(builder.game_name(after, 1), 1) == "threats:5000"
    build.games[names[0]] = {"x": "level:10:no-strategy@60000", "points": 1.0}
    args.replay_others = True  # a game against the unscaled player is played again
    assert not build.recorded(names[0], 0)
    build.games[names[0]]["x"] = build.x_against(names[0], 0)
    assert build.recorded(names[0], 0)
    with pytest.raises(SystemExit, match="scaled reaches level:10:no-strategy@40000"):
        builder.Builder(builder.parser().parse_args([
            "--checkpoint", str(tmp_path / "records.json"), "--vary-budgets",
            "--x-players", "level:10:no-strategy@50000"]), Checkpoint(tmp_path / "r.json"))
