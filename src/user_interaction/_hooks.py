"""The pluggy markers, the one hook a provider implements and the two an extension may."""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Awaitable,
    Callable,
    Final,
    Mapping,
    Protocol,
    Union,
    runtime_checkable,
)

import pluggy

if TYPE_CHECKING:
    from ._errors import UserInteractionError
    from ._model import AskUserQuestionAnswer, AskUserQuestionRequest

__all__ = [
    "PROJECT_NAME",
    "AskFunction",
    "AskResult",
    "AskSpec",
    "AskWrapper",
    "ExtensionSpec",
    "Provider",
    "hookimpl",
    "hookspec",
]

PROJECT_NAME: Final = "user_interaction"

#: Marks the hook specification (``ask``) of the ``user_interaction`` project.
hookspec: Final = pluggy.HookspecMarker(PROJECT_NAME)
#: Marks a provider's ``ask`` implementation; optional, a plain ``ask`` method works too.
hookimpl: Final = pluggy.HookimplMarker(PROJECT_NAME)

AskResult = Union[
    "AskUserQuestionAnswer",
    Mapping[str, object],
    Awaitable[Union["AskUserQuestionAnswer", Mapping[str, object]]],
]


class AskSpec:
    """The hook specification every provider implements."""

    @hookspec(firstresult=True)
    def ask(self, request: AskUserQuestionRequest) -> AskResult:  # type: ignore[empty-body]
        """Show ``request`` to the human and return the answers (or an awaitable of them).

        Raise ``UserInteractionError`` with ``ASK_CANCELLED`` / ``ASK_DECLINED`` when the
        human dismisses or refuses; watch ``request.signal`` to stop early.
        """


#: The ``next_ask`` an :data:`AskWrapper` wraps, and what it returns: one async ask.
AskFunction = Callable[["AskUserQuestionRequest"], Awaitable["AskUserQuestionAnswer"]]
#: What ``ask_wrapper(ui)`` returns: a function from the next ask to the ask wrapping it.
AskWrapper = Callable[[AskFunction], AskFunction]


class ExtensionSpec:
    """The hook specifications an extension implements (any number of extensions)."""

    @hookspec
    def ask_wrapper(self, ui: object) -> AskWrapper | None:
        """Return a function that wraps ``next_ask`` (an async ``(request) -> answer``)
        and returns the ask to call instead, or ``None`` to stay out of ``ui``'s asks.

        Called when the context's extensions change, not on every ask; wrappers compose in
        hook order, the first called outermost.
        """

    @hookspec
    def ask_finished(
        self,
        request: AskUserQuestionRequest,
        answer: AskUserQuestionAnswer | None,
        error: UserInteractionError | None,
        provider: str | None,
        seconds: float,
    ) -> None:
        """Observe an ask that ended: the caller's ``request``, its ``answer`` or ``error``,
        the active provider's name (``None`` when a wrapper answered alone) and the time
        it took. What an observer raises is logged and ignored."""


@runtime_checkable
class Provider(Protocol):
    """What the manager needs of a provider: ``ask(request)``, sync or async.

    Optional members: ``dispose()`` (sync or async, called once when the provider is
    disposed) and ``serial`` (true: never more than one pending ask).
    """

    def ask(self, request: AskUserQuestionRequest) -> AskResult: ...
