"""``mcp-server`` with a terminal provider: the human answers on the controlling terminal
(a real pseudo-terminal here) while stdin/stdout carry the MCP protocol."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from typing import Any

import mcp
import pytest
from mcp import StdioServerParameters
from mcp_client_support import PATIENCE, child_env

from user_interaction import tool

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pseudo-terminals")

# The SDK starts the server in a session of its own, without a terminal; this launcher
# gives that session the pseudo-terminal (the first terminal a session leader opens
# becomes its controlling terminal), then becomes the server.
LAUNCH = """
import os, sys
try:
    os.setsid()
except OSError:
    pass
os.close(os.open(sys.argv[1], os.O_RDWR))
os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
"""

PKG = {
    "questions": [
        {
            "id": "pkg",
            "question": "Which package manager?",
            "header": "Package",
            "options": [{"label": "npm"}, {"label": "pnpm"}],
        }
    ]
}


class Terminal:
    """The human's side of a pseudo-terminal: read what is shown, type when asked."""

    def __init__(self) -> None:
        import pty

        self.master, self.slave = pty.openpty()
        self.name = os.ttyname(self.slave)
        self.screen = b""
        self._lock = threading.Lock()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 4096)
            except OSError:
                return
            if not chunk:
                return
            with self._lock:
                self.screen += chunk

    def shown(self) -> str:
        with self._lock:
            return self.screen.decode("utf-8", "replace")

    def type_when(self, prompt: str, keys: str) -> None:
        deadline = time.monotonic() + PATIENCE
        while prompt not in self.shown():
            if time.monotonic() > deadline:
                raise AssertionError(f"never shown {prompt!r}; the terminal has {self.shown()!r}")
            time.sleep(0.02)
        os.write(self.master, keys.encode())

    def close(self) -> None:
        for fd in (self.slave, self.master):
            try:
                os.close(fd)
            except OSError:
                pass


def test_the_stdio_provider_asks_on_the_controlling_terminal() -> None:
    terminal = Terminal()
    arguments = ["-m", "user_interaction", "mcp-server", "--provider", "stdio"]
    params = StdioServerParameters(
        command=sys.executable, args=["-c", LAUNCH, terminal.name, *arguments], env=child_env()
    )

    async def run() -> Any:
        async with mcp.Client(params) as client:
            typing = asyncio.get_running_loop().run_in_executor(
                None, terminal.type_when, "> ", "2\n"
            )
            result = await client.call_tool(tool.NAME, PKG)
            await typing
            return result

    try:
        result = asyncio.run(asyncio.wait_for(run(), PATIENCE))
    finally:
        terminal.close()
    assert not result.is_error, result
    assert result.content[0].text == '{"answers":[{"id":"pkg","selected":["pnpm"]}]}'
    shown = terminal.shown()
    assert "[Package] Which package manager?" in shown
    assert "1. npm" in shown
    assert "2. pnpm" in shown


# As LAUNCH, but the server runs as a child whose exit status is written to a file: the
# file exists only if the server ended by itself (the SDK kills the whole process group
# of a server that does not end within 2 seconds of the client leaving).
LAUNCH_AND_REPORT = """
import os, subprocess, sys
try:
    os.setsid()
except OSError:
    pass
os.close(os.open(sys.argv[1], os.O_RDWR))
status = subprocess.call([sys.executable, *sys.argv[3:]])
with open(sys.argv[2], "w") as file:
    file.write(str(status))
"""


def test_the_client_leaving_mid_question_ends_the_server(tmp_path: Any) -> None:
    terminal = Terminal()
    status = tmp_path / "status"
    arguments = ["-m", "user_interaction", "mcp-server", "--provider", "stdio"]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", LAUNCH_AND_REPORT, terminal.name, str(status), *arguments],
        env=child_env(),
    )

    async def run() -> None:
        async with mcp.Client(params) as client:
            call = asyncio.create_task(client.call_tool(tool.NAME, PKG))
            await asyncio.get_running_loop().run_in_executor(None, terminal.type_when, "> ", "")
            call.cancel()  # the question is on the terminal; the client goes away

    try:
        asyncio.run(asyncio.wait_for(run(), PATIENCE))
        deadline = time.monotonic() + PATIENCE
        while not status.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        terminal.close()
    assert status.read_text() == "0"
