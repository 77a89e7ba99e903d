"""The getting-started page: its one-line asks and permission checks run as shown.

A ```python block whose first line is ``# <name>.py`` is a file of the example; the
``text`` block after an example is what a person sees at the terminal.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

PAGE = (Path(__file__).resolve().parent.parent / "docs" / "getting-started.md").read_text(
    encoding="utf-8"
)
PLUGIN = "user_interaction.testing.pytest_plugin"
needs_stdio = pytest.mark.skipif(
    importlib.util.find_spec("user_interaction_stdio") is None, reason="needs the stdio provider"
)


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE, re.S)


def example(name: str) -> str:
    (found,) = [block for block in blocks("python") if block.startswith(f"# {name}\n")]
    return found


def transcript(containing: str) -> str:
    """The terminal block that shows ``containing``, the way the program prints it (a
    person's typed line is echoed by the terminal, not printed)."""
    (found,) = [block for block in blocks("text") if containing in block]
    return re.sub(r"^> .*$", "> ", found, flags=re.M)


def run_python(directory: Path, source: str, typed: str) -> str:
    """Run ``source`` in ``directory`` with ``typed`` as stdin; what it printed."""
    env = {k: v for k, v in os.environ.items() if k != "USER_INTERACTION_PROVIDER"}
    env["PYTHONPATH"] = str(directory)
    done = subprocess.run(
        [sys.executable, "-c", source],
        input=typed,
        capture_output=True,
        text=True,
        cwd=directory,
        env=env,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_the_page_opens_with_confirm() -> None:
    first = blocks("python")[0]
    assert first.startswith("# deploy.py\n")
    assert "ui.confirm_sync(" in first


def test_every_python_block_compiles() -> None:
    for block in blocks("python"):
        compile(block, "<getting-started>", "exec")


@needs_stdio
@pytest.mark.parametrize(("typed", "deploys"), [("1\n", True), ("2\n", False)])
def test_first_question_runs_as_shown(tmp_path: Path, typed: str, deploys: bool) -> None:
    shown = run_python(tmp_path, example("deploy.py"), typed)
    # the time left is read when the question is shown: a busy machine may take a second
    shown = re.sub(r"⏱ 4:5\d left", "⏱ 5:00 left", shown)
    screen = transcript("$ python deploy.py").replace("$ python deploy.py\n", "")
    if deploys:
        assert shown == screen
    else:
        assert shown == screen.replace("deploying\n", "").replace("✓ 1. Yes", "✓ 2. No")


@needs_stdio
def test_permission_check_shows_the_call(tmp_path: Path) -> None:
    (tmp_path / "agent_tools.py").write_text(example("agent_tools.py"), encoding="utf-8")
    (tmp_path / "notes.txt").write_text("draft", encoding="utf-8")
    program = (
        "import asyncio, agent_tools\n"
        "agent_tools.ui.use('stdio')\n"
        "print(asyncio.run(agent_tools.run_tool('delete_file', {'path': 'notes.txt'})))\n"
    )
    shown = run_python(tmp_path, program, "2\n")
    refusal = "Error: delete_file was not approved."
    assert shown == "\n" + transcript("Allow delete_file?") + refusal + "\n"
    assert f"the model reads `{refusal}`" in PAGE
    assert (tmp_path / "notes.txt").exists()


def test_permission_check_examples_pass(pytester: pytest.Pytester) -> None:
    for name in ("agent_tools.py", "test_agent_tools.py"):
        unique = "test_docs_example_agent_tools.py" if name.startswith("test_") else name
        (pytester.path / unique).write_text(example(name), encoding="utf-8")
    pytester.syspathinsert()
    result = pytester.runpytest(
        "-p", PLUGIN, "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-W", "error"
    )
    result.assert_outcomes(passed=3)
