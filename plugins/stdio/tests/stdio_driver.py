"""The child process of the stdio tests: a small program that asks through the provider.

Usage: ``python stdio_driver.py PLAN`` where PLAN is JSON::

    {"requests": [<wire request>, ...],  # asked in order, or all at once
     "concurrent": false,                # true: every ask starts at once (they queue)
     "register": false,                  # true: register StdioProvider(); else use("stdio")
     "abort_order": [],                  # which ask each SIGUSR1 aborts (default: oldest)
     "read_after": false,                # true: finally read one line of stdin directly
     "hold": false}                      # true: between asks, print HOLD, wait for SIGUSR1

It prints, each on its own line: ``RESULT {"index": i, "answer": {...}}`` or
``RESULT {"index": i, "error": "CODE"}`` per ask; then ``THREADS [...]`` (the provider's
reader threads still alive after the provider was disposed); ``STDIN "..."`` when
``read_after`` is set; and ``DONE``. SIGUSR1 aborts an ask (or ends a HOLD); SIGUSR2
disposes the provider.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import threading

from user_interaction_stdio import StdioProvider

from user_interaction import (
    AbortController,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)


def say(kind: str, value: object) -> None:
    sys.stdout.write(f"{kind} {json.dumps(value)}\n")
    sys.stdout.flush()


async def main(plan: dict[str, object]) -> None:
    loop = asyncio.get_running_loop()
    loop.slow_callback_duration = 600  # PYTHONDEVMODE: no timing reports among the prompts
    ui = UserInteraction()
    disposer = ui.register_provider(StdioProvider()) if plan.get("register") else ui.use("stdio")
    pending: dict[int, AbortController] = {}
    abort_order = list(plan.get("abort_order") or [])  # type: ignore[call-overload]

    held = asyncio.Event()

    def abort() -> None:
        if not pending:  # between asks, with "hold": go on
            held.set()
            return
        index = abort_order.pop(0) if abort_order else min(pending, default=None)
        if index is not None and index in pending:
            pending[index].abort()

    loop.add_signal_handler(signal.SIGUSR1, abort)
    loop.add_signal_handler(signal.SIGUSR2, disposer)

    async def ask(index: int, data: object) -> None:
        controller = pending[index] = AbortController()
        request = AskUserQuestionRequest.from_dict(data, signal=controller.signal)
        try:
            answer = await ui.ask(request)
        except UserInteractionError as exc:
            say("RESULT", {"index": index, "error": exc.code})
        else:
            say("RESULT", {"index": index, "answer": answer.to_dict()})
        finally:
            del pending[index]

    requests = list(plan["requests"])  # type: ignore[call-overload]
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
    say("THREADS", [t.name for t in threading.enumerate() if t.name == "user-interaction-stdio"])
    if plan.get("read_after"):
        say("STDIN", await loop.run_in_executor(None, sys.stdin.readline))
    say("DONE", None)


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
