"""The child process of the tui tests: a small program that asks through the provider.

Usage: ``python tui_driver.py PLAN`` where PLAN is JSON::

    {"requests": [<wire request>, ...],  # asked in order
     "timeout": null,                    # seconds: the timeout of every ask
     "hold": false}                      # true: before each ask after the first, print
                                         # HOLD and wait for SIGUSR1

It prints, each on its own line: ``RESULT {"index": i, "answer": {...}}`` or
``RESULT {"index": i, "error": "CODE"}`` per ask, then ``STTY <settings>`` (the terminal's
flags after the last ask) and ``DONE``. SIGUSR1 aborts the pending ask (or ends a HOLD);
SIGUSR2 disposes the provider.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys

from user_interaction import (
    AbortController,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)


def say(kind: str, value: object) -> None:
    sys.stdout.write(f"{kind} {json.dumps(value)}\r\n")
    sys.stdout.flush()


def stty() -> str:
    """The terminal's settings, as ``stty -a`` shows them."""
    return subprocess.run(["stty", "-a"], capture_output=True, text=True, check=False).stdout


async def main(plan: dict[str, object]) -> None:
    loop = asyncio.get_running_loop()
    loop.slow_callback_duration = 600  # PYTHONDEVMODE: no timing reports on the screen
    ui = UserInteraction()
    disposer = ui.use("tui")
    pending: list[AbortController] = []
    held = asyncio.Event()

    def abort() -> None:
        if pending:
            pending[0].abort()
        else:
            held.set()

    loop.add_signal_handler(signal.SIGUSR1, abort)
    loop.add_signal_handler(signal.SIGUSR2, disposer)
    timeout = plan.get("timeout")
    for index, data in enumerate(plan["requests"]):  # type: ignore[attr-defined]
        if index and plan.get("hold"):
            held.clear()
            say("HOLD", index)
            await held.wait()
        controller = AbortController()
        pending.append(controller)
        request = AskUserQuestionRequest.from_dict(data, signal=controller.signal)
        try:
            answer = await ui.ask(request, timeout=timeout)  # type: ignore[arg-type]
        except UserInteractionError as exc:
            say("RESULT", {"index": index, "error": exc.code})
        else:
            say("RESULT", {"index": index, "answer": answer.to_dict()})
        finally:
            pending.remove(controller)
    await ui.aclose()
    say("STTY", " ".join(stty().split()))
    say("DONE", None)


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
