"""The pytest plugin of user-interaction: answer ``ask()`` calls in tests without a human.

Registered through the ``pytest11`` entry point ``user_interaction``; without it (or with
autoloading disabled) load it with ``-p user_interaction.testing.pytest_plugin`` or
``pytest_plugins = ["user_interaction.testing.pytest_plugin"]``. Loading it both ways is
harmless: whichever name registers first blocks the other.

* fixture ``user_interaction``: a :class:`~user_interaction.testing.UserInteractionFixture`
  (``.ui`` with a ``ScriptedProvider`` active, ``.provider``, ``.answer()``, ``.when()``,
  ``.asked_ids``, ``.assert_asked()``...), fresh for every test and closed after it;
* marker ``@pytest.mark.answers(pkg="pnpm", default=FIRST_OPTION)``: scripts that fixture
  (markers on classes and modules apply too; the closest one wins per id);
* a test whose script could not answer a question fails, even when the code under test
  caught the ``UNANSWERED_QUESTION`` error (clear ``provider.failures`` if you meant it).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Final, Generator, Iterator, Mapping

import pytest

from ._fixture import UserInteractionFixture

if TYPE_CHECKING:
    import pluggy

__all__ = ["ENTRY_POINT_NAME", "user_interaction"]

#: The name of this plugin's ``pytest11`` entry point (``-p no:user_interaction`` disables it).
ENTRY_POINT_NAME: Final = "user_interaction"

_KIT: Final = pytest.StashKey[UserInteractionFixture]()

_MARKER: Final = (
    "answers(answers=None, /, *, default=None, **by_id): script the answers of the "
    "user_interaction fixture by question id (a dict for any id, keywords for identifier "
    "ids); default= answers every other question"
)


def pytest_plugin_registered(plugin: object, manager: pluggy.PluginManager) -> None:
    """Guard against double registration: the entry point loads this module under
    ``user_interaction``, ``-p`` / ``pytest_plugins`` under its module path. Whichever
    comes first blocks the other name, so the second registration is skipped instead of
    failing with "Plugin already registered under a different name"."""
    if plugin is not sys.modules.get(__name__):
        return
    name = manager.get_name(plugin)
    for other in (ENTRY_POINT_NAME, __name__):
        if other != name and manager.get_plugin(other) is None:
            manager.set_blocked(other)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", _MARKER)


@pytest.fixture
def user_interaction(request: pytest.FixtureRequest) -> Iterator[UserInteractionFixture]:
    """A fresh ``UserInteraction`` (``.ui``) with a ``ScriptedProvider`` (``.provider``)
    active, scripted by the test's ``@pytest.mark.answers(...)`` markers."""
    kit = UserInteractionFixture()
    try:
        for marker in reversed(list(request.node.iter_markers("answers"))):
            _apply(kit, marker.args, marker.kwargs)
        request.node.stash[_KIT] = kit
        yield kit
    finally:
        kit.close()


def _apply(kit: UserInteractionFixture, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    by_id = dict(kwargs)
    try:
        for value in args:
            if not isinstance(value, Mapping):
                raise TypeError(
                    f"positional arguments must be mappings of question ids to answers, "
                    f"got {value!r}"
                )
            kit.answer(value)
        if "default" in by_id:
            kit.answer(default=by_id.pop("default"))
        kit.answer(by_id)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"@pytest.mark.answers: {exc}") from None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """Fail a test whose scripted human could not answer, even if the error was caught."""
    result = yield
    kit = item.stash.get(_KIT, None)
    if kit is not None and kit.provider.failures:
        listed = "\n".join(f"  - {error.message}" for error in kit.provider.failures)
        pytest.fail(
            "the user_interaction fixture could not answer every question (the code under "
            f"test may have caught the UNANSWERED_QUESTION error):\n{listed}\n"
            "Script those answers, or clear user_interaction.provider.failures if the test "
            "expects this.",
            pytrace=False,
        )
    return result
