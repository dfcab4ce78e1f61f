"""``noughts serve``: the web page and the move API on one uvicorn server.

Settings (budgets, cache, CORS...) come from ``NOUGHTS_*`` environment variables; the
host and port from the options, else ``NOUGHTS_HOST``/``NOUGHTS_PORT``, else
127.0.0.1:8000. The web stack is imported only when the command runs.

Searches run in worker processes, one per core unless ``NOUGHTS_SEARCH_PROCESSES``
says otherwise (shared among ``--workers``): see :mod:`noughts.service.processes`.

The port is bound before the server announces itself, so a busy port fails at once
with one line. Connections that do not deliver a request in time are closed
(:mod:`noughts.service.connections`); idle keep-alive connections after :data:`KEEP_ALIVE_S`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import sys
from typing import Any

from noughts.cli import fail, limits

__all__ = [
    "add_arguments",
    "run",
    "bind",
    "search_processes",
    "KEEP_ALIVE_S",
    "SWITCH_INTERVAL_S",
]

KEEP_ALIVE_S = 5
"""Seconds an idle keep-alive connection stays open after a response."""

SWITCH_INTERVAL_S = 0.0005
"""The interpreter's thread switch interval while serving (Python's default is 5 ms)."""


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
        "--workers",
        type=limits.positive_count,
        default=1,
        help="worker processes (default 1; each has its cache)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="uvicorn's log level (default info)",
    )


def search_processes(configured: int | None, workers: int, cores: int | None) -> int:
    """Search processes for each of ``workers`` server processes: as configured, else the
    machine's cores shared among them (at least one each).

    >>> search_processes(None, 1, 2), search_processes(None, 4, 2), search_processes(0, 1, 8)
    (2, 1, 0)
    """
    if configured is not None:
        return configured
    return max(1, (cores or 1) // workers)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``, or a one-line error that says what to do."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        reason = error.strerror or str(error)
        hint = "; choose another with --port (or NOUGHTS_PORT)" if port else ""
        raise fail(f"cannot serve on {host}:{port}: {reason}{hint}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _announcement(url: str, json_log: bool) -> str:
    """The line that says the server is up: a JSON object when the log is JSON lines (so
    stdout stays JSON only), else a sentence.

    >>> _announcement("http://127.0.0.1:8000/", False)
    'noughts: serving the page and the API on http://127.0.0.1:8000/ (docs at /docs)'
    >>> import json; sorted(json.loads(_announcement("http://127.0.0.1:8000/", True)).items())[:3]
    [('docs', '/docs'), ('event', 'serving'), ('time', ...)]
    """
    if json_log:
        from noughts.service.middleware import json_log_line

        return json_log_line({"event": "serving", "url": url, "docs": "/docs"})
    return f"noughts: serving the page and the API on {url} (docs at /docs)"


def run(name: str, args: argparse.Namespace) -> int:
    import uvicorn

    from noughts.service import connections
    from noughts.service.app import create_app
    from noughts.service.drain import DrainingMultiprocess, DrainingServer
    from noughts.service.settings import Settings, SettingsError

    try:
        settings = Settings()
    except SettingsError as error:
        raise fail(str(error)) from None
    host = args.host or settings.host
    port = settings.port if args.port is None else args.port
    processes = search_processes(settings.search_processes, args.workers, os.cpu_count())
    settings = settings.model_copy(update={"search_processes": processes})
    sock = bind(host, port)
    port = sock.getsockname()[1]
    connections.configure(settings.request_timeout_s, settings.max_header_bytes)
    # Some work still runs in threads here (quick 3x3 solves, canonical forms, searches
    # when NOUGHTS_SEARCH_PROCESSES=0): a short switch interval lets the event loop take
    # the interpreter back within a fraction of a millisecond instead of 5 ms per wait,
    # so answers and 429s go out on time meanwhile (see docs/robustness.md).
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    print(_announcement(f"http://{host}:{port}/", settings.access_log == "json"), flush=True)
    common: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_level": args.log_level,
        "http": connections.GuardedHttpToolsProtocol,
        "timeout_keep_alive": KEEP_ALIVE_S,
        "timeout_graceful_shutdown": settings.drain_s,
        # uvicorn formats every access line before its logger drops it: only when shown
        "access_log": settings.access_log == "text" and args.log_level in ("info", "debug"),
    }
    if args.workers > 1:
        os.environ.update(
            {
                "NOUGHTS_HOST": host,
                "NOUGHTS_PORT": str(port),
                "NOUGHTS_SEARCH_PROCESSES": str(processes),
            }
        )
        config = uvicorn.Config(
            "noughts.service.app:create_app", factory=True, workers=args.workers, **common
        )
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C stops it (as in uvicorn.run)
            DrainingMultiprocess(config, sockets=[sock]).run()
    else:
        config = uvicorn.Config(create_app(settings), **common)
        with contextlib.suppress(KeyboardInterrupt):
            DrainingServer(config).run(sockets=[sock])
    return 0
