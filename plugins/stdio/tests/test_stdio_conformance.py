"""The provider conformance suite of user-interaction, run against StdioProvider: a
simulated human types lines into a real OS pipe and reads what the provider printed."""

from __future__ import annotations

import io
import os
import sys
import threading
from collections.abc import Iterator, Sequence

import pytest
from user_interaction_stdio import StdioProvider

from user_interaction import AskUserQuestionItem
from user_interaction.testing.conformance import ConformanceDriver, ProviderConformance

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")


class Screen(io.StringIO):
    """The provider's output: a text buffer the driver reads from another thread."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            return super().write(text)

    def text(self) -> str:
        with self._lock:
            return self.getvalue()


class StdioDriver(ConformanceDriver):
    """The human at a line-based terminal: one typed line per question."""

    serial = True  # StdioProvider shows one request at a time
    terminal = True  # model text must not carry control sequences to the screen

    def __init__(self) -> None:
        read_fd, self._keyboard = os.pipe()
        self._input = open(read_fd, encoding="utf-8")  # noqa: SIM115 -- closed by close()
        self._screen = Screen()

    def make_provider(self) -> StdioProvider:
        return StdioProvider(self._input, self._screen)

    def _type(self, line: str) -> None:
        os.write(self._keyboard, (line + "\n").encode())

    def answer(self, question: AskUserQuestionItem, labels: Sequence[str]) -> None:
        offered = [option.label for option in question.options]
        self._type(",".join(str(offered.index(label) + 1) for label in labels))

    def answer_with_notes(
        self, question: AskUserQuestionItem, labels: Sequence[str], notes: str
    ) -> None:
        offered = [option.label for option in question.options]
        numbers = ",".join(str(offered.index(label) + 1) for label in labels)
        self._type(f"{numbers} # {notes}")

    def answer_custom(self, question: AskUserQuestionItem, text: str) -> None:
        self._type("=" + text)  # "=" makes any text literal, even "2" or "-"

    def skip(self, question: AskUserQuestionItem) -> None:
        self._type("-")

    def screen_text(self) -> str:
        return self._screen.text()

    def close(self) -> None:
        os.close(self._keyboard)
        self._input.close()


class TestStdioConformance(ProviderConformance):
    @pytest.fixture
    def driver(self) -> Iterator[StdioDriver]:
        driver = StdioDriver()
        yield driver
        driver.close()
