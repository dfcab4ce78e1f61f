"""AWS Lambda entry point: ``noughts.service.lambda_handler.handler``.

Mangum over the same FastAPI app as ``noughts serve``, for API Gateway REST (v1) and
HTTP API (v2) proxy events. Settings come from the function's ``NOUGHTS_*`` environment.
Importing this module builds the app and nothing more (no search, no table), so a cold
start stays short.
"""

from __future__ import annotations

from mangum import Mangum

from noughts.service.app import create_app

__all__ = ["app", "handler"]

app = create_app()
handler = Mangum(app, lifespan="off")
