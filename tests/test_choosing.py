"""Choosing a provider when none is named and building one with options."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path

import pytest
from distfactory import make_dist

from user_interaction import (
    AMBIGUOUS_PROVIDER,
    PROVIDER_ENV,
    PROVIDER_LOAD_FAILED,
    PROVIDER_NOT_FOUND,
    UserInteraction,
    UserInteractionError,
)
from user_interaction.cli import main
from user_interaction.testing import sample_request

RANKED = """
from user_interaction import AskUserQuestionAnswer, AskUserQuestionAnswerItem


class Provider:
    priority = {priority}

    def __init__(self, label={name!r}, **options):
        self.label = label
        self.options = options

    @staticmethod
    def available():
        \"\"\"Only when the moon is full.\"\"\"
        return {available}

    def ask(self, request):
        return AskUserQuestionAnswer(
            [AskUserQuestionAnswerItem(item.id, custom=self.label) for item in request.questions]
        )
"""

STRICT = """
from user_interaction import AskUserQuestionAnswer, AskUserQuestionAnswerItem


class Provider:
    def __init__(self, port=0):
        self.port = port

    def ask(self, request):
        port = str(self.port)
        return AskUserQuestionAnswer(
            [AskUserQuestionAnswerItem(item.id, custom=port) for item in request.questions]
        )
"""


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    monkeypatch.delenv(PROVIDER_ENV, raising=False)
    for name in [n for n in sys.modules if n.startswith("ranked_")]:
        monkeypatch.delitem(sys.modules, name)
    return tmp_path


def ranked(
    site: Path, name: str, priority: float, available: bool = True, dist: str | None = None
) -> None:
    module = f"ranked_{name}_{(dist or 'x').replace('-', '_')}"
    make_dist(
        site,
        dist or f"ranked-{name}",
        "1.0",
        {name: f"{module}:Provider"},
        modules={f"{module}.py": RANKED.format(priority=priority, name=name, available=available)},
    )


def answered_by(ui: UserInteraction) -> str | None:
    return asyncio.run(ui.ask(sample_request())).answers[0].custom


def test_the_available_provider_of_highest_priority_is_used(site: Path) -> None:
    ranked(site, "low", 5)
    ranked(site, "high", 20)
    ranked(site, "best_but_unavailable", 99, available=False)
    with UserInteraction() as ui:
        ui.use()
        assert answered_by(ui) == "high"


def test_a_provider_that_fails_to_import_is_skipped_and_logged(
    site: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ranked(site, "fine", 1)
    make_dist(site, "ranked-broken", "1.0", {"broken": "ranked_missing_module:Provider"})
    with UserInteraction() as ui, caplog.at_level(logging.WARNING, "user_interaction"):
        ui.use()
        assert answered_by(ui) == "fine"
    assert "broken" in caplog.text


def test_none_available_names_the_candidates_and_how_to_choose(site: Path) -> None:
    ranked(site, "asleep", 10, available=False)
    with UserInteraction() as ui, pytest.raises(UserInteractionError) as info:
        ui.use()
    assert info.value.code == PROVIDER_NOT_FOUND
    message = info.value.message
    assert "asleep (priority 10, unavailable: Only when the moon is full.)" in message
    assert f"{PROVIDER_ENV}=<name>" in message


def test_a_tie_at_the_top_is_not_found(site: Path) -> None:
    ranked(site, "one", 7)
    ranked(site, "two", 7)
    ranked(site, "three", 1)
    with UserInteraction() as ui, pytest.raises(UserInteractionError) as info:
        ui.use()
    assert info.value.code == PROVIDER_NOT_FOUND
    assert "'one' and 'two' tie at priority 7" in info.value.message


def test_a_mistyped_name_gets_a_suggestion(site: Path) -> None:
    ranked(site, "stdio", 10)
    with UserInteraction() as ui, pytest.raises(UserInteractionError) as info:
        ui.use("stdoi")
    assert info.value.code == PROVIDER_NOT_FOUND
    assert "did you mean 'stdio'?" in info.value.message


def test_a_name_from_the_environment_says_so(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ranked(site, "web", 5)
    monkeypatch.setenv(PROVIDER_ENV, "wbe")
    with UserInteraction() as ui, pytest.raises(UserInteractionError) as info:
        ui.use()
    assert f"'wbe' (from {PROVIDER_ENV})" in info.value.message
    assert "did you mean 'web'?" in info.value.message


def test_distribution_colon_name_picks_one_of_two(site: Path) -> None:
    ranked(site, "twin", 1, dist="twin-a")
    ranked(site, "twin", 1, dist="twin-b")
    with UserInteraction() as ui:
        with pytest.raises(UserInteractionError) as info:
            ui.use("twin")
        assert info.value.code == AMBIGUOUS_PROVIDER
        assert "'twin-a:twin' or 'twin-b:twin'" in info.value.message
        ui.use("twin-b:twin")
        assert ui.provider is not None
        assert type(ui.provider).__module__ == "ranked_twin_twin_b"


def test_use_builds_the_provider_with_options(site: Path) -> None:
    make_dist(
        site,
        "strict",
        "1.0",
        {"strict": "ranked_strict:Provider"},
        modules={"ranked_strict.py": STRICT},
    )
    with UserInteraction() as ui:
        ui.use("strict", port=8765)
        assert answered_by(ui) == "8765"
        ui.reload()  # a reload builds it the same way
        assert answered_by(ui) == "8765"


def test_an_option_the_provider_rejects_is_load_failed_naming_it(site: Path) -> None:
    make_dist(
        site,
        "strict",
        "1.0",
        {"strict": "ranked_strict:Provider"},
        modules={"ranked_strict.py": STRICT},
    )
    with UserInteraction() as ui, pytest.raises(UserInteractionError) as info:
        ui.use("strict", colour="blue")
    assert info.value.code == PROVIDER_LOAD_FAILED
    assert "colour" in info.value.message
    assert ui.provider is None


def test_the_cli_passes_provider_options(
    site: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_dist(
        site,
        "strict",
        "1.0",
        {"strict": "ranked_strict:Provider"},
        modules={"ranked_strict.py": STRICT},
    )
    code = main(["ask", "Port?", "-p", "strict", "--provider-option", "port=8765", "--json"])
    assert code == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["answers"][0]["custom"] == "8765"  # parsed as JSON: the int 8765


def test_providers_check_shows_priority_and_availability(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ranked(site, "low", 5)
    ranked(site, "high", 20)
    ranked(site, "asleep", 99, available=False)
    assert main(["providers", "--check", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["providers"]}
    assert rows["high"]["default"] is True
    assert (rows["high"]["priority"], rows["high"]["available"]) == (20, True)
    assert rows["asleep"]["available"] is False
    assert rows["asleep"]["unavailable_reason"] == "Only when the moon is full."
    assert rows["asleep"]["loads"] is True  # unavailable is not broken
    assert main(["providers", "--check"]) == 0
    table = capsys.readouterr().out
    assert "PRIORITY" in table
    assert "AVAILABLE" in table
    assert "asleep: unavailable here: Only when the moon is full." in table


def test_find_provider_can_leave_providers_out(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from user_interaction import find_provider

    ranked(site, "inbox", 15)
    ranked(site, "stdio", 10)
    assert find_provider().name == "inbox"
    assert find_provider(exclude=["inbox", "any"]).name == "stdio"
    monkeypatch.setenv(PROVIDER_ENV, "inbox")  # the variable cannot pick a left-out one
    assert find_provider(exclude={"inbox"}).name == "stdio"
    monkeypatch.setenv(PROVIDER_ENV, "stdio")
    assert find_provider(exclude={"inbox"}).name == "stdio"
    assert find_provider("inbox", exclude={"inbox"}).name == "inbox"  # a name is a name


def test_plain_providers_names_the_default(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without --check too: the one `ask` and `use()` take when none is named."""
    ranked(site, "low", 5)
    ranked(site, "high", 20)
    ranked(site, "asleep", 99, available=False)
    assert main(["providers"]) == 0
    out = capsys.readouterr().out
    marked = [line.split()[1] for line in out.splitlines() if line.startswith("* ")]
    assert marked == ["high", "default:"]
    assert "* default: the available provider of highest priority (high)" in out
    assert main(["providers", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["default"] == "high"
    assert [row["name"] for row in document["providers"] if row["default"]] == ["high"]
    with UserInteraction() as ui:
        ui.use()
        assert answered_by(ui) == "high"


def test_plain_providers_says_why_there_is_no_default(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ranked(site, "left", 10)
    ranked(site, "right", 10)
    assert main(["providers"]) == 0
    out = capsys.readouterr().out
    assert not [line for line in out.splitlines() if line.startswith("*")]
    assert "no default: No provider chosen: 'left' and 'right' tie at priority 10" in out
    assert main(["providers", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["default"] is None
    assert document["no_default"]["code"] == PROVIDER_NOT_FOUND
    assert not any(row["default"] for row in document["providers"])
