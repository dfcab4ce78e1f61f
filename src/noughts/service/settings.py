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
"""

from __future__ import annotations

import json
import os
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from noughts.budget import DEFAULT_SECONDS

__all__ = ["Settings"]


ENV_PREFIX = "NOUGHTS_"
"""The settings' environment variables are ``NOUGHTS_`` and the field's name."""


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
    request_timeout_s: float = Field(
        default=10.0,
        gt=0,
        allow_inf_nan=False,
        description="Seconds a connection has to deliver a whole request (noughts serve).",
    )

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
        if value is not None and not str(value).startswith(("redis://", "rediss://", "unix://")):
            raise ValueError(f"cache_url must be a redis://, rediss:// or unix:// URL: {value!r}")
        return value

    @model_validator(mode="after")
    def _check_budgets(self) -> Settings:
        self.min_time_ms = min(self.min_time_ms, self.max_time_ms)
        self.default_time_ms = max(self.min_time_ms, min(self.default_time_ms, self.max_time_ms))
        return self

    def budget_ms(self, requested: int | None) -> int:
        """The search budget for a request: its ``time_ms`` (or the default), clamped."""
        wanted = self.default_time_ms if requested is None else requested
        return max(self.min_time_ms, min(wanted, self.max_time_ms))
