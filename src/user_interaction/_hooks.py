"""The pluggy markers and the one hook a provider implements."""

from __future__ import annotations

from typing import TYPE_CHECKING, Awaitable, Final, Mapping, Protocol, Union, runtime_checkable

import pluggy

if TYPE_CHECKING:
    from ._model import AskUserQuestionAnswer, AskUserQuestionRequest

__all__ = ["PROJECT_NAME", "AskResult", "AskSpec", "Provider", "hookimpl", "hookspec"]

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


@runtime_checkable
class Provider(Protocol):
    """What the manager needs of a provider: ``ask(request)``, sync or async.

    Optional members: ``dispose()`` (sync or async, called once when the provider is
    disposed) and ``serial`` (true: never more than one pending ask).
    """

    def ask(self, request: AskUserQuestionRequest) -> AskResult: ...
