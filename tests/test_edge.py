"""The service's edge is well formed whatever goes wrong behind it: a 500 carries the
request id, CORS and timing headers and keeps (or says it closes) the connection; request
heads are bounded; JSON logs are JSON only; credentials never show."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import noughts.service.jobs as jobs_module
import noughts.service.middleware as middleware
from faulty_serve import FAILING_BOARD, faulty_choose_move
from noughts.service.app import create_app
from noughts.service.memory import resident_mb
from noughts.service.settings import Settings
from serving import free_port, request, serving
from waiting import wait_until

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
    seed = client.post("/", json={"numX": 1, "numO": 2, "isX": True})  # no Origin sent
    assert seed.status_code == 500 and seed.headers["access-control-allow-origin"] == "*"
    assert seed.headers["x-request-id"] and seed.json() == {"detail": "internal error: "
                                                                      "RuntimeError"}


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


def _send_head(port: int, header_bytes: int, *, pieces: int = 1, chunk: int = 65_536) -> bytes:
    """Send a GET /healthz whose headers hold ``header_bytes`` bytes of values (in
    ``pieces`` headers), ``chunk`` bytes a write; the answer's first bytes."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n")
        each = header_bytes // pieces
        try:
            for piece in range(pieces):
                sock.sendall(b"X-Filler-%d: " % piece)
                for start in range(0, each, chunk):
                    sock.sendall(b"a" * min(chunk, each - start))
                sock.sendall(b"\r\n")
            sock.sendall(b"\r\n")
        except OSError:  # refused mid-way: the answer is waiting
            pass
        answer = b""
        with contextlib.suppress(ConnectionResetError):  # (then the answer is short)
            while True:  # (the server closes after its answer)
                more = sock.recv(65_536)
                if not more:
                    break
                answer += more
        return answer


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def test_request_heads_are_bounded_with_a_431_in_front_of_the_app() -> None:
    with serving({"NOUGHTS_WARMUP": "false"}) as server:
        assert _status(_send_head(server.port, 31_000)) == 200  # under 32 KiB in all
        assert _status(_send_head(server.port, 31_000, pieces=31)) == 200
        refused = _send_head(server.port, 33_000)
        head, _, body = refused.partition(b"\r\n\r\n")
        assert _status(refused) == 431 and b"connection: close" in head.lower()
        assert json.loads(body) == {"detail": "request headers too large: more than 32768 "
                                              "bytes; the limit is 32768 bytes"}
        assert _status(_send_head(server.port, 33_000, pieces=33)) == 431  # the total counts
        before = resident_mb(server.process.pid)
        assert before is not None
        peak = [before]
        done = threading.Event()

        def watch() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], resident_mb(server.process.pid) or 0.0)
                time.sleep(0.01)

        watcher = threading.Thread(target=watch)
        watcher.start()
        with ThreadPoolExecutor(8) as clients:  # eight 40 MB headers at once
            answers = list(clients.map(lambda _: _send_head(server.port, 40_000_000), range(8)))
        done.set()
        watcher.join()
        assert [_status(answer) for answer in answers] == [431] * 8
        assert peak[0] - before < 20, (before, peak[0])  # (it grew 200 MB, unbounded)
        assert request(f"{server.base}/healthz")[0] == 200


def _pipelined(port: int, count: int, header_bytes: int) -> list[int]:
    """Send ``count`` GET /healthz at once, in one write, each with a header of
    ``header_bytes``; the statuses of the answers (the last request closes)."""
    requests = b"".join(
        b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: %s\r\n%s\r\n"
        % (b"a" * header_bytes, b"Connection: close\r\n" if n == count - 1 else b"")
        for n in range(count))
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(requests)
        answers = b""
        while True:
            more = sock.recv(65_536)
            if not more:
                break
            answers += more
    return [int(status) for status in re.findall(rb"HTTP/1\.1 (\d{3}) ", answers)]


def test_pipelined_requests_are_not_taken_for_one_long_head() -> None:
    with serving({"NOUGHTS_WARMUP": "false"}) as server:
        assert _pipelined(server.port, 100, 2_000) == [200] * 100  # 200 KB in one write
        assert _pipelined(server.port, 3, 40_000) == [431]  # the first is too long


def test_the_head_bound_is_a_setting() -> None:
    with serving({"NOUGHTS_WARMUP": "false", "NOUGHTS_MAX_HEADER_BYTES": "8192"}) as server:
        assert _status(_send_head(server.port, 7_000)) == 200
        assert _status(_send_head(server.port, 9_000)) == 431


def test_stdout_is_json_lines_only_when_the_log_is_json() -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, FAULTY_SERVE, "serve", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "NOUGHTS_ACCESS_LOG": "json", "NOUGHTS_WARMUP": "false",
             "NOUGHTS_SEARCH_PROCESSES": "0"},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: _answers(f"{base}/healthz"), 30, "the server to answer")
        assert request(f"{base}/api/v1/move", b'{"board": "X../.../..."}')[0] == 200
        assert request(f"{base}/api/v1/move", json.dumps({"board": FAILING_BOARD}).encode()
                       )[0] == 500
        assert request(f"{base}/no/such/page")[0] == 404
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    lines = out.decode().splitlines()
    records = [json.loads(line) for line in lines]  # every line is JSON
    assert records[0]["event"] == "serving" and records[0]["url"] == f"{base}/"
    answered = [record["status"] for record in records[1:] if record["path"] != "/healthz"]
    assert answered == [200, 500, 404]
    assert "RuntimeError: injected fault" in err.decode()  # the traceback: on stderr


def _answers(url: str) -> bool:
    try:
        return request(url, timeout=2)[0] == 200
    except OSError:
        return False


def test_the_h11_protocol_bounds_heads_alike() -> None:
    import asyncio

    import uvicorn

    from noughts.service import connections

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})

    connections.configure(10.0, 32_768)
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, http=connections.GuardedH11Protocol,
                            log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()))
    thread.start()
    try:
        wait_until(lambda: server.started, 30, "uvicorn to start")
        assert _status(_send_head(port, 31_000)) == 200  # above h11's own 16 KiB
        assert _status(_send_head(port, 33_000, pieces=33)) == 431
        assert _status(_send_head(port, 40_000_000)) == 431
        assert _pipelined(port, 100, 2_000) == [200] * 100
    finally:
        server.should_exit = True
        thread.join(30)
