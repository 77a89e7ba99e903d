from __future__ import annotations

from collections.abc import Iterator

import pytest

from user_interaction import UserInteraction


@pytest.fixture
def ui() -> Iterator[UserInteraction]:
    with UserInteraction() as context:
        yield context
