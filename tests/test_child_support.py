"""The shared reading of a child's stderr: asyncio debug mode's slow-callback lines go,
everything else stays."""

from __future__ import annotations

import subprocess
import sys

from child_support import child_stderr

# A child in dev mode whose loop runs a task and a plain callback that are slow for
# certain (a blocking sleep of 0.2 s, twice the 0.1 s asyncio reports from), between lines
# of its own on stderr; one of them looks like a report without being one.
SLOW_CHILD = """
import asyncio
import sys
import time


def say(text):
    sys.stderr.write(text + "\\n")
    sys.stderr.flush()


def slow_callback():
    time.sleep(0.2)


async def slow_task():
    time.sleep(0.2)
    return "line one\\nline two"  # the task's repr shows its result


async def main():
    say("before")
    asyncio.get_running_loop().call_soon(slow_callback)
    await asyncio.sleep(0)
    say("Executing <mine> took 1 second")
    await asyncio.create_task(slow_task())
    say("after")


asyncio.run(main())
"""


def test_a_child_keeps_everything_but_the_slow_callback_lines() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "dev", "-c", SLOW_CHILD],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stderr.count("Executing <") == 2 + 1, done.stderr  # both reports came
    assert child_stderr(done.stderr) == "before\nExecuting <mine> took 1 second\nafter\n"


def test_only_whole_reports_go() -> None:
    report = "Executing <Handle f(<a\nb>) created at /x.py:1> took 0.250 seconds\n"
    kept = [
        "Executing <x> took 0.100 seconds later\n",  # more after "seconds"
        "Executing x took 0.100 seconds\n",  # no repr
        "Executing <x> took 0.1 seconds\n",  # not asyncio's %.3f
        "  Executing <x> took 0.100 seconds\n",  # not at the start of a line
    ]
    for line in kept:
        assert child_stderr(line + report + "end\n") == line + "end\n"
        assert child_stderr(report + line) == line
    assert child_stderr(b"a\r\n" + report.replace("\n", "\r\n").encode()) == "a\r\n"
