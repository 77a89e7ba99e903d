"""Finding a running inbox, and speaking to it from blocking code (the command line, the
provider's ``available()``): the address comes from ``USER_INTERACTION_INBOX`` (the URL with
the token as its fragment, as ``inbox open`` prints it) or from ``inbox.json`` in the state
directory, which ``inbox serve`` writes."""

from __future__ import annotations

import http.client
import json
import os
import ssl
import urllib.parse
from pathlib import Path
from typing import Any, Final

import attrs

from user_interaction import state_dir

__all__ = [
    "INBOX_ENV",
    "TOKEN_HEADER",
    "Address",
    "InboxUnreachable",
    "Reply",
    "address_file",
    "find_address",
    "token_file",
]

#: The inbox's address with its token as the fragment: ``http://127.0.0.1:8765/#TOKEN``.
INBOX_ENV: Final = "USER_INTERACTION_INBOX"
#: The header carrying the token on every API call.
TOKEN_HEADER: Final = "X-UI-Token"


def address_file() -> Path:
    """``inbox.json`` in the state directory: the running server's url, token and pid."""
    return state_dir() / "inbox.json"


def token_file() -> Path:
    """``inbox.token`` in the state directory: the token, kept across restarts."""
    return state_dir() / "inbox.token"


class InboxUnreachable(Exception):
    """No inbox answers: none is configured, or its server is not running."""


@attrs.frozen
class Reply:
    """An HTTP reply from the inbox: its status and its JSON body."""

    status: int
    body: dict[str, Any]


@attrs.frozen
class Address:
    """Where an inbox listens (``base``: scheme, host and port) and its token."""

    base: str
    token: str

    @property
    def page(self) -> str:
        """The page's address with the token in its fragment (never sent to a server)."""
        return f"{self.base}/#{self.token}"

    @classmethod
    def parse(cls, url: str, token: str | None = None) -> Address:
        """``url`` with the token in its fragment, or given apart."""
        parts = urllib.parse.urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise InboxUnreachable(f"{url!r} is not an inbox address (http://HOST:PORT/#TOKEN)")
        token = token or parts.fragment
        if not token:
            raise InboxUnreachable(f"{url!r} has no token (http://HOST:PORT/#TOKEN)")
        return cls(f"{parts.scheme}://{parts.netloc}", token)

    def request(
        self, method: str, path: str, payload: object = None, *, timeout: float = 10.0
    ) -> Reply:
        """One blocking API call; :class:`InboxUnreachable` when nothing answers."""
        parts = urllib.parse.urlsplit(self.base)
        connection: http.client.HTTPConnection
        if parts.scheme == "https":
            connection = http.client.HTTPSConnection(
                parts.netloc, timeout=timeout, context=ssl.create_default_context()
            )
        else:
            connection = http.client.HTTPConnection(parts.netloc, timeout=timeout)
        headers = {TOKEN_HEADER: self.token}
        body = None
        if payload is not None:
            body = json.dumps(payload).encode()
            headers["Content-Type"] = "application/json"
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
        except OSError as exc:
            raise InboxUnreachable(f"no inbox answers at {self.base}: {exc}") from exc
        finally:
            connection.close()
        try:
            parsed = json.loads(data) if data else {}
        except ValueError:
            parsed = {}
        if not isinstance(parsed, dict):
            parsed = {}
        return Reply(response.status, parsed)


def find_address(url: str | None = None, token: str | None = None) -> Address:
    """The inbox to use: ``url`` (with ``token``, or the token in its fragment), else
    ``USER_INTERACTION_INBOX``, else ``inbox.json``; :class:`InboxUnreachable` if none."""
    if url:
        return Address.parse(url, token)
    configured = os.environ.get(INBOX_ENV, "").strip()
    if configured:
        return Address.parse(configured, token)
    path = address_file()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Address.parse(str(data["url"]), token or str(data["token"]))
    except FileNotFoundError:
        raise InboxUnreachable(
            f"no inbox is running here ({path} does not exist): start one with "
            f"user-interaction inbox serve, or set {INBOX_ENV}"
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InboxUnreachable(f"cannot read {path}: {exc}") from exc
