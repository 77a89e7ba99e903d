"""The guards of a loopback HTTP service that shows a model's questions to a human: shared by
the web provider's page server and the inbox server (``user-interaction-inbox``).

What they refuse, each with a 4xx, a JSON ``{"error": ...}`` body and one log line on the
``user_interaction_web.guards`` logger, never a traceback:

- a Host whose name is not an allowed one (421: DNS rebinding), the port ignored so an
  ``ssh -L`` tunnel passes;
- an ``/api/`` call without the token (403), compared with :func:`hmac.compare_digest`,
  or a session the server recognises instead (the inbox's cookie; a POST made with it
  must come from a page: with an Origin);
- a present Origin that is not this server (403: another site's page);
- a POST that is not ``application/json`` (415: a form cannot post cross-site without a
  CORS preflight, which is never approved);
- header values that are not UTF-8 (400);
- bodies over :data:`MAX_BODY` (413), malformed JSON or JSON nested too deep (400).

Every response carries :data:`SECURITY_HEADERS`.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Final

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.typedefs import Handler, Middleware

from user_interaction import INVALID_ANSWER

if TYPE_CHECKING:
    from user_interaction import Problem

__all__ = [
    "LOOPBACK_NAMES",
    "MAX_BODY",
    "SECURITY_HEADERS",
    "Refused",
    "add_security_headers",
    "answer_refused",
    "error",
    "guard",
    "hostname",
    "read_json",
    "token_matches",
]

#: Largest request body accepted (a bigger one is 413).
MAX_BODY: Final = 64 * 1024
#: Host names a loopback service answers to.
LOOPBACK_NAMES: Final = frozenset({"127.0.0.1", "localhost", "[::1]"})
#: Sent on every response, errors included.
SECURITY_HEADERS: Final = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}

_log = logging.getLogger(__name__)


class Refused(Exception):
    """A request the server refuses: ``status`` (4xx), the message it reports, and what
    else its JSON body says (``extra``)."""

    def __init__(
        self, status: int, message: str, *, extra: Mapping[str, object] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.extra = extra


def answer_refused(problems: Sequence[Problem]) -> Refused:
    """422 for an answer the core's rules refuse (:func:`~user_interaction.check_answer`):
    every problem with its path, so the page shows them while the ask stays open."""
    return Refused(
        422,
        "; ".join(str(problem) for problem in problems),
        extra={
            "code": INVALID_ANSWER,
            "problems": [{"path": p.path, "message": p.message, "code": p.code} for p in problems],
        },
    )


def error(
    status: int,
    message: str,
    request: web.Request | None = None,
    *,
    extra: Mapping[str, object] | None = None,
) -> web.Response:
    """A JSON error response ``{"error": message, **extra}``, logged as one line (method
    and path, never the query: the page's event stream carries the token there)."""
    where = f"{request.method} {request.path}: " if request is not None else ""
    _log.warning("%d %s%s", status, where, message)
    return web.json_response({"error": message, **(extra or {})}, status=status)


def hostname(host: str) -> str:
    """The Host header without its port (``[::1]:80`` -> ``[::1]``), lower-cased."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.partition(":")[0]


def token_matches(given: str, token: str) -> bool:
    """Whether ``given`` is ``token``, compared in constant time; text that is not plain
    UTF-8 (aiohttp hands undecodable header bytes over as surrogates) never matches."""
    try:
        given_bytes = given.encode()
    except UnicodeEncodeError:
        return False
    return hmac.compare_digest(given_bytes, token.encode())


def _undecodable(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return True
    return False


class _ParserErrorsInOneLine(logging.Filter):
    """Turns aiohttp's log record of a request it could not parse (a bad request line,
    header or chunk: a 400 it answers itself) into one warning line, without traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        error_info = record.exc_info[1] if record.exc_info else None
        if isinstance(error_info, HttpProcessingError):
            reason = " ".join(str(error_info.message).split())[:200]
            record.msg, record.args = "%d (malformed request): %s", (error_info.code, reason)
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


_PARSER_FILTER: Final = _ParserErrorsInOneLine()


def guard(
    token: Callable[[web.Request], str],
    expected: str,
    *,
    hosts: Collection[str] = LOOPBACK_NAMES,
    origin_required: bool = True,
    session: Callable[[web.Request], bool] | None = None,
    refusal: str = "Open the address with its token.",
) -> Middleware:
    """A middleware applying the guards above to every request: ``token(request)`` reads
    the token a request carries (a header, or a query parameter for an event stream) and
    ``expected`` is the one to match; ``hosts`` are the allowed Host names; with
    ``origin_required`` a POST must carry an Origin (only a page calls this API);
    ``session(request)``, when given, says whether a request without the token carries a
    session the server gave (a cookie); ``refusal`` is what a request with neither hears.

    It also makes aiohttp's report of a request too malformed to reach any middleware
    (a bad request line, header or chunk, answered 400 by aiohttp) one log line."""
    server_log = logging.getLogger("aiohttp.server")
    if _PARSER_FILTER not in server_log.filters:
        server_log.addFilter(_PARSER_FILTER)

    def refused(request: web.Request) -> web.Response | None:
        if any(_undecodable(value) for value in request.headers.values()):
            return error(400, "Header values must be UTF-8.", request)
        host = request.headers.get("Host", "")
        if hostname(host) not in hosts:
            return error(421, f"This server answers only to {', '.join(sorted(hosts))}.", request)
        if not request.path.startswith("/api/"):
            return None
        origin = request.headers.get("Origin")
        allowed = {f"{scheme}://{host}".lower() for scheme in ("http", "https")}
        if origin is not None and origin.lower() not in allowed:
            return error(403, "Cross-origin requests are refused.", request)
        by_session = False
        if not token_matches(token(request), expected):
            if session is None or not session(request):
                return error(403, refusal, request)
            by_session = True
        if by_session and request.method not in ("GET", "HEAD") and origin is None:
            return error(403, "A change made with a session must come from its page.", request)
        if request.method == "POST":
            if origin is None and origin_required:
                return error(403, "A POST must come from the page (no Origin header).", request)
            if request.content_type != "application/json":
                return error(415, "Send application/json.", request)
        return None

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        # The checks run in a function of their own: a held request (a long poll, an
        # event stream) keeps this frame alive, and should keep nothing else.
        refusal_response = refused(request)
        if refusal_response is not None:
            return refusal_response
        try:
            return await handler(request)
        except Refused as exc:
            return error(exc.status, str(exc), request, extra=exc.extra)

    return middleware


async def read_json(request: web.Request) -> object:
    """The request's JSON body; :class:`Refused` (caught by :func:`guard`'s middleware)
    when it is too large, not UTF-8 JSON, or nested too deep for the parser (at most
    :data:`MAX_BODY` bytes of brackets: refused at once)."""
    try:
        body = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise Refused(413, f"The body is larger than {MAX_BODY} bytes.") from None
    try:
        return json.loads(body)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise Refused(400, "The body is not valid JSON.") from None


async def add_security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """An ``on_response_prepare`` signal handler adding :data:`SECURITY_HEADERS`."""
    response.headers.update(SECURITY_HEADERS)
