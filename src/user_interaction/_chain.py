"""The chain of ``ask_wrapper`` layers and ``ask_finished`` observers around an ask.

The manager composes a :class:`Chain` from its plugin manager when its extensions change
(:func:`compose`, ``None`` when they add nothing: asks then take the plain path), and
asks through it. :meth:`Chain.ask`:

1. fails at once with ``EXTENSION_FAILED`` when an installed extension failed to load or
   a wrapper failed to build;
2. runs the wrappers, the first in hook order outermost, around :meth:`Chain._innermost`
   (which validates the request it is given, asks the active provider and notes what it
   asked) as a task of its own that the caller stops waiting for at once when its signal
   fires or its timeout passes (the task is then told and cancelled, never the caller);
3. validates the final answer against the caller's request, and hands the outcome to the
   observers on one of the context's worker threads, waiting for them until the caller's deadline at
   most (what they raise is logged, never the caller's problem).
"""

from __future__ import annotations

import sys
from contextvars import ContextVar
from time import monotonic, perf_counter
from typing import TYPE_CHECKING, Any, Callable, Final

import pluggy

from ._abort import AbortController, AbortSignal, discard_awaitable
from ._approval import ANSWERED_BY
from ._ask import Ask, caller_left, timed_out, within
from ._errors import EXTENSION_FAILED, INVALID_ANSWER, INVALID_REQUEST, UserInteractionError
from ._hooks import AskFunction
from ._model import AskUserQuestionAnswer, AskUserQuestionRequest, with_signal
from ._validation import validate_answer, validate_request

if TYPE_CHECKING:
    import asyncio
    import logging

    from ._registration import Registration
    from ._workers import Workers

__all__ = ["Chain", "compose"]

#: How long an ask without a deadline waits for its observers before returning.
_OBSERVER_WAIT: Final = 1.0
#: The least an ask waits for its observers (so that one timed out is still recorded).
_OBSERVER_MIN_WAIT: Final = 0.1

Outcome = tuple[bool, Any]
#: An observer: its extension's name, its function and the arguments it takes.
_Observer = tuple[str, Callable[..., object], tuple[str, ...]]


def _logger() -> logging.Logger:
    import logging

    return logging.getLogger("user_interaction")


class _Record:
    """What the chain's innermost call learnt during one ask."""

    __slots__ = ("answer", "asked", "provider", "request", "signal")

    def __init__(self, request: AskUserQuestionRequest, signal: AbortSignal) -> None:
        self.request = request  # the caller's, already validated
        self.signal = signal  # fires when the caller stops waiting
        self.provider: str | None = None
        self.answer: AskUserQuestionAnswer | None = None  # the provider's validated answer
        self.asked: list[AskUserQuestionRequest] = []  # every request the provider got


_RECORD: ContextVar[_Record] = ContextVar("user_interaction_ask")


def compose(
    pm: pluggy.PluginManager,
    ui: object,
    active: Callable[[], Registration],
    broken: UserInteractionError | None,
    workers: Workers,
) -> Chain | None:
    """The chain of ``pm``'s extensions for ``ui`` (whose active registration
    ``active()`` returns; whose observers run on ``workers``), or ``None`` when they
    neither wrap nor observe."""
    chain = Chain(active, broken, workers)
    try:
        chain._compose(pm, ui)
    except UserInteractionError as exc:
        chain._failure = exc
    hook = pm.hook.ask_finished
    chain._observers = tuple(
        (impl.plugin_name, impl.function, tuple(impl.argnames))
        for impl in reversed(hook.get_hookimpls())
        if not (impl.hookwrapper or impl.wrapper)
    )
    if chain._function is None and not (chain._observers or broken or chain._failure):
        return None
    return chain


class Chain:
    """One composition of a context's extensions; :meth:`ask` asks through it."""

    def __init__(
        self,
        active: Callable[[], Registration],
        broken: UserInteractionError | None,
        workers: Workers,
    ) -> None:
        self._active = active
        self._workers = workers  # the context's reused threads: observers run there
        self._broken = broken  # an installed extension failed to load
        self._failure: UserInteractionError | None = None  # ... or a wrapper to build
        self._function: AskFunction | None = None
        self._codes: dict[object, str] = {}  # each wrapper's code object: its extension
        self._observers: tuple[_Observer, ...] = ()

    def _compose(self, pm: pluggy.PluginManager, ui: object) -> None:
        """The wrappers around :meth:`_innermost`, the first in hook order outermost."""
        wrappers: list[tuple[str, Callable[[AskFunction], object]]] = []
        for impl in reversed(pm.hook.ask_wrapper.get_hookimpls()):
            if impl.hookwrapper or impl.wrapper:
                continue
            try:
                wrap = impl.function(*[ui for _ in impl.argnames])
            except Exception as exc:
                raise _failed(impl.plugin_name, "ask_wrapper() raised", exc) from exc
            if wrap is None:
                continue
            if not callable(wrap):
                raise _failed(
                    impl.plugin_name, f"ask_wrapper() returned {type(wrap).__name__}", None
                )
            wrappers.append((impl.plugin_name, wrap))
        if not wrappers:
            return
        ask: AskFunction = self._innermost
        for name, wrap in reversed(wrappers):
            try:
                wrapped = wrap(ask)
            except Exception as exc:
                raise _failed(name, "its wrapper raised", exc) from exc
            if not callable(wrapped):
                raise _failed(name, f"its wrapper returned {type(wrapped).__name__}", None)
            code = getattr(wrapped, "__code__", None)
            if code is None:  # a callable object: its __call__ (or the object itself) raises
                code = getattr(type(wrapped).__dict__.get("__call__"), "__code__", None)
            if code is not None:
                self._codes[code] = name
            ask = wrapped
        self._function = ask

    async def _innermost(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        """The end of the chain: check the request it is given and ask the provider."""
        record = _RECORD.get()
        if request is not record.request:
            if not isinstance(request, AskUserQuestionRequest):
                raise UserInteractionError(
                    "next_ask(request): expected AskUserQuestionRequest, got "
                    f"{type(request).__name__}",
                    INVALID_REQUEST,
                )
            validate_request(request)
        registration = self._active()
        record.provider = registration.name
        record.asked.append(request)
        signal = record.signal
        if request.signal is not signal:
            if request.signal is not None and request.signal is not record.request.signal:
                signal = AbortSignal.any([request.signal, signal])
            request = with_signal(request, signal)
        answer = await Ask(registration, request, None).run()
        record.answer = answer
        return answer

    # -- asking -------------------------------------------------------------------------

    async def ask(
        self, request: AskUserQuestionRequest, timeout: float | None
    ) -> AskUserQuestionAnswer:
        """Ask through the chain (``request`` has passed the manager's checks), then tell
        the observers."""
        if self._broken is not None:
            raise self._broken
        started = perf_counter()
        deadline = _deadline(request, timeout)
        provider = None
        try:
            if self._failure is not None:
                raise self._failure
            if self._function is None:  # observers only: the plain path, timed
                registration = self._active()
                provider = registration.name
                answer = await Ask(registration, request, timeout).run()
            else:
                answer, provider = await self._run(self._function, request, timeout, deadline)
        except BaseException as exc:
            if self._observers:
                await self._observe(
                    request, None, exc, provider, started=started, deadline=deadline
                )
            raise
        answered_by = ANSWERED_BY.get()
        if answered_by is not None:  # approve() wants to know whether a provider was asked
            answered_by.provider_asked = provider is not None
        if self._observers:
            await self._observe(request, answer, None, provider, started=started, deadline=deadline)
        return answer

    async def _run(
        self,
        function: AskFunction,
        request: AskUserQuestionRequest,
        timeout: float | None,
        deadline: float | None,
    ) -> tuple[AskUserQuestionAnswer, str | None]:
        """The chain's checked answer and the provider that gave it, or its error mapped:
        a ``UserInteractionError`` as it is, ``KeyboardInterrupt`` and ``SystemExit`` as
        they are, anything else (``GeneratorExit``, a wrapper's own ``CancelledError``)
        ``EXTENSION_FAILED``."""
        controller = AbortController()
        record = _Record(request, controller.signal)
        if deadline is not None:
            record.signal._expire_by(deadline)
        token = _RECORD.set(record)  # the chain's task starts with a copy of this context
        try:
            ok, outcome = await self._waited(function, request, controller, timeout)
        finally:
            _RECORD.reset(token)
        if not ok:
            if isinstance(outcome, (UserInteractionError, KeyboardInterrupt, SystemExit)):
                raise outcome
            raise self._blame(outcome) from outcome
        return _checked(record, outcome), record.provider

    async def _waited(
        self,
        function: AskFunction,
        request: AskUserQuestionRequest,
        controller: AbortController,
        timeout: float | None,
    ) -> Outcome:
        """Run the chain as a task the caller stops waiting for when its signal fires or
        the timeout runs out; the task is then told (its signal) and cancelled."""
        import asyncio

        loop = asyncio.get_running_loop()
        if sys.version_info >= (3, 12):  # an ask that answers at once needs no loop turn
            task = asyncio.Task(_settled(function, request), loop=loop, eager_start=True)
            if task.done():
                return task.result()
        else:
            task = loop.create_task(_settled(function, request))
        waiter: asyncio.Future[Outcome] = loop.create_future()

        def settle(outcome: Outcome) -> None:
            if not waiter.done():
                waiter.set_result(outcome)

        def finished(done: asyncio.Task[Outcome]) -> None:
            settle((False, caller_left()) if done.cancelled() else done.result())

        task.add_done_callback(finished)
        signal = request.signal
        remove = None
        if signal is not None:

            def aborted() -> None:
                error = signal.error()
                controller.abort(error)
                try:
                    loop.call_soon_threadsafe(settle, (False, error))
                except RuntimeError:  # the loop is closed: nobody waits any more
                    pass

            remove = signal.add_callback(aborted)
        try:
            return await within(waiter, timeout)
        except asyncio.TimeoutError:
            assert timeout is not None
            error = timed_out(timeout)
            controller.abort(error)
            return False, error
        finally:
            if remove is not None:
                remove()
            if not task.done():
                controller.abort(caller_left())
                task.cancel()

    def _blame(self, exc: BaseException) -> UserInteractionError:
        """``EXTENSION_FAILED`` for what a wrapper raised, naming the innermost wrapper in
        its traceback or its causes' (each wrapper's ``ask`` is known by its code object)."""
        codes = self._codes
        name = None
        error: BaseException | None = exc
        seen: set[int] = set()
        while error is not None and name is None and id(error) not in seen:
            seen.add(id(error))
            traceback = error.__traceback__
            while traceback is not None:
                name = codes.get(traceback.tb_frame.f_code, name)
                traceback = traceback.tb_next
            error = error.__cause__ or error.__context__
        if name is None and len(set(codes.values())) == 1:
            name = next(iter(codes.values()))
        return _failed(name, "its wrapper raised", exc)

    # -- observing ----------------------------------------------------------------------
    # Observers run on one of the context's reused worker threads (a blocked one never
    # holds the others: the pool starts a thread when none is idle) before the caller has
    # the outcome, so an
    # audit line is written when ``ask`` returns; nothing they do changes that outcome.
    # The caller waits for them until its deadline (one second without one) and no more:
    # an observer still running then finishes on its own.

    async def _observe(
        self,
        request: AskUserQuestionRequest,
        answer: AskUserQuestionAnswer | None,
        error: BaseException | None,
        provider: str | None,
        *,
        started: float,
        deadline: float | None,
    ) -> None:
        import asyncio

        seconds = perf_counter() - started
        wait = _OBSERVER_WAIT if deadline is None else max(deadline - monotonic(), 0.0)
        wait = max(wait, _OBSERVER_MIN_WAIT)
        if error is not None and not isinstance(error, UserInteractionError):
            if not isinstance(error, asyncio.CancelledError):
                return  # KeyboardInterrupt, SystemExit: not an outcome of the ask
            error = caller_left()
            wait = 0  # the caller is gone: it waits for nothing
        arguments: dict[str, object] = {
            "request": request,
            "answer": answer,
            "error": error,
            "provider": provider,
            "seconds": seconds,
        }
        loop = asyncio.get_running_loop()
        told = loop.create_future()

        def tell() -> None:
            try:
                self._notify(arguments, loop)
            finally:
                try:
                    loop.call_soon_threadsafe(_set_done, told)
                except RuntimeError:  # the loop is closed: nobody waits any more
                    pass

        self._workers.submit(tell)
        if wait:
            await asyncio.wait([told], timeout=wait)

    def _notify(self, arguments: dict[str, object], loop: asyncio.AbstractEventLoop) -> None:
        """Tell every observer; whatever one raises is logged and ignored. An async
        observer's awaitable runs on in the background on ``loop``, never awaited."""
        import asyncio

        for name, function, argnames in self._observers:
            try:
                result = function(*[arguments[argname] for argname in argnames])
                if result is not None and hasattr(result, "__await__"):
                    try:
                        asyncio.run_coroutine_threadsafe(_observed(name, result), loop)
                    except RuntimeError:  # the loop is closed: the observer cannot run
                        discard_awaitable(result)
            except BaseException:
                _logger().exception("ask_finished of extension %r failed", name)


async def _observed(name: str, awaitable: Any) -> None:
    try:
        await awaitable
    except (Exception, KeyboardInterrupt, SystemExit):  # never the loop's problem
        _logger().exception("ask_finished of extension %r failed", name)


def _deadline(request: AskUserQuestionRequest, timeout: float | None) -> float | None:
    """When the caller stops waiting by itself (``time.monotonic()``), if it does."""
    signal = request.signal
    deadlines = [
        None if timeout is None else monotonic() + timeout,
        None if signal is None else signal.deadline,
    ]
    return min((each for each in deadlines if each is not None), default=None)


def _set_done(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


async def _settled(function: AskFunction, request: AskUserQuestionRequest) -> Outcome:
    """Run the chain as a task: its outcome, never an exception escaping the task."""
    try:
        return True, await function(request)
    except BaseException as exc:
        return False, exc


def _checked(record: _Record, answer: object) -> AskUserQuestionAnswer:
    """The chain's answer checked against the caller's request (unless it is the
    provider's, already checked against that very request)."""
    request = record.request
    if answer is record.answer and len(record.asked) == 1 and record.asked[0] is request:
        return answer  # type: ignore[return-value]
    try:
        checked = validate_answer(request, answer)
    except UserInteractionError as exc:
        message = exc.message.replace("provider answer: ", "")
        raise UserInteractionError(
            f"The answer after the extensions' wrappers is invalid: {message}", INVALID_ANSWER
        ) from None
    if len(checked.answers) != len(request.questions):
        dropped = _dropped(record, checked)
        if dropped is not None:
            raise dropped
    return checked


def _dropped(record: _Record, answer: AskUserQuestionAnswer) -> UserInteractionError | None:
    """``INVALID_ANSWER`` if a question neither reached the provider nor got an answer."""
    answered = {item.id for item in answer.answers}
    asked = {item.id for request in record.asked for item in request.questions}
    missing = [
        item.id
        for item in record.request.questions
        if item.id not in answered and item.id not in asked
    ]
    if not missing:
        return None
    return UserInteractionError(
        f"The extensions' wrappers dropped questions {', '.join(map(repr, missing))}: "
        "neither answered nor asked of the provider",
        INVALID_ANSWER,
    )


def _failed(name: str | None, problem: str, cause: BaseException | None) -> UserInteractionError:
    detail = "" if cause is None else f" {type(cause).__name__}: {cause}"
    who = "An extension" if name is None else f"Extension {name!r}"
    return UserInteractionError(
        f"{who}: {problem}{':' if detail else ''}{detail}",
        EXTENSION_FAILED,
        cause=cause,
    )
