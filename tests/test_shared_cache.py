"""The move cache shared through a real ``redis-server`` started here on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from noughts.position import Position
from noughts.service.app import create_app
from noughts.service.cache import cache_key
from noughts.service.settings import Settings
from noughts.service.shared_cache import CHOICE_EXAMPLE, INDEX, SharedCache, decode_entry
from noughts.service.warmup import warm
from noughts.variants import variant
from serving import request as serving_request
from serving import serving

redis = pytest.importorskip("redis")
SERVER = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(SERVER is None, reason="needs redis-server (apt-get install)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def redis_server(password: str | None = None) -> Iterator[int]:
    """A redis-server on 127.0.0.1 (asking for ``password``, if given), answering pings
    (or a while waited for it); its port. Stopped at the end."""
    assert SERVER is not None
    port = free_port()
    guard = [] if password is None else ["--requirepass", password]
    server = subprocess.Popen(
        [SERVER, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly",
         "no", *guard],
        stdout=subprocess.DEVNULL,
    )
    client = redis.Redis(host="127.0.0.1", port=port, password=password)
    try:
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        yield port
    finally:
        client.close()
        server.terminate()
        server.wait(10)


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as port:
        yield f"redis://127.0.0.1:{port}/0"


@pytest.fixture
def store(redis_url: str) -> Iterator[Any]:
    client = redis.Redis.from_url(redis_url)
    client.flushall()
    yield client
    client.close()


def settings(url: str, **options: Any) -> Settings:
    return Settings(cache_url=url, warmup=False, **options)


def stats(client: TestClient) -> dict[str, Any]:
    shared: dict[str, Any] = client.get("/api/v1/stats").json()["cache"]["shared"]
    return shared


QUBIC = ".X" + "." * 61 + "O"  # an edge and a corner: off the strategy, searched


def test_two_instances_share_an_answer_under_its_canonical_key(redis_url: str, store: Any) -> None:
    warm(variant("4x4x4"))  # Qubic answers are cached once its symmetry tables are built
    # a generous timeout: this test is about sharing, not about a loaded machine's delays
    generous = settings(redis_url, cache_timeout_ms=5000)
    first, second = (TestClient(create_app(generous)) for _ in range(2))
    request = {"board": QUBIC, "variant": "qubic", "time_ms": 100}
    answer = first.post("/api/v1/move", json=request).json()
    assert answer["cached"] is False
    first.app.state.service.shared.flush()  # type: ignore[attr-defined]
    # the same position mirrored, on the other instance: its cache is empty, Redis has it
    mirrored = Position(QUBIC, "4x4x4").transform(1)
    again = second.post("/api/v1/move", json={**request, "board": mirrored.board}).json()
    assert again["cached"] is True
    # the stored answer, mapped onto this board (a symmetric position has equivalent cells)
    assert again["move"] in mirrored.legal_moves and again["score"] == answer["score"]
    assert again["depth"] == answer["depth"] and again["nodes"] == answer["nodes"]
    assert stats(second) | {"hits": 1, "status": "ok"} == stats(second)
    assert stats(first)["stored"] == 1 and store.zcard(INDEX) == 1
    # a larger budget than the stored answer's is not served from it
    assert second.post("/api/v1/move", json={**request, "time_ms": 300}).json()["cached"] is False


def test_entries_have_the_ttl_and_the_size_cap(redis_url: str, store: Any) -> None:
    shared = SharedCache(redis_url, ttl_s=60, maxsize=3, timeout_s=0.5, retry_s=1)
    keys = []
    for cells in range(5):
        position = Position("", "3x3").play(cells)
        key = cache_key("move", position, level=10)
        keys.append(key)
        shared.store(key, CHOICE_EXAMPLE, searched_ms=100, exact=False)
    shared.flush()
    names = [name for name in store.scan_iter() if name != INDEX.encode()]
    assert len(names) == 3 == store.zcard(INDEX)
    assert all(0 < store.pttl(name) <= 60_000 for name in names)
    assert asyncio.run(shared.lookup(keys[0], budget_ms=100)) is None  # the oldest went
    entry = asyncio.run(shared.lookup(keys[4], budget_ms=100))
    assert entry is not None and entry[0] == CHOICE_EXAMPLE
    assert asyncio.run(shared.lookup(keys[4], budget_ms=101)) is None  # searched with less
    store.set(names[0], b"not json")  # a corrupt entry is a miss, never an error
    assert decode_entry(store.get(names[1]), CHOICE_EXAMPLE.game)[1] == 100
    shared.close()


def test_unreachable_redis_is_skipped_and_reported(caplog: pytest.LogCaptureFixture) -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    client = TestClient(create_app(settings(url, cache_timeout_ms=50, cache_retry_s=60)))
    with caplog.at_level(logging.WARNING, logger="noughts.service"):
        for board in ("XX./OO./...", "X../.O./..."):
            started = time.monotonic()
            response = client.post("/api/v1/move", json={"board": board, "time_ms": 200})
            assert response.status_code == 200 and time.monotonic() - started < 1.0
    shared = stats(client)
    # the ping sent at start-up and the first lookup can both fail before either marks
    # Redis down (they run in different threads): one error or two, one warning
    assert shared["status"] == "unreachable" and shared["errors"] in (1, 2)
    assert shared["skipped"] >= 2 and "ConnectionError" in shared["last_error"]
    warnings = [r.message for r in caplog.records if "unreachable" in r.getMessage()]
    assert len(warnings) == 1


def test_a_slow_redis_costs_only_the_timeout(redis_url: str, store: Any) -> None:
    client = TestClient(create_app(settings(redis_url, cache_timeout_ms=50, cache_retry_s=60)))
    store.execute_command("CLIENT", "PAUSE", "3000")  # every other client's command waits
    try:
        started = time.monotonic()
        response = client.post("/api/v1/move", json={"board": "XX./OO./...", "time_ms": 100})
        elapsed = time.monotonic() - started
    finally:
        store.execute_command("CLIENT", "UNPAUSE")
    assert response.status_code == 200 and response.json()["move"] == 2
    assert elapsed < 1.0
    assert stats(client)["status"] == "unreachable"


def test_cache_url_must_be_redis() -> None:
    with pytest.raises(ValueError, match="redis://"):
        Settings(cache_url="http://127.0.0.1:6379")
    assert Settings(cache_url=" ").cache_url is None


def test_a_stored_value_keeps_whether_its_plies_are_exact() -> None:
    from noughts.results import Bound, Outcome, Value
    from noughts.service.shared_cache import encode_entry

    for value in (Value(Outcome.WIN, 5), Bound(Outcome.WIN, 57)):
        choice = CHOICE_EXAMPLE._replace(value=value, estimate=None)
        raw = encode_entry(choice, searched_ms=10, exact=False)
        stored = decode_entry(raw, choice.game)[0].value
        assert stored is not None and type(stored) is type(value) and str(stored) == str(value)


def test_a_stored_answer_is_the_choices_record_and_reads_back_whole() -> None:
    import json

    from noughts.results import Bound, Outcome
    from noughts.service.shared_cache import encode_entry

    choice = CHOICE_EXAMPLE._replace(value=Bound(Outcome.WIN, 57), traps=2, elapsed_ms=1.23456)
    raw = encode_entry(choice, searched_ms=250, exact=True)
    assert json.loads(raw) == {**choice.to_record(), "searched_ms": 250, "exact": True}
    assert decode_entry(raw, choice.game) == (choice, 250, True)
    with pytest.raises(ValueError, match="not a cached answer"):
        decode_entry(raw.replace(b'"anytime"', b'"guess"'), choice.game)


def test_a_stored_answer_names_its_move_on_the_keys_board() -> None:
    """A record's move is read back in the variant of its key: its square and coords
    are that board's (derived, not stored), and a move off that board is refused."""
    from noughts.service.shared_cache import encode_entry

    choice = CHOICE_EXAMPLE._replace(move=21, game=variant("qubic"), pv=(21,))
    raw = encode_entry(choice, searched_ms=250, exact=False)
    stored = decode_entry(raw, variant("qubic"))[0]
    assert stored == choice and (stored.square, stored.coords) == ("2b3", (1, 1, 1))
    with pytest.raises(ValueError, match="off the board"):
        decode_entry(raw, variant("3x3"))


def test_a_busy_event_loop_is_not_an_unreachable_redis(redis_url: str, store: Any) -> None:
    """Redis answers at once while the event loop is held for 200 ms (a burst of
    requests): the lookup is late for the loop's sake, and nothing counts against Redis."""
    cache = SharedCache(redis_url, ttl_s=60, maxsize=100, timeout_s=0.05, retry_s=60)
    key = cache_key("move", Position("X../.../...", "3x3"), level=10)
    cache.store(key, CHOICE_EXAMPLE, searched_ms=1000, exact=True)
    cache.flush()

    async def lookups_while_the_loop_is_held() -> list[Any]:
        lookups = [asyncio.ensure_future(cache.lookup(key, budget_ms=500)) for _ in range(3)]
        await asyncio.sleep(0)  # the lookups are handed to their threads...
        time.sleep(0.2)  # ...and the loop is held meanwhile
        return list(await asyncio.gather(*lookups))

    try:
        found = asyncio.run(lookups_while_the_loop_is_held())
        assert all(entry is not None for entry in found)
        state = cache.as_json()
        assert state["errors"] == 0 and state["status"] == "ok" and state["hits"] == 3
    finally:
        cache.close()


def test_lookups_past_the_readers_are_skipped_not_failed(redis_url: str, store: Any) -> None:
    from noughts.service.shared_cache import LOOKUP_THREADS

    cache = SharedCache(redis_url, ttl_s=60, maxsize=100, timeout_s=0.5, retry_s=60)
    key = cache_key("move", Position("X../.../...", "3x3"), level=10)
    pause = redis.Redis.from_url(redis_url)
    pause.execute_command("CLIENT", "PAUSE", "300")  # Redis slow, within the timeout

    async def many() -> list[Any]:
        return list(await asyncio.gather(*(cache.lookup(key, budget_ms=500)
                                           for _ in range(LOOKUP_THREADS + 3))))

    try:
        asyncio.run(many())
        state = cache.as_json()
        assert state["skipped"] == 3 and state["errors"] == 0 and state["misses"] == LOOKUP_THREADS
    finally:
        pause.close()
        cache.close()


SECRET = "RealPass7s3cret"
"""The password of the Redis the credential tests start (``--requirepass``)."""


@pytest.fixture(scope="module")
def guarded_redis() -> Iterator[int]:
    """A redis-server on 127.0.0.1 that asks for :data:`SECRET`; its port."""
    with redis_server(SECRET) as port:
        yield port


def _over_http(base: str) -> dict[str, Any]:
    """One searched move, then the shared cache's stats, from a real server."""
    body = json.dumps({"board": "XX./OO./...", "time_ms": 200}).encode()
    assert serving_request(f"{base}/api/v1/move", body)[0] == 200
    time.sleep(0.3)  # (the store, in the background)
    stats_body = serving_request(f"{base}/api/v1/stats")[2]
    shared: dict[str, Any] = json.loads(stats_body)["cache"]["shared"]
    return shared


@pytest.mark.parametrize(("url", "works"), [
    ("redis://127.0.0.1:{port}/0?password={secret}", True),
    ("redis://:{secret}@127.0.0.1:{port}/0#{secret}", True),
    ("redis://127.0.0.1:{port}/0?password=Wrong{secret}", False),
    ("redis://user:Wrong{secret}@127.0.0.1:{port}/0?db=0", False),
])
def test_a_password_in_the_url_never_shows_in_stats_or_logs(
    guarded_redis: int, url: str, works: bool
) -> None:
    given = url.format(port=guarded_redis, secret=SECRET)
    env = {"NOUGHTS_CACHE_URL": given, "NOUGHTS_WARMUP": "false",
           "NOUGHTS_CACHE_TIMEOUT_MS": "500", "NOUGHTS_SEARCH_PROCESSES": "0"}
    with serving(env) as server:
        shared = _over_http(server.base)
    assert SECRET not in json.dumps(shared)
    assert shared["url"].startswith("redis://") and "***" in shared["url"]
    assert shared["status"] == ("ok" if works else "unreachable"), shared
    output = server.output()
    assert SECRET not in output
    if not works:
        assert "unreachable" in output and "***" in output  # the warning, redacted


def test_the_lambda_log_never_shows_the_password(guarded_redis: int) -> None:
    url = f"redis://127.0.0.1:{guarded_redis}/0?password=Wrong{SECRET}"
    script = (
        "import json, logging\n"
        "logging.basicConfig(level=logging.INFO)\n"
        "from noughts.service import lambda_handler\n"
        "event = {'resource': '/', 'path': '/', 'httpMethod': 'POST', 'headers':\n"
        "         {'Content-Type': 'application/json'}, 'multiValueHeaders': {},\n"
        "         'queryStringParameters': None, 'multiValueQueryStringParameters': None,\n"
        "         'requestContext': {'resourcePath': '/', 'httpMethod': 'POST', 'stage': 'Prod',\n"
        "                            'identity': {'sourceIp': '127.0.0.1'}},\n"
        "         'pathParameters': None, 'stageVariables': None, 'isBase64Encoded': False,\n"
        "         'body': json.dumps({'numX': 3, 'numO': 48, 'isX': True})}\n"
        "print(lambda_handler.handler(event, None)['statusCode'])\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
        env={**os.environ, "NOUGHTS_CACHE_URL": url, "NOUGHTS_CACHE_TIMEOUT_MS": "500"},
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "200"
    assert "unreachable" in run.stderr and "password=***" in run.stderr
    assert SECRET not in run.stdout + run.stderr
