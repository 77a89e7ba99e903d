"""What the page sends: a reply read and checked against its request (the core's answer rules),
so an invalid answer is refused with its path while the ask stays open."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, Literal

import attrs

from user_interaction import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
    UserInteractionError,
)

from .guards import Refused  # 400 (malformed) or 422 (an answer that breaks the rules)

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


def read_answer(questions: Sequence[AskUserQuestionItem], raw: object) -> AskUserQuestionAnswer:
    """The answer in ``raw`` (the wire form's ``answers`` list), checked against
    ``questions``: 400 for a wrong shape, 422 for an answer the rules refuse."""
    if not isinstance(raw, list):
        raise Refused(400, "answers: expected an array")
    by_id = {question.id: question for question in questions}
    items: list[AskUserQuestionAnswerItem] = []
    seen: set[str] = set()
    for index, data in enumerate(raw):
        path = f"answers[{index}]"
        try:
            item = AskUserQuestionAnswerItem.from_dict(data, path=path)
        except UserInteractionError as error:
            raise Refused(400, str(error)) from None
        question = by_id.get(item.id)
        if question is None:
            raise Refused(422, f"{path}.id: no question {item.id!r} was asked")
        if item.id in seen:
            raise Refused(422, f"{path}.id: {item.id!r} is answered twice")
        seen.add(item.id)
        _check(question, item, path)
        items.append(item)
    return AskUserQuestionAnswer(items)


def _check(question: AskUserQuestionItem, item: AskUserQuestionAnswerItem, path: str) -> None:
    """Refuse (422, with the path) what the manager would call ``INVALID_ANSWER``: the page
    can then say so while the ask stays open, instead of failing it."""
    if item.selected and not question.options:
        raise Refused(422, f"{path}.selected: question {question.id!r} has no options")
    offered = {option.label for option in question.options}
    for index, label in enumerate(item.selected):
        if label not in offered:
            raise Refused(422, f"{path}.selected[{index}]: {label!r} was not offered")
        if label in item.selected[:index]:
            raise Refused(422, f"{path}.selected[{index}]: {label!r} is selected twice")
    if len(item.selected) > 1 and not question.multi_select:
        count = len(item.selected)
        raise Refused(422, f"{path}.selected: {question.id!r} takes one option, got {count}")
    if item.custom is not None:
        if item.selected:
            raise Refused(422, f"{path}.custom: custom text replaces a choice; select nothing")
        if not item.custom.strip():
            raise Refused(422, f"{path}.custom: blank")
    if item.notes is not None:  # beside a selection, never instead of one
        if not item.notes.strip():
            raise Refused(422, f"{path}.notes: blank")
        if not item.selected:
            raise Refused(422, f"{path}.notes: notes go beside a selection; nothing is selected")
