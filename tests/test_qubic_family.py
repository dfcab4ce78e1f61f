"""The Qubic family's X players and the family benchmark's harness.

The threat player, the engine without its strategy, and ``bench_qubic.py --parts
family`` run on a game or two at tiny node budgets (their strength is measured in the
benchmark, not here).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bench_qubic
import qubic_family as family
from noughts.budget import Limit
from noughts.errors import NoughtsError
from noughts.knowledge.shipped import Knowledge
from noughts.knowledge.strategy import proven_replies, shipped_strategy, strategy_move
from noughts.players.protocol import LevelPlayer, parse_player
from noughts.players.reference import SeedQubicBot
from noughts.players.threats import ThreatPlayer
from noughts.position import Position
from noughts.search import defence
from noughts.search.threats import find_forced_win

# X to move; X has a forced win by successive threats in 9 plies, and the line-weight
# heuristic alone (cell 42 first) does not find it.
FORCED = "..../...O/..../....|O.../..../OXO./....|X.../.X../..../....|..X./..../O.../...X"


def _attack(player: ThreatPlayer, start: Position, plies: int) -> Position:
    """``player`` attacks from ``start`` for ``plies`` plies against a blocker (the
    seed's bot at look-ahead 0: it wins if it can, else blocks, else weighs lines)."""
    position, defender, attacker = start, SeedQubicBot(depth=0), start.to_move
    for _ in range(plies):
        if position.is_over:
            break
        mover = player if position.to_move == attacker else defender
        position = position.play(mover.choose(position))
    return position


def test_the_threat_player_plays_a_forced_win_by_successive_threats() -> None:
    start = Position(FORCED, "qubic")
    line = find_forced_win(start, nodes=20_000)
    assert line is not None and line.plies == 9
    assert _attack(ThreatPlayer(seed=2), start, line.plies).winner == "X"
    # without its threat search (1 node: it finds nothing) the same player does not win
    assert ThreatPlayer(seed=2).ranked(start)[0] != line.moves[0]
    assert _attack(ThreatPlayer(seed=2, nodes=1), start, line.plies).winner is None


def test_the_threat_player_wins_blocks_and_is_seeded() -> None:
    player = ThreatPlayer(seed=1)
    assert player.choose(Position("XX./OO./...")) == 2  # its own win first
    assert player.choose(Position("XX./O../...")) == 2  # else the block
    empty = Position("", "qubic")
    firsts = [ThreatPlayer(seed=s).choose(empty) for s in range(12)]
    assert firsts == [ThreatPlayer(seed=s).choose(empty) for s in range(12)]
    assert len(set(firsts)) > 1  # equal weights: a seeded draw among the 16 strong cells
    with pytest.raises(NoughtsError, match="positive integer"):
        ThreatPlayer(nodes=0)
    with pytest.raises(NoughtsError, match="game is over"):
        player.choose(Position("XXX/OO./..."))
    with pytest.raises(NoughtsError, match="normal games"):
        player.choose(Position("X........", "3x3-misere"))


def test_the_threat_player_is_an_arena_player() -> None:
    player = parse_player("threats:500").create(seed=4)
    choice = player.move(Position("XX./OO./..."), Limit())
    assert (player.name, choice.move) == ("threats:500", 2)


def test_without_the_strategy_the_engine_searches_as_x() -> None:
    after = Position("", "qubic").play(0).play(21)  # X on a corner, O on a centre
    known = strategy_move(after, shipped_strategy())
    assert known is not None
    with_book = LevelPlayer(10, 1, nodes=3_000).move(after, Limit())
    assert with_book.move == known.move and with_book.note.startswith("From the shipped strategy")
    alone = LevelPlayer(10, 1, nodes=3_000, strategy=False)
    assert alone.name == "level:10:no-strategy" and not alone.strategy
    searched = alone.move(after, Limit())
    assert searched.nodes > 0 and not searched.note  # searched: the strategy did not answer
    no_strategy = Knowledge(strategy=False)
    assert no_strategy.strategy_for(after) is None
    assert proven_replies(Position("", "qubic").play(0), no_strategy.strategy_for(after)) == {}


def test_a_family_game_from_a_near_finished_position() -> None:
    # O to move, a row one move from complete (and X too): the harness plays it out
    start = Position("XX.X/OOO./X.../....|" + "|".join(["..../..../..../...."] * 3), "qubic")
    assert start.to_move == "O"
    task = family.FamilyTask("seed-qubic:1:random", 0, 7, None, 2_000)
    record = family.family_game(task, start)
    assert record["winner"] == "O" and record["moves"] == [7]
    again = family.family_game(task, start)
    assert {**again, "o_ms": None} == {**record, "o_ms": None}  # the same game (times aside)


def test_the_family_part_runs_and_writes_its_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "family.json"
    argv = ["--parts", "family", "--members", "seed-qubic:1,threats:200", "--cells", "21",
            "--nodes", "300", "--out", str(out)]
    assert bench_qubic.main(argv) == 0
    report = json.loads(out.read_text())
    rows = report["family"]["members"]
    assert list(rows) == ["seed-qubic:1", "threats:200"]
    assert report["family"]["total"]["games"] == 2 and report["family_budget"] == "300 nodes"
    games = report["family"]["games"]
    assert all(game["start"].startswith(".") and game["cell"] == 21 for game in games)
    assert "| total" in capsys.readouterr().out
    assert bench_qubic.main(argv) == 0
    again = json.loads(out.read_text())["family"]["games"]
    assert [game["moves"] for game in again] == [game["moves"] for game in games]  # repeatable
    # the games by line: one line a member here (one first cell each)
    assert family.main([str(out), "--plies", "2"]) == 0
    table = capsys.readouterr().out
    assert "| seed-qubic:1 | 1 |" in table and "| threats:200 | 1 |" in table
    found = family.lines(games, plies=2)
    assert [(line.games, line.parts_at) for line in found] == [(1, None), (1, None)]
    (tmp_path / "other.json").write_text('{"games": []}')
    with pytest.raises(SystemExit) as stopped:
        family.main([str(tmp_path / "other.json")])
    assert stopped.value.code == 2
    assert "not family results" in capsys.readouterr().err


def test_the_family_part_plays_o_through_a_running_service_in_random_orientations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(defence, "ANALYSIS_NODES", 5_000)  # the count, not its depth
    monkeypatch.setattr(defence, "ROOT_NODES", 5_000)
    out = tmp_path / "family.json"
    argv = ["--parts", "family", "--members", "seed-qubic:1", "--cells", "21,42",
            "--service", "--orient", "--time", "0.2", "--blunders", "--out", str(out)]
    assert bench_qubic.main(argv) == 0
    report = json.loads(out.read_text())
    assert report["family_o"] == "service" and report["family_orient"] is True
    games = report["family"]["games"]
    assert [game["orientation"] for game in games] == [
        family.orientation(game["seed"]) for game in games]
    assert any(game["orientation"] for game in games)
    for game in games:  # each game replays legally to its recorded result
        position = Position(game["start"], "qubic")
        for move in game["moves"]:
            position = position.play(move)
        assert position.is_over and position.winner == game["winner"]
        assert isinstance(game["blunders"], list)
    row = report["family"]["members"]["seed-qubic:1"]
    assert row["games"] == 2 and isinstance(row["o_blunders"], int)
    assert "O blunders" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stopped:
        bench_qubic.main([*argv[:-2], "--nodes", "100"])
    assert stopped.value.code == 2
    assert family.main([str(out), "--blunders"]) == 0
    assert "| seed-qubic:1" in capsys.readouterr().out


def test_escapes_finds_where_a_lost_game_was_lost(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(family, "WALK_NODES", 20_000)
    monkeypatch.setattr(family, "DEEP_NODES", 20_000)
    # X takes a square of four on the first layer, O plays elsewhere; X wins by threats
    game = {"member": "m", "cell": 0, "winner": "X",
            "moves": [63, 1, 42, 4, 21, 5, 62, 10, 15, 2, 3, 6, 7, 14]}
    position = Position("", "qubic")
    for move in [0, *game["moves"]]:
        position = position.play(move)
    assert position.winner == "X"
    at = family.first_lost(game)["at"]
    assert at is not None
    answer = family.escapes(at)
    assert answer["played"] == at[2] and answer["played"] not in answer["open"]
    assert set(answer["safe"]) <= set(answer["open"])
    family.print_escapes([game, {**game, "winner": "O"}], 1)
    table = capsys.readouterr().out
    assert "m 0 |" in table and "1 games lost, 1 positions" in table


def test_book_changes_names_the_games_a_new_book_reaches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = tmp_path / "shipped.json.gz"
    shipped.write_bytes((Path(family.__file__).parent.parent / "src" / "noughts" / "data"
                         / "qubic-o-book.json.gz").read_bytes())
    empty = tmp_path / "empty.json.gz"
    empty.write_bytes(family.OBook("4x4x4").to_bytes())
    book = family.OBook.load(shipped)
    reply = book.lookup(Position("", "qubic").play(5)).move
    games = [{"member": "m", "cell": 5, "winner": "X", "moves": [(reply + 1) % 64, 0]},
             {"member": "m", "cell": 5, "winner": "O", "moves": [reply]}]
    results = tmp_path / "run.json"
    results.write_text(json.dumps({"family": {"games": games}}))
    family.main([str(results), "--book-changes", str(shipped), str(empty)])
    out = capsys.readouterr().out
    assert f"m cell 5, ply 1: O played {(reply + 1) % 64}, the book {reply} (won by X)" in out
    assert "1 of 2 games reach" in out
    family.main([str(results), "--book-changes", str(shipped), str(shipped)])
    assert "0 of 2 games reach" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stopped:
        family.main([str(results), "--book-changes", str(results), str(shipped)])
    assert stopped.value.code == 2
    assert "--book-changes: damaged O book" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        family.main([str(results), "--book-changes", str(tmp_path / "none"), str(shipped)])
    assert stopped.value.code == 2
    assert f"--book-changes: {tmp_path / 'none'}: cannot read it" in capsys.readouterr().err
