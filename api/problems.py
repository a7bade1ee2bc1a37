"""RFC 9457 problem details with a stable machine ``code``.

Every error leaves the server as ``application/problem+json``; clients branch
on ``code`` and show ``detail``.
"""
from __future__ import annotations

import json

from flask import Response

PROBLEM_TYPE = "/problems/"  # relative: it resolves against the server that answered (api/problem_pages.py)


class Problem(Exception):
    def __init__(self, status: int, code: str, detail: str, **extra):
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = extra


TITLES = {
    400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
    405: "Method Not Allowed", 406: "Not Acceptable", 409: "Conflict", 411: "Length Required",
    412: "Precondition Failed", 413: "Content Too Large", 415: "Unsupported Media Type", 422: "Unprocessable Content",
    429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable",
}


def problem_body(status: int, code: str, detail: str, **extra) -> dict:
    return {"type": PROBLEM_TYPE + code, "title": TITLES.get(status, "Error"), "status": status,
            "code": code, "detail": detail, **extra}


def problem_response(status: int, code: str, detail: str, headers: dict | None = None, **extra) -> Response:
    body = problem_body(status, code, detail, **extra)
    response = Response(json.dumps(body), status=status, mimetype="application/problem+json")
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response
