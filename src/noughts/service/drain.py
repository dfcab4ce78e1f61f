"""A graceful stop for ``noughts serve``: SIGTERM drains the server instead of cutting it.

uvicorn, told to stop, closes its listening socket (connections still waiting in the
kernel's queue get a reset), closes idle keep-alive connections at once (a request on
its way gets a reset) and waits for the rest. :class:`DrainingServer` stops so that
no client that reached it is dropped:

1. readiness goes off at once (``GET /readyz`` answers 503: a load balancer stops
   sending here), on the signal itself;
2. the connections already waiting in the socket's queue are taken in, then the socket
   is closed: new connections are refused, none queued is reset;
3. every request accepted finishes within its budget and is answered with
   ``Connection: close``; an idle keep-alive connection gets
   :data:`~noughts.service.connections.DRAIN_IDLE_S` for a request on its way
   (:mod:`noughts.service.connections`);
4. after ``NOUGHTS_DRAIN_S`` at most (uvicorn's graceful-shutdown timeout), the app
   stops its search workers and the process exits.

:class:`DrainingMultiprocess` does the same with ``--workers N``: the supervisor closes
its copy of the socket when told to stop, and each worker drains as above.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from types import FrameType

from uvicorn import Server
from uvicorn.supervisors import multiprocess
from uvicorn.supervisors.multiprocess import Multiprocess

from noughts.service.readiness import LIFECYCLE_KEY, Lifecycle

__all__ = ["DrainingServer", "DrainingMultiprocess"]


class DrainingServer(Server):
    """uvicorn's server, stopping as :mod:`noughts.service.drain` says."""

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        lifecycle = getattr(self, "lifespan", None) and self.lifespan.state.get(LIFECYCLE_KEY)
        if isinstance(lifecycle, Lifecycle):
            lifecycle.drain()  # now, not at the main loop's next tick
        super().handle_exit(sig, frame)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await self._take_waiting_connections(sockets or [])
        await super().shutdown(sockets=sockets)

    async def _take_waiting_connections(self, sockets: list[socket.socket]) -> None:
        """Accept every connection waiting in the listening sockets' queues, close the
        sockets (in the same step: none is left to be reset), and serve those
        connections like any other (they are drained with the rest)."""
        loop = asyncio.get_running_loop()
        accepted: list[socket.socket] = []
        for listener in sockets:
            with contextlib.suppress(OSError):
                listener.setblocking(False)
                while True:
                    connection, _ = listener.accept()  # BlockingIOError: none left
                    accepted.append(connection)
        for server in self.servers:
            server.close()
        for listener in sockets:
            listener.close()
        taken = [loop.connect_accepted_socket(self._new_protocol, conn) for conn in accepted]
        await asyncio.gather(*taken, return_exceptions=True)

    def _new_protocol(self) -> asyncio.Protocol:
        protocol: asyncio.Protocol = self.config.http_protocol_class(  # type: ignore[call-arg]
            config=self.config, server_state=self.server_state, app_state=self.lifespan.state
        )
        return protocol


class _DrainingProcess(multiprocess.Process):
    """A worker process of the supervisor, running a :class:`DrainingServer`."""

    @property
    def server(self) -> Server:
        if self._server is None:
            self._server = DrainingServer(config=self.config)
        return self._server


class DrainingMultiprocess(Multiprocess):
    """uvicorn's supervisor of ``--workers N`` processes, each a :class:`DrainingServer`;
    told to stop, it closes its copy of the listening socket at once (the workers take
    in the connections queued there before they close theirs)."""

    def run(self) -> None:
        # the supervisor makes (and remakes) its workers from this module-level name
        multiprocess.Process = _DrainingProcess  # type: ignore[misc]
        super().run()

    def handle_term(self) -> None:
        self._close_sockets()
        super().handle_term()

    def handle_int(self) -> None:
        self._close_sockets()
        super().handle_int()

    def _close_sockets(self) -> None:
        for listener in self.sockets:
            listener.close()
