"""The docs cover every public name and every error code, and their examples run."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest depends on tomli before 3.11
    import tomli as tomllib

import importlib.metadata as importlib_metadata

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


# -- install commands: each works from a checkout as written ------------------------------

ROOT = DOCS.parent
INSTALL_DOCS = [
    ROOT / "README.md",
    ROOT / "CONTRIBUTING.md",
    *sorted(DOCS.glob("*.md")),
    *sorted(ROOT.glob("plugins/*/README.md")),
    *sorted(ROOT.glob("plugins/*/docs/*.md")),
]
#: ``pip install user-interaction-stdio 'user-interaction[dev]'``: from the registry.
REGISTRY_INSTALL = re.compile(
    r"pip install((?:\s+'?user-interaction(?:-\w+)?(?:\[[\w,]+\])?'?(?=[\s`]|$))+)"
)
REGISTRY_NAME = re.compile(r"user-interaction(?:-(\w+))?")
#: ``-e .``, ``-e '.[dev]'``, ``-e plugins/tui``, ``-e 'plugins/tui[test]'``: from a checkout.
CHECKOUT_INSTALL = re.compile(r"-e\s+'?(\.|plugins/\w+)(?:\[([\w,]+)\])?'?(?=[\s`]|$)")


def install_lines() -> list[tuple[Path, int, list[str]]]:
    found = []
    for path in INSTALL_DOCS:
        lines = path.read_text(encoding="utf-8").splitlines()
        found += [(path, number, lines) for number, line in enumerate(lines) if "pip" in line]
    return found


def checkout_targets(text: str) -> set[str]:
    return {match[1] for match in CHECKOUT_INSTALL.finditer(text)}


def test_install_commands_are_found() -> None:
    registry = [n for path, n, lines in install_lines() if REGISTRY_INSTALL.search(lines[n])]
    assert len(registry) >= 10  # the scan sees the docs' install lines


@pytest.mark.parametrize("path", INSTALL_DOCS, ids=lambda path: str(path.relative_to(ROOT)))
def test_each_registry_install_says_what_to_run_from_a_checkout(path: Path) -> None:
    """The distributions are not on PyPI yet: next to every ``pip install
    user-interaction-<name>`` the checkout form of the same install is given."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        match = REGISTRY_INSTALL.search(line)
        if match is None:
            continue
        nearby = checkout_targets("\n".join(lines[max(0, number - 3) : number + 4]))
        for name in REGISTRY_NAME.finditer(match[1]):
            wanted = "." if name[1] is None else f"plugins/{name[1]}"
            assert wanted in nearby, (
                f"{path.name}:{number + 1}: {line.strip()!r} has no `pip install -e {wanted}` "
                "beside it"
            )


@pytest.mark.parametrize("path", INSTALL_DOCS, ids=lambda path: str(path.relative_to(ROOT)))
def test_each_checkout_install_names_a_real_project_and_extras(path: Path) -> None:
    """``pip install -e plugins/<name>[extra]`` works as written from the repository's root:
    the folder is a project and declares the extras named."""
    for match in CHECKOUT_INSTALL.finditer(path.read_text(encoding="utf-8")):
        target, extras = match[1], match[2]
        pyproject = ROOT / target / "pyproject.toml"
        assert pyproject.is_file(), f"{path.name}: {match[0]!r} names no project"
        declared = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"].get(
            "optional-dependencies", {}
        )
        for extra in (extras or "").split(","):
            assert not extra or extra in declared, f"{path.name}: {match[0]!r}: no extra {extra}"


def test_the_readme_says_which_install_works_from_a_checkout() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "not on PyPI yet" in readme
    assert "pip install -e . -e plugins/<name>" in readme


# -- docs name public modules only ----------------------------------------------------------

PRIVATE_MODULE = re.compile(r"\buser_interaction(?:\.[a-z]\w*)*\._[a-z]\w*")


@pytest.mark.parametrize("path", INSTALL_DOCS, ids=lambda path: str(path.relative_to(ROOT)))
def test_docs_name_no_private_module_of_the_core(path: Path) -> None:
    assert PRIVATE_MODULE.findall(path.read_text(encoding="utf-8")) == []


def test_the_pytest_plugin_is_loaded_by_a_public_module_name() -> None:
    (entry_point,) = [
        ep
        for ep in importlib_metadata.distribution("user-interaction").entry_points
        if ep.group == "pytest11"
    ]
    assert (entry_point.name, entry_point.value) == (
        "user_interaction",
        "user_interaction.testing.pytest_plugin",
    )
    assert PRIVATE_MODULE.search(entry_point.value) is None
    assert entry_point.name == importlib.import_module(entry_point.value).ENTRY_POINT_NAME
