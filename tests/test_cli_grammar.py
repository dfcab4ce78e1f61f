"""One grammar on the command line: ``--variant`` on every command that takes a variant
(the positional ``VARIANT`` kept as its alias), level names wherever a level is taken, a
bounded ``tree`` on a terminal, ``solve qubic`` from the shipped proof, and the arena's
help examples that run."""

from __future__ import annotations

import argparse
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from noughts.cli import COMMANDS, _load, main
from noughts.cli.arena_commands import EXAMPLES
from noughts.knowledge.strategy import shipped_strategy, strategy_move
from noughts.position import Position

WITHOUT_VARIANT = {"serve", "replay"}
"""The commands that take no variant (a server of every variant; a file's own)."""


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - WITHOUT_VARIANT))
def test_every_command_takes_variant_as_an_option(name: str) -> None:
    parser = argparse.ArgumentParser()
    _load(name).add_arguments(name, parser)
    options = {option for action in parser._actions for option in action.option_strings}
    assert {"--variant", "-v"} <= options, name


@pytest.mark.parametrize("args", [
    ["stats", "4x4k3", "--only", "positions", "--json"],
    ["solve", "4x4k3", "--json"],
    ["tree", "2x2", "--json"],
])
def test_the_positional_variant_is_the_same_as_the_option(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, positional, _ = _run(args, capsys)
    assert status == 0
    with_option = [args[0], "--variant", *args[1:]]
    status, optional, _ = _run(with_option, capsys)
    assert status == 0
    drop = ("elapsed_ms", "nodes", "table_entries")
    first, second = json.loads(positional), json.loads(optional)
    assert {k: v for k, v in first.items() if k not in drop} == {
        k: v for k, v in second.items() if k not in drop}
    assert first["variant"] == args[1]


def test_commands_without_a_variant_take_their_default(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    status, out, _ = _run(["solve", "--json"], capsys)
    assert status == 0 and json.loads(out)["variant"] == "3x3"
    status, out, _ = _run(["verify-book", "--sample", "2", "--json"], capsys)
    assert status == 0 and json.loads(out)["ok"] is True  # qubic: the one with a book
    status, out, err = _run(["stats", "3x3", "-v", "4x4"], capsys)
    assert status == 2 and err == ("noughts: error: two variants given, 3x3 and --variant "
                                   "4x4: give one\n")


@pytest.mark.parametrize(("name", "number"), [("easy", 2), ("Medium", 5), ("hard", 8),
                                              ("impossible", 10)])
def test_level_names_work_wherever_a_level_is_taken(
    name: str, number: int, capsys: pytest.CaptureFixture[str]
) -> None:
    by_name = _run(["move", "X../.O./...", "--level", name, "--seed", "3", "--json"], capsys)
    by_number = _run(["move", "X../.O./...", "--level", str(number), "--seed", "3", "--json"],
                     capsys)
    assert by_name[0] == 0 and json.loads(by_name[1]) | {"elapsed_ms": 0} == json.loads(
        by_number[1]) | {"elapsed_ms": 0}
    from noughts.cli.play_command import parse_levels
    from noughts.players.protocol import parse_player

    assert parse_levels(name, 1) == [number]  # play --level
    assert parse_player(f"level:{name}").name == parse_player(f"level:{number}").name  # arena


def _on_a_terminal(args: list[str]) -> str:
    """What ``noughts ARGS`` prints with its stdout on a terminal (a pseudo-terminal)."""
    leader, follower = pty.openpty()
    with subprocess.Popen([sys.executable, "-m", "noughts", *args], stdout=follower,
                          stderr=subprocess.PIPE) as process:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # (the terminal's other end closed)
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(60)
    os.close(leader)
    assert process.returncode == 0
    return b"".join(chunks).decode()


def test_tree_on_a_terminal_is_a_summary_and_the_whole_is_asked_for(tmp_path: Path) -> None:
    summary = _on_a_terminal(["tree", "3x3"])
    assert len(summary) < 1000 and len(summary.splitlines()) <= 8, summary
    assert "5,478 positions, 16,167 moves" in summary and "--out FILE" in summary
    assert "X has won 626, O has won 316, drawn 16" in summary
    whole = _on_a_terminal(["tree", "--variant", "2x2", "--json"])
    assert json.loads(whole)["node_count"] == 29
    piped = subprocess.run([sys.executable, "-m", "noughts", "tree", "3x3"],
                           capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(piped.stdout)["node_count"] == 5478  # as before: scripts keep working
    target = tmp_path / "tree.json"
    written = subprocess.run([sys.executable, "-m", "noughts", "tree", "3x3", "--out",
                              str(target)], capture_output=True, text=True, timeout=60, check=True)
    assert written.stdout == "" and "5478 nodes" in written.stderr
    assert json.loads(target.read_text())["node_count"] == 5478
    assert [path.name for path in tmp_path.iterdir()] == ["tree.json"]  # no temporary left


def test_solve_qubic_answers_from_the_shipped_proof(capsys: pytest.CaptureFixture[str]) -> None:
    opening = strategy_move(Position("", "qubic"), shipped_strategy())
    assert opening is not None
    status, out, _ = _run(["solve", "qubic", "--json"], capsys)
    record = json.loads(out)
    assert status == 0 and record["outcome"] == "win"
    assert record["result"] == "first player wins" and record["move"] == opening.move
    assert record["proven_by"] == "shipped strategy" and record["plies"] == opening.plies
    assert record["checked"] > 10_000 and record["plies_exact"] is False
    status, out, _ = _run(["solve", "--variant", "qubic"], capsys)
    first, second = out.splitlines()
    assert status == 0
    assert first == (f"4x4x4: first player wins within {opening.plies} plies, opening on "
                     f"{record['square']} (cell {opening.move})")
    assert second.startswith("proven by the shipped winning strategy (")
    assert "checked now as noughts verify-book qubic checks it" in second


def test_the_arenas_help_gives_three_examples_that_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["arena", "--help"])
    shown = capsys.readouterr().out
    listed = [line.strip() for line in shown.split("examples:\n")[1].splitlines()
              if line.strip()]
    assert listed == list(EXAMPLES) and len(listed) == 3
    monkeypatch.chdir(tmp_path)
    for example in listed:
        words = example.split()
        assert words[:2] == ["noughts", "arena"]
        status, out, err = _run(words[1:], capsys)
        assert status == 0, (example, err)
        assert "score of " in out or "Elo" in out
    assert json.loads((tmp_path / "arena.json").read_text())
