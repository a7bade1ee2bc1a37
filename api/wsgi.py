"""WSGI entry point for gunicorn: ``gunicorn api.wsgi:app`` (reads REDIS_URL)."""
from .app import create_app

app = create_app()
