"""Property-based API testing: schemathesis drives the app from its own OpenAPI schema.

Every generated request (valid and invalid bodies alike) must get an answer that is not
a server error and that matches the documented responses. The number of examples is
bounded so the whole run stays well under a minute.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from noughts.service.app import create_app
from noughts.service.settings import Settings

# Small budgets: a generated request on a big board must still answer fast.
APP = create_app(Settings(default_time_ms=100, max_time_ms=200, queue_wait_ms=2000))
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
@pytest.mark.timeout(120)
def test_no_server_errors_and_documented_answers(case: schemathesis.Case) -> None:
    case.call_and_validate(
        checks=[not_a_server_error, status_code_conformance, response_schema_conformance]
    )
