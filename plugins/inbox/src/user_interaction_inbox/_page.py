"""The inbox's page and its session: the page is served without a credential (it holds
no model text), and opening the address with the token once sets a session cookie, so
that a link without the token (a notification's) works in that browser."""

from __future__ import annotations

import hashlib
import hmac
from importlib.resources import files
from typing import Callable, Final

from aiohttp import web
from user_interaction_web.guards import Refused, token_matches

from ._address import TOKEN_HEADER

__all__ = ["SESSION_COOKIE", "Sessions", "page_routes", "token_of"]

#: The page's session cookie, and how long a browser keeps it (30 days).
SESSION_COOKIE: Final = "user_interaction_inbox"
_SESSION_SECONDS: Final = 30 * 24 * 3600


def token_of(request: web.Request) -> str:
    """The token a request carries in its header ("" without one)."""
    return request.headers.get(TOKEN_HEADER, "")


def _static(package: str, name: str, content_type: str) -> tuple[bytes, str]:
    return files(package).joinpath("static", name).read_bytes(), content_type


def page_routes() -> list[web.RouteDef]:
    """The page (at ``/`` and at ``/asks/ID``, which it opens on that ask) and its files:
    the web provider's cards script and stylesheet (one code base for both pages) with
    the inbox's own shell and transport."""
    body, content_type = _static(__package__, "inbox.html", "text/html")
    assets = {
        "/cards.js": _static("user_interaction_web", "cards.js", "text/javascript"),
        "/app.css": _static("user_interaction_web", "app.css", "text/css"),
        "/inbox.js": _static(__package__, "inbox.js", "text/javascript"),
    }

    async def home(request: web.Request) -> web.Response:
        return web.Response(body=body, content_type=content_type, charset="utf-8")

    async def asset(request: web.Request) -> web.Response:
        data, kind = assets[request.path]
        return web.Response(body=data, content_type=kind, charset="utf-8")

    async def no_icon(request: web.Request) -> web.Response:
        return web.Response(status=204)

    return [
        web.get("/", home),
        web.get("/asks/{id}", home),
        *(web.get(path, asset) for path in assets),
        web.get("/favicon.ico", no_icon),
    ]


class Sessions:
    """The page's session cookie. Its value is derived from the token, so it outlives a
    restart and ``serve --new-token`` ends every session with the token; ``secure``
    says whether the server speaks TLS (known once it listens)."""

    def __init__(self, token: str, *, secure: Callable[[], bool]) -> None:
        self._token = token
        self._secure = secure
        self._value = hmac.new(
            token.encode(), b"user-interaction inbox session", hashlib.sha256
        ).hexdigest()

    def carried(self, request: web.Request) -> bool:
        """Whether ``request`` carries this inbox's session cookie."""
        return token_matches(request.cookies.get(SESSION_COOKIE, ""), self._value)

    def route(self) -> web.RouteDef:
        """``POST /api/session``: the page posts the token from its address's fragment
        (the guard checked it); the reply sets the session cookie, so that links without
        the token work in this browser: ``HttpOnly`` (no script reads it),
        ``SameSite=Strict`` (no other site's request carries it), ``Secure`` over TLS."""

        async def start(request: web.Request) -> web.Response:
            if not token_matches(token_of(request), self._token):
                raise Refused(403, "A session starts only with the token.")
            response = web.json_response({"session": True})
            response.set_cookie(
                SESSION_COOKIE,
                self._value,
                max_age=_SESSION_SECONDS,
                path="/",
                httponly=True,
                samesite="Strict",
                secure=self._secure(),
            )
            return response

        return web.post("/api/session", start)
