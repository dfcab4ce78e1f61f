"""The move service: a FastAPI app (``noughts serve``) and its AWS Lambda handler.

The two public names are imported on first use, so a search worker process (which
imports :mod:`noughts.service.worker` and the engine) never loads the web stack.

>>> from noughts.service import Settings
>>> Settings(default_time_ms=500).default_time_ms
500
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from noughts.service.app import create_app
    from noughts.service.settings import Settings

_HOMES = {"create_app": "noughts.service.app", "Settings": "noughts.service.settings"}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'noughts.service' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = ["create_app", "Settings"]
