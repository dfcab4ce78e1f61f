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
from collections.abc import Iterator
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


def resident_mb(pid: int) -> float:
    """Resident memory of process ``pid`` and all its descendants (a server and its
    search workers), in MB (Linux: read from /proc)."""
    from pathlib import Path

    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, ValueError):
            continue
        children.setdefault(int(stat[1]), []).append(int(entry.name))
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        pending.extend(children.get(current, []))
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


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


def start(env: dict[str, str] | None = None, port: int | None = None) -> Server:
    """Start `noughts serve` and wait until /healthz answers."""
    port = free_port() if port is None else port
    process = subprocess.Popen(
        [sys.executable, "-m", "noughts", "serve", "--port", str(port), "--log-level", "warning"],
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
def serving(env: dict[str, str] | None = None) -> Iterator[Server]:
    server = start(env)
    try:
        yield server
    finally:
        stop(server)
