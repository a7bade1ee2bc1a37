"""The REST API under /v1: Flask blueprints, marshmallow schemas, problem+json errors."""
from .app import create_app

__all__ = ["create_app"]
