"""aiohttp and Playwright need Python 3.10+: the provider is installed (and tested) there only."""

from __future__ import annotations

import sys

if sys.version_info < (3, 10):
    collect_ignore_glob = ["test_web_*.py", "web_support.py", "browser_support.py"]


if sys.version_info >= (3, 10):
    from collections.abc import Iterator

    import pytest
    from user_interaction_web import WebProvider
    from web_support import Agent, Client

    from user_interaction import UserInteraction

    @pytest.fixture
    def provider() -> Iterator[WebProvider]:
        provider = WebProvider()
        yield provider
        provider.dispose()

    @pytest.fixture
    def ui(provider: WebProvider) -> Iterator[UserInteraction]:
        with UserInteraction() as ui:
            ui.register_provider(provider)
            yield ui

    @pytest.fixture
    def agent(ui: UserInteraction) -> Iterator[Agent]:
        agent = Agent(ui)
        yield agent
        agent.close()

    @pytest.fixture
    def client(provider: WebProvider) -> Client:
        return Client(provider.start())
