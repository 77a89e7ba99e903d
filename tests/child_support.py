"""How every test reads what a child process wrote to stderr (shared by every test
directory: the root ``conftest.py`` puts this directory on ``sys.path``).

The tests run under ``PYTHONDEVMODE`` (tox sets it, and children inherit it), which puts a
child's asyncio loop in debug mode: the loop then logs every callback that ran 0.1 s or
longer, as ``Executing <Task ...> took 0.106 seconds``. On a busy machine any callback
can take that long, so such a line says something about the machine, not about the code
under test, and a test comparing the whole of stderr failed by load alone. Dev mode
stays on (it finds unclosed resources and coroutines never awaited); :func:`child_stderr`
removes exactly those lines and nothing else, so the comparisons stay as strict as they
were.
"""

from __future__ import annotations

import re
import subprocess

# What asyncio's BaseEventLoop._run_once logs (3.9 to 3.13 alike):
#     logger.warning('Executing %s took %.3f seconds', _format_handle(handle), dt)
# shown by logging's last-resort handler as the bare message, in one write. _format_handle
# gives the repr of a task or a handle, always "<...>", which can hold a newline (in a
# result's repr, say): hence DOTALL. The repr never runs on past a " took <digit>" or into
# the next report, so a line that only looks like the start of one never takes the lines
# after it along. A pseudo-terminal ends its lines with "\r\n".
SLOW_CALLBACK = re.compile(
    r"^Executing <(?:(?! took \d|\nExecuting <).)+?> took \d+\.\d{3} seconds\r?\n",
    re.MULTILINE | re.DOTALL,
)


def child_stderr(raw: str | bytes) -> str:
    """``raw`` (a child's whole stderr) without asyncio debug mode's slow-callback lines."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return SLOW_CALLBACK.sub("", text)


def completed(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    """``done`` (from ``subprocess.run``) with its stderr read by :func:`child_stderr`."""
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout, child_stderr(done.stderr)
    )
