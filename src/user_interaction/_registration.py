"""A registered provider: its pluggy hook, serial queue, asks in flight and disposal state.

A registration knows nothing of how an ask waits (that is ``_ask``); it only admits asks,
hands its serial turn on, and tells the asks it holds when it is disposed.
``Disposer`` undoes a registration.
"""

from __future__ import annotations

from _thread import allocate_lock
from collections import deque
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING, Any, Callable, Final, Mapping, Protocol, final

import pluggy

from ._errors import PROVIDER_DISPOSED, PROVIDER_FAILED, UserInteractionError
from ._hooks import PROJECT_NAME, AskSpec
from ._workers import WORKERS, Workers

if TYPE_CHECKING:
    from ._discovery import ProviderInfo
    from ._runtime import LoopThread

__all__ = [
    "Disposer",
    "Registration",
    "disposed_error",
    "load_registration",
    "new_registration",
    "provider_error",
]

_ACTIVE: Final = 0
_RETIRING: Final = 1
_DISPOSED: Final = 2


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


def disposed_error() -> UserInteractionError:
    return UserInteractionError(
        "The provider was disposed while the ask was pending.", PROVIDER_DISPOSED
    )


def provider_error(exc: BaseException) -> BaseException:
    """Map what a provider raised to what the caller sees.

    A ``UserInteractionError`` keeps its code; ``KeyboardInterrupt`` and ``SystemExit``
    reach the caller as they are; anything else (``StopIteration``, ``GeneratorExit``, a
    ``CancelledError`` the provider raised itself, ...) is ``PROVIDER_FAILED``.
    """
    if isinstance(exc, (UserInteractionError, KeyboardInterrupt, SystemExit)):
        return exc
    return UserInteractionError(
        f"The provider failed: {type(exc).__name__}: {exc}", PROVIDER_FAILED, cause=exc
    )


def new_registration(
    provider: object,
    name: str | None,
    origin: ProviderInfo | None,
    options: Mapping[str, object] | None = None,
    *,
    disposed: Callable[[Registration], None] | None = None,
    workers: Workers | None = None,
) -> Registration:
    """Register ``provider`` (``TypeError`` if it is none), named ``name`` or after
    itself, its sync calls run by ``workers``; its disposer calls
    ``disposed(registration)`` first, then disposes it."""
    if name is None:
        name = getattr(provider, "name", None)
        if not isinstance(name, str) or not name:
            name = (
                provider.__name__ if isinstance(provider, ModuleType) else type(provider).__name__
            )
    registration = Registration(provider, name, origin, options, workers)

    def dispose() -> None:
        if disposed is not None:
            disposed(registration)
        registration.dispose()

    registration.disposer = Disposer(dispose)
    return registration


def load_registration(
    info: ProviderInfo,
    options: Mapping[str, object] | None = None,
    *,
    disposed: Callable[[Registration], None] | None = None,
    workers: Workers | None = None,
) -> Registration:
    """Build ``info``'s provider with ``options`` and register it; a provider it cannot
    register is ``PROVIDER_LOAD_FAILED``."""
    provider = info.load(**(options or {}))
    try:
        return new_registration(
            provider, info.name, info, options, disposed=disposed, workers=workers
        )
    except TypeError as exc:
        raise info._failed(str(exc), exc) from exc


class Ask(Protocol):
    """What a registration needs of an ask it holds (``_ask.Ask``)."""

    def grant(self, registration: Registration) -> bool:
        """Give the queued ask its turn; False if it can no longer take it."""

    def fail(self, error: UserInteractionError) -> None:
        """End the ask with ``error``, from any thread."""


#: What :meth:`Registration.admit` did with an ask.
ADMITTED: Final = 0
QUEUED: Final = 1
CLOSED: Final = 2


class Registration:
    """A registered provider: its call, its serial turn and queue, the asks it holds.

    Thread-safe: asks are admitted from any loop, and disposal comes from any thread.
    """

    __slots__ = (
        "__weakref__",
        "asks",
        "busy",
        "call",
        "disposer",
        "is_async",
        "lock",
        "name",
        "options",
        "origin",
        "provider",
        "serial",
        "state",
        "successor",
        "waiters",
        "workers",
    )

    def __init__(
        self,
        provider: object,
        name: str,
        origin: ProviderInfo | None,
        options: Mapping[str, object] | None = None,
        workers: Workers | None = None,
    ) -> None:
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
        self.options = dict(options or {})  # what use() built it with, for reload()
        #: The provider's ``ask`` hook: ``call(request=request)``.
        self.call: Callable[..., Any] = manager.hook.ask
        self.is_async = inspect.iscoroutinefunction(provider.ask)  # type: ignore[attr-defined]
        self.serial = bool(getattr(provider, "serial", False))
        #: The threads a sync provider's calls run on.
        self.workers = WORKERS if workers is None else workers
        self.lock = allocate_lock()
        self.busy = False  # a serial provider is serving an ask
        self.waiters: deque[Ask] = deque()
        self.asks: set[Ask] = set()
        self.state = _ACTIVE
        self.successor: Registration | None = None  # where asks go after a swap
        self.disposer: Disposer

    def admit(self, ask: Ask) -> int:
        """``ADMITTED`` (the ask may call the provider now), ``QUEUED`` (it waits for
        :meth:`Ask.grant`) or ``CLOSED`` (this provider takes no asks: see ``successor``)."""
        with self.lock:
            if self.state != _ACTIVE:
                return CLOSED
            if self.serial:
                if self.busy or self.waiters:
                    self.waiters.append(ask)
                    return QUEUED
                self.busy = True
            self.asks.add(ask)
            return ADMITTED

    def release(self) -> None:
        """A serial provider's call returned: hand the turn to the next queued ask."""
        while True:
            with self.lock:
                if not self.waiters or self.state == _DISPOSED:
                    self.busy = False
                    return
                ask = self.waiters.popleft()
                self.asks.add(ask)
            if ask.grant(self):
                return
            with self.lock:  # it gave up meanwhile: pass the turn on
                self.asks.discard(ask)

    def leave(self, ask: Ask) -> None:
        """The ask is over for its caller; a retiring provider is disposed after its last."""
        with self.lock:
            self.asks.discard(ask)
            if self.waiters and ask in self.waiters:
                self.waiters.remove(ask)
            drained = self.state == _RETIRING and not self.asks
            if drained:
                self.state = _DISPOSED
        if drained:
            _dispose_provider(self.provider, quiet=True)

    def retire(self, successor: Registration) -> None:
        """Swapped out: queued asks move to ``successor``; dispose once the rest finish."""
        with self.lock:
            if self.state != _ACTIVE:
                return
            self.successor = successor
            queued = list(self.waiters)
            self.waiters.clear()
            drained = not self.asks
            self.state = _DISPOSED if drained else _RETIRING
        successor._adopt(queued)
        if drained:
            _dispose_provider(self.provider, quiet=True)

    def _adopt(self, queued: list[Ask]) -> None:
        """Take over a swapped-out provider's queue, ahead of later arrivals."""
        if not queued:
            return
        with self.lock:
            self.waiters.extendleft(reversed(queued))
            if self.serial:
                if self.busy:
                    return
                self.busy = True
                granted = []
            else:
                granted = list(self.waiters)
                self.waiters.clear()
                self.asks.update(granted)
        if self.serial:
            self.release()
        for ask in granted:
            if not ask.grant(self):
                with self.lock:
                    self.asks.discard(ask)

    def dispose(self) -> Any:
        """Disposed outright: every ask it holds fails with ``PROVIDER_DISPOSED``.

        Returns the awaitable of an async ``dispose()`` started on the running loop, if any.
        """
        with self.lock:
            if self.state != _ACTIVE:
                return None
            self.state = _DISPOSED
            pending = [*self.asks, *self.waiters]
            self.asks.clear()
            self.waiters.clear()
        for ask in pending:
            ask.fail(disposed_error())
        return _dispose_provider(self.provider, quiet=False)


_background_disposals: set[Any] = set()


def _dispose_provider(provider: object, *, quiet: bool) -> Any:
    """Run ``provider.dispose()`` (sync or async); the registration's state makes it once.

    A failure is ``PROVIDER_FAILED`` (logged instead when ``quiet``). An async dispose is
    started on the running loop (its task is returned, to be awaited or left to finish) or,
    with no loop running here, run to completion on a background loop.
    """
    dispose = getattr(provider, "dispose", None)
    if dispose is None or not callable(dispose):
        return None
    try:
        result = dispose()
        if hasattr(result, "__await__"):
            return _finish_async_dispose(_guard_dispose(provider, result, quiet))
        return None
    except UserInteractionError:
        raise
    except Exception as exc:
        _dispose_failed(provider, exc, quiet)
        return None


def _dispose_failed(provider: object, exc: Exception, quiet: bool) -> None:
    if quiet:
        import logging

        logging.getLogger("user_interaction").error(
            "dispose() of %r failed", provider, exc_info=exc
        )
        return
    raise UserInteractionError(
        f"dispose() of the provider failed: {type(exc).__name__}: {exc}",
        PROVIDER_FAILED,
        cause=exc,
    ) from exc


async def _guard_dispose(provider: object, awaitable: Any, quiet: bool) -> None:
    try:
        await awaitable
    except Exception as exc:
        _dispose_failed(provider, exc, quiet)


def _finish_async_dispose(coroutine: Any) -> Any:
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        running = False
    else:
        running = True
    if running:  # start it here, and keep it alive
        task = asyncio.ensure_future(coroutine)
        _background_disposals.add(task)
        task.add_done_callback(_background_disposals.discard)
        task.add_done_callback(log_dispose_failure)
        return task
    runner = _shared_loop()
    asyncio.run_coroutine_threadsafe(coroutine, runner.get()).result()
    return None


def log_dispose_failure(future: Any) -> None:
    """Report an async dispose() that failed with nobody awaiting it."""
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
