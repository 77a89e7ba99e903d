"""Benchmark of the web provider: a report, never a test.

``python plugins/web/bench_web.py [--rounds N]`` prints the median (and the spread) of:

- provider start, including ``import aiohttp`` (a fresh interpreter each round);
- ask -> card visible in the browser;
- Submit clicked -> ``ask()`` returns;
- 200 pending asks: page load -> all 200 cards rendered.

The browser figures need Playwright and ``/usr/bin/chromium``; without them only the start
is measured. Always exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from user_interaction_web import WebProvider

from user_interaction import (
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    UserInteraction,
)

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]
START = (
    "import time, sys\n"
    "t = time.perf_counter()\n"
    "from user_interaction_web import WebProvider\n"
    "p = WebProvider(); p.start()\n"
    "print(time.perf_counter() - t)\n"
    "p.dispose()\n"
)


def report(name: str, samples: list[float]) -> None:
    ms = [s * 1000 for s in samples]
    print(
        f"{name:<44} median {statistics.median(ms):8.1f} ms"
        f"   (min {min(ms):.1f}, max {max(ms):.1f}, n={len(ms)})"
    )


def question(n: int) -> AskUserQuestionItem:
    return AskUserQuestionItem(
        f"q{n}",
        f"Question {n}: which package manager?",
        header="Package manager",
        options=[AskUserQuestionOption("pnpm", "fast"), AskUserQuestionOption("npm")],
    )


def bench_start(rounds: int) -> None:
    samples = []
    for _ in range(rounds):
        done = subprocess.run(
            [sys.executable, "-c", START],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        samples.append(float(done.stdout))
    report("provider start (import aiohttp, bind)", samples)


class Agent:
    """Asks from an event loop on a thread of its own, as an agent would."""

    def __init__(self, ui: UserInteraction) -> None:
        self.ui = ui
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def ask(self, n: int) -> Future[Any]:
        request = AskUserQuestionRequest([question(n)])
        return asyncio.run_coroutine_threadsafe(self.ui.ask(request, timeout=60), self.loop)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


@contextmanager
def page_on(provider: WebProvider) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page()
            page.set_default_timeout(30_000)
            page.goto(provider.start())
            page.locator("#status").filter(has_text="Connected").wait_for()
            yield page
        finally:
            browser.close()


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def bench_browser(rounds: int) -> None:
    provider = WebProvider()
    ui = UserInteraction()
    ui.register_provider(provider)
    agent = Agent(ui)
    try:
        with page_on(provider) as page:
            cards = page.locator(".card")
            shown, answered = [], []
            for n in range(rounds + 2):  # two rounds of warm-up
                started = time.perf_counter()
                future = agent.ask(n)
                cards.first.wait_for()
                visible = time.perf_counter() - started
                cards.first.get_by_role("radio", name="npm", exact=True).check()
                submit = cards.first.get_by_role("button", name="Submit")
                returned = timed(lambda f=future, s=submit: (s.click(), f.result(10)))
                cards.first.wait_for(state="detached")
                if n >= 2:
                    shown.append(visible)
                    answered.append(returned)
            report("ask -> card visible", shown)
            report("Submit clicked -> ask() returns", answered)

            loads = []
            futures = [agent.ask(1000 + n) for n in range(200)]
            for _ in range(max(3, rounds // 3)):
                page.goto("about:blank")
                loads.append(
                    timed(
                        lambda: (
                            page.goto(provider.start()),
                            cards.nth(199).wait_for(),
                        )
                    )
                )
            assert cards.count() == 200
            report("200 pending asks: page load -> 200 cards", loads)
            ui.close()
            for future in futures:
                future.exception(10)
    finally:
        ui.close()
        agent.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="samples per figure")
    rounds = parser.parse_args().rounds
    print(f"Python {sys.version.split()[0]}, {rounds} rounds; medians")
    bench_start(max(3, rounds // 2))
    try:
        import playwright  # noqa: F401
    except ImportError:
        print("browser figures skipped: Playwright is not installed")
        return
    if not CHROMIUM.exists():
        print(f"browser figures skipped: {CHROMIUM} is missing")
        return
    bench_browser(rounds)


if __name__ == "__main__":
    main()
