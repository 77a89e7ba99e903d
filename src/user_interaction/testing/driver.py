"""A small program that asks through a provider, for tests that drive a UI from outside:
run it as a child behind real pipes or a pseudo-terminal, answer it as a human would, and
read what it reports.

``python -m user_interaction.testing.driver PLAN``, where PLAN is JSON::

    {"requests": [<wire request>, ...],  # asked in order (or all at once: "concurrent")
     "provider": null,        # the provider to use(); null: the one use() picks
     "register": null,        # "module:Class": register Class() instead of use()
     "options": {},           # keyword options for use(provider, **options)
     "concurrent": false,     # true: every ask starts at once (a serial provider queues them)
     "timeout": null,         # seconds: the timeout of every ask
     "hold": false,           # true: before each ask after the first, print HOLD i and wait
                              # for SIGUSR1
     "abort_order": [],       # which ask each SIGUSR1 aborts (default: the oldest pending)
     "threads": null,         # a thread name: after closing, print the live threads of it
     "stty": false,           # true: after closing, print the terminal's settings
     "read_after": false,     # true: at the end, read one line of stdin directly
     "messages": false,       # true: a failed ask's RESULT also carries its message
     "crlf": false}           # true: end the reports with CR LF (a terminal in raw mode)

It prints one report a line, ``KIND JSON``: ``USE {"error": CODE, "cause": CODE}`` when
the provider cannot be used (nothing is asked); ``RESULT {"index": i, "answer": {...}}``
or ``RESULT {"index": i, "error": CODE}`` per ask (with ``"message"`` when the plan asks);
``THREADS [...]``, ``STTY "..."`` and ``STDIN "..."`` as the plan asks; and ``DONE null``
last. SIGUSR1
aborts an ask (or ends a HOLD); SIGUSR2 disposes the provider. POSIX only (signals).

:func:`run_plan` runs it through pipes and returns what it printed; :func:`read_reports`
and :func:`results` read that output back in the test.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import re
import signal
import subprocess
import sys
import threading
from typing import Any, Callable

from user_interaction._abort import AbortController
from user_interaction._errors import UserInteractionError
from user_interaction._manager import UserInteraction
from user_interaction._model import AskUserQuestionRequest

__all__ = ["main", "read_reports", "results", "run_plan"]

# Not anchored at the line's start: on a terminal, escape sequences may come before.
_REPORT = re.compile(r"\b(USE|RESULT|HOLD|THREADS|STTY|STDIN|DONE) (.*?)\r*$", re.MULTILINE)


def read_reports(text: str) -> list[tuple[str, Any]]:
    """The driver's reports in ``text`` (what it printed, among anything else on the
    screen), in order: ``(kind, value)``."""
    return [(match[1], json.loads(match[2])) for match in _REPORT.finditer(text)]


def results(text: str) -> dict[int, dict[str, Any]]:
    """The ``RESULT`` reports in ``text`` by ask index."""
    return {value["index"]: value for kind, value in read_reports(text) if kind == "RESULT"}


def run_plan(
    plan: dict[str, Any], *, env: dict[str, str] | None = None, timeout: float = 120.0
) -> str:
    """Run the driver on ``plan`` as a child process with pipes for its streams (stdin
    empty) and return what it printed; ``env`` is its whole environment (default: this
    process's). A driver that fails raises :class:`subprocess.CalledProcessError`."""
    done = subprocess.run(
        [sys.executable, "-m", "user_interaction.testing.driver", json.dumps(plan)],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    return done.stdout


def _load(target: str) -> object:
    module, _, name = target.partition(":")
    built: Callable[[], object] = getattr(importlib.import_module(module), name)
    return built()


async def _drive(plan: dict[str, Any], say: Callable[[str, object], None]) -> None:
    loop = asyncio.get_running_loop()
    loop.slow_callback_duration = 600  # PYTHONDEVMODE: no timing reports among the prompts
    ui = UserInteraction()
    try:
        if plan.get("register"):
            disposer = ui.register_provider(_load(plan["register"]))
        else:
            disposer = ui.use(plan.get("provider"), **(plan.get("options") or {}))
    except UserInteractionError as exc:
        cause = exc.__cause__
        say("USE", {"error": exc.code, "cause": getattr(cause, "code", None)})
        await ui.aclose()
        return
    pending: dict[int, AbortController] = {}
    abort_order = list(plan.get("abort_order") or [])
    held = asyncio.Event()

    def abort() -> None:
        if not pending:  # between asks, with "hold": go on
            held.set()
            return
        index = abort_order.pop(0) if abort_order else min(pending)
        if index in pending:
            pending[index].abort()

    loop.add_signal_handler(signal.SIGUSR1, abort)
    loop.add_signal_handler(signal.SIGUSR2, disposer)
    timeout = plan.get("timeout")

    async def ask(index: int, data: object) -> None:
        controller = pending[index] = AbortController()
        try:
            request = AskUserQuestionRequest.from_dict(data, signal=controller.signal)
            answer = await ui.ask(request, timeout=timeout)
        except UserInteractionError as exc:
            failed: dict[str, object] = {"index": index, "error": exc.code}
            if plan.get("messages"):
                failed["message"] = exc.message
            say("RESULT", failed)
        else:
            say("RESULT", {"index": index, "answer": answer.to_dict()})
        finally:
            del pending[index]

    requests = list(plan.get("requests") or [])
    if plan.get("concurrent"):
        await asyncio.gather(*(ask(index, data) for index, data in enumerate(requests)))
    else:
        for index, data in enumerate(requests):
            if index and plan.get("hold"):  # no question on screen until SIGUSR1
                held.clear()
                say("HOLD", index)
                await held.wait()
            await ask(index, data)
    await ui.aclose()
    if plan.get("threads"):
        alive = [t.name for t in threading.enumerate() if t.name == plan["threads"]]
        say("THREADS", alive)


def main(argv: list[str] | None = None) -> None:
    """Run the plan in ``argv[0]`` (default: ``sys.argv[1]``)."""
    plan: dict[str, Any] = json.loads((sys.argv[1:] if argv is None else argv)[0])
    end = "\r\n" if plan.get("crlf") else "\n"

    def say(kind: str, value: object) -> None:
        sys.stdout.write(f"{kind} {json.dumps(value)}{end}")
        sys.stdout.flush()

    asyncio.run(_drive(plan, say))
    if plan.get("stty"):
        settings = subprocess.run(["stty", "-a"], capture_output=True, text=True, check=False)
        say("STTY", " ".join(settings.stdout.split()))
    if plan.get("read_after"):
        say("STDIN", sys.stdin.readline())
    say("DONE", None)


if __name__ == "__main__":
    main()
