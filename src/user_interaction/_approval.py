"""``require_approval``: a permission check in one line, for sync and async functions.

Every call first asks the human ``confirm`` ("Allow <qualified name>?", the call's
arguments as the detail) and runs the function only on ``Yes``.
"""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any, Callable, Final, TypeVar

from ._errors import ASK_DECLINED, UserInteractionError

if TYPE_CHECKING:
    from typing_extensions import ParamSpec

    from ._manager import UserInteraction

    P = ParamSpec("P")

R = TypeVar("R")

__all__ = ["require_approval"]

#: How much of each argument's ``repr`` the human is shown.
REPR_LIMIT: Final = 200


def require_approval(
    ui: UserInteraction, *, question: str | None = None, header: str | None = "Approve"
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a function so that each call runs only once a human approves it.

    Each call asks ``question`` (default: "Allow <qualified name>?") through
    ``ui.confirm_sync`` for a plain function and ``await ui.confirm`` for an
    ``async def`` one, showing one ``name=value`` line per argument of the call (each
    ``repr`` cut to 200 characters). ``No`` raises ``UserInteractionError``
    ``ASK_DECLINED`` without calling the function; any other outcome raises as
    ``confirm`` does. The wrapper keeps the function's name, docstring and signature.
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(func)
        name = getattr(func, "__qualname__", None) or repr(func)
        text = question if question is not None else f"Allow {name}?"

        def detail(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
            bound = signature.bind(*args, **kwargs)  # a wrong call fails before asking
            lines = [f"{key}={_short_repr(value)}" for key, value in bound.arguments.items()]
            return "\n".join(lines) or None

        def declined() -> UserInteractionError:
            return UserInteractionError(f"{name} was not approved.", ASK_DECLINED)

        if inspect.iscoroutinefunction(func):

            @functools.wraps(func)
            async def approve_async(*args: Any, **kwargs: Any) -> Any:
                about = detail(args, kwargs)
                if not await ui.confirm(text, header=header, detail=about):
                    raise declined()
                return await func(*args, **kwargs)

            wrapper: Callable[..., Any] = approve_async
        else:

            @functools.wraps(func)
            def approve(*args: Any, **kwargs: Any) -> Any:
                about = detail(args, kwargs)
                if not ui.confirm_sync(text, header=header, detail=about):
                    raise declined()
                return func(*args, **kwargs)

            wrapper = approve
        return wrapper

    return decorate


def _short_repr(value: object) -> str:
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not stop the human from deciding
        text = object.__repr__(value)
    return text if len(text) <= REPR_LIMIT else text[: REPR_LIMIT - 1] + "…"
