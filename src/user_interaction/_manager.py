"""The manager: one context, at most one active provider, and every ask's life cycle.

An ask goes through up to two waits, each of which abort, timeout and disposal can end:
the serial queue (for providers that show one question at a time) and the provider call.

* Without a signal and a timeout, an async provider is awaited in the caller's task (the
  cheapest path); disposal cancels that task and the caller sees ``PROVIDER_DISPOSED``.
* With a signal or a timeout, the provider runs as a task of its own and gets a signal of
  its own that fires on abort, timeout and disposal. The caller waits on a future that any
  of those settle at once, whatever the provider does; the provider call keeps the serial
  queue until it returns.
* Synchronous providers always run on a daemon thread, so a blocking UI never blocks a loop.

asyncio is imported on the first ask, not at ``import user_interaction``.
"""

from __future__ import annotations

import weakref
from _thread import allocate_lock
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING, Any, Callable, Final, Union, cast

from ._abort import AbortController
from ._discovery import ProviderInfo, find_provider, installed_providers
from ._errors import (
    ASK_ABORTED,
    DUPLICATE_PROVIDER,
    INVALID_REQUEST,
    NO_PROVIDER,
    PROVIDER_FAILED,
    UserInteractionError,
)
from ._model import AskUserQuestionAnswer, AskUserQuestionRequest
from ._prompts import _Prompts
from ._reload import reimport_provider
from ._slot import (
    _EAGER,
    Disposer,
    _aborted,
    _aio,
    _Call,
    _dispose_provider,
    _disposed,
    _failed,
    _Slot,
)
from ._validation import validate_answer, validate_request

if TYPE_CHECKING:
    import asyncio

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
        self._active: _Slot | None = None
        self._runner: LoopThread | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None

    # -- providers -----------------------------------------------------------------------

    @property
    def provider(self) -> object | None:
        """The active provider object, or ``None``."""
        slot = self._active
        return None if slot is None else slot.provider

    def providers(self) -> list[ProviderInfo]:
        """The installed providers (entry points), without importing any of them."""
        return list(installed_providers())

    def register_provider(self, provider: object, *, name: str | None = None) -> Disposer:
        """Make ``provider`` the active one; ``DUPLICATE_PROVIDER`` if one already is."""
        self._refuse_if_active()
        slot = self._new_slot(provider, name, None)
        with self._lock:
            active = self._active
            if active is None:
                self._active = slot
        if active is not None:
            raise self._duplicate(active)
        return slot.disposer

    def use(self, name: str | None = None) -> Disposer:
        """Load an installed provider by entry-point name (or the default) and register it."""
        info = find_provider(name)
        self._refuse_if_active()
        provider = info.load()
        try:
            slot = self._new_slot(provider, info.name, info)
        except TypeError as exc:
            raise info._failed(str(exc), exc) from exc
        with self._lock:
            active = self._active
            if active is None:
                self._active = slot
        if active is not None:
            _dispose_provider(provider, quiet=True)
            raise self._duplicate(active)
        return slot.disposer

    def swap(self, provider_or_name: ProviderSource) -> Disposer:
        """Replace the active provider in one step; pending asks finish on the old one."""
        if isinstance(provider_or_name, str):
            info = find_provider(provider_or_name)
            provider = info.load()
            try:
                slot = self._new_slot(provider, info.name, info)
            except TypeError as exc:
                raise info._failed(str(exc), exc) from exc
        else:
            slot = self._new_slot(provider_or_name, None, None)
        self._install(slot)
        return slot.disposer

    def reload(self) -> Disposer:
        """Re-import the active provider's code and swap in a fresh instance of it.

        ``RELOAD_FAILED`` (the old provider stays active) if the new code does not import
        or build; ``NO_PROVIDER`` if none is active.
        """
        active = self._active
        if active is None:
            raise UserInteractionError("No provider is active: nothing to reload.", NO_PROVIDER)
        provider = reimport_provider(active.provider, active.origin)
        slot = self._new_slot(provider, active.name, active.origin)
        self._install(slot)
        return slot.disposer

    def close(self) -> None:
        """Dispose the active provider and stop the ``ask_sync`` loop; idempotent."""
        with self._lock:
            slot, self._active = self._active, None
        try:
            if slot is not None:
                slot.disposer()
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
            slot, self._active = self._active, None
        pending = None
        if slot is not None and slot.disposer._take() is not None:
            pending = slot.dispose()
        self.close()
        if pending is not None:
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
        slot = self._active
        return f"<UserInteraction provider={None if slot is None else slot.name!r}>"

    # -- internals of registration -------------------------------------------------------

    def _new_slot(self, provider: object, name: str | None, origin: ProviderInfo | None) -> _Slot:
        if name is None:
            name = getattr(provider, "name", None)
            if not isinstance(name, str) or not name:
                name = (
                    provider.__name__
                    if isinstance(provider, ModuleType)
                    else type(provider).__name__
                )
        slot = _Slot(provider, name, origin)
        ref = weakref.ref(self)

        def dispose() -> None:
            manager = ref()
            if manager is not None:
                with manager._lock:
                    if manager._active is slot:
                        manager._active = None
            slot.dispose()

        slot.disposer = Disposer(dispose)
        return slot

    def _refuse_if_active(self) -> None:
        active = self._active
        if active is not None:
            raise self._duplicate(active)

    @staticmethod
    def _duplicate(active: _Slot) -> UserInteractionError:
        return UserInteractionError(
            f"Provider {active.name!r} is already active; dispose it or use swap().",
            DUPLICATE_PROVIDER,
        )

    def _install(self, slot: _Slot) -> None:
        with self._lock:
            old, self._active = self._active, slot
        if old is not None:
            old.disposer._take()  # its life now ends with its pending asks
            old.retire(slot)

    # -- asking --------------------------------------------------------------------------

    def _precheck(self, request: AskUserQuestionRequest) -> _Slot:
        if type(request) is not AskUserQuestionRequest and not isinstance(
            request, AskUserQuestionRequest
        ):
            raise UserInteractionError(
                f"request: expected AskUserQuestionRequest, got {type(request).__name__}",
                INVALID_REQUEST,
            )
        signal = request.signal
        if signal is not None and signal.aborted:
            raise _aborted(signal)
        validate_request(request)
        slot = self._active
        if slot is None:
            raise UserInteractionError(
                "No provider is active: register one or call use().", NO_PROVIDER
            )
        return slot

    async def ask(
        self, request: AskUserQuestionRequest, *, timeout: float | None = None
    ) -> AskUserQuestionAnswer:
        """Ask the active provider and return its validated answer.

        Raises ``UserInteractionError``: ``ASK_ABORTED`` (the request's signal),
        ``ASK_TIMEOUT`` (``timeout`` seconds passed), ``EMPTY_QUESTIONS`` /
        ``INVALID_REQUEST``, ``NO_PROVIDER``, ``ASK_CANCELLED`` / ``ASK_DECLINED`` (the
        human), ``INVALID_ANSWER`` / ``PROVIDER_FAILED`` (the provider),
        ``PROVIDER_DISPOSED``.
        """
        slot = self._precheck(request)
        if timeout is not None:
            _check_timeout(timeout)
        elif request.signal is None and slot.is_async:
            # The cheapest path, inlined here (one coroutine less): await the provider in
            # the caller's task; disposal cancels this task and reports PROVIDER_DISPOSED.
            asyncio = _aio()
            task = asyncio.current_task()
            call = _Call(None, task)
            if slot.serial or not slot.enter(call):
                slot = await self._admit(slot, call)
                if not slot.is_async:  # swapped to a sync provider while queued
                    return await self._ask_guarded(slot, request, None, admitted=call)
            try:
                result = await slot.call(request)
            except asyncio.CancelledError:
                if call.error is None:
                    raise
                if hasattr(task, "uncancel"):
                    task.uncancel()
                raise call.error from None
            except UserInteractionError:
                raise
            except Exception as exc:
                raise _failed(exc) from exc
            finally:
                slot.exit(call)
                if slot.serial:
                    slot.release()
            return validate_answer(request, result)
        return await self._ask_guarded(slot, request, timeout)

    def ask_sync(
        self, request: AskUserQuestionRequest, *, timeout: float | None = None
    ) -> AskUserQuestionAnswer:
        """:meth:`ask` for synchronous callers, on a loop this manager keeps.

        Safe from many threads at once; ``RuntimeError`` on a thread whose event loop is
        running (``await ask()`` there instead).
        """
        aio = _aio()
        if aio._get_running_loop() is not None:
            raise RuntimeError(
                "ask_sync() was called on a thread whose event loop is running; "
                "use 'await ui.ask(...)' there"
            )
        self._precheck(request)
        if timeout is not None:
            _check_timeout(timeout)
        runner = self._runner
        if runner is None:
            runner = self._start_runner()
        loop = runner.get()
        # The ask runs as an eager task (3.12+) started by one callback, and wakes this
        # thread through a lock: one loop iteration per call instead of three.
        done = allocate_lock()
        done.acquire()
        outcome: list[tuple[bool, Any]] = []
        tasks: list[asyncio.Task[None]] = []

        async def run() -> None:
            try:
                outcome.append((True, await self.ask(request, timeout=timeout)))
            except BaseException as exc:  # handed to the waiting thread, never lost
                outcome.append((False, exc))
            finally:
                done.release()

        def start() -> None:
            tasks.append(
                aio.Task(run(), loop=loop, eager_start=True) if _EAGER else loop.create_task(run())
            )

        loop.call_soon_threadsafe(start)
        try:
            while not done.acquire(timeout=_CLOSED_POLL):
                if loop.is_closed():  # close() stopped the loop before the ask began
                    raise _disposed()
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

    async def _admit(
        self, slot: _Slot, call: _Call, before_wait: Callable[[], None] | None = None
    ) -> _Slot:
        """Queue for (if serial) and enter the active provider, following swaps."""
        while True:
            if slot.serial and not slot.try_acquire():
                slot = await self._acquire(slot, call, before_wait)
            if slot.enter(call):
                return slot
            if slot.serial:
                slot.release()
            slot = self._successor(slot)

    def _successor(self, slot: _Slot) -> _Slot:
        """Where an ask goes when ``slot`` stopped taking asks: the provider swapped in."""
        successor = self._active
        if successor is None or successor is slot:
            raise _disposed()
        return successor

    async def _acquire(
        self, slot: _Slot, call: _Call, before_wait: Callable[[], None] | None = None
    ) -> _Slot:
        """Wait in the serial queue; returns the slot granted (after a swap, the new one)."""
        call.outcome = call.loop.create_future()
        try:
            call.raise_if_failed()
            while not slot.enqueue(call):
                slot = self._successor(slot)
            if before_wait is not None:
                before_wait()
            granted: _Slot = await call.outcome
            return granted
        finally:
            call.outcome = None

    async def _ask_guarded(
        self,
        slot: _Slot,
        request: AskUserQuestionRequest,
        timeout: float | None,
        *,
        admitted: _Call | None = None,
    ) -> AskUserQuestionAnswer:
        """The general path: the caller waits on a future that abort, timeout and
        disposal settle at once; the provider gets a signal of its own."""
        aio = _aio()
        loop = aio.get_running_loop()
        call = admitted if admitted is not None else _Call(loop)
        controller = call.controller = AbortController()
        signal = request.signal
        deadline = None if timeout is None else loop.time() + timeout
        remove_listener: Callable[[], None] | None = None
        timer: asyncio.TimerHandle | None = None
        armed = False

        def arm() -> None:
            # Listen for abort and timeout only once the ask really waits: a provider that
            # answers at once (eagerly, on 3.12+) costs no listener and leaves no timer.
            nonlocal armed, remove_listener, timer
            if not armed:
                armed = True
                if signal is not None:
                    remove_listener = signal.add_callback(lambda: call.fail(_aborted(signal)))
                if deadline is not None:
                    timer = loop.call_at(deadline, call._timed_out, timeout)

        entered = admitted is not None
        started = completed = False
        try:
            if signal is not None and signal.aborted:
                raise _aborted(signal)
            if not entered:
                slot = await self._admit(slot, call, arm)
                entered = True
            call.raise_if_failed()  # aborted just as it was admitted?
            provider_request = AskUserQuestionRequest(
                request.questions, request.agent, controller.signal
            )
            started = True  # from here on the provider call releases the serial slot
            provider_call = self._start_call(slot, provider_request, loop)
            if provider_call.done():
                result = _result_of(provider_call)
            else:
                outcome = call.outcome = loop.create_future()
                provider_call.add_done_callback(lambda done: _copy_outcome(done, outcome))
                arm()
                result = await outcome
            if hasattr(result, "__await__"):  # a sync provider that returned an awaitable
                arm()
                result = await result
            completed = True
        finally:
            if remove_listener is not None:
                remove_listener()
            if timer is not None:
                timer.cancel()
            if entered:
                slot.exit(call)
                if slot.serial and not started:
                    slot.release()
            if not completed and not controller.signal.aborted:
                controller.abort(
                    UserInteractionError("The caller stopped waiting for the answer.", ASK_ABORTED)
                )
        return validate_answer(request, result)

    def _start_call(
        self, slot: _Slot, request: AskUserQuestionRequest, loop: asyncio.AbstractEventLoop
    ) -> asyncio.Future[Any]:
        """Start the provider call; the serial slot is released when it returns."""
        aio = _aio()
        release = slot.release if slot.serial else None
        if not slot.is_async:
            from ._runtime import run_in_thread

            direct = slot.call
            return run_in_thread(loop, lambda: direct(request), release)
        try:
            coroutine = slot.call(request)
        except BaseException as exc:
            if release is not None:
                release()
            raise _failed(exc) from exc
        if _EAGER:
            task = aio.Task(coroutine, loop=loop, eager_start=True)
        else:
            task = loop.create_task(coroutine)
        if release is not None:
            task.add_done_callback(lambda _: release())
        if not task.done():
            task.add_done_callback(_consume)
        future: asyncio.Future[Any] = task
        return future


def _consume(future: Any) -> None:
    """Mark a provider's late exception as seen (its caller may have gone)."""
    if not future.cancelled():
        future.exception()


def _provider_error(done: Any) -> BaseException | None:
    """What the caller sees of a finished provider call that failed; ``None`` if it did not."""
    if done.cancelled():
        return UserInteractionError("The provider call was cancelled.", PROVIDER_FAILED)
    exc = done.exception()
    return None if exc is None else _failed(exc)


def _copy_outcome(done: Any, outcome: Any) -> None:
    """Hand a provider call that finished later to the caller, unless it stopped waiting."""
    if not outcome.done():
        error = _provider_error(done)
        if error is None:
            outcome.set_result(done.result())
        else:
            outcome.set_exception(error)


def _result_of(done: Any) -> Any:
    """The result of a provider call that finished at once, or what it failed with."""
    error = _provider_error(done)
    if error is not None:
        raise error
    return done.result()


def _check_timeout(timeout: float) -> None:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout >= 0:
        raise ValueError(f"timeout must be a non-negative number of seconds, got {timeout!r}")
