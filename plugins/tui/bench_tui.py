"""Benchmark of the tui provider: the first frame of a cold process, and a redraw.

    python plugins/tui/bench_tui.py

1. **First frame.** A fresh interpreter (``python -X importtime`` not needed) imports
   ``user_interaction`` and ``user_interaction_tui``, marks the time, asks a question on a
   real pseudo-terminal; the parent reads the terminal and notes when the question's text
   arrives. Reported: from ``ask()`` to the question on screen, prompt_toolkit's import
   included (the budget is 150 ms), as the median of several cold processes.
2. **Redraw.** In this process, a question with 500 options on a 120x40 pseudo-terminal;
   a Down (or Up) key is fed to the application's key processor and the time until the
   redrawn frame is on the terminal is measured (key handling, layout, render, write),
   in wall time and in this process's CPU time (which a loaded machine inflates less).
   Reported as the median and 95th percentile of 300 keystrokes (the budget is 16 ms).
"""

from __future__ import annotations

import asyncio
import json
import os
import pty
import select
import statistics
import subprocess
import sys
import time

CHILD = r"""
import asyncio, sys, time
from user_interaction import UserInteraction, AskUserQuestionRequest
import user_interaction_tui
async def main():
    ui = UserInteraction()
    ui.register_provider(user_interaction_tui.TuiProvider())
    request = AskUserQuestionRequest.from_dict(REQUEST)
    sys.stderr.write(f"ASK {time.perf_counter_ns()}\n"); sys.stderr.flush()
    try:
        await ui.ask(request, timeout=5)
    except Exception:
        pass
asyncio.run(main())
"""

REQUEST = {
    "questions": [
        {
            "id": "pkg",
            "question": "Which package manager should we use?",
            "header": "Package",
            "options": [{"label": f"option {n}", "description": "a choice"} for n in range(8)],
        }
    ]
}


def first_frame_once() -> float:
    """Milliseconds from ask() to the question's text on the terminal, in a cold process."""
    master, slave = pty.openpty()
    code = CHILD.replace("REQUEST", repr(REQUEST))
    env = {**os.environ, "TERM": "xterm-256color"}
    env.pop("PYTHONDEVMODE", None)
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=slave,
        stdout=slave,
        stderr=subprocess.PIPE,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    assert child.stderr is not None
    asked = int(child.stderr.readline().split()[1])
    seen = b""
    shown = None
    while shown is None:
        ready, _, _ = select.select([master], [], [], 10)
        if not ready:
            raise RuntimeError("the question never appeared")
        seen += os.read(master, 1 << 16)
        if b"Which package manager" in seen:
            shown = time.perf_counter_ns()
    child.kill()
    child.wait()
    child.stderr.close()
    os.close(master)
    return (shown - asked) / 1e6


def redraw_times(count: int = 300) -> tuple[list[float], list[float]]:
    """Milliseconds (wall, CPU) per key on a 500-option question, until the frame is out."""
    import fcntl
    import struct
    import termios

    from prompt_toolkit.key_binding import KeyPress
    from prompt_toolkit.keys import Keys
    from user_interaction_tui import _app, _form

    from user_interaction import AskUserQuestionItem, AskUserQuestionOption

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    stdin = open(slave, encoding="utf-8")  # noqa: SIM115
    stdout = open(os.dup(slave), "w", encoding="utf-8")  # noqa: SIM115
    options = [
        AskUserQuestionOption(f"option number {n}", f"the description of option {n}")
        for n in range(500)
    ]
    form = _form.Form([AskUserQuestionItem("many", "Pick one of many", options=options)])
    app, _screen = _app.build(form, stdin, stdout)
    times: list[float] = []
    cpu_times: list[float] = []

    def drain() -> None:
        while select.select([master], [], [], 0)[0]:
            os.read(master, 1 << 16)

    async def main() -> None:
        task = asyncio.ensure_future(app.run_async(set_exception_handler=False))
        await asyncio.sleep(0.5)
        for n in range(count):
            drain()
            key = Keys.Down if (n // 250) % 2 == 0 else Keys.Up
            start, cpu = time.perf_counter(), time.process_time()
            app.key_processor.feed(KeyPress(key))
            app.key_processor.process_keys()
            while not select.select([master], [], [], 0)[0]:  # noqa: ASYNC110 -- a pty has no event
                await asyncio.sleep(0)
            times.append((time.perf_counter() - start) * 1000)
            cpu_times.append((time.process_time() - cpu) * 1000)
        app.exit(result=None)  # type: ignore[arg-type]
        await task

    loop_thread = asyncio.new_event_loop()
    try:
        loop_thread.run_until_complete(main())
    finally:
        loop_thread.close()
        stdin.close()
        stdout.close()
        os.close(master)
    return times, cpu_times


def main() -> None:
    runs = [first_frame_once() for _ in range(7)]
    print(
        "first frame after ask() (cold process, prompt_toolkit import included): "
        f"median {statistics.median(runs):.0f} ms, min {min(runs):.0f} ms, "
        f"max {max(runs):.0f} ms over {len(runs)} processes (budget 150 ms)"
    )
    wall, cpu = (sorted(times) for times in redraw_times())
    for name, times in (("wall", wall), ("CPU", cpu)):
        p95 = times[int(len(times) * 0.95)]
        print(
            f"redraw per keystroke, 500 options, 120x40 ({name}): "
            f"median {statistics.median(times):.1f} ms, p95 {p95:.1f} ms, "
            f"max {times[-1]:.1f} ms over {len(times)} keys (budget 16 ms)"
        )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(json.dumps({"first_frame_ms": runs, "load": load, "cpus": os.cpu_count()}))


if __name__ == "__main__":
    main()
