"""What is on screen and what each key does to it, without any terminal library.

A :class:`Form` holds one ask: a :class:`Page` per question (its cursor, choice, custom
text, notes, or an explicit skip), which page is shown (with two questions or more, a
review page follows the last one), and whether a text field is open. Key handlers call its
methods; each returns an :data:`Outcome` — nothing (keep going), the finished answer, or
:data:`CANCEL`. The view (``_view``) draws a form; the application (``_app``) maps keys.
"""

from __future__ import annotations

import enum
from typing import Final, Optional, Sequence, Union

from user_interaction import (
    AskUserQuestionAnswer,
    AskUserQuestionAnswerItem,
    AskUserQuestionItem,
)

__all__ = ["CANCEL", "Field", "Form", "Outcome", "Page", "Row", "Status"]


class Status(enum.Enum):
    UNANSWERED = "unanswered"
    ANSWERED = "answered"
    SKIPPED = "skipped"


class Row(enum.Enum):
    """The rows under a question's options (an option row is its index, an ``int``)."""

    OTHER = "other"  # "Other…": a custom answer (the only row of a free-text question)
    NOTES = "notes"  # "Notes…": a remark beside the choice


class Field(enum.Enum):
    """The text field that is open, if any."""

    CUSTOM = "custom"
    NOTES = "notes"


class _Cancel:
    def __repr__(self) -> str:
        return "CANCEL"


#: The human dismissed the ask (Esc, Ctrl-C).
CANCEL: Final = _Cancel()

Outcome = Optional[Union[AskUserQuestionAnswer, _Cancel]]
"""``None`` (keep going), the answer (submit it), or :data:`CANCEL`."""


class Page:
    """One question: its rows, the cursor, and what the human made of it."""

    __slots__ = ("chosen", "cursor", "custom", "item", "notes", "number", "rows", "skipped")

    def __init__(self, item: AskUserQuestionItem, number: int) -> None:
        self.item = item
        self.number = number
        self.rows: list[Union[int, Row]] = list(range(len(item.options)))
        self.rows.append(Row.OTHER)
        if item.options:
            self.rows.append(Row.NOTES)
        self.cursor = 0
        self.chosen: list[int] = []  # option indexes, in offered order
        self.custom: str | None = None
        self.notes: str | None = None
        self.skipped = False

    @property
    def row(self) -> Union[int, Row]:
        return self.rows[self.cursor]

    @property
    def status(self) -> Status:
        if self.chosen or self.custom is not None:
            return Status.ANSWERED
        return Status.SKIPPED if self.skipped else Status.UNANSWERED

    def choose(self, index: int, *, toggle: bool) -> None:
        if toggle:
            if index in self.chosen:
                self.chosen.remove(index)
            else:
                self.chosen = sorted([*self.chosen, index])
        else:
            self.chosen = [index]
        self.custom = None
        self.skipped = False

    def answer_item(self) -> AskUserQuestionAnswerItem:
        if self.custom is not None:
            return AskUserQuestionAnswerItem(self.item.id, custom=self.custom)
        labels = [self.item.options[index].label for index in self.chosen]
        notes = self.notes if labels else None
        return AskUserQuestionAnswerItem(self.item.id, labels, notes=notes)


class Form:
    """The state of one ask on screen."""

    def __init__(self, questions: Sequence[AskUserQuestionItem]) -> None:
        self.pages = [Page(item, number) for number, item in enumerate(questions, 1)]
        #: Two questions or more: one tab per question, then a review page.
        self.batch = len(self.pages) > 1
        #: The page shown: a question's index, or ``len(pages)`` for the review page.
        self.tab = 0
        #: The review page's cursor: a question's index, or ``len(pages)`` for Submit.
        self.review_cursor = len(self.pages)
        #: The open text field, if any, and the text it opened with.
        self.field: Field | None = None
        self.field_text = ""
        #: A one-line message for the human (why Submit refused, ...).
        self.message = ""
        #: The focused option's preview is shown in place of the options ("p", on a
        #: screen too small for both).
        self.preview_open = False
        #: Bumped by every change: views cache what they drew for a version.
        self.version = 0
        self._digits = ""
        self._open_free_text()

    # -- what is shown -------------------------------------------------------------------

    @property
    def reviewing(self) -> bool:
        return self.tab == len(self.pages)

    @property
    def page(self) -> Page:
        return self.pages[min(self.tab, len(self.pages) - 1)]

    def focused_preview(self) -> str | None:
        """The preview of the option under the cursor (on a question page), if any."""
        if self.reviewing:
            return None
        row = self.page.row
        if isinstance(row, int):
            preview = self.page.item.options[row].preview
            if preview and preview.strip():
                return preview
        return None

    def has_previews(self) -> bool:
        """Whether the question shown has an option with a preview."""
        if self.reviewing:
            return False
        return any(option.preview and option.preview.strip() for option in self.page.item.options)

    def unanswered(self) -> list[Page]:
        return [page for page in self.pages if page.status is Status.UNANSWERED]

    # -- keys on a page or the review ----------------------------------------------------

    def move(self, delta: int) -> Outcome:
        self._touch()
        if self.reviewing:
            self.review_cursor = _clamp(self.review_cursor + delta, len(self.pages))
        else:
            page = self.page
            page.cursor = _clamp(page.cursor + delta, len(page.rows) - 1)
        return None

    def digit(self, digit: str) -> Outcome:
        """Number keys jump to an option (several digits in a row: ``1``, ``2`` -> 12)."""
        digits = self._digits + digit
        self._touch()
        rows = len(self.pages) if self.reviewing else len(self.page.item.options)
        for candidate in (digits, digit):
            number = int(candidate)
            if 1 <= number <= rows:
                if self.reviewing:
                    self.review_cursor = number - 1
                else:
                    self.page.cursor = number - 1
                self._digits = candidate
                break
        return None

    def enter(self) -> Outcome:
        self._touch()
        if self.reviewing:
            if self.review_cursor < len(self.pages):
                return self.go(self.review_cursor)
            return self.submit()
        page = self.page
        row = page.row
        if row is Row.OTHER:
            return self.open(Field.CUSTOM)
        if row is Row.NOTES:
            return self.open(Field.NOTES)
        if not page.item.multi_select:
            page.choose(row, toggle=False)
        elif not page.chosen:  # Enter with nothing ticked picks the option it is on
            page.choose(row, toggle=True)
        else:  # confirms the ticked options
            page.custom = None
            page.skipped = False
        return self._advance()

    def space(self) -> Outcome:
        """Ticks (multi-select) or marks (single-select) the option without moving on."""
        self._touch()
        if self.reviewing:
            return self.enter()
        page = self.page
        row = page.row
        if isinstance(row, int):
            page.choose(row, toggle=page.item.multi_select)
            return None
        return self.enter()

    def skip(self) -> Outcome:
        """Skip the question explicitly: an answer with no choice and no text."""
        self._touch()
        if self.reviewing:
            if self.review_cursor >= len(self.pages):
                return None
            page = self.pages[self.review_cursor]
        else:
            page = self.page
        page.chosen = []
        page.custom = None
        page.skipped = True
        return None if self.reviewing else self._advance()

    def go(self, tab: int) -> Outcome:
        self._touch()
        if not self.batch:
            return None
        self.tab = _clamp(tab, len(self.pages))
        self.preview_open = False
        if self.reviewing:
            self.review_cursor = len(self.pages)
        self._open_free_text()
        return None

    def next_tab(self) -> Outcome:
        return self.go(self.tab + 1)

    def previous_tab(self) -> Outcome:
        return self.go(self.tab - 1)

    def submit(self) -> Outcome:
        """The answer, when every question is answered or explicitly skipped."""
        self._touch()
        missing = self.unanswered()
        if missing:
            names = ", ".join(str(page.number) for page in missing)
            self.message = f"Answer or skip (s) question {names} first."
            self.review_cursor = missing[0].number - 1
            return None
        return AskUserQuestionAnswer([page.answer_item() for page in self.pages])

    def toggle_preview(self) -> Outcome:
        self._touch()
        self.preview_open = not self.preview_open
        return None

    def cancel(self) -> Outcome:
        return CANCEL

    # -- the text fields -----------------------------------------------------------------

    def open(self, field: Field) -> Outcome:
        self._touch()
        if self.reviewing or (field is Field.NOTES and not self.page.item.options):
            return None
        page = self.page
        self.field = field
        self.field_text = (page.custom if field is Field.CUSTOM else page.notes) or ""
        page.cursor = page.rows.index(Row.OTHER if field is Field.CUSTOM else Row.NOTES)
        return None

    def commit(self, text: str) -> Outcome:
        """Enter in the open field: custom text answers (and moves on); notes stay."""
        self._touch()
        field, self.field = self.field, None
        page = self.page
        text = text.strip()
        if field is Field.NOTES:
            page.notes = text or None
            if text and not page.chosen:
                self.message = "Notes go beside a choice: pick an option too."
            # back to the choice: Enter now confirms it, instead of reopening the notes
            page.cursor = page.chosen[0] if page.chosen else 0
            return None
        if field is Field.CUSTOM:
            if not text:
                if page.custom is not None:
                    page.custom = None
                return None
            page.custom = text
            page.chosen = []
            page.skipped = False
            return self._advance()
        return None

    def close_field(self) -> Outcome:
        """Esc in a field: close it, keeping what was there before."""
        self._touch()
        self.field = None
        return None

    # -- internals -----------------------------------------------------------------------

    def _touch(self) -> None:
        self.version += 1
        self.message = ""
        self._digits = ""

    def _advance(self) -> Outcome:
        if not self.batch:
            return self.submit()
        return self.go(self.tab + 1)

    def _open_free_text(self) -> None:
        """A free-text question opens its text field as soon as it is shown (unanswered)."""
        if self.reviewing or self.field is not None:
            return
        page = self.page
        if not page.item.options and page.status is Status.UNANSWERED:
            self.field = Field.CUSTOM
            self.field_text = ""


def _clamp(value: int, highest: int) -> int:
    return max(0, min(value, highest))
