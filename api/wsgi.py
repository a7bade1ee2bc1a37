"""WSGI entry point for gunicorn: ``gunicorn api.wsgi:app``.

Reads REDIS_URL (and QUEUE_URL), the write rate limits from
STICH_RATE_LIMIT_TOKEN / STICH_RATE_LIMIT_ADDRESS / STICH_RATE_LIMIT_WINDOW, and
the quotas and operator keys (``api.quotas``) from STICH_CREATE_LIMIT,
STICH_CREATE_WINDOW, STICH_ACTIVE_GAMES_LIMIT, STICH_STREAMS_LIMIT, STICH_API_KEYS.
"""
import os

from .app import create_app
from .quotas import Quotas
from .ratelimit import Limits
from .request_log import configure_logging

configure_logging(os.environ.get("STICH_LOG_LEVEL", "WARNING"))
app = create_app(limits=Limits.from_env(), quotas=Quotas.from_env())
