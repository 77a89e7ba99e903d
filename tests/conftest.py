from __future__ import annotations

from collections.abc import Iterator

import pytest
from cli_support import end_children

from user_interaction import UserInteraction
from user_interaction.testing import ScriptedProvider


@pytest.fixture
def scripted() -> ScriptedProvider:
    """A fresh scripted provider: the one ``ui`` has active when a test asks for both."""
    return ScriptedProvider()


@pytest.fixture
def ui(request: pytest.FixtureRequest) -> Iterator[UserInteraction]:
    """A fresh context; with ``scripted`` registered when the test also asks for it."""
    with UserInteraction() as context:
        if "scripted" in request.fixturenames:
            context.register_provider(request.getfixturevalue("scripted"))
        yield context


@pytest.fixture(autouse=True)
def _no_child_left() -> Iterator[None]:
    """A command line a failed test left running is killed and closed with the test."""
    yield
    end_children()
