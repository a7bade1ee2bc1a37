"""A page per problem code, where each problem's ``type`` (``/problems/<code>``) leads.

The pages are made from the contract the server serves, so they say what
``openapi.yaml`` says and nothing it does not: the codes and their statuses
from the ``Problem`` schema's list, and what each means from every error
answer whose description names it (shared responses with the routes that
answer them) or whose route's description does. What to do follows from the status (RFC 9110's meaning of it,
said for this API).
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import cache

import yaml
from flask import Blueprint, Response
from werkzeug.exceptions import NotFound

from .meta import contract_text

problem_pages = Blueprint("problem_pages", __name__)

PROBLEM_JSON = "application/problem+json"
STATUS = re.compile(r"\b([45][0-9]{2})\b")
CODE = re.compile(r"`([a-z][a-z_]*)`")
# A bullet of the Problem schema's list, with its indented continuation lines.
BULLET = re.compile(r"^\* (.*(?:\n  .*)*)", re.MULTILINE)
SENTENCE_END = re.compile(r"(?<=[.;])\s+(?=[`A-Z(])")
ROUTES_SHOWN = 12  # a shared answer (404 not_found) is every route's: name a few

ADVICE = {
    400: "The request is malformed as sent; the detail says where. Sent again unchanged it fails the same way.",
    401: "Send the credential the detail names: a seat's or a player's token as `Authorization: Bearer <token>`, "
         "or an operator key as `X-API-Key`.",
    403: "The credential is good but not for this: another seat's, a player's without the scope, or a request "
         "only an operator key may make. Sent again with the same credential it is refused again.",
    404: "Nothing here has that name: check the id in the path (and that the route exists, `GET /v1` lists them).",
    405: "Use one of the methods the `Allow` header lists.",
    409: "The request conflicts with the state things are in now. Read the state again (a game's problem carries "
         "`current_seq`, and `legal`, the commands the seat may send now) and send what it allows.",
    410: "It was there and is gone for good: nothing to retry.",
    411: "Send the body with a `Content-Length`.",
    412: "The game moved on since the seq you sent in `If-Match`: read it again (`current_seq`) and decide anew.",
    413: "Send a smaller body (64 KiB at most; an export to verify or import has bounds of its own).",
    414: "Send a shorter request line.",
    415: "Send the body as `application/json` (an export as `application/x-ndjson`).",
    417: "Send the request without an `Expect` the server does not support.",
    422: "The request is well-formed but its content is not valid: `errors` names each field and what is wrong "
         "with it. Sent again unchanged it fails the same way.",
    429: "Wait the seconds `Retry-After` says, then send it again. Answers that counted against a rate limit say "
         "how much of it is left in `RateLimit` and `RateLimit-Policy`, so a client can slow down before this.",
    431: "Send fewer or smaller header fields.",
    500: "The server failed; the request changed nothing it had not acknowledged. Send it again with the same "
         "`Idempotency-Key`; if it keeps failing, report its `X-Request-Id`.",
    501: "The server does not implement what the request asks (a method or transfer coding HTTP allows).",
    503: "Try again after `Retry-After` seconds. A command that got no answer may or may not have been applied: "
         "send it again with the same `Idempotency-Key` and the server answers as it first did.",
}
GENERIC_ADVICE = "Read the detail: it says what was wrong with this request."


@dataclass
class Code:
    name: str
    statuses: set[int] = field(default_factory=set)
    listed: list[str] = field(default_factory=list)  # the Problem schema's bullets that name it
    meanings: list[tuple[str, str]] = field(default_factory=list)  # (where, sentence) of error answers


def resolve(spec: dict, node: dict) -> dict:
    while "$ref" in node:
        target = spec
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def listed_codes(spec: dict) -> dict[str, Code]:
    """The codes of the Problem schema's list, each with the statuses its bullet gives it."""
    codes: dict[str, Code] = {}
    for bullet in BULLET.findall(spec["components"]["schemas"]["Problem"]["description"]):
        text = " ".join(line.strip() for line in bullet.splitlines())
        status = None
        # A bullet reads "409 `a`, `b`, 429 `c` (...)": a status applies to the codes after it. Backticked
        # names inside a parenthesis are fields of the problem, not codes.
        for token in re.finditer(r"\([^)]*\)|\b[45][0-9]{2}\b|`[a-z][a-z_]*`", text):
            word = token.group(0)
            if word.startswith("("):
                continue
            if word.isdigit():
                status = int(word)
                continue
            code = codes.setdefault(word.strip("`"), Code(word.strip("`")))
            if status is not None:
                code.statuses.add(status)
            if text not in code.listed:
                code.listed.append(text)
    return codes


def error_answers(spec: dict):
    """(where, status, description) of every problem answer: each operation's own, and each shared one
    with the routes that answer it; and each operation's description (status ""), which often says when
    the route refuses what."""
    sharing: dict[str, list[str]] = {}
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            route = f"{method.upper()} {path}"
            yield route, "", operation.get("description", "")  # where a route's refusals are told as a whole
            for status, answer in operation["responses"].items():
                if "$ref" in answer:
                    sharing.setdefault(answer["$ref"], []).append(f"{route} ({status})")
                elif PROBLEM_JSON in answer.get("content", {}):
                    yield f"{route} ({status})", status, answer.get("description", "")
    for ref, routes in sharing.items():
        answer = resolve(spec, {"$ref": ref})
        if PROBLEM_JSON in answer.get("content", {}):
            shown = ", ".join(routes[:ROUTES_SHOWN]) + (f" and {len(routes) - ROUTES_SHOWN} more routes"
                                                         if len(routes) > ROUTES_SHOWN else "")
            statuses = {r.rsplit("(", 1)[1].rstrip(")") for r in routes}
            yield shown, "/".join(sorted(statuses)), answer.get("description", "")


@cache
def problem_codes() -> dict[str, Code]:
    spec = yaml.safe_load(contract_text())
    codes = listed_codes(spec)
    for where, _status, description in error_answers(spec):
        text = " ".join(description.split())
        for sentence in SENTENCE_END.split(text):
            for name in set(CODE.findall(sentence)) & codes.keys():
                if (where, sentence) not in codes[name].meanings:
                    codes[name].meanings.append((where, sentence))
    return codes


def markdown_inline(text: str) -> str:
    """The contract's inline Markdown as HTML: code spans and strong emphasis, everything else escaped."""
    out = html.escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} - stich</title></head>
<body>
{body}
<p><a href="/problems">Every problem code</a> · <a href="/docs">the API</a> ·
<a href="/v1/openapi.yaml">the contract</a></p>
</body></html>
"""


def code_page(code: Code) -> str:
    statuses = ", ".join(str(s) for s in sorted(code.statuses)) or "any (the answer's <code>status</code>)"
    parts = [f"<h1>Problem <code>{code.name}</code></h1>", f"<p>HTTP status {statuses}.</p>",
             "<h2>What it means</h2>"]
    parts += [f"<p>{markdown_inline(text)}</p>" for text in code.listed]
    if code.meanings:
        parts.append("<ul>")
        parts += [f"<li><strong>{markdown_inline(where)}</strong>: {markdown_inline(sentence)}</li>"
                  for where, sentence in code.meanings]
        parts.append("</ul>")
    parts.append("<h2>What to do</h2>")
    for status in sorted(code.statuses) or [None]:
        advice = ADVICE.get(status, GENERIC_ADVICE)
        parts.append(f"<p>{f'{status}: ' if len(code.statuses) > 1 else ''}{markdown_inline(advice)}</p>")
    return PAGE.format(title=code.name, body="\n".join(parts))


@cache
def index_page() -> str:
    rows = [f'<li><a href="/problems/{c.name}"><code>{c.name}</code></a> '
            f'({", ".join(str(s) for s in sorted(c.statuses)) or "any"})</li>'
            for c in sorted(problem_codes().values(), key=lambda c: (min(c.statuses, default=0), c.name))]
    body = ("<h1>Problem codes</h1>\n<p>Every error stich answers is <code>application/problem+json</code> with a "
            "<code>code</code>; its <code>type</code> is the code's page here.</p>\n<ul>\n" + "\n".join(rows)
            + "\n</ul>")
    return PAGE.format(title="Problem codes", body=body)


@problem_pages.get("/problems")
def index():
    return Response(index_page(), mimetype="text/html")


@problem_pages.get("/problems/<code>")
def page(code: str):
    found = problem_codes().get(code)
    if found is None:
        raise NotFound(f"no problem code {code!r}; /problems lists them")
    return Response(code_page(found), mimetype="text/html")
