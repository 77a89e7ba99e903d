from __future__ import annotations

import asyncio
import gc
import threading
from typing import Callable

import pytest

from user_interaction import (
    ASK_ABORTED,
    ASK_TIMEOUT,
    AbortController,
    AbortSignal,
    UserInteractionError,
)


def test_abort_sets_state_and_default_reason() -> None:
    controller = AbortController()
    signal = controller.signal
    assert not signal.aborted
    assert signal.reason is None
    signal.throw_if_aborted()  # nothing yet
    controller.abort()
    assert signal.aborted
    assert isinstance(signal.reason, UserInteractionError)
    assert signal.reason.code == ASK_ABORTED
    with pytest.raises(UserInteractionError) as info:
        signal.throw_if_aborted()
    assert info.value is signal.reason


def test_abort_is_once_and_keeps_the_first_reason() -> None:
    controller = AbortController()
    controller.abort("first")
    controller.abort("second")
    assert controller.signal.reason == "first"
    with pytest.raises(UserInteractionError) as info:
        controller.signal.throw_if_aborted()
    assert info.value.code == ASK_ABORTED
    assert "first" in info.value.message


def test_exception_reason_is_raised_as_is() -> None:
    controller = AbortController()
    reason = KeyError("k")
    controller.abort(reason)
    with pytest.raises(KeyError):
        controller.signal.throw_if_aborted()


def test_callbacks_run_once_and_can_be_removed() -> None:
    controller = AbortController()
    calls: list[str] = []
    controller.signal.add_callback(lambda: calls.append("a"))
    remove = controller.signal.add_callback(lambda: calls.append("b"))

    def listener() -> None:
        calls.append("c")

    controller.signal.add_callback(listener)
    remove()
    remove()  # harmless twice
    controller.signal.remove_callback(listener)
    controller.abort()
    controller.abort()
    assert calls == ["a"]
    late: list[int] = []
    controller.signal.add_callback(lambda: late.append(1))  # already aborted: at once
    assert late == [1]


def test_a_failing_callback_does_not_stop_the_others(caplog: pytest.LogCaptureFixture) -> None:
    controller = AbortController()
    calls: list[int] = []

    def broken() -> None:
        raise RuntimeError("listener bug")

    controller.signal.add_callback(broken)
    controller.signal.add_callback(lambda: calls.append(1))
    controller.abort()
    assert calls == [1]
    assert "listener bug" in caplog.text


def test_abort_from_another_thread_wakes_an_asyncio_waiter() -> None:
    controller = AbortController()

    async def main() -> object:
        threading.Timer(0.05, controller.abort, args=("bye",)).start()
        return await asyncio.wait_for(controller.signal.wait(), 5)

    assert asyncio.run(main()) == "bye"


def test_wait_returns_at_once_when_already_aborted() -> None:
    assert asyncio.run(AbortSignal.abort("done").wait()) == "done"


def test_timeout_fires_without_an_event_loop() -> None:
    signal = AbortSignal.timeout(0.05)
    fired = threading.Event()
    signal.add_callback(fired.set)
    assert fired.wait(60)
    assert signal.aborted
    assert isinstance(signal.reason, UserInteractionError)
    assert signal.reason.code == ASK_TIMEOUT


def test_timeout_fires_inside_asyncio_too() -> None:
    async def main() -> object:
        return await asyncio.wait_for(AbortSignal.timeout(0.01).wait(), 60)

    reason = asyncio.run(main())
    assert isinstance(reason, UserInteractionError)
    assert reason.code == ASK_TIMEOUT


def hold_the_timer_thread(gate: threading.Event) -> AbortSignal:
    """Keep the timer thread (which fires every timeout signal) busy until ``gate`` is set:
    a test can then set timeouts up, callbacks included, before any of them fires, however
    long a busy machine takes over the setup. Returns the holding signal (the timer holds
    its signals weakly: keep it)."""
    me = threading.current_thread()
    held = threading.Event()
    ran_here: list[bool] = []

    def hold() -> None:
        if threading.current_thread() is me:  # it had fired already: add_callback ran it
            ran_here.append(True)
            return
        held.set()
        gate.wait(60)

    while True:
        holder = AbortSignal.timeout(0.001)
        holder.add_callback(hold)
        if not ran_here:
            assert held.wait(60)
            return holder
        ran_here.clear()


def test_timeouts_fire_in_deadline_order() -> None:
    order: list[float] = []
    done = threading.Event()
    gate = threading.Event()
    holder = hold_the_timer_thread(gate)
    delays = (0.15, 0.05, 0.1)
    signals = [AbortSignal.timeout(delay) for delay in delays]
    for delay, signal in zip(delays, signals):
        signal.add_callback(lambda delay=delay: order.append(delay))
    signals[0].add_callback(done.set)
    gate.set()  # every deadline may have passed by now: they fire in deadline order
    assert done.wait(60)
    # the order of the deadlines: 0.05, 0.1, 0.15 unless the setup stalled for 50 ms
    deadlines = [delay for _, delay in sorted(zip((s.deadline or 0 for s in signals), delays))]
    assert order == deadlines
    assert holder.aborted


@pytest.mark.parametrize("bad", [-1, float("nan")])
def test_timeout_rejects_bad_values(bad: float) -> None:
    with pytest.raises(ValueError):
        AbortSignal.timeout(bad)


def test_any_follows_the_first_source() -> None:
    first, second = AbortController(), AbortController()
    combined = AbortSignal.any([first.signal, second.signal])
    assert not combined.aborted
    second.abort("two")
    assert combined.aborted
    assert combined.reason == "two"
    first.abort("one")
    assert combined.reason == "two"


def test_any_of_an_aborted_signal_is_aborted_at_once() -> None:
    combined = AbortSignal.any([AbortController().signal, AbortSignal.abort("x")])
    assert combined.aborted
    assert combined.reason == "x"


def test_any_with_a_timeout() -> None:
    combined = AbortSignal.any([AbortController().signal, AbortSignal.timeout(0.02)])
    fired = threading.Event()
    combined.add_callback(fired.set)
    assert fired.wait(60)
    assert isinstance(combined.reason, UserInteractionError)
    assert combined.reason.code == ASK_TIMEOUT


def test_any_does_not_keep_a_dropped_combination_alive() -> None:
    source = AbortController()
    combined = AbortSignal.any([source.signal])
    import weakref

    ref = weakref.ref(combined)
    del combined
    gc.collect()
    assert ref() is None
    source.abort()  # the forwarding callback finds nothing to fire: no error


def test_many_threads_abort_at_once_callbacks_run_once() -> None:
    controller = AbortController()
    calls: list[int] = []
    controller.signal.add_callback(lambda: calls.append(1))
    barrier = threading.Barrier(16)

    def hammer() -> None:
        barrier.wait()
        controller.abort()

    threads = [threading.Thread(target=hammer) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == [1]


def test_repr() -> None:
    controller = AbortController()
    assert "pending" in repr(controller.signal)
    controller.abort("r")
    assert "aborted" in repr(controller)


# -- durations of any length ----------------------------------------------------------


@pytest.mark.parametrize("huge", [1e10, 1e300, float("inf")])
def test_a_huge_timeout_never_fires_and_never_disturbs_other_timers(huge: float) -> None:
    never = AbortSignal.timeout(huge)
    soon = AbortSignal.timeout(0.01)
    fired = threading.Event()
    soon.add_callback(fired.set)
    assert fired.wait(60)  # the timer thread survived the huge one
    later = AbortSignal.timeout(0.01)  # ... and keeps serving new timers
    fired.clear()
    later.add_callback(fired.set)
    assert fired.wait(60)
    assert not never.aborted


def test_dropped_timeout_signals_do_not_pile_up() -> None:
    import tracemalloc

    def make(count: int) -> None:
        for _ in range(count):
            AbortSignal.timeout(1e6)

    make(5_000)  # warm up: the heap reaches its swept size
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        make(50_000)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 1_000_000, f"{grown} bytes kept for 50,000 dropped timeout signals"


def test_any_leaves_nothing_on_a_long_lived_source() -> None:
    import tracemalloc

    shutdown = AbortController()

    def ask_many(count: int) -> None:
        for _ in range(count):
            per_ask = AbortController()
            combined = AbortSignal.any([shutdown.signal, per_ask.signal])
            assert not combined.aborted

    ask_many(1_000)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        ask_many(100_000)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 200_000, f"{grown} bytes left on the long-lived signal by 100k asks"
    fired: list[int] = []
    shutdown.signal.add_callback(lambda: fired.append(1))
    shutdown.abort()  # nothing stale is left to call
    assert fired == [1]


def finishes(work: Callable[[], object], seconds: float = 10.0) -> bool:
    """Whether ``work()`` returns within ``seconds`` (run on a daemon thread, so a deadlock
    fails the test instead of hanging it); what it raises is raised here."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if raised:
        raise raised[0]
    return not thread.is_alive()


def test_a_combined_signal_freed_while_its_source_is_busy_does_not_deadlock() -> None:
    """A combined signal's clean-up can run in the middle of its source's own bookkeeping,
    on the same thread: its last reference dropped there, or a garbage collection
    triggered there. It deadlocked on the source's lock (a test run hung for good)."""
    source = AbortController()

    def callback_holding_the_only_reference() -> Callable[[], None]:
        combined = AbortSignal.any([source.signal])
        return source.signal.add_callback(lambda: combined)

    remove = callback_holding_the_only_reference()
    assert finishes(remove), "removing the callback deadlocked"
    fired: list[int] = []
    source.signal.add_callback(lambda: fired.append(1))
    source.abort()  # neither the removed callback nor the freed combined signal is left
    assert fired == [1]


def test_a_signal_freed_by_a_comparison_in_remove_callback_is_handled() -> None:
    """remove_callback() compares callbacks with ==, which may run any code (and free a
    combined signal of the same source) while it looks through them."""
    source = AbortController()
    calls: list[str] = []

    class DropsOnCompare:
        def __init__(self, payload: object) -> None:
            self.payload: object = payload

        def __call__(self) -> None:
            calls.append("dropping")

        def __eq__(self, other: object) -> bool:
            self.payload = None  # the combined signal's last reference
            return False

        __hash__ = None  # type: ignore[assignment]

    dropping = DropsOnCompare(AbortSignal.any([source.signal]))
    source.signal.add_callback(dropping)
    source.signal.add_callback(lambda: calls.append("other"))
    assert finishes(lambda: source.signal.remove_callback(print)), "remove_callback deadlocked"
    assert dropping.payload is None  # the comparison ran, and freed the combined signal
    source.abort()
    assert calls == ["dropping", "other"]  # only the freed signal's forwarder is gone


# -- the provider toolkit: error() and race() -----------------------------------------


def test_error_is_the_reason_when_it_is_a_user_interaction_error() -> None:
    timeout = UserInteractionError("Timed out.", ASK_TIMEOUT)
    controller = AbortController()
    controller.abort(timeout)
    assert controller.signal.error() is timeout


def test_error_wraps_other_reasons_as_ask_aborted() -> None:
    controller = AbortController()
    cause = OSError("gone")
    controller.abort(cause)
    error = controller.signal.error()
    assert error.code == ASK_ABORTED
    assert error.__cause__ is cause
    plain = AbortController()
    plain.abort("user pressed stop")
    assert plain.signal.error().message == "The ask was aborted: user pressed stop"
    assert plain.signal.error().__cause__ is None


def test_error_before_the_signal_fired_is_a_runtime_error() -> None:
    with pytest.raises(RuntimeError):
        AbortController().signal.error()


def test_race_returns_the_result_when_the_awaitable_wins() -> None:
    async def main() -> str:
        async def quick() -> str:
            return "done"

        return await AbortController().signal.race(quick())

    assert asyncio.run(main()) == "done"


def test_race_cancels_the_awaitable_and_raises_when_the_signal_wins() -> None:
    unwound: list[bool] = []

    async def slow() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            unwound.append(True)

    async def main() -> None:
        controller = AbortController()
        threading.Timer(0.02, controller.abort, ["stop"]).start()  # from another thread
        with pytest.raises(UserInteractionError) as info:
            await controller.signal.race(slow())
        assert info.value.code == ASK_ABORTED

    asyncio.run(main())
    assert unwound == [True]


def test_race_on_an_aborted_signal_never_starts_the_awaitable() -> None:
    started: list[bool] = []

    async def work() -> None:
        started.append(True)

    async def main() -> None:
        controller = AbortController()
        controller.abort(UserInteractionError("late", ASK_TIMEOUT))
        with pytest.raises(UserInteractionError) as info:
            await controller.signal.race(work())  # closed, no "never awaited" warning
        assert info.value.code == ASK_TIMEOUT

    asyncio.run(main())
    assert started == []


def test_race_lets_the_callers_own_cancellation_through() -> None:
    async def main() -> None:
        signal = AbortController().signal
        task = asyncio.ensure_future(signal.race(asyncio.sleep(3600)))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
