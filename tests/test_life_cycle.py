"""An ask's life cycle: one path, nothing outlives its ask, contained failures.

Each test here pins a defect the single life cycle fixed; each failed before it.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from core_support import until, wait_until

from user_interaction import (
    ASK_ABORTED,
    ASK_TIMEOUT,
    PROVIDER_DISPOSED,
    PROVIDER_FAILED,
    RELOAD_FAILED,
    AbortController,
    AbortSignal,
    AskUserQuestionAnswer,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)
from user_interaction.testing import first_choice, sample_request

# -- one life cycle, whatever the provider kind (docs/semantics.md) -----------------------


class Recorder:
    """Waits for its signal and records the reason; answers when released instead."""

    def __init__(self) -> None:
        self.reasons: list[object] = []
        self.signals: list[AbortSignal | None] = []

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        self.signals.append(request.signal)
        assert request.signal is not None
        try:
            await request.signal.wait()
        finally:
            self.reasons.append(request.signal.reason)
        raise AssertionError("unreachable: the task is cancelled")


@pytest.mark.parametrize("mode", ["plain", "signal", "timeout"])
def test_disposal_fires_the_providers_own_signal_on_every_path(mode: str) -> None:
    provider = Recorder()
    ui = UserInteraction()
    ui.register_provider(provider)

    async def main() -> None:
        request = sample_request(signal=AbortController().signal if mode == "signal" else None)
        task = asyncio.ensure_future(ui.ask(request, timeout=30 if mode == "timeout" else None))
        await until(lambda: provider.signals, "the provider has the ask")
        ui.close()
        with pytest.raises(UserInteractionError) as info:
            await task
        assert info.value.code == PROVIDER_DISPOSED
        await asyncio.sleep(0)  # the provider's task unwinds (finally runs)
        assert asyncio.all_tasks() == {asyncio.current_task()}

    asyncio.run(main())
    assert provider.signals[0] is not None
    assert [getattr(r, "code", None) for r in provider.reasons] == [PROVIDER_DISPOSED]


def test_the_callers_cancellation_fires_the_providers_signal() -> None:
    provider = Recorder()
    with UserInteraction() as ui:
        ui.register_provider(provider)

        async def main() -> None:
            task = asyncio.ensure_future(ui.ask(sample_request()))
            await until(lambda: provider.signals, "the provider has the ask")
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await asyncio.sleep(0)

        asyncio.run(main())
    (reason,) = provider.reasons
    assert isinstance(reason, UserInteractionError)
    assert reason.code == ASK_ABORTED
    assert isinstance(reason.__cause__, asyncio.CancelledError)


# -- a plain def ask returning an awaitable -------------------------------------------


class ReturnsAwaitable:
    """A plain ``def ask`` that hands back a coroutine."""

    def __init__(self, serial: bool = False, *, hang: bool = False, fail: bool = False) -> None:
        self.serial = serial
        self.hang = hang
        self.fail = fail
        self.running = 0
        self.most = 0
        self.finished: list[str] = []

    def ask(self, request: AskUserQuestionRequest) -> Any:
        return self._answer(request)

    async def _answer(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            await asyncio.sleep(3600 if self.hang else 0.01)
            if self.fail:
                raise ValueError("broken")
            return first_choice(request)
        finally:
            self.running -= 1
            self.finished.append(request.questions[0].id)


def test_an_awaitable_from_a_plain_def_takes_the_serial_queue() -> None:
    provider = ReturnsAwaitable(serial=True)
    with UserInteraction() as ui:
        ui.register_provider(provider)

        async def main() -> None:
            await asyncio.gather(*(ui.ask(sample_request(f"q{n}")) for n in range(5)))

        asyncio.run(main())
    assert provider.most == 1
    assert provider.finished == [f"q{n}" for n in range(5)]


def test_an_awaitable_from_a_plain_def_is_timed_out_and_cancelled() -> None:
    provider = ReturnsAwaitable(hang=True)
    with UserInteraction() as ui:
        ui.register_provider(provider)

        async def main() -> None:
            with pytest.raises(UserInteractionError) as info:
                await ui.ask(sample_request(), timeout=0.05)
            assert info.value.code == ASK_TIMEOUT
            await asyncio.sleep(0)
            assert asyncio.all_tasks() == {asyncio.current_task()}

        asyncio.run(main())
    assert provider.finished == ["pkg"]  # its finally ran: it was cancelled


def test_an_awaitable_from_a_plain_def_is_aborted() -> None:
    provider = ReturnsAwaitable(hang=True)
    with UserInteraction() as ui:
        ui.register_provider(provider)
        controller = AbortController()

        async def main() -> None:
            task = asyncio.ensure_future(ui.ask(sample_request(signal=controller.signal)))
            await until(lambda: provider.running, "the awaitable runs")
            controller.abort()
            with pytest.raises(UserInteractionError) as info:
                await task
            assert info.value.code == ASK_ABORTED

        asyncio.run(main())


def test_an_awaitable_from_a_plain_def_has_its_errors_mapped() -> None:
    with UserInteraction() as ui:
        ui.register_provider(ReturnsAwaitable(fail=True))
        with pytest.raises(UserInteractionError) as info:
            asyncio.run(ui.ask(sample_request()))
    assert info.value.code == PROVIDER_FAILED
    assert isinstance(info.value.__cause__, ValueError)


def test_close_ends_ask_sync_on_an_awaitable_from_a_plain_def_with_disposed() -> None:
    ui = UserInteraction()
    provider = ReturnsAwaitable(hang=True)
    ui.register_provider(provider)

    def close_once_asked() -> None:
        wait_until(lambda: provider.running, "the awaitable runs")
        ui.close()

    closer = threading.Thread(target=close_once_asked)
    closer.start()
    with pytest.raises(UserInteractionError) as info:
        ui.ask_sync(sample_request())
    closer.join()
    assert info.value.code == PROVIDER_DISPOSED


# -- whatever a provider raises is contained ------------------------------------------


class Raises:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        raise self.exc


class RaisesAsync(Raises):
    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:  # type: ignore[override]
        await asyncio.sleep(0)
        raise self.exc


@pytest.mark.parametrize("kind", [Raises, RaisesAsync])
@pytest.mark.parametrize(
    "exc", [StopIteration(), GeneratorExit(), asyncio.CancelledError(), RuntimeError("x")]
)
def test_anything_a_provider_raises_is_provider_failed(kind: type, exc: BaseException) -> None:
    with UserInteraction() as ui:
        ui.register_provider(kind(exc))

        async def main() -> None:
            with pytest.raises(UserInteractionError) as info:
                await asyncio.wait_for(ui.ask(sample_request()), 5)  # never hangs
            assert info.value.code == PROVIDER_FAILED

        asyncio.run(main())
        with pytest.raises(UserInteractionError) as info:
            ui.ask_sync(sample_request(), timeout=5)
        assert info.value.code == PROVIDER_FAILED


@pytest.mark.parametrize("kind", [Raises, RaisesAsync])
@pytest.mark.parametrize("exc_type", [KeyboardInterrupt, SystemExit])
def test_keyboard_interrupt_reaches_ask_sync_and_the_manager_survives(
    kind: type, exc_type: type[BaseException]
) -> None:
    with UserInteraction() as ui:
        ui.register_provider(kind(exc_type()))
        with pytest.raises(exc_type):
            ui.ask_sync(sample_request(), timeout=5)
        ui.swap(_Answers())
        assert ui.ask_sync(sample_request(), timeout=5) == first_choice(sample_request())


class _Answers:
    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        return first_choice(request)


# -- nothing outlives its ask ---------------------------------------------------------


class IgnoresSignal:
    def __init__(self) -> None:
        self.started = 0
        self.unwound = 0

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        self.started += 1
        try:
            await asyncio.sleep(3600)
        finally:
            self.unwound += 1
        raise AssertionError("unreachable")


@pytest.mark.slow
def test_close_with_ten_thousand_pending_asks_leaves_no_provider_task() -> None:
    provider = IgnoresSignal()
    ui = UserInteraction()
    ui.register_provider(provider)
    count = 10_000

    async def main() -> None:
        tasks = [asyncio.ensure_future(ui.ask(sample_request())) for _ in range(count)]
        while provider.started < count:
            await asyncio.sleep(0.01)
        ui.close()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert {getattr(r, "code", r) for r in results} == {PROVIDER_DISPOSED}
        assert asyncio.all_tasks() == {asyncio.current_task()}

    asyncio.run(main())
    assert provider.unwound == count


def test_timed_out_asks_leave_no_provider_task() -> None:
    provider = IgnoresSignal()
    with UserInteraction() as ui:
        ui.register_provider(provider)

        async def main() -> None:
            results = await asyncio.gather(
                *(ui.ask(sample_request(), timeout=0.05) for _ in range(200)),
                return_exceptions=True,
            )
            assert {getattr(r, "code", r) for r in results} == {ASK_TIMEOUT}
            assert asyncio.all_tasks() == {asyncio.current_task()}

        asyncio.run(main())
    assert provider.unwound == 200


def test_a_late_failure_of_a_sync_provider_is_consumed_quietly() -> None:
    release = threading.Event()
    reported: list[dict[str, Any]] = []
    provider_thread: list[threading.Thread] = []

    class RaisesLate:
        def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
            provider_thread.append(threading.current_thread())
            release.wait(30)
            assert request.signal is not None
            request.signal.throw_if_aborted()
            raise AssertionError("the signal had fired")

    with UserInteraction() as ui:
        ui.register_provider(RaisesLate())

        async def main() -> None:
            loop = asyncio.get_running_loop()
            loop.set_exception_handler(lambda _, ctx: reported.append(ctx))
            # The provider's thread hands its late exception to the loop: wait for that
            # (a callback scheduled right after it), not for a sleep that may be too short.
            arrived = asyncio.Event()
            schedule = loop.call_soon_threadsafe

            def watched(callback: Any, *args: Any, **kwargs: Any) -> Any:
                handle = schedule(callback, *args, **kwargs)
                if provider_thread == [threading.current_thread()] and release.is_set():
                    schedule(arrived.set)
                return handle

            loop.call_soon_threadsafe = watched  # type: ignore[method-assign]
            with pytest.raises(UserInteractionError):
                await ui.ask(sample_request(), timeout=0.02)
            release.set()
            await asyncio.wait_for(arrived.wait(), 30)  # the late exception was handled
            gc.collect()
            await asyncio.sleep(0)

        asyncio.run(main())
    assert reported == []


def test_sync_providers_run_on_reused_threads() -> None:
    threads: set[int] = set()

    class Sync:
        def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
            threads.add(threading.get_ident())
            return first_choice(request)

    with UserInteraction() as ui:
        ui.register_provider(Sync())

        async def main() -> None:
            for _ in range(50):
                await ui.ask(sample_request())

        asyncio.run(main())
        for _ in range(50):
            ui.ask_sync(sample_request())
    assert len(threads) == 1
    assert threading.get_ident() not in threads


def test_a_blocked_sync_provider_does_not_hold_up_others() -> None:
    release = threading.Event()

    class Blocking:
        def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
            if request.questions[0].id == "stuck":
                release.wait(60)
            return first_choice(request)

    with UserInteraction() as ui:
        ui.register_provider(Blocking())

        async def main() -> None:
            stuck = asyncio.ensure_future(ui.ask(sample_request("stuck")))
            # another worker serves it: at once, not after the stuck one's minute
            await asyncio.wait_for(ui.ask(sample_request("free")), 30)
            release.set()
            await stuck

        asyncio.run(main())


# -- the caller's task is touched only while it waits ---------------------------------


class Gated:
    """Answers once its gate opens."""

    def __init__(self) -> None:
        self.gate: list[asyncio.Future[None]] = []

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        future = asyncio.get_running_loop().create_future()
        self.gate.append(future)
        await future
        return first_choice(request)


async def _answer_and_close_in_one_tick(ui: UserInteraction, provider: Gated) -> str:
    async def caller() -> str:
        try:
            await ui.ask(sample_request())
        except UserInteractionError as error:
            return error.code
        for _ in range(5):  # the caller goes on awaiting after ask() returned
            await asyncio.sleep(0)
        return "answered"

    task = asyncio.ensure_future(caller())
    while not provider.gate:
        await asyncio.sleep(0)
    loop = asyncio.get_running_loop()
    loop.call_soon(provider.gate[0].set_result, None)
    loop.call_soon(ui.close)  # the same loop tick as the answer
    return await task  # a CancelledError here is the defect


def test_disposal_racing_an_answer_never_cancels_the_returned_caller() -> None:
    for _ in range(20):
        provider = Gated()
        ui = UserInteraction()
        ui.register_provider(provider)
        assert asyncio.run(_answer_and_close_in_one_tick(ui, provider)) in {
            "answered",
            PROVIDER_DISPOSED,
        }


# -- context managers and exit --------------------------------------------------------


def test_async_with_reports_a_failing_async_dispose_as_provider_failed() -> None:
    class BadDispose:
        async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
            return first_choice(request)

        async def dispose(self) -> None:
            raise OSError("socket already gone")

    async def main() -> None:
        async with UserInteraction() as ui:
            ui.register_provider(BadDispose())

    with pytest.raises(UserInteractionError) as info:
        asyncio.run(main())
    assert info.value.code == PROVIDER_FAILED
    assert isinstance(info.value.__cause__, OSError)


def test_ask_sync_on_a_daemon_thread_at_exit_is_provider_disposed() -> None:
    provider = IgnoresSignal()
    ui = UserInteraction()
    ui.register_provider(provider)
    outcome: list[BaseException] = []

    def worker() -> None:
        try:
            ui.ask_sync(sample_request())
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=worker, daemon=True)
    thread.start()
    wait_until(lambda: provider.started, "the provider has the ask")
    finalizer = ui._finalizer
    assert finalizer is not None
    finalizer()  # what interpreter exit runs: the manager's loop stops
    thread.join(10)
    ui.close()
    assert [getattr(e, "code", e) for e in outcome] == [PROVIDER_DISPOSED]


# -- reload keeps its promise ---------------------------------------------------------

RELOADABLE = """
from user_interaction import AskUserQuestionAnswer


class Provider:
    async def ask(self, request):
        return AskUserQuestionAnswer([])
"""


@pytest.mark.parametrize(
    "edit",
    [
        "class Provider:\n    async def ask(self, question):\n        pass\n",  # renamed parameter
        "class Provider:\n    pass\n",  # ask vanished
        "class Provider:\n    ask = 42\n",  # not a function any more
    ],
)
def test_reload_with_a_broken_ask_is_reload_failed_and_restores_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: str
) -> None:
    package = tmp_path / "edited_provider"
    package.mkdir()
    (package / "__init__.py").write_text(RELOADABLE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        module: Any = __import__("edited_provider")
        with UserInteraction() as ui:
            first = module.Provider()
            ui.register_provider(first)
            (package / "__init__.py").write_text(edit, encoding="utf-8")
            with pytest.raises(UserInteractionError) as info:
                ui.reload()
            assert info.value.code == RELOAD_FAILED
            assert ui.provider is first
            assert sys.modules["edited_provider"] is module
    finally:
        sys.modules.pop("edited_provider", None)


def test_the_caller_is_answered_after_the_providers_task_has_unwound() -> None:
    """A provider restoring a terminal in ``finally`` (even awaiting there) is done before
    its caller goes on."""
    restored: list[bool] = []

    class Restores:
        async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
            try:
                await asyncio.sleep(3600)
            finally:
                await asyncio.sleep(0)  # an await while unwinding
                restored.append(True)
            raise AssertionError("unreachable")

    with UserInteraction() as ui:
        ui.register_provider(Restores())

        async def main() -> None:
            with pytest.raises(UserInteractionError) as info:
                await ui.ask(sample_request(), timeout=0.05)
            assert info.value.code == ASK_TIMEOUT
            assert restored == [True]  # before the caller resumed
            assert asyncio.all_tasks() == {asyncio.current_task()}

        asyncio.run(main())


def test_a_provider_swallowing_its_cancellation_still_loses_to_the_timeout() -> None:
    class Stubborn:
        async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
            future = asyncio.get_running_loop().create_future()
            try:
                await asyncio.shield(future)
            except asyncio.CancelledError:
                await asyncio.sleep(5)  # keeps going for a while after its cancellation
            return first_choice(request)

    with UserInteraction() as ui:
        ui.register_provider(Stubborn())

        async def main() -> None:
            loop = asyncio.get_running_loop()
            started = loop.time()
            with pytest.raises(UserInteractionError) as info:
                await ui.ask(sample_request(), timeout=0.05)
            assert info.value.code == ASK_TIMEOUT
            assert loop.time() - started < 4  # released after the grace, not its 5 s

        asyncio.run(main())
