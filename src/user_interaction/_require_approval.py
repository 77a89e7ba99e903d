"""``require_approval``: a permission check in one line for sync and async functions,
asked through a context's ``approve`` (or ``confirm``)."""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any, Callable, Final, TypeVar, Union

from ._errors import ASK_DECLINED, UserInteractionError

if TYPE_CHECKING:
    from typing_extensions import ParamSpec

    from ._manager import UserInteraction

    P = ParamSpec("P")

R = TypeVar("R")

__all__ = ["require_approval"]

#: How much of each argument's ``repr`` ``require_approval`` shows.
REPR_LIMIT: Final = 200

#: What a function given as ``require_approval(remember=...)`` returns for a call.
RememberFunction = Callable[[dict[str, Any]], Union[str, None]]


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
