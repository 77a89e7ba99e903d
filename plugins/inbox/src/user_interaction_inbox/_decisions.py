"""Remembered approvals kept by an inbox: the decision store the ``inbox`` provider hands
the core (``decision_store()``), so that every agent asking through one inbox, on any
machine, follows the same "Always allow" / "Always deny" answers.

Its methods block (one HTTP call each, with the standard library): ``RememberedDecisions``
calls them on a worker thread.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from user_interaction import PROVIDER_FAILED, UserInteractionError
from user_interaction.extensions import Decision

from ._address import Address, InboxUnreachable, Reply, find_address

__all__ = ["InboxDecisions"]


class InboxDecisions:
    """The decisions of the inbox at ``url`` (with ``token``; by default the one the
    ``inbox`` provider finds), with the four methods of a decision store. The address is
    read again on every call (a restarted server may have another port). An inbox that
    cannot be reached, or answers oddly, raises :class:`UserInteractionError`
    (``PROVIDER_FAILED``) saying which."""

    def __init__(self, url: str | None = None, token: str | None = None) -> None:
        self._url = url
        self._token = token

    def __repr__(self) -> str:
        return f"<InboxDecisions {self._where()}>"

    def get(self, name: str) -> Decision | None:
        """The decision the inbox remembers for ``name``, if any."""
        reply = self._call("GET", _item(name), missing_ok=True)
        return None if reply.status == 404 else self._decision(reply.body, "GET")

    def put(self, name: str, allowed: bool) -> Decision:
        """Remember ``allowed`` for ``name`` in the inbox (replacing what was there)."""
        return self._decision(self._call("PUT", _item(name), {"allowed": allowed}).body, "PUT")

    def forget(self, name: str | None = None) -> int:
        """Forget ``name`` (every decision when ``None``); how many were forgotten."""
        path = "/api/decisions" if name is None else _item(name)
        forgotten = self._call("DELETE", path).body.get("forgotten")
        if not isinstance(forgotten, int) or isinstance(forgotten, bool):
            raise self._failure("DELETE", f"an unexpected reply {forgotten!r}")
        return forgotten

    def all(self) -> list[Decision]:
        """Every decision the inbox remembers, by name."""
        listed = self._call("GET", "/api/decisions").body.get("decisions")
        if not isinstance(listed, list):
            raise self._failure("GET", "an unexpected reply")
        return [self._decision(item, "GET") for item in listed]

    # -- HTTP ------------------------------------------------------------------------------

    def _where(self) -> str:
        try:
            return find_address(self._url, self._token).base
        except InboxUnreachable:
            return "(no inbox configured)"

    def _call(
        self, method: str, path: str, payload: object = None, *, missing_ok: bool = False
    ) -> Reply:
        try:
            address: Address = find_address(self._url, self._token)
            reply = address.request(method, path, payload)
        except InboxUnreachable as exc:
            raise UserInteractionError(
                f"The inbox keeping remembered approvals cannot be reached: {exc}",
                PROVIDER_FAILED,
            ) from exc
        if reply.status == 200 or (missing_ok and reply.status == 404):
            return reply
        message = reply.body.get("error") or "no message"
        raise self._failure(method, f"{reply.status}: {message}", address)

    def _failure(
        self, method: str, what: str, address: Address | None = None
    ) -> UserInteractionError:
        where = address.base if address is not None else self._where()
        return UserInteractionError(
            f"The inbox at {where} answered {method} /api/decisions with {what}",
            PROVIDER_FAILED,
        )

    def _decision(self, data: Any, method: str) -> Decision:
        """A decision from its API form (``decidedAt`` is the exact time)."""
        if (
            isinstance(data, dict)
            and isinstance(data.get("name"), str)
            and data.get("decision") in ("allow", "deny")
            and isinstance(data.get("decidedAt"), (int, float))
            and not isinstance(data.get("decidedAt"), bool)
        ):
            return Decision(data["name"], data["decision"] == "allow", float(data["decidedAt"]))
        raise self._failure(method, f"a decision it does not describe: {data!r}"[:300])


def _item(name: str) -> str:
    return "/api/decisions/item?name=" + urllib.parse.quote(name, safe="")
