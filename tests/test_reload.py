from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from core_support import until
from distfactory import make_dist

from user_interaction import (
    NO_PROVIDER,
    PROVIDER_ENV,
    RELOAD_FAILED,
    UserInteraction,
    UserInteractionError,
)
from user_interaction.testing import sample_request

PACKAGE = "reloadable_provider"

INIT = """
from user_interaction import AskUserQuestionAnswer, AskUserQuestionAnswerItem
from .version import VERSION

DISPOSED = []


class Provider:
    async def ask(self, request):
        release = getattr(self, "release", None)
        if release is not None:
            await release.wait()
        return AskUserQuestionAnswer(
            [AskUserQuestionAnswerItem(item.id, custom=VERSION) for item in request.questions]
        )

    def dispose(self):
        DISPOSED.append(VERSION)


def make():
    return Provider()
"""


def write(path: Path, text: str) -> None:
    """Write source and move its mtime on, as an editor saving twice in a second might not."""
    path.write_text(text, encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / PACKAGE
    root.mkdir()
    write(root / "__init__.py", INIT)
    write(root / "version.py", "VERSION = 'v1'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    for name in [n for n in sys.modules if n.split(".")[0] == PACKAGE]:
        del sys.modules[name]


def answer_of(ui: UserInteraction) -> str | None:
    return asyncio.run(ui.ask(sample_request())).answers[0].custom


def test_reload_picks_up_edited_source_of_submodules(ui: UserInteraction, package: Path) -> None:
    module: Any = __import__(PACKAGE)
    first = module.Provider()
    ui.register_provider(first)
    assert answer_of(ui) == "v1"
    write(package / "version.py", "VERSION = 'v2'\n")  # same size, same second
    disposer = ui.reload()
    assert ui.provider is not first
    assert type(ui.provider).__module__ == PACKAGE
    assert answer_of(ui) == "v2"
    assert sys.modules[PACKAGE].DISPOSED == []  # the new module's list
    assert module.DISPOSED == ["v1"]  # the old provider was disposed, by its own code
    write(package / "version.py", "VERSION = 'v3'\n")
    ui.reload()
    assert answer_of(ui) == "v3"
    assert disposer.disposed


def test_a_broken_edit_changes_nothing(ui: UserInteraction, package: Path) -> None:
    module: Any = __import__(PACKAGE)
    first = module.Provider()
    ui.register_provider(first)
    write(package / "version.py", "VERSION = (\n")  # syntax error
    with pytest.raises(UserInteractionError) as info:
        ui.reload()
    assert info.value.code == RELOAD_FAILED
    assert isinstance(info.value.__cause__, SyntaxError)
    assert "previous provider stays active" in info.value.message
    assert ui.provider is first
    assert sys.modules[PACKAGE] is module
    assert sys.modules[PACKAGE + ".version"].VERSION == "v1"
    assert answer_of(ui) == "v1"
    assert module.DISPOSED == []
    write(package / "version.py", "VERSION = 'fixed'\n")
    ui.reload()
    assert answer_of(ui) == "fixed"


def test_a_constructor_that_now_raises_changes_nothing(ui: UserInteraction, package: Path) -> None:
    module: Any = __import__(PACKAGE)
    ui.register_provider(module.Provider())
    write(
        package / "__init__.py",
        INIT + "\nclass Provider:\n    def __init__(self):\n        raise RuntimeError('no')\n",
    )
    with pytest.raises(UserInteractionError) as info:
        ui.reload()
    assert info.value.code == RELOAD_FAILED
    assert isinstance(info.value.__cause__, RuntimeError)
    assert sys.modules[PACKAGE] is module


def test_reload_with_nothing_active(ui: UserInteraction) -> None:
    with pytest.raises(UserInteractionError) as info:
        ui.reload()
    assert info.value.code == NO_PROVIDER


def test_reload_refuses_what_it_cannot_rebuild(ui: UserInteraction) -> None:
    class Local:
        async def ask(self, request: Any) -> Any:
            raise AssertionError

    ui.register_provider(Local())
    with pytest.raises(UserInteractionError) as info:
        ui.reload()
    assert info.value.code == RELOAD_FAILED
    assert "inside a function" in info.value.message


def test_reload_of_an_entry_point_provider_uses_its_factory(
    ui: UserInteraction, package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PROVIDER_ENV, raising=False)
    make_dist(tmp_path, "reloadable-provider", "0.1", {"reloadable": f"{PACKAGE}:make"})
    ui.use("reloadable")
    assert answer_of(ui) == "v1"
    write(package / "version.py", "VERSION = 'v2'\n")
    ui.reload()
    assert answer_of(ui) == "v2"
    assert type(ui.provider).__module__ == PACKAGE


class Release(asyncio.Event):
    """An event that says when somebody waits for it."""

    waiting = False

    async def wait(self) -> Any:
        self.waiting = True
        return await super().wait()


def test_reload_loses_nothing(ui: UserInteraction, package: Path) -> None:
    module: Any = __import__(PACKAGE)

    async def main() -> None:
        old = module.Provider()
        old.release = Release()
        ui.register_provider(old)
        pending = asyncio.ensure_future(ui.ask(sample_request()))
        await until(lambda: old.release.waiting, "the old provider has the ask")
        write(package / "version.py", "VERSION = 'v2'\n")
        ui.reload()
        # new asks go to the new code at once, while the old ask is still pending
        assert (await ui.ask(sample_request())).answers[0].custom == "v2"
        assert not pending.done()
        assert module.DISPOSED == []
        old.release.set()
        assert (await pending).answers[0].custom == "v1"  # finished on the old provider
        assert module.DISPOSED == ["v1"]  # ...which is disposed after it

    asyncio.run(main())
