"""Misère games (whoever completes a line loses): the rules, and exact values checked
against OpenSpiel's ``misere(game=...)`` wrapper, an independent implementation."""

from __future__ import annotations

import random

import pytest

from noughts.errors import GameOverError
from noughts.exact.solver import analyze, best_move, solve, solver_for
from noughts.position import Position
from noughts.results import Outcome
from noughts.variants import variant

pyspiel = pytest.importorskip("pyspiel")


def _outcome(utility: float) -> Outcome:
    return Outcome.WIN if utility > 0 else Outcome.LOSS if utility < 0 else Outcome.DRAW


def _referee(game_string: str):  # type: ignore[no-untyped-def]
    """Exact values of OpenSpiel's game for the player to move, memoised by state."""
    game = pyspiel.load_game(game_string)

    memo: dict[str, float] = {}

    def _value_of(state) -> float:  # type: ignore[no-untyped-def]
        key = str(state)
        if key in memo:
            return memo[key]
        player = state.current_player()
        best = -2.0
        for action in state.legal_actions():
            child = state.clone()
            child.apply_action(action)
            score = child.returns()[player] if child.is_terminal() else -_value_of(child)
            best = max(best, score)
            if best == 1.0:
                break
        memo[key] = best
        return best

    def of(moves: list[int]) -> float:
        state = game.new_initial_state()
        for action in moves:
            state.apply_action(action)
        return _value_of(state)

    return of


def _games(name: str, count: int, min_marks: int, seed: int) -> list[list[int]]:
    """Random unfinished move sequences of ``name`` with at least ``min_marks`` marks."""
    rng = random.Random(seed)
    found: list[list[int]] = []
    while len(found) < count:
        position = Position("", name)
        moves: list[int] = []
        target = rng.randint(min_marks, position.geometry.cells - 1)
        while len(moves) < target and not position.is_over:
            move = rng.choice(list(position.legal_moves))
            position = position.play(move)
            moves.append(move)
        if not position.is_over:
            found.append(moves)
    return found


def _position(name: str, moves: list[int]) -> Position:
    position = Position("", name)
    for move in moves:
        position = position.play(move)
    return position


def test_names_parse_and_echo_the_canonical_name() -> None:
    assert variant("qubic-misere").name == "4x4x4-misere"
    assert variant("4X4K4-Misere") is variant("4x4-misere")
    assert Position("", "tictactoe-misere").variant == "3x3-misere"
    assert variant("3x3-misere") != variant("3x3")
    assert variant("3x3-misere").geometry is variant("3x3").geometry


def test_a_completed_line_loses() -> None:
    position = Position("XX./OO./...", "3x3-misere").play(2)  # X completes the top row
    assert position.winner == "O" and position.is_over
    assert position.result is not None and position.result.winner == "O"
    with pytest.raises(GameOverError):
        position.play(8)
    assert solve(position).outcome is Outcome.WIN  # for O, to move: it has won


def test_completing_your_own_line_is_a_loss_in_one_ply() -> None:
    evals = {e.move: e.value for e in analyze(Position("XX./OO./...", "3x3-misere"))}
    assert evals[2].outcome is Outcome.LOSS and evals[2].plies == 1
    assert all(v.plies > 1 for m, v in evals.items() if m != 2)
    assert best_move(Position("XX./OO./...", "3x3-misere")).move != 2


def test_no_book_or_table_serves_a_misere_game() -> None:
    record = variant("4x4k3-misere")
    assert record.book_marks == 0 and not record.table3x3 and record.strategy is None
    assert record.skills is None and not record.featured
    assert variant("4x4k3").book_marks and variant("3x3").table3x3


def test_known_values() -> None:
    assert solve(Position("", "3x3-misere")).outcome is Outcome.DRAW
    assert solver_for(variant("4x4k3-misere")).score(0, 0) < 0  # a first-player loss
    assert best_move(Position("", "3x3-misere")).move == 4  # only the centre draws


def _plain_value(position: Position, memo: dict[Position, tuple[int, int]]) -> tuple[int, int]:
    """(+1/0/-1 for the side to move, plies to the end): plain minimax over
    :meth:`Position.play`, the winner hurrying and the loser delaying."""
    known = memo.get(position)
    if known is not None:
        return known
    if position.is_over:
        winner = position.winner
        result = (0 if winner is None else 1 if winner == position.to_move else -1, 0)
    else:
        best: tuple[int, int] | None = None
        for move in position.legal_moves:
            sign, plies = _plain_value(position.play(move), memo)
            mine = (-sign, plies + 1)
            key = (mine[0], -mine[1] if mine[0] > 0 else mine[1])
            if best is None or key > (best[0], -best[1] if best[0] > 0 else best[1]):
                best = mine
        assert best is not None
        result = best
    memo[position] = result
    return result


def test_every_reachable_3x3_position_against_openspiel() -> None:
    referee = _referee("misere(game=tic_tac_toe())")
    memo: dict[Position, tuple[int, int]] = {}
    seen: set[Position] = set()
    pending = [(Position("", "3x3-misere"), [])]
    checked = 0
    while pending:
        position, moves = pending.pop()
        if position in seen or position.is_over:
            continue
        seen.add(position)
        value = solve(position)
        assert value.outcome is _outcome(referee(moves)), position
        sign, plies = _plain_value(position, memo)
        assert (value.outcome, value.plies) == (_outcome(sign), plies), position
        for e in analyze(position):
            child = [*moves, e.move]
            after = position.play(e.move)
            expected = (-referee(child) if not after.is_over
                        else (1.0 if after.winner == position.to_move else
                              -1.0 if after.winner else 0.0))
            assert e.value.outcome is _outcome(expected), (position, e.move)
        checked += 1
        pending.extend((position.play(m), [*moves, m]) for m in position.legal_moves)
    assert checked == 4520  # the unfinished positions of misère 3x3 (fewer lines end it)


@pytest.mark.parametrize(
    ("name", "game", "count", "min_marks"),
    [
        ("3x4k3-misere", "misere(game=mnk(m=4,n=3,k=3))", 40, 3),
        ("4x4k3-misere", "misere(game=mnk(m=4,n=4,k=3))", 25, 7),
        ("4x4-misere", "misere(game=mnk(m=4,n=4,k=4))", 10, 6),
        ("4x3k3-misere", "misere(game=mnk(m=3,n=4,k=3))", 25, 3),
    ],
)
def test_sampled_positions_against_openspiel(
    name: str, game: str, count: int, min_marks: int
) -> None:
    referee = _referee(game)  # OpenSpiel's mnk takes m columns and n rows
    for moves in _games(name, count, min_marks, seed=25):
        position = _position(name, moves)
        assert solve(position).outcome is _outcome(referee(moves)), (name, moves)


def test_the_anytime_search_finds_forced_results_as_the_solver_does() -> None:
    from noughts.budget import Limit
    from noughts.engine.plan import search_limit, search_shares
    from noughts.search.anytime import search_move

    found = {Outcome.WIN: 0, Outcome.LOSS: 0}
    for moves in _games("4x4k3-misere", 60, 8, seed=7):
        position = _position("4x4k3-misere", moves)
        exact = solve(position)
        choice = search_move(position, search_limit(Limit.within(nodes=100_000)), search_shares())
        assert not position.play(choice.move).is_over or exact.plies == 1  # no suicide
        if exact.outcome is Outcome.DRAW:
            assert choice.value is None or choice.value.outcome is Outcome.DRAW
            continue
        assert choice.value is not None and choice.value.outcome is exact.outcome, moves
        if exact.outcome is Outcome.WIN:
            assert position.play(choice.move) and solve(position.play(choice.move)).outcome \
                is Outcome.LOSS
        found[exact.outcome] += 1
    assert found[Outcome.WIN] and found[Outcome.LOSS]  # both kinds were met



def test_the_cli_accepts_and_echoes_misere_names(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from noughts.cli import main

    assert main(["move", "XX./OO./...", "--variant", "tictactoe-misere", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["variant"] == "3x3-misere" and record["move"] != 2
    assert main(["solve", "3x3-misere", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["outcome"] == "draw"
    assert main(["move", "", "--variant", "3x3-misre"]) != 0
    assert "-misere" in capsys.readouterr().err


def test_the_api_accepts_and_echoes_misere_names() -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from noughts.service.app import create_app
    from noughts.service.settings import Settings

    with TestClient(create_app(Settings(warmup=False))) as client:
        answer = client.post("/api/v1/move",
                             json={"variant": "3x3-misere", "board": "XX./OO./..."})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["variant"] == "3x3-misere" and body["move"] != 2
        analysis = client.post("/api/v1/analyze",
                               json={"variant": "qubic-misere", "time_ms": 200}).json()
        assert analysis["variant"] == "4x4x4-misere"
        lost = client.post("/api/v1/analyze", json={"variant": "3x3-misere",
                                                    "board": "XX./OO./..."}).json()
        two = next(m for m in lost["moves"] if m["move"] == 2)
        assert two["outcome"] == "loss" and two["plies"] == 1
        wrong = client.post("/api/v1/move", json={"variant": "3x3-misery", "board": ""})
        assert wrong.status_code == 400 and "misere" in wrong.text


def test_the_game_loop_arena_and_environments_play_misere() -> None:
    from noughts.arena.match import run_arena
    from noughts.play.session import Seat, Session

    result = run_arena(["level:10", "random"], variant="3x3-misere", games=4, workers=0,
                       nodes=2000)
    assert result.variant == "3x3-misere"
    wins, draws, losses = result.pairs[0].total
    assert losses == 0 and wins + draws == 4  # perfect misère play never loses to random
    session = Session(variant("3x3-misere"), {"X": Seat.human(), "O": Seat.human()})
    assert session.position.variant == "3x3-misere"
    pytest.importorskip("gymnasium")
    from noughts.rl import NoughtsEnv

    for seed in range(6):
        env = NoughtsEnv("3x3-misere", opponent="random", agent="X")
        env.reset(seed=seed)
        done, reward = False, 0.0
        while not done:
            _, reward, done, _, _ = env.step(min(env.position.legal_moves))
        assert env.position.variant == "3x3-misere"
        winner = env.position.winner
        assert reward == (1.0 if winner == "X" else -1.0 if winner == "O" else 0.0)
        if winner is not None:  # whoever completed the line lost
            loser_marks = env.position.marks("O" if winner == "X" else "X")
            assert env.position.geometry.has_line(loser_marks)


def test_the_tutorial_searches_refuse_misere() -> None:
    from noughts.errors import VariantError
    from noughts.teaching.tutorial import tutorial_board

    with pytest.raises(VariantError, match="misere"):
        tutorial_board(Position("X........", "3x3-misere"))
