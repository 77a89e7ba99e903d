"""The provider conformance suite of user-interaction, run against TuiProvider on a real
pseudo-terminal: pexpect types keys into it and a VT100 emulator (pyte) reads the screen."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import sys
import termios
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from pexpect import fdpexpect
from tui_support import PATIENCE, Screen, press
from user_interaction_tui import TuiProvider

from user_interaction import AskUserQuestionItem
from user_interaction.testing.conformance import ConformanceDriver, ProviderConformance

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pseudo-terminals")

COLUMNS, ROWS = 160, 50
_POSITION = re.compile(r"Question (\d+) of (\d+)")


class TuiDriver(ConformanceDriver):
    """The human at the full-screen prompt: keys into a pseudo-terminal."""

    serial = True  # TuiProvider shows one request at a time
    terminal = True  # model text must not carry control sequences to the screen
    timeout = 30.0  # a loaded machine draws slowly; only a stuck provider waits this long

    def __init__(self) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self._tty_in = open(slave, encoding="utf-8")  # noqa: SIM115 -- closed by close()
        self._tty_out = open(os.dup(slave), "w", encoding="utf-8")  # noqa: SIM115
        self._keyboard = fdpexpect.fdspawn(master, encoding="utf-8", timeout=PATIENCE)
        self._master = master
        self.screen = Screen(self._keyboard, COLUMNS, ROWS)

    def make_provider(self) -> TuiProvider:
        return TuiProvider(self._tty_in, self._tty_out)

    # -- the human -----------------------------------------------------------------------

    def _shown(self, question: AskUserQuestionItem) -> str:
        """Wait until ``question`` is the page on screen; return the screen."""
        needle = max(re.split("[\x00-\x1f\x7f-\x9f]", question.question), key=len).strip()
        return self.screen.shows(needle)

    def _submit_if_last(self, shown: str) -> None:
        """After the last question of a batch comes the review page: submit it."""
        position = _POSITION.search(shown)
        if position and position.group(1) == position.group(2):
            self.screen.shows("Review your answers")
            press(self._keyboard, "enter")  # the review opens on Submit

    def _keys(self, question: AskUserQuestionItem, *keys: str) -> None:
        shown = self._shown(question)
        press(self._keyboard, *keys)
        self._submit_if_last(shown)

    @staticmethod
    def _number(question: AskUserQuestionItem, label: str) -> str:
        return str([option.label for option in question.options].index(label) + 1)

    def answer(self, question: AskUserQuestionItem, labels: Sequence[str]) -> None:
        if question.multi_select:
            ticks = [key for label in labels for key in (self._number(question, label), " ")]
            self._keys(question, *ticks, "enter")
        else:
            self._keys(question, self._number(question, labels[0]), "enter")

    def answer_with_notes(
        self, question: AskUserQuestionItem, labels: Sequence[str], notes: str
    ) -> None:
        ticks = [key for label in labels for key in (self._number(question, label), " ")]
        back = self._number(question, labels[0])  # the field left the cursor on "Notes…"
        self._keys(question, *ticks, "n", notes, "enter", back, "enter")

    def answer_custom(self, question: AskUserQuestionItem, text: str) -> None:
        if question.options:
            self._keys(question, "o", text, "enter")
        else:  # a free-text question opens its field at once
            self._keys(question, text, "enter")

    def skip(self, question: AskUserQuestionItem) -> None:
        if question.options:
            self._keys(question, "s")
        else:
            self._keys(question, "esc", "s")

    def cancel(self, question: AskUserQuestionItem) -> None:
        self._keys(question, "esc")

    def screen_text(self) -> str:
        return self.screen.raw() + "\n" + self.screen.history()

    def close(self) -> None:
        self._tty_in.close()
        self._tty_out.close()
        self._keyboard.close()
        self.screen.join()


class TestTuiConformance(ProviderConformance):
    @pytest.fixture
    def driver(self) -> Iterator[Any]:
        driver = TuiDriver()
        yield driver
        driver.close()
