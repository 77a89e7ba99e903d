"""The testing and conformance docs: their examples run, and they cover the API.

A ```python block whose first line is ``# <name>.py`` is a file of the example: the blocks
of a page are written side by side and pytest runs them, with the plugin loaded.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
from pathlib import Path

import pytest

import user_interaction.testing
from user_interaction.testing.conformance import ConformanceDriver, ProviderConformance

pytest_plugins = ["pytester"]

DOCS = Path(__file__).resolve().parent.parent / "docs"
TESTING = (DOCS / "testing.md").read_text(encoding="utf-8")
CONFORMANCE = (DOCS / "conformance.md").read_text(encoding="utf-8")
PLUGIN = "user_interaction.testing.pytest_plugin"
QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")


def blocks(text: str, language: str = "python") -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def files(text: str) -> dict[str, str]:
    found = {}
    for block in blocks(text):
        match = re.match(r"# (\w+\.py)\n", block)
        if match:
            found[match.group(1)] = block
    return found


def run_examples(pytester: pytest.Pytester, examples: dict[str, str]) -> pytest.RunResult:
    for name, source in examples.items():
        # test modules get unique names: the repository has test modules named like these
        unique = f"test_docs_example_{name[5:]}" if name.startswith("test_") else name
        (pytester.path / unique).write_text(source, encoding="utf-8")
    pytester.syspathinsert()
    return pytester.runpytest("-p", PLUGIN, *QUIET, "-W", "error", "--strict-markers", "-rs")


def test_every_python_block_compiles() -> None:
    for block in blocks(TESTING) + blocks(CONFORMANCE):
        compile(block, "<docs>", "exec")


def test_testing_examples_pass(pytester: pytest.Pytester) -> None:
    examples = files(TESTING)
    assert "setup_agent.py" in examples
    result = run_examples(pytester, examples)
    result.assert_outcomes(passed=14)


def test_testing_answers_file_example_is_valid(tmp_path: Path) -> None:
    pytest.importorskip("user_interaction_scripted")
    from user_interaction_scripted import AnswersFileProvider

    (example,) = blocks(TESTING, "json")
    path = tmp_path / "answers.json"
    path.write_text(example, encoding="utf-8")
    AnswersFileProvider(path)


def test_conformance_examples_pass(pytester: pytest.Pytester) -> None:
    examples = files(CONFORMANCE)
    assert {"inbox.py", "test_inbox_conformance.py", "test_stdio_conformance.py"} <= set(examples)
    expected, total = 14, 19  # the inbox example: 19 tests, 5 skipped
    if sys.platform == "win32" or importlib.util.find_spec("user_interaction_stdio") is None:
        del examples["test_stdio_conformance.py"]
    else:
        expected, total = expected + 16, total + 19  # the stdio example: 3 skipped
    result = run_examples(pytester, examples)
    result.assert_outcomes(passed=expected, skipped=total - expected)


@pytest.mark.parametrize("name", sorted(user_interaction.testing.__all__))
def test_testing_names_are_documented(name: str) -> None:
    assert f"`{name}" in TESTING or f"{name}(" in TESTING, f"{name} is not in docs/testing.md"


@pytest.mark.parametrize(
    "name", sorted(name for name in dir(ProviderConformance) if name.startswith("test_"))
)
def test_every_conformance_test_is_in_the_table(name: str) -> None:
    assert f"`{name}`" in CONFORMANCE


@pytest.mark.parametrize(
    "name",
    sorted(
        name
        for name, value in vars(ConformanceDriver).items()
        if not name.startswith("_") and (inspect.isfunction(value) or not callable(value))
    ),
)
def test_every_driver_member_is_in_the_table(name: str) -> None:
    assert f"| `{name}" in CONFORMANCE
