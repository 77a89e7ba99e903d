"""Cancellation: ``AbortController`` / ``AbortSignal``, after the web platform's.

A signal can be aborted from any thread; callbacks run in the aborting thread, once.
Asyncio code awaits :meth:`AbortSignal.wait` or :meth:`AbortSignal.race` (no polling).
``AbortSignal.timeout`` fires from one shared daemon timer thread, so it works with or
without a running event loop. Nothing here imports asyncio or threading until it is needed.
"""

from __future__ import annotations

import heapq
import weakref
from _thread import RLock, allocate_lock
from time import monotonic
from typing import TYPE_CHECKING, Awaitable, Callable, Final, Iterable, TypeVar, final

from ._errors import ASK_ABORTED, ASK_TIMEOUT, UserInteractionError

if TYPE_CHECKING:
    import asyncio
    import threading

__all__ = ["AbortController", "AbortSignal"]

Callback = Callable[[], object]
T = TypeVar("T")

#: The longest the timer thread sleeps at once: far deadlines are reached in steps, so no
#: duration (``1e300``) overflows a wait, and ``inf`` is simply never scheduled.
_MAX_SLEEP: Final = 3600.0

#: One lock for every signal's state (each hold is a few field updates, and no signal code
#: waits under it): a lock per signal cost every pending ask an object of its own.
#: Reentrant: a combined signal's clean-up (see ``any``) runs wherever its last reference
#: goes or a garbage collection starts, which can be inside this very lock on this thread.
_LOCK: Final = RLock()


@final
class AbortSignal:
    """Tells whoever holds it that an operation should stop, and why (``reason``)."""

    __slots__ = (
        "__weakref__",
        "_aborted",
        "_callbacks",
        "_deadline",
        "_next_key",
        "_reason",
    )

    def __init__(self) -> None:
        self._aborted = False
        self._reason: object = None
        self._callbacks: dict[int, Callback] | None = None  # made on first use
        self._next_key = 0
        self._deadline: float | None = None

    @property
    def deadline(self) -> float | None:
        """The :func:`time.monotonic` time at which the signal fires by itself, or ``None``.

        Set for a :meth:`timeout` signal, an :meth:`any` signal holding one (the earliest),
        and the signal a provider receives when its ask has a timeout: so a UI can show
        the time left, and a provider that hands the ask on (to another process) can pass
        the time left along with it.
        """
        return self._deadline

    def time_left(self) -> float | None:
        """Seconds until :attr:`deadline` (never negative), or ``None`` without one."""
        deadline = self._deadline
        return None if deadline is None else max(0.0, deadline - monotonic())

    def _expire_by(self, deadline: float | None) -> None:
        """Make ``deadline`` known as this signal's own, if it is the earlier one (the
        caller arranges that the signal does fire then)."""
        if deadline is not None and (self._deadline is None or deadline < self._deadline):
            self._deadline = deadline

    @property
    def aborted(self) -> bool:
        """Whether the signal has fired."""
        return self._aborted

    @property
    def reason(self) -> object:
        """Why it fired (an exception by default), or ``None`` while it has not."""
        return self._reason

    def throw_if_aborted(self) -> None:
        """Raise the reason if the signal has fired (wrapped if it is not an exception)."""
        if self._aborted:
            reason = self._reason
            if isinstance(reason, BaseException):
                raise reason
            raise UserInteractionError(f"The operation was aborted: {reason!r}", ASK_ABORTED)

    def add_callback(self, callback: Callback) -> Callable[[], None]:
        """Call ``callback()`` once when the signal fires (at once if it already has).

        Returns a function that removes the callback again; calling it twice is harmless.
        The callback runs in the thread that aborts, so keep it short and thread-safe
        (from asyncio, hand over with ``loop.call_soon_threadsafe``).
        """
        with _LOCK:
            if not self._aborted:
                key = self._next_key
                self._next_key = key + 1
                if self._callbacks is None:
                    self._callbacks = {}
                self._callbacks[key] = callback
                return lambda: self._remove_key(key)
        _run_callback(callback)
        return _nothing

    def remove_callback(self, callback: Callback) -> None:
        """Remove a callback added with :meth:`add_callback` (no error if absent)."""
        with _LOCK:
            callbacks = self._callbacks
            if callbacks is None:
                return
            # A copy: ``==`` runs any code, which may remove callbacks (see ``__init__``).
            for key, registered in list(callbacks.items()):
                if registered is callback or registered == callback:
                    callbacks.pop(key, None)
                    return

    def _remove_key(self, key: int) -> None:
        with _LOCK:
            if self._callbacks is not None:
                self._callbacks.pop(key, None)

    async def wait(self) -> object:
        """Wait, without polling, until the signal fires; return its reason."""
        if not self._aborted:
            import asyncio

            loop = asyncio.get_running_loop()
            future: asyncio.Future[None] = loop.create_future()
            remove = self.add_callback(lambda: _wake_threadsafe(loop, future))
            try:
                await future
            finally:
                remove()
        return self._reason

    def error(self) -> UserInteractionError:
        """The ``UserInteractionError`` an ask ended by this signal reports.

        The reason itself when it is a ``UserInteractionError`` (``ASK_TIMEOUT``,
        ``PROVIDER_DISPOSED``, ...); otherwise ``ASK_ABORTED``, with the reason as the cause
        when it is an exception. ``RuntimeError`` if the signal has not fired.
        """
        if not self._aborted:
            raise RuntimeError("error() called on a signal that has not fired")
        reason = self._reason
        if isinstance(reason, UserInteractionError):
            return reason
        cause = reason if isinstance(reason, BaseException) else None
        return UserInteractionError(f"The ask was aborted: {reason}", ASK_ABORTED, cause=cause)

    async def race(self, awaitable: Awaitable[T]) -> T:
        """Await ``awaitable``, unless this signal fires first: then cancel it and raise
        :meth:`error`.

        The way for a provider to make any wait interruptible::

            line = await request.signal.race(reader.readline())
        """
        import asyncio

        if self._aborted:
            discard_awaitable(awaitable)
            raise self.error()
        loop = asyncio.get_running_loop()
        inner = asyncio.ensure_future(awaitable)
        fired = False

        def cancel() -> None:
            nonlocal fired
            if not inner.done():
                fired = True
                inner.cancel()

        def on_abort() -> None:
            try:
                loop.call_soon_threadsafe(cancel)
            except RuntimeError:  # the loop is closed: nobody is waiting any more
                pass

        remove = self.add_callback(on_abort)
        try:
            return await inner
        except asyncio.CancelledError:
            if fired and not _cancelling():
                raise self.error() from None
            raise
        finally:
            remove()

    def _abort(self, reason: object) -> bool:
        with _LOCK:
            if self._aborted:
                return False
            if reason is None:
                reason = UserInteractionError("The operation was aborted.", ASK_ABORTED)
            self._reason = reason
            self._aborted = True
            callbacks = [] if self._callbacks is None else list(self._callbacks.values())
            self._callbacks = None
        for callback in callbacks:
            _run_callback(callback)
        return True

    def __repr__(self) -> str:
        state = f"aborted, reason={self._reason!r}" if self._aborted else "pending"
        return f"<AbortSignal {state}>"

    @staticmethod
    def abort(reason: object = None) -> AbortSignal:
        """A signal that has already fired."""
        signal = AbortSignal()
        signal._abort(reason)
        return signal

    @staticmethod
    def timeout(seconds: float) -> AbortSignal:
        """A signal that fires by itself after ``seconds``, reason ``ASK_TIMEOUT``."""
        seconds = check_seconds(seconds)
        signal = AbortSignal()
        if seconds != float("inf"):
            signal._deadline = monotonic() + seconds
            _TIMER.schedule(seconds, weakref.ref(signal))
        return signal

    @staticmethod
    def any(signals: Iterable[AbortSignal]) -> AbortSignal:
        """A signal that fires as soon as any of ``signals`` does, with that reason."""
        sources = list(signals)
        combined = AbortSignal()
        for source in sources:
            if source._aborted:
                combined._abort(source._reason)
                return combined
            combined._expire_by(source._deadline)
        ref = weakref.ref(combined)
        removers: list[Callable[[], None]] = []

        def forward(source: AbortSignal) -> Callback:
            def fire() -> None:
                target = ref()
                if target is not None and target._abort(source._reason):
                    _remove_all(removers)

            return fire

        for source in sources:
            removers.append(source.add_callback(forward(source)))
        # Once the combined signal is gone, nothing of it stays on long-lived sources.
        weakref.finalize(combined, _remove_all, removers)
        return combined


@final
class AbortController:
    """Owns an :class:`AbortSignal` and is the only way to fire it."""

    __slots__ = ("_signal",)

    def __init__(self) -> None:
        self._signal = AbortSignal()

    @property
    def signal(self) -> AbortSignal:
        return self._signal

    def abort(self, reason: object = None) -> None:
        """Fire the signal (once; later calls do nothing). Safe from any thread."""
        self._signal._abort(reason)

    def __repr__(self) -> str:
        return f"<AbortController signal={self._signal!r}>"


def check_seconds(value: object, what: str = "timeout") -> float:
    """``value`` as a float number of seconds, or a ``ValueError`` saying why it is none:
    a bool, not a number, negative, NaN, or too large for a float (``10**400``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} must be a non-negative number of seconds, got {value!r}")
    try:
        seconds = float(value)
    except OverflowError:
        raise ValueError(
            f"{what} must be a number of seconds a float can hold, got an int of "
            f"{value.bit_length()} bits"  # type: ignore[union-attr]
        ) from None
    if not seconds >= 0:  # also rejects NaN
        raise ValueError(f"{what} must be a non-negative number of seconds, got {value!r}")
    return seconds


def _nothing() -> None:
    return None


def _remove_all(removers: list[Callable[[], None]]) -> None:
    for remove in removers:
        remove()


def discard_awaitable(awaitable: object) -> None:
    """Drop an awaitable that will never be awaited, without a "never awaited" warning:
    close a coroutine, cancel a future."""
    if hasattr(awaitable, "cr_frame"):  # a coroutine
        awaitable.close()  # type: ignore[attr-defined]
    elif hasattr(awaitable, "add_done_callback"):  # a future or task
        getattr(awaitable, "cancel", _nothing)()


def _cancelling() -> bool:
    """Whether the current task itself is being cancelled (known on 3.11+ only)."""
    import asyncio

    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return cancelling is not None and cancelling() > 0


def _run_callback(callback: Callback) -> None:
    try:
        callback()
    except Exception:  # one broken listener must not stop the others
        import logging

        logging.getLogger("user_interaction").exception("abort callback %r failed", callback)


def _wake_threadsafe(loop: asyncio.AbstractEventLoop, future: asyncio.Future[None]) -> None:
    def wake() -> None:
        if not future.done():
            future.set_result(None)

    try:
        loop.call_soon_threadsafe(wake)
    except RuntimeError:  # the loop is closed: nobody is waiting any more
        pass


class _Timer:
    """One daemon thread that fires ``AbortSignal.timeout`` signals at their deadlines.

    Entries hold their signal weakly; dead ones are swept out as the heap grows, so
    long timeouts whose signals were dropped do not pile up.
    """

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, weakref.ref[AbortSignal], float]] = []
        self._counter = 0
        self._sweep_at = 1024
        self._condition: threading.Condition | None = None
        self._lock = allocate_lock()

    def schedule(self, delay: float, ref: weakref.ref[AbortSignal]) -> None:
        with self._lock:
            if self._condition is None:
                import threading

                from ._threads import start_thread

                self._condition = threading.Condition()
                start_thread(
                    threading.Thread(target=self._run, name="user-interaction-timer", daemon=True)
                )
            condition = self._condition
        with condition:
            self._counter += 1
            heapq.heappush(self._heap, (monotonic() + delay, self._counter, ref, delay))
            if len(self._heap) >= self._sweep_at:
                self._heap = [entry for entry in self._heap if entry[2]() is not None]
                heapq.heapify(self._heap)
                self._sweep_at = max(1024, 2 * len(self._heap))
            condition.notify()

    def _run(self) -> None:
        condition = self._condition
        assert condition is not None
        while True:
            with condition:
                while True:
                    now = monotonic()
                    if self._heap and self._heap[0][0] <= now:
                        _, _, ref, delay = heapq.heappop(self._heap)
                        break
                    wait = self._heap[0][0] - now if self._heap else _MAX_SLEEP
                    condition.wait(min(wait, _MAX_SLEEP))
            signal = ref()
            if signal is not None:
                signal._abort(UserInteractionError(f"Timed out after {delay:g} s.", ASK_TIMEOUT))


_TIMER = _Timer()
