"""``noughts move``, ``noughts analyze`` and ``noughts solve`` on the command line."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import noughts
from noughts.cli import main
from noughts.cli.engine_commands import infer_variant
from noughts.engine import evaluate_moves
from noughts.position import Position


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def run_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    status, out, err = run([*args, "--json"], capsys)
    assert status == 0, err
    record = json.loads(out)
    assert isinstance(record, dict)
    return record


# -- move -------------------------------------------------------------------------------
def test_move_json_has_every_field(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(["move", "XX./OO./..."], capsys)
    assert record["variant"] == "3x3" and record["board"] == "XX./OO./..."
    assert (record["move"], record["coords"], record["outcome"], record["plies"]) == (
        2, [0, 2], "win", 1
    )
    assert record["proven"] is True and record["method"] == "exact"
    assert record["pv"] == [2] and record["depth"] == 1 and record["score"] == 999
    assert isinstance(record["nodes"], int) and isinstance(record["elapsed_ms"], float)
    assert "moves" not in record


@pytest.mark.parametrize("variant", [None, "4x4k3"])
def test_no_board_is_the_empty_board_as_in_the_api(
    variant: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    from fastapi.testclient import TestClient

    from noughts.service import create_app

    options = [] if variant is None else ["--variant", variant]
    record = run_json(["move", *options], capsys)
    body = {} if variant is None else {"variant": variant}
    with TestClient(create_app()) as client:
        answer = client.post("/api/v1/move", json=body).json()
    assert record["variant"] == answer["variant"] == (variant or "3x3")
    assert record["board"] == answer["board"] and "X" not in record["board"]
    for key in ("move", "square", "outcome", "plies", "proven"):
        assert record[key] == answer[key], key
    analysis = run_json(["analyze", *options], capsys)
    empty = Position("", variant or "3x3")
    assert analysis["moves"] == [m.to_json() for m in evaluate_moves(empty)]


def test_move_on_4x4k3_finds_the_quick_win(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(["move", "................", "--variant", "4x4k3"], capsys)
    assert record["outcome"] == "win" and record["plies"] == 5
    assert record["move"] in (5, 6, 9, 10) and len(record["pv"]) == 5  # type: ignore[arg-type]


def test_bitmasks_give_the_same_move_as_the_board(capsys: pytest.CaptureFixture[str]) -> None:
    by_board = run_json(["move", "X../.O./..."], capsys)
    by_masks = run_json(["move", "--x", "1", "--o", "0x10"], capsys)
    assert by_masks == {**by_board, "elapsed_ms": by_masks["elapsed_ms"]}
    seed_masks = run_json(["move", "--x", "0", "--o", "1", "--variant", "4x4k3", "--first", "O"],
                          capsys)
    assert seed_masks["board"] == "O.../..../..../...." and seed_masks["to_move"] == "X"


def test_first_o_changes_the_side_to_move(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(["move", "OO./XX./...", "--first", "O"], capsys)
    assert (record["to_move"], record["move"], record["outcome"]) == ("O", 2, "win")


def test_seeded_moves_pick_among_equal_corners(capsys: pytest.CaptureFixture[str]) -> None:
    moves = {run_json(["move", ".........", "--seed", str(seed)], capsys)["move"]
             for seed in range(12)}
    assert moves <= {0, 2, 6, 8} and len(moves) > 1
    assert run_json(["move", "........."], capsys)["move"] == 0


def test_lower_levels_go_through_the_level_player(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(["move", ".........", "--level", "0", "--seed", "3"], capsys)
    assert record["method"] == "level" and record["level"] == 0
    assert record["move"] in range(9)


def test_move_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["move", "XX./OO./..."], capsys)
    assert status == 0
    assert out.splitlines()[:4] == ["X X X", "O O .", ". . .", "X plays c3 (cell 2): win in 1 ply"]
    assert "exact" in out.splitlines()[4]


def test_variant_is_inferred_from_the_board_shape() -> None:
    assert infer_variant("X../.O./...") == "3x3"
    assert infer_variant("..../..../..../....") == "4x4"
    assert infer_variant("..../..../....") == "3x4"
    assert infer_variant(".../.../...|.../.../...|.../.../...") == "3x3x3"
    assert infer_variant("|".join(["." * 16] * 4)) == "4x4x4"
    with pytest.raises(ValueError, match="no N x N x N cube"):
        infer_variant("...|...")
    with pytest.raises(ValueError, match="rows of different lengths"):
        infer_variant(".../..")


# -- analyze ----------------------------------------------------------------------------
def test_analyze_json_matches_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(["analyze", "XX./O../..."], capsys)
    assert record["board"] == "XX./O../..." and record["variant"] == "3x3"
    moves = record["moves"]
    assert isinstance(moves, list)
    expected = evaluate_moves(Position("XX./O../..."))
    assert [(m["move"], m["outcome"], m["plies"]) for m in moves] == [
        (e.move, e.outcome, e.plies) for e in expected
    ]
    assert {m["move"]: (m["outcome"], m["plies"]) for m in moves}[2] == ("loss", 4)
    keys = {"move", "square", "coords", "outcome", "plies", "plies_exact", "proven", "score"}
    assert all(set(m) == keys for m in moves)


def test_analyze_human_output_ranks_moves(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["analyze", "XX./OO./..."], capsys)
    assert status == 0
    lines = out.splitlines()
    assert lines[3].startswith("X to move on 3x3")
    assert lines[4].split() == ["c3", "(cell", "2)", "win", "in", "1", "ply"]
    assert lines[-1].split()[-4:] == ["loss", "in", "2", "plies"]


def test_analyze_reads_boards_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = "X../.O./...\n\n4x4k3 ..../..../..../....\nXQ./.../...\nXX./OO./...\n"
    monkeypatch.setattr(sys, "stdin", _stdin(lines.encode()))
    status, out, err = run(["analyze", "-"], capsys)
    records = [json.loads(line) for line in out.splitlines()]
    assert [r.get("variant") for r in records] == ["3x3", "4x4k3", None, "3x3"]
    assert records[1]["moves"][5]["outcome"] == "win"
    assert records[2]["line"] == 4 and records[2]["input"] == "XQ./.../..."
    assert "unexpected character 'Q'" in records[2]["error"]
    assert status == 2 and err.startswith("noughts: error: 1 bad input line")


def _stdin(data: bytes) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")


def test_analyze_answers_an_undecodable_line_and_goes_on(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", _stdin(b"\xff\xfeX../...\nXX./OO./...\n"))
    status, out, err = run(["analyze", "-"], capsys)
    bad, good = (json.loads(line) for line in out.splitlines())
    assert bad["line"] == 1 and "can't decode byte 0xff" in bad["error"]
    assert good["moves"][0]["outcome"] == "win"
    assert status == 2 and err.startswith("noughts: error: 1 bad input line")


# -- solve ------------------------------------------------------------------------------
def test_solve_json(capsys: pytest.CaptureFixture[str]) -> None:
    record = run_json(["solve", "4x4k3"], capsys)
    assert (record["variant"], record["outcome"], record["plies"]) == ("4x4k3", "win", 5)
    assert record["result"] == "first player wins" and record["from_scratch"] is True
    assert isinstance(record["nodes"], int) and record["nodes"] > 0
    booked = run_json(["solve", "tictactoe", "--book"], capsys)
    assert (booked["variant"], booked["outcome"], booked["nodes"]) == ("3x3", "draw", 0)


def test_solve_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["solve", "4x4"], capsys)
    assert status == 0
    assert out.startswith("4x4: draw (") and "nodes" in out and "from scratch" in out


# -- bad input ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["move", "X../.O./...", "--variant", "3x3k7"], "unknown variant"),
        (["move", "X../.O./..Q"], "unexpected character"),
        (["move", "X../.O./....", "--variant", "3x3"], "has 10 cells"),
        (["move", "X../.O./...."], "rows of different lengths"),
        (["move", "--x", "3", "--o", "1"], "overlapping marks"),
        (["move", "--x", "1"], "--x and --o go together"),
        (["move", "--x", "1", "--o", "-2"], "negative"),
        (["move", "XXX/OO./..."], "game is over"),
        (["move", "XOX/XOO/OXX"], "game is over"),
        (["move", "XX./.../..."], "impossible counts"),
        (["move", "X........", "--level", "11"], "level"),
        (["analyze", "XXX/OO./..."], "game is over"),
        (["solve", "5x5"], "anytime"),
        (["solve", "4x4x4-misere"], "anytime"),
        (["stats", "3x3", "--variant", "4x4"], "two variants given"),
        (["move", "--level", "expert"], "nor one of easy, medium, hard, impossible"),
        (["solve", "banana"], "unknown variant"),
        (["move", "X........", "--time", "nan"], "--time: time limit must be a positive"),
        (["move", "X........", "--time", "inf"], "not inf"),
        (["move", "X........", "--time", "-1"], "not -1.0"),
        (["move", "X........", "--time", "1e9"], "more than the limit"),
        (["move", "X........", "--nodes", "-5"], "--nodes: node budget must be a positive"),
        (["move", "X........", "--nodes", "10000000000000"], "more than the limit"),
        (["move", "X........", "--variant", ""], "variant name is empty"),
        (["analyze", "X........", "--time", "nan"], "positive number of seconds"),
        (["solve", " "], "variant name is empty"),
        (["stats", ""], "variant name is empty"),
        (["arena", "random", "random", "--time", "nan"], "--time"),
        (["arena", "random", "random", "--move-limit", "inf"], "--move-limit"),
        (["arena", "random", "random", "--games", "0"], "--games: must be at least 1"),
        (["arena", "random", "random", "--workers", "-1"], "--workers"),
        (["arena", "random", "random", "--variant", ""], "variant name is empty"),
        (["play", "--time", "nan"], "--time"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(args, capsys)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("noughts: error: ")
    assert message in err


def test_bad_input_in_a_real_process_has_no_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "noughts", "move", "XX./.../...", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("noughts: error: impossible counts")
    assert "Traceback" not in done.stderr


def test_move_starts_without_the_web_stack() -> None:
    code = (
        "import sys, json, contextlib, io\n"
        "from noughts.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    status = main(['move', 'X../.O./...', '--json'])\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules}\n"
        "               & {'fastapi', 'uvicorn', 'pydantic', 'starlette', 'rich', 'mangum'})\n"
        "print(json.dumps([status, heavy]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(done.stdout) == [0, []]


def _run_bare(code: str) -> str:
    """What ``code`` prints, run by a fresh interpreter under ``-S`` (no site hooks) that
    finds this noughts on its path."""
    package_parent = str(Path(noughts.__file__).parent.parent)
    return subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={**os.environ, "PYTHONPATH": package_parent},
    ).stdout


def test_move_on_3x3_imports_only_what_it_needs() -> None:
    """The cold start's guard: what ``noughts move`` on 3x3 leaves unimported (its
    bound, a ``noughts.budget.Limit`` of the default time, is made; the table answers
    within it without a search).

    Run under ``-S`` (no site hooks: a machine's ``.pth`` files import what they like).
    """
    code = (
        "import sys, json, contextlib, io\n"
        "from noughts.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    status = main(['move', 'X../.O./...', '--json'])\n"
        "print(json.dumps([status, sorted(sys.modules)]))\n"
    )
    status, modules = json.loads(_run_bare(code))
    assert status == 0
    assert "noughts.exact.table3x3" in modules  # it did answer from the table
    unneeded = {"threading", "dataclasses", "shutil", "inspect", "noughts.exact.negamax",
                "noughts.exact.book", "noughts.search", "noughts.players",
                "noughts.teaching"}
    assert unneeded & set(modules) == set()


def test_a_qubic_move_reads_its_knowledge_without_the_file_system_modules() -> None:
    """The cold Qubic move's guard: the shipped files are read with a plain ``open``
    (no ``importlib.resources``, pathlib, zipfile or tempfile: about 7 ms of imports),
    the records it reads and makes are named tuples (no dataclasses, which import
    inspect: about 10 ms with their classes), and its 192 symmetries are derived, not
    searched for."""
    code = (
        "import sys, json, contextlib, io\n"
        "import noughts.symmetries as symmetries\n"
        "def no_search(geometry):\n"
        "    raise AssertionError(f'searched the symmetries of {geometry}')\n"
        "symmetries._find_automorphisms = no_search\n"
        "from noughts.cli import main\n"
        "board = 'XX.O/..../..../....|..../.X../..../....|..../..../..O./....|....'\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    status = main(['move', board + '/..../..../....', '--variant', 'qubic',\n"
        "                   '--nodes', '1', '--json'])\n"
        "print(json.dumps([status, json.loads(out.getvalue())['method'], sorted(sys.modules)]))\n"
    )
    status, method, modules = json.loads(_run_bare(code))
    assert (status, method) == (0, "anytime")  # past O's book: the search answered
    assert "noughts.knowledge.strategy" in modules  # it did consult the shipped strategy
    unneeded = {"importlib.resources", "pathlib", "zipfile", "tempfile", "shutil",
                "dataclasses", "inspect", "noughts.runtime.atomic", "noughts.players",
                "noughts.teaching"}
    assert unneeded & set(modules) == set()


def test_move_time_is_honoured_on_boards_the_solver_could_finish(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A solvable board whose exact solve takes longer than ``--time`` (4x5 with 4 in a
    row: 20 empty cells, no book, about 4 s) falls back to the anytime search in the
    time left."""
    import time

    from noughts.engine import choose_move
    from noughts.exact.solver import solver_for
    from noughts.position import Position
    from noughts.variants import variant

    solver_for(variant("4x5")).search.table.clear()  # whatever an earlier test solved
    choose_move(Position("", "4x5"), time_limit=0.2)  # one-off tables and imports
    began = time.perf_counter()
    record = run_json(["move", "--variant", "4x5", "--time", "0.3"], capsys)
    assert record["method"] == "anytime" and time.perf_counter() - began < 0.8


def test_move_time_counts_from_the_commands_start(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``--time`` bounds what the user waits: the start-up before the search (parsing,
    imports, the board's tables) comes out of it, not on top of it."""
    import time

    import noughts.engine as engine_module
    from noughts.budget import Limit

    seen: list[Limit] = []
    real = engine_module.choose_move

    def slow_start(position: Position, limit: Limit | None = None, **options: object
                   ) -> object:
        assert limit is not None
        seen.append(limit)
        return real(position, limit, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(engine_module, "choose_move", slow_start)
    before = time.perf_counter()
    record = run_json(["move", "--variant", "4x4x4", "--time", "0.3", "--json"], capsys)
    assert record["move"] is not None
    (limit,) = seen
    assert before <= limit.start <= before + 0.1  # the command's start, not the search's
    assert limit.deadline == pytest.approx(limit.start + 0.3)


# -- every command keeps a bound -----------------------------------------------------------
@pytest.mark.parametrize("command", ["move", "analyze"])
def test_move_and_analyze_without_time_get_the_apis_default_limit(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No ``--time`` is the API's default time (``noughts.budget.DEFAULT_SECONDS``, the
    service's ``default_time_ms``), counted from the command's start, and the help says so."""
    import noughts.engine as engine_module
    from noughts.budget import DEFAULT_SECONDS, Limit
    from noughts.service.settings import Settings

    assert Settings().default_time_ms == DEFAULT_SECONDS * 1000
    seen: list[Limit | None] = []
    name = {"move": "choose_move", "analyze": "evaluate_moves"}[command]
    real = getattr(engine_module, name)

    def spy(position: Position, limit: Limit | None = None, **options: object) -> object:
        seen.append(limit)
        return real(position, limit, **options)

    monkeypatch.setattr(engine_module, name, spy)
    run_json([command, "--variant", "4x4k3"], capsys)
    (limit,) = seen
    assert limit is not None and limit.seconds == pytest.approx(DEFAULT_SECONDS)
    with pytest.raises(SystemExit):
        main([command, "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"default {DEFAULT_SECONDS:g} s, as the API's" in help_text


def test_move_on_a_board_too_slow_to_solve_answers_within_the_default_limit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The empty 4x5 board: a full solve took minutes; without ``--time`` the move comes
    within the default second (and a little start-up)."""
    import time

    from noughts.budget import DEFAULT_SECONDS

    began = time.perf_counter()
    record = run_json(["move", "--variant", "4x5"], capsys)
    assert record["move"] is not None
    assert time.perf_counter() - began < DEFAULT_SECONDS + 1.5


def test_a_long_search_shows_progress_on_a_terminal_and_never_with_json() -> None:
    """Past a few seconds a search shows a Rich progress line at a terminal (on stderr,
    gone when the answer comes); ``--json`` at the same terminal prints JSON only."""
    import pexpect

    env = {**os.environ, "PYTHONPATH": str(Path(noughts.__file__).parent.parent),
           "COLUMNS": "120"}
    command = [sys.executable, "-m", "noughts", "analyze", "--variant", "5x5k4", "--time", "3.5"]
    child = pexpect.spawn(command[0], command[1:], env=env, encoding="utf-8", timeout=60)
    child.expect(r"X to move on 5x5k4: every move's value.*of 3\.5 s")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "each move's value for X" in child.before
    quiet = pexpect.spawn(command[0], [*command[1:], "--json"], env=env, encoding="utf-8",
                          timeout=60)
    quiet.expect(pexpect.EOF)
    quiet.close()
    assert quiet.exitstatus == 0
    record = json.loads(quiet.before)  # nothing else on the terminal
    assert record["variant"] == "5x5k4" and len(record["moves"]) == 25


def test_progress_line_shows_what_runs_and_goes_away() -> None:
    import time

    from rich.console import Console

    from noughts.budget import Limit
    from noughts.cli.progress import with_progress

    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100)
    answer = with_progress(
        lambda: time.sleep(0.6) or 42, "solving 4x5", show=True, limit=Limit.within(2.0),
        nodes=lambda: 1234, quiet_s=0.1, console=console,
    )  # fmt: skip
    assert answer == 42
    assert "solving 4x5" in screen.getvalue() and "1,234 nodes" in screen.getvalue()
    quiet = io.StringIO()
    with_progress(lambda: time.sleep(0.3), "quick", show=True, quiet_s=1.0,
                  console=Console(file=quiet, force_terminal=True))  # fmt: skip
    assert quiet.getvalue() == ""
    with pytest.raises(ZeroDivisionError):
        with_progress(lambda: 1 // 0, "failing", show=True, quiet_s=0.1)


def test_version_prints_the_package_version_and_the_search_core(
        capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    from noughts.search import core

    status, out, err = run(["--version"], capsys)
    assert (status, out, err) == (
        0, f"noughts {version('noughts')}, search core: {core.name()}\n", "")
    source = str(Path(noughts.__file__).parent.parent)
    done = subprocess.run([sys.executable, "-m", "noughts", "--version"], capture_output=True,
                          text=True, timeout=60, check=True,
                          env={**os.environ, "PYTHONPATH": source})  # fmt: skip
    assert done.stdout == out
    pure = subprocess.run([sys.executable, "-m", "noughts", "--version"], capture_output=True,
                          text=True, timeout=60, check=True,
                          env={**os.environ, "PYTHONPATH": source,
                               "NOUGHTS_PURE_PYTHON": "1"})  # fmt: skip
    assert pure.stdout.endswith("search core: python\n")
