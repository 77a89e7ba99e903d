"""The provider ``any``: one ask on several surfaces at once.

Each child is a provider registered as the manager registers one, and each child's ask
is an ordinary :class:`~user_interaction._ask.Ask` on it (admission, a serial child's
queue, the signal, teardown), run side by side. The first answer, cancel or decline wins;
the others are withdrawn through their signals, so their screens and cards clear. A child
that fails (its own abort or timeout included) is logged and left out while another can
still answer; when every child failed, the ask fails with the first child's error.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Union

from ._abort import AbortController, AbortSignal
from ._ask import Ask
from ._discovery import PROVIDER_ENV, find_provider
from ._errors import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_DECLINED,
    PROVIDER_LOAD_FAILED,
    UserInteractionError,
)
from ._hooks import hookimpl
from ._model import AskUserQuestionAnswer, AskUserQuestionRequest, with_signal
from ._registration import Registration, load_registration

if TYPE_CHECKING:
    from ._decisions import DecisionKeeper

__all__ = ["ANY", "AnyProvider", "ChildSpec", "children_from_env"]

#: The provider's entry-point name.
ANY: Final = "any"
_PREFIX: Final = "any:"
#: How long the winner waits for the withdrawn children to take their question away.
_CLEAR_WAIT: Final = 1.0
#: A child: a provider's name, or its name and the options to build it with.
ChildSpec = Union[str, "tuple[str, Mapping[str, object]]"]

_logger = logging.getLogger("user_interaction")


def children_from_env() -> list[str] | None:
    """The children named by ``USER_INTERACTION_PROVIDER=any:tui,inbox``, if it is so."""
    chosen = os.environ.get(PROVIDER_ENV, "").strip()
    if not chosen.startswith(_PREFIX):
        return None
    return [name.strip() for name in chosen[len(_PREFIX) :].split(",") if name.strip()]


class AnyProvider:
    """Asks every child provider at once; the first answer, cancel or decline wins.

    ``providers`` lists the children: names, or ``(name, options)`` pairs
    (``ui.use("any", providers=["tui", ("web", {"port": 8765})])``). A child that fails to
    load fails ``use()`` with its error. Never chosen when no provider is named.
    """

    #: Below every provider: it is only ever chosen by name.
    priority: Final = -1000

    @staticmethod
    def available() -> bool:
        """only when named: ui.use("any", providers=[...]) or USER_INTERACTION_PROVIDER=any:a,b"""
        return False

    def __init__(self, providers: Sequence[ChildSpec] | None = None) -> None:
        specs = children_from_env() if providers is None else providers
        if isinstance(specs, (str, bytes)) or not specs:
            raise ValueError(
                "any: providers= must list the children, names or (name, options) pairs, "
                f"e.g. providers=['tui', 'inbox'] (or {PROVIDER_ENV}=any:tui,inbox)"
            )
        self._children: list[Registration] = []
        try:
            for spec in specs:
                self._children.append(_child(spec))
        except BaseException:
            self.dispose()
            raise
        self._losers: set[Any] = set()  # withdrawn children's asks, still unwinding

    def __repr__(self) -> str:
        return f"<AnyProvider {[child.name for child in self._children]}>"

    @property
    def children(self) -> list[str]:
        """The children's names, in order."""
        return [child.name for child in self._children]

    @hookimpl
    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """Ask every child; the first answer, cancel or decline is the outcome."""
        import asyncio

        controllers = [AbortController() for _ in self._children]
        tasks = [
            asyncio.ensure_future(_ask_child(child, request, controller.signal))
            for child, controller in zip(self._children, controllers)
        ]
        try:
            winner = await self._first_outcome(tasks)
        except BaseException:  # the caller left (or KeyboardInterrupt): withdraw, go
            self._withdraw(controllers, tasks)
            raise
        # Withdraw the others and give them a moment to take their question away, so
        # that what the caller shows next never lands on a screen still showing it.
        losers = self._withdraw(controllers, tasks)
        if losers:
            await asyncio.wait(losers, timeout=_CLEAR_WAIT)
        answer: AskUserQuestionAnswer = winner.result()  # or the human's cancel, decline
        return answer

    async def _first_outcome(self, tasks: list[Any]) -> Any:
        """The task of the first answer, cancel or decline; the first child's error when
        every child failed."""
        import asyncio

        errors: dict[int, BaseException] = {}
        pending = set(tasks)
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in sorted(done, key=tasks.index):
                index = tasks.index(task)
                error = task.exception()
                if error is None:
                    return task
                if isinstance(error, UserInteractionError) and error.code in (
                    ASK_CANCELLED,
                    ASK_DECLINED,
                ):
                    return task  # the human's decision, on one of the screens
                if not isinstance(error, Exception):
                    raise error  # KeyboardInterrupt, SystemExit
                errors[index] = error
                if pending:
                    _logger.warning(
                        "any: %s failed, the others still ask: %s",
                        self._children[index].name,
                        error,
                    )
        raise errors[min(errors)]

    def _withdraw(self, controllers: list[AbortController], tasks: list[Any]) -> set[Any]:
        """Withdraw every child still asking; their tasks."""
        withdrawn = UserInteractionError("Answered on another screen.", ASK_ABORTED)
        losers = set()
        for controller, task in zip(controllers, tasks):
            if task.done():
                _forget_loser(self._losers)(task)
            else:
                controller.abort(withdrawn)  # the child's screen clears
                self._losers.add(task)
                task.add_done_callback(_forget_loser(self._losers))
                losers.add(task)
        return losers

    def decision_store(self) -> DecisionKeeper | None:
        """The first child's own decision store (the inbox's), if a child keeps one."""
        from ._decisions import provider_decisions

        for child in self._children:
            store = provider_decisions(child.provider)
            if store is not None:
                return store
        return None

    def dispose(self) -> None:
        """Dispose every child."""
        children, self._children = self._children, []
        for child in children:
            child.disposer()


def _forget_loser(losers: set[Any]) -> Any:
    def forget(task: Any) -> None:
        losers.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: a withdrawn child's outcome is nobody's

    return forget


async def _ask_child(
    child: Registration, request: AskUserQuestionRequest, withdraw: AbortSignal
) -> AskUserQuestionAnswer:
    signal = withdraw if request.signal is None else AbortSignal.any([request.signal, withdraw])
    return await Ask(child, with_signal(request, signal), None).run()


def _child(spec: ChildSpec) -> Registration:
    """Load and register one child (``PROVIDER_LOAD_FAILED`` and the like as they are)."""
    if isinstance(spec, str):
        name, options = spec, {}
    elif (
        isinstance(spec, tuple)
        and len(spec) == 2
        and isinstance(spec[0], str)
        and isinstance(spec[1], Mapping)
    ):
        name, options = spec[0], dict(spec[1])
    else:
        raise TypeError(f"any: a child is a name or a (name, options) pair, got {spec!r}")
    info = find_provider(name)
    if info.name == ANY:
        raise UserInteractionError(
            "any: 'any' cannot be one of its own children.", PROVIDER_LOAD_FAILED
        )
    return load_registration(info, options)
