"""``noughts explain`` and ``POST /api/v1/explain``: one trace, in the terminal and over HTTP."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")  # starlette's TestClient on httpx

from fastapi.testclient import TestClient  # noqa: E402

from noughts.cli import main  # noqa: E402
from noughts.position import Position  # noqa: E402
from noughts.service.app import create_app  # noqa: E402
from noughts.service.explain import MAX_KEPT_NODES, NODE_LIMIT  # noqa: E402
from noughts.service.settings import Settings  # noqa: E402
from noughts.teaching.trace import ALGORITHMS, trace  # noqa: E402


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(warmup=False))) as test_client:
        yield test_client


# -- the terminal -------------------------------------------------------------------------
def test_explain_prints_a_bounded_tree_and_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["explain", "X../.O./...", "--lines", "5"], capsys)
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("alphabeta on X../.O./... (3x3, X to move): draw, best move")
    tree = [line for line in lines if "window (" in line]
    assert len(tree) == 5 and tree[0].startswith("root")
    assert tree[1].startswith("  X b3  window (-inf, +inf)")
    full = trace(Position("X../.O./..."), "alphabeta", max_stored=0)
    assert f"... {full.nodes - 5:,} more positions entered, not shown" in out
    table = lines[lines.index(next(line for line in lines if line.startswith("algorithm"))) :]
    assert [row.split()[0] for row in table[1:]] == list(ALGORITHMS)
    assert f" {full.nodes:,} " in table[2]


def test_explain_plain_words_say_what_values_mean_and_why_a_branch_was_cut(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(["explain", "XOX/OO./X..", "--lines", "20", "--plain"], capsys)
    assert status == 0
    lines = out.splitlines()
    assert "in words: each position's window (alpha, beta) holds what X is already sure" in out
    words = [line.strip() for line in lines if line.strip().startswith("= ")]
    nodes = [line for line in lines if "  window (" in line and "->" in line]
    assert len(words) == len(nodes) == 9  # one plain line under each position
    assert words[0] == "= worth a loss for X in 2 moves (O wins), exactly"
    cuts = [line for line in words if line.startswith("= cut:")]
    assert len(cuts) == 2 and all("is never searched" in line for line in cuts)
    assert "= the game is over: a draw, exactly" in words
    status, out, _ = run(["explain", "XOX/OO./X..", "--lines", "20"], capsys)
    assert "    = " not in out and "in words" not in out  # plain words only when asked


def test_explain_json_counts_the_tutorial_way(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["explain", ".../.X./...", "--tutorial", "--json", "--lines", "3"], capsys)
    assert status == 0
    data = json.loads(out)
    assert data["counted"] == 8_465 and data["truncated"] and len(data["stored"]) == 3
    rows = {row["algorithm"]: row for row in data["compare"]}
    assert rows["minimax"]["counted"] == 55_505 and rows["alphabeta"]["counted"] == 8_465


def test_explain_shows_cutoffs_and_depth(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["explain", "XOX/OO./X..", "--lines", "100"], capsys)
    assert "CUT after c2, skipping c1: alpha -8 >= beta -8" in out
    _, out, _ = run(["explain", "", "--variant", "3x3", "--depth", "1"], capsys)
    assert out.startswith("depth-limited on .../.../... (3x3, X to move, depth 1): heuristic score")
    assert "[horizon]" in out


def test_explain_stops_a_walk_at_its_node_limit(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["explain", "X........", "--node-limit", "9000", "-a", "symmetry"],
                         capsys)
    assert status == 0
    assert "more than 9,000 positions: stopped" in out  # minimax's row
    status, _, err = run(["explain", "X........", "-a", "minimax", "--node-limit", "500"], capsys)
    assert status == 2 and err.startswith("noughts: error: the trace would enter more than 500")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["XXX/OO./..."], "the game is over"),
        (["XX./X../..."], "noughts: error:"),
        (["X..", "-a", "minimax", "--depth", "2"], "--depth applies to the depth-limited"),
        (["X../.../...", "-a", "bogus"], "invalid choice: 'bogus'"),
        (["X../.../...", "--lines", "-1"], "cannot be negative"),
    ],
)
def test_explain_errors_are_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(["explain", *args], capsys)
    assert status == 2 and message in err and err.count("\n") == 1


# -- the API -------------------------------------------------------------------------------
def test_api_returns_the_same_trace_as_the_engine(client: TestClient) -> None:
    body = {"board": "X../.O./...", "algorithm": "transposition", "max_nodes": 40}
    data = client.post("/api/v1/explain", json=body).json()
    expected = trace(Position("X../.O./..."), "transposition", max_stored=40).to_json()
    for key in ("value", "value_text", "best_move", "pv", "nodes", "cutoffs", "table_hits"):
        assert data[key] == (list(expected[key]) if key == "pv" else expected[key]), key
    assert len(data["stored"]) == 40 and data["truncated"] and data["node_limit"] == NODE_LIMIT
    assert data["stored"][1]["parent"] == 0 and data["stored"][1]["move"] == 1
    assert [row["algorithm"] for row in data["compare"]] == list(ALGORITHMS)


def test_api_names_every_cell_beside_its_index(client: TestClient) -> None:
    from noughts.notation import square_name
    from noughts.variants import variant

    geometry = variant("3x3")
    body = {"board": "XOX/OO./X..", "algorithm": "alphabeta"}
    data = client.post("/api/v1/explain", json=body).json()
    assert data["best_move"] == 5 and data["best_square"] == "c2"
    assert data["pv_squares"] == [square_name(geometry, cell) for cell in data["pv"]]
    assert data["stored"][0]["square"] is None  # the root: no move led there
    cuts = 0
    for node in data["stored"][1:]:
        assert node["square"] == square_name(geometry, node["move"])
        if node["cutoff"]:
            cuts += 1
            cut = node["cutoff"]
            assert cut["after_square"] == square_name(geometry, cut["after"])
            assert cut["skipped_squares"] == [square_name(geometry, c) for c in cut["skipped"]]
    assert cuts == 2
    for row in data["compare"]:
        assert row["best_square"] == square_name(geometry, row["best_move"])


def test_a_misere_trace_scores_a_completed_line_as_a_loss() -> None:
    from noughts.exact.solver import solve

    for board in ("XX./OO./...", "X../.O./...", "XO./.X./..O"):
        normal = trace(Position(board), "alphabeta")
        misere = trace(Position(board, "3x3-misere"), "alphabeta")
        assert misere.exact_value() == solve(Position(board, "3x3-misere")), board
        assert normal.exact_value() == solve(Position(board)), board
    first = trace(Position("XX./OO./...", "3x3-misere"), "minimax").stored[1]
    assert (first.move, first.why, first.value < 0) == (2, "O wins", True)  # X completed


def test_final_positions_have_exact_values(capsys: pytest.CaptureFixture[str]) -> None:
    """A finished game is scored outright, whatever the window: never shown as a bound."""
    for board in ("XOX/OO./X..", "X../.O./...", "XO./.X./..O"):
        result = trace(Position(board), "alphabeta")
        leaves = [n for n in result.stored if n.why in ("X wins", "O wins", "draw")]
        assert leaves and all(node.bound == "exact" for node in leaves), board
    status, out, _ = run(["explain", "XOX/OO./X..", "--lines", "20"], capsys)
    assert status == 0
    finals = [line for line in out.splitlines() if "wins]" in line or "[draw]" in line]
    assert finals and not [line for line in finals if "<=" in line or ">=" in line], finals


def test_api_counts_the_tutorial_way_and_can_skip_the_table(client: TestClient) -> None:
    body = {"board": ".../.X./...", "algorithm": "minimax", "tutorial": True, "compare": False}
    data = client.post("/api/v1/explain", json=body).json()
    assert data["counted"] == 55_505 and data["compare"] == []
    assert "tutorial" in data["counting"]


def test_api_bounds_are_named(client: TestClient) -> None:
    answer = client.post("/api/v1/explain", json={"max_nodes": MAX_KEPT_NODES + 1})
    assert answer.status_code == 422 and "max_nodes" in answer.json()["detail"]
    assert "5000" in answer.json()["detail"]
    answer = client.post("/api/v1/explain", json={"variant": "4x4", "algorithm": "minimax"})
    assert answer.status_code == 413
    assert f"more than {NODE_LIMIT:,} positions" in answer.json()["detail"]
    answer = client.post("/api/v1/explain", json={"variant": "5x5k4"})
    assert answer.status_code == 400 and "at most 16 cells" in answer.json()["detail"]


def test_api_bad_requests(client: TestClient) -> None:
    answer = client.post("/api/v1/explain", json={"board": "XXX/OO./..."})
    assert answer.status_code == 409 and "game is over" in answer.json()["detail"]
    answer = client.post("/api/v1/explain", json={"algorithm": "negascout"})
    assert answer.status_code == 422 and "algorithm" in answer.json()["detail"]
    answer = client.post("/api/v1/explain", json={"depth": 3})
    assert answer.status_code == 422 and "depth-limited" in answer.json()["detail"]
    answer = client.post("/api/v1/explain", json={"algorithm": "depth-limited", "depth": 3})
    assert answer.status_code == 200 and answer.json()["depth"] == 3


def test_explain_without_a_board_takes_the_empty_board(capsys: pytest.CaptureFixture[str]) -> None:
    """As ``move`` and ``analyze`` do: no BOARD is the empty board of ``--variant``."""
    status, out, err = run(["explain", "--variant", "4x4k3", "--depth", "2", "--json"], capsys)
    assert status == 0, err
    assert json.loads(out)["board"] == "..../..../..../...."
    status, out, err = run(["explain", "--algorithm", "symmetry", "--json"], capsys)
    assert status == 0, err
    assert json.loads(out)["board"] == ".../.../..."
    # Qubic's empty board: taken, and refused past the node bound in one line
    status, out, err = run(["explain", "--variant", "qubic", "--node-limit", "1000"], capsys)
    assert status == 2 and out == ""
    assert err.startswith("noughts: error: the trace would enter more than 1,000 positions")
    assert err.count("\n") == 1


def test_explain_keeps_a_time_limit(capsys: pytest.CaptureFixture[str]) -> None:
    """The API's explain deadline by default (``--help`` says so); past ``--time`` one
    line and exit 2."""
    from noughts.budget import EXPLAIN_SECONDS
    from noughts.service.explain import DEADLINE_S

    assert DEADLINE_S == EXPLAIN_SECONDS
    status, out, err = run(["explain", "--variant", "4x4", "--algorithm", "minimax",
                            "--node-limit", "100000000", "--time", "0.3"], capsys)  # fmt: skip
    assert status == 2 and out == ""
    assert err.splitlines() == [
        "noughts: error: the trace and its table took longer than 0.3 s; give more --time, "
        "a smaller --node-limit, a depth limit or a later position"
    ]
    with pytest.raises(SystemExit):
        main(["explain", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"(default {EXPLAIN_SECONDS:g} s, as the API's explain)" in help_text
