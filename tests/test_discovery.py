from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from distfactory import PROVIDER_SOURCE, make_dist

from user_interaction import (
    AMBIGUOUS_PROVIDER,
    DUPLICATE_PROVIDER,
    PROVIDER_ENV,
    PROVIDER_LOAD_FAILED,
    PROVIDER_NOT_FOUND,
    ProviderInfo,
    UserInteraction,
    UserInteractionError,
)
from user_interaction.testing import sample_request


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated sys.path holding only the distributions a test writes."""
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    monkeypatch.delenv(PROVIDER_ENV, raising=False)
    for name in [n for n in sys.modules if n.startswith("fake_")]:
        monkeypatch.delitem(sys.modules, name)
    return tmp_path


def fake(site: Path, dist: str, provider: str, module: str, version: str = "1.0") -> None:
    make_dist(
        site,
        dist,
        version,
        {provider: f"{module}:Provider"},
        modules={f"{module}.py": PROVIDER_SOURCE.format(version=version)},
        other_groups=True,
    )


def names(ui: UserInteraction) -> list[str]:
    return [info.name for info in ui.providers()]


def test_listing_reports_name_value_distribution_version(ui: UserInteraction, site: Path) -> None:
    fake(site, "fake-alpha", "alpha", "fake_alpha", "2.5")
    (info,) = ui.providers()
    assert isinstance(info, ProviderInfo)
    assert (info.name, info.value, info.distribution, info.version) == (
        "alpha",
        "fake_alpha:Provider",
        "fake-alpha",
        "2.5",
    )
    assert info.module == "fake_alpha"
    assert "fake_alpha" not in sys.modules  # listing imports nothing


def test_use_without_a_name_takes_the_only_provider(ui: UserInteraction, site: Path) -> None:
    fake(site, "fake-alpha", "alpha", "fake_alpha", "2.5")
    ui.use()
    answer = asyncio.run(ui.ask(sample_request()))
    assert answer.answers[0].custom == "2.5"


def test_use_without_a_name_and_several_installed(ui: UserInteraction, site: Path) -> None:
    fake(site, "fake-alpha", "alpha", "fake_alpha")
    fake(site, "fake-beta", "beta", "fake_beta")
    with pytest.raises(UserInteractionError) as info:
        ui.use()
    assert info.value.code == PROVIDER_NOT_FOUND
    assert "'alpha' and 'beta' tie at priority 0" in info.value.message
    assert PROVIDER_ENV in info.value.message


def test_use_without_a_name_and_none_installed(ui: UserInteraction, site: Path) -> None:
    with pytest.raises(UserInteractionError) as info:
        ui.use()
    assert info.value.code == PROVIDER_NOT_FOUND
    assert "no providers are installed" in info.value.message


def test_environment_variable_selects(
    ui: UserInteraction, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake(site, "fake-alpha", "alpha", "fake_alpha", "1")
    fake(site, "fake-beta", "beta", "fake_beta", "2")
    monkeypatch.setenv(PROVIDER_ENV, "beta")
    ui.use()
    assert asyncio.run(ui.ask(sample_request())).answers[0].custom == "2"
    assert "fake_alpha" not in sys.modules  # only the selected provider was imported


def test_unknown_name_lists_the_installed(ui: UserInteraction, site: Path) -> None:
    fake(site, "fake-alpha", "alpha", "fake_alpha")
    with pytest.raises(UserInteractionError) as info:
        ui.use("gamma")
    assert info.value.code == PROVIDER_NOT_FOUND
    assert "'gamma'" in info.value.message
    assert "alpha" in info.value.message


def test_two_distributions_offering_one_name_are_ambiguous(ui: UserInteraction, site: Path) -> None:
    fake(site, "fake-one", "same", "fake_one")
    fake(site, "fake-two", "same", "fake_two")
    assert names(ui) == ["same", "same"]
    with pytest.raises(UserInteractionError) as info:
        ui.use("same")
    assert info.value.code == AMBIGUOUS_PROVIDER
    assert "fake-one" in info.value.message
    assert "fake-two" in info.value.message
    assert ui.provider is None


def test_same_distribution_twice_on_sys_path_is_one(
    ui: UserInteraction, site: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    fake(site, "fake-alpha", "alpha", "fake_alpha")
    other = tmp_path_factory.mktemp("other")
    fake(other, "fake-alpha", "alpha", "fake_alpha")
    sys.path.append(str(other))
    sys.path.append(str(site))
    assert names(ui) == ["alpha"]
    ui.use("alpha")


def test_a_broken_distribution_breaks_neither_listing_nor_the_others(
    ui: UserInteraction, site: Path
) -> None:
    fake(site, "fake-alpha", "alpha", "fake_alpha")
    make_dist(
        site,
        "fake-broken",
        "0.1",
        {"broken": "fake_broken:Provider"},
        modules={"fake_broken.py": "raise ImportError('missing dependency xyz')\n"},
    )
    make_dist(site, "fake-garbled", "0.1", None)
    (site / "fake_garbled-0.1.dist-info" / "entry_points.txt").write_text(
        "[user_interaction.providers]\nnot an entry point line\n", encoding="utf-8"
    )
    assert "alpha" in names(ui)
    with pytest.raises(UserInteractionError) as info:
        ui.use("broken")
    assert info.value.code == PROVIDER_LOAD_FAILED
    assert isinstance(info.value.__cause__, ImportError)
    assert "missing dependency xyz" in info.value.message
    assert ui.provider is None
    ui.use("alpha")


def test_changes_are_seen_on_the_next_call(ui: UserInteraction, site: Path) -> None:
    fake(site, "fake-alpha", "alpha", "fake_alpha")
    assert names(ui) == ["alpha"]
    assert names(ui) == ["alpha"]  # unchanged
    fake(site, "fake-beta", "beta", "fake_beta")  # install
    assert names(ui) == ["alpha", "beta"]
    entry_points = site / "fake_alpha-1.0.dist-info" / "entry_points.txt"
    before = entry_points.stat()
    entry_points.write_text(
        "[user_interaction.providers]\nrenamed = fake_alpha:Provider\n", encoding="utf-8"
    )
    os.utime(entry_points, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    assert names(ui) == ["beta", "renamed"]  # edited in place
    shutil.rmtree(site / "fake_beta-1.0.dist-info")  # uninstall
    assert names(ui) == ["renamed"]


def test_sys_path_changes_are_seen(
    ui: UserInteraction, site: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    other = tmp_path_factory.mktemp("more")
    fake(other, "fake-gamma", "gamma", "fake_gamma")
    assert names(ui) == []
    sys.path.append(str(other))
    assert names(ui) == ["gamma"]


def test_use_refuses_while_active_without_importing(ui: UserInteraction, site: Path) -> None:
    fake(site, "fake-alpha", "alpha", "fake_alpha")
    fake(site, "fake-beta", "beta", "fake_beta")
    ui.use("alpha")
    with pytest.raises(UserInteractionError) as info:
        ui.use("beta")
    assert info.value.code == DUPLICATE_PROVIDER
    assert "fake_beta" not in sys.modules


def test_entry_point_object_without_ask_is_a_load_failure(ui: UserInteraction, site: Path) -> None:
    make_dist(
        site,
        "fake-odd",
        "1",
        {"odd": "fake_odd:THING"},
        modules={"fake_odd.py": "THING = 42\n"},
    )
    with pytest.raises(UserInteractionError) as info:
        ui.use("odd")
    assert info.value.code == PROVIDER_LOAD_FAILED
    assert "has no ask(request) method" in info.value.message


# -- the real fixture distributions, pip-installed into the test environment -----------

installed = pytest.mark.skipif(
    "fixture-good" not in [i.name for i in UserInteraction().providers()],
    reason="fixture distributions are installed by tox (see tox.ini commands_pre)",
)


@installed
def test_real_installed_distributions_are_listed(ui: UserInteraction) -> None:
    listed = {(info.name, info.distribution) for info in ui.providers()}
    assert {
        ("fixture-good", "ui-fixture-good"),
        ("fixture-factory", "ui-fixture-good"),
        ("fixture-instance", "ui-fixture-good"),
        ("fixture-module", "ui-fixture-good"),
        ("fixture-broken-import", "ui-fixture-broken-import"),
        ("fixture-broken-attr", "ui-fixture-broken-attr"),
        ("fixture-broken-ctor", "ui-fixture-broken-ctor"),
        ("fixture-twin", "ui-fixture-twin-a"),
        ("fixture-twin", "ui-fixture-twin-b"),
    } <= listed
    good = next(i for i in ui.providers() if i.name == "fixture-good")
    assert (good.value, good.version) == ("ui_fixture_good:GoodProvider", "1.2.3")


@installed
def test_real_listing_imports_nothing() -> None:
    code = (
        "import sys, user_interaction as u;"
        "names = [i.name for i in u.UserInteraction().providers()];"
        "assert 'fixture-good' in names, names;"
        "leaked = [m for m in sys.modules if m.startswith('ui_fixture')];"
        "assert not leaked, leaked"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@installed
@pytest.mark.parametrize(
    ("name", "cause"),
    [
        ("fixture-broken-import", ModuleNotFoundError),
        ("fixture-broken-attr", AttributeError),
        ("fixture-broken-ctor", RuntimeError),
    ],
)
def test_real_broken_distributions(ui: UserInteraction, name: str, cause: type) -> None:
    with pytest.raises(UserInteractionError) as info:
        ui.use(name)
    assert info.value.code == PROVIDER_LOAD_FAILED
    assert isinstance(info.value.__cause__, cause)
    assert name in info.value.message
    assert ui.provider is None
    ui.use("fixture-good")  # the others still work


@installed
def test_real_twins_are_ambiguous(ui: UserInteraction) -> None:
    with pytest.raises(UserInteractionError) as info:
        ui.use("fixture-twin")
    assert info.value.code == AMBIGUOUS_PROVIDER
    assert "ui-fixture-twin-a" in info.value.message
    assert "ui-fixture-twin-b" in info.value.message


@installed
@pytest.mark.parametrize(
    "name", ["fixture-good", "fixture-factory", "fixture-instance", "fixture-module"]
)
def test_real_provider_forms(ui: UserInteraction, name: str) -> None:
    ui.use(name)
    answer = asyncio.run(ui.ask(sample_request()))
    expected = [] if name == "fixture-module" else ["pnpm"]
    assert [a.selected for a in answer.answers] == ([] if not expected else [tuple(expected)])


@installed
def test_factories_build_a_fresh_instance_per_activation() -> None:
    import ui_fixture_good

    for name in ("fixture-good", "fixture-factory"):
        with UserInteraction() as one:
            one.use(name)
            first = one.provider
        with UserInteraction() as two:
            two.use(name)
            assert two.provider is not first
        assert first.disposed == 1  # type: ignore[attr-defined]
    with UserInteraction() as three:
        three.use("fixture-instance")
        assert three.provider is ui_fixture_good.INSTANCE


@installed
def test_real_environment_variable_in_a_subprocess() -> None:
    code = (
        "import user_interaction as u, asyncio;"
        "from user_interaction import AskUserQuestionRequest as R, AskUserQuestionItem as I;"
        "ui = u.UserInteraction(); ui.use();"
        "print(type(ui.provider).__name__)"
    )
    env = dict(os.environ, **{PROVIDER_ENV: "fixture-good"})
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
    )
    assert out.stdout.strip() == "GoodProvider"


def test_listing_twice_lists_the_same_providers(ui: UserInteraction) -> None:
    # Nothing is cached: each call reads the installed distributions again.
    first = ui.providers()
    second = ui.providers()
    assert first == second
    assert all(a is not b for a, b in zip(first, second))
