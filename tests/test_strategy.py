"""Stored strategies: the file, lookups in any orientation, the builder, the verifier,
the shipped Qubic strategy, and the commands around them."""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import noughts.knowledge.shipped as shipped_module
from noughts.builders.proof_tree import ProofTree
from noughts.builders.strategy_build import BuildReport, build_strategy, checkpoint_path
from noughts.builders.strategy_check import check_entries, verify_strategy
from noughts.cli import main
from noughts.engine import choose_move, evaluate_moves
from noughts.errors import NoughtsError
from noughts.knowledge.shipped import Knowledge
from noughts.knowledge.strategy import Strategy, proven_replies, shipped_strategy, strategy_move
from noughts.position import Position


def test_the_file_round_trips_and_damage_is_named() -> None:
    strategy = Strategy("4x4x4")
    strategy.add(Position("", "4x4x4"), 0, proven=False, effort_ms=1234)
    assert strategy.most_marks == 0
    strategy.add(Position("X" + "." * 20 + "O" + "." * 42, "4x4x4"), 5, proven=True, plies=17)
    assert strategy.most_marks == 2  # the bound grows with the entries
    data = strategy.to_bytes()
    assert Strategy.from_bytes(data).entries == strategy.entries
    with pytest.raises(NoughtsError, match="not a noughts strategy"):
        Strategy.from_bytes(b"garbage")
    with pytest.raises(NoughtsError, match="damaged"):
        Strategy.from_bytes(data[:-5])


def test_a_position_is_found_in_every_orientation() -> None:
    geometry = Position("", "4x4x4").geometry
    position = Position("X" + "." * 20 + "O" + "." * 10 + "X" + "." * 31, "4x4x4")
    strategy = Strategy("4x4x4")
    strategy.add(position, 63, proven=True, plies=3)
    rng = random.Random(2)
    for symmetry in rng.sample(range(len(geometry.symmetries)), 20):
        image = position.transform(symmetry)
        found = strategy.lookup(image)
        assert found is not None and found.proven and found.plies == 3
        assert found.move == geometry.symmetries[symmetry][63]
        group = geometry.symmetry_group
        assert group.canonical(image.x, image.o)[:2] == group.canonical(position.x, position.o)[:2]


@pytest.mark.parametrize("variant", ["4x4k3", "3x3x3"])
def test_the_builder_proves_small_first_player_wins(tmp_path: Path, variant: str) -> None:
    path = tmp_path / "strategy.bin"
    report = build_strategy(path, variant, seconds=60, job_seconds=5, opening=None)
    assert report.complete
    strategy = Strategy.load(path)
    verified = verify_strategy(strategy)
    assert verified.ok, verified.failures
    assert verified.root_proven and verified.unsolved == 0 and verified.open_entries == 0


def test_the_builder_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "qubic.bin"
    first = build_strategy(path, "4x4x4", seconds=3, job_seconds=1)
    assert checkpoint_path(path).is_file() and first.jobs >= 1
    stored = Strategy.load(path)
    assert stored.lookup(Position("", "4x4x4")) is not None  # the opening is kept
    tree = ProofTree.load(checkpoint_path(path))
    assert tree.counts() == first.tree
    again = build_strategy(path, "4x4x4", seconds=2, job_seconds=1)
    assert again.tree["nodes"] >= first.tree["nodes"]  # it went on from the checkpoint
    report = verify_strategy(Strategy.load(path))
    assert report.ok and not report.root_proven


def test_an_interrupted_build_saves_where_it_stands(tmp_path: Path) -> None:
    path = tmp_path / "qubic.bin"
    reports: list[BuildReport] = []

    def interrupt(report: BuildReport) -> None:  # Ctrl-C once the first job is in
        reports.append(report)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build_strategy(path, "4x4x4", seconds=60, job_seconds=1, progress=interrupt)
    assert len(reports) == 1 and reports[0].jobs == 1
    tree = ProofTree.load(checkpoint_path(path))
    assert tree.counts() == reports[0].tree  # the first job's expansion was saved
    assert Strategy.load(path).lookup(Position("", "4x4x4")) is not None


def test_a_terminated_build_command_saves_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "qubic.bin"
    command = [sys.executable, "-m", "noughts", "build-book", "qubic", "--file", str(path),
               "--time", "120", "--job-seconds", "1"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as build:
        assert build.stdout is not None and build.stderr is not None
        first = build.stdout.readline()  # one log line a job (no terminal)
        assert " 1 jobs · root proof number " in first, first
        build.send_signal(signal.SIGTERM)
        status = build.wait(timeout=60)
        err = build.stderr.read()
    assert status == 130 and err == "noughts: interrupted\n"
    assert ProofTree.load(checkpoint_path(path)).counts()["nodes"] > 2  # the job's moves


def test_the_shipped_strategy_passes_a_sample_check() -> None:
    strategy = shipped_strategy()
    assert strategy is not None, "the package ships a Qubic strategy"
    assert any(entry.proven for entry in strategy.entries.values())
    report = check_entries(strategy, 40, seed=1)
    assert report.ok, report.failures


def test_the_engine_answers_a_stored_proven_position_from_the_strategy() -> None:
    strategy = shipped_strategy()
    assert strategy is not None
    rng = random.Random(4)
    proven = [key for key, entry in strategy.entries.items() if entry.proven]
    for x, o in rng.sample(proven, min(5, len(proven))):
        position = Position.from_bitboards(x, o, "4x4x4")
        image = position.transform(rng.randrange(192))
        stored = strategy_move(image, strategy)
        assert stored is not None
        result = choose_move(image, time_limit=0.5)
        assert result.move == stored.move
        assert result.proven and result.outcome == "win" and result.plies == stored.plies


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_prove_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "prove", "XX./OO./...", "--json")
    assert status == 0
    record = json.loads(out)
    assert record["status"] == "win" and record["move"] == 2 and record["proven"] is True
    assert record["square"] == "c3"  # cell 2: the top row's right cell
    assert {"proof_size", "plies", "nodes", "elapsed_ms", "variant", "board"} <= set(record)


def test_prove_names_the_move_as_everywhere_else(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "prove", "XX./OO./...")
    assert status == 0
    assert "X wins by force" in out and "X plays c3 (cell 2)" in out


@pytest.mark.parametrize("args", [
    ["prove", "", "-v", "qubic", "--time", "nan"],
    ["prove", "", "-v", "qubic", "--time", "-1"],
    ["prove", "", "-v", "qubic", "--nodes", "0"],
    ["prove", "XXX/OO./..."],
    ["verify-book", "3x3"],
    ["verify-book", "qubic", "--file", "/nonexistent/strategy.bin"],
    ["build-book", "4x4", "--time", "30"],
    ["build-book", "qubic", "--cluster", "nowhere", "--time", "3"],
    ["build-book", "qubic", "--time", "inf"],
    ["build-book", "qubic", "--opening", "64", "--time", "3"],
    ["build-book", "qubic", "--opening", "-1", "--time", "3"],
])
def test_bad_input_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str],
                                            args: list[str]) -> None:
    status, _, err = run_cli(capsys, *args)
    assert status == 2
    assert err.startswith("noughts: error: ") and err.count("\n") == 1


def test_build_then_verify_on_the_command_line(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "q.bin"
    status, out, _ = run_cli(capsys, "build-book", "qubic", "--file", str(path),
                             "--time", "3", "--job-seconds", "1")
    assert status == 0 and path.is_file()
    assert json.loads(out.strip().splitlines()[-1])["stored"] >= 1
    status, out, _ = run_cli(capsys, "verify-book", "qubic", "--file", str(path), "--json")
    record = json.loads(out)
    assert status == 0 and record["ok"] and record["complete"] is False
    status, out, _ = run_cli(capsys, "build-book", "qubic", "--file", str(path), "--status")
    assert status == 0
    assert out.startswith("root: proof number ") and "(not proven)" in out
    assert "the defender's replies to the first move: 0 of 12 proven" in out
    assert out.count(" tree nodes, ") == 12  # one line per reply to the corner


def test_a_build_may_open_on_another_cell_and_keeps_its_tree_s_opening(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "edge.bin"  # cell 1: an edge cell, on four lines only
    status, _, _ = run_cli(capsys, "build-book", "qubic", "--file", str(path), "--opening", "1",
                           "--time", "3", "--job-seconds", "1")
    assert status == 0
    found = Strategy.load(path).lookup(Position("", "qubic"))
    assert found is not None and found.move == 1  # the tree's choice at the root
    status, out, _ = run_cli(capsys, "build-book", "qubic", "--file", str(path), "--status")
    assert status == 0 and out.count(" tree nodes, ") == 23  # reply classes to an edge cell
    status, _, err = run_cli(capsys, "build-book", "qubic", "--file", str(path), "--time", "3")
    assert status == 2 and err.count("\n") == 1
    assert "opens on cell 1, not 0" in err


def test_build_status_without_a_build_is_one_line(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_cli(capsys, "build-book", "qubic", "--file", str(tmp_path / "q.bin"),
                             "--status")
    assert status == 2
    assert err == f"noughts: error: no proof tree checkpoint at {tmp_path / 'q-tree.ckpt'}: " \
                  "no build has run yet\n"
    (tmp_path / "q-tree.ckpt").write_bytes(b"not a checkpoint")
    status, _, err = run_cli(capsys, "build-book", "qubic", "--file", str(tmp_path / "q.bin"),
                             "--status")
    assert status == 2
    assert err.startswith("noughts: error: damaged proof tree checkpoint") and err.count("\n") == 1


def test_the_analysis_shows_the_strategys_winning_moves_as_proven_wins() -> None:
    strategy = shipped_strategy()
    assert strategy is not None
    rng = random.Random(6)
    proven = [key for key, entry in strategy.entries.items() if entry.proven]
    for x, o in rng.sample(proven, 3):
        position = Position.from_bitboards(x, o, "4x4x4").transform(rng.randrange(192))
        stored = strategy_move(position, strategy)
        assert stored is not None
        values = {e.move: e for e in evaluate_moves(position, nodes=5_000)}
        wins = {m for m, e in values.items() if e.outcome == "win"}
        assert stored.move in wins and values[stored.move].plies == stored.plies
        # every other proven win is the stored move seen through a symmetry (or wins at once)
        target = strategy.key(position.play(stored.move))[0]
        for move in wins - {stored.move}:
            assert (strategy.key(position.play(move))[0] == target
                    or position.play(move).winner == position.to_move)


def test_the_defender_leaves_out_the_replies_a_strategy_wins(
        monkeypatch: pytest.MonkeyPatch) -> None:
    position = Position("X" + "." * 20 + "O" + "." * 10 + "X" + "." * 31, "4x4x4")
    book = Strategy("4x4x4")
    favourites = [e.move for e in sorted(evaluate_moves(position, nodes=20_000),
                                         key=lambda e: -(e.score or 0))[:3]]
    for move in favourites:  # a made-up strategy proving the search's favourites lost
        after = position.play(move)
        book.add(after, next(iter(after.legal_moves)), proven=True, plies=20)
    monkeypatch.setattr(shipped_module, "shipped_strategy", lambda: book)
    lost = proven_replies(position, book)
    assert set(lost) >= set(favourites) and set(lost.values()) == {21}
    choice = choose_move(position, nodes=200_000)
    assert choice.move not in lost and not choice.proven
    values = {e.move: e for e in evaluate_moves(position, nodes=20_000)}
    assert all((values[m].outcome, values[m].plies) == ("loss", 21) for m in lost)


def test_against_the_shipped_strategy_every_reply_to_the_corner_is_a_proven_loss() -> None:
    corner = Position("", "4x4x4").play(0)
    lost = proven_replies(corner, shipped_strategy())
    assert len(lost) == len(corner.legal_moves)  # the strategy is whole: every reply loses
    for move, plies in lost.items():
        found = strategy_move(corner.play(move), shipped_strategy())
        assert found is not None and found.proven and plies == 1 + found.plies
    choice = choose_move(corner, nodes=200_000)
    assert (choice.proven, choice.outcome, choice.plies) == (True, "loss", lost[choice.move])
    assert choice.value is not None and not choice.value.plies_exact  # the strategy's bound


def test_proven_replies_are_the_replies_whose_positions_the_strategy_proves() -> None:
    # proven_replies keys the positions after the replies from their shared images; it
    # must say what playing each reply and looking it up says, on positions of games
    # where X mostly follows the strategy and O plays at random.
    strategy, rng, checked = shipped_strategy(), random.Random(11), 0
    for _ in range(12):
        position = Position("", "qubic")
        while not position.is_over:
            found = strategy_move(position, strategy) if position.to_move == "X" else None
            move = (found.move if found is not None and rng.random() < 0.9
                    else rng.choice(list(position.legal_moves)))
            position = position.play(move)
            if position.to_move != "O" or position.is_over:
                continue
            expected = {}
            for reply in position.legal_moves:
                after = position.play(reply)
                proven = None if after.is_over else strategy_move(after, strategy)
                if proven is not None:
                    expected[reply] = 1 + proven.plies
            assert proven_replies(position, strategy) == expected, position.board
            checked += bool(expected)
    assert checked >= 12  # positions where some reply is proven lost were among them


def test_a_defender_with_every_reply_proven_lost_plays_its_best_try_as_a_proven_loss(
        monkeypatch: pytest.MonkeyPatch) -> None:
    position = Position("X" + "." * 20 + "O" + "." * 10 + "X" + "." * 31, "4x4x4")
    book = Strategy("4x4x4")
    for move in position.legal_moves:  # a made-up strategy: every reply proven lost
        book.add(position.play(move), next(iter(position.play(move).legal_moves)),
                 proven=True, plies=30 + (move == 40))
    monkeypatch.setattr(shipped_module, "shipped_strategy", lambda: book)
    lost = proven_replies(position, book)
    assert len(lost) == len(position.legal_moves)
    # (O's book answers this opening; the search is tested here)
    choice = choose_move(position, nodes=50_000, knowledge=Knowledge(o_book=False))
    # the search picks the move (the best try against a fallible opponent), the strategy
    # gives the value: a proven loss within that reply's bound
    assert choice.nodes > 0 and choice.depth is not None and choice.depth >= 1
    assert (choice.proven, choice.outcome, choice.plies) == (True, "loss", lost[choice.move])


def test_a_build_with_nothing_to_do_changes_no_file(tmp_path: Path) -> None:
    """The shipped strategy is whole: a build runs no job and leaves both files as they
    were, bytes and modification times."""
    root = Path(__file__).resolve().parent.parent
    path = tmp_path / "qubic-strategy.bin"
    shutil.copyfile(root / "src" / "noughts" / "data" / "qubic-strategy.bin", path)
    shutil.copyfile(root / "checkpoints" / "qubic-strategy-tree.ckpt", checkpoint_path(path))
    files = [path, checkpoint_path(path)]
    before = [(file.read_bytes(), file.stat().st_mtime_ns) for file in files]
    report = build_strategy(path, "4x4x4", seconds=5, job_seconds=5)
    assert report.jobs == 0 and report.complete
    assert [(file.read_bytes(), file.stat().st_mtime_ns) for file in files] == before
