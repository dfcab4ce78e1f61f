"""What an operator runs the service by: readiness, Prometheus metrics, request ids,
JSON access logs, a public mode, and a stop that drains instead of cutting."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from noughts.service.app import create_app
from noughts.service.middleware import access_logger
from noughts.service.settings import Settings
from serving import serving, start

LOAD_CLIENT = Path(__file__).resolve().parent.parent / "benchmarks" / "load_client.py"


def _settings(**options: object) -> Settings:
    return Settings(warmup=False, search_processes=0, **options)


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def test_readiness_is_off_while_starting_and_draining() -> None:
    app = create_app(Settings(warmup=False, search_processes=1))
    client = TestClient(app)  # no start-up run: the worker is not up
    answer = client.get("/readyz")
    assert answer.status_code == 503 and answer.json()["detail"].startswith("starting")
    assert client.get("/healthz").json() == {"status": "ok"}  # alive all the same
    threads = TestClient(create_app(_settings()))
    assert threads.get("/readyz").json() == {"status": "ready"}
    threads.app.state.lifecycle.drain()  # type: ignore[attr-defined]
    answer = threads.get("/readyz")
    assert answer.status_code == 503 and answer.json()["detail"].startswith("draining")


def test_metrics_count_requests_by_route_variant_and_status() -> None:
    client = TestClient(create_app(_settings()))
    for _ in range(3):
        assert client.post("/api/v1/move", json={"board": "XX./OO./..."}).status_code == 200
    assert client.post("/api/v1/move", json={"variant": "qubic", "board": "x"}).status_code == 400
    assert client.post("/", json={"numX": 3, "numO": 48, "isX": True}).status_code == 200
    assert client.get("/no/such/page").status_code == 404
    answer = client.get("/metrics")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain")
    samples = _samples(answer.text)
    move = (("method", "POST"), ("route", "/api/v1/move"), ("status", "200"), ("variant", "3x3"))
    assert samples[("noughts_requests_total", move)] == 3
    bad = (("method", "POST"), ("route", "/api/v1/move"), ("status", "400"),
           ("variant", "4x4x4"))
    assert samples[("noughts_requests_total", bad)] == 1
    other = (("method", "GET"), ("route", "other"), ("status", "404"), ("variant", ""))
    assert samples[("noughts_requests_total", other)] == 1
    series = (("method", "POST"), ("route", "/api/v1/move"), ("variant", "3x3"))
    assert samples[("noughts_request_duration_seconds_count", series)] == 3
    assert samples[("noughts_cache_hits_total", (("layer", "local"),))] >= 2
    for name in ("noughts_admission_rejections_total", "noughts_search_worker_restarts_total",
                 "noughts_searches_started_total", "noughts_cache_misses_total"):
        assert any(key[0] == name for key in samples), name


def test_request_ids_are_honoured_or_made() -> None:
    client = TestClient(create_app(_settings()))
    given = client.get("/healthz", headers={"X-Request-ID": "req-42"})
    assert given.headers["x-request-id"] == "req-42"
    for bad in (b"two words", b"x" * 200, "caf\u00e9".encode()):
        made = client.get("/healthz", headers={"X-Request-ID": bad})
        assert re.fullmatch("[0-9a-f]{16,}", made.headers["x-request-id"]), bad  # a new one
    first, second = client.get("/healthz"), client.get("/healthz")
    assert first.headers["x-request-id"] != second.headers["x-request-id"]
    cross = client.get("/healthz", headers={"Origin": "https://a.example"})
    assert "x-request-id" in cross.headers["access-control-expose-headers"].lower()


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_the_json_access_log_has_the_request_id_status_and_latency() -> None:
    client = TestClient(create_app(_settings(access_log="json")))
    kept = _Kept()
    access_logger.addHandler(kept)
    try:
        client.post("/api/v1/move", json={"board": "XX./OO./..."},
                    headers={"X-Request-ID": "trace-7"})
    finally:
        access_logger.removeHandler(kept)
    records = [json.loads(line) for line in kept.lines]
    assert len(records) == 1
    record = records[0]
    assert record["request_id"] == "trace-7" and record["status"] == 200
    assert record["path"] == "/api/v1/move" and record["variant"] == "3x3"
    assert record["latency_ms"] >= 0 and record["time"].endswith("+00:00")


def test_a_public_deployment_hides_the_operator_pages_and_restricts_cors() -> None:
    client = TestClient(create_app(_settings(public=True)))
    for path in ("/docs", "/redoc", "/openapi.json", "/api/v1/stats", "/metrics"):
        assert client.get(path).status_code == 404, path
    preflight = client.options("/api/v1/move", headers={
        "Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"})
    assert "access-control-allow-origin" not in preflight.headers
    assert client.post("/api/v1/move", json={"board": "XX./OO./..."}).status_code == 200
    seed = client.post("/", json={"numX": 3, "numO": 48, "isX": True})
    assert seed.headers["access-control-allow-origin"] == "*"  # the seed's clients, as promised
    opened = TestClient(create_app(_settings(public=True, cors_origins="https://a.example")))
    preflight = opened.options("/api/v1/move", headers={
        "Origin": "https://a.example", "Access-Control-Request-Method": "POST"})
    assert preflight.headers["access-control-allow-origin"] == "https://a.example"


def test_metrics_can_be_turned_off_and_the_warm_up_is_not_counted() -> None:
    assert TestClient(create_app(_settings(metrics=False))).get("/metrics").status_code == 404
    with TestClient(create_app(Settings(search_processes=0))) as client:  # warm-up runs
        samples = _samples(client.get("/metrics").text)
    counted = [key for key in samples if key[0] == "noughts_requests_total"]
    assert counted == []  # the server's own warm-up requests are not traffic


def _load(port: int, pid: int, *, seconds: float, stop_after: float) -> dict[str, object]:
    bodies = [["/api/v1/move", {"variant": "4x4", "board": "X.../..O./..../....",
                                "time_ms": 400}],
              ["/", {"numX": 3, "numO": 48, "isX": True}],
              ["/api/v1/move", {"variant": "qubic", "time_ms": 300,
                                "board": "X.../..../..../....|..../.O../..../....|"
                                         "..../..../..../....|..../..../..../...."}]]
    run = subprocess.run(
        [sys.executable, str(LOAD_CLIENT), str(port), "--requests", "--clients", "64",
         "--seconds", str(seconds), "--stop-after", str(stop_after), "--pid", str(pid)],
        input=json.dumps(bodies), capture_output=True, text=True, timeout=120,
        env={**os.environ},
    )
    assert run.returncode == 0, run.stderr
    report: dict[str, object] = json.loads(run.stdout)
    return report


def test_sigterm_under_load_drains_with_no_reset_and_no_5xx() -> None:
    server = start()
    try:
        report = _load(server.port, server.process.pid, seconds=30, stop_after=2.5)
        status = server.process.wait(timeout=30)
    finally:
        if server.process.poll() is None:
            server.process.kill()
    assert report["resets"] == 0, report
    assert report["server_errors"] == 0, report
    assert isinstance(report["answered_after_stop"], int) and report["answered_after_stop"] > 0
    assert isinstance(report["refused"], int) and report["refused"] > 0  # then no more
    assert status in (0, -signal.SIGTERM), server.output()
    assert "Traceback" not in server.output()


def _keep_alive_get(connection: socket.socket, path: str) -> tuple[int, str, bytes]:
    connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += connection.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length")))
    while len(body) < length:
        body += connection.recv(65536)
    status = int(head.split()[1])
    return status, head.decode().lower(), body


def test_readiness_goes_off_at_once_and_the_socket_closes_while_a_search_finishes() -> None:
    with serving({"NOUGHTS_DRAIN_S": "8"}) as server:
        with socket.create_connection(("127.0.0.1", server.port)) as open_connection:
            assert _keep_alive_get(open_connection, "/readyz")[0] == 200
            slow = subprocess.Popen(  # a 2-second Qubic search, in flight at the signal
                [sys.executable, "-c",
                 "import sys, urllib.request; sys.path.insert(0, sys.argv[2]); "
                 "from serving import request; "
                 "print(request(sys.argv[1] + '/api/v1/move', "
                 "b'{\"variant\": \"qubic\", \"board\": \"X.../..../..../....|..../.O../"
                 "..../....|..../..../..../....|..../..../..../....\", \"time_ms\": 2000}', "
                 "timeout=30)[0])", server.base, str(Path(__file__).parent)],
                stdout=subprocess.PIPE, text=True)
            time.sleep(0.5)  # (the request is in: its search runs for 2 s)
            server.process.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 5
            status, head, body = _keep_alive_get(open_connection, "/readyz")
            while status == 200 and time.monotonic() < deadline:  # the signal's way in
                status, head, body = _keep_alive_get(open_connection, "/readyz")
            assert status == 503 and b"draining" in body
            while "connection: close" not in head and time.monotonic() < deadline:
                status, head, body = _keep_alive_get(open_connection, "/readyz")
            assert "connection: close" in head  # once the drain has begun: the last answer
            refused_by = time.monotonic() + 3
            while time.monotonic() < refused_by:
                try:
                    socket.create_connection(("127.0.0.1", server.port), timeout=1).close()
                except ConnectionRefusedError:
                    break
                time.sleep(0.05)
            else:
                pytest.fail("the listening socket still accepts after SIGTERM")
            out, _ = slow.communicate(timeout=30)
            assert out.strip() == "200"  # the accepted search finished and was answered
        assert server.process.wait(timeout=15) in (0, -signal.SIGTERM)


def test_the_drain_time_is_a_setting() -> None:
    server = start({"NOUGHTS_DRAIN_S": "0.5"})
    try:
        slow = subprocess.Popen(
            [sys.executable, "-c",
             "import urllib.request, sys\n"
             "try:\n"
             "    urllib.request.urlopen(urllib.request.Request(sys.argv[1], data=sys.argv[2]"
             ".encode(), headers={'Content-Type': 'application/json'}), timeout=30)\n"
             "except Exception as error:\n"
             "    print(type(error).__name__)\n",
             server.base + "/api/v1/move",
             json.dumps({"variant": "qubic", "time_ms": 5000,
                         "board": "X.../..../..../....|..../.O../..../....|"
                                  "..../..../..../....|..../..../..../...."})],
            stdout=subprocess.PIPE, text=True)
        time.sleep(0.7)
        began = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(timeout=15)
        assert time.monotonic() - began < 4  # not the search's 5 s: the drain's 0.5 s
        slow.communicate(timeout=30)
    finally:
        if server.process.poll() is None:
            server.process.kill()
