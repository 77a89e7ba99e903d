from __future__ import annotations

import asyncio
import gc
import sys
import threading
import time
from typing import Any

import pytest

from user_interaction import (
    ASK_ABORTED,
    ASK_CANCELLED,
    ASK_TIMEOUT,
    DUPLICATE_PROVIDER,
    INVALID_REQUEST,
    NO_PROVIDER,
    PROVIDER_DISPOSED,
    PROVIDER_FAILED,
    AbortController,
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    Disposer,
    UserInteraction,
    UserInteractionError,
    hookimpl,
)
from user_interaction.testing import first_choice, sample_request

# "promptly": far below the provider's own delays (30 s or more), generous on a busy machine
PROMPT = 10.0


class AsyncProvider:
    def __init__(self) -> None:
        self.requests: list[AskUserQuestionRequest] = []
        self.disposed = 0

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        self.requests.append(request)
        await asyncio.sleep(0)
        return first_choice(request)

    def dispose(self) -> None:
        self.disposed += 1


class SyncProvider:
    def __init__(self) -> None:
        self.threads: list[str] = []

    def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        self.threads.append(threading.current_thread().name)
        return first_choice(request)


class Stuck:
    """Ignores its signal and never answers (until released)."""

    def __init__(self, serial: bool = False) -> None:
        self.serial = serial
        self.requests: list[AskUserQuestionRequest] = []
        self._release: asyncio.Event | None = None
        self._arrived: asyncio.Condition | None = None
        self.finished = 0
        self.disposed = 0

    def gate(self) -> asyncio.Event:
        # created on first use, inside the running loop (Python 3.9 binds events to a loop)
        if self._release is None:
            self._release = asyncio.Event()
        return self._release

    def arrived(self) -> asyncio.Condition:
        if self._arrived is None:  # as gate(): inside the running loop
            self._arrived = asyncio.Condition()
        return self._arrived

    async def asked(self, count: int = 1) -> None:
        """Return once ``count`` asks have reached the provider (the event itself, not a
        sleep long enough on an idle machine)."""
        async with self.arrived():
            await self.arrived().wait_for(lambda: len(self.requests) >= count)

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        self.requests.append(request)
        async with self.arrived():
            self.arrived().notify_all()
        await self.gate().wait()
        self.finished += 1
        return first_choice(request)

    def dispose(self) -> None:
        self.disposed += 1


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def code_of(coro: Any) -> str:
    async def main() -> str:
        try:
            await coro
        except UserInteractionError as error:
            return error.code
        raise AssertionError("no error")

    return run(main())


# -- registration -----------------------------------------------------------------------


def test_register_activates_and_disposer_deactivates(ui: UserInteraction) -> None:
    provider = AsyncProvider()
    disposer = ui.register_provider(provider)
    assert isinstance(disposer, Disposer)
    assert ui.provider is provider
    assert run(ui.ask(sample_request())) == first_choice(sample_request())
    disposer()
    disposer()  # idempotent
    assert ui.provider is None
    assert provider.disposed == 1
    assert code_of(ui.ask(sample_request())) == NO_PROVIDER


def test_disposer_is_a_context_manager(ui: UserInteraction) -> None:
    provider = AsyncProvider()
    with ui.register_provider(provider) as disposer:
        assert ui.provider is provider
    assert disposer.disposed
    assert ui.provider is None
    assert provider.disposed == 1


def test_duplicate_provider_is_refused_and_the_first_stays(ui: UserInteraction) -> None:
    first, second = AsyncProvider(), AsyncProvider()
    ui.register_provider(first)
    with pytest.raises(UserInteractionError) as info:
        ui.register_provider(second)
    assert info.value.code == DUPLICATE_PROVIDER
    assert ui.provider is first
    assert second.disposed == 0


def test_contexts_are_independent() -> None:
    with UserInteraction() as one, UserInteraction() as two:
        one.register_provider(AsyncProvider())
        assert two.provider is None
        two.register_provider(AsyncProvider())


def test_context_manager_disposes_on_exit() -> None:
    provider = AsyncProvider()
    with UserInteraction() as ui:
        ui.register_provider(provider)
    assert provider.disposed == 1
    ui.close()  # idempotent
    assert provider.disposed == 1


def test_async_context_manager_awaits_async_dispose() -> None:
    events: list[str] = []

    class AsyncDispose(AsyncProvider):
        async def dispose(self) -> None:  # type: ignore[override]
            await asyncio.sleep(0.01)
            events.append("disposed")

    async def main() -> None:
        async with UserInteraction() as ui:
            ui.register_provider(AsyncDispose())
        events.append("after")

    run(main())
    assert events == ["disposed", "after"]


def test_async_dispose_without_a_loop_runs_to_completion(ui: UserInteraction) -> None:
    events: list[str] = []

    class AsyncDispose(AsyncProvider):
        async def dispose(self) -> None:  # type: ignore[override]
            await asyncio.sleep(0.01)
            events.append("disposed")

    ui.register_provider(AsyncDispose())()
    assert events == ["disposed"]


def test_a_failing_dispose_is_reported_once(ui: UserInteraction) -> None:
    class BadDispose(AsyncProvider):
        def dispose(self) -> None:
            super().dispose()
            raise OSError("terminal gone")

    provider = BadDispose()
    disposer = ui.register_provider(provider)
    with pytest.raises(UserInteractionError) as info:
        disposer()
    assert info.value.code == PROVIDER_FAILED
    assert isinstance(info.value.__cause__, OSError)
    disposer()
    assert provider.disposed == 1
    assert ui.provider is None


@pytest.mark.parametrize(
    "bad",
    [
        object(),
        type("NoCallable", (), {"ask": 3})(),
        type("WrongName", (), {"ask": lambda self, req: None})(),
        type("Defaulted", (), {"ask": lambda self, request=None: None})(),
        type("Extra", (), {"ask": lambda self, request, other: None})(),
        type("KeywordOnly", (), {"ask": lambda self, *, request: None})(),
    ],
)
def test_registering_a_non_provider_is_a_type_error(ui: UserInteraction, bad: object) -> None:
    with pytest.raises(TypeError):
        ui.register_provider(bad)
    assert ui.provider is None


def test_hookimpl_marked_provider(ui: UserInteraction) -> None:
    class Marked:
        @hookimpl
        def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
            return first_choice(request)

    ui.register_provider(Marked())
    assert run(ui.ask(sample_request())) == first_choice(sample_request())


def test_a_module_can_be_a_provider(ui: UserInteraction) -> None:
    import types

    module = types.ModuleType("inline_provider")
    module.ask = first_choice  # type: ignore[attr-defined]
    ui.register_provider(module, name="inline")
    assert run(ui.ask(sample_request("a", "b"))) == first_choice(sample_request("a", "b"))


# -- asking -----------------------------------------------------------------------------


def test_sync_provider_runs_off_the_event_loop(ui: UserInteraction) -> None:
    provider = SyncProvider()
    ui.register_provider(provider)
    assert run(ui.ask(sample_request())) == first_choice(sample_request())
    assert provider.threads == ["user-interaction-provider"]


def test_sync_provider_may_return_an_awaitable(ui: UserInteraction) -> None:
    class ReturnsCoroutine:
        def ask(self, request: AskUserQuestionRequest) -> Any:
            async def later() -> AskUserQuestionAnswer:
                return first_choice(request)

            return later()

    ui.register_provider(ReturnsCoroutine())
    assert run(ui.ask(sample_request())) == first_choice(sample_request())


@pytest.mark.parametrize("timeout", [None, 5.0])
@pytest.mark.parametrize("kind", ["sync", "async"])
def test_foreign_exceptions_become_provider_failed(
    ui: UserInteraction, kind: str, timeout: float | None
) -> None:
    boom = ValueError("boom")

    class Sync:
        def ask(self, request: AskUserQuestionRequest) -> Any:
            raise boom

    class Async:
        async def ask(self, request: AskUserQuestionRequest) -> Any:
            raise boom

    ui.register_provider(Sync() if kind == "sync" else Async())
    with pytest.raises(UserInteractionError) as info:
        run(ui.ask(sample_request(), timeout=timeout))
    assert info.value.code == PROVIDER_FAILED
    assert info.value.__cause__ is boom
    assert "ValueError: boom" in info.value.message


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_user_interaction_errors_keep_their_code(
    ui: UserInteraction, timeout: float | None
) -> None:
    class Cancels:
        async def ask(self, request: AskUserQuestionRequest) -> Any:
            raise UserInteractionError("dismissed", ASK_CANCELLED)

    ui.register_provider(Cancels())
    assert code_of(ui.ask(sample_request(), timeout=timeout)) == ASK_CANCELLED


def test_an_aborted_signal_wins_over_everything(ui: UserInteraction) -> None:
    signal = AbortSignalAborted()
    # even an invalid request and no provider: the abort is reported first
    assert code_of(ui.ask(AskUserQuestionRequest([], signal=signal))) == ASK_ABORTED


def AbortSignalAborted() -> Any:
    controller = AbortController()
    controller.abort()
    return controller.signal


@pytest.mark.parametrize("serial", [False, True])
def test_abort_releases_the_caller_while_the_provider_ignores_it(
    ui: UserInteraction, serial: bool
) -> None:
    provider = Stuck(serial=serial)
    ui.register_provider(provider)
    controller = AbortController()

    async def main() -> None:
        asyncio.get_running_loop().call_later(0.05, controller.abort, "user pressed stop")
        started = time.monotonic()
        with pytest.raises(UserInteractionError) as info:
            await ui.ask(sample_request(signal=controller.signal))
        assert time.monotonic() - started < PROMPT
        assert info.value.code == ASK_ABORTED
        assert "user pressed stop" in info.value.message
        # the provider got a signal that fired too
        provider_signal = provider.requests[0].signal
        assert provider_signal is not None and provider_signal.aborted

    run(main())


def test_abort_from_another_thread(ui: UserInteraction) -> None:
    ui.register_provider(Stuck())
    controller = AbortController()
    threading.Timer(0.05, controller.abort).start()
    assert code_of(ui.ask(sample_request(signal=controller.signal))) == ASK_ABORTED


def test_timeout_releases_the_caller_and_fires_the_provider_signal(ui: UserInteraction) -> None:
    provider = Stuck()
    ui.register_provider(provider)

    async def main() -> None:
        started = time.monotonic()
        with pytest.raises(UserInteractionError) as info:
            await ui.ask(sample_request(), timeout=0.05)
        assert time.monotonic() - started < PROMPT
        assert info.value.code == ASK_TIMEOUT
        signal = provider.requests[0].signal
        assert signal is not None and signal.aborted
        assert isinstance(signal.reason, UserInteractionError)
        assert signal.reason.code == ASK_TIMEOUT

    run(main())


def test_timeout_beats_a_blocking_sync_provider(ui: UserInteraction) -> None:
    release = threading.Event()

    class Blocking:
        def ask(self, request: AskUserQuestionRequest) -> Any:
            release.wait(30)
            return first_choice(request)

    ui.register_provider(Blocking())
    started = time.monotonic()
    try:
        assert code_of(ui.ask(sample_request(), timeout=0.05)) == ASK_TIMEOUT
        assert time.monotonic() - started < PROMPT
    finally:
        release.set()


def test_timeout_beats_a_provider_that_swallows_cancellation(ui: UserInteraction) -> None:
    class Stubborn:
        async def ask(self, request: AskUserQuestionRequest) -> Any:
            for _ in range(300):  # 30 s, unless the manager stopped waiting for it
                try:
                    await asyncio.sleep(0.1)
                except asyncio.CancelledError:
                    pass
            return first_choice(request)

    ui.register_provider(Stubborn())

    async def main() -> None:
        started = time.monotonic()
        with pytest.raises(UserInteractionError) as info:
            await ui.ask(sample_request(), timeout=0.05)
        assert info.value.code == ASK_TIMEOUT
        assert time.monotonic() - started < PROMPT

    run(main())


def test_a_well_behaved_provider_sees_its_signal(ui: UserInteraction) -> None:
    cleaned: list[object] = []
    unwound: list[asyncio.Event] = []

    class Listens:
        async def ask(self, request: AskUserQuestionRequest) -> Any:
            assert request.signal is not None
            try:
                await request.signal.wait()
            finally:  # the signal fires, then the task is cancelled: finally blocks run
                cleaned.append(request.signal.reason)
                unwound[0].set()
            raise UserInteractionError("stopped", ASK_ABORTED)

    ui.register_provider(Listens())

    async def main() -> None:
        unwound.append(asyncio.Event())
        with pytest.raises(UserInteractionError):
            await ui.ask(sample_request(), timeout=0.02)
        await asyncio.wait_for(unwound[0].wait(), 30)

    run(main())
    assert len(cleaned) == 1
    assert isinstance(cleaned[0], UserInteractionError)
    assert cleaned[0].code == ASK_TIMEOUT


def test_external_cancellation_tells_the_provider(ui: UserInteraction) -> None:
    provider = Stuck()
    ui.register_provider(provider)
    controller = AbortController()

    async def main() -> None:
        task = asyncio.ensure_future(ui.ask(sample_request(signal=controller.signal)))
        await provider.asked()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        signal = provider.requests[0].signal
        assert signal is not None and signal.aborted

    run(main())


def test_bad_timeout_values(ui: UserInteraction) -> None:
    ui.register_provider(AsyncProvider())
    for bad in (-1, float("nan"), "1", True):
        with pytest.raises(ValueError):
            run(ui.ask(sample_request(), timeout=bad))  # type: ignore[arg-type]


def test_zero_timeout_times_out_a_pending_ask(ui: UserInteraction) -> None:
    ui.register_provider(Stuck())
    assert code_of(ui.ask(sample_request(), timeout=0)) == ASK_TIMEOUT


def test_the_provider_gets_the_request_with_a_signal_of_its_own(ui: UserInteraction) -> None:
    provider = AsyncProvider()
    ui.register_provider(provider)
    request = sample_request(agent="session-1")
    run(ui.ask(request))
    run(ui.ask(request, timeout=10))
    for seen in provider.requests:
        assert seen == request  # the signal is not part of equality
        assert seen.agent == "session-1"
        assert seen.signal is not None
        assert not seen.signal.aborted
    assert provider.requests[0].signal is not provider.requests[1].signal


# -- disposal with pending asks ---------------------------------------------------------


@pytest.mark.parametrize("mode", ["plain", "signal", "timeout"])
def test_pending_asks_fail_with_provider_disposed(ui: UserInteraction, mode: str) -> None:
    provider = Stuck()
    disposer = ui.register_provider(provider)

    async def main() -> None:
        kwargs: dict[str, Any] = {"timeout": 30} if mode == "timeout" else {}
        request = sample_request(signal=AbortController().signal if mode == "signal" else None)
        tasks = [asyncio.ensure_future(ui.ask(request, **kwargs)) for _ in range(3)]
        await provider.asked(3)
        disposer()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert [getattr(r, "code", r) for r in results] == [PROVIDER_DISPOSED] * 3

    run(main())
    assert provider.disposed == 1
    assert code_of(ui.ask(sample_request())) == NO_PROVIDER


def test_dispose_from_another_thread_releases_a_blocking_sync_ask(ui: UserInteraction) -> None:
    release = threading.Event()
    asked = threading.Event()

    class Blocking:
        def ask(self, request: AskUserQuestionRequest) -> Any:
            asked.set()
            release.wait(30)
            return first_choice(request)

    disposer = ui.register_provider(Blocking())
    # disposed once the provider has the ask (before: NO_PROVIDER, another test)
    threading.Thread(target=lambda: asked.wait(30) and disposer()).start()
    try:
        assert code_of(ui.ask(sample_request())) == PROVIDER_DISPOSED
    finally:
        release.set()


def test_queued_asks_fail_on_dispose_too(ui: UserInteraction) -> None:
    provider = Stuck(serial=True)
    disposer = ui.register_provider(provider)

    async def main() -> None:
        tasks = [asyncio.ensure_future(ui.ask(sample_request())) for _ in range(4)]
        await provider.asked()  # every task ran its first step before: the others queued
        assert len(provider.requests) == 1
        disposer()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert [getattr(r, "code", r) for r in results] == [PROVIDER_DISPOSED] * 4

    run(main())
    assert len(provider.requests) == 1


# -- serial providers -------------------------------------------------------------------


class SerialRecorder:
    serial = True

    def __init__(self) -> None:
        self.active = 0
        self.most = 0
        self.order: list[str] = []

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        self.active += 1
        self.most = max(self.most, self.active)
        self.order.append(request.questions[0].id)
        await asyncio.sleep(0.001)
        self.active -= 1
        return first_choice(request)


@pytest.mark.parametrize("timeout", [None, 30.0])
def test_serial_provider_gets_one_ask_at_a_time_in_arrival_order(
    ui: UserInteraction, timeout: float | None
) -> None:
    provider = SerialRecorder()
    ui.register_provider(provider)
    ids = [f"q{n}" for n in range(200)]

    async def main() -> None:
        answers = await asyncio.gather(*(ui.ask(sample_request(i), timeout=timeout) for i in ids))
        assert [a.answers[0].id for a in answers] == ids

    run(main())
    assert provider.most == 1
    assert provider.order == ids


def test_queued_ask_that_aborts_or_times_out_never_reaches_the_provider(
    ui: UserInteraction,
) -> None:
    provider = Stuck(serial=True)
    ui.register_provider(provider)

    async def main() -> None:
        first = asyncio.ensure_future(ui.ask(sample_request("first")))
        await provider.asked()
        controller = AbortController()
        aborted = asyncio.ensure_future(ui.ask(sample_request("aborted", signal=controller.signal)))
        timed = asyncio.ensure_future(ui.ask(sample_request("timed"), timeout=0.05))
        last = asyncio.ensure_future(ui.ask(sample_request("last")))
        await asyncio.sleep(0)  # the three ran their first step: each is queued
        controller.abort()
        started = time.monotonic()
        with pytest.raises(UserInteractionError) as info:
            await aborted
        assert info.value.code == ASK_ABORTED
        with pytest.raises(UserInteractionError) as info:
            await timed
        assert info.value.code == ASK_TIMEOUT
        assert time.monotonic() - started < PROMPT
        provider.gate().set()
        await first
        await last

    run(main())
    assert [r.questions[0].id for r in provider.requests] == ["first", "last"]


def test_a_sync_provider_ignoring_its_signal_holds_the_queue(ui: UserInteraction) -> None:
    release = threading.Event()
    called = threading.Event()
    seen: list[str] = []

    class StuckThread:
        serial = True

        def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
            seen.append(request.questions[0].id)
            called.set()
            release.wait(30)  # a blocking UI: cannot be interrupted
            return first_choice(request)

    ui.register_provider(StuckThread())

    async def main() -> None:
        with pytest.raises(UserInteractionError):
            await ui.ask(sample_request("first"), timeout=0.02)  # caller gives up
        assert await asyncio.get_running_loop().run_in_executor(None, called.wait, 30)
        second = asyncio.ensure_future(ui.ask(sample_request("second")))
        await asyncio.sleep(0.05)  # room for a wrongly passed turn to show; none should
        assert seen == ["first"]  # still held
        release.set()  # the first provider call returns...
        await asyncio.wait_for(second, 60)  # ...and the next one starts

    run(main())
    assert seen == ["first", "second"]


def test_an_async_provider_is_cancelled_and_the_queue_moves_on(ui: UserInteraction) -> None:
    provider = Stuck(serial=True)
    ui.register_provider(provider)

    async def main() -> None:
        with pytest.raises(UserInteractionError) as info:
            await ui.ask(sample_request("first"), timeout=0.02)
        assert info.value.code == ASK_TIMEOUT
        # the gate stays shut: only cancellation ended the first call, and the turn passed on
        second = asyncio.ensure_future(ui.ask(sample_request("second")))
        await provider.asked(2)
        assert [r.questions[0].id for r in provider.requests] == ["first", "second"]
        provider.gate().set()
        await asyncio.wait_for(second, 60)

    run(main())
    assert provider.finished == 1  # only the second call ran to its end


def test_a_providers_task_cancelled_before_it_ran_passes_the_turn_on(
    ui: UserInteraction,
) -> None:
    """Below 3.12 the provider's task waits for the loop's next turn. A loop that ends
    meanwhile (here ``asyncio.run``, its main task done) cancels that task before it ever
    ran: the serial provider's turn still passes on, and the provider's coroutine is
    closed, not left never awaited (an error under this suite)."""
    provider = SerialRecorder()
    ui.register_provider(provider)

    left: list[asyncio.Future[AskUserQuestionAnswer]] = []

    async def leave_an_ask_behind() -> None:
        left.append(asyncio.ensure_future(ui.ask(sample_request("first"))))  # the loop ends

    run(leave_an_ask_behind())
    assert left[0].cancelled()
    gc.collect()  # a coroutine never awaited would warn here
    answer = run(asyncio.wait_for(ui.ask(sample_request("second")), PROMPT))
    assert answer.answers[0].id == "second"
    if sys.version_info < (3, 12):
        assert provider.order == ["second"]  # the first task never ran


# -- concurrency ------------------------------------------------------------------------


@pytest.mark.parametrize("timeout", [None, 30.0])
def test_hundreds_of_concurrent_asks(ui: UserInteraction, timeout: float | None) -> None:
    provider = AsyncProvider()
    ui.register_provider(provider)
    ids = [f"q{n}" for n in range(500)]

    async def main() -> list[AskUserQuestionAnswer]:
        return await asyncio.gather(*(ui.ask(sample_request(i), timeout=timeout) for i in ids))

    answers = run(main())
    assert [a.answers[0].id for a in answers] == ids


@pytest.mark.parametrize("provider_class", [AsyncProvider, SyncProvider, SerialRecorder])
def test_ask_sync_from_many_threads(ui: UserInteraction, provider_class: type) -> None:
    ui.register_provider(provider_class())
    results: dict[int, list[str]] = {}
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            results[n] = [ui.ask_sync(sample_request(f"t{n}-{k}")).answers[0].id for k in range(10)]
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors
    assert results == {n: [f"t{n}-{k}" for k in range(10)] for n in range(20)}


def test_ask_sync_uses_one_kept_loop(ui: UserInteraction) -> None:
    loops: list[object] = []

    class LoopSpy:
        async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
            loops.append(asyncio.get_running_loop())
            return first_choice(request)

    ui.register_provider(LoopSpy())
    for _ in range(3):
        ui.ask_sync(sample_request())
    assert len(set(map(id, loops))) == 1


def test_ask_sync_on_a_thread_with_a_running_loop_is_a_runtime_error(ui: UserInteraction) -> None:
    ui.register_provider(AsyncProvider())

    async def main() -> None:
        with pytest.raises(RuntimeError):
            ui.ask_sync(sample_request())

    run(main())


def test_ask_sync_in_a_thread_while_a_loop_runs_elsewhere(ui: UserInteraction) -> None:
    ui.register_provider(AsyncProvider())

    async def main() -> AskUserQuestionAnswer:
        return await asyncio.to_thread(ui.ask_sync, sample_request())

    assert run(main()) == first_choice(sample_request())


def test_ask_sync_errors_and_timeout(ui: UserInteraction) -> None:
    with pytest.raises(UserInteractionError) as info:
        ui.ask_sync(sample_request())
    assert info.value.code == NO_PROVIDER
    with pytest.raises(UserInteractionError) as info:
        ui.ask_sync(AskUserQuestionRequest([AskUserQuestionItem(" ", "q")]))
    assert info.value.code == INVALID_REQUEST
    ui.register_provider(Stuck())
    started = time.monotonic()
    with pytest.raises(UserInteractionError) as info:
        ui.ask_sync(sample_request(), timeout=0.05)
    assert info.value.code == ASK_TIMEOUT
    assert time.monotonic() - started < PROMPT


def test_ask_from_several_event_loops_in_threads(ui: UserInteraction) -> None:
    provider = SerialRecorder()
    ui.register_provider(provider)
    done: list[int] = []

    def worker(n: int) -> None:
        async def main() -> None:
            for k in range(5):
                await ui.ask(sample_request(f"l{n}-{k}"), timeout=30)
            done.append(n)

        asyncio.run(main())

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(done) == list(range(8))
    assert provider.most == 1


def test_close_releases_ask_sync_callers_in_other_threads() -> None:
    ui = UserInteraction()
    release = threading.Event()
    asked = threading.Event()

    class Blocking:
        def ask(self, request: AskUserQuestionRequest) -> Any:
            asked.set()
            release.wait(30)
            return first_choice(request)

    ui.register_provider(Blocking())
    codes: list[str] = []

    def asker() -> None:
        try:
            ui.ask_sync(sample_request())
        except UserInteractionError as error:
            codes.append(error.code)

    thread = threading.Thread(target=asker)
    thread.start()
    assert asked.wait(30)  # the caller is waiting for the provider
    ui.close()
    thread.join(10)
    release.set()
    assert codes == [PROVIDER_DISPOSED]


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_a_provider_error_keeps_its_cause(ui: UserInteraction, timeout: float | None) -> None:
    cause = OSError("pipe closed")

    class Fails:
        async def ask(self, request: AskUserQuestionRequest) -> Any:
            raise UserInteractionError("transport failed", PROVIDER_FAILED, cause=cause)

    ui.register_provider(Fails())
    with pytest.raises(UserInteractionError) as info:
        run(ui.ask(sample_request(), timeout=timeout))
    assert info.value.code == PROVIDER_FAILED
    assert info.value.__cause__ is cause
