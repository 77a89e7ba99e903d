"""Styled text cut into screen lines at word boundaries, by display width.

prompt_toolkit wraps a long line at whatever cell the screen ends on, mid-word. Here the
plain text of each line is wrapped by :func:`wcwidth.wrap` (display cells: wide East Asian
characters take two, and a run of them may break between any two), and the styled
fragments are cut at the same places.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.processors import (
    Processor,
    Transformation,
    TransformationInput,
)
from prompt_toolkit.layout.utils import explode_text_fragments
from prompt_toolkit.utils import get_cwidth
from wcwidth import width as _width
from wcwidth import wrap as _wrap_text

__all__ = ["Fragments", "WordWrap", "record_rows", "split", "wrap"]

Fragments = list[tuple[str, str]]


def split(fragments: Fragments) -> list[Fragments]:
    """``fragments`` as one list per line (the line breaks dropped)."""
    lines: list[Fragments] = [[]]
    for style, text in fragments:
        parts = text.split("\n")
        for index, part in enumerate(parts):
            if index:
                lines.append([])
            if part:
                lines[-1].append((style, part))
    return lines


def wrap(
    fragments: Fragments, width: int, indents: Sequence[int] = ()
) -> tuple[list[Fragments], list[int]]:
    """The screen lines of ``fragments`` at ``width`` cells, and the first screen line of
    each of its lines. A line's continuations are indented by its entry in ``indents``."""
    out: list[Fragments] = []
    starts: list[int] = []
    for number, line in enumerate(split(fragments)):
        starts.append(len(out))
        indent = indents[number] if number < len(indents) else 0
        out += wrap_line(line, width, indent)
    return out, starts


def wrap_line(line: Fragments, width: int, indent: int = 0) -> list[Fragments]:
    """One line as screen lines of at most ``width`` cells, broken between words."""
    text = "".join(part for _, part in line)
    if width < 2 or _width(text) <= width or not text.strip():
        return [line]
    return [list(cut) for cut in _wrapped(tuple(line), text, width, indent)]


@lru_cache(maxsize=4096)  # a redraw re-wraps only the lines that changed
def _wrapped(
    line: tuple[tuple[str, str], ...], text: str, width: int, indent: int
) -> tuple[tuple[tuple[str, str], ...], ...]:
    if indent * 2 > width:
        indent = 0  # a deep indent on a narrow screen would leave no room for the words
    pad = " " * indent
    pieces = _wrap_text(
        text,
        width,
        subsequent_indent=pad,
        expand_tabs=False,
        replace_whitespace=False,
        propagate_sgr=False,
    )
    out: list[tuple[tuple[str, str], ...]] = []
    position = 0
    for number, wrapped in enumerate(pieces):
        piece = wrapped[len(pad) :] if number else wrapped
        start = text.find(piece, position)
        if start < 0 or text[position:start].strip():
            return (line,)  # the wrapper changed the text: leave it whole to the screen
        end = start + len(piece)
        cut = _slice(line, start, end)
        out.append((("", pad), *cut) if number and pad else cut)
        position = end
    return tuple(out) or (line,)


def _slice(line: tuple[tuple[str, str], ...], start: int, end: int) -> tuple[tuple[str, str], ...]:
    """The fragments of ``line`` covering characters ``start`` to ``end``."""
    out: list[tuple[str, str]] = []
    offset = 0
    for style, text in line:
        low, high = max(start, offset), min(end, offset + len(text))
        if low < high:
            out.append((style, text[low - offset : high - offset]))
        offset += len(text)
        if offset >= end:
            break
    return tuple(out)


class WordWrap(Processor):
    """Word wrapping for an editable field, whose window wraps at any cell.

    prompt_toolkit wraps a buffer's line wherever the window's edge falls. This pads the
    line with spaces before a word that would cross the edge, so the window's own wrapping
    starts that word on the next row; the cursor maps across the padding. A word wider
    than the field, and the spaces between words, still wrap where the edge falls; a wide
    East Asian character counts as a word of its own (text in those scripts may break
    between any two characters)."""

    def apply_transformation(self, ti: TransformationInput) -> Transformation:
        width = ti.width
        fragments = explode_text_fragments(ti.fragments)
        chars = [fragment[1] for fragment in fragments]
        cells = [get_cwidth(char) for char in chars]
        out: StyleAndTextTuples = []
        padded: list[int] = []  # padding inserted before each source position
        row = pad = 0
        for index, fragment in enumerate(fragments):
            cell = cells[index]
            if _word_starts(chars, cells, index):
                word = _word_width(chars, cells, index)
                if row > 0 and row + word > width >= word:
                    out.append(("", " " * (width - row)))
                    pad += width - row
                    row = 0
            padded.append(pad)
            if row + cell > width:
                row = 0
            row += cell
            out.append(fragment)
        padded.append(pad)  # the position after the last character

        def to_display(position: int) -> int:
            return position + padded[min(max(position, 0), len(padded) - 1)]

        def to_source(position: int) -> int:
            for source in range(len(padded)):
                if source + padded[source] >= position:
                    return source
            return len(padded) - 1

        return Transformation(out, source_to_display=to_display, display_to_source=to_source)


def _word_starts(chars: list[str], cells: list[int], index: int) -> bool:
    if chars[index].isspace():
        return False
    if cells[index] > 1 or index == 0:
        return True
    return chars[index - 1].isspace() or cells[index - 1] > 1


def _word_width(chars: list[str], cells: list[int], index: int) -> int:
    if cells[index] > 1:
        return cells[index]
    total = 0
    while index < len(chars) and not chars[index].isspace() and cells[index] <= 1:
        total += cells[index]
        index += 1
    return total


def record_rows(line: str, width: int) -> list[str]:
    """A line of the record left in the scrollback as rows of at most ``width`` cells,
    broken between words (continued under its text, past the mark), as the screen was."""
    if width < 10 or _width(line) <= width:
        return [line]
    rows = _wrap_text(line, width - 2) or [line]
    return rows[:1] + ["  " + row for row in rows[1:]]
