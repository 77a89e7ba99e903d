"""Installed extensions: entry points of real (pip-installed) fixture distributions.

``ui-fixture-ext-good`` offers ``fixture-ext-recorder`` (a class) and
``fixture-ext-tagger`` (a module); ``ui-fixture-ext-broken`` offers three broken ones: a
raising factory, a hookimpl with a wrong argument name, and a failing import. The root
conftest turns autoload off; these tests turn it on where they need it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from core_support import FIXTURES_MISSING

from user_interaction import (
    EXTENSION_FAILED,
    AskUserQuestionItem,
    AskUserQuestionRequest,
    UserInteraction,
    UserInteractionError,
)
from user_interaction.extensions import (
    DISABLE_AUTOLOAD_ENV,
    EXTENSION_GROUP,
    EXTENSIONS_ENV,
    installed_extensions,
)
from user_interaction.testing import ScriptedProvider

ui_fixture_ext_good = pytest.importorskip("ui_fixture_ext_good", reason=FIXTURES_MISSING)
pytest.importorskip("ui_fixture_ext_good.tagger", reason=FIXTURES_MISSING)

REQUEST = AskUserQuestionRequest([AskUserQuestionItem("name", "Your name?")])
GOOD = ["fixture-ext-recorder", "fixture-ext-tagger"]
BROKEN = ["fixture-ext-broken-factory", "fixture-ext-broken-hookimpl", "fixture-ext-broken-import"]


@pytest.fixture(autouse=True)
def _clean() -> None:
    ui_fixture_ext_good.FINISHED.clear()
    ui_fixture_ext_good.tagger.CALLS.clear()


def scripted_ui() -> UserInteraction:
    ui = UserInteraction()
    ui.register_provider(ScriptedProvider({"name": "Ada"}))
    return ui


def failure(ui: UserInteraction) -> UserInteractionError:
    with pytest.raises(UserInteractionError) as info:
        ui.ask_sync(REQUEST)
    return info.value


def test_listing_names_every_installed_extension() -> None:
    infos = {info.name: info for info in installed_extensions()}
    assert sorted(GOOD + BROKEN) == [name for name in infos if name.startswith("fixture-ext")]
    assert infos["fixture-ext-recorder"].distribution == "ui-fixture-ext-good"
    assert infos["fixture-ext-recorder"].version == "2.0"
    assert infos["fixture-ext-tagger"].value == "ui_fixture_ext_good.tagger"
    assert EXTENSION_GROUP == "user_interaction.extensions"


def test_listing_and_building_a_context_import_nothing() -> None:
    code = textwrap.dedent(
        """
        import sys
        from user_interaction import UserInteraction
        from user_interaction.extensions import installed_extensions
        assert installed_extensions()
        UserInteraction()
        print(sorted(m for m in sys.modules if m.startswith("ui_fixture_ext")))
        """
    )
    env = {**os.environ}
    env.pop(DISABLE_AUTOLOAD_ENV, None)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == "[]"


def test_autoload_off_loads_only_the_named_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DISABLE_AUTOLOAD_ENV, "1")
    with scripted_ui() as ui:
        ui.ask_sync(REQUEST)
        assert ui.pluginmanager.get_plugins() == set()
    monkeypatch.setenv(EXTENSIONS_ENV, " fixture-ext-tagger , fixture-ext-recorder")
    with scripted_ui() as ui:
        assert ui.ask_sync(REQUEST).get("name").custom == "Ada"
        assert sorted(name for name, _ in ui.pluginmanager.list_name_plugin()) == GOOD
    assert ui_fixture_ext_good.FINISHED == [(["name"], "scripted", None)]
    assert ui_fixture_ext_good.tagger.CALLS == [["name"]]


def test_installed_extensions_load_before_the_first_ask_in_name_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(DISABLE_AUTOLOAD_ENV, "1")
    monkeypatch.setenv(EXTENSIONS_ENV, "fixture-ext-tagger,fixture-ext-recorder")
    with scripted_ui() as ui:
        names = [name for name, _ in ui.pluginmanager.list_name_plugin()]
        assert names == GOOD  # registered in name order, whatever the variable's order
        added = ui_fixture_ext_good.Recorder()
        ui.add_extension(added, name="added-later")  # after the installed ones
        ui.ask_sync(REQUEST)
    assert len(ui_fixture_ext_good.FINISHED) == 2


def test_an_unknown_name_fails_every_ask(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DISABLE_AUTOLOAD_ENV, "1")
    monkeypatch.setenv(EXTENSIONS_ENV, "fixture-ext-recorder,no-such-extension")
    with scripted_ui() as ui:
        error = failure(ui)
        assert failure(ui).code == EXTENSION_FAILED  # every ask, not just the first
    assert error.code == EXTENSION_FAILED
    assert "'no-such-extension'" in error.message
    assert f"remove it from {EXTENSIONS_ENV}" in error.message
    assert ui_fixture_ext_good.FINISHED == []  # observers are not called for it


@pytest.mark.parametrize(
    ("name", "problem", "cause"),
    [
        ("fixture-ext-broken-import", "failed to import: ModuleNotFoundError", ImportError),
        ("fixture-ext-broken-factory", "failed to construct: RuntimeError", RuntimeError),
        ("fixture-ext-broken-hookimpl", "answr", None),
    ],
)
def test_a_broken_extension_fails_asks_naming_it_and_how_to_disable_it(
    monkeypatch: pytest.MonkeyPatch, name: str, problem: str, cause: type[BaseException] | None
) -> None:
    monkeypatch.setenv(DISABLE_AUTOLOAD_ENV, "1")
    monkeypatch.setenv(EXTENSIONS_ENV, f"fixture-ext-recorder,{name},fixture-ext-tagger")
    with scripted_ui() as ui:
        provider = ui.provider
        assert isinstance(provider, ScriptedProvider)
        error = failure(ui)
        assert provider.requests == []  # never silently let through
    assert error.code == EXTENSION_FAILED
    assert f"Extension {name!r}" in error.message
    assert "ui-fixture-ext-broken 0.3" in error.message
    assert problem in error.message
    assert f"remove {name!r} from {EXTENSIONS_ENV}" in error.message
    if cause is not None:
        assert isinstance(error.__cause__, cause)
    assert ui_fixture_ext_good.FINISHED == []
    assert ui_fixture_ext_good.tagger.CALLS == []  # no wrapper ran either


def test_autoload_on_loads_them_all_and_the_broken_ones_fail_every_ask(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(DISABLE_AUTOLOAD_ENV)
    monkeypatch.delenv(EXTENSIONS_ENV, raising=False)
    with scripted_ui() as ui:
        error = failure(ui)
        loaded = {name for name, _ in ui.pluginmanager.list_name_plugin()}
    assert set(GOOD) <= loaded
    assert not loaded & set(BROKEN)
    assert error.code == EXTENSION_FAILED
    assert error.message.startswith("3 extensions failed to load")
    for name in BROKEN:
        assert repr(name) in error.message
    assert f"set {DISABLE_AUTOLOAD_ENV}=1" in error.message
    assert "uninstall ui-fixture-ext-broken" in error.message


CHILD = textwrap.dedent(
    """
    import json
    from user_interaction import AskUserQuestionItem, AskUserQuestionRequest, UserInteraction
    from user_interaction import UserInteractionError
    from user_interaction.testing import ScriptedProvider

    with UserInteraction() as ui:
        ui.register_provider(ScriptedProvider({"name": "Ada"}))
        try:
            answer = ui.ask_sync(AskUserQuestionRequest([AskUserQuestionItem("name", "N?")]))
            print(json.dumps({"answer": answer.to_dict()}))
        except UserInteractionError as exc:
            print(json.dumps({"error": exc.code, "message": exc.message}))
    """
)


def run_child(tmp_path: Path, **env: str | None) -> dict[str, object]:
    environment = {**os.environ}
    for key, value in env.items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    done = subprocess.run(
        [sys.executable, "-c", CHILD],
        capture_output=True,
        text=True,
        env=environment,
        cwd=tmp_path,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_a_fresh_process_with_autoload_on_refuses_to_ask(tmp_path: Path) -> None:
    result = run_child(tmp_path, **{DISABLE_AUTOLOAD_ENV: None, EXTENSIONS_ENV: None})
    assert result["error"] == EXTENSION_FAILED


def test_a_fresh_process_with_the_environment_choosing_extensions(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    result = run_child(
        tmp_path,
        **{DISABLE_AUTOLOAD_ENV: "1", EXTENSIONS_ENV: "fixture-ext-recorder"},
        USER_INTERACTION_AUDIT=str(audit),
    )
    assert result["answer"] == {"answers": [{"id": "name", "selected": [], "custom": "Ada"}]}
    (line,) = audit.read_text().splitlines()
    assert json.loads(line)["provider"] == "scripted"
