"""Real `noughts serve` processes for tests: started on a free 127.0.0.1 port, stopped after."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import pytest


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def request(
    url: str, body: bytes | None = None, content_type: str = "application/json", timeout: float = 10
) -> tuple[int, dict[str, str], bytes]:
    headers = {"Content-Type": content_type} if body is not None else {}
    call = urllib.request.Request(url, data=body, headers=headers)
    try:
        with urllib.request.urlopen(call, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        """Everything the server printed (once it has stopped)."""
        return self.process.stdout.read().decode() if self.process.stdout else ""


def start(env: dict[str, str] | None = None, port: int | None = None,
          program: Sequence[str] = ("-m", "noughts")) -> Server:
    """Start `noughts serve` and wait until /healthz answers (``program``: what Python
    runs, the package's command line unless a test's wrapper of it)."""
    port = free_port() if port is None else port
    process = subprocess.Popen(
        [sys.executable, *program, "serve", "--port", str(port), "--log-level", "warning"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
    )
    server = Server(process, port)
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            pytest.fail(f"noughts serve exited early with {process.returncode}: {server.output()}")
        try:
            if request(f"{server.base}/healthz", timeout=2)[0] == 200:
                return server
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop(server)
            pytest.fail("noughts serve did not answer /healthz within 30 s")
        time.sleep(0.1)


def stop(server: Server) -> int:
    """Stop the server as Ctrl-C would; its exit status."""
    server.process.send_signal(signal.SIGINT)
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
    return server.process.returncode


@contextmanager
def serving(env: dict[str, str] | None = None,
            program: Sequence[str] = ("-m", "noughts")) -> Iterator[Server]:
    server = start(env, program=program)
    try:
        yield server
    finally:
        stop(server)
