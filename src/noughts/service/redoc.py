"""``/redoc``: ReDoc's API reference, every byte of it from this server.

The fastapi-offline package ships ReDoc's script, but the script itself fetches the
Redocly logo of its side menu from a CDN. This router serves the page and a copy of the
script whose logo address is an empty inline image (the logo is dropped; its link text
stays), so the page makes no request elsewhere.

>>> from fastapi.testclient import TestClient
>>> from noughts.service.app import create_app
>>> client = TestClient(create_app())
>>> "https://" in client.get(REDOC_SCRIPT_URL).text.split("redocly logo")[1][:200]
False
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_redoc_html
from fastapi.responses import HTMLResponse, Response

__all__ = ["router", "REDOC_URL", "REDOC_SCRIPT_URL", "DOCS_ASSETS_URL", "local_script"]

REDOC_URL = "/redoc"
REDOC_SCRIPT_URL = "/docs/redoc.js"
DOCS_ASSETS_URL = "/docs/assets"
"""Where the fastapi-offline package's files (Swagger UI, the favicon) are served."""

_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
_NO_LOGO = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E"

router = APIRouter(include_in_schema=False)


@lru_cache(maxsize=1)
def local_script() -> bytes:
    """ReDoc's standalone script as fastapi-offline ships it, the CDN logo dropped."""
    import fastapi_offline

    script = Path(fastapi_offline.__file__).parent / "static" / "redoc.standalone.js"
    return script.read_bytes().replace(_LOGO.encode(), _NO_LOGO.encode())


@router.get(REDOC_URL)
async def redoc_page(request: Request) -> HTMLResponse:
    """ReDoc's page for this app's OpenAPI document."""
    root = request.scope.get("root_path", "")
    return get_redoc_html(
        openapi_url=f"{root}{request.app.openapi_url}",
        title=f"{request.app.title} - ReDoc",
        redoc_js_url=f"{root}{REDOC_SCRIPT_URL}",
        redoc_favicon_url=f"{root}{DOCS_ASSETS_URL}/favicon.png",
        with_google_fonts=False,
    )


@router.get(REDOC_SCRIPT_URL)
async def redoc_script() -> Response:
    """The script of :func:`local_script`."""
    return Response(local_script(), media_type="text/javascript")
