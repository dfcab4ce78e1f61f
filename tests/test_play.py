"""``noughts play`` driven as a person would: through a pipe and through a pseudo-terminal."""

from __future__ import annotations

import argparse
import io
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import pexpect
import pytest

from noughts.engine import choose_move, evaluate_moves
from noughts.play.coordinates import cell_name, parse_cell
from noughts.play.loop import _wait_for_input
from noughts.play.session import Seat, Session
from noughts.position import Mark, Position
from noughts.results import describe
from noughts.variants import variant

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
ALL_CELLS_3X3 = "".join(f"{n}\n" for n in range(1, 10))
"""Fed in a loop, the human always plays the first free cell: taken cells are refused.
(3x3 takes keypad numbers 1-9 from the top left; the game names cells a3..c1.)"""


def clean_environment() -> dict[str, str]:
    """This process's environment without the variables that force Rich's colours on or off."""
    forcing = {"NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS"}
    return {key: value for key, value in os.environ.items() if key not in forcing}


def play(*options: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``noughts play`` with ``stdin`` piped in; text output, no terminal anywhere."""
    env = {**clean_environment(), "COLUMNS": "100"}
    return subprocess.run(
        [sys.executable, "-m", "noughts", "play", *options],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


def spawn(*options: str, term: str = "dumb") -> pexpect.spawn:
    """``noughts play`` on a pseudo-terminal (``TERM=dumb`` keeps Rich's output plain),
    with Ctrl-C's default disposition even when the tests run from a background job of
    a shell, which starts them with SIGINT ignored."""
    env = {**clean_environment(), "TERM": term}
    return pexpect.spawn(
        sys.executable,
        ["-m", "noughts", "play", *options],
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 100),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def summary_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith("Game ")]
    assert lines, output
    return lines[-1]


def played_moves(output: str) -> list[str]:
    return summary_line(output).split("Moves: ")[1].split()


# -- through a pipe ----------------------------------------------------------------------
@pytest.mark.parametrize("first", ["you", "ai"])
def test_piped_full_game_against_level_10_never_ends_in_a_human_win(first: str) -> None:
    result = play("--first", first, stdin=ALL_CELLS_3X3)
    assert result.returncode == 0, result.stderr
    summary = summary_line(result.stdout)
    assert summary.startswith("Game over: ")
    assert "(you)" not in summary  # "X wins (you)" would be a human win
    moves = played_moves(result.stdout)
    assert len(set(moves)) == len(moves) >= 5
    # the moves really make the game the summary reports
    position = Position()
    if first == "ai":
        position = Position(first="X")
    for move in moves:
        position = position.play(parse_cell(position.geometry, move))
    assert position.is_over
    assert ("draw" in summary) == (position.winner is None)
    assert "\x1b" not in result.stdout  # plain text in a pipe


def test_piped_game_prints_the_board_after_each_move() -> None:
    result = play(stdin="5\n")
    files = [line for line in result.stdout.splitlines() if line.strip() == "a  b  c"]
    # the empty board, after our move, after the AI's reply: files above and below each
    assert len(files) == 6
    assert "[X]" in result.stdout and played_moves(result.stdout)[0] == "b2"  # 5 is b2
    assert re.search(r"O \(AI level 10\) plays [ac][13] ", result.stdout)  # a corner holds
    assert summary_line(result.stdout).startswith("Game stopped (end of input)")


def test_invalid_inputs_get_one_line_each_and_the_prompt_again() -> None:
    result = play(stdin="5\n5\nfoo\n0\n10\n\n  q  \n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "b2 is taken by X: pick an empty cell" in out
    assert "'foo' is not a move: type a square like b3 (file a-c" in out
    assert "0 is off the board: cells are numbered 1-9" in out
    assert "10 is off the board: cells are numbered 1-9" in out
    # every bad line is followed by a fresh prompt, and the game goes on to quit cleanly
    assert out.count("Your move (X): ") == 7
    assert summary_line(out).startswith("Game stopped (you quit): X to move (you) after 2 moves")


def test_undo_takes_back_the_human_move_and_the_ai_reply() -> None:
    result = play(stdin="5\nu\nu\n9\n")
    out = result.stdout
    match = re.search(r"Took back b2, ([a-c][1-3])\.", out)
    assert match, out
    assert "nothing to undo" in out  # the second undo finds an empty board
    moves = played_moves(out)
    assert moves[0] == "c1" and len(moves) == 2  # the game restarted from the empty board


def test_hint_and_analysis_agree_with_the_engine() -> None:
    # two players: X 1, O 4, X 2 -> O must block at 3
    result = play("--two-players", stdin="1\n4\n2\nh\na\n")
    out = result.stdout
    position = Position().play(0).play(3).play(1)
    best = choose_move(position)
    assert best.move == 2
    assert f"Hint for O: play c3 ({describe(best)})" in out
    evals = evaluate_moves(position)
    worst = min(evals, key=lambda e: (e.outcome != "loss", -(e.plies or 0)))
    assert "Moves for O, best first:" in out
    analysis = out.split("Moves for O, best first:")[1].splitlines()[1:]
    groups = [line.split(":")[1].split() for line in analysis if line.startswith("  ")]
    listed = [name for group in groups for name in group]
    assert sorted(listed) == sorted(cell_name(position.geometry, e.move) for e in evals)
    assert analysis[0].split(":")[1].split()[0] == "c3"
    assert f"{worst.outcome} in {worst.plies}" in out


def test_watch_level_10_against_itself_draws_3x3() -> None:
    result = play("--watch")
    assert result.returncode == 0, result.stderr
    assert summary_line(result.stdout).startswith("Game over: draw after 9 moves")


def test_x_moves_first_and_o_answers_whichever_flag_says_so() -> None:
    """X always moves first: ``--mark O`` alone has the AI open as X (it needed
    ``--first ai`` before), and ``--first ai`` alone gives the human O."""
    for options in (["--mark", "O"], ["--first", "ai"], ["--first", "ai", "--mark", "O"]):
        result = play(*options, stdin="q\n")
        assert result.returncode == 0, result.stderr
        assert "X: AI level 10, O: you · X moves first" in result.stdout
        assert result.stdout.index("X (AI level 10) plays") < result.stdout.index("Your move (O)")
    for options in (["--mark", "X"], ["--first", "you"], []):
        result = play(*options, stdin="5\nq\n")
        assert "X: you, O: AI level 10 · X moves first" in result.stdout
        assert played_moves(result.stdout)[0] == "b2"


def test_qubic_accepts_layer_coordinates_and_highlights_the_winning_line() -> None:
    # X fills file a, rank 1 of layer 1 across the four files; O plays in layer 3
    script = "1a1\n3a1\n1b1\n3b1\n1c1\n3c1\n1d1\n"
    result = play("--variant", "qubic", "--two-players", stdin=script)
    out = result.stdout
    assert "layer 1" in out and "layer 4" in out
    assert summary_line(out).startswith("Game over: X wins after 7 moves. Moves: 1a1 3a1")
    final = out.split("X plays 1d1")[1]
    assert final.count("*X*") == 4 and "*O*" not in final
    bottom_rank = next(line for line in final.splitlines() if line.startswith("1 "))
    layers = re.split(r"\s{3,}", bottom_rank.strip())
    assert layers == ["1 *X**X**X**X*", "1  ·  ·  ·  ·", "1  O  O  O  ·", "1  ·  ·  ·  ·"]


def test_chess_coordinates_on_4x4() -> None:
    result = play("--variant", "4x4", "--two-players", stdin="a1\nd4\nq\n")
    board = result.stdout.split("O plays d4")[1]
    rows = [line for line in board.splitlines() if re.match(r"^[1-4] ", line)]
    assert rows[0].split() == ["4", "·", "·", "·", "[O]", "4"]
    assert rows[3].split() == ["1", "X", "·", "·", "·", "1"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--level", "11"], "--level: '11' is not a level from 0 to 10"),
        (["--level", "3,10"], "names 2 levels but this game has 1 AI player"),
        (["--first", "ai", "--two-players"], "--first is for a game against the AI"),
        (["--two-players", "--level", "5"], "--level needs an AI player"),
        (["--variant", "3x3k4"], "unknown variant '3x3k4'"),
        (["--time", "0"], "--time: time limit must be a positive number"),
        (["--first", "maybe"], "argument --first: invalid choice"),
        (["--mark", "O", "--first", "you"], "--mark O contradicts --first you: X always"),
        (["--mark", "X", "--first", "ai"], "--mark X contradicts --first ai: X always"),
        (["--mark", "random", "--first", "you"], "--mark random contradicts --first you"),
        (["--watch", "--two-players"], "not allowed with argument"),
    ],
)
def test_bad_flags_print_one_line_and_exit_2(options: list[str], message: str) -> None:
    result = play(*options)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("noughts: error: ")
    assert message in lines[0]


# -- through a pseudo-terminal -------------------------------------------------------------
def test_terminal_game_against_level_10_ends_without_a_human_win() -> None:
    child = spawn()
    cells = iter(range(1, 10))
    while True:
        index = child.expect([r"Your move \(X\): ", r"Game over: (.*) after"])
        if index == 1:
            break
        child.sendline(str(next(cells)))
    verdict = child.match.group(1)
    assert verdict in ("draw", "O wins (the AI)")
    # a finished game at a terminal offers a new one: the board starts empty again, the
    # marks change hands and X moves first (here the AI, now X)
    child.expect(r"u undo · n new game · q quit: ")
    child.sendline("n")
    child.expect(r"New game: X \(AI level 10\) moves first")
    child.expect(r"X \(AI level 10\) plays [a-c][1-3]")
    child.expect(r"Your move \(O\): ")
    child.sendline("q")
    child.expect(r"Game stopped \(you quit\): O to move \(you\) after 1 move")
    child.expect(r"Games finished: 1 \((AI won|drawn) 1\)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_terminal_undo_hint_and_invalid_input_recover() -> None:
    child = spawn()
    child.expect(r"Your move \(X\): ")
    child.sendline("1")
    child.expect(r"O \(AI level 10\) plays ([a-c][1-3])")
    reply = child.match.group(1)
    assert reply == "b2"  # the only reply to a corner that does not lose
    child.expect(r"Your move \(X\): ")
    child.sendline("1")
    child.expect("a3 is taken by X: pick an empty cell")
    child.expect(r"Your move \(X\): ")
    child.sendline("h")
    child.expect(r"Hint for X: play ([a-c][1-3]) \((\w+)")
    assert child.match.group(2) == "draw"
    child.expect(r"Your move \(X\): ")
    child.sendline("u")
    child.expect(r"Took back a3, b2\.")
    child.expect(r"Your move \(X\): ")
    child.sendline("q")
    child.expect(r"Game stopped \(you quit\): X to move \(you\) after 0 moves")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_ctrl_c_and_end_of_input_exit_cleanly_with_a_summary() -> None:
    child = spawn()
    child.expect(r"Your move \(X\): ")
    child.sendline("5")
    child.expect(r"Your move \(X\): ")
    child.sendintr()
    child.expect(
        r"Game stopped \(interrupted\): X to move \(you\) after 2 moves\. Moves: b2 [a-c][1-3]"
    )
    child.expect(pexpect.EOF)
    assert "Traceback" not in (child.before or "")
    child.close()
    assert child.exitstatus == 130

    child = spawn("--two-players")
    child.expect(r"X to move: ")
    child.sendeof()
    child.expect(r"Game stopped \(end of input\): X to move after 0 moves")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_the_prompt_waits_for_a_line_and_ctrl_c_ends_the_wait() -> None:
    """The wait before the prompt's read: a line ends it, another signal does not, and
    Ctrl-C raises at once (the game's summary then follows, as above)."""
    reader, writer = os.pipe()
    previous = signal.signal(signal.SIGUSR1, lambda *_: None)
    interrupt = signal.signal(signal.SIGINT, signal.default_int_handler)  # (as a shell's
    try:  # background job, pytest may have started with SIGINT ignored)
        with os.fdopen(reader) as stdin:
            def later(delay: float, action: Any) -> None:
                threading.Timer(delay, action).start()

            later(0.1, lambda: os.kill(os.getpid(), signal.SIGUSR1))
            later(0.3, lambda: os.write(writer, b"5\n"))
            started = time.monotonic()
            _wait_for_input(stdin)
            assert time.monotonic() - started >= 0.25  # the other signal did not end it
            assert stdin.readline() == "5\n"

            later(0.1, lambda: os.kill(os.getpid(), signal.SIGINT))
            with pytest.raises(KeyboardInterrupt):
                _wait_for_input(stdin)
    finally:
        signal.signal(signal.SIGUSR1, previous)
        signal.signal(signal.SIGINT, interrupt)
        os.close(writer)


def test_a_colour_terminal_gets_styles_and_the_same_text() -> None:
    child = spawn(term="xterm-256color")
    transcript = io.StringIO()
    child.logfile_read = transcript
    child.expect(r"Your move")
    child.sendline("5")
    child.expect(r"plays")
    child.expect(r"Your move")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    raw = transcript.getvalue()
    assert "\x1b[" in raw  # styled
    plain = ANSI.sub("", raw)
    assert "\x1b" not in plain
    assert " X " in plain and "[O]" in plain  # our move, and the AI's reply bracketed
    assert "Game stopped (you quit)" in plain


# -- the session and option planning without a terminal ------------------------------------
def test_session_undo_with_the_ai_first_and_between_two_players() -> None:
    game = Session(variant("3x3"), {"X": Seat.ai(10), "O": Seat.human()})
    game.ai_move()
    assert game.undo() == []  # the AI's opening is not ours to take back
    game.play(next(iter(game.position.legal_moves)))
    game.ai_move()
    taken = game.undo()
    assert len(taken) == 2 and game.ply == 1
    pair = Session(variant("3x3"), {"X": Seat.human(), "O": Seat.human()})
    pair.play(0)
    pair.play(4)
    assert pair.undo() == [4] and pair.to_move == "O"


def test_plan_game_honours_first_and_mark() -> None:
    from noughts.cli import UsageError
    from noughts.cli.play_command import plan_game

    def plan(**options: object) -> tuple[dict[Mark, int | None], str]:
        defaults: dict[str, object] = {
            "watch": False,
            "two_players": False,
            "level": None,
            "first": None,
            "mark": None,
        }
        setup = plan_game(argparse.Namespace(**{**defaults, **options}), random.Random(1))
        return dict(setup.levels), setup.first

    assert plan() == ({"X": None, "O": 10}, "X")
    assert plan(first="ai") == ({"O": None, "X": 10}, "X")
    assert plan(mark="O") == ({"O": None, "X": 10}, "X")  # X first: the AI opens
    assert plan(first="ai", mark="O", level="4") == ({"O": None, "X": 4}, "X")
    assert plan(first="you", mark="X") == ({"X": None, "O": 10}, "X")
    assert plan(watch=True, level="3,10") == ({"X": 3, "O": 10}, "X")
    for options in ({"first": "random", "mark": "RANDOM"}, {"mark": "RANDOM"}):
        assert plan(**options)[1] == "X"
    for first, mark in (("you", "O"), ("ai", "X"), ("random", "X"), ("you", "RANDOM")):
        with pytest.raises(UsageError, match="X always moves first"):
            plan(first=first, mark=mark)
    with pytest.raises(UsageError):
        plan(watch=True, mark="X")


def test_the_same_seed_replays_the_same_game_at_a_lower_level() -> None:
    first = play("--level", "3", "--seed", "5", stdin=ALL_CELLS_3X3)
    again = play("--level", "3", "--seed", "5", stdin=ALL_CELLS_3X3)
    assert first.returncode == again.returncode == 0, first.stderr
    assert "O (AI level 3) plays" in first.stdout
    assert summary_line(first.stdout).startswith("Game over: ")
    assert played_moves(first.stdout) == played_moves(again.stdout)


def test_qubic_against_the_ai_with_a_short_time() -> None:
    result = play("--variant", "qubic", "--time", "0.2", stdin="2b3\nh\nq\n")
    assert result.returncode == 0, result.stderr
    moves = played_moves(result.stdout)
    assert moves[0] == "2b3" and len(moves) == 2
    assert re.fullmatch(r"[1-4][a-d][1-4]", moves[1]) and moves[1] != "2b3"
    assert re.search(r"Hint for X: play [1-4][a-d][1-4] \(", result.stdout)


def test_an_ascii_only_output_gets_an_ascii_board() -> None:
    env = {**clean_environment(), "PYTHONIOENCODING": "ascii"}
    result = subprocess.run(
        [sys.executable, "-m", "noughts", "play", "--variant", "4x4k3"],
        input="b2\nzz\nq\n",
        capture_output=True,
        text=True,
        encoding="ascii",
        timeout=60,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.isascii()
    assert "2  . [X] .  .  2" in result.stdout
    assert "'zz' is not a move" in result.stdout


# -- the loop in-process, with the searches that may not be installed stood in for -----------
def run_loop(session: Session, lines: str) -> tuple[int, str]:
    from rich.console import Console

    from noughts.play.loop import GameLoop, Terminal

    out = io.StringIO()
    console = Console(file=out, width=80, highlight=False, color_system=None)
    status = GameLoop(session, Terminal(console, io.StringIO(lines), False)).run()
    return status, out.getvalue()


def test_heuristic_analysis_is_listed_by_score_after_proven_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from noughts.results import Estimate, MoveEval, Outcome, Scale, Value

    qubic = variant("qubic")

    def fake_evaluate(position: Position, **_: object) -> list[MoveEval]:
        return [
            MoveEval(
                m,
                qubic,
                Value(Outcome.WIN, 7) if m == 5 else None,
                None if m == 5 else Estimate(m / 100, Scale.SEARCH),
            )
            for m in position.legal_moves
        ]

    monkeypatch.setattr("noughts.play.session.evaluate_moves", fake_evaluate)
    game = Session(qubic, {"X": Seat.human(), "O": Seat.human()})
    status, out = run_loop(game, "a\n")
    assert status == 0
    listing = out.split("Moves for X, best first:\n")[1].splitlines()
    assert listing[0] == "  win in 7: 1b3"
    assert listing[1] == "  heuristic scores:"
    assert listing[2].startswith("    4d1 +0.63  4c1 +0.62  ")
    entries = re.findall(r"[1-4][a-d][1-4] [+-][\d.]+", "\n".join(listing[2:]))
    assert len(entries) == 63 and entries[-1] == "1a4 +0"


def test_hint_and_analysis_are_one_search_on_qubic(monkeypatch: pytest.MonkeyPatch) -> None:
    import noughts.play.session as session_module
    from noughts.play.coordinates import parse_cell
    from noughts.results import MoveEval

    searches: list[Position] = []

    def counted(position: Position, *, time_limit: float | None = None) -> list[MoveEval]:
        searches.append(position)
        return evaluate_moves(position, time_limit=time_limit)

    monkeypatch.setattr(session_module, "evaluate_moves", counted)
    game = Session(variant("qubic"), {"X": Seat.human(), "O": Seat.human()}, time_limit=0.2)
    for name in ("1a4", "2b3", "4d1"):
        game.play(parse_cell(game.geometry, name))
    status, out = run_loop(game, "h\na\nh\n")
    assert status == 0 and len(searches) == 1  # one search answers all three
    hints = re.findall(r"Hint for O: play (\d[a-d]\d) \(heuristic score ([+-][\d.]+)\)", out)
    assert len(hints) == 2 and hints[0] == hints[1]
    listing = out.split("Moves for O, best first:\n")[1].splitlines()
    assert listing[0] == "  heuristic scores:"
    assert listing[1].split()[:2] == list(hints[0])  # the hint is the analysis' first entry


def test_the_terminal_plays_through_the_one_game_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    import noughts.play.loop as loop_module
    from noughts.players.game import play_game

    starts: list[str] = []

    def watched(players: Any, position: Position, **options: Any) -> Any:
        starts.append(position.board)
        return play_game(players, position, **options)

    monkeypatch.setattr(loop_module, "play_game", watched)
    game = Session(variant("3x3"), {"X": Seat.human(), "O": Seat.ai(10)})
    status, out = run_loop(game, "5\nu\n1\nq\n")
    assert status == 0 and "Took back b2" in out
    # one game loop from the empty board, and after the undo another from where it left
    assert starts == [".../.../...", ".../.../..."]
    assert summary_line(out).startswith("Game stopped (you quit): X to move (you) after 2 moves")
