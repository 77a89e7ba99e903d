"""A registered provider: its pluggy hook, serial queue, pending calls and disposal.

``_Call`` is one ask while it waits; abort, timeout and disposal settle it from any thread
by hopping onto the caller's loop. ``Disposer`` undoes a registration.
"""

from __future__ import annotations

import sys
from _thread import allocate_lock
from collections import deque
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Final, final

import pluggy

from ._abort import AbortController, AbortSignal
from ._errors import (
    ASK_ABORTED,
    ASK_TIMEOUT,
    PROVIDER_DISPOSED,
    PROVIDER_FAILED,
    UserInteractionError,
)
from ._hooks import PROJECT_NAME, AskSpec

if TYPE_CHECKING:
    from ._model import AskUserQuestionRequest

if TYPE_CHECKING:
    import asyncio

    from ._discovery import ProviderInfo
    from ._runtime import LoopThread

__all__ = ["Disposer"]

_ACTIVE: Final = 0
_RETIRING: Final = 1
_DISPOSED: Final = 2

_EAGER: Final = sys.version_info >= (3, 12)

_asyncio: Any = None  # the asyncio module, imported on first use


def _aio() -> Any:
    global _asyncio
    if _asyncio is None:
        import asyncio

        _asyncio = asyncio
    return _asyncio


@final
class Disposer:
    """Undoes a registration. Callable, idempotent and a context manager."""

    __slots__ = ("_action", "_lock")

    def __init__(self, action: Callable[[], None]) -> None:
        self._action: Callable[[], None] | None = action
        self._lock = allocate_lock()

    @property
    def disposed(self) -> bool:
        """Whether this disposer has been called."""
        return self._action is None

    def __call__(self) -> None:
        action = self._take()
        if action is not None:
            action()

    def _take(self) -> Callable[[], None] | None:
        with self._lock:
            action, self._action = self._action, None
        return action

    def __enter__(self) -> Disposer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self()

    def __repr__(self) -> str:
        return f"<Disposer {'disposed' if self._action is None else 'armed'}>"


class _PluginManager(pluggy.PluginManager):
    """Accepts a plain, unmarked ``ask`` method as the hook implementation too."""

    def parse_hookimpl_opts(self, plugin: object, name: str) -> Any:
        if name != "ask":  # the only hook: skip pluggy's look at every other attribute
            return None
        options = super().parse_hookimpl_opts(plugin, name)
        return {} if options is None else options  # an unmarked ask() counts too


def _check_provider(provider: object) -> None:
    """``TypeError`` unless ``provider.ask`` is a function taking ``request``."""
    import inspect

    ask = getattr(provider, "ask", None)
    if ask is None or not callable(ask):
        raise TypeError(f"{provider!r} is not a provider: it has no ask(request) method")
    if not inspect.isroutine(ask):
        raise TypeError(f"{provider!r}: ask must be a function or method, not {type(ask).__name__}")
    try:
        parameters = inspect.signature(ask).parameters
    except (TypeError, ValueError):  # a builtin without a signature: let pluggy decide
        return
    parameter = parameters.get("request")
    if (
        parameter is None
        or parameter.default is not parameter.empty
        or parameter.kind is not parameter.POSITIONAL_OR_KEYWORD
    ):
        raise TypeError(
            f"{provider!r}: ask() must take a positional parameter named 'request' "
            "without a default"
        )


class _Call:
    """One ask while it waits (in the queue or on the provider); settled from any thread."""

    __slots__ = ("_loop", "controller", "error", "outcome", "task")

    def __init__(
        self, loop: asyncio.AbstractEventLoop | None, task: asyncio.Task[Any] | None = None
    ) -> None:
        self._loop = loop
        self.task = task
        self.outcome: asyncio.Future[Any] | None = None
        self.error: UserInteractionError | None = None
        self.controller: AbortController | None = None

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The caller's loop (taken from its task on the inline path, when first needed)."""
        loop = self._loop
        if loop is None:
            assert self.task is not None
            loop = self._loop = self.task.get_loop()
        return loop

    def fail(self, error: UserInteractionError) -> None:
        """End the wait with ``error`` (first one wins) and tell the provider."""
        if self.controller is not None:
            self.controller.abort(error)
        try:
            self.loop.call_soon_threadsafe(self._fail, error)
        except RuntimeError:  # the caller's loop is closed: nobody waits any more
            pass

    def _fail(self, error: UserInteractionError) -> None:
        if self.error is None:
            self.error = error
        outcome = self.outcome
        if outcome is not None:
            if not outcome.done():
                outcome.set_exception(self.error)
        elif self.task is not None:
            self.task.cancel()

    def raise_if_failed(self) -> None:
        if self.error is not None:
            raise self.error

    def grant(self, slot: _Slot) -> bool:
        """Hand the serial slot to this queued call; False if it already gave up."""
        if self.error is not None:
            return False
        try:
            self.loop.call_soon_threadsafe(self._grant, slot)
        except RuntimeError:
            return False
        return True

    def _grant(self, slot: _Slot) -> None:
        outcome = self.outcome
        if outcome is None or outcome.done():
            slot.release()  # it gave up meanwhile: pass the slot on
        else:
            outcome.set_result(slot)

    def _timed_out(self, timeout: float) -> None:
        self._fail_now(UserInteractionError(f"No answer within {timeout:g} s.", ASK_TIMEOUT))

    def _fail_now(self, error: UserInteractionError) -> None:
        if self.controller is not None:
            self.controller.abort(error)
        self._fail(error)


def _aborted(signal: AbortSignal) -> UserInteractionError:
    reason = signal.reason
    if isinstance(reason, UserInteractionError) and reason.code == ASK_ABORTED:
        detail = reason.message
    else:
        detail = f"The ask was aborted: {reason}"
    cause = reason if isinstance(reason, BaseException) else None
    return UserInteractionError(detail, ASK_ABORTED, cause=cause)


def _disposed() -> UserInteractionError:
    return UserInteractionError(
        "The provider was disposed while the ask was pending.", PROVIDER_DISPOSED
    )


def _failed(exc: BaseException) -> BaseException:
    """Map what a provider raised to what the caller sees."""
    if isinstance(exc, UserInteractionError):
        return exc
    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
        return exc
    error = UserInteractionError(
        f"The provider failed: {type(exc).__name__}: {exc}", PROVIDER_FAILED, cause=exc
    )
    return error


class _Slot:
    """A registered provider and its queue, pending calls and disposal state."""

    __slots__ = (
        "__weakref__",
        "busy",
        "call",
        "calls",
        "disposer",
        "is_async",
        "lock",
        "name",
        "origin",
        "provider",
        "serial",
        "state",
        "waiters",
    )

    def __init__(self, provider: object, name: str, origin: ProviderInfo | None) -> None:
        import inspect

        _check_provider(provider)
        manager = _PluginManager(PROJECT_NAME)
        manager.add_hookspecs(AskSpec)
        try:
            manager.register(provider, name=name)
        except pluggy.PluginValidationError as exc:
            raise TypeError(f"{provider!r} is not a valid provider: {exc}") from exc
        except ValueError as exc:
            raise TypeError(f"{provider!r} could not be registered: {exc}") from exc
        self.provider = provider
        self.name = name
        self.origin = origin
        hook = manager.hook.ask
        impls = hook.get_hookimpls()
        if len(impls) == 1 and not (
            getattr(impls[0], "hookwrapper", False) or getattr(impls[0], "wrapper", False)
        ):
            # Registered and checked through pluggy; with one plain implementation a
            # firstresult call is exactly this call, minus pluggy's per-call machinery.
            self.call: Callable[[AskUserQuestionRequest], Any] = impls[0].function
        else:
            self.call = lambda request: hook(request=request)
        self.is_async = inspect.iscoroutinefunction(provider.ask)  # type: ignore[attr-defined]
        self.serial = bool(getattr(provider, "serial", False))
        self.lock = allocate_lock()
        self.busy = False
        self.waiters: deque[_Call] = deque()
        self.calls: set[_Call] = set()
        self.state = _ACTIVE
        self.disposer: Disposer

    # -- the serial queue ----------------------------------------------------------------

    def try_acquire(self) -> bool:
        with self.lock:
            if self.busy or self.waiters:
                return False
            self.busy = True
            return True

    def enqueue(self, call: _Call) -> bool:
        """Queue ``call`` (its outcome future is set); False if the slot is not active."""
        with self.lock:
            if self.state != _ACTIVE:
                return False
            if not self.busy and not self.waiters:
                self.busy = True
                assert call.outcome is not None
                call.outcome.set_result(self)
                return True
            self.waiters.append(call)
            return True

    def release(self) -> None:
        """The provider call returned: let the next queued ask in."""
        while True:
            with self.lock:
                if not self.waiters or self.state == _DISPOSED:
                    self.busy = False
                    return
                call = self.waiters.popleft()
            if call.grant(self):
                return

    def adopt(self, calls: list[_Call]) -> None:
        """Take over the queue of a swapped-out provider, ahead of later arrivals."""
        if not calls:
            return
        with self.lock:
            self.waiters.extendleft(reversed(calls))
            if self.serial:
                if self.busy:
                    return
                self.busy = True
        if self.serial:
            self.release()
        else:
            with self.lock:
                granted = list(self.waiters)
                self.waiters.clear()
            for call in granted:
                call.grant(self)

    # -- pending calls -------------------------------------------------------------------

    def enter(self, call: _Call) -> bool:
        """Register a call about to reach the provider; False once it stopped taking asks."""
        with self.lock:
            if self.state != _ACTIVE:
                return False
            self.calls.add(call)
            return True

    def exit(self, call: _Call) -> None:
        """The caller stopped waiting; a retiring provider is disposed after its last."""
        with self.lock:
            self.calls.discard(call)
            drained = self.state == _RETIRING and not self.calls
            if drained:
                self.state = _DISPOSED
        if drained:
            _dispose_provider(self.provider, quiet=True)

    def retire(self, successor: _Slot) -> None:
        """Swapped out: queued asks move to ``successor``; dispose once calls finish."""
        with self.lock:
            if self.state != _ACTIVE:
                return
            queued = [call for call in self.waiters if call.error is None]
            self.waiters.clear()
            drained = not self.calls
            self.state = _DISPOSED if drained else _RETIRING
        successor.adopt(queued)
        if drained:
            _dispose_provider(self.provider, quiet=True)

    def dispose(self) -> Any:
        """Disposed outright: every pending ask fails with ``PROVIDER_DISPOSED``.

        Returns the task running an async ``dispose()`` on the current loop, if any.
        """
        with self.lock:
            if self.state != _ACTIVE:
                return None
            self.state = _DISPOSED
            pending = list(self.calls) + list(self.waiters)
            self.calls.clear()
            self.waiters.clear()
        for call in pending:
            call.fail(_disposed())
        return _dispose_provider(self.provider, quiet=False)


_background_disposals: set[Any] = set()


def _dispose_provider(provider: object, *, quiet: bool) -> Any:
    """Run ``provider.dispose()`` (sync or async); the slot state guarantees once.

    An async dispose is scheduled on the running loop (its task is returned) or, with no
    loop running here, run to completion on a background loop.
    """
    dispose = getattr(provider, "dispose", None)
    if dispose is None or not callable(dispose):
        return None
    try:
        result = dispose()
        if hasattr(result, "__await__"):
            return _finish_async_dispose(result)
        return None
    except Exception as exc:
        if quiet:
            import logging

            logging.getLogger("user_interaction").exception("dispose() of %r failed", provider)
            return None
        raise UserInteractionError(
            f"dispose() of the provider failed: {type(exc).__name__}: {exc}",
            PROVIDER_FAILED,
            cause=exc,
        ) from exc


def _finish_async_dispose(awaitable: Any) -> Any:
    asyncio = _aio()
    if asyncio._get_running_loop() is not None:  # schedule it here, and keep it alive
        task = asyncio.ensure_future(awaitable)
        _background_disposals.add(task)
        task.add_done_callback(_background_disposals.discard)
        task.add_done_callback(_log_failure)
        return task
    runner = _shared_loop()
    asyncio.run_coroutine_threadsafe(_as_coroutine(awaitable), runner.get()).result()
    return None


async def _as_coroutine(awaitable: Any) -> Any:
    return await awaitable


def _log_failure(future: Any) -> None:
    if not future.cancelled() and future.exception() is not None:
        import logging

        logging.getLogger("user_interaction").error(
            "async dispose() failed", exc_info=future.exception()
        )


_shared_runner: LoopThread | None = None


def _shared_loop() -> LoopThread:
    """The loop that runs async dispose() for callers that have none."""
    global _shared_runner
    if _shared_runner is None:
        from ._runtime import LoopThread

        _shared_runner = LoopThread()
    return _shared_runner
