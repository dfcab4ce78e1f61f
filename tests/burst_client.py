"""A burst of POSTs at once, from a process of its own: ``python burst_client.py PORT PATH``
reads a JSON list of request bodies on stdin and prints, as JSON, each answer's status,
headers and seconds taken (from before its connection was opened).

The timing tests run their bursts here rather than in pytest's own process, whose heap
and threads (everything the earlier tests left) would pause the client and be counted
against the server.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import time
from typing import Any


async def post(port: int, path: str, body: bytes) -> tuple[int, dict[str, str], float]:
    """Status, headers and seconds taken of one POST on its own connection."""
    began = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n".encode()
        + f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    head = (await reader.read()).split(b"\r\n\r\n", 1)[0].decode().split("\r\n")
    writer.close()
    headers = dict(line.lower().split(": ", 1) for line in head[1:])
    return int(head[0].split()[1]), headers, time.monotonic() - began


async def burst(port: int, path: str, bodies: list[bytes]) -> list[Any]:
    return list(await asyncio.gather(*(post(port, path, body) for body in bodies)))


def main() -> None:
    port, path = int(sys.argv[1]), sys.argv[2]
    bodies = [json.dumps(body).encode() for body in json.load(sys.stdin)]
    gc.disable()  # no collector pause inside the burst
    print(json.dumps(asyncio.run(burst(port, path, bodies))))


if __name__ == "__main__":
    main()
