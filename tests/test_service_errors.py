"""Every bad request gets a 4xx whose one message names the problem; limits hold."""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*")  # starlette's TestClient on httpx

from fastapi.testclient import TestClient  # noqa: E402

import noughts.service.jobs as jobs_module  # noqa: E402
from noughts.budget import Limit  # noqa: E402
from noughts.position import Position  # noqa: E402
from noughts.results import MoveChoice  # noqa: E402
from noughts.service.app import create_app  # noqa: E402
from noughts.service.settings import Settings  # noqa: E402


def quiet_settings(**values: Any) -> Settings:
    """Settings without the start-up warm-up: no background work left running after a
    test to slow down the tests that follow (the warm-up has its own test)."""
    return Settings(warmup=False, **values)


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(quiet_settings())) as test_client:
        yield test_client


def detail(response: Any) -> str:
    body = response.json()
    assert set(body) == {"detail"} and isinstance(body["detail"], str), body
    message: str = body["detail"]
    return message


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"variant": "3x3k9"}, 400, ["unknown variant", "3x3k9"]),
        ({"variant": "hexagon"}, 400, ["unknown variant", "hexagon"]),
        ({"board": "XX"}, 400, ["2 cells", "9"]),
        ({"board": "XQ./.../..."}, 400, ["unexpected character", "Q"]),
        ({"numX": 3, "numO": 1}, 400, ["overlapping", "cell(s) 0"]),
        ({"numX": 1 << 9, "numO": 0}, 400, ["outside the board", "bit 9"]),
        ({"numX": -1, "numO": 0}, 422, ["numX", "greater than or equal to 0"]),
        ({"variant": ""}, 422, ["variant", "at least 1 character"]),
        ({"seed": 2**63 - 1023, "level": 3}, 422, ["seed", "less than or equal to"]),
        ({"numX": 7, "numO": 0}, 400, ["impossible counts", "3 X and 0 O"]),
        ({"numX": 1, "numO": 0, "to_move": "X"}, 400, ["impossible counts", "O is to move"]),
        ({"numX": 1}, 400, ["numO is missing"]),
        ({"board": "X../.../...", "numX": 1, "numO": 0}, 400, ["either", "not both"]),
        ({"isX": True, "to_move": "O"}, 400, ["disagree"]),
        ({"board": "XXX/OOO/..."}, 400, ["both players have a line"]),
        ({"board": "XXX/OO./...", "x": 1}, 422, ["unknown field 'x'"]),
        ({"level": 11}, 422, ["level", "less than or equal to 10"]),
        ({"level": "ten"}, 422, ["level", "integer"]),
        ({"numX": 1.5, "numO": 0}, 422, ["numX", "integer"]),
        ({"to_move": "Z"}, 422, ["to_move"]),
        ({"time_ms": 0}, 422, ["time_ms", "greater than or equal to 1"]),
        ({"variant": 33}, 422, ["variant", "string"]),
    ],
)
def test_bad_input_names_the_problem(
    client: TestClient, body: dict[str, Any], status: int, words: list[str]
) -> None:
    for path in ("/api/v1/move", "/api/v1/analyze"):
        if path.endswith("analyze") and "level" in body:
            continue
        response = client.post(path, json=body)
        assert response.status_code == status, (path, response.text)
        message = detail(response)
        for word in words:
            assert word in message, (word, message)


@pytest.mark.parametrize(
    ("board", "reason"), [("XXX/OO./...", "X has already won"), ("XOX/XOO/OXX", "board is full")]
)
def test_finished_game_is_409(client: TestClient, board: str, reason: str) -> None:
    for path in ("/api/v1/move", "/api/v1/analyze"):
        response = client.post(path, json={"board": board})
        assert response.status_code == 409
        assert "game is over" in detail(response) and reason in detail(response)


@pytest.mark.parametrize("depth", [500, 990, 10_000])
def test_deeply_nested_json_is_400_everywhere(client: TestClient, depth: int) -> None:
    nested = b"[" * depth + b"]" * depth
    for path in ("/", "/api/v1/move", "/api/v1/analyze"):
        for body in (nested, b'{"numX": ' + nested + b', "numO": 0}'):
            response = client.post(path, content=body, headers={"content-type": "application/json"})
            assert 400 <= response.status_code < 500, (path, depth, response.text)


def test_the_schema_bounds_are_what_validation_accepts(client: TestClient) -> None:
    openapi = client.get("/openapi.json").json()
    seed = openapi["components"]["schemas"]["MoveRequest"]["properties"]["seed"]["anyOf"][0]
    for bound in (seed["maximum"], seed["minimum"]):
        assert int(bound) == bound  # the schema's number, read as a double, is the bound
        response = client.post("/api/v1/move", json={"board": "X........", "level": 3,
                                                      "seed": int(bound)})
        assert response.status_code == 200, response.text
    body = openapi["paths"]["/"]["post"]["requestBody"]["content"]["application/json"]
    seed_client = body["schema"]["properties"]
    assert seed_client["numO"]["minimum"] == 0 and seed_client["numO"]["maximum"] == 2**16 - 1


def test_finished_game_from_the_seed_client_is_409(client: TestClient) -> None:
    response = client.post("/", json={"numX": 0b111, "numO": 0b11_0000, "isX": False})
    assert response.status_code == 409 and "X has already won" in detail(response)
    assert response.headers["access-control-allow-origin"] == "*"


def test_body_must_be_a_json_object(client: TestClient) -> None:
    response = client.post("/api/v1/move", json=[1, 2])
    assert response.status_code == 422 and "JSON object" in detail(response)
    missing = client.post("/api/v1/move", headers={"content-type": "application/json"})
    assert missing.status_code == 422 and "missing" in detail(missing)


def test_bad_json_is_400(client: TestClient) -> None:
    for path in ("/api/v1/move", "/"):
        response = client.post(
            path, content=b'{"board": ', headers={"content-type": "application/json"}
        )
        assert response.status_code == 400 and "not valid JSON" in detail(response)


@pytest.mark.parametrize(
    ("content_type", "shown"),
    [("text/plain", "'text/plain'"), ("application/xml", "'application/xml'"), (None, "missing")],
)
def test_wrong_content_type_is_415(
    client: TestClient, content_type: str | None, shown: str
) -> None:
    headers = {"content-type": content_type} if content_type else {}
    response = client.post("/api/v1/move", content=b'{"board": "X../.../..."}', headers=headers)
    assert response.status_code == 415
    assert shown in detail(response) and "application/json" in detail(response)


def test_seed_client_rejects_non_json_types(client: TestClient) -> None:
    response = client.post(
        "/", content=b"<x/>", headers={"content-type": "application/xml"}
    )
    assert response.status_code == 415 and "application/xml" in detail(response)


def test_seed_client_field_errors(client: TestClient) -> None:
    missing = client.post("/", json={"numX": 0})
    assert missing.status_code == 422 and detail(missing) == "numO is required"
    outside = client.post("/", json={"numX": 1 << 16, "numO": 0})
    assert outside.status_code == 422 and "numX" in detail(outside)
    negative = client.post("/", json={"numX": 0, "numO": -1637})
    assert negative.status_code == 422 and "numO" in detail(negative)
    wrong = client.post("/", json={"numX": 1, "numO": 0, "isX": True})
    assert wrong.status_code == 400 and "impossible counts" in detail(wrong)


def test_body_too_large_is_413() -> None:
    with TestClient(create_app(quiet_settings(max_body_bytes=1000))) as test_client:
        padding = "." * 2000
        declared = test_client.post(
            "/api/v1/move",
            content=f'{{"board": "{padding}"}}'.encode(),
            headers={"content-type": "application/json"},
        )
        assert declared.status_code == 413
        assert "too large" in detail(declared) and "1000" in detail(declared)

        def chunks() -> Iterator[bytes]:  # no Content-Length: sent chunked
            yield b'{"board": "'
            for _ in range(20):
                yield b"." * 100
            yield b'"}'

        chunked = test_client.post(
            "/api/v1/move", content=chunks(), headers={"content-type": "application/json"}
        )
        assert chunked.status_code == 413 and "too large" in detail(chunked)
        small = test_client.post("/api/v1/move", json={"board": "X../.../..."})
        assert small.status_code == 200


def test_board_larger_than_the_server_allows() -> None:
    with TestClient(create_app(quiet_settings(max_cells=50))) as test_client:
        response = test_client.post("/api/v1/move", json={"variant": "8x8k5"})
        assert response.status_code == 400 and "64 cells" in detail(response)


def test_unknown_path_and_method(client: TestClient) -> None:
    assert client.get("/api/v1/nothing").status_code == 404
    response = client.get("/api/v1/move")
    assert response.status_code == 405 and detail(response) == "Method Not Allowed"


# -- limits: busy slots, deadlines ----------------------------------------------------------
def test_saturated_search_slots_answer_429(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    real_choose = jobs_module.choose_move

    def blocking_choose(position: Position, *args: Any, **kwargs: Any) -> MoveChoice:
        release.wait(10)
        return real_choose(position, *args, **kwargs)

    monkeypatch.setattr(jobs_module, "choose_move", blocking_choose)
    app = create_app(quiet_settings(max_searches=1, queue_wait_ms=50, max_time_ms=5000))
    with TestClient(app) as test_client:
        results: list[int] = []
        first = threading.Thread(
            target=lambda: results.append(
                test_client.post("/api/v1/move", json={"board": "X../.../...", "time_ms": 3000})
                .status_code
            )
        )
        first.start()
        deadline = time.monotonic() + 5
        while app.state.service.runner.running == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        started = time.monotonic()
        busy = test_client.post("/api/v1/move", json={"board": "X../.O./..."})
        waited = time.monotonic() - started
        release.set()
        first.join(10)
        assert busy.status_code == 429 and busy.headers["retry-after"] == "1"
        assert "busy" in detail(busy)
        assert waited < 1.0  # at once: the slot is taken for 3 s, longer than this budget
        assert results == [200]
        stats = test_client.get("/api/v1/stats").json()["engine"]
        assert stats["rejected"] == 1 and stats["running"] == 0


def spin_forever(position: Position, limit: Limit | None = None, **_: Any) -> MoveChoice:
    """A search (the engine's plan, or the exact solver in it) that never ends by itself:
    only its limit stops it."""
    assert limit is not None
    while True:
        limit.check()


def test_a_search_past_its_deadline_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jobs_module, "choose_move", spin_forever)
    app = create_app(quiet_settings(max_time_ms=5000))
    with TestClient(app) as test_client:
        started = time.monotonic()
        response = test_client.post(
            "/api/v1/move", json={"board": "X../.../...", "level": 3, "time_ms": 300}
        )
        elapsed = time.monotonic() - started
        assert response.status_code == 503 and "300 ms" in detail(response)
        assert elapsed < 0.3 + 0.1 + 0.25  # budget + grace, with slack for a busy machine
        runner = app.state.service.runner
        stop_by = time.monotonic() + 2
        while runner.running and time.monotonic() < stop_by:
            time.sleep(0.01)
        assert runner.running == 0 and runner.deadline_misses == 1


def test_a_slow_exact_solve_falls_back_to_the_anytime_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import noughts.exact.solver as solver_module

    monkeypatch.setattr(solver_module, "best_move", spin_forever)  # the engine's exact stage
    app = create_app(quiet_settings())
    with TestClient(app) as test_client:
        started = time.monotonic()
        response = test_client.post("/api/v1/move", json={"variant": "4x4", "time_ms": 400})
        elapsed = time.monotonic() - started
        assert response.status_code == 200, response.text
        assert response.json()["method"] == "anytime"
        assert elapsed < 0.4 + 0.1 + 0.25
        assert app.state.service.fallbacks == 1


def test_an_exact_solve_too_long_for_the_budget_answers_on_time() -> None:
    # 4x5 with 4 in a row, the empty board: within the solver's reach but far from quick
    # (its best move: about 22 million nodes, 3 s on the compiled core; no opening book).
    app = create_app(quiet_settings())
    with TestClient(app) as test_client:
        body = {"variant": "4x5", "time_ms": 400}
        test_client.post("/api/v1/move", json=body)  # the board's one-off tables
        started = time.monotonic()
        response = test_client.post("/api/v1/move", json=body)
        elapsed = time.monotonic() - started
        assert response.status_code == 200, response.text
        answer = response.json()
        assert answer["method"] == "anytime" and answer["move"] in range(20)
        assert elapsed < 0.4 + 0.1 + 0.3  # budget + grace, with slack for a busy machine
        assert app.state.service.fallbacks == 2


def test_a_client_that_goes_away_stops_its_search() -> None:
    import asyncio

    from noughts.service.runner import ClientGoneError, EngineRunner

    runner = EngineRunner(max_searches=1, queue_wait_s=0.0)
    polls: list[Limit] = []

    def work(limit: Limit) -> None:
        polls.append(limit)
        while True:
            limit.check()

    async def gone() -> bool:
        return bool(polls)  # the client leaves once the search has started

    async def request() -> None:
        await runner.run(work, Limit.within(seconds=30), client_gone=gone)

    started = time.monotonic()
    with pytest.raises(ClientGoneError):
        asyncio.run(request())
    assert time.monotonic() - started < 2 and polls[0].cancelled
    stop_by = time.monotonic() + 2
    while runner.running and time.monotonic() < stop_by:
        time.sleep(0.01)
    assert runner.running == 0


def test_a_search_that_raises_does_not_take_the_server_down(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = jobs_module.choose_move
    calls = {"count": 0}

    def faulty(position: Position, *args: Any, **kwargs: Any) -> Any:
        calls["count"] += 1
        if calls["count"] == 1:
            raise RuntimeError("injected fault in the search")
        return real(position, *args, **kwargs)

    monkeypatch.setattr(jobs_module, "choose_move", faulty)
    with TestClient(create_app(quiet_settings()), raise_server_exceptions=False) as test_client:
        broken = test_client.post("/api/v1/move", json={"board": "X../.../..."})
        assert broken.status_code == 500 and detail(broken) == "internal error: RuntimeError"
        after = test_client.post("/api/v1/move", json={"board": "X../.../..."})
        assert after.status_code == 200 and after.json()["move"] == 4
        engine = test_client.get("/api/v1/stats").json()["engine"]
        assert engine["running"] == 0 and engine["started"] == 2  # the slot came back
