"""Approvals: ``approve`` (a permission prompt that can remember and say why) and
``require_approval``, a permission check in one line for sync and async functions.

An approval is one single-select question with id ``approve``: ``Allow`` and ``Deny``, and,
when the request names what is approved (``remember``), ``Always allow`` and ``Always
deny``. That shape is how providers and extensions recognise one.
"""

from __future__ import annotations

import functools
import inspect
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Callable, Final, TypeVar, Union

import attrs

from ._errors import ASK_DECLINED, UserInteractionError
from ._model import AskUserQuestionItem, AskUserQuestionOption, AskUserQuestionRequest

if TYPE_CHECKING:
    from collections.abc import Iterator

    from typing_extensions import ParamSpec

    from ._abort import AbortSignal
    from ._manager import UserInteraction
    from ._model import AskUserQuestionAnswer

    P = ParamSpec("P")

R = TypeVar("R")

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
    "require_approval",
]

#: The id of an approval's one question.
APPROVE_ID: Final = "approve"
ALLOW: Final = "Allow"
DENY: Final = "Deny"
ALWAYS_ALLOW: Final = "Always allow"
ALWAYS_DENY: Final = "Always deny"
_ONCE: Final = (ALLOW, DENY)
_REMEMBERING: Final = (ALLOW, DENY, ALWAYS_ALLOW, ALWAYS_DENY)
#: How much of each argument's ``repr`` ``require_approval`` shows.
REPR_LIMIT: Final = 200

#: What a function given as ``require_approval(remember=...)`` returns for a call.
RememberFunction = Callable[[dict[str, Any]], Union[str, None]]


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


# -- require_approval ------------------------------------------------------------------------


def require_approval(
    ui: UserInteraction,
    *,
    question: str | None = None,
    header: str | None = "Approve",
    remember: str | RememberFunction | None = None,
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a function so that each call runs only once a human approves it.

    Each call asks ``question`` (default: "Allow <name>?", the function's qualified name
    without ``<locals>``), showing one ``name=value`` line per argument of the call
    (``self`` and ``cls`` left out, each ``repr`` cut in its middle to 200 characters).
    Without ``remember`` it asks ``confirm`` (Yes/No); with it, ``approve``: ``remember``
    names what is approved (``"tool:deploy"``), or is a function of the call's arguments
    (a ``dict``, defaults applied) returning that name, or ``None`` to offer no "Always"
    for this call. A plain function asks with the ``_sync`` form, an ``async def`` one
    with ``await``. A denial raises ``UserInteractionError`` ``ASK_DECLINED`` carrying the
    human's reason, without calling the function; any other outcome raises as ``ask``
    does. The wrapper keeps the function's name, docstring and signature.
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(func)
        name = _shown_name(func)
        text = question if question is not None else f"Allow {name}?"

        def prepare(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str | None, Any]:
            bound = signature.bind(*args, **kwargs)  # a wrong call fails before asking
            lines = [
                f"{key}={_short_repr(value)}"
                for key, value in bound.arguments.items()
                if key not in ("self", "cls")
            ]
            detail = "\n".join(lines) or None
            if not callable(remember):
                return detail, remember
            bound.apply_defaults()
            return detail, remember(dict(bound.arguments))

        def declined(reason: str | None) -> UserInteractionError:
            said = f": {reason}" if reason else "."
            return UserInteractionError(f"{name} was not approved{said}", ASK_DECLINED)

        if inspect.iscoroutinefunction(func):

            @functools.wraps(func)
            async def approve_async(*args: Any, **kwargs: Any) -> Any:
                detail, named = prepare(args, kwargs)
                if remember is None:
                    if not await ui.confirm(text, header=header, detail=detail):
                        raise declined(None)
                else:
                    approval = await ui.approve(text, remember=named, header=header, detail=detail)
                    if not approval.allowed:
                        raise declined(approval.reason)
                return await func(*args, **kwargs)

            wrapper: Callable[..., Any] = approve_async
        else:

            @functools.wraps(func)
            def approve(*args: Any, **kwargs: Any) -> Any:
                detail, named = prepare(args, kwargs)
                if remember is None:
                    if not ui.confirm_sync(text, header=header, detail=detail):
                        raise declined(None)
                else:
                    approval = ui.approve_sync(text, remember=named, header=header, detail=detail)
                    if not approval.allowed:
                        raise declined(approval.reason)
                return func(*args, **kwargs)

            wrapper = approve
        return wrapper

    return decorate


def _shown_name(func: Callable[..., Any]) -> str:
    """``Repo.rm`` for ``test_x.<locals>.Repo.rm``: what a person recognises."""
    name = getattr(func, "__qualname__", None) or getattr(func, "__name__", None)
    if not isinstance(name, str):
        return repr(func)
    return name.rpartition("<locals>.")[2]


def _short_repr(value: object) -> str:
    """``repr(value)`` cut in its middle to :data:`REPR_LIMIT` characters, so that its
    end (``'/safe/aaaa…aaaa/../../etc'``: often the dangerous part) stays visible."""
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not stop the human from deciding
        text = object.__repr__(value)
    if len(text) <= REPR_LIMIT:
        return text
    head = (REPR_LIMIT - 1) // 2
    tail = REPR_LIMIT - 1 - head
    return f"{text[:head]}…{text[-tail:]}"
