"""One ask, from admission to teardown: the single path every ask takes.

``UserInteraction.ask`` checks the request and hands it, with the active registration, to
an :class:`Ask`, which:

1. is admitted by the registration (waiting for its turn on a serial provider, following a
   swap to the provider swapped in);
2. calls the provider through its pluggy hook with a request carrying a signal of the
   ask's own: an async provider's awaitable runs as a task on the caller's loop (started
   eagerly on 3.12+), a sync provider on a reused worker thread;
3. waits for one future that the provider's outcome, the caller's signal or disposal
   settles, under ``asyncio.timeout`` (``asyncio.wait_for`` before 3.11);
4. when the ask ended without the provider's answer, fires the provider's signal, cancels
   its task and waits a short grace for it to unwind; leaves the registration;
5. validates the answer against the caller's request.

Nothing but the caller's own ``await`` is ever interrupted: the caller's task is never
cancelled from outside.
"""

from __future__ import annotations

import sys
from time import monotonic
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Final, TypeVar

from ._abort import AbortSignal, discard_awaitable
from ._errors import ASK_ABORTED, ASK_TIMEOUT, UserInteractionError
from ._model import AskUserQuestionAnswer, AskUserQuestionRequest, with_signal
from ._registration import ADMITTED, QUEUED, Registration, disposed_error, provider_error
from ._validation import validate_answer

if TYPE_CHECKING:
    import asyncio

__all__ = ["Ask", "caller_left", "within"]

T = TypeVar("T")

#: How long a caller whose ask ended early waits for the provider's cancelled task to
#: unwind before it is answered anyway (a provider that swallows its cancellation).
_UNWIND_GRACE: Final = 0.25

Outcome = tuple[bool, Any]  # (True, the provider's result) or (False, what it raised)


async def within(awaitable: Awaitable[T], seconds: float | None) -> T:
    """``await awaitable``, or ``TimeoutError`` (``asyncio.TimeoutError`` before 3.11)
    once ``seconds`` passed: the one timer every ask and chain uses."""
    import asyncio

    if seconds is None:
        return await awaitable
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await awaitable
    else:
        return await asyncio.wait_for(awaitable, seconds)


def timed_out(seconds: float) -> UserInteractionError:
    return UserInteractionError(f"No answer within {seconds:g} s.", ASK_TIMEOUT)


def caller_left() -> UserInteractionError:
    """The reason the provider's signal gives when the caller's task was cancelled (or
    otherwise stopped waiting): ``ASK_ABORTED``, caused by a ``CancelledError``."""
    import asyncio

    return UserInteractionError(
        "The caller stopped waiting for the answer.",
        ASK_ABORTED,
        cause=asyncio.CancelledError(),
    )


class Ask:
    """One ask's state while it is admitted, called and waited for."""

    __slots__ = (
        "_ending",
        "_loop",
        "_registration",
        "_request",
        "_signal",
        "_task",
        "_timeout",
        "_unstarted",
        "_waiting",
    )

    def __init__(
        self, registration: Registration, request: AskUserQuestionRequest, timeout: float | None
    ) -> None:
        self._registration = registration
        self._request = request
        self._timeout = timeout
        self._signal = AbortSignal()  # the provider's: fired (``_abort``) when the ask ends
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiting: asyncio.Future[Any] | None = None  # what the caller waits on now
        self._task: asyncio.Task[Outcome] | None = None  # the provider's awaitable
        self._unstarted: Awaitable[object] | None = None  # its awaitable until the task ran
        self._ending: UserInteractionError | None = None  # why the ask ended early

    async def run(self) -> AskUserQuestionAnswer:
        """Ask the registration's provider (or its successors') and return the valid
        answer."""
        import asyncio

        self._loop = asyncio.get_running_loop()
        signal = self._signal  # carries when the ask ends, for UIs to show
        if self._timeout is not None:
            signal._expire_by(monotonic() + self._timeout)
        caller = self._request.signal
        remove: Callable[[], None] | None = None
        if caller is not None:
            signal._expire_by(caller.deadline)
            remove = caller.add_callback(lambda: self.fail(caller.error()))
        try:
            call = self._admit_and_call()
            ok, value = await (call if self._timeout is None else within(call, self._timeout))
        except asyncio.TimeoutError:
            assert self._timeout is not None
            error = self._ending or timed_out(self._timeout)  # the first ending wins
            self._signal._abort(error)
            await self._unwind()
            raise error from None
        except asyncio.CancelledError:  # the caller left: end the provider's part here
            self._signal._abort(caller_left())
            self._cancel_task()
            raise
        finally:
            if remove is not None:
                remove()
            self._registration.leave(self)
        if not ok:
            raise value
        return validate_answer(self._request, value)

    async def _admit_and_call(self) -> Outcome:
        registration = self._registration
        while True:  # admission, following swaps
            admitted = registration.admit(self)
            if admitted == ADMITTED:
                break
            if admitted == QUEUED:
                registration = await self._granted()
                break
            successor = registration.successor
            if successor is None:
                raise disposed_error()
            registration = successor
        self._registration = registration
        signal = self._signal
        if signal.aborted:  # ended while it was being admitted
            if registration.serial:
                registration.release()
            raise signal.error()
        request = with_signal(self._request, signal)
        if registration.is_async:
            try:
                awaitable = registration.call(request=request)
            except BaseException as exc:
                self._returned()
                return False, provider_error(exc)
            finished = self._start_task(awaitable)
            if finished is not None:
                return finished
        else:
            self._start_thread(registration, request)
        try:
            outcome: Outcome = await self._wait()
        except UserInteractionError:  # ended early: aborted, disposed
            await self._unwind()
            raise
        return outcome

    async def _granted(self) -> Registration:
        """Wait in a serial provider's queue; the registration that gave the turn."""
        waiting = self._wait()
        try:
            registration: Registration = await waiting
        except BaseException:
            if waiting.done() and not waiting.cancelled() and waiting.exception() is None:
                waiting.result().release()  # granted just as the ask ended: pass it on
            raise
        return registration

    def _wait(self) -> asyncio.Future[Any]:
        """A new future for the caller to wait on; an ending that came first ends it."""
        assert self._loop is not None
        waiting = self._waiting = self._loop.create_future()
        if self._ending is not None:
            waiting.set_exception(self._ending)
        return waiting

    async def _unwind(self) -> None:
        """Cancel the provider's task and give it a moment to unwind (its ``finally``
        blocks restore what it changed) before the caller goes on."""
        import asyncio

        task = self._task
        if task is not None and not task.done():
            self._cancel_task()
            await asyncio.sleep(0)  # most unwind at once: then no timer is needed
            if not task.done():
                await asyncio.wait([task], timeout=_UNWIND_GRACE)

    def _cancel_task(self) -> None:
        """Cancel the provider's task. Below 3.12 it may not have run yet (an eager task
        always has), and then ``_provide`` never will: release the provider here."""
        if self._task is not None:
            self._task.cancel()
        unstarted, self._unstarted = self._unstarted, None
        if unstarted is not None:
            self._returned()
            discard_awaitable(unstarted)

    # -- the provider call ---------------------------------------------------------------

    def _start_task(self, awaitable: Awaitable[object]) -> Outcome | None:
        """Run ``awaitable`` as the provider's task; its outcome if it finished at once."""
        import asyncio

        loop = self._loop
        assert loop is not None
        if sys.version_info >= (3, 12):  # an ask that answers at once needs no loop turn
            task = asyncio.Task(self._provide(awaitable), loop=loop, eager_start=True)
            if task.done():
                return task.result()
        else:  # until its first step, a cancellation ends it without _provide: _cancel_task
            task = loop.create_task(self._provide(awaitable))
            self._unstarted = awaitable
        self._task = task
        return None

    async def _provide(self, awaitable: Awaitable[object]) -> Outcome:
        """The provider's task: await it and settle the caller's wait in the same step, so
        the caller wakes on the next loop turn, as it would awaiting the task itself.
        Whatever the provider raises (``KeyboardInterrupt`` included, which a task would
        re-raise out of the loop) becomes an outcome, never escapes the task."""
        self._unstarted = None
        try:
            outcome: Outcome = (True, await awaitable)
        except BaseException as exc:
            outcome = (False, provider_error(exc))
        self._returned()
        self._settle(outcome)  # unless the caller stopped waiting
        return outcome

    def _start_thread(self, registration: Registration, request: AskUserQuestionRequest) -> None:
        import contextvars

        loop = self._loop
        assert loop is not None
        call = registration.call
        context = contextvars.copy_context()

        def job() -> Callable[[], None]:
            try:
                outcome: Outcome = (True, context.run(call, request=request))
            except BaseException as exc:  # handed to the caller, never lost
                outcome = (False, provider_error(exc))

            def hand_back() -> None:
                try:
                    loop.call_soon_threadsafe(self._thread_done, outcome)
                except RuntimeError:  # the caller's loop is closed: nobody waits any more
                    if outcome[0] and hasattr(outcome[1], "__await__"):
                        discard_awaitable(outcome[1])
                    if registration.serial:
                        registration.release()

            return hand_back

        registration.workers.submit(job)

    def _thread_done(self, outcome: Outcome) -> None:
        ok, value = outcome
        if ok and hasattr(value, "__await__"):  # a plain def ask returned an awaitable
            waiting = self._waiting
            if waiting is None or waiting.done():  # the ask is over: do not start it
                discard_awaitable(value)
                self._returned()
                return
            self._start_task(value)  # its task settles the wait, even started eagerly
            return
        self._returned()
        self._settle(outcome)

    def _returned(self) -> None:
        """The provider call returned: a serial provider's turn passes on."""
        if self._registration.serial:
            self._registration.release()

    def _settle(self, outcome: Outcome) -> None:
        waiting = self._waiting
        if waiting is not None and not waiting.done():
            waiting.set_result(outcome)

    # -- ending without the provider's answer --------------------------------------------

    def fail(self, error: UserInteractionError) -> None:
        """End the ask with ``error`` (the first ending wins). Safe from any thread."""
        import asyncio

        self._signal._abort(error)
        loop = self._loop
        if loop is None:
            return
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:  # on the caller's loop: no hop needed
            self._end(error)
            return
        try:
            loop.call_soon_threadsafe(self._end, error)
        except RuntimeError:  # the caller's loop is closed: nobody waits any more
            pass

    def _end(self, error: UserInteractionError) -> None:
        if self._ending is None:
            self._ending = error
        waiting = self._waiting
        if waiting is not None and not waiting.done():
            waiting.set_exception(self._ending)

    def grant(self, registration: Registration) -> bool:
        """Give this queued ask its turn on ``registration``; False if its loop is gone."""
        assert self._loop is not None
        try:
            self._loop.call_soon_threadsafe(self._grant, registration)
        except RuntimeError:
            return False
        return True

    def _grant(self, registration: Registration) -> None:
        waiting = self._waiting
        if waiting is None or waiting.done():  # it stopped waiting meanwhile
            registration.leave(self)
            if registration.serial:
                registration.release()
        else:
            waiting.set_result(registration)
