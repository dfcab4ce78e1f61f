"""The service's edge is well formed whatever goes wrong behind it: a 500 carries the
request id, CORS and timing headers and keeps (or says it closes) the connection; request
heads are bounded; JSON logs are JSON only; credentials never show."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import noughts.service.jobs as jobs_module
import noughts.service.middleware as middleware
from faulty_serve import FAILING_BOARD, faulty_choose_move
from noughts.service.app import create_app
from noughts.service.settings import Settings
from serving import serving

FAULTY_SERVE = str(Path(__file__).resolve().parent / "faulty_serve.py")


def _settings(**values: Any) -> Settings:
    return Settings(warmup=False, search_processes=0, **values)


def test_a_500_carries_the_request_id_cors_and_timing_headers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jobs_module, "choose_move", faulty_choose_move)
    client = TestClient(create_app(_settings()), raise_server_exceptions=False)
    headers = {"Origin": "https://page.example", "X-Request-ID": "trace-500"}
    broken = client.post("/api/v1/move", json={"board": FAILING_BOARD}, headers=headers)
    assert broken.status_code == 500
    assert broken.json() == {"detail": "internal error: RuntimeError"}
    assert broken.headers["x-request-id"] == "trace-500"
    assert broken.headers["access-control-allow-origin"] == "*"
    assert broken.headers["server-timing"].startswith("app;dur=")
    assert "connection" not in broken.headers  # answered in the app: the connection stays
    fine = client.post("/api/v1/move", json={"board": "X../.../..."}, headers=headers)
    assert fine.status_code == 200 and fine.json()["move"] == 4


def test_a_500_from_the_outer_middleware_says_it_closes_and_keeps_the_request_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def broken(self: Any, scope: Any, receive: Any, send: Any) -> None:
        raise KeyError("a fault in the CORS layer")

    monkeypatch.setattr(middleware.CorsDispatch, "__call__", broken)
    client = TestClient(create_app(_settings()), raise_server_exceptions=False)
    answer = client.get("/healthz", headers={"X-Request-ID": "outer-1"})
    assert answer.status_code == 500 and answer.json() == {"detail": "internal error: KeyError"}
    assert answer.headers["connection"] == "close"
    assert answer.headers["x-request-id"] == "outer-1"


def test_a_real_server_answers_a_500_and_keeps_the_connection_for_the_next_request() -> None:
    env = {"NOUGHTS_SEARCH_PROCESSES": "0", "NOUGHTS_WARMUP": "false"}
    with serving(env, program=(FAULTY_SERVE,)) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        try:
            sent = {"Content-Type": "application/json", "Origin": "https://page.example"}
            connection.request("POST", "/api/v1/move", json.dumps({"board": FAILING_BOARD}),
                               sent)
            broken = connection.getresponse()
            body = json.loads(broken.read())
            assert broken.status == 500 and body == {"detail": "internal error: RuntimeError"}
            assert broken.getheader("x-request-id")
            assert broken.getheader("access-control-allow-origin") == "*"
            assert (broken.getheader("server-timing") or "").startswith("app;dur=")
            assert broken.getheader("connection") is None and not broken.will_close
            first_socket = connection.sock
            for _ in range(3):  # the same connection serves the next requests
                connection.request("POST", "/api/v1/move", json.dumps({"board": "X../.../..."}),
                                   sent)
                fine = connection.getresponse()
                assert fine.status == 200 and json.loads(fine.read())["move"] == 4
                assert connection.sock is first_socket
        finally:
            connection.close()
    output = server.output()
    assert "internal error answering POST /api/v1/move" in output
    assert "RuntimeError: injected fault in the search" in output  # the traceback, logged
