"""One ask, from admission to teardown: the single path every ask takes.

``UserInteraction.ask`` checks the request and hands it, with the active registration, to
an :class:`Ask`, which:

1. is admitted by the registration (waiting for its turn on a serial provider, following a
   swap to the provider swapped in);
2. calls the provider with a request carrying a signal of the ask's own. An async
   provider's coroutine (or the awaitable a plain ``def ask`` returned) takes its first
   step at once, in a context of its own: a provider that answers without waiting costs
   no task; one that waits goes on as a task on the caller's loop. A sync provider runs on
   a reused worker thread;
3. if the call did not finish at once, waits on one future that the answer, the caller's
   signal, the timeout, disposal or the caller's cancellation settles, whichever is first
   (only then are a signal listener and a timer set up);
4. tears down: leaves the registration and, if the ask ended without the provider's
   answer, fires the provider's signal and cancels the provider's task;
5. validates the answer against the caller's request.

Nothing but the caller's own ``await`` is ever interrupted: the caller's task is never
cancelled from outside.
"""

from __future__ import annotations

import contextvars
import sys
import types
from time import monotonic
from typing import TYPE_CHECKING, Any, Callable, Final, Generator

from ._abort import AbortController, discard_awaitable
from ._errors import ASK_ABORTED, ASK_TIMEOUT, UserInteractionError
from ._model import AskUserQuestionAnswer, AskUserQuestionRequest, with_signal
from ._registration import ADMITTED, QUEUED, Registration, _aio, disposed_error, provider_error
from ._validation import validate_answer

if TYPE_CHECKING:
    import asyncio

__all__ = ["Ask"]

#: How long a caller whose ask ended early waits for the provider's cancelled task to
#: unwind before it is answered anyway (a provider that swallows its cancellation).
_UNWIND_GRACE: Final = 0.25
#: Whether a task can be given the context the provider's first step ran in (3.11+).
_STEP_FIRST: Final = sys.version_info >= (3, 11)

Outcome = tuple[bool, Any]  # (True, the provider's result) or (False, what the caller raises)


class Ask:
    """One ask's state while it is admitted, called and waited for."""

    __slots__ = (
        "__weakref__",
        "_armed",
        "_awaitable",
        "_controller",
        "_ending",
        "_grace",
        "_listener",
        "_loop",
        "_outcome",
        "_registration",
        "_request",
        "_task",
        "_timeout",
        "_timer",
    )

    def __init__(
        self, registration: Registration, request: AskUserQuestionRequest, timeout: float | None
    ) -> None:
        self._registration = registration
        self._request = request
        self._timeout = timeout
        self._controller = AbortController()
        self._loop: asyncio.AbstractEventLoop = None  # type: ignore[assignment]  # set by run()
        self._outcome: asyncio.Future[Any] | None = None  # what the caller is waiting on
        self._task: asyncio.Task[Outcome] | None = None  # the provider's awaitable, running
        self._awaitable: Any = None
        self._armed = False
        self._ending: UserInteractionError | None = None  # why the ask ended early, if it did
        self._grace: asyncio.TimerHandle | None = None
        self._listener: Any = None
        self._timer: asyncio.TimerHandle | None = None

    async def run(self) -> AskUserQuestionAnswer:
        """Ask the registration's provider (or its successors') and return the valid
        answer."""
        loop = self._loop = _aio().get_running_loop()
        deadline = None if self._timeout is None else loop.time() + self._timeout
        # The provider's signal carries when the ask ends by itself, for UIs to show.
        signal = self._controller.signal
        if self._timeout is not None:
            signal._expire_by(monotonic() + self._timeout)
        if self._request.signal is not None:
            signal._expire_by(self._request.signal.deadline)
        registration = self._registration
        holds_turn = answered = False
        try:
            while True:  # admission, following swaps
                admitted = registration.admit(self)
                if admitted == ADMITTED:
                    break
                if admitted == QUEUED:
                    registration = await self._wait_for(loop.create_future(), deadline)
                    break
                successor = registration.successor
                if successor is None:
                    raise disposed_error()
                registration = successor
            self._registration = registration
            holds_turn = registration.serial
            if signal.aborted:  # ended while it was being admitted
                raise signal.error()
            holds_turn = False  # from here on the provider call holds the turn
            outcome = self._call(registration, with_signal(self._request, signal))
            if outcome is None:
                outcome = await self._wait_for(loop.create_future(), deadline)
            answered = True
        finally:
            if self._armed:
                self._disarm()
            registration.leave(self)
            if holds_turn:
                registration.release()
            if not answered and self._ending is None:  # the caller left: end it here
                self._controller.abort(caller_left())
                task = self._task
                if task is not None:
                    task.cancel()
        ok, value = outcome
        if not ok:
            raise value
        return validate_answer(self._request, value)

    # -- the provider call ---------------------------------------------------------------

    def _call(self, registration: Registration, request: AskUserQuestionRequest) -> Outcome | None:
        """Start the provider call: its outcome if it finished at once, else ``None``."""
        if not registration.is_async:
            self._start_thread(registration, request)
            return None
        try:
            awaitable = registration.call(request)
        except BaseException as exc:
            self._ended()
            return False, provider_error(exc)
        return self._start_task(awaitable)

    def _start_task(self, awaitable: Any) -> Outcome | None:
        """Run ``awaitable``'s first step now; its outcome if that finished it, else go on
        as the provider's task (in the same context of its own)."""
        loop = self._loop
        if _STEP_FIRST:
            context = contextvars.copy_context()  # the provider's changes stay its own
            try:
                steps = awaitable.__await__()
                first = context.run(steps.send, None)
            except StopIteration as finished:
                self._ended()
                return True, finished.value
            except BaseException as exc:
                self._ended()
                return False, provider_error(exc)
            task = loop.create_task(_continue(steps, first), context=context)
        else:  # before 3.11 a task cannot take a given context: it runs the first step
            task = loop.create_task(_guarded(awaitable))
        self._task = task
        self._awaitable = awaitable
        task.add_done_callback(self._task_done)
        return None

    def _task_done(self, task: asyncio.Task[Outcome]) -> None:
        if task.cancelled():  # cancelled before it ever ran
            discard_awaitable(self._awaitable)
            outcome: Outcome = (False, disposed_error())
        else:
            ok, value = task.result()
            if not ok and self._ending is None:  # the caller still waits for this failure
                value = provider_error(value)
            outcome = (ok, value)
        self._awaitable = None
        self._ended(outcome)

    def _start_thread(self, registration: Registration, request: AskUserQuestionRequest) -> None:
        import contextvars

        from ._runtime import WORKERS

        loop = self._loop
        call = registration.call
        context = contextvars.copy_context()

        def job() -> Callable[[], None]:
            try:
                outcome: Outcome = (True, context.run(call, request))
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

        WORKERS.submit(job)

    def _thread_done(self, outcome: Outcome) -> None:
        ok, value = outcome
        if ok and hasattr(value, "__await__"):  # a plain def ask returned an awaitable
            waiting = self._outcome
            if waiting is None or waiting.done():  # the ask is over: do not start it
                discard_awaitable(value)
                self._ended()
                return
            finished = self._start_task(value)
            if finished is not None:
                self._settle(finished)
            return
        self._ended(outcome)

    def _ended(self, outcome: Outcome | None = None) -> None:
        """The provider call returned: pass the serial turn on, hand the caller the outcome."""
        if self._registration.serial:
            self._registration.release()
        if outcome is not None:
            self._settle(outcome)

    def _settle(self, outcome: Outcome) -> None:
        """Hand the caller the provider's outcome, or, once the ask has ended early, the
        reason it ended (the provider's task has now unwound)."""
        if self._grace is not None:
            self._grace.cancel()
        waiting = self._outcome
        if waiting is not None and not waiting.done():
            if self._ending is not None:
                waiting.set_exception(self._ending)
            else:
                waiting.set_result(outcome)

    # -- ending without the provider's answer --------------------------------------------

    def _wait_for(
        self, outcome: asyncio.Future[Any], deadline: float | None
    ) -> asyncio.Future[Any]:
        """Make ``outcome`` what the caller waits on; an ending that came first ends it."""
        self._outcome = outcome
        signal = self._controller.signal
        if signal.aborted:
            self._fail(signal.error())
        else:
            self._arm(deadline)
        return outcome

    def fail(self, error: UserInteractionError) -> None:
        """End the ask with ``error`` (the first ending wins). Safe from any thread."""
        self._controller.abort(error)
        loop = self._loop
        if _aio()._get_running_loop() is loop:  # on the caller's loop: no hop needed
            self._fail(error)
            return
        try:
            loop.call_soon_threadsafe(self._fail, error)
        except RuntimeError:  # the caller's loop is closed: nobody waits any more
            pass

    def _fail(self, error: UserInteractionError) -> None:
        if self._ending is None:
            self._ending = error
        task = self._task
        if task is not None and not task.done():
            # The caller is answered once the provider's task has unwound (its finally
            # blocks restore what it changed), or after a short grace if it will not.
            task.cancel()
            if self._grace is None:
                self._grace = self._loop.call_later(_UNWIND_GRACE, self._settle, (False, None))
            return
        waiting = self._outcome
        if waiting is not None and not waiting.done():
            waiting.set_exception(self._ending)

    def grant(self, registration: Registration) -> bool:
        """Give this queued ask its turn on ``registration``; False if its loop is gone."""
        try:
            self._loop.call_soon_threadsafe(self._grant, registration)
        except RuntimeError:
            return False
        return True

    def _grant(self, registration: Registration) -> None:
        waiting = self._outcome
        if waiting is None or waiting.done():  # it stopped waiting meanwhile
            registration.leave(self)
            if registration.serial:
                registration.release()
        else:
            waiting.set_result(registration)

    def _arm(self, deadline: float | None) -> None:
        """Listen for the caller's signal and the timeout, once the ask really waits."""
        if self._armed:
            return
        self._armed = True
        signal = self._request.signal
        if signal is not None:
            self._listener = signal.add_callback(lambda: self.fail(signal.error()))
        if deadline is not None:
            self._timer = self._loop.call_at(deadline, self._timed_out)

    def _disarm(self) -> None:
        if self._listener is not None:
            self._listener()
        if self._timer is not None:
            self._timer.cancel()

    def _timed_out(self) -> None:
        error = UserInteractionError(f"No answer within {self._timeout:g} s.", ASK_TIMEOUT)
        self._controller.abort(error)
        self._fail(error)


def caller_left() -> UserInteractionError:
    """The reason the provider's signal gives when the caller's task was cancelled (or
    otherwise stopped waiting): ``ASK_ABORTED``, caused by a ``CancelledError``."""
    return UserInteractionError(
        "The caller stopped waiting for the answer.",
        ASK_ABORTED,
        cause=_aio().CancelledError(),
    )


@types.coroutine
def _resume(steps: Any, pending: Any) -> Generator[Any, Any, Outcome]:
    """Go on with an awaitable whose first step already ran and yielded ``pending``: what
    ``yield from`` does, minus its first ``send``; cancellation is thrown in where it
    waits, as a task would. Like :func:`_guarded`, it returns the outcome."""
    while True:
        try:
            try:
                sent = yield pending
            except BaseException as exc:
                pending = steps.throw(exc)
                continue
            pending = steps.send(sent)
        except StopIteration as finished:
            return True, finished.value
        except BaseException as exc:  # mapped by the ask, only if its caller still waits
            return False, exc


async def _continue(steps: Any, pending: Any) -> Outcome:
    return await _resume(steps, pending)  # a task needs a coroutine, not a generator


async def _guarded(awaitable: Any) -> Outcome:
    """Await the provider; whatever it raises becomes an outcome, never escapes a task."""
    try:
        return True, await awaitable
    except BaseException as exc:  # mapped by the ask, only if its caller still waits
        return False, exc
