"""Benchmark of user-interaction against its baselines: a report, never a test.

Run ``python bench/bench.py`` (about 2-3 minutes) or ``python bench/bench.py --quick``
(under about 30 seconds). Every figure is the median of several samples, each sample a
timeit-style loop of many calls; the baselines are measured in the same run, interleaved
with the candidates, so machine noise hits both alike. See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from functools import partial
from pathlib import Path
from typing import Any, Awaitable, Callable

import pluggy

try:
    import user_interaction
    from user_interaction import (
        AbortController,
        AskUserQuestionAnswer,
        AskUserQuestionAnswerItem,
        AskUserQuestionItem,
        AskUserQuestionOption,
        AskUserQuestionRequest,
        UserInteraction,
    )
    from user_interaction._ask import Ask  # the one ask path, for the "before" baseline
    from user_interaction._validation import check_answer, validate_request
except Exception:  # nothing to measure, but a report still exits 0
    traceback.print_exc()
    print("bench: user_interaction does not import; nothing was measured")
    sys.exit(0)

GROUP = "user_interaction.providers"
perf_counter = time.perf_counter


# -- configuration ---------------------------------------------------------------------------


class Config:
    """Loop sizes; ``--quick`` shrinks them all."""

    def __init__(self, quick: bool) -> None:
        self.quick = quick
        scale = 5 if quick else 1
        self.repeats = 5 if quick else 7
        self.ask_n = 20_000 // scale  # async asks per sample
        self.sync_provider_n = 400 // scale  # asks of a provider that runs on a thread
        self.pluggy_n = 100_000 // scale
        self.direct_n = 400_000 // scale
        self.ask_sync_n = 1_000 // scale
        self.asyncio_run_n = 200 // scale
        self.pending = 10_000
        self.import_repeats = 7 if quick else 21
        self.importtime_repeats = 3 if quick else 5
        self.dists = 1000
        self.cold_repeats = 5 if quick else 11
        self.scan_calls = 2 if quick else 5  # stdlib scans per in-process sample
        self.reloads = 10 if quick else 30  # edits + reloads per sample
        # memory checkpoints: (early, late) cycle counts
        self.register_cycles = (1_000, 10_000) if quick else (10_000, 100_000)
        self.ask_cycles = (5_000, 50_000) if quick else (10_000, 100_000)


# -- helpers ---------------------------------------------------------------------------------


def median(values: list[float]) -> float:
    return statistics.median(values)


def fmt_time(seconds: float) -> str:
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def fmt_ratio(value: float) -> str:
    return f"{value:.2f}x"


def heading(title: str) -> None:
    print()
    print(f"== {title} " + "=" * max(0, 86 - len(title)))


class Samples:
    """Per-call times of named cases, measured round-robin over the repeats."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = {}
        self.iterations: dict[str, float | None] = {}

    def add(self, name: str, total: float, calls: int) -> None:
        self.times.setdefault(name, []).append(total / calls)

    def median(self, name: str) -> float:
        return median(self.times[name])

    def spread(self, name: str) -> str:
        values = self.times[name]
        return f"[{fmt_time(min(values))} .. {fmt_time(max(values))}]"


class Summary:
    """The rows of the final table."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str, str]] = []

    def add(
        self,
        metric: str,
        value: str,
        baseline: str,
        ratio: str,
        target: str,
        verdict: str,
    ) -> None:
        self.rows.append((metric, value, baseline, ratio, target, verdict))

    def ratio_row(
        self, metric: str, value: float, base: float, base_name: str, limit: float | None
    ) -> None:
        ratio = value / base
        if limit is None:
            target, verdict = "(info)", "-"
        else:
            target = f"≤{limit:g}x {base_name}"
            verdict = "MET" if ratio <= limit else "MISSED"
        self.add(metric, fmt_time(value), fmt_time(base), fmt_ratio(ratio), target, verdict)

    def print(self) -> None:
        header = ("metric", "median", "baseline", "ratio", "target", "verdict")
        widths = [max(len(row[i]) for row in [header, *self.rows]) for i in range(len(header))]
        line = "  ".join("-" * width for width in widths)
        print(line)
        for index, row in enumerate([header, *self.rows]):
            cells = [
                cell.ljust(width) if column in (0, 4) else cell.rjust(width)
                for column, (cell, width) in enumerate(zip(row, widths))
            ]
            print("  ".join(cells).rstrip())
            if index == 0:
                print(line)
        print(line)


# -- the request, the providers, the pluggy baseline -----------------------------------------

QUESTION = AskUserQuestionItem(
    id="pkg",
    question="Which package manager?",
    header="Setup",
    options=(AskUserQuestionOption("pnpm", "fast"), AskUserQuestionOption("npm")),
)
REQUEST = AskUserQuestionRequest((QUESTION,))
ANSWER = AskUserQuestionAnswer((AskUserQuestionAnswerItem("pkg", ("pnpm",)),))


class AsyncProvider:
    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        return ANSWER


class SyncProvider:
    def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        return ANSWER


_spec = pluggy.HookspecMarker("bench")
_impl = pluggy.HookimplMarker("bench")


class BaselineSpec:
    @_spec(firstresult=True)
    def ask(self, request: AskUserQuestionRequest) -> Any: ...


class BaselineImpl:
    @_impl
    def ask(self, request: AskUserQuestionRequest) -> Any:
        return ANSWER


def baseline_manager() -> pluggy.PluginManager:
    manager = pluggy.PluginManager("bench")
    manager.add_hookspecs(BaselineSpec)
    manager.register(BaselineImpl())
    return manager


# -- 1. ask --------------------------------------------------------------------------------


def loop_pluggy(pm: pluggy.PluginManager, request: AskUserQuestionRequest, n: int) -> float:
    start = perf_counter()
    for _ in range(n):
        pm.hook.ask(request=request)
    return perf_counter() - start


def loop_direct(provider: SyncProvider, request: AskUserQuestionRequest, n: int) -> float:
    start = perf_counter()
    for _ in range(n):
        provider.ask(request)
    return perf_counter() - start


async def loop_await_direct(
    provider: AsyncProvider, request: AskUserQuestionRequest, n: int
) -> float:
    start = perf_counter()
    for _ in range(n):
        await provider.ask(request)
    return perf_counter() - start


async def loop_to_thread(provider: SyncProvider, request: AskUserQuestionRequest, n: int) -> float:
    start = perf_counter()
    for _ in range(n):
        await asyncio.to_thread(provider.ask, request)
    return perf_counter() - start


class KeptWorker:
    """The floor of any sync provider call from a loop: one kept thread, woken by a lock,
    answering through ``call_soon_threadsafe`` (two thread wake-ups, nothing else)."""

    def __init__(self, provider: SyncProvider) -> None:
        self._provider = provider
        self._wake = threading.Lock()
        self._wake.acquire()
        self._job: tuple[asyncio.AbstractEventLoop, asyncio.Future[Any]] | None = None
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            self._wake.acquire()
            assert self._job is not None
            loop, future = self._job
            loop.call_soon_threadsafe(future.set_result, self._provider.ask(REQUEST))

    async def call(self) -> Any:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._job = (loop, future)
        self._wake.release()
        return await future


async def loop_kept_worker(worker: KeptWorker, n: int) -> float:
    start = perf_counter()
    for _ in range(n):
        await worker.call()
    return perf_counter() - start


async def loop_floor(
    provider: AsyncProvider, request: AskUserQuestionRequest, n: int, timeout: float | None
) -> float:
    """The least any ask that lets an abort win needs: the provider as a task of its own,
    awaited under ``asyncio.wait_for``."""
    loop = asyncio.get_running_loop()
    start = perf_counter()
    for _ in range(n):
        await asyncio.wait_for(loop.create_task(provider.ask(request)), timeout)
    return perf_counter() - start


async def floor_ask(
    make: Callable[[], Awaitable[AskUserQuestionAnswer]],
    request: AskUserQuestionRequest = REQUEST,
) -> AskUserQuestionAnswer:
    """The least one whole ask needs: the checks every ask must make (the request before
    the provider is called, its answer after) around the floor's task under ``wait_for``."""
    validate_request(request)
    answer = await asyncio.wait_for(asyncio.ensure_future(make()), None)
    assert not check_answer(request, answer)
    return answer


async def loop_floor_checked(
    provider: AsyncProvider, request: AskUserQuestionRequest, n: int
) -> float:
    """:func:`floor_ask`'s steps inline, so that no coroutine of its own adds to the floor
    (what ``ask()`` adds beyond them is its own machinery)."""
    loop = asyncio.get_running_loop()
    start = perf_counter()
    for _ in range(n):
        validate_request(request)
        answer = await asyncio.wait_for(loop.create_task(provider.ask(request)), None)
        assert not check_answer(request, answer)
    return perf_counter() - start


async def loop_ask(ui: UserInteraction, request: AskUserQuestionRequest, n: int) -> float:
    start = perf_counter()
    for _ in range(n):
        await ui.ask(request)
    return perf_counter() - start


async def loop_ask_pool(ui: UserInteraction, pool: list[AskUserQuestionRequest], n: int) -> float:
    mask = len(pool) - 1
    start = perf_counter()
    for index in range(n):
        await ui.ask(pool[index & mask])
    return perf_counter() - start


def request_pool(size: int = 64) -> list[AskUserQuestionRequest]:
    """Equal requests that are distinct objects (no tuple shared): nothing cached helps."""
    return [
        AskUserQuestionRequest(
            (
                AskUserQuestionItem(
                    id="pkg",
                    question="Which package manager?",
                    header="Setup",
                    options=(AskUserQuestionOption("pnpm", "fast"), AskUserQuestionOption("npm")),
                ),
            )
        )
        for _ in range(size)
    ]


async def loop_ask_timeout(ui: UserInteraction, request: AskUserQuestionRequest, n: int) -> float:
    start = perf_counter()
    for _ in range(n):
        await ui.ask(request, timeout=30)
    return perf_counter() - start


ASK_CASES = (
    ("pluggy firstresult hook call", "pluggy"),
    ("direct method call", "direct"),
    ("await provider.ask() (no task)", "await"),
    ("bare task under wait_for (floor)", "floor"),
    ("... with timeout=30 (floor)", "floor+timeout"),
    ("floor + the request's and answer's checks", "floor+checks"),
    ("await ui.ask(req)", "ask"),
    ("await ui.ask(a new equal req each)", "ask+fresh"),
    ("await ui.ask(req with signal)", "ask+signal"),
    ("await ui.ask(req, timeout=30)", "ask+timeout"),
    ("asyncio.to_thread(provider.ask, req)", "to_thread"),
    ("bare kept-thread handoff (floor)", "handoff"),
    ("sync provider: await ui.ask(req)", "sync"),
    ("sync provider: with signal", "sync+signal"),
    ("sync provider: timeout=30", "sync+timeout"),
)


async def measure_ask(cfg: Config) -> Samples:
    pm = baseline_manager()
    direct = SyncProvider()
    floor = AsyncProvider()
    ui_async = UserInteraction()
    ui_async.register_provider(AsyncProvider())
    ui_sync = UserInteraction()
    ui_sync.register_provider(SyncProvider())
    with_signal = AskUserQuestionRequest((QUESTION,), signal=AbortController().signal)
    pool = request_pool()
    worker = KeptWorker(direct)

    for ui in (ui_async, ui_sync):  # both paths answer correctly before anything is timed
        assert await ui.ask(REQUEST) == ANSWER
        assert await ui.ask(with_signal) == ANSWER
        assert await ui.ask(REQUEST, timeout=30) == ANSWER
    assert pm.hook.ask(request=REQUEST) is ANSWER

    cases: dict[str, Callable[[], Any]] = {
        "pluggy": lambda: loop_pluggy(pm, REQUEST, cfg.pluggy_n),
        "direct": lambda: loop_direct(direct, REQUEST, cfg.direct_n),
        "await": lambda: loop_await_direct(floor, REQUEST, cfg.ask_n),
        "floor": lambda: loop_floor(floor, REQUEST, cfg.ask_n, None),
        "floor+timeout": lambda: loop_floor(floor, REQUEST, cfg.ask_n, 30),
        "floor+checks": lambda: loop_floor_checked(floor, REQUEST, cfg.ask_n),
        "ask": lambda: loop_ask(ui_async, REQUEST, cfg.ask_n),
        "ask+fresh": lambda: loop_ask_pool(ui_async, pool, cfg.ask_n),
        "ask+signal": lambda: loop_ask(ui_async, with_signal, cfg.ask_n),
        "ask+timeout": lambda: loop_ask_timeout(ui_async, REQUEST, cfg.ask_n),
        "to_thread": lambda: loop_to_thread(direct, REQUEST, cfg.sync_provider_n),
        "handoff": lambda: loop_kept_worker(worker, cfg.sync_provider_n),
        "sync": lambda: loop_ask(ui_sync, REQUEST, cfg.sync_provider_n),
        "sync+signal": lambda: loop_ask(ui_sync, with_signal, cfg.sync_provider_n),
        "sync+timeout": lambda: loop_ask_timeout(ui_sync, REQUEST, cfg.sync_provider_n),
    }
    calls = {
        "pluggy": cfg.pluggy_n,
        "direct": cfg.direct_n,
        "to_thread": cfg.sync_provider_n,
        "handoff": cfg.sync_provider_n,
        "sync": cfg.sync_provider_n,
        "sync+signal": cfg.sync_provider_n,
        "sync+timeout": cfg.sync_provider_n,
    }
    samples = Samples()
    for run in cases.values():  # warm-up
        outcome = run()
        if asyncio.iscoroutine(outcome):
            await outcome
    for _ in range(cfg.repeats):
        for name, run in cases.items():
            gc.collect()
            gc.disable()
            try:
                outcome = run()
                total = await outcome if asyncio.iscoroutine(outcome) else outcome
            finally:
                gc.enable()
            samples.add(name, total, calls.get(name, cfg.ask_n))
            await asyncio.sleep(0)  # let the loop run its housekeeping between samples
    samples.iterations = {
        "ask": await loop_iterations(lambda: ui_async.ask(REQUEST)),
        "ask+signal": await loop_iterations(lambda: ui_async.ask(with_signal)),
        "ask+timeout": await loop_iterations(lambda: ui_async.ask(REQUEST, timeout=30)),
    }
    ui_async.close()
    ui_sync.close()
    return samples


async def loop_iterations(ask: Callable[[], Any], calls: int = 200) -> float | None:
    """Event-loop iterations (selector polls) per ask: each one is a trip through the loop."""
    selector = getattr(asyncio.get_running_loop(), "_selector", None)
    if selector is None:
        return None
    count = 0
    select = selector.select

    def counting(timeout: float | None = None) -> Any:
        nonlocal count
        count += 1
        return select(timeout)

    selector.select = counting
    try:
        for _ in range(calls):
            await ask()
    finally:
        del selector.select
    return count / calls


def report_ask(samples: Samples, summary: Summary) -> None:
    heading("1. per-call cost of ask() (one running loop) vs its floor and a pluggy hook call")
    base = samples.median("pluggy")
    floor = samples.median("floor")
    print(f"{'case':<36} {'median':>10} {'x floor':>8} {'x pluggy':>9}  spread of samples")
    for label, name in ASK_CASES:
        value = samples.median(name)
        print(
            f"{label:<36} {fmt_time(value):>10} {value / floor:>7.2f}x {value / base:>8.2f}x  "
            f"{samples.spread(name)}"
        )
    loops = ", ".join(f"{name} {value:g}" for name, value in samples.iterations.items())
    print(f"event-loop iterations per ask (async provider): {loops}")
    summary.ratio_row("ask (async, no signal)", samples.median("ask"), floor, "floor", 1.5)
    summary.ratio_row(
        "ask (async, timeout=30)",
        samples.median("ask+timeout"),
        samples.median("floor+timeout"),
        "floor(30)",
        1.5,
    )
    summary.ratio_row("ask (async, signal)", samples.median("ask+signal"), floor, "floor", None)
    summary.ratio_row(
        "ask (async, a new request each)", samples.median("ask+fresh"), floor, "floor", None
    )
    summary.ratio_row("ask (async, no signal)", samples.median("ask"), base, "pluggy", None)
    summary.ratio_row(
        "ask (async, no signal)",
        samples.median("ask"),
        samples.median("floor+checks"),
        "floor+checks",
        None,
    )
    threaded = samples.median("to_thread")
    summary.ratio_row("ask (sync provider)", samples.median("sync"), threaded, "to_thread", 1.2)
    summary.ratio_row(
        "bare kept-thread handoff (floor)", samples.median("handoff"), threaded, "to_thread", None
    )
    summary.ratio_row(
        "ask (sync provider, signal)", samples.median("sync+signal"), threaded, "to_thread", None
    )
    summary.ratio_row(
        "ask (sync provider, timeout)", samples.median("sync+timeout"), threaded, "to_thread", None
    )


# -- 2. ask_sync ---------------------------------------------------------------------------


def loop_ask_sync(ui: UserInteraction, n: int) -> float:
    start = perf_counter()
    for _ in range(n):
        ui.ask_sync(REQUEST)
    return perf_counter() - start


def loop_asyncio_run(make: Callable[[], Any], n: int) -> float:
    start = perf_counter()
    for _ in range(n):
        asyncio.run(make())
    return perf_counter() - start


EAGER = sys.version_info >= (3, 12)


class KeptLoop:
    """The floor of any ``ask_sync()``: a kept loop thread that runs the same provider
    call as a task started by ``call_soon_threadsafe`` and wakes the caller through a
    lock (two thread wake-ups, nothing else)."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    def call(self) -> Any:
        done = threading.Lock()
        done.acquire()
        outcome: list[Any] = []

        async def run() -> None:
            outcome.append(await self._make())
            done.release()

        if EAGER:  # as ask_sync() starts its task: no loop iteration before the call
            self.loop.call_soon_threadsafe(
                lambda: asyncio.Task(run(), loop=self.loop, eager_start=True)
            )
        else:
            self.loop.call_soon_threadsafe(self.loop.create_task, run())
        done.acquire()
        return outcome[0]

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)


def loop_kept_loop(kept: KeptLoop, n: int) -> float:
    start = perf_counter()
    for _ in range(n):
        kept.call()
    return perf_counter() - start


def measure_ask_sync(cfg: Config, summary: Summary) -> None:
    heading("2. ui.ask_sync(req) vs asyncio.run() of the same provider call, per call")
    samples = Samples()
    async_provider, sync_provider = AsyncProvider(), SyncProvider()
    runs: dict[str, Callable[[], Any]] = {  # the same provider call, run by asyncio.run()
        "async": lambda: async_provider.ask(REQUEST),
        "sync": lambda: asyncio.to_thread(sync_provider.ask, REQUEST),
    }
    kept = {kind: KeptLoop(make) for kind, make in runs.items()}
    # The same loop running the least a whole ask needs: section 1's floor with its checks
    # (the call as a task under wait_for, the request checked before, the answer after).
    asks = {kind: KeptLoop(partial(floor_ask, make)) for kind, make in runs.items()}
    with UserInteraction() as ui_async, UserInteraction() as ui_sync:
        ui_async.register_provider(async_provider)
        ui_sync.register_provider(sync_provider)
        managers = {"async": ui_async, "sync": ui_sync}
        for kind, ui in managers.items():
            assert ui.ask_sync(REQUEST) == ANSWER
            assert kept[kind].call() == ANSWER
            assert asks[kind].call() == ANSWER
            loop_ask_sync(ui, 50)
            loop_kept_loop(kept[kind], 50)
            loop_kept_loop(asks[kind], 50)
            loop_asyncio_run(runs[kind], 5)
        for _ in range(cfg.repeats):
            for kind, ui in managers.items():
                samples.add(f"ask_sync {kind}", loop_ask_sync(ui, cfg.ask_sync_n), cfg.ask_sync_n)
                samples.add(
                    f"kept loop {kind}", loop_kept_loop(kept[kind], cfg.ask_sync_n), cfg.ask_sync_n
                )
                samples.add(
                    f"kept loop {kind}, floor ask",
                    loop_kept_loop(asks[kind], cfg.ask_sync_n),
                    cfg.ask_sync_n,
                )
                samples.add(
                    f"asyncio.run {kind}",
                    loop_asyncio_run(runs[kind], cfg.asyncio_run_n),
                    cfg.asyncio_run_n,
                )
    for loop in (*kept.values(), *asks.values()):
        loop.close()
    for kind in ("async", "sync"):
        base = samples.median(f"asyncio.run {kind}")
        for name in (
            f"asyncio.run {kind}",
            f"kept loop {kind}",
            f"kept loop {kind}, floor ask",
            f"ask_sync {kind}",
        ):
            value = samples.median(name)
            print(f"{name:<36} {fmt_time(value):>10} {value / base:>8.2f}x  {samples.spread(name)}")
        summary.ratio_row(
            f"ask_sync ({kind} provider)", samples.median(f"ask_sync {kind}"), base, "run", 0.5
        )
        summary.ratio_row(
            f"bare kept-loop round trip ({kind}, floor)",
            samples.median(f"kept loop {kind}"),
            base,
            "run",
            None,
        )
        summary.ratio_row(
            f"kept loop + floor ask ({kind})",
            samples.median(f"kept loop {kind}, floor ask"),
            base,
            "run",
            None,
        )


# -- 2b. many pending asks: close() and memory -----------------------------------------------


class IgnoresSignal:
    """Waits on a future that never completes and ignores its signal (only cancellation
    ends it): the same wait as the baseline's bare task."""

    async def ask(self, request: AskUserQuestionRequest) -> AskUserQuestionAnswer:
        await asyncio.get_running_loop().create_future()
        raise AssertionError("unreachable")


def measure_pending(cfg: Config, summary: Summary) -> None:
    heading(f"2b. {cfg.pending:,} asks pending on a provider that ignores its signal")
    import tracemalloc

    async def bare(count: int) -> int:
        """Traced bytes per bare task awaiting a future (the baseline)."""
        loop = asyncio.get_running_loop()
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        futures = [loop.create_future() for _ in range(count)]
        tasks = [asyncio.ensure_future(_await(future)) for future in futures]
        await asyncio.sleep(0)
        used = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        for future in futures:
            future.set_result(None)
        await asyncio.gather(*tasks)
        return used // count

    async def pending(count: int) -> tuple[int, float, set[str], int]:
        ui = UserInteraction()
        ui.register_provider(IgnoresSignal())
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        tasks = [asyncio.ensure_future(ui.ask(REQUEST)) for _ in range(count)]
        for _ in range(3):
            await asyncio.sleep(0)
        used = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        start = perf_counter()
        ui.close()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        elapsed = perf_counter() - start
        codes = {getattr(result, "code", repr(result)) for result in results}
        await asyncio.sleep(0)
        left = len(asyncio.all_tasks()) - 1
        return used // count, elapsed, codes, left

    base = asyncio.run(bare(cfg.pending))
    per_ask, elapsed, codes, left = asyncio.run(pending(cfg.pending))
    print(f"  bare task awaiting a future:        {base:>6} B each")
    print(f"  pending ask (caller + provider):    {per_ask:>6} B each ({per_ask / base:.2f}x)")
    print(f"  close(): every caller answered in {fmt_time(elapsed)}, outcomes {sorted(codes)},")
    print(f"           provider tasks left pending: {left}")
    ok = codes == {"PROVIDER_DISPOSED"} and left == 0
    summary.add(
        f"close() with {cfg.pending:,} pending",
        fmt_time(elapsed),
        "",
        "",
        "all disposed, none left",
        "MET" if ok else "MISSED",
    )
    summary.add(
        "memory per pending ask",
        f"{per_ask} B",
        f"{base} B",
        fmt_ratio(per_ask / base),
        "≤4x bare task",
        "MET" if per_ask <= 4 * base else "MISSED",
    )


async def _await(future: asyncio.Future[None]) -> None:
    await future


# -- 2c. extensions ------------------------------------------------------------------------


class PassThrough:
    """One pass-through ``ask_wrapper``: the least a wrapper costs."""

    @user_interaction.hookimpl
    def ask_wrapper(self, ui: UserInteraction) -> Any:
        def wrap(next_ask: Any) -> Any:
            async def ask(request: AskUserQuestionRequest) -> Any:
                return await next_ask(request)

            return ask

        return wrap


class Count:
    """One ``ask_finished`` observer that counts."""

    def __init__(self) -> None:
        self.count = 0

    @user_interaction.hookimpl
    def ask_finished(self, request: AskUserQuestionRequest) -> None:
        self.count += 1


class Before(UserInteraction):
    """``ask()`` as it was before extensions existed: the checks, then ``Ask``."""

    async def ask(
        self, request: AskUserQuestionRequest, *, timeout: float | None = None
    ) -> AskUserQuestionAnswer:
        self._check(request, timeout)
        return await Ask(self._registration(), request, timeout).run()


EXTENSION_CASES = (
    ("ask path before extensions existed", "before"),
    ("await ui.ask(req), no extension", "none"),
    ("one pass-through wrapper + observer", "both"),
    ("one observer only", "observer"),
    ("wrapper + observer, timeout=30", "both+timeout"),
    ("floor: no ext. + thread round trip", "none+handoff"),
)


async def loop_ask_handoff(
    ui: UserInteraction, worker: KeptWorker, request: AskUserQuestionRequest, n: int
) -> float:
    """An ask with no extension, then one bare kept-thread round trip: the least an ask
    whose observers run off the caller's thread (as they do) can cost."""
    start = perf_counter()
    for _ in range(n):
        await ui.ask(request)
        await worker.call()
    return perf_counter() - start


async def measure_extension_asks(cfg: Config) -> Samples:
    worker = KeptWorker(SyncProvider())
    before = Before()
    before.register_provider(AsyncProvider())
    plain = UserInteraction()
    plain.register_provider(AsyncProvider())
    both = UserInteraction()
    both.register_provider(AsyncProvider())
    both.add_extension(PassThrough())
    counter = Count()
    both.add_extension(counter)
    observed = UserInteraction()
    observed.register_provider(AsyncProvider())
    observed.add_extension(Count())
    for ui in (before, plain, both, observed):
        assert await ui.ask(REQUEST) == ANSWER
    assert counter.count == 1
    assert plain._chain is None  # no extension: the plain path
    cases: dict[str, Callable[[], Any]] = {
        "before": lambda: loop_ask(before, REQUEST, cfg.ask_n),
        "none": lambda: loop_ask(plain, REQUEST, cfg.ask_n),
        "both": lambda: loop_ask(both, REQUEST, cfg.ask_n),
        "observer": lambda: loop_ask(observed, REQUEST, cfg.ask_n),
        "both+timeout": lambda: loop_ask_timeout(both, REQUEST, cfg.ask_n),
        "none+handoff": lambda: loop_ask_handoff(plain, worker, REQUEST, cfg.ask_n),
    }
    samples = Samples()
    for run in cases.values():  # warm-up
        await run()
    for _ in range(cfg.repeats):
        for name, run in cases.items():
            gc.collect()
            gc.disable()
            try:
                total = await run()
            finally:
                gc.enable()
            samples.add(name, total, cfg.ask_n)
            await asyncio.sleep(0)
    for ui in (before, plain, both, observed):
        ui.close()
    return samples


def threads_rate(call: Callable[[], Any], per_thread: int, threads: int = 8) -> float:
    """Calls per second of ``call`` made ``per_thread`` times by each of ``threads``."""
    import threading

    start = threading.Barrier(threads + 1)

    def worker() -> None:
        start.wait()
        for _ in range(per_thread):
            call()

    workers = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in workers:
        thread.start()
    start.wait()
    began = perf_counter()
    for thread in workers:
        thread.join()
    return threads * per_thread / (perf_counter() - began)


def valid_lines(path: Path, expected: int) -> bool:
    import json

    lines = path.read_bytes().splitlines()
    try:
        for line in lines:
            json.loads(line)
    except ValueError:
        return False
    return len(lines) == expected


def measure_audit(cfg: Config) -> dict[str, tuple[float, bool]]:
    """``AuditLog`` from 8 threads: its own rate (each thread writing the line of an ask it
    finished, as an ``ask_sync`` caller's thread does), and whole ``ask_sync`` calls with
    and without it. Each rate is the median of the repeats."""
    from user_interaction.extensions import AuditLog

    per_thread = 2_000 if cfg.quick else 5_000
    asks = per_thread // 4
    rates: dict[str, list[float]] = {"writes": [], "asks+audit": [], "asks": []}
    valid = {"writes": True, "asks+audit": True, "asks": True}
    with tempfile.TemporaryDirectory(prefix="ui-bench-audit-") as root:
        for repeat in range(cfg.repeats):
            path = Path(root) / f"writes-{repeat}.jsonl"
            writer = AuditLog(path)
            line = writer.ask_finished
            rates["writes"].append(
                threads_rate(partial(line, REQUEST, ANSWER, None, "b", 1e-5), per_thread)
            )
            writer.close()
            valid["writes"] &= valid_lines(path, 8 * per_thread)
            path = Path(root) / f"asks-{repeat}.jsonl"
            with UserInteraction() as ui:
                ui.register_provider(AsyncProvider())
                ui.ask_sync(REQUEST)
                rates["asks"].append(threads_rate(lambda: ui.ask_sync(REQUEST), asks))
                audit = AuditLog(path)
                ui.add_extension(audit)
                rates["asks+audit"].append(threads_rate(lambda: ui.ask_sync(REQUEST), asks))
                audit.close()
            valid["asks+audit"] &= valid_lines(path, 8 * asks)
    return {name: (median(values), valid[name]) for name, values in rates.items()}


def measure_extensions(cfg: Config, summary: Summary) -> None:
    heading("2c. extensions: the cost of none, of one wrapper + observer; AuditLog throughput")
    samples = asyncio.run(measure_extension_asks(cfg))
    base = samples.median("none")
    print(f"{'case':<40} {'median':>10} {'x no ext.':>9}  spread of samples")
    for label, name in EXTENSION_CASES:
        value = samples.median(name)
        print(f"{label:<40} {fmt_time(value):>10} {value / base:>8.2f}x  {samples.spread(name)}")
    summary.ratio_row(
        "ask, no extension (vs before)", base, samples.median("before"), "before", 1.05
    )
    # Observers run on a worker thread (a blocking or raising one never holds the caller),
    # so the least an observed ask costs is the plain ask plus one thread round trip.
    floor = samples.median("none+handoff")
    summary.ratio_row("ask, wrapper + observer", samples.median("both"), floor, "floor", 1.5)
    summary.ratio_row("floor: no ext. + thread round trip", floor, base, "no ext.", None)
    summary.ratio_row("ask, observer only", samples.median("observer"), base, "no ext.", None)
    audit = measure_audit(cfg)
    labels = {
        "writes": "AuditLog lines written by 8 threads",
        "asks": "ask_sync from 8 threads, no extension",
        "asks+audit": "ask_sync from 8 threads, with AuditLog",
    }
    for name, label in labels.items():
        rate, valid = audit[name]
        print(f"{label:<40} {rate:>10,.0f}/s  every line valid JSON: {valid}")
    rate, valid = audit["writes"]
    verdict = "MET" if rate >= 20_000 and valid else "MISSED"
    summary.add(
        "AuditLog lines from 8 threads", f"{rate:,.0f}/s", "", "", "≥20,000/s, valid", verdict
    )
    rate, valid = audit["asks+audit"]
    base_rate = audit["asks"][0]
    summary.add(
        "ask_sync+AuditLog, 8 threads",
        f"{rate:,.0f}/s",
        f"{base_rate:,.0f}/s",
        fmt_ratio(base_rate / rate),
        "(info)",
        "-",
    )


# -- 3. import time ------------------------------------------------------------------------


def child_env(cache: str) -> dict[str, str]:
    """The environment of every child interpreter: byte-code cached, as in a real install.

    A checkout run with ``PYTHONDONTWRITEBYTECODE`` would recompile user_interaction (but
    not the installed pluggy and attrs) at every start; a private pycache prefix, filled by
    the warm-up runs, gives every module a cached ``.pyc`` without writing into the tree.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = cache
    return env


CHILD_ENV: dict[str, str] = {}


def run_python(args: list[str]) -> float:
    start = perf_counter()
    subprocess.run([sys.executable, *args], check=True, env=CHILD_ENV, stdout=subprocess.DEVNULL)
    return perf_counter() - start


def parse_importtime(stderr: str) -> dict[str, tuple[int, int]]:
    """``-X importtime`` output as {module: (self µs, cumulative µs)}."""
    found: dict[str, tuple[int, int]] = {}
    for line in stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if match:
            found[match.group(4)] = (int(match.group(1)), int(match.group(2)))
    return found


def importtime(code: str) -> dict[str, tuple[int, int]]:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        check=True,
        env=CHILD_ENV,
        capture_output=True,
        text=True,
    )
    return parse_importtime(result.stderr)


def measure_import(cfg: Config, summary: Summary) -> None:
    heading("3. import cost in a fresh interpreter (wall time minus `python -c pass`)")
    first_use = (
        "from user_interaction import AskUserQuestionRequest, UserInteraction; "
        "UserInteraction(); AskUserQuestionRequest(())"
    )
    commands = {
        "pass": "pass",
        "import pluggy, attrs": "import pluggy, attrs",
        "import user_interaction": "import user_interaction",
        "first use": first_use,
    }
    for code in commands.values():  # warm-up: byte-code caches, page cache
        run_python(["-c", code])
    samples = Samples()
    for _ in range(cfg.import_repeats):
        for name, code in commands.items():
            samples.add(name, run_python(["-c", code]), 1)
    startup = samples.median("pass")
    base = samples.median("import pluggy, attrs") - startup
    value = samples.median("import user_interaction") - startup
    print(f"python -c pass                       {fmt_time(startup):>10}  (subtracted)")
    print(f"import pluggy, attrs                 {fmt_time(base):>10}")
    print(f"import user_interaction              {fmt_time(value):>10}  {value / base:.2f}x")
    used = samples.median("first use") - startup
    print(f"... + UserInteraction(), a request   {fmt_time(used):>10}  {used / base:.2f}x  (info)")
    summary.ratio_row("import user_interaction (net)", value, base, "pluggy+attrs", 1.1)
    if value / base > 1.1:
        show_import_offenders(cfg)


def show_import_offenders(cfg: Config) -> None:
    """What ``import user_interaction`` imports beyond ``import pluggy, attrs``."""
    runs = [importtime("import user_interaction") for _ in range(cfg.importtime_repeats)]
    base_runs = [importtime("import pluggy, attrs") for _ in range(cfg.importtime_repeats)]
    baseline_modules = set().union(*base_runs)
    extra = set(runs[0]) - baseline_modules
    self_us = {name: median([run[name][0] for run in runs if name in run]) for name in extra}
    cumulative = {name: median([run[name][1] for run in runs if name in run]) for name in extra}
    total = sum(self_us.values())
    print()
    print(
        f"-X importtime: {len(extra)} modules imported beyond pluggy+attrs, "
        f"{total / 1000:.1f} ms self time in all (medians of {len(runs)} runs)"
    )
    print(f"  {'module':<40} {'self':>9} {'cumulative':>11}")
    for name in sorted(extra, key=lambda item: -self_us[item])[:15]:
        print(f"  {name:<40} {self_us[name] / 1000:>7.2f}ms {cumulative[name] / 1000:>9.2f}ms")
    ours = [name for name in extra if name.startswith("user_interaction")]
    stdlib = sorted(name for name in extra if not name.startswith("user_interaction"))
    ours_us = sum(self_us[name] for name in ours)
    print(
        f"  user_interaction's own modules: {ours_us / 1000:.2f} ms self; "
        f"stdlib modules only it pulls in: {(total - ours_us) / 1000:.2f} ms"
    )
    print(f"  ({', '.join(stdlib)})")


# -- 4. providers() ------------------------------------------------------------------------

COLD_CHILD = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import user_interaction
start = time.perf_counter()
if sys.argv[2] == "core":
    names = [info.name for info in user_interaction.UserInteraction().providers()]
else:
    import importlib.metadata as metadata
    if sys.version_info >= (3, 10):
        names = [ep.name for ep in metadata.entry_points(group=sys.argv[3])]
    else:  # 3.9: entry_points() is a dict of groups
        names = [ep.name for ep in metadata.entry_points().get(sys.argv[3], ())]
elapsed = time.perf_counter() - start
print(elapsed, ",".join(sorted(set(names) - {"any"})))
"""


def write_dist(root: Path, name: str, entry_points: str | None) -> Path:
    info = root / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "RECORD").write_text("")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points)
    return info


def make_dists(root: Path, count: int) -> None:
    """``count`` unrelated distributions (1 in 100 without entry points) + one provider."""
    for index in range(count):
        name = f"fake-dist-{index:04d}"
        module = name.replace("-", "_")
        if index % 100 == 7:
            write_dist(root, name, None)
            continue
        write_dist(
            root,
            name,
            f"[console_scripts]\n{name} = {module}.cli:main\n{name}-admin = {module}.admin:run\n\n"
            f"[{module}.plugins]\nalpha = {module}.alpha:Alpha\nbeta = {module}.beta:Beta\n\n"
            f"[pytest11]\n{module} = {module}.pytest_plugin\n",
        )
    write_dist(root, "bench-provider", f"[{GROUP}]\nbenchprov = bench_provider:Provider\n")


def stdlib_entry_points() -> list[str]:
    import importlib.metadata as metadata

    if sys.version_info >= (3, 10):
        found = metadata.entry_points(group=GROUP)
    else:  # 3.9: a dict of groups
        found = metadata.entry_points().get(GROUP, ())
    return sorted(ep.name for ep in found if ep.name not in OWN)


#: The providers the core distribution offers itself, left out of the comparisons.
OWN = {"any"}


def core_providers(ui: UserInteraction) -> list[str]:
    return sorted(info.name for info in ui.providers() if info.name not in OWN)


def cold_sample(root: Path, mode: str) -> tuple[float, str]:
    result = subprocess.run(
        [sys.executable, "-c", COLD_CHILD, str(root), mode, GROUP],
        check=True,
        env=CHILD_ENV,
        capture_output=True,
        text=True,
    )
    elapsed, _, names = result.stdout.strip().partition(" ")
    return float(elapsed), names


def measure_providers(cfg: Config, summary: Summary) -> None:
    heading(f"4. providers() vs importlib.metadata.entry_points() with {cfg.dists} dists")
    with tempfile.TemporaryDirectory(prefix="ui-bench-dists-") as tmp:
        root = Path(tmp)
        make_dists(root, cfg.dists)

        samples = Samples()
        cold_sample(root, "core")  # warm-up (page cache, byte-code)
        cold_sample(root, "stdlib")
        agree = True
        for _ in range(cfg.cold_repeats):
            for mode in ("stdlib", "core"):
                elapsed, names = cold_sample(root, mode)
                samples.add(f"cold {mode}", elapsed, 1)
                agree = agree and names == "benchprov"
        cold_core, cold_std = samples.median("cold core"), samples.median("cold stdlib")
        print("cold: first call in a fresh interpreter (importlib.metadata not yet imported)")
        print(f"  entry_points(group=...)            {fmt_time(cold_std):>10}")
        print(
            f"  UserInteraction().providers()      {fmt_time(cold_core):>10}  "
            f"{cold_core / cold_std:.2f}x   (both found {{benchprov}}: {agree})"
        )
        summary.ratio_row("providers() cold", cold_core, cold_std, "scan", 1.1)

        sys.path.insert(0, str(root))
        try:
            measure_repeated(cfg, summary, samples)
            check_never_stale(root)
        finally:
            sys.path.remove(str(root))


def measure_repeated(cfg: Config, summary: Summary, samples: Samples) -> None:
    ui = UserInteraction()
    assert core_providers(ui) == stdlib_entry_points() == ["benchprov"], (
        core_providers(ui),
        stdlib_entry_points(),
    )
    for _ in range(cfg.repeats):
        start = perf_counter()
        for _ in range(cfg.scan_calls):
            stdlib_entry_points()
        samples.add("repeated stdlib", perf_counter() - start, cfg.scan_calls)
        start = perf_counter()
        for _ in range(cfg.scan_calls):
            ui.providers()
        samples.add("repeated core", perf_counter() - start, cfg.scan_calls)
    rep_core, rep_std = samples.median("repeated core"), samples.median("repeated stdlib")
    print("repeated: in-process, nothing changed between calls")
    print(f"  entry_points(group=...)            {fmt_time(rep_std):>10}")
    print(
        f"  UserInteraction().providers()      {fmt_time(rep_core):>10}  {rep_core / rep_std:.2f}x"
    )
    summary.ratio_row("providers() repeated", rep_core, rep_std, "scan", 1.1)


def check_never_stale(root: Path) -> None:
    print("never stale: the next providers() call after a change sees it")
    ui = UserInteraction()
    results: list[bool] = []

    def check(label: str, expected: list[str]) -> None:
        seen = core_providers(ui)
        ok = seen == expected
        results.append(ok)
        print(f"  {label:<58} {'OK' if ok else 'FAIL'}  {seen}")

    check("baseline", ["benchprov"])
    added = write_dist(root, "bench-added", f"[{GROUP}]\nadded = bench_added:Provider\n")
    check("a new dist with a provider entry point was added", ["added", "benchprov"])
    shutil.rmtree(added)
    check("that dist was removed", ["benchprov"])
    target = root / "fake_dist_0001-1.0.dist-info" / "entry_points.txt"
    original = target.read_text()
    target.write_text(original + f"\n[{GROUP}]\nedited = fake_dist_0001:Provider\n")
    check("an existing dist's entry_points.txt edited in place", ["benchprov", "edited"])
    target.write_text(original)
    check("... and edited back", ["benchprov"])

    # Racy cases: a change right after a call, within one file-system timestamp tick.
    provider = root / "bench_provider-1.0.dist-info" / "entry_points.txt"
    stale_edit = stale_add = 0
    trials = RACY_TRIALS
    for trial in range(trials):
        provider.write_text(f"[{GROUP}]\nbenchprov = bench_provider:Provider\n")
        core_providers(ui)
        provider.write_text(f"[{GROUP}]\nbenchprox = bench_provider:Provider\n")  # same size
        stale_edit += core_providers(ui) != ["benchprox"]
        provider.write_text(f"[{GROUP}]\nbenchprov = bench_provider:Provider\n")
        first = write_dist(root, f"bench-racy-a{trial}", None)
        core_providers(ui)
        second = write_dist(root, f"bench-racy-b{trial}", f"[{GROUP}]\nracy = racy:Provider\n")
        stale_add += "racy" not in core_providers(ui)
        shutil.rmtree(first)
        shutil.rmtree(second)
    check("after the racy trials", ["benchprov"])
    print(
        f"  racy, same-size rewrite right after a call:   stale {stale_edit}/{trials}"
        f"   (depends on the file system's timestamp granularity)"
    )
    print(f"  racy, dist added right after a listing:       stale {stale_add}/{trials}")
    STALENESS["add/remove/edit"] = all(results)
    STALENESS["racy (same tick)"] = not stale_edit and not stale_add


STALENESS: dict[str, bool] = {}
RACY_TRIALS = 10


# -- 5. memory -----------------------------------------------------------------------------


def rss_kib() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except OSError:  # not Linux: the peak is the best we have
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak // 1024 if sys.platform == "darwin" else peak


class Probe:
    """Memory at a checkpoint: RSS, pymalloc blocks, gc-tracked objects."""

    def __init__(self) -> None:
        gc.collect()
        self.rss = rss_kib()
        self.blocks = sys.getallocatedblocks()
        self.objects = len(gc.get_objects())


def report_memory(label: str, cycles: tuple[int, int], early: Probe, late: Probe) -> bool:
    span = cycles[1] - cycles[0]
    blocks = late.blocks - early.blocks
    flat = blocks / span < 0.01  # fewer than 1 block kept per 100 cycles
    print(
        f"  {label:<34} {cycles[0] // 1000:>4}k→{cycles[1] // 1000}k: "
        f"RSS {late.rss - early.rss:+6d} KiB, blocks {blocks:+6d}, "
        f"gc objects {late.objects - early.objects:+5d}   {'flat' if flat else 'GROWS'}"
    )
    return flat


def measure_memory(cfg: Config, summary: Summary) -> None:
    heading("5. memory after many cycles on one UserInteraction (early vs late checkpoint)")
    verdicts: list[bool] = []
    deferred: list[str] = []

    ui = UserInteraction()
    early = None
    start = perf_counter()
    for cycle in range(1, cfg.register_cycles[1] + 1):
        dispose = ui.register_provider(AsyncProvider())
        dispose()
        if cycle == cfg.register_cycles[0]:
            early = Probe()
    late = Probe()
    per_cycle = (perf_counter() - start) / cfg.register_cycles[1]
    assert early is not None
    verdicts.append(report_memory("register_provider + dispose", cfg.register_cycles, early, late))
    print(f"  (one register/dispose cycle takes {fmt_time(per_cycle)})")

    async def asks(label: str, request: AskUserQuestionRequest, timeout: float | None) -> None:
        with UserInteraction() as ui:
            ui.register_provider(AsyncProvider())
            early = None
            for cycle in range(1, cfg.ask_cycles[1] + 1):
                await ui.ask(request, timeout=timeout)
                if cycle == cfg.ask_cycles[0]:
                    early = Probe()
            late = Probe()
        assert early is not None
        flat = report_memory(label, cfg.ask_cycles, early, late)
        if not flat:  # kept for good, or only until the loop next runs its ready queue?
            await asyncio.sleep(0)
            after = Probe()
            kept = after.blocks - early.blocks
            print(
                f"  {'':<34} after one more loop iteration: blocks {kept:+d} vs the early "
                f"checkpoint ({'released then' if kept < 1000 else 'still kept'})"
            )
            deferred.append(label)
        verdicts.append(flat)

    async def all_asks() -> None:
        await asks("await ui.ask(req)", REQUEST, None)
        signal = AbortController().signal
        await asks(
            "await ui.ask(req with signal)",
            AskUserQuestionRequest((QUESTION,), signal=signal),
            None,
        )
        await asks("await ui.ask(req, timeout=30)", REQUEST, 30)

    asyncio.run(all_asks())
    flat = all(verdicts)
    value = "flat" if flat else "grows"
    if deferred:
        print(f"  grows while the asking coroutine never yields: {', '.join(deferred)}")
        value = "grows until loop runs"
    summary.add(
        "memory (register/dispose, asks)", value, "", "", "flat", "MET" if flat else "MISSED"
    )


# -- 6. reload() ---------------------------------------------------------------------------

RELOAD_SOURCE = """\
from user_interaction import AskUserQuestionAnswer, AskUserQuestionAnswerItem


class Provider:
    async def ask(self, request):
        return AskUserQuestionAnswer((AskUserQuestionAnswerItem("pick", ("{label}",)),))
"""
RELOAD_LABELS = ("one1", "two2")  # the same size: an edit changes neither size nor second
RELOAD_REQUEST = AskUserQuestionRequest(
    (
        AskUserQuestionItem(
            id="pick",
            question="Which?",
            options=tuple(AskUserQuestionOption(label) for label in RELOAD_LABELS),
        ),
    )
)


def measure_reload(cfg: Config, summary: Summary) -> None:
    heading("6. reload() + ask after a same-second, same-size edit vs importlib.reload")
    import importlib

    with tempfile.TemporaryDirectory(prefix="ui-bench-reload-") as tmp:
        source = Path(tmp) / "bench_reload_provider.py"
        baseline = Path(tmp) / "bench_reload_baseline.py"
        for path in (source, baseline):
            path.write_text(RELOAD_SOURCE.format(label=RELOAD_LABELS[0]))
        sys.path.insert(0, tmp)
        try:
            module = importlib.import_module("bench_reload_provider")
            plain = importlib.import_module("bench_reload_baseline")
            ui = UserInteraction()
            ui.register_provider(module.Provider())
            samples = Samples()
            stale = plain_stale = total = 0
            flip = 0

            def edit(path: Path, count: int) -> str:
                label = RELOAD_LABELS[count % 2]
                stat = path.stat()
                path.write_text(RELOAD_SOURCE.format(label=label))
                os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # the same second
                return label

            async def reloads() -> tuple[float, int]:
                """Edit, reload and ask ``cfg.reloads`` times: the time, the stale answers."""
                nonlocal flip
                elapsed, stale = 0.0, 0
                for _ in range(cfg.reloads):
                    flip += 1
                    expected = edit(source, flip)
                    start = perf_counter()
                    ui.reload()
                    answer = await ui.ask(RELOAD_REQUEST)
                    elapsed += perf_counter() - start
                    stale += answer.answers[0].selected[0] != expected
                return elapsed, stale

            for _ in range(cfg.repeats):
                elapsed, missed = asyncio.run(reloads())
                stale += missed
                total += cfg.reloads
                samples.add("reload", elapsed, cfg.reloads)
                elapsed = 0.0
                for _ in range(cfg.reloads):
                    flip += 1
                    expected = edit(baseline, flip)
                    start = perf_counter()
                    plain = importlib.reload(plain)
                    elapsed += perf_counter() - start
                    plain_stale += expected not in inspect_source(plain)
                samples.add("importlib.reload", elapsed, cfg.reloads)
            ui.close()
        finally:
            sys.path.remove(tmp)
            for name in ("bench_reload_provider", "bench_reload_baseline"):
                sys.modules.pop(name, None)
    value, base = samples.median("reload"), samples.median("importlib.reload")
    print(
        f"  importlib.reload(module)           {fmt_time(base):>10}  "
        f"{samples.spread('importlib.reload')}"
    )
    print(
        f"  ui.reload() + await ui.ask()       {fmt_time(value):>10}  {value / base:.2f}x  "
        f"{samples.spread('reload')}"
    )
    print(
        f"  stale answers: {stale}/{total} (importlib.reload kept stale code {plain_stale} times)"
    )
    summary.ratio_row("reload() + ask after an edit", value, base, "importlib.reload", 3)
    summary.add(
        "reload(): stale answers", f"{stale}/{total}", "", "", "0", "MET" if not stale else "MISSED"
    )


def inspect_source(module: Any) -> str:
    """What the module's code answers, read from its function's constants."""
    return repr(module.Provider.ask.__code__.co_consts)


# -- main ----------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations (~30 s)")
    cfg = Config(parser.parse_args().quick)
    began = perf_counter()
    print(
        f"user-interaction {user_interaction.__version__} bench on Python "
        f"{sys.version.split()[0]} ({sys.platform}, {os.cpu_count()} CPUs), pluggy "
        f"{pluggy.__version__}; {'quick' if cfg.quick else 'full'} run, medians of "
        f"{cfg.repeats} samples unless stated"
    )
    summary = Summary()

    def section(name: str, measure: Callable[[], object]) -> None:
        """Run one section; a failure is reported in its place and the others still run."""
        try:
            measure()
        except Exception:
            traceback.print_exc()
            print(f"!! section {name!r} failed; its figures are missing")
            summary.add(name, "ERROR", "", "", "", "ERROR")

    section("ask", lambda: report_ask(asyncio.run(measure_ask(cfg)), summary))
    section("ask_sync", lambda: measure_ask_sync(cfg, summary))
    section("pending", lambda: measure_pending(cfg, summary))
    section("extensions", lambda: measure_extensions(cfg, summary))
    with tempfile.TemporaryDirectory(prefix="ui-bench-pycache-") as cache:
        CHILD_ENV.update(child_env(cache))
        section("import", lambda: measure_import(cfg, summary))
        section("providers()", lambda: measure_providers(cfg, summary))
    for label, ok in STALENESS.items():
        verdict = "MET" if ok else "MISSED"
        summary.add(
            f"providers() never stale, {label}", "OK" if ok else "FAIL", "", "", "OK", verdict
        )
    section("reload", lambda: measure_reload(cfg, summary))
    section("memory", lambda: measure_memory(cfg, summary))
    heading(f"summary (Python {sys.version.split()[0]}, {perf_counter() - began:.0f} s)")
    summary.print()


if __name__ == "__main__":
    try:
        main()
    except Exception:  # a report, never a test: say what broke and exit 0
        traceback.print_exc()
    sys.exit(0)
