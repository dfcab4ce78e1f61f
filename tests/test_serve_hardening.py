"""A real `noughts serve` under hostile clients: slow and half-sent requests are cut off,
a busy port is a one-line error, a killed server comes back (loopback only)."""

from __future__ import annotations

import contextlib
import http.client
import json
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from serving import Server, free_port, request, serving, start, stop
from waiting import wait_until

TIMEOUT_S = 1.0
"""The request timeout the server under test runs with (NOUGHTS_REQUEST_TIMEOUT_S)."""

SLOW_CLIENTS = 240
"""Connections opened and left hanging (a third idle, a third mid-header, a third mid-body)."""


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving({"NOUGHTS_REQUEST_TIMEOUT_S": str(TIMEOUT_S)}) as running:
        yield running


def _slow_client(port: int, kind: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    if kind == 1:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    elif kind == 2:
        sock.sendall(
            b"POST /api/v1/move HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"board\": \"X."
        )
    return sock


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        return sock.recv(1024) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_slow_clients_are_cut_off_and_the_server_keeps_answering(server: Server) -> None:
    sockets = [_slow_client(server.port, n % 3) for n in range(SLOW_CLIENTS)]
    try:
        began = time.monotonic()
        status, _, raw = request(f"{server.base}/api/v1/move", b'{"board": "X../.../..."}')
        assert status == 200 and json.loads(raw)["move"] == 4
        assert request(f"{server.base}/healthz")[0] == 200
        assert time.monotonic() - began < TIMEOUT_S  # answered while they all hang
        deadline = began + TIMEOUT_S + 5
        for sock in sockets:
            assert _closed_by_server(sock, max(0.1, deadline - time.monotonic()))
    finally:
        for sock in sockets:
            sock.close()
    assert request(f"{server.base}/healthz")[0] == 200


def test_a_slow_search_is_not_cut_off_by_the_request_timeout(server: Server) -> None:
    body = json.dumps({"variant": "4x4x4", "time_ms": int(TIMEOUT_S * 1000) + 500}).encode()
    status, _, raw = request(f"{server.base}/api/v1/move", body)
    assert status in (200, 429), raw
    if status == 200:
        assert json.loads(raw)["budget_ms"] == int(TIMEOUT_S * 1000) + 500


def test_a_client_leaving_mid_body_leaves_no_traceback() -> None:
    with serving() as running:
        for _ in range(20):
            sock = _slow_client(running.port, 2)
            sock.close()
        time.sleep(0.3)
        assert request(f"{running.base}/healthz")[0] == 200
    assert "Traceback" not in running.output()


def test_a_busy_port_is_a_one_line_error_before_any_announcement(server: Server) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "noughts", "serve", "--port", str(server.port)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"noughts: error: cannot serve on 127.0.0.1:{server.port}")
    assert "--port" in done.stderr and done.stderr.count("\n") == 1


def test_a_server_killed_mid_load_comes_back_and_answers() -> None:
    port = free_port()
    first = start(port=port)
    body = json.dumps({"variant": "4x4", "board": "X.../.O../..../....", "time_ms": 300})

    def load() -> None:
        with contextlib.suppress(OSError, http.client.HTTPException):  # the server dies
            request(f"{first.base}/api/v1/move", body.encode(), timeout=5)

    clients = [threading.Thread(target=load) for _ in range(6)]
    for client in clients:
        client.start()

    def loaded() -> bool:
        stats = json.loads(request(f"{first.base}/api/v1/stats")[2])
        return bool(stats["engine"]["started"])

    wait_until(loaded, 10, "the load to reach the server")
    first.process.send_signal(signal.SIGKILL)
    first.process.wait()
    for client in clients:
        client.join(10)
    again = start(port=port)  # the same port, straight away
    try:
        status, _, raw = request(f"{again.base}/api/v1/move", b'{"board": "XX./OO./..."}')
        assert status == 200 and json.loads(raw)["move"] == 2
    finally:
        assert stop(again) == 0
