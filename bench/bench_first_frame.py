"""Time to the first question on screen, from a cold process, beside what people compare.

    python bench/bench_first_frame.py [--rounds N]

Each command is started on a fresh pseudo-terminal (80x24, ``TERM=xterm-256color``) and
timed from just before the process is spawned until the question's text arrives on the
terminal: interpreter start, imports, discovery and the first frame, which is what a person
waits for. The commands run round-robin, so a noisy machine hits all of them alike; each
figure is the median of ``--rounds`` processes (one warm-up round first, so every byte-code
cache is written). Needs ``questionary`` in the same environment (``pip install
questionary``), the core and the ``tui`` and ``stdio`` plugins.

Targets: ``user-interaction ask --provider tui`` and the API (``use("tui")``,
``ask_sync``) at most 1.0x questionary's ``select``; ``user-interaction ask --provider
stdio`` at most 1.5x ``python -c "import pluggy, attrs; input()"``. A floor row adds to
that bare command only what every ask through an installed provider needs before drawing:
``asyncio`` (the ask runs on an event loop) and the entry-point scan that finds the
provider; a second floor row runs questionary's ``select`` after the same imports and scan.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import statistics
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

QUESTION = "Which package manager should we use?"
OPTIONS = ["npm", "pnpm", "yarn", "bun"]
SCRIPT = str(Path(sys.executable).with_name("user-interaction"))

API = f"""
from user_interaction import AskUserQuestionItem, AskUserQuestionOption, AskUserQuestionRequest
from user_interaction import UserInteraction
ui = UserInteraction()
ui.use("tui")
options = [AskUserQuestionOption(label) for label in {OPTIONS!r}]
ui.ask_sync(AskUserQuestionRequest([AskUserQuestionItem("pm", {QUESTION!r}, options=options)]))
"""

QUESTIONARY = f"""
import questionary
questionary.select({QUESTION!r}, choices={OPTIONS!r}).ask()
"""

BARE = f"import pluggy, attrs; input({QUESTION!r})"
# questionary's select after what every ask through an installed provider needs first
QUESTIONARY_FLOOR = (
    "import pluggy, attrs, asyncio, importlib.metadata as m;"
    " m.entry_points(group='user_interaction.providers'); "
    + QUESTIONARY.strip().replace("\n", "; ")
)
# What any ask through an installed provider needs before its first frame, and no more:
# the event loop the ask runs on and the entry-point scan that finds the provider.
FLOOR = (
    "import pluggy, attrs, asyncio, importlib.metadata as m;"
    " m.entry_points(group='user_interaction.providers');"
    f" input({QUESTION!r})"
)

CLI = [SCRIPT, "ask", QUESTION, *(arg for label in OPTIONS for arg in ("-o", label))]

COMMANDS: dict[str, list[str]] = {
    "questionary select": [sys.executable, "-c", QUESTIONARY],
    "floor: questionary + core needs": [sys.executable, "-c", QUESTIONARY_FLOOR],
    "ask --provider tui": [*CLI, "--provider", "tui"],
    'API use("tui")': [sys.executable, "-c", API],
    "bare import pluggy, attrs; input()": [sys.executable, "-c", BARE],
    "floor: + asyncio, entry-point scan": [sys.executable, "-c", FLOOR],
    "ask --provider stdio": [*CLI, "--provider", "stdio"],
}

RATIOS = [
    ("ask --provider tui", "questionary select", 1.0),
    ('API use("tui")', "questionary select", 1.0),
    ("floor: questionary + core needs", "questionary select", 0.0),
    ("ask --provider stdio", "bare import pluggy, attrs; input()", 1.5),
    ("floor: + asyncio, entry-point scan", "bare import pluggy, attrs; input()", 0.0),
]


def environment() -> dict[str, str]:
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
    for name in (
        "PYTHONDEVMODE",
        "PYTHONDONTWRITEBYTECODE",
        "USER_INTERACTION_PROVIDER",
        "USER_INTERACTION_INBOX",
        "NO_COLOR",
    ):
        env.pop(name, None)
    return env


def first_frame(argv: list[str], env: dict[str, str]) -> float:
    """Milliseconds from spawning ``argv`` on a new pty to the question on its screen."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    start = time.perf_counter()
    child = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
    )
    os.close(slave)
    seen = b""
    try:
        while QUESTION.encode() not in seen:
            if not select.select([master], [], [], 30)[0]:
                raise RuntimeError(f"{argv[:3]}: no question after 30 s; saw {seen[-300:]!r}")
            try:
                seen += os.read(master, 1 << 16)
            except OSError as error:  # EIO: the child closed the terminal
                raise RuntimeError(f"{argv[:3]} ended early: {seen[-300:]!r}") from error
        return (time.perf_counter() - start) * 1000
    finally:
        child.kill()
        child.wait()
        os.close(master)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    env = environment()
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for argv in COMMANDS.values():  # warm-up: byte-code caches written
        first_frame(argv, env)
    for _ in range(rounds):
        for name, argv in COMMANDS.items():
            times[name].append(first_frame(argv, env))
    print(f"time to the first question on screen, {rounds} cold processes each (ms)")
    print(f"{'command':<40}{'median':>9}{'min':>9}{'max':>9}")
    for name, values in times.items():
        print(f"{name:<40}{statistics.median(values):9.1f}{min(values):9.1f}{max(values):9.1f}")
    print()
    print(f"{'candidate / baseline':<70}{'ratio':>7}  target")
    for candidate, baseline, target in RATIOS:
        ratio = statistics.median(times[candidate]) / statistics.median(times[baseline])
        verdict = "(info)" if not target else "met" if ratio <= target else "NOT met"
        bound = f"<= {target}x " if target else ""
        print(f"{candidate + ' / ' + baseline:<70}{ratio:6.2f}x  {bound}{verdict}")


if __name__ == "__main__":
    main()
