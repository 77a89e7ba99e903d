"""The manager: one context, and which of its provider registrations is active.

The manager registers, swaps, reloads and disposes providers, and checks each request
before handing it to the one path every ask takes (``_ask.Ask``), through the chain of
its extensions (``_chain``) once they add anything. It owns its extensions' plugin
manager and recomposes the chain when they change. ``ask_sync()`` runs that same path on
an event loop the manager keeps on a thread of its own.

asyncio is imported on the first ask, not at ``import user_interaction``; the chain of
extensions and reloading on their first use (the first ask composes the chain), so that a
process that only lists providers (``user-interaction providers``) does not build them.
"""

from __future__ import annotations

import os
import sys
import weakref
from _thread import RLock, allocate_lock
from contextvars import copy_context
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Final, Mapping, Union, cast

from ._abort import check_seconds
from ._ask import Ask
from ._discovery import ProviderInfo, find_provider, installed_providers
from ._errors import DUPLICATE_PROVIDER, INVALID_REQUEST, NO_PROVIDER, UserInteractionError
from ._model import AskUserQuestionAnswer, AskUserQuestionRequest
from ._prompts import _Prompts
from ._registration import (
    Disposer,
    Registration,
    _dispose_provider,
    disposed_error,
    load_registration,
    log_dispose_failure,
    new_registration,
)
from ._validation import validate_request
from ._workers import Workers

if TYPE_CHECKING:
    import asyncio

    import pluggy

    from ._chain import Chain
    from ._extensions import ExtensionManager
    from ._runtime import LoopThread

__all__ = ["Disposer", "UserInteraction"]

ProviderSource = Union[object, str]

#: How often a thread blocked in ask_sync() checks that the manager was not closed.
_CLOSED_POLL: Final = 0.5


class UserInteraction(_Prompts):
    """One context: at most one active provider, and the asks that go to it.

    Use as a context manager (sync or async) to dispose the provider on exit.
    """

    def __init__(self) -> None:
        self._lock = allocate_lock()
        self._active: Registration | None = None
        self._runner: LoopThread | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._workers = Workers()  # the threads its sync providers' calls run on
        # The extensions: their plugin manager (the installed ones loaded on first use),
        # what failed to load, and the chain composed from them (None: the plain path),
        # recomposed before the next ask whenever they change.
        self._extension_lock = RLock()
        self._pm: ExtensionManager | None = None
        self._broken: UserInteractionError | None = None
        self._chain: Chain | None = None
        self._stale = True

    # -- providers -----------------------------------------------------------------------

    @property
    def provider(self) -> object | None:
        """The active provider object, or ``None``."""
        registration = self._active
        return None if registration is None else registration.provider

    def providers(self) -> list[ProviderInfo]:
        """The installed providers (entry points), without importing any of them."""
        return list(installed_providers())

    def register_provider(self, provider: object, *, name: str | None = None) -> Disposer:
        """Make ``provider`` the active one; ``DUPLICATE_PROVIDER`` if one already is."""
        self._refuse_if_active()
        registration = self._new_registration(provider, name, None)
        with self._lock:
            active = self._active
            if active is None:
                self._active = registration
        if active is not None:
            raise self._duplicate(active)
        self._activated(registration)
        return registration.disposer

    def use(self, name: str | None = None, **options: object) -> Disposer:
        """Load an installed provider and register it, built with ``options`` as keyword
        arguments (``ui.use("web", port=8765)``).

        ``name`` is an entry-point name, or ``"distribution:name"`` when two distributions
        offer one name; without it, ``USER_INTERACTION_PROVIDER`` if set, else the
        available installed provider of highest priority (see "Choosing a provider" in
        the concepts).
        """
        info = find_provider(name)
        self._refuse_if_active()
        registration = load_registration(
            info, options, disposed=self._deactivate(), workers=self._workers
        )
        with self._lock:
            active = self._active
            if active is None:
                self._active = registration
        if active is not None:
            _dispose_provider(registration.provider, quiet=True)
            raise self._duplicate(active)
        self._activated(registration)
        return registration.disposer

    def swap(self, provider_or_name: ProviderSource) -> Disposer:
        """Replace the active provider in one step; pending asks finish on the old one."""
        if isinstance(provider_or_name, str):
            registration = load_registration(
                find_provider(provider_or_name), disposed=self._deactivate(), workers=self._workers
            )
        else:
            registration = self._new_registration(provider_or_name, None, None)
        self._install(registration)
        return registration.disposer

    def reload(self) -> Disposer:
        """Re-import the active provider's code and swap in a fresh instance of it.

        ``RELOAD_FAILED`` (the old provider stays active) if the new code does not import
        or build; ``NO_PROVIDER`` if none is active.
        """
        active = self._active
        if active is None:
            raise UserInteractionError("No provider is active: nothing to reload.", NO_PROVIDER)
        from ._reload import reimport_provider

        registration = reimport_provider(
            active.provider,
            active.origin,
            active.options,
            lambda fresh: self._new_registration(fresh, active.name, active.origin, active.options),
        )
        self._install(registration)
        return registration.disposer

    # -- extensions ----------------------------------------------------------------------

    @property
    def pluginmanager(self) -> pluggy.PluginManager:
        """This context's plugin manager of extensions (the installed ones loaded)."""
        return self._extensions()

    def add_extension(self, extension: object, *, name: str | None = None) -> Disposer:
        """Register ``extension`` (an object or module with ``ask_wrapper`` and/or
        ``ask_finished`` hook implementations) around every ask of this context.

        ``TypeError`` if it implements no hook, an unknown one, or one with a wrong
        argument name; the returned :class:`Disposer` unregisters it.
        """
        from ._extensions import register_extension

        pm = self._extensions()
        register_extension(pm, extension, name)

        def remove() -> None:
            if pm.is_registered(extension):
                pm.unregister(extension)

        return Disposer(remove)

    def _extensions(self) -> ExtensionManager:
        """The plugin manager of extensions, the installed ones loaded (once)."""
        pm = self._pm
        if pm is None:
            with self._extension_lock:
                pm = self._pm
                if pm is None:
                    from ._extensions import ExtensionManager, load_extensions

                    pm = ExtensionManager(self._extensions_changed)
                    self._broken = load_extensions(pm)
                    self._pm = pm
        return pm

    def _extensions_changed(self) -> None:
        self._stale = True

    def _current_chain(self) -> Chain | None:
        """The chain of the extensions as they are now; ``None`` when they add nothing."""
        if self._stale:
            with self._extension_lock:
                if self._stale:
                    from ._chain import compose

                    pm = self._extensions()
                    self._stale = False  # a change from here on recomposes it again
                    self._chain = compose(pm, self, self._registration, self._broken, self._workers)
        return self._chain

    def close(self) -> None:
        """Dispose the active provider and stop the ``ask_sync`` loop; idempotent."""
        with self._lock:
            registration, self._active = self._active, None
        try:
            if registration is not None:
                registration.disposer()
        finally:
            runner, self._runner = self._runner, None
            if self._finalizer is not None:
                self._finalizer.detach()
                self._finalizer = None
            if runner is not None:
                runner.stop()

    async def aclose(self) -> None:
        """Like :meth:`close`, but also awaits an async ``dispose()`` of the provider."""
        with self._lock:
            registration, self._active = self._active, None
        pending = None
        try:
            if registration is not None and registration.disposer._take() is not None:
                pending = registration.dispose()
        finally:
            self.close()
        if pending is not None:
            pending.remove_done_callback(log_dispose_failure)  # awaited: raised, not logged
            await pending

    def __enter__(self) -> UserInteraction:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> UserInteraction:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        registration = self._active
        name = None if registration is None else registration.name
        return f"<UserInteraction provider={name!r}>"

    # -- internals of registration -------------------------------------------------------

    def _new_registration(
        self,
        provider: object,
        name: str | None,
        origin: ProviderInfo | None,
        options: Mapping[str, object] | None = None,
    ) -> Registration:
        return new_registration(
            provider, name, origin, options, disposed=self._deactivate(), workers=self._workers
        )

    def _deactivate(self) -> Callable[[Registration], None]:
        """What a registration's disposer does first: no longer be this context's active
        one (holding no reference to the context)."""
        ref = weakref.ref(self)

        def deactivate(registration: Registration) -> None:
            manager = ref()
            if manager is not None:
                with manager._lock:
                    if manager._active is registration:
                        manager._active = None

        return deactivate

    def _refuse_if_active(self) -> None:
        active = self._active
        if active is not None:
            raise self._duplicate(active)

    @staticmethod
    def _duplicate(active: Registration) -> UserInteractionError:
        return UserInteractionError(
            f"Provider {active.name!r} is already active; dispose it or use swap().",
            DUPLICATE_PROVIDER,
        )

    def _install(self, registration: Registration) -> None:
        with self._lock:
            old, self._active = self._active, registration
        if old is not None:
            old.disposer._take()  # its life now ends with its pending asks
            old.retire(registration)
        self._activated(registration)

    def _activated(self, registration: Registration) -> None:
        """A provider that keeps decisions of its own (the inbox) serves this context's
        remembered approvals, unless ``USER_INTERACTION_DECISIONS`` names a file."""
        from ._decisions import DECISIONS_ENV, ActiveProviderDecisions, provider_decisions
        from ._extensions import register_extension
        from .extensions import RememberedDecisions

        if os.environ.get(DECISIONS_ENV, "").strip():
            return
        if provider_decisions(registration.provider) is None:
            return
        pm = self._extensions()
        with self._extension_lock:
            if not pm.has_plugin("decisions"):
                ref = weakref.ref(self)

                def active_provider() -> object | None:
                    manager = ref()
                    return None if manager is None else manager.provider

                store = ActiveProviderDecisions(active_provider)
                register_extension(pm, RememberedDecisions(store=store), "decisions")

    # -- asking --------------------------------------------------------------------------

    def _check(self, request: AskUserQuestionRequest, timeout: float | None) -> None:
        """The checks of the caller's request (and timeout), before any extension runs."""
        if type(request) is not AskUserQuestionRequest and not isinstance(
            request, AskUserQuestionRequest
        ):
            raise UserInteractionError(
                f"request: expected AskUserQuestionRequest, got {type(request).__name__}",
                INVALID_REQUEST,
            )
        signal = request.signal
        if signal is not None and signal.aborted:
            raise signal.error()
        validate_request(request)
        if timeout is not None:
            check_seconds(timeout)

    def _registration(self) -> Registration:
        """The active registration, or ``NO_PROVIDER``."""
        registration = self._active
        if registration is None:
            raise _no_provider()
        return registration

    async def ask(
        self, request: AskUserQuestionRequest, *, timeout: float | None = None
    ) -> AskUserQuestionAnswer:
        """Ask the active provider and return its validated answer.

        Raises ``UserInteractionError``: ``ASK_ABORTED`` (the request's signal),
        ``ASK_TIMEOUT`` (``timeout`` seconds passed), ``EMPTY_QUESTIONS`` /
        ``INVALID_REQUEST``, ``NO_PROVIDER``, ``ASK_CANCELLED`` / ``ASK_DECLINED`` (the
        human), ``INVALID_ANSWER`` / ``PROVIDER_FAILED`` (the provider),
        ``PROVIDER_DISPOSED``; ``EXTENSION_FAILED`` (an extension).
        """
        self._check(request, timeout)
        chain = self._current_chain()
        if chain is not None:
            return await chain.ask(request, timeout)
        return await Ask(self._registration(), request, timeout).run()

    def ask_sync(
        self, request: AskUserQuestionRequest, *, timeout: float | None = None
    ) -> AskUserQuestionAnswer:
        """:meth:`ask` for synchronous callers, on a loop this manager keeps.

        Safe from many threads at once; ``RuntimeError`` on a thread whose event loop is
        running (``await ask()`` there instead).
        """
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError(
                "ask_sync() was called on a thread whose event loop is running; "
                "use 'await ui.ask(...)' there"
            )
        runner = self._runner
        if runner is None:
            runner = self._start_runner()
        loop = runner.get()
        # ask() itself, as a task of the kept loop, waking this thread through a lock. Its
        # checks run there too, while this thread waits: done here first, they only
        # delayed the loop's wake-up (measured: ~14 µs more per call than their own cost).
        done = allocate_lock()
        done.acquire()
        outcome: list[tuple[bool, Any]] = []
        tasks: list[asyncio.Task[None]] = []

        async def run() -> None:
            try:
                outcome.append((True, await self.ask(request, timeout=timeout)))
            except asyncio.CancelledError:  # the loop is shutting down (close(), exit)
                outcome.append((False, disposed_error()))
            except BaseException as exc:  # handed to the waiting thread, never lost
                outcome.append((False, exc))
            finally:
                done.release()

        # The ask runs in a copy of this thread's context, as it would in this thread's
        # task: context variables reach the provider and the extensions alike.
        context = copy_context()

        def start() -> None:
            if sys.version_info >= (3, 12):  # an ask that answers at once needs no loop turn
                tasks.append(context.run(asyncio.Task, run(), loop=loop, eager_start=True))
            else:
                tasks.append(context.run(loop.create_task, run()))

        loop.call_soon_threadsafe(start)
        try:
            while not done.acquire(timeout=_CLOSED_POLL):
                if loop.is_closed():  # close() stopped the loop before the ask began
                    raise disposed_error()
        except BaseException:
            if not loop.is_closed():
                loop.call_soon_threadsafe(lambda: tasks and tasks[0].cancel())
            raise
        ok, value = outcome[0]
        if ok:
            return cast(AskUserQuestionAnswer, value)
        raise value

    def _start_runner(self) -> LoopThread:
        from ._runtime import LoopThread, stop_loop_thread

        with self._lock:
            if self._runner is None:
                self._runner = LoopThread()
                self._finalizer = weakref.finalize(self, stop_loop_thread, self._runner)
            return self._runner


def _no_provider() -> UserInteractionError:
    return UserInteractionError("No provider is active: register one or call use().", NO_PROVIDER)
