"""The move service: a FastAPI app (``noughts serve``) and its AWS Lambda handler.

The two public names are imported on first use, so a search worker process (which
imports :mod:`noughts.service.processes` and the engine) never loads the web stack.

>>> from noughts.service import Settings
>>> Settings(default_time_ms=500).default_time_ms
500
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from noughts.service.app import create_app
    from noughts.service.settings import Settings



def __getattr__(name: str) -> object:
    if name == "create_app":
        from noughts.service.app import create_app

        return create_app
    if name == "Settings":
        from noughts.service.settings import Settings

        return Settings
    raise AttributeError(f"module 'noughts.service' has no attribute {name!r}")


__all__ = ["create_app", "Settings"]
