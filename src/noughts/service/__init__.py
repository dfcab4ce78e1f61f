"""The move service: a FastAPI app (``noughts serve``) and its AWS Lambda handler.

>>> from noughts.service import Settings
>>> Settings(default_time_ms=500).default_time_ms
500
"""

from noughts.service.app import create_app
from noughts.service.settings import Settings

__all__ = ["create_app", "Settings"]
