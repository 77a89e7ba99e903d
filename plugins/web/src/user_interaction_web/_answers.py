"""What the page sends: a reply read and checked against its request (the core's answer rules),
so an invalid answer is refused with its path while the ask stays open."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

import attrs

from user_interaction import (
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    UserInteractionError,
    check_answer,
)

from .guards import (  # 400 (malformed) or 422 (an answer that breaks the rules)
    Refused,
    answer_refused,
)

__all__ = ["ACTIONS", "Refused", "Reply", "read_answer", "read_reply"]

Action = Literal["accept", "cancel", "decline"]
ACTIONS: Final[tuple[Action, ...]] = ("accept", "cancel", "decline")


@attrs.frozen
class Reply:
    """``POST /api/answer``'s body: which ask, what the human did, and the raw answers."""

    ask_id: str
    action: Action
    answers: object


def read_reply(data: object) -> Reply:
    """Read the body's envelope (``askId``, ``action``, ``answers``); 400 when malformed."""
    if not isinstance(data, Mapping):
        raise Refused(400, "expected a JSON object")
    unknown = sorted(str(key) for key in data if key not in ("askId", "action", "answers"))
    if unknown:
        raise Refused(400, f"{unknown[0]}: unknown field (expected askId, action, answers)")
    ask_id, action = data.get("askId"), data.get("action")
    if not isinstance(ask_id, str):
        raise Refused(400, "askId: expected a string")
    for known in ACTIONS:
        if action == known:
            return Reply(ask_id, known, data.get("answers", []))
    raise Refused(400, f"action: expected one of {', '.join(ACTIONS)}, got {action!r}")


def read_answer(request: AskUserQuestionRequest, raw: object) -> AskUserQuestionAnswer:
    """The answer in ``raw`` (the wire form's ``answers`` list) to ``request``: 400 when it
    is not an answer's shape, 422 (every problem with its path) when the core's answer
    rules refuse it; those rules are :func:`~user_interaction.check_answer`'s, the ones
    the manager applies, so the page hears of a bad answer while the ask stays open."""
    if not isinstance(raw, list):
        raise Refused(400, "answers: expected an array")
    try:
        answer = AskUserQuestionAnswer.from_dict({"answers": raw})
    except UserInteractionError as error:
        raise Refused(400, str(error)) from None
    problems = check_answer(request, answer)
    if problems:
        raise answer_refused(problems)
    return answer
