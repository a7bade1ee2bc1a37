"""WSGI entry point for gunicorn: ``gunicorn api.wsgi:app``.

Reads REDIS_URL (and QUEUE_URL), and the write rate limits from
STICH_RATE_LIMIT_TOKEN / STICH_RATE_LIMIT_ADDRESS / STICH_RATE_LIMIT_WINDOW.
"""
from .app import create_app
from .ratelimit import Limits

app = create_app(limits=Limits.from_env())
