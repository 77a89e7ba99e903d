"""Test kit for the browser tests: Playwright driving Debian's chromium (no ``playwright
install``), and a tab that records console errors."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page

CHROMIUM = Path(os.environ.get("USER_INTERACTION_WEB_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--host-resolver-rules=MAP rebound.example 127.0.0.1",  # a DNS rebinding attack's name
]
STEP_MS = 5000  # any single UI step; a missed one fails instead of hanging


def launch() -> Iterator[Browser]:
    """The browser for the session. Without Playwright or chromium the browser tests skip
    locally, but fail in CI (``CI`` set): CI must never be green by skipping."""
    in_ci = os.environ.get("CI", "").lower() not in ("", "0", "false")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        if in_ci:
            pytest.fail(f"the browser tests need Playwright in CI: {error}")
        pytest.skip("Playwright is not installed (pip install playwright)")
    if not CHROMIUM.exists():
        if in_ci:
            pytest.fail(f"the browser tests need {CHROMIUM} in CI (apt-get install chromium)")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def axe() -> Any:
    """axe-core's checker for a Playwright page (``axe-playwright-python``): without it the
    accessibility tests skip locally, but fail in CI."""
    in_ci = os.environ.get("CI", "").lower() not in ("", "0", "false")
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError as error:
        if in_ci:
            pytest.fail(f"the accessibility tests need axe-playwright-python in CI: {error}")
        pytest.skip("axe-playwright-python is not installed (pip install axe-playwright-python)")
    return Axe()


class Tab:
    """One browser tab on the page; ``errors`` collects console errors and page errors."""

    def __init__(
        self, browser: Browser, url: str, *, connected: bool = True, **context: Any
    ) -> None:
        self.url = url
        self.context = browser.new_context(**context)
        self.page: Page = self.context.new_page()
        self.page.set_default_timeout(STEP_MS)
        self._errors: list[str] = []
        self._expected: list[int] = []  # statuses a test provoked on purpose
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self._errors.append(f"page error: {error}"))
        if connected:
            self.open()

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self._errors.append(f"console: {message.text}")

    def expect_status(self, status: int) -> None:
        """A request of the page will fail with ``status`` on purpose (Chromium logs it)."""
        self._expected.append(status)

    @property
    def errors(self) -> list[str]:
        """The console and page errors, less the failed requests a test provoked."""
        errors = list(self._errors)
        for status in self._expected:
            logged = (
                f"console: Failed to load resource: the server responded with a status of {status} "
            )
            for error in errors:
                if error.startswith(logged):
                    errors.remove(error)
                    break
        return errors

    def forget_errors(self) -> None:
        self._errors.clear()
        self._expected.clear()

    def open(self) -> None:
        from playwright.sync_api import expect

        self.page.goto(self.url)
        expect(self.page.locator("#status")).to_have_text("Connected")

    def cards(self) -> Locator:
        return self.page.locator(".card")

    def card(self, text: str) -> Locator:
        """The card that shows ``text`` (a question of it)."""
        return self.cards().filter(has_text=text)

    def card_for(self, question_id: str) -> Locator:
        """The card that asks the question with this id."""
        return self.cards().filter(has=self.page.locator(f'fieldset[data-id="{question_id}"]'))

    def post(self, payload: object) -> dict[str, Any]:
        """``POST /api/answer`` from the page's own origin, as its script does."""
        result: dict[str, Any] = self.page.evaluate(
            """async (payload) => {
                const response = await fetch("api/answer", {
                    method: "POST",
                    headers: {"Content-Type": "application/json",
                              "X-UI-Token": decodeURIComponent(location.hash.slice(1))},
                    body: JSON.stringify(payload),
                });
                return {status: response.status, body: await response.json()};
            }""",
            payload,
        )
        if result["status"] >= 400:
            self.expect_status(result["status"])
        return result

    def close(self) -> None:
        self.context.close()
