"""The interactive API reference at ``/docs``: Swagger UI from files this server serves.

FastAPI's own ``/docs`` loads Swagger UI's script and style from a CDN, so it is blank
offline and on a locked-down network. Here the assets come from the ``swagger-ui-bundle``
package (a maintained copy of Swagger UI) under ``/docs/assets``, and the page links to
them and to the schema relative to the request's root path (an API Gateway stage).

>>> from fastapi import FastAPI
>>> from fastapi.testclient import TestClient
>>> app = FastAPI(docs_url=None, redoc_url=None)
>>> install_docs(app)
>>> page = TestClient(app).get("/docs").text
>>> "/docs/assets/swagger-ui-bundle.js" in page and "http" not in page.split("<body>")[1]
True
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["DOCS_PATH", "install_docs", "swagger_ui_directory"]

DOCS_PATH = "/docs"
ASSETS_PATH = f"{DOCS_PATH}/assets"


def swagger_ui_directory() -> Path:
    """Where the installed ``swagger-ui-bundle`` keeps Swagger UI's files."""
    import swagger_ui_bundle  # type: ignore[import-untyped]

    return Path(swagger_ui_bundle.swagger_ui_path)


def install_docs(app: FastAPI) -> None:
    """Serve Swagger UI at ``/docs`` with its assets from this server (the app must be
    built with ``docs_url=None``)."""
    app.mount(ASSETS_PATH, StaticFiles(directory=swagger_ui_directory()), name="docs-assets")

    @app.get(DOCS_PATH, include_in_schema=False)
    async def get_docs(request: Request) -> HTMLResponse:
        root = str(request.scope.get("root_path", "")).rstrip("/")
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}",
            title=f"{app.title} · API reference",
            swagger_js_url=f"{root}{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS_PATH}/favicon-32x32.png",
        )
