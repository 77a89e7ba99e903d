"""The tui's text control: styled text wrapped at word boundaries to the window's width,
which says how much more there is when it does not fit."""

from __future__ import annotations

from typing import Any, Callable, cast

from prompt_toolkit.data_structures import Point
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.controls import UIContent, UIControl

from . import _view, _wrap

__all__ = ["WrappedText"]


class WrappedText(UIControl):
    """Styled text wrapped at word boundaries to the window's width. Text taller than the
    window says so: with ``scroll`` (the options) the window follows the cursor and a
    line at either end counts the lines beyond it; else the last line shown does.

    With ``key``, the wrapped lines are kept until the key or the width changes (a
    question with 500 options redraws in a few milliseconds)."""

    def __init__(
        self,
        get: Callable[[], _view.Body],
        *,
        key: Callable[[], object] | None = None,
        scroll: bool = False,
        focusable: bool = False,
    ) -> None:
        self._get = get
        self._key = key
        self._scroll = scroll
        self._focusable = focusable
        self._cache: tuple[object, int, list[_wrap.Fragments], int] | None = None
        self._top = 0  # the first line shown, when scrolling

    def is_focusable(self) -> bool:
        return self._focusable

    def _lines(self, width: int) -> tuple[list[_wrap.Fragments], int]:
        """The screen lines at ``width``, and the one the cursor is on."""
        key = self._key() if self._key is not None else None
        cached = self._cache
        if cached is not None and self._key is not None and cached[:2] == (key, width):
            return cached[2], cached[3]
        body = self._get()
        lines, starts = _wrap.wrap(body.fragments, width, body.indents)
        if len(lines) > 1 and not lines[-1]:
            lines.pop()  # the line break after the last row
        cursor = starts[body.cursor_line] if body.cursor_line < len(starts) else 0
        self._cache = (key, width, lines, cursor)
        return lines, cursor

    def preferred_width(self, max_available_width: int) -> int | None:
        return None

    def preferred_height(
        self,
        width: int,
        max_available_height: int,
        wrap_lines: bool,
        get_line_prefix: Any,
    ) -> int | None:
        return len(self._lines(width)[0])

    def create_content(self, width: int, height: int) -> UIContent:
        lines, cursor = self._lines(width)
        if height < 1 or len(lines) <= height:
            shown, cursor = lines, min(cursor, max(0, len(lines) - 1))
        elif self._scroll and height >= 3:
            shown, cursor = self._follow(lines, cursor, height)
        else:
            hidden = len(lines) - height + 1
            shown = [*lines[: height - 1], _more("▼", hidden, "below")]
            cursor = min(cursor, height - 1)
        return UIContent(
            get_line=cast("Callable[[int], StyleAndTextTuples]", shown.__getitem__),
            line_count=len(shown),
            cursor_position=Point(0, cursor),
            show_cursor=False,
        )

    def _follow(
        self, lines: list[_wrap.Fragments], cursor: int, height: int
    ) -> tuple[list[_wrap.Fragments], int]:
        """``height`` lines around the cursor (the line after it too, where a description
        sits), a marker line at the ends with lines beyond them."""
        total = len(lines)
        top = max(0, min(self._top, total - 1))
        for _ in range(4):  # the markers take room: settle in a few steps
            room = height - (top > 0)
            below = top + room < total
            room -= below
            want_low, want_high = max(0, cursor - 1), min(total, cursor + 2)
            if want_low < top:
                top = want_low if want_low > 1 else 0
            elif want_high > top + room:
                top = min(want_high - room, total - 1)
            elif not below and top > 0 and total - top < room:
                top = max(0, total - room)
            else:
                break
        room = height - (top > 0)
        below = top + room < total
        room -= below
        if cursor < top:  # too little room for the lines around it: the cursor's own
            top = cursor
        elif cursor >= top + room:
            top = cursor - room + 1
        self._top = top
        shown = lines[top : top + room]
        if top > 0:
            shown.insert(0, _more("▲", top, "above"))
        if below:
            shown.append(_more("▼", total - top - room, "below"))
        return shown, cursor - top + (top > 0)


def _more(arrow: str, count: int, where: str) -> _wrap.Fragments:
    noun = "line" if count == 1 else "lines"
    return [("class:more", f"  {arrow} {count} more {noun} {where}")]
