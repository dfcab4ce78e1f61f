"""A real `noughts serve` process on a free port, spoken to over HTTP, then stopped."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from serving import request, start, stop


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    running = start({"NOUGHTS_CACHE_SIZE": "100"})
    try:
        yield running.base
    finally:
        status = stop(running)
    assert status == 0


def test_move_over_http(server: str) -> None:
    body = json.dumps({"variant": "4x4k3", "board": "XX../OO../..../...."}).encode()
    status, headers, raw = request(f"{server}/api/v1/move", body)
    answer: dict[str, Any] = json.loads(raw)
    assert status == 200 and headers["content-type"] == "application/json"
    assert (answer["move"], answer["outcome"], answer["board_after"]) == (
        2,
        "win",
        "XXX./OO../..../....",
    )


def test_the_readmes_curl_line_shows_what_the_server_returns(server: str) -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    found = re.search(r"curl -s localhost:8000(\S+) -H '([^']+)' \\\n\s+-d '([^']+)'\n# (.+)\n",
                      readme)
    assert found, "the README's curl example"
    path, header, body, shown = found.groups()
    assert header == "Content-Type: application/json"
    status, _, raw = request(f"{server}{path}", body.encode())
    text = raw.decode()
    assert status == 200
    start, _, end = shown.partition(",...,")  # what the README leaves out: timings, ...
    assert text.startswith(start) and text.endswith(end), (shown, text)


def test_seed_client_over_http(server: str) -> None:
    body = json.dumps({"numX": 3, "numO": 48, "isX": True}).encode()
    status, headers, raw = request(f"{server}/", body, content_type="text/plain;charset=UTF-8")
    assert status == 200 and json.loads(raw) == [0, 2]
    assert headers["access-control-allow-origin"] == "*"


def test_analysis_and_explanation_over_http(server: str) -> None:
    # noughts serve runs these in its search worker processes (one per core)
    body = json.dumps({"variant": "4x4k3", "board": "XX../OO../..../...."}).encode()
    status, _, raw = request(f"{server}/api/v1/analyze", body)
    moves = {m["move"]: m["outcome"] for m in json.loads(raw)["moves"]}
    assert status == 200 and moves[2] == "win" and len(moves) == 12
    body = json.dumps({"board": "XX./OO./...", "tutorial": True}).encode()
    status, _, raw = request(f"{server}/api/v1/explain", body)
    assert status == 200 and json.loads(raw)["best_move"] == 2
    status, _, raw = request(f"{server}/api/v1/stats")
    engine = json.loads(raw)["engine"]
    assert engine["processes"] >= 1 and engine["processes_ready"] == engine["processes"]


def test_errors_and_stats_over_http(server: str) -> None:
    status, _, raw = request(f"{server}/api/v1/move", b'{"variant": "3x3k7"}')
    assert status == 400 and "unknown variant" in json.loads(raw)["detail"]
    status, _, raw = request(f"{server}/api/v1/stats")
    stats = json.loads(raw)
    assert status == 200 and stats["maxsize"] == 200  # moves + analyses, from NOUGHTS_CACHE_SIZE
    assert stats["misses"] >= 1


def test_page_over_http(server: str) -> None:
    status, headers, raw = request(f"{server}/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b"<html" in raw.lower()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve", "--port", "70000"], "port must be 0-65535, not 70000"),
        (["serve", "--port", "http"], "port must be a number"),
        (["serve", "--workers", "0"], "--workers: must be at least 1"),
    ],
)
def test_bad_serve_options_are_one_line_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from noughts.cli import main

    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.startswith("noughts: error:") and message in error
    assert error.count("\n") == 1


def test_bad_setting_in_the_environment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from noughts.cli import main

    monkeypatch.setenv("NOUGHTS_MAX_SEARCHES", "zero")
    assert main(["serve"]) == 2
    assert "NOUGHTS_MAX_SEARCHES" in capsys.readouterr().err
