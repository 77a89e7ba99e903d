"""``user-interaction extensions [--json] [--check]``: the installed extensions, listed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_support import child_env, run
from core_support import needs_fixture_extensions

from user_interaction.cli import EXIT_PROVIDER_FAILED, main
from user_interaction.extensions import AUDIT_ENV, DISABLE_AUTOLOAD_ENV, EXTENSIONS_ENV

BROKEN = ["fixture-ext-broken-factory", "fixture-ext-broken-hookimpl", "fixture-ext-broken-import"]


def rows(stdout: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split() for line in stdout.splitlines() if line.strip()}


@needs_fixture_extensions
def test_extensions_lists_without_importing() -> None:
    done = run("extensions", env=child_env(**{EXTENSIONS_ENV: "fixture-ext-tagger"}))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["NAME", "DISTRIBUTION", "VERSION", "ENTRY", "POINT", "LOADED"]
    table = rows(done.stdout)
    assert table["fixture-ext-recorder"] == [
        "fixture-ext-recorder",
        "ui-fixture-ext-good",
        "2.0",
        "ui_fixture_ext_good:Recorder",
        "no",  # autoload is off in the tests, and it is not named
    ]
    assert table["fixture-ext-tagger"][-1] == "yes"
    assert all(table[name][-1] == "no" for name in BROKEN)  # listed: nothing imported
    assert f"autoload is off ({DISABLE_AUTOLOAD_ENV})" in done.stdout


@needs_fixture_extensions
def test_extensions_json(tmp_path: Path) -> None:
    env = child_env(**{AUDIT_ENV: str(tmp_path / "audit.jsonl")})
    env.pop(DISABLE_AUTOLOAD_ENV)
    done = run("extensions", "--json", env=env)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["group"] == "user_interaction.extensions"
    assert document["autoload"] is True
    assert document["builtins"] == {
        AUDIT_ENV: str(tmp_path / "audit.jsonl"),
        "USER_INTERACTION_PREANSWERED": None,
        "USER_INTERACTION_DECISIONS": None,
    }
    found = {row["name"]: row for row in document["extensions"]}
    assert found["fixture-ext-tagger"] == {
        "name": "fixture-ext-tagger",
        "distribution": "ui-fixture-ext-good",
        "version": "2.0",
        "value": "ui_fixture_ext_good.tagger",
        "loaded": True,
    }


@needs_fixture_extensions
def test_extensions_check_imports_and_reports_failures() -> None:
    done = run("extensions", "--check")
    assert done.returncode == EXIT_PROVIDER_FAILED
    table = rows(done.stdout)
    assert table["fixture-ext-recorder"][-1] == "yes"
    assert table["fixture-ext-tagger"][-1] == "yes"
    for name in BROKEN:
        assert table[name][-1] == "no"
        (why,) = [line for line in done.stdout.splitlines() if line.startswith(f"{name}:")]
        assert "EXTENSION_FAILED" in why
    document = json.loads(run("extensions", "--check", "--json").stdout)
    found = {row["name"]: row for row in document["extensions"]}
    assert found["fixture-ext-recorder"]["loads"] is True
    assert found["fixture-ext-broken-import"]["error"]["code"] == "EXTENSION_FAILED"
    assert (
        "ui_fixture_no_such_policy_engine" in found["fixture-ext-broken-import"]["error"]["message"]
    )


def test_extensions_with_none_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert main(["extensions"]) == 0
    assert "No extensions are installed" in capsys.readouterr().out
    assert main(["extensions", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["extensions"] == []
