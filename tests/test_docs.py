"""The docs cover every public name and every error code."""

from __future__ import annotations

from pathlib import Path

import pytest

import user_interaction
from user_interaction import ERROR_CODES

DOCS = Path(__file__).resolve().parent.parent / "docs"
TEXT = "\n".join(p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md")))


@pytest.mark.parametrize("name", sorted(user_interaction.__all__))
def test_public_name_is_documented(name: str) -> None:
    assert f"`{name}" in TEXT, f"{name} is not mentioned in docs/"


@pytest.mark.parametrize("code", sorted(ERROR_CODES))
def test_error_code_is_in_the_table(code: str) -> None:
    concepts = (DOCS / "concepts.md").read_text(encoding="utf-8")
    assert f"| `{code}` |" in concepts
