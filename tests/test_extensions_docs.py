"""The "Writing an extension" page: its examples run and do what the page says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from user_interaction import (
    ASK_DECLINED,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    ExtensionSpec,
    UserInteraction,
    UserInteractionError,
)
from user_interaction.testing import ScriptedProvider

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGE = (DOCS / "writing-an-extension.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE, re.S)


def run_examples() -> dict[str, object]:
    """Every python block of the page but the one-line usage sketch, in order."""
    namespace: dict[str, object] = {}
    for block in BLOCKS:
        if block.startswith("ui.add_extension(NoProductionDeploys())"):
            continue
        exec(compile(block, "writing-an-extension.md", "exec"), namespace)
    return namespace


def test_the_examples_run_including_the_test_at_the_end() -> None:
    namespace = run_examples()
    assert {"NoProductionDeploys", "CountOutcomes", "KnownAnswers"} <= set(namespace)


def test_the_policy_example_refuses_without_asking_the_human() -> None:
    namespace = run_examples()
    policy = namespace["NoProductionDeploys"]
    deploy = AskUserQuestionItem(
        "deploy",
        "Deploy to production?",
        options=[AskUserQuestionOption("Yes"), AskUserQuestionOption("No")],
    )
    with UserInteraction() as ui:
        human = ScriptedProvider({"deploy": "Yes"})
        ui.register_provider(human)
        ui.add_extension(policy())  # type: ignore[operator]
        with pytest.raises(UserInteractionError) as info:
            ui.ask_sync(AskUserQuestionRequest([deploy]))
    assert info.value.code == ASK_DECLINED
    assert human.requests == []


def test_every_hook_is_documented() -> None:
    hooks = [name for name in vars(ExtensionSpec) if not name.startswith("_")]
    assert hooks == ["ask_wrapper", "ask_finished"]
    reference = (DOCS / "reference" / "hooks.md").read_text(encoding="utf-8")
    assert "::: user_interaction.ExtensionSpec" in reference
    for hook in hooks:
        assert f"`{hook}(" in PAGE


def test_the_page_is_in_the_navigation() -> None:
    mkdocs = (DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8")
    assert "writing-an-extension.md" in mkdocs
    assert "reference/extensions.md" in mkdocs
