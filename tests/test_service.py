"""The move service through FastAPI's TestClient: every endpoint, the cache, the drop-in."""

from __future__ import annotations

import re
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")  # starlette's TestClient on httpx

from fastapi.testclient import TestClient  # noqa: E402

from noughts.engine import evaluate_moves  # noqa: E402
from noughts.position import Position  # noqa: E402
from noughts.service.app import create_app  # noqa: E402
from noughts.service.routes import web_directory  # noqa: E402
from noughts.service.settings import Settings  # noqa: E402


def quiet_settings(**values: Any) -> Settings:
    """Settings without the start-up warm-up: no background work left running after a
    test to slow down the tests that follow (the warm-up has its own test)."""
    return Settings(warmup=False, **values)


SEED_BODY = {"numX": 0b0000_0000_0000_0011, "numO": 0b0000_0000_0011_0000, "isX": True}
"""X on (0,0), (0,1); O on (1,0), (1,1): X to move wins at (0,2) on 4x4 with 3 in a row."""


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(quiet_settings())) as test_client:
        yield test_client


def best_values(position: Position) -> tuple[set[int], int]:
    """The cells of best value and that value's score, straight from the engine."""
    evaluations = evaluate_moves(position)
    top = max(e.score or 0 for e in evaluations)
    return {e.move for e in evaluations if e.score == top}, int(top)


def move(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/v1/move", json=body)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


# -- POST /api/v1/move ---------------------------------------------------------------------
def test_move_takes_the_win_and_reports_the_finished_game(client: TestClient) -> None:
    answer = move(client, board="XX./OO./...")
    assert answer["move"] == 2 and answer["coords"] == [0, 2]
    assert (answer["proven"], answer["outcome"], answer["plies"]) == (True, "win", 1)
    assert answer["method"] == "exact" and answer["level"] == 10
    assert answer["board"] == "XX./OO./..." and answer["to_move"] == "X"
    assert answer["board_after"] == "XXX/OO./..."
    assert (answer["game_over"], answer["winner"], answer["winning_line"]) == (True, "X", [0, 1, 2])
    assert answer["pv"][0] == 2 and answer["nodes"] >= 0 and answer["elapsed_ms"] >= 0


def test_move_from_bitmasks_matches_the_board_string(client: TestClient) -> None:
    from_masks = move(client, variant="4x4k3", **SEED_BODY)
    from_board = move(client, variant="4x4k3", board="XX../OO../..../....")
    assert from_masks["move"] == from_board["move"] == 2
    assert from_masks["outcome"] == "win" and from_masks["board"] == "XX../OO../..../...."


def test_side_to_move_on_equal_counts(client: TestClient) -> None:
    by_flag = move(client, numX=1, numO=2, isX=False)
    by_name = move(client, numX=1, numO=2, to_move="O")
    assert by_flag["to_move"] == by_name["to_move"] == "O"
    assert by_flag["board_after"].count("O") == 2


def test_empty_request_is_the_empty_board(client: TestClient) -> None:
    answer = move(client)
    assert answer["variant"] == "3x3" and answer["board"] == ".../.../..."
    assert answer["outcome"] == "draw" and answer["plies"] == 9


@pytest.mark.parametrize("variant", ["3x3", "4x4k3", "4x4"])
def test_an_empty_board_string_is_the_empty_board_as_in_the_library(
    client: TestClient, variant: str
) -> None:
    empty = Position("", variant)
    answer = move(client, board="", variant=variant, time_ms=500)
    assert answer["board"] == empty.board and answer["to_move"] == "X"
    if variant == "3x3":  # (solved on the spot: every move's value)
        analysis = client.post("/api/v1/analyze", json={"board": "", "variant": variant})
        assert analysis.status_code == 200 and analysis.json()["board"] == empty.board
    both = client.post("/api/v1/move", json={"board": "", "numX": 1, "numO": 0})
    assert both.status_code == 400 and "not both" in both.json()["detail"]


@pytest.mark.parametrize(
    "board", ["X../.O./...", "XO./.X./..O", "X.O/.../...", ".../.X./O..", "XO./OX./X.."]
)
def test_move_is_of_best_value(client: TestClient, board: str) -> None:
    position = Position(board)
    best, _ = best_values(position)
    assert move(client, board=board)["move"] in best


def test_time_ms_is_clamped_to_the_servers_limits() -> None:
    app = create_app(quiet_settings(max_time_ms=300, min_time_ms=20))
    with TestClient(app) as test_client:
        assert move(test_client, board="X../.../...", time_ms=10**8)["budget_ms"] == 300
        assert move(test_client, board="X../.O./...", time_ms=1)["budget_ms"] == 20
        assert move(test_client, board="X../.O./..X")["budget_ms"] == 300  # default, capped


def test_level_below_ten_is_seeded_and_never_cached(client: TestClient) -> None:
    first = move(client, board="X../.../...", level=2, seed=7)
    again = move(client, board="X../.../...", level=2, seed=7)
    assert first["method"] == "level" and first["level"] == 2
    assert first["move"] == again["move"]
    assert not first["cached"] and not again["cached"]
    assert first["move"] in Position("X../.../...").legal_moves


def test_qubic_move_and_analysis_come_within_the_budget(client: TestClient) -> None:
    from noughts.service.warmup import warm
    from noughts.variants import variant

    warm(variant("qubic"))  # the one-off tables, as the server builds them at start
    board = ".X" + "." * 61 + "O"
    started = time.monotonic()
    answer = move(client, variant="qubic", board=board, time_ms=300)
    elapsed = time.monotonic() - started
    assert answer["variant"] == "4x4x4" and answer["move"] in Position(board, "qubic").legal_moves
    assert answer["method"] == "anytime" and answer["budget_ms"] == 300
    assert len(answer["coords"]) == 3 and answer["board_after"].count("X") == 2
    assert elapsed < 0.3 + 0.1 + 0.3  # budget + grace, with slack for a busy machine
    analysis = client.post("/api/v1/analyze", json={"variant": "qubic", "board": board,
                                                    "time_ms": 300}).json()
    assert sorted(m["move"] for m in analysis["moves"]) == [0, *range(2, 63)]


# -- the cache -------------------------------------------------------------------------------
def test_repeated_position_is_a_cache_hit(client: TestClient) -> None:
    first = move(client, board="X../.O./..X")
    again = move(client, board="X../.O./..X")
    assert (first["cached"], again["cached"]) == (False, True)
    assert again["move"] == first["move"] and again["outcome"] == first["outcome"]


def test_symmetric_positions_share_one_entry_and_map_the_move_back(client: TestClient) -> None:
    base = Position("XO./.X./...", first="X").play(8)  # O to move... then X: a real game
    geometry = base.geometry
    answers = []
    for symmetry in range(len(geometry.symmetries)):
        image = base.transform(symmetry)
        answer = move(client, board=image.board)
        answers.append(answer)
        best, _ = best_values(image)
        assert answer["move"] in best, (image.board, answer)
        expected = geometry.symmetries[symmetry][answers[0]["move"]]
        assert answer["move"] == expected  # the same entry, mapped through the symmetry
    assert not answers[0]["cached"]
    assert all(a["cached"] for a in answers[1:])
    stats = client.get("/api/v1/stats").json()
    assert stats["hits"] == len(answers) - 1 and stats["size"] >= 1


def test_symmetric_4x4_positions_share_an_entry(client: TestClient) -> None:
    first = move(client, variant="4x4k3", numX=1 << 0, numO=1 << 5, isX=True)
    mirrored = move(client, variant="4x4k3", numX=1 << 3, numO=1 << 6, isX=True)
    assert mirrored["cached"] and not first["cached"]
    row, col = first["coords"]
    assert mirrored["coords"] == [row, 3 - col]


def test_cache_can_be_turned_off() -> None:
    with TestClient(create_app(quiet_settings(cache_size=0))) as test_client:
        move(test_client, board="X../.../...")
        assert not move(test_client, board="X../.../...")["cached"]
        stats = test_client.get("/api/v1/stats").json()
        assert stats["size"] == 0 and stats["maxsize"] == 0


def test_cache_entries_expire() -> None:
    with TestClient(create_app(quiet_settings(cache_ttl_s=0.05))) as test_client:
        move(test_client, board="X../.../...")
        time.sleep(0.1)
        assert not move(test_client, board="X../.../...")["cached"]


# -- POST /api/v1/analyze ----------------------------------------------------------------
def test_analyze_gives_every_legal_move_its_exact_value(client: TestClient) -> None:
    response = client.post("/api/v1/analyze", json={"board": "XX./OO./..."})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["to_move"] == "X" and body["board"] == "XX./OO./..."
    values = {m["move"]: (m["outcome"], m["plies"]) for m in body["moves"]}
    expected = {e.move: (e.outcome, e.plies) for e in evaluate_moves(Position("XX./OO./..."))}
    assert values == expected and values[2] == ("win", 1)
    assert [m["move"] for m in body["moves"]] == sorted(values)
    assert body["moves"][0]["coords"] == [0, 2]


def test_values_come_in_the_engines_words(client: TestClient) -> None:
    # the page shows these words; it keeps no copy of them
    moves = client.post("/api/v1/analyze", json={"board": "XX./OO./..."}).json()["moves"]
    words = {m["square"]: m["words"] for m in moves}
    assert (words["c3"], words["c2"], words["a1"]) == ("win in 1", "draw", "loss in 2")
    assert move(client, board="XX./OO./...")["words"] == "win in 1"
    assert move(client, board="X../.O./...")["words"] == "draw"
    qubic = client.post("/api/v1/analyze", json={"variant": "qubic", "board": ".X" + "." * 61 + "O",
                                                  "time_ms": 100}).json()["moves"]
    unproven = [m for m in qubic if not m["proven"]]
    assert unproven and all(m["words"].startswith("heuristic score ") for m in unproven)


def test_analyze_of_a_symmetric_image_is_cached_and_mapped(client: TestClient) -> None:
    first = client.post("/api/v1/analyze", json={"board": "X../.../..."}).json()
    rotated = client.post("/api/v1/analyze", json={"board": "..X/.../..."}).json()
    assert rotated["cached"] and not first["cached"]
    values = {m["move"]: m["outcome"] for m in rotated["moves"]}
    expected = {e.move: e.outcome for e in evaluate_moves(Position("..X/.../..."))}
    assert values == expected


def test_analyze_ignores_level(client: TestClient) -> None:
    body = client.post("/api/v1/analyze", json={"board": "X../.../...", "level": 0}).json()
    assert len(body["moves"]) == 8 and all(m["proven"] for m in body["moves"])


# -- GET endpoints --------------------------------------------------------------------------
def test_variants_lists_the_featured_boards(client: TestClient) -> None:
    variants = {v["name"]: v for v in client.get("/api/v1/variants").json()["variants"]}
    assert {"3x3", "4x4k3", "4x4", "4x4x4"} <= set(variants)
    assert variants["3x3"]["aliases"][0] == "tictactoe" and "qubic" in variants["4x4x4"]["aliases"]
    assert [variants[n]["lines"] for n in ("3x3", "4x4k3", "4x4", "4x4x4")] == [8, 24, 10, 76]
    assert variants["4x4x4"]["shape"] == [4, 4, 4] and variants["4x4x4"]["k"] == 4
    assert variants["3x3"]["exact"] and variants["4x4"]["exact"] and not variants["4x4x4"]["exact"]


def test_stats_count_hits_and_misses(client: TestClient) -> None:
    before = client.get("/api/v1/stats").json()
    assert (before["hits"], before["misses"], before["size"]) == (0, 0, 0)
    move(client, board="X../.../...")
    move(client, board="X../.../...")
    after = client.get("/api/v1/stats").json()
    assert (after["hits"], after["misses"], after["size"]) == (1, 1, 1)
    assert after["hit_rate"] == 0.5 and after["cache"]["hits"] == 1
    assert after["engine"]["started"] == 1 and after["engine"]["running"] == 0


def test_stats_say_which_search_core_runs(client: TestClient,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from noughts.search import core

    assert client.get("/api/v1/stats").json()["engine"]["core"] == core.name()
    monkeypatch.setattr(core, "name", lambda: "python")
    assert client.get("/api/v1/stats").json()["engine"]["core"] == "python"


def test_answers_say_how_long_they_were_in_the_app(client: TestClient) -> None:
    response = client.post("/api/v1/move", json={"board": "XX./OO./..."})
    timing = response.headers["server-timing"]
    assert re.fullmatch(r"app;dur=\d+\.\d", timing), timing
    assert 0 < float(timing.removeprefix("app;dur=")) < 10_000


def test_healthz(client: TestClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_openapi_docs(client: TestClient) -> None:
    assert "text/html" in client.get("/docs").headers["content-type"]
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/v1/move", "/api/v1/analyze", "/api/v1/variants", "/healthz", "/"} <= set(paths)
    assert "post" in paths["/"] and "get" not in paths["/"]


def test_redoc_is_served_offline(client: TestClient) -> None:
    """/redoc answers with ReDoc's page, whose script and icon this server serves itself
    (no CDN, no web fonts), as /docs does."""
    page = client.get("/redoc")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert "/openapi.json" in page.text
    assert all(source.startswith("/") for source in sources), sources
    (script_url,) = [source for source in sources if source.endswith(".js")]
    script = client.get(script_url)
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert len(script.content) > 100_000
    # the script's own fetches stay here too: its side menu's logo came from a CDN
    assert b"cdn.redoc.ly" not in script.content and b"https://cdn" not in script.content
    assert client.get("/docs").status_code == 200


def test_page_is_served_at_the_root(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "<html" in response.text.lower()


def test_static_files_are_served(client: TestClient) -> None:
    present = sorted(p.name for p in web_directory().glob("*.js"))
    assert "app.js" in present  # the page ships with the package
    response = client.get(f"/static/{present[0]}")
    assert response.status_code == 200 and "javascript" in response.headers["content-type"]
    assert client.get("/static/no-such-file.js").status_code == 404


# -- the seed-client drop-in ----------------------------------------------------------------
def test_seed_client_gets_row_and_col_with_open_cors(client: TestClient) -> None:
    response = client.post("/", json={"numX": 3, "numO": 48, "isX": True})
    assert response.status_code == 200
    assert response.json() == [0, 2]
    assert response.headers["access-control-allow-origin"] == "*"


def test_seed_client_empty_board_gets_a_best_move(client: TestClient) -> None:
    response = client.post("/", json={"numX": 0, "numO": 0, "isX": True})
    row, col = response.json()
    best, _ = best_values(Position("", "4x4k3"))
    assert row * 4 + col in best


def test_seed_client_with_o_to_move_and_text_plain(client: TestClient) -> None:
    # A browser fetch() without headers sends text/plain: the seed's clients did that.
    response = client.post(
        "/",
        content=b'{"numX": 3, "numO": 16, "isX": false}',
        headers={"content-type": "text/plain;charset=UTF-8", "origin": "https://game.example"},
    )
    assert response.status_code == 200
    row, col = response.json()
    assert (row, col) == (0, 2)  # O must block X's (0,0)-(0,1)-(0,2)
    assert response.headers["access-control-allow-origin"] == "*"


# -- CORS -------------------------------------------------------------------------------------
def test_cors_origins_are_configurable() -> None:
    app = create_app(quiet_settings(cors_origins=["https://play.example"]))
    with TestClient(app) as test_client:
        allowed = test_client.get("/api/v1/variants", headers={"origin": "https://play.example"})
        other = test_client.get("/api/v1/variants", headers={"origin": "https://evil.example"})
        assert allowed.headers["access-control-allow-origin"] == "https://play.example"
        assert "access-control-allow-origin" not in other.headers
        preflight = {
            "origin": "https://evil.example",
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type",
        }
        assert test_client.options("/api/v1/move", headers=preflight).status_code == 400
        seed = test_client.options("/", headers=preflight)
        assert seed.status_code == 200 and seed.headers["access-control-allow-origin"] == "*"


def test_the_docs_document_every_setting() -> None:
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "service.md").read_text()
    section = page.split("## Settings", 1)[1].split("\n## ", 1)[0]
    for name in Settings.model_fields:
        assert f"`NOUGHTS_{name.upper()}`" in section, name


def test_time_bounded_answers_serve_only_smaller_budgets() -> None:
    from noughts.service.cache import MoveCache

    cache: MoveCache[str] = MoveCache(maxsize=4, ttl_s=60)
    key = ("move", "4x4x4", 1, 0, "O", 10)
    cache.put(key, "searched for 500 ms", searched_ms=500, exact=False)
    assert cache.get(key, budget_ms=500) == "searched for 500 ms"
    assert cache.get(key, budget_ms=1000) is None  # a fresh, longer search could do better
    cache.put(key, "searched for 100 ms", searched_ms=100, exact=False)
    assert cache.get(key, budget_ms=400) == "searched for 500 ms"  # not replaced by weaker
    cache.put(key, "proven", searched_ms=50, exact=True)
    assert cache.get(key, budget_ms=10**6) == "proven"
    cache.put(key, "searched for 900 ms", searched_ms=900, exact=False)
    assert cache.get(key, budget_ms=1) == "proven"  # exact answers are never replaced
    assert (cache.hits, cache.misses) == (4, 1)


@pytest.mark.parametrize("name", ["3x3k1", "1x7", "2x2x2", "5x5k4"])
def test_unusual_boards_play_and_then_cache(client: TestClient, name: str) -> None:
    # Degenerate symmetry groups (3x3k1: every cell a line) and anytime boards (5x5k4).
    # A first answer may be a fallback if the solver's one-off work overruns the budget;
    # a fallback is cached only for budgets it covers, so the cache ends up serving.
    from noughts.service.warmup import warm
    from noughts.variants import variant

    warm(variant(name))
    answers = [move(client, variant=name, time_ms=300) for _ in range(3)]
    assert all(a["move"] in Position("", name).legal_moves for a in answers)
    assert not answers[0]["cached"] and answers[-1]["cached"]
    assert answers[-1]["move"] == answers[-2]["move"]


def test_a_small_board_caches_from_its_first_request(client: TestClient) -> None:
    from noughts.service.warmup import is_warm
    from noughts.variants import variant

    assert not is_warm(variant("3x5k3"))  # seen nowhere else in the tests
    first = move(client, variant="3x5k3", board="X..../.O.../.....")
    mirrored = move(client, variant="3x5k3", board="....X/...O./.....")
    assert not first["cached"] and mirrored["cached"]
    row, col = first["coords"]
    assert mirrored["coords"] == [row, 4 - col]


def test_a_repeated_request_gets_the_same_answer_marked_cached(client: TestClient) -> None:
    body = {"variant": "4x4k3", "board": "X.../.O../..X./....", "time_ms": 700}
    first = move(client, **body)
    again = move(client, **body)
    assert again["cached"] and not first["cached"]
    assert {**first, "cached": True} == again
    other_budget = move(client, **{**body, "time_ms": 900})
    assert other_budget["cached"] and other_budget["budget_ms"] == 900
    stats = client.get("/api/v1/stats").json()
    assert (stats["hits"], stats["misses"]) == (2, 1)  # the second budget: a canonical hit


def test_a_fallback_answer_is_not_served_again(monkeypatch: pytest.MonkeyPatch) -> None:
    import noughts.exact.solver as solver_module
    from noughts.budget import Limit

    def spin(position: Position, *, limit: Limit, **kwargs: Any) -> Any:
        while True:  # a solve that never ends by itself: only its limit stops it
            limit.check()

    real = solver_module.best_move
    monkeypatch.setattr(solver_module, "best_move", spin)  # the engine's exact stage
    with TestClient(create_app(quiet_settings())) as test_client:
        body = {"variant": "4x4", "board": "X.../..../..../...O", "time_ms": 300}
        first = move(test_client, **body)
        assert first["method"] == "anytime" and not first["cached"]
        monkeypatch.setattr(solver_module, "best_move", real)
        again = move(test_client, **body)
        assert again["method"] == "exact" and not again["cached"]  # the solver tried again


def test_server_start_warms_the_featured_variants(monkeypatch: pytest.MonkeyPatch) -> None:
    import noughts.service.app as app_module
    from noughts.geometry import Geometry

    started: list[tuple[Geometry, ...]] = []
    monkeypatch.setattr(app_module, "warm_in_background", lambda *g, **_: started.append(g))
    with TestClient(create_app(Settings())):
        pass
    assert [[g.name for g in call] for call in started] == [["3x3", "4x4k3", "4x4", "4x4x4"]]
    with TestClient(create_app(quiet_settings())):
        pass
    assert len(started) == 1  # NOUGHTS_WARMUP=false: no warm-up


def test_warm_up_builds_the_tables_in_the_background(monkeypatch: pytest.MonkeyPatch) -> None:
    from noughts.runtime.lru import LRU
    from noughts.service import warmup
    from noughts.variants import MAX_KEPT_VARIANTS, variant

    # No board warmed yet, whichever tests ran first: a request on a board warms it
    # (tests/test_service_errors.py asks 4x5), and a board is warmed once per process.
    monkeypatch.setattr(warmup, "_started", LRU(MAX_KEPT_VARIANTS))
    monkeypatch.setattr(warmup, "_warm", LRU(MAX_KEPT_VARIANTS))
    geometry = variant("4x5k4")
    assert not warmup.is_warm(geometry) and warmup.warmed_names() == []
    thread = warmup.warm_in_background(geometry)
    assert thread is not None and warmup.warm_in_background(geometry) is None  # once
    thread.join(60)
    assert warmup.is_warm(geometry) and "4x5" in warmup.warmed_names()  # k=4 is implied
    assert geometry.symmetry_group.ready


def test_the_move_schemas_are_the_results_json_keys() -> None:
    """The API's move models declare the keys of the one JSON form of a move."""
    from noughts.results import MoveEval, Outcome, Value
    from noughts.service.schemas import MoveResponse, MoveValueOut
    from noughts.service.shared_cache import CHOICE_EXAMPLE

    evaluation = MoveEval(4, CHOICE_EXAMPLE.game, Value(Outcome.DRAW, 8))
    assert set(MoveValueOut.model_fields) == {*evaluation.to_json(), "words"}
    assert {*CHOICE_EXAMPLE.to_json(), "words"} <= set(MoveResponse.model_fields)
