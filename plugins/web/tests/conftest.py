"""Fixtures of the web provider's tests. Playwright is imported only by the ``browser``
fixture, so the other tests run without it. Without the provider installed (it needs
Python 3.10+) the root conftest.py skips this directory; this file only has to import."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if importlib.util.find_spec("user_interaction_web") is not None:
    from browser_support import Tab, launch
    from user_interaction_web import WebProvider
    from web_support import Agent, Client

    from user_interaction import UserInteraction

    if TYPE_CHECKING:
        from playwright.sync_api import Browser

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

    @pytest.fixture(scope="module")  # not longer: sync Playwright keeps a loop running
    def browser() -> Iterator[Browser]:  # on this thread, so asyncio.run() fails meanwhile
        yield from launch()

    @pytest.fixture
    def tab(browser: Browser, provider: WebProvider) -> Iterator[Tab]:
        tab = Tab(browser, provider.start())
        yield tab
        errors = list(tab.errors)
        tab.close()
        assert errors == [], "the page logged errors"
