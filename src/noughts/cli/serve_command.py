"""``noughts serve``: the web page and the move API on one uvicorn server.

Settings (budgets, cache, CORS...) come from ``NOUGHTS_*`` environment variables; the
host and port from the options, else ``NOUGHTS_HOST``/``NOUGHTS_PORT``, else
127.0.0.1:8000. The web stack is imported only when the command runs.
"""

from __future__ import annotations

import argparse

from noughts.cli import fail

__all__ = ["add_arguments", "run"]


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"port must be a number, not {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 0-65535, not {value}")
    return value


def add_arguments(name: str, parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="address to bind (default 127.0.0.1, or NOUGHTS_HOST)")
    parser.add_argument("--port", type=_port, help="port (default 8000, or NOUGHTS_PORT)")
    parser.add_argument(
        "--workers", type=int, default=1, help="worker processes (default 1; each has its cache)"
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="uvicorn's log level (default info)",
    )


def run(name: str, args: argparse.Namespace) -> int:
    import os

    import uvicorn
    from pydantic import ValidationError

    from noughts.service.app import create_app
    from noughts.service.settings import Settings

    if args.workers < 1:
        raise fail(f"--workers must be at least 1, not {args.workers}")
    try:
        settings = Settings()
    except ValidationError as error:
        problem = error.errors()[0]
        field = ".".join(str(part) for part in problem["loc"])
        raise fail(f"bad setting NOUGHTS_{field.upper()}: {problem['msg']}") from None
    host = args.host or settings.host
    port = settings.port if args.port is None else args.port
    print(f"noughts: serving the page and the API on http://{host}:{port}/ (docs at /docs)")
    if args.workers > 1:
        os.environ.update({"NOUGHTS_HOST": host, "NOUGHTS_PORT": str(port)})
        uvicorn.run(
            "noughts.service.app:create_app",
            factory=True,
            host=host,
            port=port,
            workers=args.workers,
            log_level=args.log_level,
        )
    else:
        uvicorn.run(create_app(settings), host=host, port=port, log_level=args.log_level)
    return 0
