"""What the inbox's HTTP API says and reads: an ask's status and its card, server-sent
events, and the checks of a request body's fields (each a :class:`Refused`, a 4xx)."""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from typing import Any, Final

from aiohttp import web
from user_interaction_web.guards import Refused, answer_refused, error
from user_interaction_web.previews import with_trees

from user_interaction import (
    ASK_CANCELLED,
    ASK_DECLINED,
    AskUserQuestionRequest,
    UserInteractionError,
    check_answer,
)

from ._store import State, StoredAsk

#: 9999-12-31 in Unix time: a deadline past it (``timeout=1e300``) is none.
_LAST_DATE: Final = 253402300799.0
_SETTLE_ACTIONS: Final[dict[str, State]] = {
    "answer": "answered",
    "cancel": "cancelled",
    "decline": "declined",
}

__all__ = [
    "already_settled",
    "card_of",
    "event",
    "fresh_ask",
    "json_object",
    "only_fields",
    "outcome_of",
    "settlement",
    "status_of",
    "text_field",
]


def status_of(ask: StoredAsk) -> dict[str, Any]:
    """An ask as the API reports it (the shape ``inbox list --json`` shows, plus its
    outcome once settled)."""
    data: dict[str, Any] = {
        "id": ask.id,
        "state": ask.state,
        "agent": ask.agent,
        "key": ask.key,
        "created": ask.created,
        "deadline": ask.deadline,
        "request": ask.request,
    }
    if ask.state != "pending":
        data.update(
            answer=ask.answer, error=ask.error, settledBy=ask.settled_by, settled=ask.settled
        )
    return data


def card_of(ask: StoredAsk, now: float) -> dict[str, Any]:
    """A pending ask as the page shows it: the card of the shared page code base (its
    ``askId`` and ``questions``, each preview with the tree the page renders), with the
    agent's label, the ask's ``age`` and, under a deadline, its ``timeLeft`` in seconds at
    ``now`` (the page counts on its own clock)."""
    card: dict[str, Any] = {
        "askId": ask.id,
        "agent": ask.agent,
        "key": ask.key,
        "age": max(0.0, now - ask.created),
        "questions": with_trees(ask.request.get("questions", [])),
    }
    if ask.deadline is not None:
        card["timeLeft"] = max(0.0, ask.deadline - now)
    return card


def event(name: str, data: object) -> bytes:
    """One server-sent event."""
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def json_object(data: object) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise Refused(400, "expected a JSON object")
    return data


def only_fields(data: dict[str, Any], known: tuple[str, ...]) -> None:
    unknown = sorted(str(key) for key in data if key not in known)
    if unknown:
        raise Refused(400, f"{unknown[0]}: unknown field (expected {', '.join(known)})")


def text_field(data: dict[str, Any], name: str, *, required: bool = False) -> str:
    value = data.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise Refused(400, f"{name}: expected a non-blank string of at most 200 characters")
    with contextlib.suppress(UnicodeEncodeError):
        value.encode()
        return value
    raise Refused(400, f"{name}: not valid text")


def already_settled(ask: StoredAsk, request: web.Request) -> web.Response:
    """409: the ask is no longer pending; says who settled it and when."""
    message = f"Ask {ask.id} is already {ask.state}"
    if ask.settled_by:
        message += f" by {ask.settled_by}"
    return error(409, message, request, extra=status_of(ask))


def fresh_ask(data: dict[str, Any]) -> tuple[StoredAsk, str]:
    """The ask a ``POST /api/asks`` body describes, and the name of its caller."""
    only_fields(data, ("request", "agent", "timeLeft", "waiter"))
    try:
        parsed = AskUserQuestionRequest.from_dict(data.get("request"))
    except UserInteractionError as exc:
        raise Refused(400, f"request: {exc}", extra={"code": exc.code}) from None
    if not parsed.questions:
        raise Refused(400, "request: no questions", extra={"code": "EMPTY_QUESTIONS"})
    agent = text_field(data, "agent", required=True)
    waiter = text_field(data, "waiter") or secrets.token_hex(8)
    time_left = data.get("timeLeft")
    if time_left is not None and (
        isinstance(time_left, bool) or not isinstance(time_left, (int, float)) or not time_left >= 0
    ):
        raise Refused(400, "timeLeft: expected a number of seconds, at least 0, or null")
    now = time.time()
    deadline = None
    if time_left is not None and now + time_left < _LAST_DATE:
        deadline = now + time_left  # beyond the calendar's end is no deadline at all
    fresh = StoredAsk(
        id=secrets.token_hex(6),
        request=parsed.to_dict(),
        agent=agent,
        key=parsed.key,
        created=now,
        deadline=deadline,
    )
    return fresh, waiter


def settlement(data: dict[str, Any]) -> tuple[State, str]:
    """The state a ``POST /api/asks/{id}/settle`` body asks for, and who settles."""
    only_fields(data, ("action", "answer", "by"))
    action = data.get("action")
    state = _SETTLE_ACTIONS.get(action) if isinstance(action, str) else None
    if state is None:
        raise Refused(400, f"action: expected one of {', '.join(_SETTLE_ACTIONS)}")
    return state, text_field(data, "by", required=True)


def outcome_of(
    state: State, by: str, data: dict[str, Any], ask: StoredAsk
) -> tuple[dict[str, Any] | None, dict[str, str] | None]:
    """The answer or the error the agent of pending ``ask`` gets when it is settled to
    ``state`` by ``by``. An answer is checked by the core's own rules: 422 with its
    problems."""
    if state == "cancelled":
        return None, {"message": f"{by} dismissed the question.", "code": ASK_CANCELLED}
    if state == "declined":
        return None, {"message": f"{by} declined to answer.", "code": ASK_DECLINED}
    raw = data.get("answer")
    problems = check_answer(AskUserQuestionRequest.from_dict(ask.request), raw)
    if problems:
        raise answer_refused(problems)
    assert isinstance(raw, dict)  # check_answer accepts a wire dict or refuses it
    return raw, None
