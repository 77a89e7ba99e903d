"""The Semantics page: the rules in our own words, reachable, and complete where a list
can be checked."""

from __future__ import annotations

import re
from pathlib import Path

from user_interaction import ERROR_CODES

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "semantics.md").read_text(encoding="utf-8")


def test_the_page_is_in_the_navigation() -> None:
    assert "  - Semantics: semantics.md\n" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_every_error_code_is_stated() -> None:
    stated = set(re.findall(r"^\| `([A-Z_]+)` \|", PAGE, re.MULTILINE))
    assert stated == set(ERROR_CODES)


def test_it_covers_what_providers_and_callers_rely_on() -> None:
    headings = re.findall(r"^##+ (.+)$", PAGE, re.MULTILINE)
    for topic in [
        "The data model",
        "Errors and codes",
        "Cancellation and deadlines",
        "The life cycle of an ask",
        "Extensions",
        "Choosing a provider",
        "Keys",
    ]:
        assert topic in headings


def test_the_code_points_at_it() -> None:
    """Where code says which rules it keeps, it names this page."""
    for path in [
        "src/user_interaction/testing/conformance.py",
        "src/user_interaction/testing/__init__.py",
        "src/user_interaction/toolkit.py",
    ]:
        assert "Semantics page" in (ROOT / path).read_text(encoding="utf-8"), path
