"""The README's agent is complete: saved as a file and started by the SDK's client side
over stdio, as an editor starts it, it asks in the client and replies with the answer."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from acp_support import over_stdio, run, within

from user_interaction import tool

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")

README = Path(__file__).resolve().parents[1] / "README.md"
TEXT = README.read_text(encoding="utf-8")
SECTION = TEXT.split("## Using it from an ACP agent", 1)[1].split("\n## ", 1)[0]
AGENT, LLM = re.findall(r"```python\n(.*?)```", SECTION, re.S)


@pytest.mark.parametrize("form", [True, False], ids=["form", "permission"])
def test_the_readme_agent_runs_as_written(tmp_path: Path, form: bool) -> None:
    script = tmp_path / "my_agent.py"
    script.write_text(AGENT, encoding="utf-8")

    async def scenario() -> None:
        async with over_stdio(form=form, agent=script) as (harness, _):
            session = await harness.new_session()
            turn = harness.prompt(session, "set the project up")
            if form:
                (await harness.client.next_form()).accept({"q1_pkg": "npm"})
            else:
                (await harness.client.next_permission()).select("npm")
            assert (await within(turn)).stop_reason == "end_turn"
            (reply,) = harness.client.messages[session]
            assert reply == "Answers: [{'id': 'pkg', 'selected': ['npm']}]"
            turn = harness.prompt(session, "again")
            await harness.client.next_request()
            await harness.cancel(session)
            assert (await within(turn)).stop_reason == "cancelled"
            assert harness.client.messages[session][-1].startswith("No answer (ASK_ABORTED)")

    run(scenario(), 60)


def test_the_readme_shows_the_tool_call_with_the_turns_signal() -> None:
    assert "tool.call(self.ui, call.arguments, signal=turn.signal)" in LLM
    assert "signal" in tool.call.__kwdefaults__


def test_the_readme_tells_editors_to_use_the_venvs_interpreter() -> None:
    assert '"command": "/path/to/checkout/.venv/bin/python"' in TEXT
    assert "give the interpreter of the virtual environment" in " ".join(TEXT.split())
