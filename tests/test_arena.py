"""The arena: repeatable games, broken players lose with the reason, nothing hangs."""

from __future__ import annotations

import json
import re
import sys
import textwrap
import time
from pathlib import Path

import pytest

from noughts.arena.match import make_tasks, run_arena, run_match
from noughts.cli import main
from noughts.errors import NoughtsError
from noughts.players.game import Failure
from noughts.position import Position


class IllegalPlayer:
    name = "illegal"

    def move(self, position: Position) -> int:
        return next(iter(scan_occupied(position)), 99)


def scan_occupied(position: Position) -> list[int]:
    return [cell for cell in range(position.geometry.cells) if position.occupied >> cell & 1]


class NonsensePlayer:
    name = "nonsense"

    def move(self, position: Position) -> object:
        return "the centre"


class RaisingPlayer:
    name = "raiser"

    def move(self, position: Position) -> int:
        raise RuntimeError("my evaluation blew up")


class SlowPlayer:
    name = "slow"

    def move(self, position: Position) -> int:
        time.sleep(0.3)
        return next(iter(position.legal_moves))


class ExitingPlayer:
    name = "exiter"

    def move(self, position: Position) -> int:
        sys.exit(3)


class HangingPlayer:
    name = "hanger"

    def move(self, position: Position) -> int:
        time.sleep(3600)
        return 0


def test_same_seed_same_games() -> None:
    options = {"variant": "3x3", "games": 12, "seed": 11, "openings": 1, "workers": 2}
    first = run_match("level:4", "level:2", **options)
    second = run_match("level:4", "level:2", **options)
    in_process = run_match("level:4", "level:2", **{**options, "workers": 0})
    moves = [r.moves for r in first.records]
    assert moves == [r.moves for r in second.records] == [r.moves for r in in_process.records]
    other_seed = run_match("level:4", "level:2", **{**options, "seed": 12})
    assert moves != [r.moves for r in other_seed.records]


def test_colours_alternate_and_couples_share_openings() -> None:
    tasks = make_tasks(2, 6, seed=3, openings=2, geometry_name="3x3")
    assert [t.x for t in tasks] == [0, 1, 0, 1, 0, 1]
    assert tasks[0].opening == tasks[1].opening and len(tasks[0].opening) == 2
    assert tasks[0].opening != tasks[2].opening or tasks[2].opening != tasks[4].opening


@pytest.mark.parametrize(
    ("player", "reason", "failure"),
    [
        (IllegalPlayer(), "played an illegal move: cell", Failure.ILLEGAL),
        (NonsensePlayer(), "a move is a cell index, not 'the centre'", Failure.ILLEGAL),
        (RaisingPlayer(), "raised RuntimeError: my evaluation blew up", Failure.RAISED),
        (SlowPlayer(), "overran its time: 0.3", Failure.OVERRAN),
    ],
)
@pytest.mark.parametrize("workers", [0, 1])
def test_broken_players_lose_with_the_reason(
    player: object, reason: str, failure: Failure, workers: int
) -> None:
    result = run_arena(
        [player, "random"], variant="3x3", games=2, seed=1, workers=workers, move_limit=0.2
    )
    for record in result.records:
        loser = "X" if record.result == "O" else "O"
        assert record.players[loser] == player.name  # type: ignore[attr-defined]
        assert reason in record.reason and record.failure is failure
        assert record.to_json()["failure"] == failure.value
    assert result.stats.losses == 2
    assert sum(result.pairs[0].failures.values()) == 2


def test_a_hanging_player_is_killed_and_loses() -> None:
    started = time.monotonic()
    result = run_arena(
        [HangingPlayer(), "random"],  # an instant opponent: only the hanger can be silent
        variant="3x3",
        games=2,
        workers=2,
        move_limit=0.5,
        kill_grace=1.0,
    )
    assert time.monotonic() - started < 15
    assert [r.result for r in result.records] == ["O", "X"]
    assert all("hanger" in r.players.values() and "was killed" in r.reason for r in result.records)
    assert all(r.failure is Failure.KILLED for r in result.records)


@pytest.mark.parametrize("workers", [0, 2])
def test_a_player_calling_sys_exit_loses_and_the_arena_reports(workers: int) -> None:
    result = run_arena([ExitingPlayer(), "random"], variant="3x3", games=2, workers=workers)
    assert [r.result for r in result.records] == ["O", "X"]
    expected = "tried to end the process" if workers == 0 else "worker process died"
    assert all(expected in r.reason for r in result.records), [r.reason for r in result.records]
    assert result.stats.losses == 2


def test_a_hanging_player_in_process_loses_and_the_arena_goes_on() -> None:
    started = time.monotonic()
    result = run_arena(
        [HangingPlayer(), "random"], variant="3x3", games=2, workers=0, move_limit=0.3
    )
    assert time.monotonic() - started < 10
    for record in result.records:
        assert record.failure is Failure.OVERRAN and "no move within" in record.reason


BROKEN_MODULE = textwrap.dedent(
    """
    raise RuntimeError("this module is broken")
    """
)


def test_a_player_module_that_fails_to_import_loses_every_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "broken_players.py").write_text(BROKEN_MODULE)
    (tmp_path / "markup_players.py").write_text(
        "from noughts.players.protocol import RandomPlayer\n"
        "def keyboard(seed=None):\n    return RandomPlayer(seed)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    out_json = tmp_path / "arena.json"
    status = main(["arena", "broken_players:make", "markup_players:keyboard", "--games", "2",
                   "--workers", "0", "--quiet", "--json", str(out_json)])
    assert status == 0
    report = json.loads(out_json.read_text())
    assert report["failures"] == {"broken_players:make: could not start": 2}
    assert report["as_first"]["losses"] + report["as_second"]["losses"] == 2
    out = capsys.readouterr().out
    assert "markup_players:keyboard" in out and "⌨" not in out  # the name, not an emoji


def test_output_paths_are_checked_before_any_game(capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    status = main(["arena", "level:10", "level:10", "--games", "1000", "--quiet",
                   "--games-out", "/nonexistent/dir/games.jsonl"])
    assert status == 2 and time.monotonic() - started < 5
    assert "no such directory" in capsys.readouterr().err


def test_level_ten_never_loses_to_random() -> None:
    result = run_match("level:10", "random", variant="3x3", games=60, seed=5, workers=2)
    assert result.stats.losses == 0 and result.stats.wins >= 50


def test_round_robin_elo_table() -> None:
    result = run_arena(["level:10", "random", "level:5"], games=10, seed=2, workers=2)
    assert len(result.pairs) == 3 and len(result.records) == 30
    assert result.table[0].name == "level:10" and result.table[-1].name == "random"


def test_bad_options() -> None:
    with pytest.raises(NoughtsError, match="at least two players"):
        run_arena(["random"])
    with pytest.raises(NoughtsError, match="games must be at least 1"):
        run_match("random", "random", games=0)


def test_cli_match_json_and_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary, games = tmp_path / "m.json", tmp_path / "g.jsonl"
    code = main(
        ["arena", "level:10", "random", "--games", "6", "--seed", "4", "--quiet",
         "--json", str(summary), "--games-out", str(games)]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "level:10 first (X)" in out and "Elo difference" in out
    data = json.loads(summary.read_text())
    assert data["games"] == 6 and data["losses"] == 0
    assert data["wins"] + data["draws"] == 6 and len(data["score_ci95"]) == 2
    lines = [json.loads(line) for line in games.read_text().splitlines()]
    assert [g["game"] for g in lines] == list(range(6))
    assert main(["replay", str(games), "--game", "1"]) == 0
    replay = capsys.readouterr().out
    assert re.search(r"^1\. X random plays [a-c][1-3] \(cell \d\)$", replay, re.MULTILINE)
    assert f"result: {lines[1]['result']}" in replay
    assert main(["replay", str(games), "--game", "9"]) == 2
    assert "has no game 9" in capsys.readouterr().err
