"""Service settings, read from ``NOUGHTS_*`` environment variables.

Each field ``name`` is read from ``NOUGHTS_NAME`` (any case) unless given as an
argument, and validated as the argument would be (numbers and booleans from their text;
``cors_origins`` comma-separated or JSON). A plain pydantic model reading the
environment itself: the Lambda handler's cold start does not pay for a settings library.

>>> settings = Settings(max_time_ms=2000, cors_origins="https://a.example, https://b.example")
>>> settings.cors_origins
['https://a.example', 'https://b.example']
>>> settings.budget_ms(None), settings.budget_ms(60_000), settings.budget_ms(5)
(1000, 2000, 50)

A bad value raises :class:`SettingsError`, one line naming the variable; a credential in
a URL is never part of it:

>>> Settings(cache_url="redis//:S3cret@cache.internal:6379/0")
Traceback (most recent call last):
...
noughts.service.settings.SettingsError: bad setting NOUGHTS_CACHE_URL: must be a redis://, \
rediss:// or unix:// URL (got 'redis//***@cache.internal:6379/0')
"""

from __future__ import annotations

import json
import os
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from noughts.budget import DEFAULT_SECONDS
from noughts.errors import NoughtsError

__all__ = ["Settings", "SettingsError", "redacted"]


ENV_PREFIX = "NOUGHTS_"
"""The settings' environment variables are ``NOUGHTS_`` and the field's name."""

SECRET_FIELDS = frozenset({"cache_url"})
"""Settings that may hold a credential: shown only through :func:`redacted`."""

_SCHEMES = ("redis://", "rediss://", "unix://")


class SettingsError(NoughtsError):
    """A setting with a bad value: the message names its variable, never a credential."""


def _masked_query(query: str) -> str:
    """Every value of a query masked, its names kept (a field without ``=`` masked whole)."""
    fields = []
    for field in query.split("&"):
        name, equals, _ = field.partition("=")
        fields.append(f"{name}=***" if equals else "***" if field else "")
    return "&".join(fields)


def redacted(url: str) -> str:
    """``url`` with every place a credential can sit masked by ``***``: the user info
    (a user and password, up to the last ``@``, even one that holds a ``/``), every query
    value (``?password=...``) and the fragment. Built from the URL's parts
    (:func:`urllib.parse.urlsplit`), for every setting, message, log line and endpoint
    that shows a URL; malformed URLs included.

    >>> redacted("redis://:s3cret@cache.internal:6379/0")
    'redis://***@cache.internal:6379/0'
    >>> redacted("redis://cache.internal:6379/0?password=s3cret&db=1#s3cret")
    'redis://cache.internal:6379/0?password=***&db=***#***'
    >>> redacted("redis://user:s3/cret@h:6379/0"), redacted("redis//:S3cret@h:6379/0")
    ('redis://***@h:6379/0', 'redis//***@h:6379/0')
    >>> redacted("redis://h/0?password=p@ss"), redacted("redis://:pa#ss@h")
    ('redis://***/0?password=***', 'redis://***#***')
    >>> redacted("unix:///run/redis.sock?db=0"), redacted("redis://127.0.0.1:6379")
    ('unix:///run/redis.sock?db=***', 'redis://127.0.0.1:6379')
    """
    try:
        parts = urlsplit(url)
    except ValueError:  # (a malformed IPv6 host, say): nothing of it is shown
        return "***"
    slashes = "//" if url[len(parts.scheme) + 1 if parts.scheme else 0:].startswith("//") else ""
    location = parts.netloc + parts.path  # the user info may run on past a "/" it holds
    if "@" in location:
        at = location.rindex("@")
        kept = location.find("//") + 2 if 0 <= location.find("//") < at else 0
        location = location[:kept] + "***" + location[at:]
    elif parts.netloc and "@" in parts.query + parts.fragment:
        # the user info may have been cut off at a "?" or "#" it holds: hide the host too
        location = "***" + parts.path
    text = f"{parts.scheme}:{slashes}" if parts.scheme else slashes
    text += location
    if parts.query:
        text += "?" + _masked_query(parts.query)
    if parts.fragment:
        text += "#***"
    return text


def _check_cache_url(url: str) -> None:
    """Raise ``ValueError`` (without the URL) unless redis-py can connect by ``url``."""
    if not url.startswith(_SCHEMES):
        raise ValueError("must be a redis://, rediss:// or unix:// URL")
    parts = urlsplit(url)
    if parts.scheme == "unix":
        if not parts.path:
            raise ValueError("a unix:// URL needs the socket's path")
        return
    if not parts.hostname:
        raise ValueError("the URL has no host")
    try:
        parts.port  # noqa: B018  # raises for a port that is not a number in range
    except ValueError:
        raise ValueError("the URL's port is not a number from 0 to 65535") from None
    database = parts.path.lstrip("/")
    if database and not database.isdigit():
        raise ValueError("the URL's database (after the last /) must be a number")
    try:
        from redis.connection import parse_url
    except ImportError:  # (the shared cache says what to install)
        return
    parse_url(url)  # type: ignore[no-untyped-call]  # ValueError naming a query field


class Settings(BaseModel):
    """Every knob of the move service; each field ``name`` is read from ``NOUGHTS_NAME``
    unless given as an argument.

    >>> os.environ["NOUGHTS_MAX_CELLS"] = "64"
    >>> Settings().max_cells, Settings(max_cells=9).max_cells
    (64, 9)
    >>> del os.environ["NOUGHTS_MAX_CELLS"]
    """

    model_config = ConfigDict(extra="ignore", validate_default=True)

    host: str = Field(default="127.0.0.1", description="Address `noughts serve` binds to.")
    port: int = Field(default=8000, ge=0, le=65535, description="Port `noughts serve` uses.")
    default_time_ms: int = Field(
        default=round(DEFAULT_SECONDS * 1000),
        ge=1,
        description="Search budget of a request that gives no time_ms.",
    )
    min_time_ms: int = Field(
        default=50, ge=1, description="Floor of time_ms (smaller budgets are raised to it)."
    )
    max_time_ms: int = Field(
        default=5000, ge=1, description="Cap on time_ms; answers come by the budget + 100 ms."
    )
    cache_size: int = Field(
        default=10_000, ge=0, description="Most answers kept in the move cache (0: off)."
    )
    cache_ttl_s: float = Field(
        default=3600.0, gt=0, description="Seconds an answer stays in the move cache."
    )
    cache_url: str | None = Field(
        default=None,
        repr=False,  # it may hold a password
        description="Redis URL of a move cache shared by every worker and instance "
        "(redis://HOST:PORT/DB or rediss://...; needs noughts[redis]). Unset: none.",
    )
    cache_timeout_ms: int = Field(
        default=50, ge=1, description="Longest wait for the shared cache; slower is skipped."
    )
    cache_retry_s: float = Field(
        default=5.0, gt=0, description="After a shared-cache failure, seconds before trying again."
    )
    cors_origins: list[str] = Field(
        default_factory=lambda: ["*"],
        description="Origins allowed to call /api/v1 from a browser: comma-separated or JSON.",
    )
    max_body_bytes: int = Field(
        default=16_384, ge=64, description="Largest request body accepted (else 413)."
    )
    max_header_bytes: int = Field(
        default=32_768,
        ge=1024,
        le=1 << 20,
        description="Largest request head, the request line and headers together, in "
        "bytes (else 431; noughts serve).",
    )
    max_searches: int = Field(
        default=2,
        ge=1,
        description="Engine searches at once in threads; more wait, then get 429. With "
        "search processes, each process runs one search at a time instead.",
    )
    search_processes: int | None = Field(
        default=None,
        ge=0,
        le=256,
        description="Worker processes that run the searches (0: threads of the serving "
        "process). Unset: one per core under `noughts serve`, threads elsewhere (Lambda).",
    )
    queue_wait_ms: int = Field(
        default=200, ge=0, description="How long a request waits for a search slot (then 429)."
    )
    warmup: bool = Field(
        default=True, description="Build the featured variants' tables at server start."
    )
    root_path: str = Field(
        default="", description="Path prefix the app is served under (e.g. /Prod on API Gateway)."
    )
    max_cells: int = Field(
        default=361, ge=1, description="Largest board (in cells) the service plays (else 400)."
    )
    drain_s: float = Field(
        default=8.0,
        ge=0,
        allow_inf_nan=False,
        description="Seconds a stopping server (SIGTERM) gives the requests it accepted to "
        "finish; keep it under the orchestrator's grace period (Docker: 10 s).",
    )
    access_log: Literal["text", "json", "off"] = Field(
        default="text",
        description="noughts serve's access log: uvicorn's text lines, one JSON object a "
        "request (request id, status, latency), or none.",
    )
    public: bool = Field(
        default=False,
        description="A deployment open to the internet: /docs, /redoc, /openapi.json, "
        "/api/v1/stats and /metrics are off, and CORS allows no other origin unless "
        "NOUGHTS_CORS_ORIGINS says so.",
    )
    metrics: bool | None = Field(
        default=None,
        description="Serve Prometheus metrics at /metrics. Unset: on, unless public.",
    )
    request_timeout_s: float = Field(
        default=10.0,
        gt=0,
        allow_inf_nan=False,
        description="Seconds a connection has to deliver a whole request (noughts serve).",
    )

    def __init__(self, **given: Any) -> None:
        try:
            super().__init__(**given)
        except ValidationError as error:
            raise SettingsError(_describe(error)) from None

    @model_validator(mode="before")
    @classmethod
    def _read_environment(cls, given: Any) -> Any:
        """The ``NOUGHTS_*`` variables of the fields not given as arguments."""
        if not isinstance(given, dict):
            return given
        environment = {key.upper(): value for key, value in os.environ.items()
                       if key.upper().startswith(ENV_PREFIX)}
        found = {name: environment[ENV_PREFIX + name.upper()] for name in cls.model_fields
                 if ENV_PREFIX + name.upper() in environment}
        return {**found, **given}

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @field_validator("cache_url", mode="before")
    @classmethod
    def _check_cache_url(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip() or None
        if value is not None:
            _check_cache_url(str(value))
        return value

    @model_validator(mode="after")
    def _check_budgets(self) -> Settings:
        self.min_time_ms = min(self.min_time_ms, self.max_time_ms)
        self.default_time_ms = max(self.min_time_ms, min(self.default_time_ms, self.max_time_ms))
        return self

    @model_validator(mode="after")
    def _public_defaults(self) -> Settings:
        """A public deployment allows no other origin unless the origins were given."""
        if self.public and "cors_origins" not in self.model_fields_set:
            self.cors_origins = []
        if self.metrics is None:
            self.metrics = not self.public
        return self

    @property
    def operator_pages(self) -> bool:
        """True if /docs, /redoc, /openapi.json and /api/v1/stats are served (not public)."""
        return not self.public

    def budget_ms(self, requested: int | None) -> int:
        """The search budget for a request: its ``time_ms`` (or the default), clamped."""
        wanted = self.default_time_ms if requested is None else requested
        return max(self.min_time_ms, min(wanted, self.max_time_ms))


def _describe(error: ValidationError) -> str:
    """One line for a settings error: the variable, the problem, the value given (a
    secret one redacted)."""
    problem = error.errors(include_url=False, include_context=False, include_input=True)[0]
    field = str(problem["loc"][0]) if problem["loc"] else ""
    message = str(problem["msg"]).removeprefix("Value error, ")
    given = problem.get("input")
    if isinstance(given, str) and field:  # any setting may be given a URL
        message += f" (got {redacted(given)!r})"
    elif isinstance(given, int | float | bool) and field:
        message += f" (got {given!r})"
    more = error.error_count() - 1
    if more:
        message += f" (and {more} more problem{'s' if more > 1 else ''})"
    name = ENV_PREFIX + field.upper() if field else "settings"
    return f"bad setting {name}: {message}"
