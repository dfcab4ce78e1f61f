"""The AWS Lambda handler fed realistic API Gateway REST (v1) and HTTP API (v2) events."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pytest

from noughts.position import Position
from noughts.search.core import PURE_PYTHON_VARIABLE
from noughts.service import lambda_handler

SEED_BODY = {"numX": 3, "numO": 48, "isX": True}
"""X on (0,0), (0,1); O on (1,0), (1,1), X to move on 4x4 with 3 in a row: win at (0,2)."""


class LambdaContext:
    """The attributes Lambda's Python runtime gives a handler's context."""

    function_name = "noughts-move"
    function_version = "$LATEST"
    invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:noughts-move"
    memory_limit_in_mb = 1024
    aws_request_id = "52fdfc07-2182-454f-963f-5f0f9a621d72"
    log_group_name = "/aws/lambda/noughts-move"
    log_stream_name = "2024/05/01/[$LATEST]abcdef"

    def get_remaining_time_in_millis(self) -> int:
        return 15_000


def rest_event(
    method: str,
    path: str,
    body: str | None = None,
    *,
    content_type: str | None = "application/json",
    base64_body: bool = False,
) -> dict[str, Any]:
    """An API Gateway REST API (v1) proxy event, as the `/` and `/{proxy+}` resources send."""
    headers = {
        "Accept": "*/*",
        "Host": "abc123.execute-api.eu-west-1.amazonaws.com",
        "Origin": "https://game.example",
        "User-Agent": "Mozilla/5.0",
        "X-Forwarded-For": "203.0.113.7",
        "X-Forwarded-Port": "443",
        "X-Forwarded-Proto": "https",
    }
    if content_type is not None:
        headers["Content-Type"] = content_type
    encoded = body
    if body is not None and base64_body:
        encoded = base64.b64encode(body.encode()).decode()
    resource = "/" if path == "/" else "/{proxy+}"
    return {
        "resource": resource,
        "path": path,
        "httpMethod": method,
        "headers": headers,
        "multiValueHeaders": {name: [value] for name, value in headers.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": None if path == "/" else {"proxy": path.lstrip("/")},
        "stageVariables": None,
        "requestContext": {
            "resourceId": "a1b2c3",
            "resourcePath": resource,
            "httpMethod": method,
            "extendedRequestId": "Y2xhc3NpYz0=",
            "requestTime": "01/May/2024:12:00:00 +0000",
            "path": f"/Prod{path}",
            "accountId": "123456789012",
            "protocol": "HTTP/1.1",
            "stage": "Prod",
            "domainPrefix": "abc123",
            "requestTimeEpoch": 1714564800000,
            "requestId": "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
            "identity": {"sourceIp": "203.0.113.7", "userAgent": "Mozilla/5.0"},
            "domainName": "abc123.execute-api.eu-west-1.amazonaws.com",
            "apiId": "abc123",
        },
        "body": encoded,
        "isBase64Encoded": base64_body,
    }


def http_api_event(
    method: str,
    path: str,
    body: str | None = None,
    *,
    content_type: str | None = "application/json",
    base64_body: bool = False,
) -> dict[str, Any]:
    """An API Gateway HTTP API (v2, payload format 2.0) event for the $default route."""
    headers = {
        "accept": "*/*",
        "host": "xyz789.execute-api.eu-west-1.amazonaws.com",
        "user-agent": "curl/8.5.0",
        "x-forwarded-for": "198.51.100.4",
        "x-forwarded-port": "443",
        "x-forwarded-proto": "https",
    }
    if content_type is not None:
        headers["content-type"] = content_type
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": "",
        "headers": headers,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "xyz789",
            "domainName": "xyz789.execute-api.eu-west-1.amazonaws.com",
            "domainPrefix": "xyz789",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "198.51.100.4",
                "userAgent": "curl/8.5.0",
            },
            "requestId": "JKJaXmPLvHcESHA=",
            "routeKey": "$default",
            "stage": "$default",
            "time": "01/May/2024:12:00:00 +0000",
            "timeEpoch": 1714564800000,
        },
        "isBase64Encoded": base64_body,
    }
    if body is not None:
        event["body"] = base64.b64encode(body.encode()).decode() if base64_body else body
    return event


def invoke(event: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
    answer = lambda_handler.handler(event, LambdaContext())
    headers = {name.lower(): value for name, value in answer["headers"].items()}
    body = answer["body"]
    if answer.get("isBase64Encoded"):
        body = base64.b64decode(body).decode()
    return answer["statusCode"], headers, json.loads(body) if body else None


EVENTS = [pytest.param(rest_event, id="rest-v1"), pytest.param(http_api_event, id="http-v2")]


@pytest.mark.parametrize("make_event", EVENTS)
def test_seed_client_body_gets_row_and_col(make_event: Any) -> None:
    status, headers, body = invoke(make_event("POST", "/", json.dumps(SEED_BODY)))
    assert status == 200 and body == [0, 2]
    assert headers["access-control-allow-origin"] == "*"


@pytest.mark.parametrize("make_event", EVENTS)
def test_base64_encoded_body(make_event: Any) -> None:
    status, headers, body = invoke(
        make_event("POST", "/", json.dumps({"numX": 0, "numO": 0, "isX": True}), base64_body=True)
    )
    assert status == 200 and headers["access-control-allow-origin"] == "*"
    row, col = body
    position = Position("", "4x4k3")
    from noughts.engine import evaluate_moves

    values = {e.move: e.score for e in evaluate_moves(position)}
    assert values[row * 4 + col] == max(values.values())


@pytest.mark.parametrize("make_event", EVENTS)
def test_move_api_through_the_handler(make_event: Any) -> None:
    request = json.dumps({"variant": "3x3", "board": "XX./OO./..."})
    status, headers, body = invoke(make_event("POST", "/api/v1/move", request, base64_body=True))
    assert status == 200 and headers["content-type"] == "application/json"
    assert (body["move"], body["outcome"], body["winner"]) == (2, "win", "X")


@pytest.mark.parametrize("make_event", EVENTS)
def test_wrong_content_type_is_415(make_event: Any) -> None:
    event = make_event("POST", "/api/v1/move", "board=X../.../...", content_type="text/csv")
    status, _, body = invoke(event)
    assert status == 415 and "'text/csv'" in body["detail"]


@pytest.mark.parametrize("make_event", EVENTS)
def test_errors_keep_their_status_and_message(make_event: Any) -> None:
    status, _, body = invoke(make_event("POST", "/api/v1/move", '{"board": "XXX/OO./..."}'))
    assert status == 409 and "game is over" in body["detail"]
    status, headers, body = invoke(make_event("POST", "/", '{"numX": 3, "numO": 3}'))
    assert status == 400 and "overlapping" in body["detail"]
    assert headers["access-control-allow-origin"] == "*"


@pytest.mark.parametrize("make_event", EVENTS)
def test_get_endpoints(make_event: Any) -> None:
    status, _, body = invoke(make_event("GET", "/healthz", content_type=None))
    assert status == 200 and body == {"status": "ok"}
    status, _, body = invoke(make_event("GET", "/api/v1/variants", content_type=None))
    assert status == 200 and body["variants"][0]["name"] == "3x3"


def test_handler_module_exposes_the_same_app() -> None:
    assert lambda_handler.app.state.settings.max_time_ms >= 1
    from mangum import Mangum

    assert isinstance(lambda_handler.handler, Mangum)
    assert lambda_handler.handler.app is lambda_handler.first_requests
    assert lambda_handler.first_requests.full is lambda_handler.app
    assert lambda_handler.app.state.service is lambda_handler.first_requests.service
    paths = set(lambda_handler.app.openapi()["paths"])
    assert {"/api/v1/move", "/api/v1/analyze", "/"} <= paths


def test_docs_behind_a_stage_prefix_find_their_schema() -> None:
    from mangum import Mangum

    from noughts.service.app import create_app
    from noughts.service.settings import Settings

    staged = Mangum(create_app(Settings(root_path="/Prod")), lifespan="off")
    answer = staged(rest_event("GET", "/docs", content_type=None), LambdaContext())
    assert answer["statusCode"] == 200 and "'/Prod/openapi.json'" in answer["body"]
    seed = staged(rest_event("POST", "/", json.dumps(SEED_BODY)), LambdaContext())
    assert seed["statusCode"] == 200 and json.loads(seed["body"]) == [0, 2]


def _broken(change: Any) -> dict[str, Any]:
    event = rest_event("POST", "/", json.dumps(SEED_BODY))
    change(event)
    return event


@pytest.mark.parametrize(
    ("event", "words"),
    [
        ({}, "not an HTTP event"),
        ({"Records": [{"eventSource": "aws:s3", "s3": {"bucket": {"name": "b"}}}]},
         "not an HTTP event"),
        ({"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}},
         "not an HTTP event"),
        ([1, 2], "must be a JSON object"),
        ("hello", "must be a JSON object"),
        (None, "must be a JSON object"),
        (_broken(lambda e: e.update(isBase64Encoded=True, body="abcde")), "not base64"),
        (_broken(lambda e: e.pop("path")), "no 'path' field"),
        (_broken(lambda e: e.pop("httpMethod")), "no 'httpMethod' field"),
    ],
)
def test_events_it_cannot_serve_get_a_400_result_and_a_log_line(
    event: Any, words: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("WARNING", logger="noughts.lambda"):
        answer = lambda_handler.handler(event, LambdaContext())
    assert answer["statusCode"] == 400
    assert words in json.loads(answer["body"])["detail"]
    assert any("refused a Lambda event" in record.message for record in caplog.records)


def test_deeply_nested_json_is_a_400_not_a_500() -> None:
    for path in ("/", "/api/v1/move"):
        status, _, body = invoke(rest_event("POST", path, "[" * 5000 + "]" * 5000))
        assert status == 400 and "body" in body["detail"], body


# -- the cold start: the first POST / before the rest of the app --------------------------
COLD_START = """
import json, sys
from noughts.service import lambda_handler
event = json.loads(sys.argv[1])
answer = lambda_handler.handler(event, None)
print(json.dumps({"answer": answer, "modules": sorted(sys.modules)}))
"""

NOT_FOR_THE_FIRST_REQUEST = (
    "pydantic.v1",  # FastAPI imports it to check every route's models
    "pydantic_settings",
    "numpy",
    "noughts.service.app",
    "noughts.service.routes",
    "noughts.service.schemas",
    "noughts.service.explain",
    "noughts.service.shared_cache",  # only with NOUGHTS_CACHE_URL
    "noughts.teaching",
    "noughts.search.anytime",
    "prometheus_client",  # only on a scrape of /metrics
    "noughts.service.drain",  # noughts serve's
)


def test_a_cold_start_loads_only_what_the_first_post_needs() -> None:
    """A new process imports the handler and answers the seed's POST /, loading none of
    the modules the other routes need (their models, explain and its trace)."""
    import subprocess
    import sys

    event = rest_event("POST", "/", json.dumps(SEED_BODY))
    done = subprocess.run([sys.executable, "-c", COLD_START, json.dumps(event)],
                          capture_output=True, text=True, check=True)
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["answer"]["statusCode"] == 200 and json.loads(report["answer"]["body"]) == [0, 2]
    loaded = [name for name in report["modules"]
              if name.startswith(NOT_FOR_THE_FIRST_REQUEST)]
    assert loaded == [], loaded


SEED_CASES = [
    pytest.param(json.dumps(SEED_BODY), "application/json", id="a move"),
    pytest.param('{"numX": 3, "numO": 3}', "application/json", id="overlapping masks"),
    pytest.param('{"numX": 3, "numO": 48, "isX": false}', "text/plain", id="wrong side"),
    pytest.param('{"numX": "3", "numO": 48}', "application/json", id="a string mask"),
    pytest.param('{"numX": 70000, "numO": 0}', "application/json", id="a mask too big"),
    pytest.param('{"numX": 7, "numO": 48}', "application/json", id="game over"),
    pytest.param("not json", "application/json", id="not JSON"),
    pytest.param(json.dumps(SEED_BODY), "text/csv", id="a wrong type"),
    pytest.param("[" * 5000 + "]" * 5000, "application/json", id="nested too deep"),
    pytest.param("x" * 20_000, "application/json", id="too large"),
]


@pytest.mark.parametrize(("body", "content_type"), SEED_CASES)
def test_the_first_request_app_answers_as_the_full_app(body: str, content_type: str) -> None:
    """POST / on the handler's small app and on the full app: the same status, headers
    (the time each took aside) and body, errors included."""
    from mangum import Mangum

    from noughts.service.app import create_app

    full = Mangum(create_app(lambda_handler.first_requests.settings), lifespan="off")
    for make_event in (rest_event, http_api_event):
        event = make_event("POST", "/", body, content_type=content_type)
        quick = lambda_handler.handler(dict(event), LambdaContext())
        slow = full(dict(event), LambdaContext())
        assert quick["statusCode"] == slow["statusCode"], (quick, slow)
        assert quick["body"] == slow["body"]
        quick_headers, slow_headers = _headers(quick), _headers(slow)
        assert quick_headers.pop("server-timing").startswith("app;dur=")
        assert slow_headers.pop("server-timing").startswith("app;dur=")
        assert len(quick_headers.pop("x-request-id")) == len(slow_headers.pop("x-request-id"))
        assert quick_headers == slow_headers


def _headers(answer: dict[str, Any]) -> dict[str, Any]:
    return {name.lower(): value for name, value in answer["headers"].items()}


def test_other_requests_build_the_full_app_once_and_share_the_move_service() -> None:
    handler = lambda_handler.FirstRequests(lambda_handler.first_requests.settings)
    assert handler._full is None
    from mangum import Mangum

    served = Mangum(handler, lifespan="off")
    seed = served(rest_event("POST", "/", json.dumps(SEED_BODY)), LambdaContext())
    assert seed["statusCode"] == 200 and handler._full is None  # not built for POST /
    stats = served(rest_event("GET", "/api/v1/stats", content_type=None), LambdaContext())
    assert stats["statusCode"] == 200 and handler._full is not None
    assert json.loads(stats["body"])["engine"]["started"] == 1  # the seed's search counted
    assert handler.full.state.service is handler.service


# -- the compiled core on Lambda, and the Python core when it cannot load -----------------
UNLOADABLE_CORE = """
import json, logging, sys
logging.basicConfig(level=logging.WARNING, stream=sys.stderr)  # as Lambda's runtime logs
from noughts.service import lambda_handler
move, stats = (lambda_handler.handler(json.loads(event), None) for event in sys.argv[1:3])
print(json.dumps({"move": move, "stats": stats, "core": lambda_handler.__file__}))
"""


def test_an_extension_that_cannot_load_leaves_the_python_core_and_a_log_line(
        tmp_path: Path) -> None:
    """The package as a Lambda build made on the wrong system would hold it: the compiled
    core's file is there but does not load (here: not an ELF file at all; on Lambda a
    newer C library than Amazon Linux's). The handler answers on the Python core and
    the log says why, once."""
    import shutil
    import subprocess
    import sys

    import noughts

    copy = tmp_path / "noughts"
    shutil.copytree(Path(noughts.__file__).parent, copy,
                    ignore=shutil.ignore_patterns("__pycache__", "_core*.so", "_core*.pyd"))
    (copy / "search" / "_core.abi3.so").write_bytes(b"\x7fELF not a shared object")
    # O to move with a win on cell 19: the threat search (on a core) finds it at once,
    # so a loaded machine does not run the budget out on the Python core's first search
    board = "XX.X/..../..../....|OOO./..../..../....|..../..../..../X...|..../..../..../...."
    request = json.dumps({"variant": "qubic", "board": board, "time_ms": 3000})
    events = [json.dumps(rest_event("POST", "/api/v1/move", request)),
              json.dumps(rest_event("GET", "/api/v1/stats", content_type=None))]
    environment = {name: value for name, value in os.environ.items()
                   if name != PURE_PYTHON_VARIABLE}
    done = subprocess.run(
        [sys.executable, "-c", UNLOADABLE_CORE, *events], capture_output=True, text=True,
        timeout=120, check=True, env={**environment, "PYTHONPATH": str(tmp_path)})
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["core"].startswith(str(copy))  # it ran the copy with the broken file
    move, stats = report["move"], report["stats"]
    assert move["statusCode"] == 200, move
    answer = json.loads(move["body"])
    assert (answer["move"], answer["outcome"], answer["plies"]) == (19, "win", 1)
    assert json.loads(stats["body"])["engine"]["core"] == "python"
    warnings = [line for line in done.stderr.splitlines() if "compiled search core" in line]
    assert len(warnings) == 1 and "cannot load on this system" in warnings[0]
    assert "_core.abi3.so" in warnings[0] and "Python core" in warnings[0]


LAMBDA_GLIBC = (2, 26)
"""The C library of Lambda's ``python3.11`` runtime (Amazon Linux 2), the template's."""


def test_the_compiled_core_built_here_would_load_on_lambdas_system() -> None:
    """The check docs/deployment.md gives a Lambda build: the extension links the C
    library alone and asks for no glibc symbol newer than Lambda's."""
    import re
    import subprocess

    from noughts.search import core

    module = core.built()
    assert module is not None and module.__file__, "the compiled core is not built here"
    dump = subprocess.run(["objdump", "-T", "-p", module.__file__], capture_output=True,
                          text=True, timeout=60, check=True).stdout
    versions = {tuple(map(int, found.split(".")))
                for found in re.findall(r"GLIBC_([0-9]+(?:\.[0-9]+)+)", dump)}
    assert versions and max(versions) <= LAMBDA_GLIBC, sorted(versions)
    assert set(re.findall(r"NEEDED\s+(\S+)", dump)) <= {"libc.so.6", "libm.so.6"}
    template = (Path(__file__).resolve().parent.parent / "template.yaml").read_text()
    assert "Runtime: python3.11" in template  # (a newer runtime has a newer system)
