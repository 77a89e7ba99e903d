"""Approvals: the request and the reading of ``approve`` (a permission prompt that can
remember and say why); ``require_approval`` builds on them (``_require_approval``).

An approval is one single-select question with id ``approve``: ``Allow`` and ``Deny``, and,
when the request names what is approved (``remember``), ``Always allow`` and ``Always
deny``. That shape is how providers and extensions recognise one.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Final, Union

import attrs

from ._errors import ASK_DECLINED, UserInteractionError
from ._model import AskUserQuestionItem, AskUserQuestionOption, AskUserQuestionRequest

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ._abort import AbortSignal
    from ._model import AskUserQuestionAnswer

__all__ = [
    "ALLOW",
    "ALWAYS_ALLOW",
    "ALWAYS_DENY",
    "APPROVE_ID",
    "DENY",
    "Approval",
    "approval_name",
    "approval_request",
    "noting_who_answers",
    "read_approval",
]

#: The id of an approval's one question.
APPROVE_ID: Final = "approve"
ALLOW: Final = "Allow"
DENY: Final = "Deny"
ALWAYS_ALLOW: Final = "Always allow"
ALWAYS_DENY: Final = "Always deny"
_ONCE: Final = (ALLOW, DENY)
_REMEMBERING: Final = (ALLOW, DENY, ALWAYS_ALLOW, ALWAYS_DENY)


@attrs.frozen
class Approval:
    """The outcome of :meth:`UserInteraction.approve`."""

    #: Whether the human allowed it (``Allow`` or ``Always allow``).
    allowed: bool
    #: ``True`` only when nobody was asked: a remembered ``Always ...`` decided.
    remembered: bool = False
    #: What the human said: the custom text of a denial (what to do instead), or the
    #: notes on their choice; ``None`` when they said nothing.
    reason: str | None = None


class AnsweredBy:
    """Filled in by the extensions' ask path: whether a provider was asked (an extension
    may answer alone, as remembered decisions do)."""

    __slots__ = ("provider_asked",)

    def __init__(self) -> None:
        self.provider_asked = True  # unless the extensions' chain says otherwise


#: Set by ``approve`` around its ask, so that it can tell a remembered answer.
ANSWERED_BY: ContextVar[Union[AnsweredBy, None]] = ContextVar(
    "user_interaction_answered_by", default=None
)


@contextmanager
def noting_who_answers() -> Iterator[AnsweredBy]:
    """Around an ask: whether a provider was asked, as the extensions' chain notes it."""
    answered_by = AnsweredBy()
    token = ANSWERED_BY.set(answered_by)
    try:
        yield answered_by
    finally:
        ANSWERED_BY.reset(token)


def approval_request(
    question: str,
    remember: str | None,
    header: str | None,
    detail: str | None,
    signal: AbortSignal | None,
) -> AskUserQuestionRequest:
    labels = _ONCE if remember is None else _REMEMBERING
    item = AskUserQuestionItem(
        APPROVE_ID, question, header, tuple(AskUserQuestionOption(label) for label in labels),
        False, detail,
    )  # fmt: skip
    return AskUserQuestionRequest((item,), signal=signal, remember=remember)


def approval_name(request: AskUserQuestionRequest) -> str | None:
    """The ``remember`` name of ``request`` if it is an approval that may be remembered."""
    if request.remember is None or len(request.questions) != 1:
        return None
    item = request.questions[0]
    if item.id != APPROVE_ID or item.multi_select:
        return None
    if tuple(option.label for option in item.options) != _REMEMBERING:
        return None
    return request.remember


def read_approval(answer: AskUserQuestionAnswer, answered_by: AnsweredBy) -> Approval:
    item = answer.get(APPROVE_ID)
    if item is not None and item.custom is not None:  # what to do instead: a denial
        return Approval(False, False, item.custom)
    if item is None or not item.selected:
        raise UserInteractionError("The question was skipped.", ASK_DECLINED)
    choice = item.selected[0]
    return Approval(choice in (ALLOW, ALWAYS_ALLOW), not answered_by.provider_asked, item.notes)
