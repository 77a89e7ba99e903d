"""The docs cover every public name and every error code, and their examples run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import user_interaction
from user_interaction import ERROR_CODES, AskUserQuestionRequest

DOCS = Path(__file__).resolve().parent.parent / "docs"
TEXT = "\n".join(p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md")))


@pytest.mark.parametrize("name", sorted(user_interaction.__all__))
def test_public_name_is_documented(name: str) -> None:
    assert f"`{name}" in TEXT, f"{name} is not mentioned in docs/"


@pytest.mark.parametrize("code", sorted(ERROR_CODES))
def test_error_code_is_in_the_table(code: str) -> None:
    concepts = (DOCS / "concepts.md").read_text(encoding="utf-8")
    assert f"| `{code}` |" in concepts


def test_concepts_previews_and_notes_example_runs() -> None:
    concepts = (DOCS / "concepts.md").read_text(encoding="utf-8")
    section = concepts.split("### Previews and notes", 1)[1]
    (example,) = re.findall(r"```python\n(.*?)```", section.split("\n### ", 1)[0], re.S)
    namespace: dict[str, object] = {}
    exec(compile(example, "concepts.md", "exec"), namespace)
    request = namespace["request"]
    assert isinstance(request, AskUserQuestionRequest)
    assert [option.preview for option in request.questions[0].options] == [
        '[tool.ruff.lint]\nselect = ["ALL"]',
        '[tool.ruff.lint]\nselect = ["E", "F"]',
    ]
