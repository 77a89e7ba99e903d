"""Streamable HTTP (the support server as a subprocess): a stateless 2025-11-25 session
has no back-channel, so the ask fails naming the fix and sends nothing; stateful HTTP
at 2025-11-25 and stateless HTTP at 2026-07-28 (replay) show the form."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from mcp_server_support import PKG, SCRIPT, Human, accept, connect, outcome, run

from user_interaction import PROVIDER_FAILED


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def http_server(kind: str) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), "http", str(port), kind],
        env=dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("the HTTP server did not start") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.parametrize(
    ("kind", "mode", "works"),
    [
        ("stateless", "legacy", False),
        ("stateful", "legacy", True),
        ("stateless", "auto", True),
    ],
)
def test_http_sessions(kind: str, mode: str, works: bool) -> None:
    human = Human(None, accept({"q0": "pnpm"}))

    async def scenario(url: str) -> dict[str, object]:
        async with connect(url, mode, human) as client:
            return outcome(await client.call_tool("ask", {"questions": [PKG]}))

    with http_server(kind) as url:
        result = run(scenario(url), timeout=60)
    if works:
        assert result == {"answers": [{"id": "pkg", "selected": ["pnpm"]}]}
        assert len(human.forms) == 1
    else:
        assert result["error"] == PROVIDER_FAILED
        assert "stateless" in str(result["message"])
        assert human.forms == []
