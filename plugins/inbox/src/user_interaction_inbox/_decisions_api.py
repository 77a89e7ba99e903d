"""The inbox's API for remembered approvals ("Always allow" / "Always deny"), over its
store: every agent of the inbox follows them."""

from __future__ import annotations

import asyncio
from typing import Any, Final

from aiohttp import web
from user_interaction_web.guards import Refused, read_json

from user_interaction.extensions import Decision

from ._store import Store
from ._wire import json_object, only_fields

__all__ = ["decision_routes"]

#: The longest decision name the API takes (it travels in the URL's query).
_MAX_NAME: Final = 1000


def decision_routes(store: Store) -> list[web.RouteDef]:
    """``/api/decisions`` (list, forget all) and ``/api/decisions/item?name=`` (get, put,
    forget one), served from ``store``."""

    async def decisions(request: web.Request) -> web.Response:
        decisions = await asyncio.to_thread(store.decisions)
        return web.json_response({"decisions": [_decision_of(d) for d in decisions]})

    async def decision(request: web.Request) -> web.Response:
        name = _decision_name(request)
        decision = await asyncio.to_thread(store.decision, name)
        if decision is None:
            raise Refused(404, f"No decision is remembered for {name!r}.")
        return web.json_response(_decision_of(decision))

    async def decide(request: web.Request) -> web.Response:
        name = _decision_name(request)
        if request.content_type != "application/json":
            raise Refused(415, "Send application/json.")
        data = json_object(await read_json(request))
        only_fields(data, ("allowed",))
        allowed = data.get("allowed")
        if not isinstance(allowed, bool):
            raise Refused(400, "allowed: expected true or false")
        decision = await asyncio.to_thread(store.decide, name, allowed)
        return web.json_response(_decision_of(decision))

    async def forget_decision(request: web.Request) -> web.Response:
        forgotten = await asyncio.to_thread(store.forget_decisions, _decision_name(request))
        return web.json_response({"forgotten": forgotten})

    async def forget_decisions(request: web.Request) -> web.Response:
        forgotten = await asyncio.to_thread(store.forget_decisions, None)
        return web.json_response({"forgotten": forgotten})

    return [
        web.get("/api/decisions", decisions),
        web.delete("/api/decisions", forget_decisions),
        web.get("/api/decisions/item", decision),
        web.put("/api/decisions/item", decide),
        web.delete("/api/decisions/item", forget_decision),
    ]


def _decision_of(decision: Decision) -> dict[str, Any]:
    """A remembered decision as the API reports it: its ``to_dict()`` form, plus
    ``decidedAt`` in Unix seconds."""
    return {**decision.to_dict(), "decidedAt": decision.decided}


def _decision_name(request: web.Request) -> str:
    """The ``name`` query parameter: what an approval remembered (``tool:deploy``)."""
    names = request.query.getall("name", [])
    if len(names) != 1:
        raise Refused(400, "name: expected one name parameter")
    name = names[0]
    if not name.strip() or len(name) > _MAX_NAME:
        raise Refused(400, f"name: expected non-blank text of at most {_MAX_NAME} characters")
    return name  # bytes that are not UTF-8 arrive replaced (U+FFFD), never as surrogates
