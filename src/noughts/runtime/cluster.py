"""Where independent jobs run: local worker processes (the default) or a Ray cluster.

Heavy jobs (arena games, level calibration, the Qubic proof build) are plain functions
of plain values, handed to a :class:`concurrent.futures.Executor`. ``--cluster`` picks it:

- ``none`` (or ``local``): local worker processes
  (:class:`~noughts.runtime.executor.ProcessExecutor`), nothing to install;
- ``ray``: a Ray cluster started on this machine for the run;
- ``ray://HOST:PORT`` or ``auto``: an existing Ray cluster (``pip install noughts[cluster]``).

A job whose worker (a local process, a Ray worker or its machine) is lost fails with
:class:`~noughts.runtime.executor.WorkerLostError`, which the caller may answer by submitting the
job again; neither backend retries, so every re-run is the caller's and can be reported.

>>> parse_cluster("ray://10.0.0.5:10001"), parse_cluster("none"), parse_cluster("AUTO")
('ray://10.0.0.5:10001', 'local', 'auto')
>>> with executor_for("none", workers=2) as executor:
...     executor.submit(pow, 2, 10).result()
1024
"""

from __future__ import annotations

import concurrent.futures as futures
import contextlib
import re
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, InvalidStateError
from typing import Any, ParamSpec, TypeVar

from noughts.errors import NoughtsError
from noughts.runtime.executor import ProcessExecutor, WorkerLostError

__all__ = [
    "ClusterError",
    "RayExecutor",
    "parse_cluster",
    "executor_for",
    "LOCAL",
]

LOCAL = "local"
"""The ``--cluster`` value for local worker processes (``none`` is the same)."""

_RAY_URL = re.compile(r"ray://[A-Za-z0-9.\-\[\]:]+:\d{1,5}")

_P = ParamSpec("_P")
_T = TypeVar("_T")


class ClusterError(NoughtsError):
    """A cluster that cannot be used: a bad ``--cluster`` value, Ray missing or unreachable."""


def parse_cluster(text: str) -> str:
    """The canonical ``--cluster`` value: ``local``, ``ray``, ``auto`` or ``ray://HOST:PORT``.

    >>> parse_cluster("ray")
    'ray'
    >>> parse_cluster("spark://x")
    Traceback (most recent call last):
    ...
    noughts.runtime.cluster.ClusterError: unknown cluster 'spark://x': use none, ray, auto or ray://HOST:PORT
    """
    value = text.strip()
    if value.lower() in ("", "none", LOCAL):
        return LOCAL
    if value.lower() in ("ray", "auto"):
        return value.lower()
    if _RAY_URL.fullmatch(value):
        return value
    raise ClusterError(f"unknown cluster {text!r}: use none, ray, auto or ray://HOST:PORT")


def executor_for(cluster: str, *, workers: int) -> Executor:
    """The executor for a ``--cluster`` value; ``workers`` sizes a local pool (and a local Ray).

    The caller shuts it down (``with executor_for(...) as executor:``).
    """
    chosen = parse_cluster(cluster)
    if workers < 1:
        raise ClusterError(f"workers must be at least 1, not {workers}")
    if chosen == LOCAL:
        return ProcessExecutor(workers)
    if chosen == "ray":
        return RayExecutor(None, num_cpus=workers)
    return RayExecutor(chosen)


def _call(fn: Callable[..., _T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> _T:
    """The Ray task behind every job: call ``fn`` (any callable, builtins included)."""
    return fn(*args, **kwargs)


class RayExecutor(Executor):
    """A :class:`~concurrent.futures.Executor` whose jobs run as Ray tasks.

    ``address`` ``None`` starts a Ray cluster on this machine with ``num_cpus`` CPUs
    (bound to 127.0.0.1) and stops it on :meth:`shutdown`; ``"auto"`` or ``"ray://..."``
    joins an existing one and leaves it running. Each job asks for one CPU. Ray does not
    retry a job on its own: a lost worker fails the job's future with
    :class:`WorkerLostError`. ``shutdown(cancel_futures=True)`` cancels unfinished jobs
    (their workers are stopped).
    """

    def __init__(self, address: str | None, *, num_cpus: int | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise ClusterError(
                "Ray is not installed: pip install 'noughts[cluster]' (or pip install ray)"
            ) from None
        self._ray: Any = ray
        self._owns = address is None and not ray.is_initialized()
        options: dict[str, Any] = {
            "include_dashboard": False,
            "logging_level": "ERROR",
            "log_to_driver": False,
        }
        if address is None:
            options.update(num_cpus=num_cpus, _node_ip_address="127.0.0.1")
        else:
            options["address"] = address
        if not ray.is_initialized():
            try:
                ray.init(**options)
            except (ConnectionError, RuntimeError, ValueError) as error:
                raise ClusterError(f"cannot reach the Ray cluster {address}: {error}") from None
        self._call: Any = None
        self._pending: dict[Future[Any], Any] = {}
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> Future[_T]:
        """Run ``fn(*args, **kwargs)`` as a Ray task; its future holds the result."""
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot submit to a RayExecutor that was shut down")
            if self._call is None:
                self._call = self._ray.remote(num_cpus=1, max_retries=0)(_call)
            ref = self._call.remote(fn, args, kwargs)
            future: Future[_T] = Future()
            self._pending[future] = ref
        future.add_done_callback(lambda settled: self._stop_if_cancelled(settled, ref))
        ref.future().add_done_callback(lambda done: self._settle(future, done))
        return future

    def _stop_if_cancelled(self, future: Future[Any], ref: Any) -> None:
        """A job whose future was cancelled is stopped, its worker with it."""
        if future.cancelled():
            with contextlib.suppress(Exception):  # finished meanwhile, or Ray is gone
                self._ray.cancel(ref, force=True)

    def _settle(self, future: Future[_T], done: Future[Any]) -> None:
        with self._lock:
            self._pending.pop(future, None)
        exceptions = self._ray.exceptions
        with contextlib.suppress(InvalidStateError):  # cancelled meanwhile
            try:
                value = done.result()
            except exceptions.RayTaskError as error:  # the job itself raised: its own error
                future.set_exception(error.as_instanceof_cause())
            except (
                exceptions.WorkerCrashedError,
                exceptions.NodeDiedError,
                exceptions.ObjectLostError,
                exceptions.LocalRayletDiedError,
            ) as error:
                future.set_exception(WorkerLostError(str(error).splitlines()[0]))
            except BaseException as error:  # cancelled, or Ray's own trouble
                future.set_exception(error)
            else:
                future.set_result(value)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop taking jobs; cancel unfinished ones if asked; stop a Ray this executor started."""
        with self._lock:
            self._closed = True
            pending = list(self._pending.items())
        if cancel_futures:
            for future, _ in pending:
                future.cancel()
        elif wait:
            futures.wait([future for future, _ in pending])
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()
