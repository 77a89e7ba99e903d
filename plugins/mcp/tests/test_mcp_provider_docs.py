"""The server examples of the docs run: ``docs/mcp.md``'s script (server and client in
one process, both protocol modes) and the README's stdio server driven by an SDK client."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import mcp
import mcp_types
import pytest
from mcp_server_support import MODES, Human, run

ROOT = Path(__file__).resolve().parents[3]
SECTION = "## Asking from an MCP server's tool"


def example(path: Path, heading: str | None = None) -> str:
    text = path.read_text(encoding="utf-8")
    if heading is not None:
        text = text.split(heading, 1)[1].split("\n## ", 1)[0]
    return str(re.findall(r"```python\n(.*?)```", text, re.S)[0])


def test_the_docs_example_runs(tmp_path: Path) -> None:
    script = tmp_path / "ask_mcp.py"
    script.write_text(example(ROOT / "docs" / "mcp.md", SECTION), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=True
    )
    lines = done.stdout.splitlines()
    assert "legacy shed: pnpm, steps lint, test" in lines
    assert "auto shed: pnpm, steps lint, test" in lines


@pytest.mark.parametrize("mode", MODES)
def test_the_readme_server_runs_over_stdio(mode: str, tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(example(ROOT / "plugins" / "mcp" / "README.md"), encoding="utf-8")
    human = Human(None, mcp_types.ElicitResult(action="accept", content={"q0": "pnpm"}))

    async def scenario() -> Any:
        params = mcp.StdioServerParameters(
            command=sys.executable, args=[str(script)], env=dict(os.environ)
        )
        async with mcp.Client(params, mode=mode, elicitation_callback=human) as client:
            return await client.call_tool("scaffold", {"project": "shed"})

    result = run(scenario(), timeout=60)
    assert not result.is_error, result
    block = result.content[0]
    assert isinstance(block, mcp_types.TextContent)
    assert block.text == "shed: pnpm, no license"
    assert human.forms[0][0] == "The agent has 2 questions for you."
